"""The chat client against hostile servers on the loopback address: no key sent elsewhere, bounded
bodies and requests, every malformed answer one line."""

from __future__ import annotations

import json
import socket
import time

import pytest

from tests.helpers.fake_openai import completion, raw_server
from wordle_agents.llm.client import MAX_BODY, ChatClient, ChatError

KEY = "sk-test-SECRET"
HI = [{"role": "user", "content": "hi"}]


def _answer(status: str, body: bytes, headers: str = "") -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: "
        f"{len(body)}\r\n{headers}Connection: close\r\n\r\n"
    ).encode() + body


def _json(data: object) -> bytes:
    return _answer("200 OK", json.dumps(data).encode())


def test_client__follows_no_redirect_and_never_sends_the_key_elsewhere() -> None:
    good = _json(completion("<guess>crane</guess>"))
    with raw_server(lambda request, sock: sock.sendall(good)) as (elsewhere, seen_elsewhere):
        for status in (
            "301 Moved Permanently",
            "302 Found",
            "303 See Other",
            "307 Temporary Redirect",
        ):
            moved = _answer(status, b"", f"Location: {elsewhere}/chat/completions\r\n")
            with raw_server(lambda request, sock, moved=moved: sock.sendall(moved)) as (url, seen):
                client = ChatClient(url, "m", api_key=KEY, backoff=0)
                with pytest.raises(
                    ChatError, match=f"HTTP {status[:3]}, a redirect to .*not followed"
                ) as error:
                    client.complete(HI)
                assert len(seen) == 1 and f"Bearer {KEY}".encode() in seen[0]  # not retried
                assert KEY not in str(error.value)
    assert seen_elsewhere == []


def test_client__error_bodies_are_one_clean_line_without_the_key() -> None:
    body = json.dumps(
        {"error": {"message": f"bad key \x1b[31m{KEY}\x1b[0m\r\nsecond line"}}
    ).encode()
    unauthorized = _answer("401 Unauthorized", body)
    with (
        raw_server(lambda request, sock: sock.sendall(unauthorized)) as (url, _),
        pytest.raises(ChatError) as error,
    ):
        ChatClient(url, "m", api_key=KEY).complete(HI)
    message = str(error.value)
    assert KEY not in message and "\x1b" not in message and "\n" not in message
    assert "HTTP 401: bad key *** second line" in message


def test_client__a_key_in_base_url_is_refused_without_showing_it() -> None:
    with pytest.raises(ValueError, match="must not hold a user or password") as error:
        ChatClient(f"http://user:{KEY}@127.0.0.1:9/v1", "m")
    assert KEY not in str(error.value)
    for bad in ({"timeout": 1e308}, {"timeout": 0}, {"backoff": float("inf")}, {"max_backoff": -1}):
        with pytest.raises(ValueError, match="seconds"):
            ChatClient("http://127.0.0.1:9/v1", "m", **bad)


def test_client__an_endless_body_is_cut_at_the_limit() -> None:
    def endless(request: bytes, sock: socket.socket) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")
        chunk = b"x" * (1 << 20)
        for _ in range(4 * (MAX_BODY >> 20)):  # bounded: four times the limit at most
            sock.sendall(chunk)

    limit = r"2 tries failed; the last: a reply body over 8 MiB"
    with raw_server(endless) as (url, seen), pytest.raises(ChatError, match=limit):
        ChatClient(url, "m", retries=1, backoff=0).complete(HI)
    assert len(seen) == 2


def test_client__a_slow_drip_ends_within_the_timeout() -> None:
    def drip(request: bytes, sock: socket.socket) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
        for _ in range(40):  # 10 s of one byte every 0.25 s
            sock.sendall(b" ")
            time.sleep(0.25)

    with raw_server(drip) as (url, _):
        client = ChatClient(url, "m", timeout=1.0, retries=0)
        start = time.perf_counter()
        with pytest.raises(ChatError, match="no whole answer within 1 s"):
            client.complete(HI)
        assert time.perf_counter() - start < 4
        assert client.stats.failures == {"timeout": 1}


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200\r\n",  # no reason phrase: still a valid status line, then nothing: cut off
        b"NOT HTTP AT ALL\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(150)) + b"\r\n{}",
        b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 70000 + b"\r\n\r\n",
        b'HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n{"choices": ',  # lies, then closes
        _answer("200 OK", b"[" * 200_000 + b"]" * 200_000),  # nested past the recursion limit
        _answer("200 OK", b'{"choices": []}'),
    ],
    ids=[
        "cut-off",
        "bad-status-line",
        "150-headers",
        "long-header",
        "lying-length",
        "deep-json",
        "no-choice",
    ],
)
def test_client__a_malformed_answer_is_retried_then_one_line(answer: bytes) -> None:
    with raw_server(lambda request, sock: sock.sendall(answer)) as (url, seen):
        client = ChatClient(url, "m", retries=1, backoff=0)
        with pytest.raises(ChatError, match="2 tries failed") as error:
            client.complete(HI)
    assert len(seen) == 2 and "\n" not in str(error.value)
    assert client.stats.failures == {"malformed": 2}


def test_client__odd_token_counts_do_not_refuse_a_good_reply() -> None:
    body = json.dumps(completion("<guess>crane</guess>")).replace(
        '"prompt_tokens": 3', '"prompt_tokens": 1e999'
    )
    with raw_server(lambda request, sock: sock.sendall(_answer("200 OK", body.encode()))) as (
        url,
        _,
    ):
        reply = ChatClient(url, "m").complete(HI)
    assert (
        reply.text == "<guess>crane</guess>"
        and reply.prompt_tokens == 0
        and reply.completion_tokens == 2
    )


def test_client__reads_tool_calls_reasoning_and_the_finish_reason() -> None:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "guess", "arguments": '{"word": "crane"}'},
    }
    data = completion(None, tool_calls=[call], reasoning_content="Think: CRANE splits well.")
    data["choices"][0]["finish_reason"] = "tool_calls"
    with raw_server(lambda request, sock: sock.sendall(_json(data))) as (url, seen):
        tools = [
            {"type": "function", "function": {"name": "guess", "parameters": {"type": "object"}}}
        ]
        reply = ChatClient(url, "m").complete(HI, tools=tools)
    assert reply.text == "" and reply.reasoning == "Think: CRANE splits well."
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("guess", {"word": "crane"})
    ]
    assert reply.finish_reason == "tool_calls"
    assert json.loads(seen[0].split(b"\r\n\r\n", 1)[1])["tools"] == tools
