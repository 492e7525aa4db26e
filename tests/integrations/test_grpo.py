"""The GRPO example (``examples/train_grpo.py``): TRL's ``GRPOTrainer`` plays real Wordle through
the ``guess`` tool, offline, with a tiny model built from a config. Needs the ``trl`` extra (CI runs
it in a venv of its own, with the OpenEnv tests)."""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import pytest

from wordle_gym.core.words import load_word_list, split_answers

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _example():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("train_grpo", ROOT / "examples" / "train_grpo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # a module's dataclasses resolve their annotations through sys.modules
    sys.modules["train_grpo"] = module
    spec.loader.exec_module(module)
    return module


def test_grpo_example__trains_on_whole_games_played_through_the_tool(
    tmp_path: Path, capsys
) -> None:
    pytest.importorskip("trl")
    example = _example()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert example.main(["--tiny", "--steps", "2", "--output-dir", str(tmp_path / "out")]) == 0
    # warning-free, as a user runs it (TRL 1.16 on transformers 5 warned of checkpointing's old
    # name and of its experimental environment_factory at every run)
    assert [f"{w.category.__name__}: {w.message}" for w in caught] == []
    printed = capsys.readouterr().out
    assert "step 1: mean reward" in printed and "step 2: mean reward" in printed
    assert (tmp_path / "out" / "config.json").is_file() and (
        f"saved the model to {tmp_path / 'out'}"
    ) in printed
    games = example.WordleGame.finished
    assert len(games) == 8  # 2 steps of 4 games
    train = set(split_answers(load_word_list("answers"), "train"))
    assert all(g["answer"] in train for g in games)
    played = [g for g in games if g["guesses"]]
    # the tiny model was taught the call format: most of its games are real games
    assert len(played) >= 4
    assert all(set(g["guesses"][:1]) <= set(example.TINY_WORDS) for g in played)
    # each score is the game's: 1 for a win, minus the regret of its moves (a repeat costs 1)
    for g in games:
        assert g["reward"] <= 1.0 + 1e-9 and (g["won"] or g["reward"] <= 0.0)
        repeats = len(g["guesses"]) - len(set(g["guesses"]))
        assert g["reward"] <= float(g["won"]) - repeats + 1e-9
    assert len({g["answer"] for g in games}) == 2  # one answer per prompt: the group of 4 shares it


def test_grpo_example__trains_against_the_openenv_server_as_trls_example_is_written(
    tmp_path: Path, capsys
) -> None:
    """Issue 73: TRL's OpenEnv Wordle example pointed at the server read every tool answer as '' (it
    slices the new part of ``messages[0].content``, TextArena's transcript), its env.reward was the
    last move's, and a client that stopped playing scored 0 (a perfect regret).
    ``ServedWordleGame``, written as TRL's example writes its class, trains against the server: each
    tool answer is the move's feedback, each game's reward the server's game reward (plus 1 for a
    win), and a game left unfinished is played out as spent turns."""
    pytest.importorskip("trl")
    from tests.integrations.test_openenv import _serve

    example = _example()
    # checkpointing on, as a real model runs (TRL's default): TRL's calls of its old names warned
    chosen = example._checkpointing
    example._checkpointing = lambda config_class, on: chosen(config_class, True)
    out = str(tmp_path / "out")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for url in _serve(reward="regret", split="train"):
            argv = ["--tiny", "--steps", "2", "--env-url", url, "--output-dir", out]
            assert example.main(argv) == 0
    assert [f"{w.category.__name__}: {w.message}" for w in caught] == []
    printed = capsys.readouterr().out
    assert "step 1: mean reward" in printed and "step 2: mean reward" in printed
    games = example.ServedWordleGame.finished
    assert len(games) == 8 and sum(bool(g["guesses"]) for g in games) >= 4
    for g in games:
        assert all(answer.strip() for answer in g["feedback"])  # the feedback is visible, never ''
        assert all("->" in a or "You attempted an invalid move" in a for a in g["feedback"])
        # stopping spends turns
        assert g["reward"] <= 1.0 + 1e-9 and (g["won"] or g["reward"] <= -1.0)


def test_grpo_example__a_refused_argument_is_shown_refused_not_as_guesses() -> None:
    """Issue 84: the printout joined a refused argument's words ("carte to"), so a refused reply
    looked like two words played."""
    example = _example()
    game = example.WordleGame()
    game.reset(seed=3)
    game.guess("carte to")
    game.guess("salet")
    assert game.guesses == ["('carte to': refused)", "salet"]


def test_grpo_example__bad_arguments_fail_in_one_line() -> None:
    import subprocess

    for args, message in (
        ([], "give --model ID or --tiny"),
        (["--tiny", "--steps", "0"], "--steps must be >= 1"),
        (["--tiny", "--batch-size", "6"], "must be a multiple of --num-generations"),
        (["--tiny", "--reward", "nonsense"], "nonsense"),
        (["--tiny", "--env-url", "http://127.0.0.1:9"], "--env-url http://127.0.0.1:9"),
    ):
        command = [sys.executable, str(ROOT / "examples" / "train_grpo.py"), *args]
        out = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert out.returncode != 0 and message in out.stderr, (args, out.stderr[-500:])
        assert "Traceback" not in out.stderr, (args, out.stderr[-500:])
