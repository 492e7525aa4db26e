"""The seeded train/eval split of the answers: disjoint, stable, and what every env draws from."""

from __future__ import annotations

import random

import gymnasium as gym
import pytest

import wordle_gym  # noqa: F401  (registers the ids)
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.words import load_word_list, split_answers


def test_split_answers__disjoint_halves_of_one_seeded_shuffle() -> None:
    words = load_word_list("answers")
    train, held = split_answers(words, "train"), split_answers(words, "eval")
    assert (len(train), len(held)) == (2000, 315)
    assert not set(train) & set(held) and set(train) | set(held) == set(words)
    order = list(words)
    # the recipe, written out: the last 315 of one shuffle by seed 0
    random.Random(0).shuffle(order)
    assert held == order[-315:]
    assert split_answers(words, "eval", seed=1) != held
    assert len(split_answers(words, "eval", eval_size=500)) == 500


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"split": "test"}, "unknown split 'test'"),
        (
            {"split": "eval", "split_eval_size": 0},
            "split_eval_size must be an integer from 1 to 2314",
        ),
        (
            {"split": "eval", "split_eval_size": 2315},
            "split_eval_size must be an integer from 1 to 2314",
        ),
        ({"split": "eval", "split_seed": "0"}, "split_seed must be an integer"),
        (
            {"split": "eval", "split_eval_size": 3, "boards": 4},
            "boards=4 needs as many answers; the 'eval' split has 3",
        ),
        (  # the train split's own size (the message gave the eval size)
            {
                "answers": ["cigar", "rebut", "sissy", "humph", "awake"],
                "allowed": None,
                "split": "train",
                "split_eval_size": 4,
                "boards": 2,
            },
            "boards=2 needs as many answers; the 'train' split has 1",
        ),
    ],
)
def test_config__a_bad_split_names_itself(options: dict, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        WordleConfig(**options)


def _pool(split: str) -> set[int]:
    pool = WordleConfig(split=split).answer_pool
    assert pool is not None
    return set(pool)


@pytest.mark.parametrize("env_id", ["Wordle-v1", "WordleText-v0"])
def test_one_game_envs__draw_only_the_splits_answers(env_id: str) -> None:
    env = gym.make(env_id, split="eval")
    words = env.unwrapped.vocabulary.answers
    held = {words[i] for i in _pool("eval")}
    drawn = set()
    for seed in range(400):
        env.reset(seed=seed)
        drawn.add(env.unwrapped.answer)
    assert drawn <= held and len(drawn) > 200  # most of the 315, none outside
    env.reset(options={"answer": sorted(set(words) - held)[0]})  # an explicit answer still plays
    assert env.unwrapped.answer not in held
    assert env.unwrapped.vocabulary.num_answers == 2315  # the game is the whole list's


def test_vector_envs__draw_only_the_splits_answers_at_reset_and_autoreset() -> None:
    env = gym.make_vec("Wordle-v1", num_envs=2000, split="train")
    env.reset(seed=0)
    train = _pool("train")
    seen = set(env.unwrapped.state.answers.tolist())
    for _ in range(7):  # every game ends within 6 guesses: the autoreset draws again
        env.step(env.action_space.sample())
        seen |= set(env.unwrapped.state.answers.tolist())
    assert seen <= train and len(seen) > 1500


@pytest.mark.parametrize("vector", [False, True])
def test_multi_board_envs__draw_distinct_answers_from_the_split(vector: bool) -> None:
    held = _pool("eval")
    if vector:
        env = gym.make_vec("Quordle-v1", num_envs=500, split="eval")
        env.reset(seed=0)
        games = env.unwrapped.state.answers.tolist()
    else:
        env = gym.make("Quordle-v1", split="eval")
        games = []
        for seed in range(100):
            env.reset(seed=seed)
            games.append(env.unwrapped._batch.state.answers[0].tolist())
    assert all(len(set(game)) == 4 and set(game) <= held for game in games)


def test_eval_command__plays_the_split_in_the_whole_game(tmp_path, capsys) -> None:
    import json

    from wordle_gym.cli import main

    out = tmp_path / "eval.json"
    assert (
        main(["eval", "--agent", "optimal", "--split", "eval", "--regret", "--json", str(out)]) == 0
    )
    printed = capsys.readouterr().out
    assert "315/315 won" in printed and "of which 315 answers were played" in printed
    result = json.loads(out.read_text())
    words = load_word_list("answers")
    assert result["games"] == 315 and "eval split, seed 0: 315 answers" in result["answers"]
    # the optimal tree of the whole game (2315 answers): its regret is zero on every move of the
    # split
    assert result["extra"]["regret"]["mean_regret"] == pytest.approx(0.0, abs=1e-9)
    held = set(split_answers(words, "eval"))
    assert sum(result["histogram"]) == len(held)
    assert main(["eval", "--agent", "optimal", "--split", "train", "--split-seed", "3"]) == 0
    assert "2000/2000 won" in capsys.readouterr().out
