"""Reading a guess from a language model's reply: reasoning skipped, the answer taken from the formats models use.

One parser serves every text surface (``WordleText-v0``, the ``llm`` agent, the verifiers environment); the
TextArena ids read replies by TextArena's own rule (:func:`textarena_guess`). A reply is a string, an assistant
message (``{"content": ..., "tool_calls": [...], "reasoning_content": ...}``), or one tool call.

``parser="lenient"`` (the default), in order:

1. the reasoning is dropped: ``<think>...</think>`` blocks (also ``<thinking>``, ``<reasoning>``), everything up
   to a ``</think>`` whose opening tag the chat template wrote, and everything after an unterminated ``<think>``
   (a reply cut off while reasoning has no answer); a message's separate reasoning field is never read;
2. a call of the ``guess`` tool (:data:`GUESS_TOOL`): the message's ``tool_calls``, or ``<tool_call>{...}
   </tool_call>`` in the text, as Hermes-style chat templates (Qwen's) write it; the last call wins;
3. the last ``<guess>...</guess>``;
4. the last ``\\boxed{...}``;
5. the last line that starts ``Final answer:``, ``Answer:`` or ``Guess:``;
6. the last ``[...]``;
7. the whole answer, when it is one word.

The word found is stripped of surrounding quotes, markdown emphasis and punctuation (``<guess>"crane".</guess>``
is CRANE) and lower-cased; anything but one run of ASCII letters is no guess. ``parser="strict"`` takes only rule 3
(and 2 for a tool call), after rule 1. A callable ``parser(reply) -> str | None`` replaces both. Every rule runs
in time linear in the reply's length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

PARSERS = ("lenient", "strict")
"""The named rule sets of :func:`parse_guess`."""

GUESS_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "guess",
        "description": "Submit one guess: a word of the game's length from the allowed list.",
        "parameters": {
            "type": "object",
            "properties": {"word": {"type": "string", "description": "the guessed word, e.g. crane"}},
            "required": ["word"],
        },
    },
}
"""The ``guess`` tool in OpenAI's tools format (what ``tools=[GUESS_TOOL]`` offers a chat model)."""

_FLAGS = re.I | re.S
# A block's content may not hold its own opening tag, so no match attempt scans past the next one: linear.
_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>(?:(?!<\1>).)*?</\1>", _FLAGS)
_THINK_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.I)
_THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)>", re.I)
_GUESS = re.compile(r"<guess>((?:(?!<guess>).)*?)</guess>", _FLAGS)
_TOOL = re.compile(r"<tool_call>((?:(?!<tool_call>).)*?)</tool_call>", _FLAGS)
_BOXED = re.compile(r"\\boxed\{([^{}\\]*)\}")
_ANSWER_LINE = re.compile(r"^[ \t*#>_-]*(?:final answer|answer|guess)[ \t*_]*[:=\-][ \t]*([^\n]*)$", re.I | re.M)
_BRACKET = re.compile(r"\[([^\[\]]*)\]")
_TEXTARENA = re.compile(r"\[(\w+)\]")
_EDGES = " \t\r\n\"'`*_.,;:!?()[]{}<>“”‘’«»"
_WORD = re.compile(r"[A-Za-z]+")


def strip_reasoning(text: str) -> str:
    """``text`` without its reasoning: ``<think>`` blocks, what precedes a lone ``</think>``, what follows an
    unterminated ``<think>`` ("" when the reply ended inside its reasoning)."""
    text = _THINK_BLOCK.sub(" ", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:  # the template opened the block before the reply began
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    return text[: opened.start()] if opened else text


def clean_word(text: str) -> str | None:
    """The one word in ``text`` (quotes, emphasis and punctuation around it dropped), lower-cased; None unless it
    is a single run of letters."""
    word = text.strip(_EDGES)
    return word.lower() if _WORD.fullmatch(word) else None


def _call_word(name: Any, arguments: Any) -> str | None:
    """The word of one ``guess`` tool call (None for another tool or bad arguments)."""
    if name != GUESS_TOOL["function"]["name"]:
        return None
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return clean_word(arguments)  # a bare string argument
    if isinstance(arguments, dict):
        arguments = arguments.get("word", arguments.get("guess"))
    return clean_word(arguments) if isinstance(arguments, str) else None


def _tool_calls(calls: Any) -> list[tuple[Any, Any]]:
    """(name, arguments) of each call in an OpenAI ``tool_calls`` list (objects or dicts)."""
    found = []
    for call in calls if isinstance(calls, list | tuple) else ():
        function = call.get("function", call) if isinstance(call, dict) else getattr(call, "function", call)
        if isinstance(function, dict):
            found.append((function.get("name"), function.get("arguments")))
        else:
            found.append((getattr(function, "name", None), getattr(function, "arguments", None)))
    return found


def reply_parts(reply: Any) -> tuple[str, list[tuple[Any, Any]]]:
    """A reply's text (reasoning dropped) and its tool calls: a string, a message dict, a tool call dict, or an
    object with ``text``/``content`` and ``tool_calls`` (the ``llm`` client's reply)."""
    if isinstance(reply, str):
        text, calls = reply, []
    elif isinstance(reply, dict):
        if "name" in reply or "function" in reply:  # one tool call
            return "", _tool_calls([reply])
        content = reply.get("content")
        text, calls = (content if isinstance(content, str) else ""), _tool_calls(reply.get("tool_calls"))
    else:
        content = getattr(reply, "text", getattr(reply, "content", None))
        text, calls = (content if isinstance(content, str) else ""), _tool_calls(getattr(reply, "tool_calls", None))
    text = strip_reasoning(text)
    for match in _TOOL.finditer(text):  # tool calls written in the text (Hermes style)
        try:
            call = json.loads(match.group(1))
        except (ValueError, RecursionError):
            continue
        if isinstance(call, dict):
            calls.append((call.get("name"), call.get("arguments", call.get("parameters"))))
    return text, calls


def _last(pattern: re.Pattern[str], text: str) -> str | None:
    found = None
    for found in pattern.finditer(text):  # noqa: B007 (the last one is wanted)
        pass
    return None if found is None else found.group(1)


def lenient_guess(reply: Any) -> str | None:
    """The guess of ``reply`` by the lenient rules (module docstring); None when there is none."""
    text, calls = reply_parts(reply)
    if calls:
        return _call_word(*calls[-1])
    for pattern in (_GUESS, _BOXED, _ANSWER_LINE, _BRACKET):
        found = _last(pattern, text)
        if found is not None:
            return clean_word(found)
    return clean_word(text)


def strict_guess(reply: Any) -> str | None:
    """The guess of ``reply`` by the strict rules: a ``guess`` tool call or the last ``<guess>...</guess>``."""
    text, calls = reply_parts(reply)
    if calls:
        return _call_word(*calls[-1])
    found = _last(_GUESS, text)
    return None if found is None else clean_word(found)


def textarena_guess(reply: str) -> str | None:
    """TextArena's rule, as its ``Wordle-v0`` reads a reply: the first ``[word]`` (letters, digits, ``_``),
    lower-cased; None when there is none."""
    found = _TEXTARENA.search(reply) if isinstance(reply, str) else None
    return None if found is None else found.group(1).lower()


def resolve_parser(parser: str | Callable[[Any], str | None]) -> Callable[[Any], str | None]:
    """The function of a ``parser`` option: ``"lenient"``, ``"strict"`` or a callable of the reply."""
    if callable(parser):
        return parser
    if parser == "lenient":
        return lenient_guess
    if parser == "strict":
        return strict_guess
    raise ValueError(f"parser must be one of {PARSERS} or a callable of the reply; got {parser!r}")


def parse_guess(reply: Any, parser: str | Callable[[Any], str | None] = "lenient") -> str | None:
    """The word ``reply`` guesses, lower-cased, by ``parser`` (module docstring); None when it has none. Whether
    the word is allowed is the env's check."""
    found = resolve_parser(parser)(reply)
    return found if isinstance(found, str) and found else None


__all__ = [
    "GUESS_TOOL",
    "PARSERS",
    "clean_word",
    "lenient_guess",
    "parse_guess",
    "reply_parts",
    "resolve_parser",
    "strict_guess",
    "strip_reasoning",
    "textarena_guess",
]
