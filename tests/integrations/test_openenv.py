"""OpenEnv (``wordle_gym.integrations.openenv``): the text env served as an OpenEnv environment on the loopback
address, played through OpenEnv's own client machinery (WebSocket sessions) and its HTTP routes. Needs the
``openenv`` extra (CI runs these in a venv of their own, with the GRPO example)."""

from __future__ import annotations

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
from wordle_gym.integrations.openenv import WordleAction, WordleEnv, WordleEnvironment, main, make_app


def _tiles(guess: str, answer: str) -> str:
    codes = feedback_one(tuple(encode(guess).tolist()), tuple(encode(answer).tolist()))
    return " ".join({2: "G", 1: "Y", 0: "X"}[c] for c in codes)


def _serve(**game: object) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(make_app(**game), host="127.0.0.1", port=port, log_level="warning"))
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
    with WordleEnv(base_url=url).sync() as env:
        result = env.reset(answer="cigar")
        assert not result.done and result.reward is None
        assert "Find the secret 5-letter" in result.observation.prompt
        assert [m.category for m in result.observation.messages] == ["PROMPT"]
        # reasoning is never read; the guess comes from the answer tag
        result = env.step(WordleAction(message="<think>perhaps [crane]?</think>\n<guess>salet</guess>"))
        assert not result.done and result.reward == pytest.approx(0.0)  # SALET is the optimal opener
        assert result.observation.info["guess"] == "salet" and result.observation.info["regret_exact"]
        assert f"SALET -> {_tiles('salet', 'cigar')}" in result.observation.messages[-1].content
        result = env.step(WordleAction(message="no word here"))  # refused: the turn is spent
        assert "refused" in result.observation.messages[-1].content and result.observation.info["reason"]
        result = env.step(WordleAction(message="Answer: cigar"))
        assert result.done and result.observation.info["won"]
        state = env.state()
        assert (
            state.turn == 3
            and state.step_count == 3
            and state.raw_state == {"guesses": ["salet", "cigar"], "won": True}
        )
        assert [m.category for m in result.observation.messages] == ["PROMPT", *["PLAYER_ACTION", "GAME"] * 3]


def test_openenv__sessions_are_separate_games_and_the_seed_fixes_the_answer(url: str) -> None:
    with WordleEnv(base_url=url).sync() as first, WordleEnv(base_url=url).sync() as second:
        first.reset(seed=5)
        second.reset(seed=5)
        a = first.step(WordleAction(message="[crane]")).observation.info["tiles"]
        b = second.step(WordleAction(message="[crane]")).observation.info["tiles"]
        assert a == b  # the same answer from the same seed
        second.step(WordleAction(message="[slate]"))
        assert first.state().turn == 1 and second.state().turn == 2


def test_openenv__the_payloads_are_textarena_envs_wire_format(url: str) -> None:
    """The keys of OpenEnv's textarena_env (what TRL's Wordle example reads), over HTTP and in a session."""
    with httpx.Client(base_url=url, timeout=30) as http:
        reset = http.post("/reset", json={"seed": 1})
        assert reset.status_code == 200, reset.text
        body = reset.json()
        assert {"prompt", "messages", "current_player_id", "legal_players", "info"} <= set(body["observation"])
        assert body["done"] is False
        assert "message" in str(http.get("/schema").json())
    payloads = []

    class Recording(WordleEnv):
        def _parse_result(self, payload):  # type: ignore[no-untyped-def]
            payloads.append(payload)
            return super()._parse_result(payload)

    with Recording(base_url=url).sync() as env:
        env.reset(seed=1)
        env.step(WordleAction(message="[salet]"))
    step = payloads[-1]
    assert {"observation", "reward", "done"} <= set(step)
    assert {"sender_id", "content", "category"} <= set(step["observation"]["messages"][-1])


def test_openenv__the_split_is_served() -> None:
    held = set(split_answers(load_word_list("answers"), "eval"))
    game = WordleEnvironment(split="eval")
    for seed in range(40):
        game.reset(seed=seed)
        assert game.game.answer in held
    with pytest.raises(ValueError, match="unknown reset options"):
        game.reset(level=3)


def test_openenv__the_command_refuses_a_bad_game_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--reward", "nonsense"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nonsense" in err


def test_openenv__docs_snippet_runs_as_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The LLM tutorial's OpenEnv snippet (fenced ``python openenv``: the docs test runs without OpenEnv), against
    the server its command line starts, on the port it names."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "tutorials" / "llm.md"
    text = page.read_text()
    (block,) = re.findall(r"```python openenv\n(.*?)```", text, flags=re.S)
    (command,) = re.findall(r"^python -m wordle_gym.integrations.openenv .*$", text, flags=re.M)
    server = subprocess.Popen([sys.executable, *command.split()[1:]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get("http://127.0.0.1:8001/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "the documented server did not start"
            time.sleep(0.5)
        out = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, cwd=tmp_path, timeout=300)
        assert out.returncode == 0, out.stderr[-3000:]
        assert "SALET ->" in out.stdout and out.stdout.strip().endswith("False")
    finally:
        server.terminate()
        server.wait(30)
