"""One OpenAI-compatible chat-completions endpoint: a request, retried with backoff, and its token counts.

The standard library's ``urllib`` does the HTTP (a POST of JSON to ``{base_url}/chat/completions``, the route
every OpenAI-compatible server serves: OpenAI, vLLM, SGLang, llama.cpp, Ollama, LM Studio), so the agent needs
no client package. Transient failures are retried: no connection, a timeout, HTTP 408, 409, 429 and 5xx (with
the server's ``Retry-After`` when it sends one), and a body that is not a chat completion; any other HTTP
error is the request's fault and fails at once, naming the status and the server's message.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

RETRIED_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class ChatError(OSError):
    """The endpoint refused the request (HTTP 4xx), or failed on every try."""


@dataclass(frozen=True)
class Reply:
    """One completion: the assistant's text and what it cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    tries: int
    """Requests it took (1: no retry)."""


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
        base_url: the API's root, ``http://`` or ``https://``, without ``/chat/completions``.
        model: the model name the server expects.
        api_key: sent as ``Authorization: Bearer ...`` when given (servers on your own machine need none).
        temperature: sampling temperature (0: greedy, as far as the server honours it).
        max_tokens: the longest reply, in tokens.
        timeout: seconds one request may take before it is retried.
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
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"base_url must be an http:// or https:// address; got {base_url!r}")
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be the name the server expects; got {model!r}")
        for name, value in (("timeout", timeout), ("backoff", backoff), ("max_backoff", max_backoff)):
            if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a number of seconds >= 0; got {value!r}")
        check_int("retries", retries, 0)
        check_int("max_tokens", max_tokens, 1)
        self.url = str(base_url).rstrip("/") + "/chat/completions"
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

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        """The assistant's next message after ``messages`` (``[{"role": ..., "content": ...}, ...]``)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            body["seed"] = self.seed
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last = ""
        for attempt in range(self.retries + 1):
            with self._lock:
                self.stats.requests += 1
            wait = self.backoff * 2**attempt
            try:
                request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload = response.read()
                reply = _parse(payload, attempt + 1)
                with self._lock:
                    self.stats.prompt_tokens += reply.prompt_tokens
                    self.stats.completion_tokens += reply.completion_tokens
                return reply
            except urllib.error.HTTPError as exc:
                message = _error_text(exc)
                if exc.code not in RETRIED_STATUS:
                    raise ChatError(f"{self.url} answered HTTP {exc.code}: {message}") from None
                kind, last = f"HTTP {exc.code}", f"HTTP {exc.code}: {message}"
                after = _retry_after(exc.headers.get("Retry-After") if exc.headers else None)
                wait = wait if after is None else after
            except TimeoutError:
                kind, last = "timeout", f"no answer within {self.timeout:g} s"
            except (urllib.error.URLError, ConnectionError) as exc:
                reason = getattr(exc, "reason", exc)
                if isinstance(reason, TimeoutError):
                    kind, last = "timeout", f"no answer within {self.timeout:g} s"
                else:
                    kind, last = "connection", f"cannot connect: {reason}"
            except ValueError as exc:  # not a chat completion
                kind, last = "malformed", str(exc)
            with self._lock:
                self.stats.failures[kind] = self.stats.failures.get(kind, 0) + 1
                if attempt < self.retries:
                    self.stats.retries += 1
            if attempt < self.retries:
                self.sleep(min(wait, self.max_backoff))
        raise ChatError(f"{self.url}: {self.retries + 1} tries failed; the last: {last}")


def check_int(name: str, value: Any, low: int) -> None:
    """A ValueError naming ``name`` unless ``value`` is an integer (not a bool) of at least ``low``."""
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")


def _parse(payload: bytes, tries: int) -> Reply:
    """A chat completion's first choice (ValueError for anything else)."""
    try:
        data = json.loads(payload)
        message = data["choices"][0]["message"]
        text = message.get("content") or ""  # None (a refusal, a tool call): an empty reply
        if not isinstance(text, str):
            raise TypeError(type(text).__name__)
        usage = data.get("usage") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        completion = int(usage.get("completion_tokens") or 0)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        head = payload[:120].decode("utf-8", "replace")
        raise ValueError(f"not a chat completion ({type(exc).__name__}): {head!r}") from None
    return Reply(text, prompt, completion, tries)


def _error_text(exc: urllib.error.HTTPError) -> str:
    """The server's error message, short."""
    try:
        body = exc.read()[:2000].decode("utf-8", "replace")
    except OSError:
        body = ""
    try:
        found = json.loads(body).get("error")
        body = found.get("message", body) if isinstance(found, dict) else str(found or body)
    except (ValueError, AttributeError):
        pass
    return " ".join(str(body).split())[:200] or str(exc.reason)


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header given in seconds (a date is ignored: the backoff applies)."""
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and seconds >= 0 else None
