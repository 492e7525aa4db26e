"""The reply parser: reasoning never read, the answer taken from the formats models write, linear
time."""

from __future__ import annotations

import json

import pytest

from wordle_gym.envs.replies import GUESS_TOOL, parse_guess, strip_reasoning, textarena_guess

CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "guess", "arguments": '{"word": "Crane"}'},
}


@pytest.mark.parametrize(
    ("reply", "lenient", "strict"),
    [
        # reasoning is never read
        ("<think>maybe <guess>shard</guess></think> Final answer: [crane]", "crane", None),
        ("<think>\n\n</think>\n\ncrane", "crane", None),  # Qwen3 with thinking switched off
        (
            "The template opened it. <guess>shard</guess></think><guess>crane</guess>",
            "crane",
            "crane",
        ),
        # cut off while reasoning
        ("<think>SLATE looks good, <guess>slate</guess> then", None, None),
        ("<THINKING>x</THINKING><Reasoning>[stare]</Reasoning>Answer: crane", "crane", None),
        # the formats models use
        ("I will play <guess>crane</guess>.", "crane", "crane"),
        # one guess a reply: the first
        ("<guess>crane</guess> or else <guess>slate</guess>", "crane", "crane"),
        ('<guess>"crane"</guess>', "crane", "crane"),
        ("<guess>crane.</guess>", "crane", "crane"),
        ("<guess> **Crane** </guess>", "crane", "crane"),
        ("The answer is $\\boxed{crane}$", "crane", None),
        ("Reasoning here.\nAnswer: crane", "crane", None),
        ("Let me see.\n**Final answer:** CRANE", "crane", None),
        ("Guess: `crane`", "crane", None),
        ("guess [crane]. If that fails I'll try [slate] next", "crane", None),
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
def test_parse_guess__lenient_and_strict(
    reply: str, lenient: str | None, strict: str | None
) -> None:
    assert parse_guess(reply) == lenient
    assert parse_guess(reply, "strict") == strict


def test_parse_guess__tool_calls_in_every_form() -> None:
    message = {"role": "assistant", "content": None, "tool_calls": [CALL]}
    assert parse_guess(message) == parse_guess(message, "strict") == "crane"
    assert parse_guess(CALL) == parse_guess(CALL["function"]) == "crane"
    # arguments as an object
    assert parse_guess({"name": "guess", "arguments": {"word": "slate"}}) == "slate"
    hermes = (
        '<think>hmm</think><tool_call>\n{"name": "guess", "arguments": {"word": '
        '"stare"}}\n</tool_call>'
    )
    assert parse_guess(hermes) == parse_guess(hermes, "strict") == "stare"
    # a tool call wins over text; the first guess call wins; bad arguments are no guess
    both = {"content": "<guess>slate</guess>", "tool_calls": [CALL]}
    assert parse_guess(both) == "crane"
    # Reliability 5, finding 10: a guess call followed by another tool's call was refused, and the
    # text's <guess> ignored too: calls of other tools are passed by
    other = {"function": {"name": "search", "arguments": '{"word": "slate"}'}}
    assert (
        parse_guess({"tool_calls": [CALL, other]})
        == parse_guess({"tool_calls": [other, CALL]})
        == "crane"
    )
    assert parse_guess({"content": "<guess>stare</guess>", "tool_calls": [other]}) == "stare"
    # content as OpenAI's list of parts was refused
    parts = {"role": "assistant", "content": [{"type": "text", "text": "<guess>crane</guess>"}]}
    assert parse_guess(parts) == parse_guess(parts, "strict") == "crane"
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
    # issue 84: the decision after a change of mind, as every surface reads it
    assert textarena_guess("I'll play [crane]. Actually, [slate] keeps more.") == "slate"
    assert textarena_guess("[crane]. Wait, no bracket after this.") == "crane"


@pytest.mark.parametrize(
    "attack",
    ["<guess>" * 150_000, "<think>" * 150_000, "<tool_call>" * 90_000, "[" * 1_000_000,
     "\\boxed{" * 120_000, "<think>" + "<thinking>" * 90_000, "answer:" * 140_000,
     "<guess>" + "a" * 1_000_000, "<|start|>" + "to=functions.guess " * 50_000,
     "I'll guess " * 90_000, "**a" * 300_000, "{\"a\": [" * 90_000, "[TOOL_CALLS]" + "[{" * 400_000,
     "FINAL ANSWER" * 80_000, "<function=guess>" * 60_000, '<invoke name="guess">' * 45_000,
     "<|tool▁call▁begin|>guess" * 40_000, 'guess("' * 140_000, "actually CRANE " * 70_000,
     "<tool_call>guess<arg_key>" * 40_000, "<|tool_call_begin|>guess" * 40_000],
    ids=lambda attack: f"{attack[:12]!r}x{len(attack)}",
)  # fmt: skip
def test_parse_guess__linear_on_unclosed_tags(attack: str) -> None:
    """Issue 62: 224 KB of unclosed <guess> took 30 s (quadratic); these are 1 MB (a quadratic
    parser would run for hours here: the suite would not end)."""
    assert parse_guess(attack, "strict") is None
    # "answer:answer:..." is a line that answers "answer"; no tag is read
    found = parse_guess(attack)
    assert found is None or found.isalpha()
    assert strip_reasoning(attack) is not None


def _reply_table() -> list[tuple[str, object, bool, str | None, str | None, str | None]]:
    """The rows of docs/guides/replies.md: family, reply, template opened <think>, a person reads,
    lenient, strict."""
    import ast
    import re
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "guides" / "replies.md"
    rows = []
    for line in page.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith(("| family", "| ---")):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        ticks = len(cells[1]) - len(cells[1].lstrip("`"))
        literal = cells[1][ticks:-ticks].strip().replace("\\|", "|")
        word = [None if c == "—" else c.lower() for c in cells[3:6]]
        rows.append((cells[0], ast.literal_eval(literal), cells[2] == "yes", *word))
    return rows


REPLY_TABLE = _reply_table()


@pytest.mark.parametrize(
    ("family", "reply", "think_open", "person", "lenient", "strict"), REPLY_TABLE
)
def test_parse_guess__the_documented_table_of_model_replies(
    family, reply, think_open, person, lenient, strict
):
    """Issue 73: of 65 replies as model families write them, 24 were refused although a person reads
    CRANE and 3 played a word from reasoning cut off mid-thought. The docs' table is the test: each
    row's lenient and strict readings, and never a word from reasoning (a row a person reads as no
    guess is none)."""
    assert parse_guess(reply, "lenient", think_open=think_open) == lenient
    assert parse_guess(reply, "strict", think_open=think_open) == strict
    if person is None:
        assert lenient is None and strict is None


def test_parse_guess__the_table_reads_as_a_person_reads_nine_replies_in_ten() -> None:
    assert len(REPLY_TABLE) >= 65
    agree = sum(person == lenient for _, _, _, person, lenient, _ in REPLY_TABLE)
    assert agree >= 0.9 * len(REPLY_TABLE)


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("I'll guess slate\u0455", "'\u0455' (U+0455)"),  # a Cyrillic dze after SLATE
        ("cr\u0430ne", "'\u0430' (U+0430)"),  # a Cyrillic a inside CRANE
        ("<guess>cr\u0430ne</guess>", "'\u0430' (U+0430)"),
        ("My guess: cr\u0430ne", "'\u0430' (U+0430)"),
        ("[cr\u03bfne]", "'\u03bf' (U+03BF)"),  # a Greek omicron
        ({"name": "guess", "arguments": {"word": "cr\u0430ne"}}, "'\u0430' (U+0430)"),
    ],
)
def test_mixed_script__a_confusable_letter_is_refused_naming_it(reply: object, letter: str) -> None:
    """Reliability 6, finding 10: "I'll guess slateѕ" (a Cyrillic ѕ) played SLATE, and "crаne" (a
    Cyrillic а) was refused as "'CR' is not a 5-letter word". A word mixing Latin letters with
    look-alikes of another script is refused, naming the letter."""
    from wordle_gym.envs.text import WordleTextEnv

    env = WordleTextEnv()
    env.reset(seed=0)
    _, _, _, _, info = env.step(reply)  # type: ignore[arg-type]
    assert info["invalid"] and info["guess"] == ""
    assert letter in info["reason"] and "write the word in Latin letters" in info["reason"]


@pytest.mark.parametrize(
    "reply", ["café? no: <guess>crane</guess>", "Ответ: CRANE", "Réponse : crane", "CRANE"]
)
def test_mixed_script__words_of_one_script_are_read_as_before(reply: str) -> None:
    from wordle_gym.envs.replies import mixed_script
    from wordle_gym.envs.text import WordleTextEnv

    assert mixed_script(reply) is None
    env = WordleTextEnv()
    env.reset(seed=0)
    _, _, _, _, info = env.step(reply)
    assert info["guess"] == "crane" and not info["invalid"]
