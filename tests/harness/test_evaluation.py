"""The evaluation harness: exact histograms for scripted policies, every answer once, JSON."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest
import torch

from tests.helpers.lists import SMALL
from wordle_gym.core.config import WordleConfig
from wordle_gym.harness.evaluation import EvalResult, Policy, PolicyError, evaluate

WORDS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade"]


class Scripted:
    """Guess WORDS[0], WORDS[1], ... in order, whatever the feedback: the game whose answer is
    WORDS[k] ends on guess k + 1, or is lost when k >= max_guesses."""

    name = "scripted"

    def __init__(self) -> None:
        self.seen_answers: list[list[int]] = []

    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env) -> torch.Tensor:
        if not self.seen_answers:
            self.seen_answers.append(env.state.answers.tolist())
        return env.state.turn.clone()  # allowed == answers: action k guesses WORDS[k]


def test_evaluate__scripted_policy_gives_the_exact_histogram() -> None:
    policy = Scripted()
    result = evaluate(policy, answers=WORDS, allowed=None, device="cpu", progress=False)
    assert isinstance(policy, Policy)  # structural: it only has an act method
    assert policy.seen_answers == [list(range(8))]  # every answer exactly once
    assert result.histogram == [1, 1, 1, 1, 1, 1, 2]
    assert result.games == 8 and result.wins == 6 and result.lost_answers == ["focal", "evade"]
    assert result.win_rate == 0.75
    assert result.mean_guesses_wins == pytest.approx(21 / 6)
    assert result.mean_guesses_all == pytest.approx((21 + 7 + 7) / 8)
    assert result.worst == 7 and result.openers == {"cigar": 8}
    assert (
        result.agent == "scripted"
        and result.device == "cpu"
        and result.answers == ("custom (8 words)")
    )


def test_evaluate__other_lengths_and_guess_limits() -> None:
    words = ["cat", "act", "tac", "cot", "tic"]
    result = evaluate(
        Scripted(), answers=words, allowed=None, max_guesses=3, device="cpu", progress=False
    )
    assert result.histogram == [1, 1, 1, 2] and result.lost_answers == ["cot", "tic"]
    assert result.mean_guesses_all == pytest.approx((1 + 2 + 3 + 4 + 4) / 5)
    # per answer, in list order; a loss counts max_guesses + 1
    assert result.guesses == [1, 2, 3, 4, 4]


def test_evaluate__takes_what_the_envs_take() -> None:
    """A WordleConfig, or any of its fields as keywords (obs_dtype included), exactly as the envs
    do."""
    seen = []

    class Recording(Scripted):
        def act(self, observations, action_masks, env):
            seen.append(observations.dtype)
            return super().act(observations, action_masks, env)

    config = WordleConfig(answers=WORDS, allowed=None, max_guesses=3, obs_dtype="float32")
    by_config = evaluate(Recording(), config, device="cpu", progress=False)
    by_keywords = evaluate(Recording(), device="cpu", progress=False, **asdict(config))
    assert by_config.histogram == by_keywords.histogram == [1, 1, 1, 5] and set(seen) == {
        torch.float32
    }
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):
        evaluate(Scripted(), answers=WORDS, frameskip=4)
    with pytest.raises(TypeError, match="not both"):
        evaluate(Scripted(), config, hard_mode=True)


def test_eval_result__per_answer_guesses_must_match_the_histogram() -> None:
    result = evaluate(Scripted(), answers=WORDS, allowed=None, device="cpu", progress=False)
    data = result.to_dict()
    data["guesses"] = [1] * len(WORDS)
    with pytest.raises(ValueError, match="per-answer guesses do not match"):
        EvalResult.from_dict(data)
    data["guesses"] = None  # results written before the field existed still load
    assert EvalResult.from_dict(data).histogram == result.histogram


def test_eval_result__json_roundtrip_and_markdown(tmp_path: Path) -> None:
    result = evaluate(
        Scripted(), answers=WORDS, allowed=None, device="cpu", agent="named", progress=False
    )
    again = EvalResult.from_json(result.to_json())
    assert again == result and again.agent == "named"
    path = tmp_path / "out" / "result.json"
    result.save(path)
    data = json.loads(path.read_text())
    assert data["histogram"] == [1, 1, 1, 1, 1, 1, 2] and data["derived"]["win_rate"] == 0.75
    assert EvalResult.from_dict(data) == result
    # no temporary file left behind
    assert [p.name for p in path.parent.iterdir()] == ["result.json"]
    row = result.markdown_row()
    assert row.startswith("| named | 75.00 | 3.5000 | 4.3750 | X | 1 1 1 1 1 1 2 |")
    assert row.count("|") == result.markdown_header().splitlines()[0].count("|")


def test_evaluate__bad_actions_raise() -> None:
    class Bad:
        def act(self, observations, action_masks, env):
            return torch.full((env.num_envs,), 99)

    with pytest.raises(ValueError, match="action 99 is out of range; expected 0 <= action < 8"):
        evaluate(Bad(), answers=WORDS, allowed=None, device="cpu", progress=False)


class RaisingAgent:
    def __init__(self) -> None:
        raise RuntimeError("cannot start")


class FailingAct:
    def act(self, observations, action_masks, env):
        raise KeyError("oops")


class NoneAct:
    def act(self, observations, action_masks, env):
        return None


class ResettingAct:
    def act(self, observations, action_masks, env):
        env.reset()
        return action_masks.float().argmax(1)


class ResettingFirst:
    """Resets only before its first move: the turns stay 0, the answers change."""

    def __init__(self) -> None:
        self.moves = 0

    def act(self, observations, action_masks, env):
        if not self.moves:
            env.reset()
        self.moves += 1
        return action_masks.float().argmax(1)


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (ResettingFirst(), "ResettingFirst.act changed the games"),
        # was a bare KeyError traceback from the CLI
        (FailingAct(), "FailingAct.act raised KeyError"),
        (NoneAct(), "NoneAct.act returned None"),
        (ResettingAct(), "ResettingAct.act changed the games"),
    ],
)
def test_evaluate__a_faulty_policy_is_named(policy: object, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        evaluate(policy, answers=SMALL, allowed=SMALL, device="cpu", progress=False)


def test_evaluate__the_lists_keep_their_names() -> None:
    """Regression: the policy check's copy of the games' answers once took the name of the answers
    argument, so every result said "custom (2315 words)" and bench's real-game table came out
    empty."""

    class Answer:  # wins every game at once: the lists' names are what is checked, not the play
        def act(self, observations, action_masks, env):
            return env.game.answer_actions[env.state.answers]

    assert evaluate(Answer(), device="cpu", progress=False).answers == "answers"


def test_evaluate__a_split_names_the_answers_it_lost() -> None:
    """Issue 73: ``wordle-gym eval --agent random --split eval`` listed the lost answers by game
    number from the whole list (aback, abase, abate, ...: not in the eval split)."""
    from wordle_agents import RandomPolicy
    from wordle_gym.core.words import load_word_list, split_answers

    result = evaluate(RandomPolicy(seed=0), device="cpu", split="eval")
    held = split_answers(load_word_list("answers"), "eval")
    assert result.games == len(held) and len(result.lost_answers) == result.games - result.wins
    assert set(result.lost_answers) <= set(held)
