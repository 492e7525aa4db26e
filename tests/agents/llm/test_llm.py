"""The llm agent, end to end against an OpenAI-compatible server on the loopback address
(tests/helpers/ fake_openai.py: a scripted model that reads the board from the chat, and scripted
failures). Nothing here reaches any other address."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import torch

from tests.helpers.fake_openai import fake_openai
from tests.helpers.lists import list_pair, small_lists
from wordle_agents.llm.agent import LLMAgent
from wordle_agents.llm.client import ChatClient, ChatError
from wordle_gym.cli.commands import main as cli_main
from wordle_gym.envs.text import WordleTextEnv
from wordle_gym.harness.evaluation import evaluate

ANSWERS, ALLOWED = small_lists(5, 30, 90)


class FirstCandidate:
    """The scripted model's strategy, played on the engine directly: the first answer that fits."""

    def act(
        self, observations: torch.Tensor, action_masks: torch.Tensor, env: object
    ) -> torch.Tensor:
        fits = env.game.consistent(env.state)  # (N, answers) bool
        first = fits.int().argmax(1)
        return env.vocabulary.answer_actions.to(first.device)[first]


def _agent(url: str, **options: object) -> LLMAgent:
    return LLMAgent(base_url=url, model="scripted", backoff=0.0, progress=False, **options)


def test_llm__plays_every_game_in_the_text_envs_words() -> None:
    """The chats are the text env's: replaying a game's replies through WordleTextEnv gives exactly
    the user messages the model was sent; the figures equal the same strategy played on the
    engine."""
    with fake_openai(ANSWERS) as (url, server):
        agent = _agent(url, concurrency=4, transcripts=True)
        result = evaluate(agent, answers=ANSWERS, allowed=ALLOWED, device="cpu", progress=False)
    expected = evaluate(
        FirstCandidate(), answers=ANSWERS, allowed=ALLOWED, device="cpu", progress=False
    )
    assert result.guesses == expected.guesses and result.wins == expected.wins
    llm = result.extra["llm"]
    assert llm["requests"] == sum(result.guesses) == len(server.requests)
    assert llm["retries"] == 0 and llm["refused_replies"] == 0 and llm["forfeited_turns"] == 0
    assert llm["prompt_tokens"] > 0 and llm["completion_tokens"] > 0
    assert {(r["model"], r["temperature"]) for r in server.requests} == {("scripted", 0.0)}
    assert all("Authorization" not in h for h in server.headers)  # no key set: none sent
    chats = result.extra["transcripts"]
    assert len(chats) == len(ANSWERS)
    env = WordleTextEnv(answers=ANSWERS, allowed=ALLOWED)
    for answer, chat in zip(ANSWERS, chats, strict=True):
        observation, _ = env.reset(options={"answer": answer})
        users = [m["content"] for m in chat if m["role"] == "user"]
        replies = [m["content"] for m in chat if m["role"] == "assistant"]
        assert users[0] == observation
        for turn, reply in enumerate(replies[:-1]):
            observation, *_ = env.step(reply)
            assert users[turn + 1] == observation
        *_, info = env.step(replies[-1])
        assert info["won"]
    json.dumps(result.to_dict())  # the transcripts and counts are JSON


def test_llm__retries_failures_and_asks_again_after_unusable_replies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HTTP 500, 429, a body that is no completion and a timeout are retried; a reply with no guess
    and a word not on the list are answered with the refusal and asked again: the games come out as
    with no fault."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    faults = ["500", "429", "garbage", "slow", "prose", "notaword"]
    with fake_openai(ANSWERS, faults, slow_s=1.5) as (url, server):
        agent = _agent(url, concurrency=1, timeout=0.5, retries=4)
        result = evaluate(agent, answers=ANSWERS, allowed=ALLOWED, device="cpu", progress=False)
    expected = evaluate(
        FirstCandidate(), answers=ANSWERS, allowed=ALLOWED, device="cpu", progress=False
    )
    assert result.guesses == expected.guesses
    llm = result.extra["llm"]
    assert llm["retries"] == 4 and llm["failures"] == {
        "HTTP 500": 1,
        "HTTP 429": 1,
        "malformed": 1,
        "timeout": 1,
    }
    assert llm["refused_replies"] == 2 and llm["forfeited_turns"] == 0
    assert {h.get("Authorization") for h in server.headers} == {"Bearer sk-test"}
    # the refusals were said in the chat of the first game, and the model answered them
    first = server.requests[6]["messages"]
    assert (
        "no guess found" in first[-3]["content"]
        and ("QZJKV is not in the word list") in first[-1]["content"]
    )


def test_llm__a_turn_without_a_usable_reply_is_forfeited_and_shown_as_refused() -> None:
    with fake_openai(ANSWERS, ["prose", "prose"]) as (url, _):
        agent = _agent(url, concurrency=1, invalid_retries=1, transcripts=True)
        result = evaluate(
            agent, answers=ANSWERS, allowed=ALLOWED, device="cpu", progress=False, histories=True
        )
    llm = result.extra["llm"]
    assert llm["refused_replies"] == 2 and llm["forfeited_turns"] == 1
    filler = next(w for w in ALLOWED if w not in ANSWERS)
    # a word that cannot win, revealed to no one
    assert result.histories[0][0] == ALLOWED.index(filler)
    second = [m["content"] for m in result.extra["transcripts"][0] if m["role"] == "user"][2]
    assert "1. (refused) no guess found" in second and filler.upper() not in second


def test_llm__errors_are_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    with pytest.raises(ValueError, match="needs base_url=URL"):
        LLMAgent(model="m")
    with pytest.raises(ValueError, match="needs model=NAME"):
        LLMAgent(base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValueError, match="http:// or https://"):
        LLMAgent(base_url="ftp://example", model="m")
    with (
        fake_openai(ANSWERS, ["400"]) as (url, _),
        pytest.raises(ChatError, match="HTTP 400: scripted 400"),
    ):
        ChatClient(url, "m", backoff=0).complete([{"role": "user", "content": "hi"}])
    with fake_openai(ANSWERS, ["500"] * 3) as (url, _):
        client = ChatClient(url, "m", retries=2, backoff=0)
        with pytest.raises(ChatError, match="3 tries failed; the last: HTTP 500: scripted 500"):
            client.complete([{"role": "user", "content": "hi"}])
        assert client.stats.requests == 3 and client.stats.retries == 2


def test_llm__eval_command_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``wordle-gym eval --agent llm``: the row, the counts and the transcripts in the JSON; a
    server that refuses is one line, exit 2."""
    answers, _, lists = list_pair(tmp_path, seed=5)
    target = tmp_path / "llm.json"
    with fake_openai(answers) as (url, server):
        options = ["-o", f"base_url={url}", "-o", "model=scripted", "-o", "transcripts=True"]
        code = cli_main(["eval", "--agent", "llm", *options, *lists, "--json", str(target)])
        out = capsys.readouterr()
        assert code == 0, out.err
        assert "| llm (scripted) |" in out.out
        data = json.loads(target.read_text())
        assert data["extra"]["llm"]["requests"] == len(server.requests) == sum(data["guesses"])
        assert len(data["extra"]["transcripts"]) == len(answers)
    with fake_openai(answers, ["tool"]) as (url, server):  # -o tools=true, as users write it
        options = ["-o", f"base_url={url}", "-o", "model=m", "-o", "tools=true"]
        code = cli_main(["eval", "--agent", "llm", *options, *lists, "--json", str(target)])
        assert code == 0 and "tools" in server.requests[0], capsys.readouterr().err
        assert json.loads(target.read_text())["extra"]["llm"]["tool_moves"] == 1
    capsys.readouterr()
    with fake_openai(answers, ["400"]) as (url, _):
        code = cli_main(
            ["eval", "--agent", "llm", "-o", f"base_url={url}", "-o", "model=m", *lists]
        )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "HTTP 400: scripted 400" in err


def test_llm__tool_calls_reasoning_and_the_counts_of_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 61: with tools=True the guess tool is offered, a tool-call move is played and answered
    by a tool message naming its id, a call with bad arguments is refused and asked again, a
    reasoning block is not read."""
    faults = ["tool", "toolbad", "tool", "think", None, "tool"]
    with fake_openai(ANSWERS, faults) as (url, server):
        agent = _agent(url, concurrency=1, tools=True, transcripts=True)
        result = evaluate(agent, answers=ANSWERS, allowed=ALLOWED, device="cpu", progress=False)
    expected = evaluate(
        FirstCandidate(), answers=ANSWERS, allowed=ALLOWED, device="cpu", progress=False
    )
    assert result.guesses == expected.guesses
    llm = result.extra["llm"]
    # the retry after the bad call was a call
    assert llm["tool_moves"] == 3 and llm["refused_replies"] == 1
    assert llm["text_moves"] == sum(result.guesses) - 3
    assert all(request["tools"][0]["function"]["name"] == "guess" for request in server.requests)
    chats = result.extra["transcripts"]
    calls = [m["tool_calls"][0]["id"] for chat in chats for m in chat if m.get("tool_calls")]
    answered = [m for chat in chats for m in chat if m["role"] == "tool"]
    assert len(calls) == 4 and {m["tool_call_id"] for m in answered} <= set(calls)
    assert any("Your reply was refused: no guess found" in m["content"] for m in answered)
    # the opening text offers the tool
    assert all("guess tool" in chat[0]["content"] for chat in chats)


def test_llm__fast_games_go_ahead_of_a_slow_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 61: every game moved one turn at a time together, so one slow reply held the whole
    batch. Now a game whose replies come fast plays on (and the next game starts) while a slow reply
    is awaited: the fast games end before the slow game's first reply comes, and the results are
    those of lockstep play."""
    from tests.helpers.fake_openai import ScriptedModel
    from wordle_agents.llm.client import Reply

    model = ScriptedModel(ANSWERS)
    log: list[str] = []
    release = threading.Event()

    def complete(messages, tools=None):
        # the first worker's opener
        slow = len(messages) == 1 and threading.current_thread().name.endswith("_0")
        if slow:
            release.wait(30)
            log.append("slow reply")
        else:
            log.append("reply")
            if len(log) >= len(ANSWERS) + 2:
                # more replies than the other games' first turns: now the slow reply comes
                release.set()
        return Reply(model.reply(messages), 1, 1, 1)

    agent = _agent("http://127.0.0.1:9/v1", concurrency=2)
    monkeypatch.setattr(agent.client, "complete", complete)
    result = evaluate(agent, answers=ANSWERS, allowed=ALLOWED, device="cpu", progress=False)
    expected = evaluate(
        FirstCandidate(), answers=ANSWERS, allowed=ALLOWED, device="cpu", progress=False
    )
    assert result.guesses == expected.guesses
    # in lockstep, no game had a second turn before every game's first reply: at most N - 1 replies
    # came first
    assert log.index("slow reply") >= len(ANSWERS) + 2


def test_llm__a_batch_cut_short_leaves_the_next_one_whole() -> None:
    """The games of a batch the harness stopped early (``turns=1``) are stopped, not left writing
    into the next batch's chats: the next evaluation plays as lockstep play does."""
    from wordle_gym.harness.play import play

    with fake_openai(ANSWERS) as (url, _):
        agent = _agent(url, concurrency=3)
        play(agent, answers=ANSWERS, allowed=ALLOWED, device="cpu", turns=1)
        result = evaluate(agent, answers=ANSWERS, allowed=ALLOWED, device="cpu", progress=False)
    expected = evaluate(
        FirstCandidate(), answers=ANSWERS, allowed=ALLOWED, device="cpu", progress=False
    )
    assert result.guesses == expected.guesses
    assert result.extra["llm"]["forfeited_turns"] == 0
