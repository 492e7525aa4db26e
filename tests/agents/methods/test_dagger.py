"""The taught student: behaviour cloning then DAgger with the exact oracle as teacher, on a small
list."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import torch

pytest.importorskip("numba")

from tests.helpers.reference import few_letter_words
from wordle_agents.commands.teach import main
from wordle_agents.methods.dagger import TeachOptions, teach
from wordle_agents.rl.a2c import A2CAgent, A2CConfig
from wordle_gym.core.config import WordleConfig
from wordle_gym.solver.oracle import Oracle


def test_teach__dagger_reaches_the_oracle_on_a_small_list() -> None:
    words = few_letter_words(random.Random(4), "abcdefgh", 4, 30)
    oracle = Oracle(answers=words, allowed=None, root_opener=None)
    torch_seed = 0
    import torch

    torch.manual_seed(torch_seed)
    agent = A2CAgent(A2CConfig(hidden=64), 4, "cpu")
    lines: list[str] = []
    state, history = teach(
        agent, oracle, TeachOptions(rounds=6, epochs=60, lr=3e-3), log=lines.append
    )
    best = max(history, key=lambda h: (h.win_rate, -h.mean_guesses))
    assert best.win_rate == 1.0
    assert best.mean_all <= oracle.value(oracle.start()) + 0.05  # within 0.05 of optimal play
    assert history[0].positions < history[-1].positions  # DAgger added the student's own positions
    assert lines[0].startswith("the teacher: ") and all(
        f"round {h.round}:" in "".join(lines) for h in history
    )
    assert set(state) == set(agent.net.state_dict())


def test_teach__command_writes_a_float16_checkpoint_that_plays(tmp_path) -> None:
    import torch

    from wordle_gym.harness.evaluation import evaluate

    words = few_letter_words(random.Random(5), "abcdefg", 4, 20)
    (tmp_path / "w.txt").write_text("\n".join(words) + "\n")
    out = tmp_path / "taught.pt"
    args = [
        "--answers",
        str(tmp_path / "w.txt"),
        "--allowed",
        str(tmp_path / "w.txt"),
        "--hidden",
        "32",
    ]
    assert main([*args, "--rounds", "3", "--epochs", "30", "--lr", "3e-3", "--out", str(out)]) == 0
    data = torch.load(out, weights_only=True)
    assert data["teacher"] == "optimal" and data["model"]["trunk.0.weight"].dtype == torch.float16
    agent = A2CAgent.load(out)
    result = evaluate(agent, device="cpu", answers=words, allowed=None, progress=False)
    assert result.win_rate == data["figures"][
        "win_rate"
    ] and result.mean_guesses_wins == pytest.approx(data["figures"]["mean_guesses"], abs=1e-9)
    assert main([*args, "--rounds", "0", "--out", str(out)]) == 2


def test_teach__a_seed_repeats_a_run_and_another_seed_differs(tmp_path) -> None:
    """Regression: dropout drew from the unseeded global RNG, so two runs of one command
    differed."""
    import torch

    words = few_letter_words(random.Random(6), "abcdefg", 4, 12)
    (tmp_path / "w.txt").write_text("\n".join(words) + "\n")
    args = [
        "--answers",
        str(tmp_path / "w.txt"),
        "--allowed",
        str(tmp_path / "w.txt"),
        "--hidden",
        "16",
        "--rounds",
        "1",
        "--epochs",
        "3",
    ]
    weights = []
    for seed, name in ((0, "a"), (0, "b"), (1, "c")):
        torch.manual_seed(100 + len(weights))  # whatever the caller's RNG holds
        assert main([*args, "--seed", str(seed), "--out", str(tmp_path / f"{name}.pt")]) == 0
        weights.append(
            torch.load(tmp_path / f"{name}.pt", weights_only=True)["model"]["trunk.0.weight"]
        )
    assert torch.equal(weights[0], weights[1]) and not torch.equal(weights[0], weights[2])


def test_shipped_taught_weights__apart_from_the_default_and_by_mode() -> None:
    """The default a2c stays the reward-only weights; a2c-taught plays the hard-mode weights in hard
    mode."""
    from wordle_agents.zoo import a2c, a2c_taught

    assert Path(a2c().checkpoint.path).name == "a2c_full.pt"
    taught = a2c_taught()
    assert Path(taught.normal.checkpoint.path).name == "a2c_taught.pt"
    assert Path(taught.hard.checkpoint.path).name == "a2c_taught_hard.pt"
    assert (
        taught.normal.checkpoint.teacher == "optimal" and taught.hard.checkpoint.hard_mode is True
    )
    assert taught.normal.checkpoint.hard_mode is False


@pytest.mark.slow
def test_play__the_shipped_taught_network_plays_its_recorded_figures() -> None:
    """teach's play (the harness loop with a recorder) gives exactly the figures the teaching run
    recorded."""
    from wordle_agents.methods.dagger import play
    from wordle_agents.zoo import a2c_taught
    from wordle_gym.solver.oracle import Oracle

    agent = a2c_taught().normal
    seen, figures = play(agent, Oracle(WordleConfig(), root_opener="salet"), torch.device("cpu"))
    recorded = agent.checkpoint.figures
    assert (figures["win_rate"], figures["mean_guesses"]) == (
        recorded["win_rate"],
        recorded["mean_guesses"],
    )
    assert len(seen) > 2000  # every position the student reached, once


def test_teach__refuses_bad_options_and_foreign_files_in_one_line(tmp_path, capsys) -> None:
    """Regression (issue 42): --lr inf, --max-minutes 0 or nan were taken; a JSON --init relayed
    torch's advice to load it unsafely; --device cuda without a GPU blamed the checkpoint; another
    word length was a traceback."""
    words = few_letter_words(random.Random(5), "abcdefg", 4, 12)
    (tmp_path / "w.txt").write_text("\n".join(words) + "\n")
    args = [
        "--answers",
        str(tmp_path / "w.txt"),
        "--allowed",
        str(tmp_path / "w.txt"),
        "--hidden",
        "16",
        "--out",
        str(tmp_path / "out.pt"),
    ]
    five = A2CAgent(A2CConfig(hidden=16), 5, "cpu")
    five.save(tmp_path / "five.pt")
    (tmp_path / "ranking.json").write_text('{"salet": 7920}')
    cases = [
        (["--lr", "inf"], "lr must be a number in (0, 1]; got inf"),
        (["--max-minutes", "0"], "max-minutes must be a number of minutes > 0; got 0.0"),
        (["--max-minutes", "nan"], "max-minutes must be a number of minutes > 0; got nan"),
        (
            ["--init", str(tmp_path / "ranking.json")],
            "is corrupt or not a wordle_gym checkpoint (not a torch.save file)",
        ),
        (
            ["--init", str(tmp_path / "five.pt")],
            "was built for 5-letter words and 6 guesses; the game has 4-letter",
        ),
    ]
    if not torch.cuda.is_available():
        cases.append((["--device", "cuda"], "CUDA is not available"))
    for bad, expected in cases:
        assert main([*args, *bad]) == 2
        err = capsys.readouterr().err
        assert expected in err and err.count("\n") == 1 and "weights_only" not in err, err


def test_teach__a_diverging_round_is_an_error_not_the_best_weights(monkeypatch) -> None:
    """Regression (issue 42): with --lr 10 the NaN network was kept as the best round."""
    import wordle_agents.methods.dagger as module

    words = few_letter_words(random.Random(4), "abcdefgh", 4, 12)
    oracle = Oracle(answers=words, allowed=None, root_opener=None)
    monkeypatch.setattr(module, "train", lambda *args, **kwargs: float("nan"))
    with pytest.raises(
        ValueError,
        match=r"the training diverged in round 1 \(loss nan\); lower "
        r"--lr",
    ):
        teach(
            A2CAgent(A2CConfig(hidden=16), 4, "cpu"),
            oracle,
            TeachOptions(rounds=2, epochs=1),
            log=lambda _: None,
        )
