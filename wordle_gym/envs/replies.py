"""Reading a guess from a language model's reply: reasoning skipped, the answer taken from the
formats models use.

One parser serves every text surface (``WordleText-v0``, the ``llm`` agent, the verifiers
environment, the OpenEnv server); the TextArena ids read replies by TextArena's own rule
(:func:`textarena_guess`), which picks the same word wherever both read one. A reply is a string, an
assistant message (``{"content": ..., "tool_calls":
[...], "reasoning_content": ...}``; content as a string or as OpenAI's list of parts), or one tool
call.

``parser="lenient"`` (the default), in order:

1. the text is read as a person reads it: fullwidth letters as letters (Unicode NFKC), a list of
   parts joined;
2. the reasoning is dropped: ``<think>...</think>`` blocks (also ``<thinking>``, ``<reasoning>``),
   everything up to a ``</think>`` whose opening tag the chat template wrote, everything after an
   unterminated ``<think>`` (a reply cut off while reasoning has no answer), the whole reply when
   ``think_open`` says the template opens the block and the reply never closes it; in gpt-oss's
   harmony format only the ``final`` channel is read (also as decoded with its special tokens
   skipped: ``analysis...assistantfinal...``), and an analysis channel never followed by a final one
   has no answer; a message's separate reasoning field is never read;
3. a call of the ``guess`` tool (:data:`GUESS_TOOL`): the message's ``tool_calls``,
   ``<tool_call>{...} </tool_call>`` in the text (Hermes-style templates, Qwen's), a reply that is
   one JSON call (Llama 3's ``{"name": "guess", "parameters": {...}}``), Mistral's ``[TOOL_CALLS]``,
   harmony's ``to=functions.guess``; calls of other tools are passed by;
4. a JSON object with a ``guess``, ``word`` or ``answer`` field (``{"guess": "crane"}``, fenced or
   not);
5. ``<guess>...</guess>``, then ``<answer>...</answer>``;
6. ``\\boxed{...}`` (``\\boxed{\\text{CRANE}}`` too);
7. a line ``Final answer: ...``;
8. a line ``Answer:``, ``Guess:``, ``My guess:``, ``Next guess:`` ..., or a sentence that says it:
   "the answer is CRANE", "my next guess is: CRANE", "I'll guess CRANE", "let's start with CRANE",
   "I'll go with CRANE", "I'll try CRANE", "I choose CRANE" (the word right after);
9. ``[...]``;
10. a word in bold or code (``**CRANE**``, a code span), then a word in capitals (``CRANE``; not
    ``I`` or ``A``);
11. the whole answer, when it is one word.

**One guess a reply: its decision.** A ``guess`` tool call decides (rule 3, in any of the major
open model families' syntaxes: also GLM-4.5's ``<arg_key>``/``<arg_value>``, Qwen3-Coder's
``<function=guess><parameter=word>``, Anthropic-style ``<invoke name="guess">``, pythonic calls and
Gemma 3's ``tool_code``, Mistral's calls with ids, DeepSeek-V3's and Kimi K2's special tokens); a
reply that opens a call it never completes plays nothing. Otherwise rules 4-11 read the reply from
its last change of mind that names a word ("I'll guess CRANE. Actually, SLATE." plays SLATE), and
the first rule that finds a word decides: of its words the *first* the game allows is played
("guess [crane]. If that fails I'll try [slate] next" plays CRANE, as TextArena's rule does; "the
format is [word]; I play [soare]" plays SOARE), a repeat of the prompt's example word passed by when
the reply names another (:func:`parse_guess`'s ``allowed`` and ``example``); naming the same word
twice is no conflict. A reply cut off mid-sentence ("After SALET, the best next word is") plays only
what an answer line or sentence says, never a word it merely mentions. Answer lines in Spanish,
German, French, Chinese and Japanese count. The table in ``docs/guides/replies.md`` shows what
replies as model families write them play. The word found is stripped of surrounding quotes,
markdown emphasis and punctuation (``<guess>"crane".</guess>`` is CRANE) and lower-cased;
anything but one run of ASCII letters is no guess. ``parser="strict"`` takes only rule 3's tool
calls and rule 5's ``<guess>``, after rules 1 and 2. A callable ``parser(reply) -> str | None``
replaces both. Every rule runs in time linear in the reply's length.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Callable, Container
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
            "properties": {
                "word": {"type": "string", "description": "the guessed word, e.g. crane"}
            },
            "required": ["word"],
        },
    },
}
"""The ``guess`` tool in OpenAI's tools format (what ``tools=[GUESS_TOOL]`` offers a chat model)."""

_FLAGS = re.I | re.S
# A block's content may not hold its own opening tag, so no match attempt scans past the next one:
# linear.
_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>(?:(?!<\1>).)*?</\1>", _FLAGS)
_THINK_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.I)
_THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)>", re.I)
_HARMONY = re.compile(r"<\|(?:channel|start|message)\|>")
# Bounded gaps: an unbounded [^<]* after each of many "to=functions." would make the search
# quadratic.
_HARMONY_FINAL = re.compile(
    r"<\|channel\|>[ "
    r"\t]*final\b[^<]{0,64}(?:<\|constrain\|>[^<]{0,64})?<\|message\|>"
)
_NAME = re.compile(r"\w{1,64}")
_HARMONY_END = re.compile(r"<\|(?:end|return|call|start)\|>")
# special tokens skipped: "analysisWe need...assistantfinal"
_HARMONY_SKIPPED = re.compile(r"\s*analysis(?=[A-Z])")
_GUESS = re.compile(r"<guess>((?:(?!<guess>).)*?)</guess>", _FLAGS)
_ANSWER_TAG = re.compile(r"<answer>((?:(?!<answer>).)*?)</answer>", _FLAGS)
_TOOL = re.compile(r"<tool_call>((?:(?!<tool_call>).)*?)</tool_call>", _FLAGS)
_BOXED = re.compile(r"\\boxed\{((?:\\(?:text|textbf|mathrm|mathbf|texttt)\{[^{}\\]*\}|[^{}\\])*)\}")
_LATEX_TEXT = re.compile(r"\\(?:text|textbf|mathrm|mathbf|texttt)\{([^{}\\]*)\}")
_FINAL_LINE = re.compile(
    r"^[ \t*#>_-]*final[ \t]+answer[ \t*_]*[:=\-][ "
    r"\t*_]*([^\n]*)$",
    re.I | re.M,
)
_ANSWER_LINE = re.compile(
    r"^[ \t*#>_-]*(?:(?:my|the|next|first|final|mi|la|meine|mein|die|ma|mon|le)[ \t]+|我的|私の)*"
    r"(?:answer|guess|word|respuesta|antwort|tipp|réponse|reponse|答案|答え|回答|猜测|推測)"
    r"[ \t*_]*[:=\-][ \t*_]*([^\n]*)$",
    re.I | re.M,
)  # English, Spanish, German, French, Chinese and Japanese answer frames
_SAYS = re.compile(
    r"\b(?:(?:answer|guess|word|choice|pick)[ \t]+(?:is|will[ \t]+be|would[ \t]+be)"
    r"|i(?:'ll|[ \t]+will|[ \t]+would|'d|[ \t]+am[ \t]+going[ \t]+to|'m[ \t]+going[ \t]+to)?[ \t]+"
    r"(?:guess|try|pick|choose|go[ \t]+with|play|submit|use|start[ \t]+with|open[ \t]+with)"
    r"|let'?s[ \t]+(?:start[ \t]+with|open[ \t]+with|begin[ \t]+with|go[ \t]+with|try|guess|play)"
    r"|(?:starting|opening|going)[ \t]+with|guessing)[ \t]*:?[ \t]*(?:the[ \t]+word[ \t]+)?",
    re.I,
)
# a change of mind: the decision is what follows the last one that names a word
_CORRECTION = re.compile(
    r"\b(?:actually|correction|instead|wait|hold on|on second thought|scratch that|never ?mind"
    r"|let me reconsider|change of plan|changed? my mind|i'd rather|rather|no,)(?![A-Za-z])",
    re.I,
)
# a reply that stops mid-sentence: on a word no sentence ends with, or on a comma or colon
_CUT_OFF = re.compile(
    r"(?:\b(?:is|are|was|be|been|the|a|an|and|or|but|to|of|with|that|whether|if|because|since|so"
    r"|for|than|then|which|could|would|should|might|will|my|maybe|perhaps|like"
    r"|as|at|in|on|by)|[,:;(])[ \t]*$",
    re.I,
)
_NEXT_WORD = re.compile(r"[\"'`“‘*_]*([A-Za-z]+)(?![A-Za-z'-])")
_BRACKET = re.compile(r"\[([^\[\]]*)\]")
_EMPHASIS = re.compile(r"\*\*([^*\n]+)\*\*|__([^_\n]+)__|`([^`\n]+)`")
_CAPITALS = re.compile(r"(?<![A-Za-z'])([A-Z]{2,})(?![A-Za-z'])")
_MISTRAL = re.compile(r"\[TOOL_CALLS\]\s*")
_MISTRAL_ARGS = re.compile(r"\[TOOL_CALLS\]\s*(\w+)\s*(?:\[CALL_ID\]\s*\w{0,64}\s*)?\[ARGS\]\s*")
# GLM-4.5's call: <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>...</tool_call>
_ARG_PAIR = re.compile(
    r"<arg_key>\s*(\w{1,64})\s*</arg_key>\s*<arg_value>([^<]{0,256})</arg_value>"
)
# Qwen3-Coder's: <function=NAME><parameter=K>V</parameter></function>
_FUNCTION_EQ = re.compile(r"<function=(\w{1,64})>((?:(?!<function=).)*?)</function>", _FLAGS)
_PARAMETER_EQ = re.compile(r"<parameter=(\w{1,64})>([^<]{0,256})</parameter>")
# Anthropic-style XML: <invoke name="NAME"><parameter name="K">V</parameter></invoke>
_INVOKE = re.compile(
    r"<invoke\s+name=[\"']?(\w{1,64})[\"']?\s*>((?:(?!<invoke).)*?)</invoke>", _FLAGS
)
_PARAMETER_NAMED = re.compile(
    r"<parameter\s+name=[\"']?(\w{1,64})[\"']?\s*>([^<]{0,256})</parameter>"
)
# DeepSeek-V3's and V3.1's special tokens (fullwidth bars, read as | after NFKC):
# <|tool▁call▁begin|>[function<|tool▁sep|>]NAME[<|tool▁sep|>]ARGS<|tool▁call▁end|>
_DEEPSEEK = re.compile(
    r"<\|tool▁call▁begin\|>\s*(?:function\s*<\|tool▁sep\|>\s*)?(\w{1,64})\s*(?:<\|tool▁sep\|>)?"
    r"((?:(?!<\|tool▁call▁begin\|>).){0,1024}?)<\|tool▁call▁end\|>",
    re.S,
)
# Kimi K2's: <|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>ARGS<|tool_call_end|>
_KIMI = re.compile(
    r"<\|tool_call_begin\|>\s*(?:functions\.)?(\w{1,64})(?::\d{1,6})?\s*"
    r"<\|tool_call_argument_begin\|>((?:(?!<\|tool_call_begin\|>).){0,1024}?)<\|tool_call_end\|>",
    re.S,
)
# a pythonic call (Gemma 3's tool_code block, Llama's [guess(word="crane")]): NAME(K="V"), NAME("V")
_PYTHONIC = re.compile(
    r"\b(\w{1,64})\(\s*(?:(\w{1,64})\s*=\s*)?[\"'“‘]([^\"'”’\n]{0,64})[\"'”’]\s*\)"
)
# a fenced block's one word, its language tag passed by (```text\ncrane\n```)
_FENCE = re.compile(r"```[A-Za-z]{0,16}[ \t]*\n([^`]{0,128}?)\n?```")
# a reply that opens a tool call: one whose call cannot be read has no guess (it was cut off)
_CALL_OPENS = re.compile(
    r"\[TOOL_CALLS\]|<tool_call>|<function_calls>|<invoke\b|<function=|<\|tool▁calls?▁begin\|>"
    r"|<\|tool_calls?_(?:section_)?begin\|>|```tool_code|<\|python_tag\|>",
    re.I,
)
_TEXTARENA = re.compile(r"\[(\w+)\]")
_EDGES = " \t\r\n\"'`*_.,;:!?()[]{}<>“”‘’«»"
_WORD = re.compile(r"[A-Za-z]+")
_JSON_STARTS = 8
"""JSON objects tried per reply (each parse is linear; a bounded number keeps the whole linear)."""


def strip_reasoning(text: str, think_open: bool = False) -> str:
    """``text`` without its reasoning: ``<think>`` blocks, what precedes a lone ``</think>``, what
    follows an unterminated ``<think>`` ("" when the reply ended inside its reasoning; with
    ``think_open``, the chat template opened the block, so a reply that never closes it is all
    reasoning); harmony's analysis channel (only the final channel is kept)."""
    if think_open:
        text = "<think>" + text
    text = _THINK_BLOCK.sub(" ", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:  # the template opened the block before the reply began
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    text = text[: opened.start()] if opened else text
    return _harmony_final(text)


def _harmony_final(text: str) -> str:
    """gpt-oss's harmony format: the final channel's message ("" when the reply has only other
    channels); a reply in no such format as it is."""
    if _HARMONY.search(text):
        final = _HARMONY_FINAL.search(text)
        if final is None:
            at = text.find("to=functions.")
            # a tool call (reply_parts reads it), or reasoning only
            return "" if at < 0 else text[at:]
        end = _HARMONY_END.search(text, final.end())
        return text[final.end() : end.start() if end else len(text)]
    if _HARMONY_SKIPPED.match(text):
        at = text.rfind("assistantfinal")
        return "" if at < 0 else text[at + len("assistantfinal") :]
    return text


def _harmony_call(text: str) -> tuple[str, str] | None:
    """A harmony tool call that begins ``text``
    (``to=functions.NAME ... <|message|>ARGUMENTS<|call|>``): the name and the arguments; None when
    ``text`` is not one."""
    if not text.startswith("to=functions."):
        return None
    name = _NAME.match(text, len("to=functions."))
    if name is None:
        return None
    # the channel and constraint between: a few words
    at = text.find("<|message|>", name.end(), name.end() + 256)
    if at < 0:
        return None
    end = _HARMONY_END.search(text, at)
    return name.group(0), text[at + len("<|message|>") : end.start() if end else len(text)].strip()


def clean_word(text: str) -> str | None:
    """The one word in ``text`` (quotes, emphasis and punctuation around it dropped), lower-cased;
    None unless it is a single run of letters."""
    word = _LATEX_TEXT.sub(r"\1", text).strip(_EDGES)
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
        function = (
            call.get("function", call)
            if isinstance(call, dict)
            else getattr(call, "function", call)
        )
        if isinstance(function, dict):
            found.append(
                (function.get("name"), function.get("arguments", function.get("parameters")))
            )
        else:
            found.append((getattr(function, "name", None), getattr(function, "arguments", None)))
    return found


def _content_text(content: Any) -> str:
    """A message's content as text: a string, or OpenAI's list of parts (their text joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list | tuple):
        parts = [
            p if isinstance(p, str) else p.get("text") if isinstance(p, dict) else None
            for p in content
        ]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _json_values(text: str) -> list[Any]:
    """The JSON objects and arrays in ``text`` (at most :data:`_JSON_STARTS` tried), in order."""
    decoder, found, at, tries = json.JSONDecoder(), [], 0, 0
    while tries < _JSON_STARTS:
        starts = [i for i in (text.find("{", at), text.find("[{", at)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        tries += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            at = start + 1
            continue
        found.append(value)
        at = end
    return found


def _json_calls(value: Any) -> list[tuple[Any, Any]]:
    """Tool calls written as JSON (Llama 3's ``{"name", "parameters"}``, a list of them as Mistral
    writes)."""
    items = value if isinstance(value, list) else [value]
    return [
        (item.get("name"), item.get("arguments", item.get("parameters")))
        for item in items
        if isinstance(item, dict)
        and "name" in item
        and ("arguments" in item or "parameters" in item)
    ]


def reply_parts(reply: Any, think_open: bool = False) -> tuple[str, list[tuple[Any, Any]]]:
    """A reply's text (reasoning dropped) and its tool calls: a string, a message dict, a tool call
    dict, or an object with ``text``/``content`` and ``tool_calls`` (the ``llm`` client's reply).
    Calls written in the text (Hermes' ``<tool_call>``, a JSON call, Mistral's ``[TOOL_CALLS]``,
    harmony's ``to=functions.NAME``) count."""
    if isinstance(reply, str):
        text, calls = reply, []
    elif isinstance(reply, dict):
        if "name" in reply or "function" in reply:  # one tool call
            return "", _tool_calls([reply])
        text, calls = _content_text(reply.get("content")), _tool_calls(reply.get("tool_calls"))
    else:
        content = getattr(reply, "text", getattr(reply, "content", None))
        text, calls = _content_text(content), _tool_calls(getattr(reply, "tool_calls", None))
    text = strip_reasoning(unicodedata.normalize("NFKC", text), think_open)
    harmony = _harmony_call(text)
    if harmony is not None:  # a harmony tool call: its message is the arguments
        return "", [*calls, harmony]
    calls.extend(_written_calls(text))
    mistral = _MISTRAL_ARGS.search(text)
    if mistral:  # [TOOL_CALLS]name[ARGS]{...}
        value = _json_values(text[mistral.end() :])[:1]
        calls.extend((mistral.group(1), v) for v in value)
    elif _MISTRAL.search(text) or text.lstrip().startswith(("{", "[{", "<|python_tag|>")):
        for value in _json_values(text):
            calls.extend(_json_calls(value))
    return text, calls


def _written_calls(text: str) -> list[tuple[Any, Any]]:
    """Tool calls written in the text by the chat templates of the major open model families:
    Hermes' and Qwen's ``<tool_call>{json}</tool_call>``, GLM-4.5's ``<arg_key>``/``<arg_value>``
    in it, Qwen3-Coder's ``<function=NAME><parameter=K>``, Anthropic-style ``<invoke name=...>``,
    DeepSeek-V3's and Kimi K2's special tokens, and pythonic calls (Gemma 3's ``tool_code``)."""
    calls: list[tuple[Any, Any]] = []
    for match in _TOOL.finditer(text):
        try:
            call = json.loads(match.group(1))
        except (ValueError, RecursionError):
            glm = re.match(r"\s*(\w{1,64})\s*<arg_key>", match.group(1))
            if glm:
                calls.append((glm.group(1), dict(_ARG_PAIR.findall(match.group(1)))))
            continue
        if isinstance(call, dict):
            calls.append((call.get("name"), call.get("arguments", call.get("parameters"))))
    for pattern, parameter in ((_FUNCTION_EQ, _PARAMETER_EQ), (_INVOKE, _PARAMETER_NAMED)):
        for name, body in pattern.findall(text) if "<" in text else ():
            calls.append((name, dict(parameter.findall(body))))
    for pattern in (_DEEPSEEK, _KIMI):  # the arguments: JSON, or fenced JSON
        for name, body in pattern.findall(text) if "<|" in text else ():
            calls.append((name, body.strip().removeprefix("```json").strip("` \n")))
    for name, key, value in _PYTHONIC.findall(text) if "(" in text else ():
        calls.append((name, {key or "word": value}))
    return calls


def _all(pattern: re.Pattern[str], text: str) -> list[str]:
    """Every match's first group that matched, in order."""
    return [next(g for g in found.groups() if g is not None) for found in pattern.finditer(text)]


def _words(found: list[str]) -> list[str]:
    """The guesses in matched texts: each one's word (or, for a text that says more, the word it
    says)."""
    out = []
    for text in found:
        word = clean_word(text) or _said(text)[:1]
        out.extend([word] if isinstance(word, str) else word)
    return out


def _guess_calls(calls: list[tuple[Any, Any]]) -> list[str] | None:
    """The words of the ``guess`` tool's calls (calls of other tools pass); None when no call is of
    it."""
    words = [
        _call_word(name, arguments)
        for name, arguments in calls
        if name == GUESS_TOOL["function"]["name"]
    ]
    return [w for w in words if w] if words else None


def _said(text: str, cut_off: bool = False) -> list[str]:
    """Rules 8-11 on ``text``: the words of its answer lines or sentences, else its brackets, else
    its emphasis, else its capitals, else the text as one word; with ``cut_off`` (the reply stops
    mid-sentence), only what an answer line or sentence says: a word merely mentioned before the
    reply was cut off is no decision."""
    found = []
    for line in _all(_ANSWER_LINE, text):
        word = clean_word(line) or _said_inline(line)
        if word:
            found.append(word)
    for says in _SAYS.finditer(text):
        after = _NEXT_WORD.match(text, says.end())
        if after is not None:
            found.append(after.group(1).lower())
    if found or cut_off:
        return found
    for pattern in (_BRACKET, _FENCE, _EMPHASIS, _CAPITALS):
        words = [
            w
            for w in map(clean_word, _all(pattern, text))
            if w and not (pattern is _CAPITALS and w in "ia")
        ]
        if words:
            return words
    word = clean_word(text)
    return [word] if word else []


def _said_inline(line: str) -> str | None:
    """An answer line's word when the line says more than the word (its emphasis, capitals or first
    word)."""
    for pattern in (_EMPHASIS, _CAPITALS):
        for found in _all(pattern, line):
            word = clean_word(found)
            if word not in (None, "i", "a"):
                return word
    first = _NEXT_WORD.match(line.lstrip())
    return None if first is None else first.group(1).lower()


def _json_answers(text: str) -> list[str]:
    """Rule 4: the ``guess``, ``word`` or ``answer`` string field of each JSON object, in order."""
    if "{" not in text:
        return []
    found = []
    for value in _json_values(text):
        if isinstance(value, dict):
            field = next(
                (value[k] for k in ("guess", "word", "answer") if isinstance(value.get(k), str)),
                None,
            )
            if field is not None:
                found.append(field)
    return found


def lenient_guesses(reply: Any, think_open: bool = False) -> list[str]:
    """The words the deciding lenient rule finds in ``reply``'s decision, in order (module
    docstring): after its last correction that names a word, else the whole reply; [] when none
    (also for a reply that opens a tool call it never completes)."""
    text, calls = reply_parts(reply, think_open)
    called = _guess_calls(calls)
    if called is not None:
        return called
    if not calls and _CALL_OPENS.search(text):
        return []  # a tool call begun and cut off: no decision
    return _decision(text, _deciding)


def _decision(text: str, read: Callable[[str], Any]) -> Any:
    """What ``read`` finds in ``text`` after its last change of mind where it finds anything, else
    in the whole text: a reply's decision. The last :data:`_JSON_STARTS` changes of mind are tried
    (a bounded number: each is read to the end, and the whole stays linear)."""
    for correction in list(_CORRECTION.finditer(text))[: -_JSON_STARTS - 1 : -1]:
        found = read(text[correction.end() :])
        if found:
            return found
    return read(text)


def _deciding(text: str) -> list[str]:
    """Rules 4-11 on ``text``: the words of the first rule that finds one."""
    for pattern in (_GUESS, _ANSWER_TAG, _BOXED, _FINAL_LINE):
        found = _all(pattern, text) if pattern is not _GUESS or "<" in text else []
        if pattern is _GUESS:
            found = _json_answers(text) or found
        if found:
            return _words(found)
    return _said(text, cut_off=bool(_CUT_OFF.search(text)))


def strict_guesses(reply: Any, think_open: bool = False) -> list[str]:
    """The words of ``reply``'s ``guess`` tool calls, else of its ``<guess>...</guess>`` tags (after
    its last correction that has one, as the lenient rules read it), in order."""
    text, calls = reply_parts(reply, think_open)
    called = _guess_calls(calls)
    if called is not None:
        return called
    return _decision(text, lambda part: [w for w in map(clean_word, _all(_GUESS, part)) if w])


def lenient_guess(reply: Any, think_open: bool = False) -> str | None:
    """The guess of ``reply`` by the lenient rules (module docstring): the first word found; None
    when none."""
    return next(iter(lenient_guesses(reply, think_open)), None)


def strict_guess(reply: Any, think_open: bool = False) -> str | None:
    """The guess of ``reply`` by the strict rules: the first ``guess`` tool call's word, else the
    first ``<guess>...</guess>``'s; None when none."""
    return next(iter(strict_guesses(reply, think_open)), None)


def textarena_guess(reply: str) -> str | None:
    """TextArena's rule, as its ``Wordle-v0`` reads a reply: the first ``[word]`` (letters, digits,
    ``_``), lower-cased, read from the reply's last change of mind that has one, as every other
    surface reads a decision ("[crane]. Actually, [slate]." plays SLATE); None when there is
    none."""
    found = _decision(reply, _TEXTARENA.search) if isinstance(reply, str) else None
    return None if found is None else found.group(1).lower()


def resolve_parser(
    parser: str | Callable[[Any], Any], think_open: bool = False
) -> Callable[[Any], Any]:
    """The reading of a ``parser`` option, a function of the reply: ``"lenient"`` and ``"strict"``
    give the candidate words in order (:func:`lenient_guesses`, :func:`strict_guesses`), a callable
    its one word (or a list); ``think_open``: the chat template opens a think block before each
    reply (Qwen3's and DeepSeek-R1's thinking templates)."""
    if callable(parser):
        return parser
    if parser in PARSERS:
        rules = lenient_guesses if parser == "lenient" else strict_guesses
        return functools.partial(rules, think_open=True) if think_open else rules
    raise ValueError(f"parser must be one of {PARSERS} or a callable of the reply; got {parser!r}")


_LETTERS = re.compile(r"[^\W\d_]+")


def mixed_script(reply: Any, think_open: bool = False) -> str | None:
    """Why ``reply`` is refused when a word of it mixes Latin letters with letters of another
    script that look like them (``crаne`` with a Cyrillic ``а``): no parser reads such a word as the
    Latin one, nor as the Latin letters beside the other. None when every word is of one script."""
    if isinstance(reply, str) and reply.isascii():  # most replies: no letter of another script
        return None
    text, calls = reply_parts(reply, think_open)
    for chunk in [text, *(json.dumps(args, ensure_ascii=False) for _, args in calls)]:
        for token in _LETTERS.findall(chunk):
            if token.isascii() or not any(c.isascii() for c in token):
                continue
            foreign = [
                c
                for c in token
                if not c.isascii() and not unicodedata.name(c, "").startswith("LATIN")
            ]
            if foreign:
                odd = foreign[0]
                script = unicodedata.name(odd, "UNKNOWN").split()[0].title()
                return (
                    f"{token[:40]!r} has the {script} letter {odd!r} (U+{ord(odd):04X}) among "
                    "Latin ones; write the word in Latin letters"
                )
    return None


def parse_guess(
    reply: Any,
    parser: str | Callable[[Any], Any] = "lenient",
    think_open: bool = False,
    allowed: Container[str] | None = None,
    example: str | None = None,
) -> str | None:
    """The word ``reply`` guesses, lower-cased, by ``parser`` (module docstring); None when it has
    none. Of the words the deciding rule finds, the first in ``allowed`` (when given) is played,
    passing by a word that only repeats the prompt's ``example`` when the reply names another; else
    the first. Whether the word is allowed is the env's check."""
    found = resolve_parser(parser, think_open)(reply)
    found = [w for w in (found if isinstance(found, list) else [found]) if isinstance(w, str) and w]
    if example is not None and any(w != example for w in found):
        found = [w for w in found if w != example]
    if allowed is not None:
        found = [w for w in found if w in allowed] or found
    return found[0] if found else None


__all__ = [
    "GUESS_TOOL",
    "PARSERS",
    "clean_word",
    "lenient_guess",
    "lenient_guesses",
    "mixed_script",
    "parse_guess",
    "reply_parts",
    "resolve_parser",
    "strict_guess",
    "strict_guesses",
    "strip_reasoning",
    "textarena_guess",
]
