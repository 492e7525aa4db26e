"""The multi-board evaluation: the standard set of K-tuples, evaluate(boards=K), the greedy solver
on K boards, and `wordle-gym eval --boards K`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from tests.helpers.lists import small_lists
from tests.helpers.processes import wordle_gym_here
from tests.helpers.reference import consistent, feedback_ref
from wordle_agents.solvers.max_entropy import MaxEntropySolver
from wordle_gym import WordleConfig
from wordle_gym.harness.evaluation import EvalResult, evaluate
from wordle_gym.harness.play import MULTI_BOARD_GAMES, play, standard_games


def test_standard_games__fixed_distinct_and_a_prefix_of_the_bigger_set() -> None:
    quordle = WordleConfig(boards=4)
    games = standard_games(quordle)
    assert games.shape == (MULTI_BOARD_GAMES, 4) and games.dtype == torch.int64
    assert all(len(set(row)) == 4 for row in games.tolist())
    assert torch.equal(games, standard_games(quordle))  # the same for every agent, every run
    assert torch.equal(standard_games(quordle, 10), games[:10])
    # its own set per K
    assert not torch.equal(standard_games(WordleConfig(boards=2), 10), games[:10, :2])
    assert torch.equal(standard_games(WordleConfig()), torch.arange(2315))
    counts = torch.bincount(games.flatten(), minlength=2315)
    assert int(counts.max()) <= 15 and int((counts > 0).sum()) > 2000  # spread over the answers
    with pytest.raises(ValueError, match="games must be a positive integer; got 0"):
        standard_games(quordle, 0)


def test_greedy_solver__wins_every_small_dordle_and_plays_a_sure_board_first() -> None:
    answers, allowed = small_lists(seed=11, answers=60, guesses=200)
    config = WordleConfig(answers=answers, allowed=allowed, boards=3)
    solver = MaxEntropySolver()
    games = standard_games(config, 40)
    played = play(solver, config, games=games, device="cpu")
    assert played.win_rate == 1.0
    # Replay each game with the reference rules: whenever a board had one candidate left, the solver
    # played one such board's answer.
    sure_turns = 0
    for game, actions in zip(games.tolist(), played.histories, strict=True):
        histories = [[] for _ in game]
        solved = [False] * len(game)
        for action in actions:
            guess = allowed[action]
            left = [
                [w for w in answers if consistent(w, h)]
                for h, done in zip(histories, solved, strict=True)
                if not done
            ]
            if any(len(c) == 1 for c in left):
                sure_turns += 1
                assert guess in {c[0] for c in left if len(c) == 1}
            for b, answer in enumerate(game):
                if not solved[b]:
                    histories[b].append((guess, feedback_ref(guess, answers[answer])))
                    solved[b] = guess == answers[answer]
        assert all(solved)
    assert sure_turns > 40


def test_evaluate__boards_result_round_trips_and_names_the_lost_tuples(tmp_path: Path) -> None:
    answers, allowed = small_lists(seed=12, answers=40, guesses=120)

    class FirstWord:  # never solves two boards with one word: every game is lost
        def act(self, observations, action_masks, env):
            return torch.zeros(env.num_envs, dtype=torch.int64)

    result = evaluate(
        FirstWord(), answers=answers, allowed=allowed, boards=2, games=25, device="cpu"
    )
    assert (result.games, result.boards, result.wins, result.max_guesses) == (25, 2, 0, 7)
    assert len(result.lost_answers) == 25 and all(
        len(x.split("/")) == 2 for x in result.lost_answers
    )
    assert 0 <= result.extra["boards_solved"] < 1
    result.save(tmp_path / "r.json")
    again = EvalResult.from_json((tmp_path / "r.json").read_text())
    assert again.boards == 2 and again.extra == result.extra
    with pytest.raises(ValueError, match="games= sizes the multi-board evaluation set"):
        evaluate(FirstWord(), answers=answers, allowed=allowed, games=5, device="cpu")


def test_cli_eval__boards_and_its_errors(tmp_path: Path) -> None:
    answers, _ = small_lists(seed=13, answers=40, guesses=40)
    words = tmp_path / "words.txt"
    words.write_text("\n".join(answers) + "\n")
    out = wordle_gym_here(
        "eval", "--boards", "4", "--games", "12", "--answers", str(words), "--allowed", str(words),
        "--json", str(tmp_path / "q.json"), "--device", "cpu",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert (
        "/12 won" in out.stdout
        and "boards solved: " in out.stdout
        and ("of 4 a game, 12 games") in out.stdout
    )
    data = json.loads((tmp_path / "q.json").read_text())
    assert data["boards"] == 4 and data["max_guesses"] == 9 and data["games"] == 12
    for args, message in [
        (["--boards", "2", "--regret"], "--regret is for one board; --boards 2 has none"),
        (["--boards", "2", "--hard"], "--hard is for one board"),
        (["--games", "5"], "--games sizes the multi-board evaluation set"),
        (["--boards", "33"], "argument --boards: expected an integer from 1 to 32, got '33'"),
        (
            ["--agent", "a2c", "--boards", "2"],
            "the a2c agent plays one board; the game has 2; with --boards 2 use dqn-",
        ),
        (
            ["--agent", "optimal", "--boards", "2"],
            "use dqn-boards, dqn-explored, a2c-boards, max-entropy or random",
        ),
    ]:
        bad = wordle_gym_here("eval", *args)
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr, (
            args,
            bad.stderr,
        )
