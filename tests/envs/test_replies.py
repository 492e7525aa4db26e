"""The reply parser: reasoning never read, the answer taken from the formats models write, linear time."""

from __future__ import annotations

import json

import pytest

from wordle_gym.envs.replies import GUESS_TOOL, parse_guess, strip_reasoning, textarena_guess

CALL = {"id": "c1", "type": "function", "function": {"name": "guess", "arguments": '{"word": "Crane"}'}}


@pytest.mark.parametrize(
    ("reply", "lenient", "strict"),
    [
        # reasoning is never read
        ("<think>maybe <guess>shard</guess></think> Final answer: [crane]", "crane", None),
        ("<think>\n\n</think>\n\ncrane", "crane", None),  # Qwen3 with thinking switched off
        ("The template opened it. <guess>shard</guess></think><guess>crane</guess>", "crane", "crane"),
        ("<think>SLATE looks good, <guess>slate</guess> then", None, None),  # cut off while reasoning
        ("<THINKING>x</THINKING><Reasoning>[stare]</Reasoning>Answer: crane", "crane", None),
        # the formats models use
        ("I will play <guess>crane</guess>.", "crane", "crane"),
        ("<guess>slate</guess> no, better <guess>crane</guess>", "crane", "crane"),
        ('<guess>"crane"</guess>', "crane", "crane"),
        ("<guess>crane.</guess>", "crane", "crane"),
        ("<guess> **Crane** </guess>", "crane", "crane"),
        ("The answer is $\\boxed{crane}$", "crane", None),
        ("Reasoning here.\nAnswer: crane", "crane", None),
        ("Let me see.\n**Final answer:** CRANE", "crane", None),
        ("Guess: `crane`", "crane", None),
        ("I pick [slate], no: [crane]", "crane", None),
        ("crane", "crane", None),
        ("  'Crane!'  ", "crane", None),
        # no guess
        ("I think crane is good", None, None),
        ("<guess>two words</guess>", None, None),
        ("<guess>cr4ne</guess>", None, None),
        ("<guess>crâne</guess>", None, None),
        ("", None, None),
    ],
)
def test_parse_guess__lenient_and_strict(reply: str, lenient: str | None, strict: str | None) -> None:
    assert parse_guess(reply) == lenient
    assert parse_guess(reply, "strict") == strict


def test_parse_guess__tool_calls_in_every_form() -> None:
    message = {"role": "assistant", "content": None, "tool_calls": [CALL]}
    assert parse_guess(message) == parse_guess(message, "strict") == "crane"
    assert parse_guess(CALL) == parse_guess(CALL["function"]) == "crane"
    assert parse_guess({"name": "guess", "arguments": {"word": "slate"}}) == "slate"  # arguments as an object
    hermes = '<think>hmm</think><tool_call>\n{"name": "guess", "arguments": {"word": "stare"}}\n</tool_call>'
    assert parse_guess(hermes) == parse_guess(hermes, "strict") == "stare"
    # a tool call wins over text; the last call wins; another tool or bad arguments is no guess
    both = {"content": "<guess>slate</guess>", "tool_calls": [CALL]}
    assert parse_guess(both) == "crane"
    other = {"function": {"name": "search", "arguments": '{"word": "crane"}'}}
    assert parse_guess({"tool_calls": [CALL, other]}) is None
    assert parse_guess({"function": {"name": "guess", "arguments": '{"word": 3}'}}) is None
    assert parse_guess({"function": {"name": "guess", "arguments": "{not json"}}) is None
    # a message's separate reasoning field is never read
    assert parse_guess({"content": "", "reasoning_content": "<guess>crane</guess>"}) is None
    assert GUESS_TOOL["function"]["name"] == "guess" and json.dumps(GUESS_TOOL)


def test_parse_guess__a_callable_parser_and_bad_names() -> None:
    assert parse_guess("anything", lambda reply: "crane") == "crane"
    assert parse_guess("anything", lambda reply: None) is None
    with pytest.raises(ValueError, match="parser must be one of"):
        parse_guess("crane", "loose")


def test_textarena_guess__the_first_bracket_as_textarena_reads_it() -> None:
    assert textarena_guess("I pick [crane] not [about]") == "crane"
    assert textarena_guess("[x</guess><guess>salet]") is None
    assert textarena_guess("My notes: <guess>crane</guess> ... final answer [salet]") == "salet"
    assert textarena_guess("[CRANE]") == "crane" and textarena_guess("crane") is None


@pytest.mark.parametrize(
    "attack",
    ["<guess>" * 150_000, "<think>" * 150_000, "<tool_call>" * 90_000, "[" * 1_000_000, "\\boxed{" * 120_000,
     "<think>" + "<thinking>" * 90_000, "answer:" * 140_000, "<guess>" + "a" * 1_000_000],
)  # fmt: skip
def test_parse_guess__linear_on_unclosed_tags(attack: str) -> None:
    """Issue 62: 224 KB of unclosed <guess> took 30 s (quadratic); these are 1 MB (a quadratic parser would run
    for hours here: the suite would not end)."""
    assert parse_guess(attack) is None and parse_guess(attack, "strict") is None
    assert strip_reasoning(attack) is not None
