"""OpenEnv (``wordle_gym.integrations.openenv``): the text env served as an OpenEnv environment on
the loopback address, played through OpenEnv's own client machinery (WebSocket sessions) and its
HTTP routes. Needs the ``openenv`` extra (CI runs these in a venv of their own, with the GRPO
example)."""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("openenv.core")

import httpx
import uvicorn

from wordle_gym.core.rules import feedback_one
from wordle_gym.core.words import encode, load_word_list, split_answers
from wordle_gym.integrations.openenv import (
    WordleAction,
    WordleEnvClient,
    WordleEnvironment,
    main,
    make_app,
)


def _tiles(guess: str, answer: str) -> str:
    codes = feedback_one(tuple(encode(guess).tolist()), tuple(encode(answer).tolist()))
    return " ".join({2: "G", 1: "Y", 0: "X"}[c] for c in codes)


def _serve(**game: object) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(make_app(**game), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    yield from _serve(reward="regret")


def test_openenv__a_client_session_plays_real_wordle_with_the_exact_reward(url: str) -> None:
    with WordleEnvClient(base_url=url).sync() as env:
        result = env.reset(answer="cigar")
        assert not result.done and result.reward is None
        assert "Find the secret 5-letter" in result.observation.prompt
        # TextArena's layout: one message, the whole game so far
        (transcript,) = result.observation.messages
        assert transcript.content.startswith(result.observation.prompt)
        # reasoning is never read; the guess comes from the answer tag
        result = env.step(
            WordleAction(message="<think>perhaps [crane]?</think>\n<guess>salet</guess>")
        )
        # SALET is the optimal opener
        assert not result.done and result.reward == pytest.approx(0.0)
        assert (
            result.observation.info["guess"] == "salet" and result.observation.info["regret_exact"]
        )
        assert result.observation.messages[0].content.startswith(transcript.content)  # appended to
        assert f"SALET -> {_tiles('salet', 'cigar')}" in result.observation.messages[0].content
        rewards = [result.reward]
        result = env.step(WordleAction(message="no word here"))  # refused: the turn is spent
        last = result.observation.messages[0].content.rsplit("[Player 0]", 1)[1]
        assert "You attempted an invalid move" in last and result.observation.info["reason"]
        assert result.reward <= -1.0  # a spent turn costs a guess at least
        rewards.append(result.reward)
        result = env.step(WordleAction(message="Answer: cigar"))
        rewards.append(result.reward)
        assert result.done and result.observation.info["won"]
        # the game's, and each move's
        assert result.observation.info["game_reward"] == pytest.approx(sum(rewards))
        state = env.state()
        assert (
            state.turn == 3
            and state.step_count == 3
            and state.raw_state == {"guesses": ["salet", "cigar"], "won": True}
        )


def test_openenv__sessions_are_separate_games_and_the_seed_fixes_the_answer(url: str) -> None:
    with (
        WordleEnvClient(base_url=url).sync() as first,
        WordleEnvClient(base_url=url).sync() as second,
    ):
        first.reset(seed=5)
        second.reset(seed=5)
        a = first.step(WordleAction(message="[crane]")).observation.info["tiles"]
        b = second.step(WordleAction(message="[crane]")).observation.info["tiles"]
        assert a == b  # the same answer from the same seed
        second.step(WordleAction(message="[slate]"))
        assert first.state().turn == 1 and second.state().turn == 2


def test_openenv__the_payloads_are_textarena_envs_wire_format(url: str) -> None:
    """The keys of OpenEnv's textarena_env (what TRL's Wordle example reads), over HTTP and in a
    session."""
    with httpx.Client(base_url=url, timeout=30) as http:
        reset = http.post("/reset", json={"seed": 1})
        assert reset.status_code == 200, reset.text
        body = reset.json()
        assert {"prompt", "messages", "current_player_id", "legal_players", "info"} <= set(
            body["observation"]
        )
        assert body["done"] is False
        assert "message" in str(http.get("/schema").json())
    payloads = []

    class Recording(WordleEnvClient):
        def _parse_result(self, payload):  # type: ignore[no-untyped-def]
            payloads.append(payload)
            return super()._parse_result(payload)

    with Recording(base_url=url).sync() as env:
        env.reset(seed=1)
        env.step(WordleAction(message="[salet]"))
    step = payloads[-1]
    assert {"observation", "reward", "done"} <= set(step)
    assert {"sender_id", "content", "category"} <= set(step["observation"]["messages"][0])


def _trls_wordle_class(env_url: str) -> type:
    """TRL's OpenEnv Wordle example's environment class as that example writes it, its import of
    ``textarena_env`` (not on the package index) replaced by this server's client under the same
    names, and ``.sync()`` on the client (openenv-core 0.3's clients are async)."""
    from wordle_gym.integrations.openenv import WordleAction as TextArenaAction
    from wordle_gym.integrations.openenv import WordleEnvClient as TextArenaEnv

    class TrlWordleEnv:
        def __init__(self):
            self.client = TextArenaEnv(base_url=env_url).sync()

        def reset(self, **kwargs) -> str | None:
            result = self.client.reset()
            self._last_full_feedback = result.observation.messages[0].content
            self.reward = 0.0
            self.done = False
            return self._last_full_feedback

        def guess(self, guess: str) -> str:
            if self.done:
                raise ValueError("Game over.")
            result = self.client.step(TextArenaAction(message=guess))
            _full_feedback = result.observation.messages[0].content
            feedback = _full_feedback[len(self._last_full_feedback) :]
            self._last_full_feedback = _full_feedback
            if "You attempted an invalid move" in feedback:
                self.reward = 0.0
            else:
                self.reward = result.reward
            self.done = result.done
            return feedback

    return TrlWordleEnv


@pytest.mark.parametrize("reward", ["regret", "default"])
def test_openenv__trls_own_client_code_ranks_games_right_with_step_reward_game(reward: str) -> None:
    """Issue 84: TRL's example keeps the last step's reward (0.0 after an invalid move), so against
    the per-move rewards a game ended on an invalid move, or never played, scored best. With
    ``--step-reward game`` the last step carries the whole game's score: a win in fewer guesses
    above a win in more, above a loss, above an invalid or abandoned ending; and the class reads
    each guess's feedback."""
    five = ["[salet]", "[puppy]", "[mummy]", "[jazzy]", "[fuzzy]"]
    games = {
        "won in 2": ["[salet]", "[cigar]"],
        "won in 3": ["[salet]", "[crane]", "[cigar]"],
        "won in 6": [*five, "[cigar]"],
        "lost": [*five, "[bobby]"],
        "lost on an invalid move": [*five, "[qqqqq]"],
        "abandoned": ["[salet]", "[crane]"],
        "never played": [],
    }
    for url in _serve(reward=reward, step_reward="game"):
        trl_class = _trls_wordle_class(url)
        scores = {}
        for name, guesses in games.items():
            game = trl_class()
            opening = game.reset()
            assert "Find the secret 5-letter" in opening and game.reward == 0.0
            # the answer fixed as a test's reset does it (TRL's draws one)
            result = game.client.reset(answer="cigar")
            game._last_full_feedback = result.observation.messages[0].content
            for word in guesses:
                feedback = game.guess(word)
                if word != "[qqqqq]":
                    tiles = _tiles(word.strip("[]"), "cigar")
                    assert f"{word.strip('[]').upper()} -> {tiles}" in feedback, feedback
            scores[name] = game.reward
        order = list(games)
        assert [scores[k] for k in order[:4]] == sorted(
            (scores[k] for k in order[:4]), reverse=True
        )
        assert len({scores[k] for k in order[:4]}) == 4  # strictly
        assert all(scores[k] < scores["lost"] for k in order[4:]), scores


def test_openenv__the_step_reward_is_move_or_game() -> None:
    with pytest.raises(ValueError, match="step_reward must be one of"):
        make_app(step_reward="episode")
    game = WordleEnvironment(step_reward="game", reward="regret")
    game.reset(answer="cigar")
    assert game.step(WordleAction(message="[salet]")).reward == 0.0  # not over yet
    last = game.step(WordleAction(message="[cigar]"))
    # a win in two: tier 6, and half a point times e to the game's reward (minus its regret)
    expected = 6 + 0.5 * math.exp(last.info["game_reward"])
    assert last.done and last.reward == last.info["game_score"] == pytest.approx(expected)


def test_openenv__the_split_is_served() -> None:
    held = set(split_answers(load_word_list("answers"), "eval"))
    game = WordleEnvironment(split="eval")
    for seed in range(40):
        game.reset(seed=seed)
        assert game.game.answer in held
    with pytest.raises(ValueError, match="unknown reset options"):
        game.reset(level=3)


def test_openenv__the_command_refuses_a_bad_game_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # reliability 6, finding 11: --port 99999 ended in OverflowError
    for argv, named in ((["--reward", "nonsense"], "nonsense"), (["--port", "99999"], "99999")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and named in err


def test_openenv__docs_snippet_runs_as_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The LLM tutorial's OpenEnv snippet (fenced ``python openenv``: the docs test runs without
    OpenEnv), against the server its command line starts, on the port it names."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "tutorials" / "llm.md"
    text = page.read_text()
    (block,) = re.findall(r"```python openenv\n(.*?)```", text, flags=re.S)
    # the section's
    command = re.findall(r"^python -m wordle_gym.integrations.openenv .*$", text, flags=re.M)[0]
    server = subprocess.Popen(
        [sys.executable, *command.split()[1:]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get("http://127.0.0.1:8001/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, (
                "the documented server did not start"
            )
            time.sleep(0.5)
        out = subprocess.run(
            [sys.executable, "-c", block], capture_output=True, text=True, cwd=tmp_path, timeout=300
        )
        assert out.returncode == 0, out.stderr[-3000:]
        assert "SALET ->" in out.stdout and out.stdout.strip().endswith("False")
    finally:
        server.terminate()
        server.wait(30)


def _mcp_create(http: httpx.Client) -> dict:
    call = {"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create", "params": {}}
    return http.post("/mcp", json=call).json()


def test_openenv__a_flood_of_sessions_is_refused_by_name_and_idle_ones_are_closed() -> None:
    """Reliability 5, finding 2: 64 ``openenv/session/create`` calls or 64 idle WebSockets locked
    the server until a restart (every later client got CAPACITY_REACHED; the 65th client saw only
    ``ConnectionClosedOK``). A client past ``--sessions`` is refused in words naming it, and a
    session idle past ``--idle-timeout`` is closed, freeing its place (an idle WebSocket's next step
    says so)."""
    for url in _serve(sessions=2, idle_s=1.0):
        idle = [WordleEnvClient(base_url=url).sync() for _ in range(2)]
        for client in idle:
            client.reset(seed=0)  # each holds a session, then sits idle
        with pytest.raises(ConnectionError, match="--sessions"):
            WordleEnvClient(base_url=url).sync().reset(seed=0)
        with httpx.Client(base_url=url, timeout=30) as http:
            assert "error" in _mcp_create(http)  # the same limit over MCP
            deadline = time.monotonic() + 30
            while True:  # the idle sessions are closed (the server checks every 5 s at the least)
                created = _mcp_create(http)
                if "result" in created:
                    break
                assert time.monotonic() < deadline, created
                time.sleep(0.5)
        with pytest.raises(RuntimeError, match="idle-timeout"):
            idle[0].step(WordleAction(message="crane"))
        for client in idle:
            client.close()


def test_openenv__oversize_bodies_lone_surrogates_and_plain_http_step_fail_cleanly(
    url: str,
) -> None:
    """Reliability 5, findings 4, 6 and 11: replies of 16 MiB were taken and echoed in every later
    observation (6 x 15 MiB grew the server by 375 MB), a 200 MiB /reset body was read whole; a lone
    surrogate in a reply played the turn, then every later step of the session failed; HTTP /step
    was a 500 with a traceback. Bodies and messages over 1.5 MiB are refused, a long reply is echoed
    cut, a surrogate is read as "?", and /step answers 409 pointing to a session."""
    with httpx.Client(base_url=url, timeout=60) as http:
        big = http.post(
            "/reset",
            content=b"{" + b" " * (2 << 20) + b"}",
            headers={"content-type": "application/json"},
        )
        assert big.status_code == 413
        step = http.post("/step", json={"action": {"message": "<guess>crane</guess>"}})
        assert step.status_code == 409 and "/ws" in step.json()["detail"]
    with WordleEnvClient(base_url=url).sync() as env:
        env.reset(answer="cigar")
        result = env.step(WordleAction(message="\ud800 <guess>salet</guess>"))
        assert result.observation.info["guess"] == "salet"
        # under the limit
        result = env.step(WordleAction(message="<guess>crane</guess>" + "x" * 900_000))
        assert len(result.observation.messages[0].content) < 10_000  # echoed cut
        assert env.step(WordleAction(message="<guess>cigar</guess>")).observation.info["won"]
    # over the limit: closed
    with pytest.raises(ConnectionError), WordleEnvClient(base_url=url).sync() as env:
        env.reset(answer="cigar")
        env.step(WordleAction(message="y" * (2 << 20)))


def test_openenv__a_token_is_required_when_set_and_a_client_gone_is_one_log_line(caplog) -> None:  # type: ignore[no-untyped-def]
    """Reliability 5, finding 2 (no token could be required) and issue 73 (each client that left
    without closing left an ASGI traceback in the log)."""
    import logging

    for url in _serve(token="s3cret"):
        with httpx.Client(base_url=url, timeout=30) as http:
            assert http.get("/health").status_code == 200  # health checks need no token
            assert http.post("/reset", json={}).status_code == 401
            assert (
                http.post("/reset", json={}, headers={"Authorization": "Bearer s3cret"}).status_code
                == 200
            )
        with pytest.raises(ConnectionError):
            WordleEnvClient(base_url=url).sync().reset(seed=0)
        with WordleEnvClient(base_url=url, token="s3cret").sync() as env:
            assert not env.reset(seed=0).done
        import websockets.sync.client

        with caplog.at_level(logging.INFO, logger="wordle_gym.openenv"):
            for _ in range(3):  # clients that leave mid-game without closing
                with websockets.sync.client.connect(
                    url.replace("http", "ws") + "/ws",
                    additional_headers={"Authorization": "Bearer s3cret"},
                ) as ws:
                    ws.send('{"type": "reset", "data": {}}')
                    ws.socket.close()
            time.sleep(1.0)
    assert not [r for r in caplog.records if r.exc_info]  # no traceback logged


def test_openenv__sessions_do_not_wait_on_each_others_searches() -> None:
    """Reliability 5, finding 3: one lock for the process serialised every session's regret search
    (a session playing SALET waited 0.1-5.3 s a step behind four playing random words). Each session
    has its own search: one whose search is running does not hold up another's move."""
    first, second = WordleEnvironment(reward="regret"), WordleEnvironment(reward="regret")
    assert first.game._oracle.search.stop is not second.game._oracle.search.stop
    assert first.game._oracle.cache is not second.game._oracle.cache
    searching, release = threading.Event(), threading.Event()
    value = first.game._oracle.search.value

    def long_search(*args, **kwargs):  # type: ignore[no-untyped-def]
        searching.set()
        release.wait(30)  # a search that runs until released
        return value(*args, **kwargs)

    first.game._oracle.search.value = long_search  # this session's search only
    first.reset(answer="cigar")
    second.reset(answer="cigar")
    first.step(WordleAction(message="qajaq"))
    busy = threading.Thread(target=first.step, args=(WordleAction(message="<guess>equal</guess>"),))
    busy.start()
    assert searching.wait(30)
    # a table move: no search of its own
    result = second.step(WordleAction(message="<guess>crane</guess>"))
    # answered while the other still searches
    assert result.info["regret_exact"] and busy.is_alive()
    release.set()
    busy.join(30)


def test_openenv__the_command_serves_the_game_named_by_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reliability 6, finding 14: the OpenEnv server had no --game (today's lists), though every
    command that takes lists has it. It names both of the game's lists for the sessions."""
    import sys
    import types

    import wordle_gym.integrations.openenv as served

    made: list[dict] = []
    monkeypatch.setattr(served, "make_app", lambda *a, **game: made.append(game) or object())
    monkeypatch.setitem(sys.modules, "uvicorn", types.SimpleNamespace(run=lambda *a, **k: None))
    assert main(["--game", "today"]) == 0
    assert made[0]["answers"] == "answers_today" and made[0]["allowed"] == "allowed_today"
    env = WordleEnvironment(answers="answers_today", allowed="allowed_today")
    env.reset(seed=0)
    assert env.game.config.vocabulary.num_allowed == 14855


def test_openenv__a_flood_of_plain_http_resets_queues_and_builds_no_word_lists() -> None:
    """Reliability 6, finding 8: a plain-HTTP ``/reset`` flood slowed WebSocket players 50-140x
    (each request built an env, its word lists and all, on the event loop, and ran beside every
    other). The real game's lists are built once a process, and the stateless routes are answered
    one at a time while other requests pass (``python -m benchmarks.openenv_flood``)."""
    import asyncio

    from wordle_gym.integrations.openenv import MAX_BODY, STATELESS_AT_ONCE, _Guard

    first, second = WordleEnvironment(), WordleEnvironment()
    assert first.game.config.vocabulary is second.game.config.vocabulary
    inside, peak = 0, {"/reset": 0, "/health": 0}

    async def app(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        nonlocal inside
        inside += 1
        peak[scope["path"]] = max(peak[scope["path"]], inside)
        await asyncio.sleep(0.01)
        inside -= 1

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    async def send(message: dict) -> None:
        pass

    async def requests(path: str) -> None:
        guard = _Guard(app, None, MAX_BODY)
        scope = {"type": "http", "path": path, "headers": []}
        await asyncio.gather(*(guard(scope, receive, send) for _ in range(8)))

    asyncio.run(requests("/reset"))
    asyncio.run(requests("/health"))
    assert peak == {"/reset": STATELESS_AT_ONCE, "/health": 8}


def test_openenv__a_message_nested_too_deep_is_an_error_and_the_session_goes_on() -> None:
    """Reliability 6, finding 11: a WebSocket message nested 5,000 deep destroyed its session (a
    RecursionError in the server's JSON parse). It is answered with an error, and the same session
    plays on."""
    import websockets.sync.client

    for url in _serve():
        with websockets.sync.client.connect(url.replace("http", "ws") + "/ws") as ws:
            ws.send('{"type": "reset", "data": {"seed": 0}}')
            assert json.loads(ws.recv())["type"] != "error"
            ws.send("[" * 5000 + "]" * 5000)
            error = json.loads(ws.recv())
            ws.send('{"type": "step", "data": {"message": "[crane]"}}')
            step = json.loads(ws.recv())
            assert step["type"] != "error" and "CRANE" in json.dumps(step), step
            assert error["type"] == "error" and "nested too deep" in error["data"]["message"]


def test_openenv__the_old_names_are_the_renamed_classes_with_a_warning() -> None:
    """House IV, goal 4: the client was ``WordleEnv`` (the Gymnasium env's name) and the server's
    state ``WordleState`` (verifiers' too); the old names still import, with a warning."""
    import warnings

    from wordle_gym.integrations import openenv

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from wordle_gym.integrations.openenv import WordleEnv, WordleState
    assert (WordleEnv, WordleState) == (openenv.WordleEnvClient, openenv.WordleServerState)
    assert [w.category for w in caught] == [DeprecationWarning] * 2
