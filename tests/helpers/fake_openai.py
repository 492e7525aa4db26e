"""An OpenAI-compatible chat-completions server on the loopback address, with a scripted model.

The model reads the board from the last user message (``N. WORD -> G Y X G X`` lines: the text a
real model reads), keeps the answers that fit every line and guesses the first of them, in
``<guess></guess>``. It never sees the answer. ``faults`` scripts failures, taken one per request in
order: ``"500"``, ``"429"`` (with ``Retry-After: 0``), ``"400"``, ``"slow"`` (answers after
``slow_s``), ``"garbage"`` (a body that is no chat completion), ``"prose"`` (a reply with no guess),
``"notaword"`` (``<guess>qzjkv</guess>``), ``"tool"`` (the model's guess as a call of the ``guess``
tool), ``"toolbad"`` (a call whose arguments are not JSON), ``"think"`` (the guess after a reasoning
block that names another word), None (a normal reply). Only 127.0.0.1 is ever bound.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from wordle_gym.core.rules import feedback_one, parse_tiles
from wordle_gym.core.words import encode

BOARD_LINE = re.compile(r"^\d+\. ([A-Z]+) -> ([GYX ]+)$", re.M)


def _codes(word: str) -> tuple[int, ...]:
    return tuple(encode(word).flatten().tolist())


class ScriptedModel:
    """Plays the first answer that fits the board it is shown."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers

    def reply(self, messages: list[dict[str, str]]) -> str:
        # a user turn or a tool's answer
        board = BOARD_LINE.findall(str(messages[-1].get("content") or ""))
        left = [a for a in self.answers if all(self._fits(a, w.lower(), t) for w, t in board)]
        return f"I will try this one. <guess>{(left or self.answers)[0]}</guess>"

    @staticmethod
    def _fits(answer: str, word: str, tiles: str) -> bool:
        want = parse_tiles(tiles.replace(" ", "").lower(), len(word))
        return tuple(feedback_one(_codes(word), _codes(answer))) == want


class FakeOpenAI:
    """The server's state: the model, the scripted faults, every request it received."""

    def __init__(
        self, model: ScriptedModel, faults: list[str | None] | None = None, slow_s: float = 2.0
    ) -> None:
        self.model = model
        self.faults = list(faults or [])
        self.slow_s = slow_s
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()

    def next_fault(self) -> str | None:
        with self.lock:
            return self.faults.pop(0) if self.faults else None


def _handler(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            if self.path != "/v1/chat/completions":
                self._send(404, b'{"error": {"message": "no such route"}}')
                return
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(request)
                state.headers.append(dict(self.headers))
            fault = state.next_fault()
            if fault in ("500", "429", "400"):
                extra = {"Retry-After": "0"} if fault == "429" else {}
                message = json.dumps({"error": {"message": f"scripted {fault}"}}).encode()
                self._send(int(fault), message, extra)
                return
            if fault == "garbage":
                self._send(200, b"<html>not json</html>")
                return
            if fault == "slow":
                time.sleep(state.slow_s)
            canned = {
                "prose": "Let me think about the letters.",
                "notaword": "<guess>qzjkv</guess>",
            }
            text = canned.get(str(fault)) or state.model.reply(request["messages"])
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if fault in ("tool", "toolbad"):
                word = re.search(r"<guess>(.*)</guess>", text).group(1)  # type: ignore[union-attr]
                arguments = json.dumps({"word": word}) if fault == "tool" else "{not json"
                call = {"id": f"call_{len(state.requests)}", "type": "function",
                        "function": {"name": "guess", "arguments": arguments}}  # fmt: skip
                message = {"role": "assistant", "content": None, "tool_calls": [call]}
            elif fault == "think":
                message["content"] = f"<think>Not <guess>qzjkv</guess>.</think>{text}"
            end = "tool_calls" if "tool_calls" in message else "stop"
            prompt = sum(len(str(m.get("content") or "").split()) for m in request["messages"])
            completion = len(text.split())
            body = {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "model": request["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": end}],
                "created": int(time.time()),
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            }
            # the client gave up on a slow reply
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                # server-sent events, as OpenAI streams: the text, then the end and usage
                if request.get("stream"):
                    self._send(200, _events(body), {"Content-Type": "text/event-stream"})
                else:
                    self._send(200, json.dumps(body).encode())

    return Handler


def _events(body: dict[str, Any]) -> bytes:
    """A chat completion as a stream of ``chat.completion.chunk`` events ending in ``[DONE]``."""
    chunk = {key: body[key] for key in ("id", "model", "created")} | {
        "object": "chat.completion.chunk"
    }
    message, end = body["choices"][0]["message"], body["choices"][0]["finish_reason"]
    delta: dict[str, Any] = {"role": "assistant", "content": message["content"]}
    if "tool_calls" in message:  # streamed as OpenAI streams them: each call with its index
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
    events = [
        chunk | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        chunk
        | {"choices": [{"index": 0, "delta": {}, "finish_reason": end}], "usage": body["usage"]},
    ]
    return (
        b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in events)
        + b"data: [DONE]\n\n"
    )


@contextmanager
def _serving(server: socketserver.BaseServer) -> Iterator[str]:
    """The base URL of ``server`` (bound on 127.0.0.1) served on a thread for the duration of the
    block."""
    server.daemon_threads = True  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def fake_openai(
    answers: list[str], faults: list[str | None] | None = None, slow_s: float = 2.0
) -> Iterator[tuple[str, FakeOpenAI]]:
    """``(base_url, state)`` of a server on 127.0.0.1 for the duration of the block."""
    state = FakeOpenAI(ScriptedModel(answers), faults, slow_s)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    with _serving(server) as url:
        yield url, state


@contextmanager
def raw_server(
    respond: Callable[[bytes, socket.socket], None],
) -> Iterator[tuple[str, list[bytes]]]:
    """``(base_url, requests)`` of a server on 127.0.0.1 that reads each request's head and body
    (whole, by its Content-Length) and lets ``respond(request, connection)`` write whatever bytes it
    likes: a hostile server."""
    received: list[bytes] = []

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            sock = self.request
            sock.settimeout(10)
            data = b""
            with contextlib.suppress(OSError):
                while b"\r\n\r\n" not in data and (chunk := sock.recv(65536)):
                    data += chunk
                head, _, rest = data.partition(b"\r\n\r\n")
                length = re.search(rb"(?i)content-length:\s*(\d+)", head)
                while length and len(rest) < int(length.group(1)) and (chunk := sock.recv(65536)):
                    rest += chunk
                received.append(head + b"\r\n\r\n" + rest)
                respond(head + b"\r\n\r\n" + rest, sock)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    with _serving(server) as url:
        yield url, received


def completion(content: str | None, **message: Any) -> dict[str, Any]:
    """A chat completion whose first choice's message has ``content`` and the fields ``message``."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content, **message}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
    }
