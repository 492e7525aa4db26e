"""One OpenAI-compatible chat-completions endpoint: a request, retried with backoff, and its token
counts.

The standard library's ``http.client`` does the HTTP (a POST of JSON to
``{base_url}/chat/completions``, the route every OpenAI-compatible server serves: OpenAI, vLLM,
SGLang, llama.cpp, Ollama, LM Studio), so the agent needs no client package. Transient failures are
retried: no connection, a timeout, HTTP 408, 409, 429 and 5xx (with the server's ``Retry-After``
when it sends one), and a reply that is not a chat completion; any other HTTP error is the request's
fault and fails at once, naming the status and the server's message. Redirects are not followed (the
API key is sent to ``base_url``'s host alone), a reply body is read up to :data:`MAX_BODY` bytes and
each request ends within ``timeout`` seconds however slowly the server sends.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

RETRIED_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
MAX_BODY = 8 << 20
"""Bytes of a reply body read at most (a chat completion is a few kilobytes; a longer body is
refused)."""
MAX_SECONDS = 86_400.0
"""The longest ``timeout`` or backoff taken, in seconds."""
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x1f\x7f-\x9f]")


class ChatError(OSError):
    """The endpoint refused the request (HTTP 4xx, a redirect), or failed on every try."""


@dataclass(frozen=True)
class ToolCall:
    """A function call in a reply: the tool's name and its arguments as the model wrote them (JSON
    text)."""

    name: str
    arguments: str
    id: str = ""
    """The call's id, which the ``tool`` message that answers it names."""


@dataclass(frozen=True)
class Reply:
    """One completion: the assistant's text, its tool calls and reasoning, and what it cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    tries: int
    """Requests it took (1: no retry)."""
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: str = ""
    """The reasoning a server returns apart from the content (``reasoning_content`` or
    ``reasoning``)."""
    finish_reason: str = ""
    """Why the model stopped (``stop``, ``length``: cut at ``max_tokens``, ``tool_calls``)."""


@dataclass
class ChatStats:
    """What a client did, over all its requests (thread-safe counters)."""

    requests: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    """Retried failures by kind (``timeout``, ``connection``, ``HTTP 429``, ``malformed``, ...)."""


class ChatClient:
    """Chat completions from ``model`` at ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``).

    Args:
        base_url: the API's root, ``http://`` or ``https://``, without ``/chat/completions`` (and
            without a user or password: the key goes in ``api_key``).
        model: the model name the server expects.
        api_key: sent as ``Authorization: Bearer ...`` when given (servers on your own machine need
            none), to ``base_url``'s host only: redirects are refused.
        temperature: sampling temperature (0: greedy, as far as the server honours it).
        max_tokens: the longest reply, in tokens.
        timeout: seconds one request may take, from connecting to the body's last byte, before it is
            retried.
        retries: retries after the first try (so ``retries + 1`` requests at most).
        backoff: seconds before the first retry, doubled at each next one, at most ``max_backoff``.
        seed: sent to servers that take one (reproducible sampling where supported).
        sleep: how to wait (tests pass a fake).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 256,
        timeout: float = 60.0,
        retries: int = 4,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        seed: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parsed = urlparse(str(base_url))
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(
                f"base_url must be an http:// or https:// address; got {_clean(str(base_url))!r}"
            )
        if parsed.username is not None or parsed.password is not None:
            raise ValueError(
                "base_url must not hold a user or password (user:KEY@host): pass the key as api_key"
            )
        try:
            parsed.port  # noqa: B018 (a bad port raises here, not at the first request)
        except ValueError:
            raise ValueError(f"base_url has no valid port; got {_clean(str(base_url))!r}") from None
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be the name the server expects; got {model!r}")
        for name, value in (
            ("timeout", timeout),
            ("backoff", backoff),
            ("max_backoff", max_backoff),
        ):
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not 0 <= value <= MAX_SECONDS
            ):
                raise ValueError(
                    f"{name} must be a number of seconds from 0 to {MAX_SECONDS:g}; got {value!r}"
                )
        if timeout <= 0:
            raise ValueError(f"timeout must be a number of seconds > 0; got {timeout!r}")
        check_int("retries", retries, 0)
        check_int("max_tokens", max_tokens, 1)
        self.url = str(base_url).rstrip("/") + "/chat/completions"
        self._parsed = urlparse(self.url)
        self.model = model
        self.api_key = api_key
        self.temperature = float(temperature)
        self.max_tokens = max_tokens
        self.timeout = float(timeout)
        self.retries = retries
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.seed = seed
        self.sleep = sleep
        self.stats = ChatStats()
        self._lock = threading.Lock()

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> Reply:
        """The assistant's next message after ``messages``
        (``[{"role": ..., "content": ...}, ...]``), with ``tools`` (OpenAI's function-tool schemas)
        offered when given."""
        data, headers = self._request(messages, tools)
        last = ""
        for attempt in range(self.retries + 1):
            with self._lock:
                self.stats.requests += 1
            reply, kind, last, wait = self._attempt(data, headers, attempt)
            if reply is not None:
                return reply
            with self._lock:
                self.stats.failures[kind] = self.stats.failures.get(kind, 0) + 1
                if attempt < self.retries:
                    self.stats.retries += 1
            if attempt < self.retries:
                self.sleep(min(wait, self.max_backoff))
        raise ChatError(f"{self.url}: {self.retries + 1} tries failed; the last: {last}")

    def _request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> tuple[bytes, dict[str, str]]:
        """The request's JSON body and its headers (the API key, where there is one)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if tools:
            body["tools"] = tools
        if self.seed is not None:
            body["seed"] = self.seed
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return json.dumps(body).encode(), headers

    def _attempt(
        self, data: bytes, headers: dict[str, str], attempt: int
    ) -> tuple[Reply | None, str, str, float]:
        """One try: ``(reply, "", "", 0)``, or where it failed in a way worth retrying ``(None,
        kind, what failed, the wait before the next try)``; a failure no retry mends is a
        ChatError."""
        wait = self.backoff * 2**attempt
        try:
            status, reply_headers, payload = self._post(data, headers)
            if 300 <= status < 400:
                where = _clean(reply_headers.get("Location") or "", self.api_key)
                raise ChatError(
                    f"{self.url} answered HTTP {status}, a redirect to {where!r}: redirects "
                    "are not followed (the API key goes to base_url's host only); set "
                    "base_url to the API's own address"
                )
            if status >= 400:
                message = _error_text(payload, self.api_key) or f"HTTP {status}"
                if status not in RETRIED_STATUS:
                    raise ChatError(f"{self.url} answered HTTP {status}: {message}")
                after = _retry_after(reply_headers.get("Retry-After"))
                return (
                    None,
                    f"HTTP {status}",
                    f"HTTP {status}: {message}",
                    wait if after is None else after,
                )
            reply = _parse(payload, attempt + 1)
            with self._lock:
                self.stats.prompt_tokens += reply.prompt_tokens
                self.stats.completion_tokens += reply.completion_tokens
            return reply, "", "", 0.0
        except TimeoutError:
            return None, "timeout", f"no whole answer within {self.timeout:g} s", wait
        # a bad status line, too many or too long headers, cut off
        except http.client.HTTPException as exc:
            return None, "malformed", f"not a valid HTTP answer ({type(exc).__name__})", wait
        except ValueError as exc:  # not a chat completion, or a body over MAX_BODY
            return None, "malformed", _clean(str(exc), self.api_key), wait
        except ChatError:
            raise
        except OSError as exc:  # no connection, reset, refused, a certificate not verified
            return None, "connection", f"cannot connect: {_clean(str(exc), self.api_key)}", wait

    def _post(self, data: bytes, headers: dict[str, str]) -> tuple[int, Any, bytes]:
        """One POST: the status, the headers and the body, all of it within ``timeout`` seconds
        (TimeoutError)."""
        url = self._parsed
        kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        connection = kind(url.hostname, url.port, timeout=self.timeout)
        expired = threading.Event()

        def expire() -> None:  # wakes a read blocked on a server that sends slowly
            expired.set()
            sock = connection.sock
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

        timer = threading.Timer(self.timeout, expire)
        timer.daemon = True
        timer.start()
        try:
            path = url.path + (f"?{url.query}" if url.query else "")
            connection.request("POST", path, body=data, headers=headers)
            response = connection.getresponse()
            chunks, size = [], 0
            while chunk := response.read1(1 << 16):
                size += len(chunk)
                if size > MAX_BODY:
                    raise ValueError(f"a reply body over {MAX_BODY >> 20} MiB")
                chunks.append(chunk)
            if expired.is_set():
                raise TimeoutError
            return response.status, response.headers, b"".join(chunks)
        except (OSError, http.client.HTTPException):
            if expired.is_set():
                raise TimeoutError from None
            raise
        finally:
            timer.cancel()
            connection.close()


def check_int(name: str, value: Any, low: int) -> None:
    """A ValueError naming ``name`` unless ``value`` is an integer (not a bool) of at least
    ``low``."""
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")


def _count(value: Any) -> int:
    """A token count from a usage field: a whole number >= 0, else 0 (a server's odd value is not an
    error)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 2**53:
        return 0
    return int(value)


def _parse(payload: bytes, tries: int) -> Reply:
    """A chat completion's first choice (ValueError for anything else)."""
    try:
        data = json.loads(payload)
        choice = data["choices"][0]
        message = choice["message"]
        text = message.get("content") or ""  # None: a tool call or a refusal
        reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
        if not isinstance(text, str) or not isinstance(reasoning, str):
            raise TypeError(type(text).__name__)
        calls = []
        for call in message.get("tool_calls") or ():
            function = call["function"]
            arguments = function.get("arguments")
            if not isinstance(arguments, str):  # some servers send the object itself
                arguments = json.dumps(arguments)
            calls.append(ToolCall(str(function["name"]), arguments, str(call.get("id") or "")))
        usage = data.get("usage") or {}
        if not isinstance(usage, dict):
            usage = {}
        finish = choice.get("finish_reason") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError) as exc:
        head = _clean(payload[:120].decode("utf-8", "replace"))
        raise ValueError(f"not a chat completion ({type(exc).__name__}): {head!r}") from None
    return Reply(
        text,
        _count(usage.get("prompt_tokens")),
        _count(usage.get("completion_tokens")),
        tries,
        tuple(calls),
        reasoning,
        finish if isinstance(finish, str) else "",
    )


def _clean(text: str, secret: str | None = None) -> str:
    """``text`` fit for one line of a terminal: no control characters or escape sequences,
    ``secret`` hidden, whitespace collapsed, at most 200 characters."""
    if secret:
        text = text.replace(secret, "***")
    return " ".join(_CONTROL.sub(" ", text).split())[:200]


def _error_text(payload: bytes, secret: str | None) -> str:
    """The server's error message, short and clean."""
    body = payload[:2000].decode("utf-8", "replace")
    try:
        found = json.loads(body).get("error")
        body = found.get("message", body) if isinstance(found, dict) else str(found or body)
    except (ValueError, AttributeError, RecursionError):
        pass
    return _clean(str(body), secret)


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header given in seconds (a date is ignored: the backoff
    applies)."""
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and 0 <= seconds <= MAX_SECONDS else None
