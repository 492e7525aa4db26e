"""SB3 examples, the SB3 policy adapter, and `wordle-gym bench` (the benchmark table and plots)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import Logger

from tests.helpers.processes import ROOT, fake_distribution, wordle_gym_here
from tests.helpers.processes import run as run_with
from wordle_agents.rl.a2c import A2CAgent, A2CConfig
from wordle_agents.rl.sb3_policies import SB3Policy
from wordle_gym.core.words import stage_words
from wordle_gym.harness.evaluation import evaluate
from wordle_gym.integrations.sb3 import make_sb3_vec_env


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'examples'}", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("script", "algorithm"),
    [("sb3_ppo.py", "ppo"), ("sb3_dqn.py", "dqn"), ("sb3_maskable_ppo.py", "maskable_ppo")],
)
def test_sb3_examples__train_save_and_evaluate(script: str, algorithm: str, tmp_path: Path) -> None:
    model = tmp_path / f"{algorithm}.zip"
    out = run(
        f"examples/{script}",
        "--stage",
        "10",
        "--timesteps",
        "200",
        "--num-envs",
        "8",
        "--save",
        str(model),
    )
    assert out.returncode == 0, out.stderr
    assert f"saved {model}" in out.stdout and "/10 won" in out.stdout
    # what training added (issue 65)
    assert "untrained, with mask " in out.stdout and "trained: " in out.stdout
    # regression (issue 65): it said "trained 200 steps" after a whole rollout of more (the bar
    # showed 4,096/200)
    from stable_baselines3.common.save_util import load_from_zip_file

    played = int(out.stdout.split("trained ")[1].split(" steps")[0].replace(",", ""))
    assert played == load_from_zip_file(model)[0]["num_timesteps"] >= 200
    assert played == 200 or "(whole rollouts: asked 200)" in out.stdout
    words = tmp_path / "words.txt"
    words.write_text("\n".join(stage_words("10")[0]) + "\n")
    cli = run(
        "-m",
        "wordle_gym",
        "eval",
        "--agent",
        "sb3",
        "--checkpoint",
        str(model),
        "--answers",
        str(words),
        "--allowed",
        str(words),
        "--device",
        "cpu",
    )
    assert cli.returncode == 0, cli.stderr
    assert "/10 won" in cli.stdout and f"| sb3 ({model.name}) |" in cli.stdout
    own = run(
        "-m", "wordle_gym", "eval", "--agent", "sb3", "--checkpoint", str(model), "--device", "cpu"
    )
    assert own.returncode == 0 and "/10 won" in own.stdout  # the zip records its lists: the default
    full = run(
        "-m",
        "wordle_gym",
        "eval",
        "--agent",
        "sb3",
        "--checkpoint",
        str(model),
        "--device",
        "cpu",
        "--answers",
        "answers",
        "--allowed",
        "allowed",
    )
    # the real game, guessing among its 10 words
    assert full.returncode == 0 and "/2315 won" in full.stdout
    other = tmp_path / "other.txt"
    other.write_text("\n".join(stage_words("2315")[0][:10]) + "\n")  # the same size, other words
    wrong = run(
        "-m",
        "wordle_gym",
        "eval",
        "--agent",
        "sb3",
        "--checkpoint",
        str(model),
        "--device",
        "cpu",
        "--answers",
        str(other),
        "--allowed",
        str(other),
    )
    assert wrong.returncode == 2 and "guesses words this env does not allow (" in wrong.stderr


@pytest.mark.slow
def test_sb3_example__single_env_option(tmp_path: Path) -> None:
    out = run(
        "examples/sb3_maskable_ppo.py",
        "--stage",
        "10",
        "--timesteps",
        "256",
        "--num-envs",
        "4",
        "--single",
        "--save",
        str(tmp_path / "m.zip"),
    )
    assert out.returncode == 0, out.stderr and (tmp_path / "m.zip").exists()


def test_maskable_ppo__learns_10_words_beyond_random_play() -> None:
    """MaskablePPO with the hard-mode mask on the vector env adapter: >= 95 % greedy wins and a mean
    of at most 2.5 guesses, where random play within the same mask needs more than 2.5 (computed
    here)."""
    from wordle_agents import RandomPolicy

    answers, allowed = stage_words("10")
    kwargs = {
        "answers": answers,
        "allowed": allowed,
        "action_mask": "hard",
        "device": "cpu",
        "progress": False,
    }
    floor = evaluate(RandomPolicy(seed=0), **kwargs)
    assert floor.mean_guesses_wins > 2.5
    torch.manual_seed(0)
    venv = make_sb3_vec_env(
        num_envs=32, device="cpu", answers=answers, allowed=allowed, action_mask="hard"
    )
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=256, seed=0, device="cpu")
    model.set_logger(Logger(folder=None, output_formats=[]))  # no /tmp/SB3-* folder
    model.learn(4096)  # 100 % and 2.1 here (8192 steps: 1.9)
    result = evaluate(SB3Policy(model), **kwargs)
    assert result.win_rate >= 0.95 and result.mean_guesses_wins <= 2.5


def test_sb3_policy__load_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        SB3Policy.load(tmp_path / "missing.zip")
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not a Stable-Baselines3 model file"):
        SB3Policy.load(tmp_path / "bad.zip")


def test_bench_env__measures_every_mask_mode_and_saves_json(tmp_path: Path) -> None:
    """``wordle-gym bench --env``: the vector env's steps/s per batch size and mask mode, from the
    package."""
    out = wordle_gym_here(
        "bench",
        "--env",
        "--sizes",
        "1,4",
        "--seconds",
        "0.05",
        "--device",
        "cpu",
        "--out",
        str(tmp_path),
    )
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "benchmarks" / "results" / "vector_env_cpu.json").read_text())
    rows = {(r["num_envs"], r["mask"]): r for r in data["rows"]}
    assert set(rows) == {(n, m) for n in (1, 4) for m in ("all", "candidates", "hard")}
    for (n, _), row in rows.items():  # steps/s and ms/step describe the same steps
        assert row["env_steps_per_s"] == pytest.approx(n * 1e3 / row["ms_per_step"], rel=1e-6)
    assert "| 4 | " in out.stdout and "torch threads" in data["machine"]
    assert not (tmp_path / "BENCHMARKS.md").exists()  # agents are not evaluated


def test_bench__writes_table_json_and_plots(tmp_path: Path) -> None:
    out = wordle_gym_here("bench", "--only", "entropy, SALET", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    # regression (issue 41): the rows came without the table's header
    printed = out.stdout.splitlines()
    assert printed[0].startswith("| agent | win %") and printed[2].startswith(
        "| max-entropy (entropy, SALET) |"
    )
    results = list((tmp_path / "benchmarks" / "results" / "agents").glob("*.json"))
    # issue 78: and its row on today's game, in a table of its own
    names = sorted(p.name for p in results)
    assert names == [
        "max-entropy-entropy-salet-today-s-game.json",
        "max-entropy-entropy-salet.json",
    ]
    data = json.loads((results[0].parent / names[1]).read_text())
    assert data["wins"] == 2315 and data["derived"]["mean_guesses_wins"] <= 3.44
    table = (tmp_path / "BENCHMARKS.md").read_text()
    assert "| max-entropy (entropy, SALET) | 2315 x 12972 | 100.00 | 3.4324 |" in table
    today = table.split("### Today's game: 3158 answers, 14855 allowed guesses")[1]
    assert (
        "| max-entropy (entropy, SALET), today's game | 3158 x 14855 | 100.00 | 3.5811 |"
    ) in today
    # published figures are the repository's section (benchmarks/report.py)
    assert "(cited)" not in table
    # The gap to perfect play: SALET's own optimum, so all of it is play (3.4324 - 3.4212).
    gap = data["extra"]["optimal_gap"]
    assert (
        gap["opener"] == "salet"
        and gap["opener_cost"] == 0
        and gap["play_cost"] == pytest.approx(26 / 2315)
    )
    assert (
        sum(gap["beyond"].values()) == 2315
        and sum(int(k) * v for k, v in gap["beyond"].items()) == 26
    )
    assert "| max-entropy (entropy, SALET) | SALET | 3.4212 | +0.0000 | +0.0112 |" in table
    assert "Optimal play" not in table  # measured by the optimal agent's rows, no longer cited
    assert (tmp_path / "benchmarks" / "plots" / "guess_distribution.png").stat().st_size > 1000
    bad = wordle_gym_here("bench", "--device", "tpu", "--out", str(tmp_path))
    assert (
        bad.returncode == 2
        and "unknown device 'tpu'" in bad.stderr
        and "Traceback" not in bad.stderr
    )


@pytest.mark.slow
def test_bench__trained_agents_get_a_stage_row_and_a_real_game_row(tmp_path: Path) -> None:
    out = run(
        "-m", "wordle_gym", "bench", "--only", "a2c_1000", "--out", str(tmp_path), "--device", "cpu"
    )
    assert out.returncode == 0, out.stderr
    rows = {
        json.loads(p.read_text())["agent"]: json.loads(p.read_text())
        for p in (tmp_path / "benchmarks" / "results" / "agents").glob("*.json")
    }
    own = next(
        r for name, r in rows.items() if "its training lists (1000 answers x 1000 guesses)" in name
    )
    real = next(r for name, r in rows.items() if "real game (guesses only its 1000 words)" in name)
    assert (own["games"], own["num_allowed"]) == (1000, 1000) and (
        real["games"],
        real["num_allowed"],
    ) == (2315, 12972)
    answers_1000 = set(stage_words("1000")[0])
    assert (
        set(real["openers"]) <= answers_1000
        and set(real["lost_answers"]) >= set(stage_words("2315")[0]) - answers_1000
    )
    table = (tmp_path / "BENCHMARKS.md").read_text()
    real_part, stage_part = table.split("### Training stages (not Wordle results)")
    assert (
        "real game (guesses only its 1000 words)" in real_part
        and ("its training lists") not in real_part
    )
    assert "its training lists" in stage_part


@pytest.mark.slow
def test_bench__an_agent_trained_on_the_real_game_gets_one_real_game_row(tmp_path: Path) -> None:
    """Regression: a full-stage checkpoint got a "training lists" row and a "real game (guesses only
    its 12972 words)" row, the same game twice under two names."""
    only = "a2c_full.pt` (stage"  # not a2c-boards' rows, which play the same file on several boards
    out = run(
        "-m", "wordle_gym", "bench", "--only", only, "--out", str(tmp_path), "--device", "cpu"
    )
    assert out.returncode == 0, out.stderr
    rows = [
        json.loads(p.read_text())
        for p in (tmp_path / "benchmarks" / "results" / "agents").glob("*.json")
    ]
    assert [r["agent"] for r in rows] == ["A2C `a2c_full.pt` (stage full), real game"]
    assert (rows[0]["games"], rows[0]["num_allowed"]) == (2315, 12972)
    # The row says what it learned from and where it trained (the checkpoint records both).
    assert (
        rows[0]["extra"]["learned_from"] == "reward 'win-bonus'"
        and "CPU" in rows[0]["extra"]["machine"]
    )
    table = (tmp_path / "BENCHMARKS.md").read_text()
    assert re.search(r"\| [0-9.]+ h, note 1 \|", table)
    assert re.search(
        r"1\. A2C .*: learned from reward 'win-bonus'; trained [0-9.]+ h \(CPU, [0-9]+ cores", table
    )
    # in the real-game table
    assert "### Training stages" not in table and "A2C `a2c_full.pt`" in table


def test_bench__optimal_rows_are_measured(tmp_path: Path) -> None:
    out = wordle_gym_here("bench", "--only", "optimal", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    table = (tmp_path / "BENCHMARKS.md").read_text()
    assert "| optimal (SALET) | 2315 x 12972 | 100.00 | 3.4212 |" in table
    assert "| optimal (SALET, hard mode) | 2315 x 12972 | 100.00 | 3.5084 |" in table


@pytest.mark.slow
def test_bench__only_repeated_selects_the_rows_matching_any(tmp_path: Path) -> None:
    out = wordle_gym_here(
        "bench", "--only", "optimal (SALET)", "--only", "Remaining", "--out", str(tmp_path)
    )
    assert out.returncode == 0, out.stderr
    rows = [line.split(" | ")[0] for line in (tmp_path / "BENCHMARKS.md").read_text().splitlines()]
    # the text, not a prefix
    assert "| optimal (SALET)" in rows and "| optimal (SALET, hard mode)" not in rows
    assert "| random (remaining candidates)" in rows and not any(
        "A2C" in row or "all words" in row for row in rows
    )
    out = wordle_gym_here("bench", "--only", "zz-1", "--only", "zz-2", "--out", str(tmp_path))
    assert out.returncode == 2 and "--only 'zz-1' --only 'zz-2' matches no agent" in out.stderr


@pytest.mark.slow
def test_bench__folders_sections_prune_and_a_table_it_did_not_write(
    tmp_path: Path, monkeypatch
) -> None:
    """The package's choices are options: where rows, plots and extra sections live, the gap's
    agent; a BENCHMARKS.md someone else wrote is never replaced, and rows are deleted only when
    asked."""
    from wordle_gym.cli import bench

    foreign = tmp_path / "BENCHMARKS.md"
    foreign.write_text("# my notes\n")
    with pytest.raises(ValueError, match="was not written by wordle-gym bench"):
        bench.main(["--only", "remaining candidates", "--out", str(tmp_path)])
    assert foreign.read_text() == "# my notes\n" and not (tmp_path / "benchmarks").exists()
    with pytest.raises(SystemExit):  # --prune deletes every row not written: not with a selection
        bench.main(["--only", "remaining", "--prune", "--out", str(tmp_path / "elsewhere")])
    out, rows = tmp_path / "report", tmp_path / "rows"
    (out / "benchmarks" / "sections").mkdir(parents=True)
    (out / "benchmarks" / "sections" / "b.md").write_text("## Second section\n")
    (out / "benchmarks" / "sections" / "a.md").write_text("## First section\n")
    every = bench.jobs
    monkeypatch.setattr(
        bench, "jobs", lambda models: [(n, r) for n, r in every(models) if "remaining" in r.label]
    )
    options = ["--out", str(out), "--results", str(rows), "--optimal-agent", "none"]
    assert bench.main(options) == 0
    row = json.loads((rows / "random-remaining-candidates.json").read_text())
    (rows / "gone.json").write_text(json.dumps({**row, "agent": "an agent no longer installed"}))
    assert (
        bench.main(options) == 0
        and "an agent no longer installed" in (out / "BENCHMARKS.md").read_text()
    )
    assert bench.main([*options, "--prune"]) == 0  # deleted only when asked
    assert [p.name for p in rows.glob("*.json")] == ["random-remaining-candidates.json"]
    table = (out / "BENCHMARKS.md").read_text()
    assert "random (remaining candidates)" in table and "no longer installed" not in table
    assert "Gap to perfect play" not in table
    assert table.index("## First section") < table.index("## Second section")
    assert "![Guess distribution per agent](benchmarks/plots/guess_distribution.png)" in table


def test_bench_table__rows_with_a_section_go_to_their_own_table() -> None:
    """A row whose agent puts it in a section of its own (``BenchRun.section``: the taught networks)
    goes to that section's table, never among the agents that learned from the reward."""
    from wordle_agents.zoo import TAUGHT
    from wordle_gym.harness.bench_table import agents_section
    from wordle_gym.harness.evaluation import EvalResult

    def row(agent: str, **extra: str) -> dict:
        return EvalResult(
            agent=agent,
            games=2315,
            wins=2315,
            max_guesses=6,
            histogram=[0, 100, 1200, 1015, 0, 0, 0],
            lost_answers=[],
            openers={"salet": 2315},
            wall_time_s=1.0,
            device="cpu",
            num_allowed=12972,
            extra=extra,
        ).to_dict()

    taught = row("A2C taught", learned_from="taught by the exact solver", section=TAUGHT)
    lines = agents_section([row("A2C learned", learned_from="reward 'win-bonus'"), taught])
    text = "\n".join(lines)
    taught_at = text.index("### Taught by a teacher (imitation, not reward)")
    assert text.index("| A2C learned |") < taught_at < text.index("| A2C taught |")
    assert text.count("| A2C taught |") == 1


def test_bench__a_multi_board_row_of_a_one_board_network_is_labelled_and_credited_as_such(
    tmp_path: Path,
) -> None:
    """Regression: dqn-explored's Dordle and Quordle rows were labelled "..., real game" (the
    one-board rows' split by training lists) and their learned-from column lacked "(on one
    board)"."""
    from types import SimpleNamespace

    from wordle_agents.rl.dqn import DQNAgent, DQNConfig
    from wordle_agents.rl.networks import NormalHardPair
    from wordle_gym.harness.bench_table import provenance, settings
    from wordle_gym.harness.registry import playing

    DQNAgent(DQNConfig(hidden=8, layers=1)).save(tmp_path / "q.pt")
    policy = NormalHardPair(tmp_path / "q.pt")
    policy.normal.checkpoint = SimpleNamespace(
        teacher=None, machine="CPU", method=None, method_reward=None, training_s=60.0
    )
    real = SimpleNamespace(
        answers=stage_words("full")[0], allowed=stage_words("full")[1], hard_mode=False
    )
    assert [row[0] for row in settings("Q", policy, real)] == ["Q, real game"]
    assert settings("Q, Dordle", policy, real, boards=2) == [("Q, Dordle", policy, {})]
    assert provenance(playing(policy))["learned_from"] == "reward 'default'"
    assert provenance(playing(policy, boards=2))["learned_from"] == (
        "reward 'default' (on one board)"
    )


def test_bench__a_multi_board_row_says_how_long_its_network_trained() -> None:
    """Regression (issue 44: a learned row names how it learned and how long): the multi-board table
    had no training column, so dqn-explored's Dordle and Quordle rows said what it learned from but
    not for how long."""
    from wordle_gym.harness.bench_table import MULTI_COLUMNS, _multi_row, _trained_rows

    extra = {
        "boards_solved": 1.9,
        "learned_from": "reward 'default' (on one board)",
        "training_s": 9000.0,
    }
    row = {
        "agent": "Q, Dordle",
        "boards": 2,
        "games": 200,
        "histogram": [0, 0, 0, 100, 90, 0, 0, 10],
    }
    row |= {
        "derived": {
            "win_rate": 0.95,
            "mean_guesses_wins": 5.0,
            "mean_guesses_all": 5.15,
            "worst": 7,
        }
    }
    lines = _trained_rows(
        [
            {**row, "wall_time_s": 1.0, "extra": {**extra, "machine": "CPU, 2 cores"}},
            {**row, "agent": "R, Dordle", "wall_time_s": 1.0, "extra": {"boards_solved": 2.0}},
        ],
        _multi_row,
    )
    assert lines[0].endswith("| 2.50 h, note 1 |")
    assert lines[0].count("|") == MULTI_COLUMNS[0].count("|") == MULTI_COLUMNS[1].count("|")
    assert lines[1].endswith("| 1.00 s |  |")  # nothing learned: no note
    assert lines[-1] == (
        "1. Q, Dordle: learned from reward 'default' (on one board); trained 2.50 h (CPU, 2 cores)."
    )


def test_provenance__names_an_improvement_after_the_reward_training() -> None:
    """Weights improved by their own rollouts say so, with the rollouts' reward; they stay
    reward-learned."""
    from types import SimpleNamespace

    agent = A2CAgent(A2CConfig(hidden=8))
    agent.checkpoint = SimpleNamespace(
        teacher=None,
        machine="CPU",
        method="own-policy rollouts",
        method_reward="default",
        training_s=None,
    )
    assert agent.provenance["learned_from"] == (
        "reward 'win-bonus', then own-policy rollouts on reward 'default'"
    )


PLUGINS = """
import sys
from wordle_gym.harness.registry import BenchRun


class Oracle:
    def act(self, observations, action_masks, env):
        return env.game.answer_actions[env.state.answers]


class NeedsExtra:
    def __init__(self):
        raise ImportError("No module named 'sb3_contrib': pip install '.[sb3]'")


class Raising:
    def __init__(self):
        raise RuntimeError("broken plugin")


class BadRuns(Oracle):
    @staticmethod
    def bench_runs():
        return "not a list"


class RaisingRuns(Oracle):
    @staticmethod
    def bench_runs():
        raise RuntimeError("no rows today")


class Failing:
    def act(self, observations, action_masks, env):
        raise ValueError("act failed")
"""


@pytest.mark.slow
def test_bench_and_agents__survive_broken_plugins(tmp_path: Path) -> None:
    env = fake_distribution(
        tmp_path,
        {
            "zz-oracle": "fake_agents:Oracle",
            "zz-needs-extra": "fake_agents:NeedsExtra",
            "zz-raising": "fake_agents:Raising",
            "zz-bad-runs": "fake_agents:BadRuns",
            "zz-raising-runs": "fake_agents:RaisingRuns",
            "zz-failing": "fake_agents:Failing",
            "zz-exits": "fake_exit:Agent",
        },
    )
    (tmp_path / "fake_agents.py").write_text(PLUGINS)
    (tmp_path / "fake_exit.py").write_text("import sys\nsys.exit(3)\n")
    listing = run_with(["-m", "wordle_gym", "agents"], env)
    assert listing.returncode == 0, listing.stderr
    assert (
        "zz-exits" in listing.stdout
        and "zz-oracle" in listing.stdout
        and "max-entropy" in listing.stdout
    )
    out = run_with(
        [
            "-m",
            "wordle_gym",
            "bench",
            "--only",
            "zz-",
            "--out",
            str(tmp_path / "out"),
            "--device",
            "cpu",
        ],
        env,
    )
    assert out.returncode == 0, out.stderr
    assert "| zz-oracle |" in out.stdout
    for name in (
        "zz-needs-extra",
        "zz-raising",
        "zz-bad-runs",
        "zz-raising-runs",
        "zz-failing",
        "zz-exits",
    ):
        assert any(name in line and "skipped" in line for line in out.stdout.splitlines()), (
            name,
            out.stdout,
        )
    assert "sb3_contrib" in out.stdout and (tmp_path / "out" / "BENCHMARKS.md").is_file()
    out = run_with(["-m", "wordle_gym", "eval", "--agent", "zz-raising", "--answers", "nyt"], env)
    assert out.returncode == 2 and "failed to start: RuntimeError: broken plugin" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_bench__multi_board_rows_get_a_table_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The greedy solver's rows for K = 2..32 boards (issue 44): the first N games of each standard
    set, in the multi-board table, not among the real game's rows nor the training stages."""
    from wordle_agents.zoo import AGENTS, MULTI_BOARD_BENCH
    from wordle_gym.cli import bench

    rows = [r for r in AGENTS["max-entropy"].rows if r.env.get("boards", 1) > 1]
    assert {r.env["boards"]: r.env["games"] for r in rows} == MULTI_BOARD_BENCH
    # Quordle: the whole set
    assert set(MULTI_BOARD_BENCH) == {2, 4, 8, 16, 32} and MULTI_BOARD_BENCH[4] == 2000
    every = bench.jobs
    small = lambda models: [  # noqa: E731
        (n, r._replace(env={**r.env, "games": 30}))
        for n, r in every(models)
        if "Dordle" in r.label or r is rows[1]
    ]
    monkeypatch.setattr(bench, "jobs", small)
    assert bench.main(["--out", str(tmp_path), "--optimal-agent", "none"]) == 0
    table = (tmp_path / "BENCHMARKS.md").read_text()
    multi = table[table.index("### Multi-board Wordle") :]
    assert "| max-entropy, Dordle (from SALET) | 2 | 30 | 100.00 |" in multi
    assert "| max-entropy, Quordle (from SALET) | 4 | 30 | 100.00 |" in multi
    assert multi.index("Dordle") < multi.index("Quordle") and "Training stages" not in table
    real = table[table.index("### The real game") : table.index("### Multi-board Wordle")]
    assert "Dordle" not in real and "Quordle" not in real
    data = json.loads(
        (tmp_path / "benchmarks/results/agents/max-entropy-quordle-from-salet.json").read_text()
    )
    assert (data["boards"], data["games"], data["extra"]["boards_solved"]) == (4, 30, 4.0)
    # Issue 65: the plot had no multi-board rows; they have a figure of their own, linked from the
    # table.
    assert (tmp_path / "benchmarks" / "plots" / "multi_board.png").stat().st_size > 1000
    assert "![Multi-board rows](benchmarks/plots/multi_board.png)" in table


def test_bench__rows_an_install_lacks_are_named_and_the_rest_go_on(
    tmp_path: Path, monkeypatch
) -> None:
    """Issue 65: an install's bench had 8 rows fewer than BENCHMARKS.md, silently (the curriculum's
    intermediate weights are not in the wheel). Their rows stay declared, and a missing file's row
    is named as skipped."""
    from wordle_agents.common.checkpoint import shipped_dir
    from wordle_agents.zoo import AGENTS
    from wordle_gym.cli import bench
    from wordle_gym.harness.registry import BenchRun

    labels = [run.label for run in AGENTS["a2c"].rows]
    assert any("a2c_1000.pt" in label for label in labels) and any(
        "a2c_2315.pt" in label for label in labels
    )
    gone = BenchRun(
        "A2C `a2c_0.pt` (stage 0)", {"checkpoint": str(shipped_dir() / "training" / "a2c_0.pt")}
    )
    # Issue 75: dqn-explored's row of a run's network printed a raw "checkpoint ... does not exist"
    root = BenchRun(
        "DQN `dqn_0.pt` (stage full)", {"checkpoint": str(shipped_dir() / "training" / "dqn_0.pt")}
    )
    small = {"answers": stage_words("20")[0], "allowed": None, "action_mask": "candidates"}
    floor = BenchRun("random (remaining candidates)", {"seed": 0}, small)
    monkeypatch.setattr(
        bench, "jobs", lambda models: [("a2c", gone), ("dqn-explored", root), ("random", floor)]
    )
    out = wordle_gym_here("bench", "--out", str(tmp_path), "--optimal-agent", "none")
    assert out.returncode == 0, out.stderr
    assert (
        "skipped A2C `a2c_0.pt` (stage 0): agent 'a2c': a2c_0.pt is not in this install"
    ) in out.stdout
    assert (
        "agent 'dqn-explored': dqn_0.pt is not in this install" in out.stdout
        and "does not exist" not in out.stdout
    )
    assert "| random (remaining candidates) | 20 x 20 |" in (tmp_path / "BENCHMARKS.md").read_text()


def test_bench__rows_of_the_repositorys_own_weights_are_marked() -> None:
    """Issue 75: BENCHMARKS.md had rows an installed bench skips, unmarked; they are marked † and
    the table says why."""
    from wordle_gym.harness.bench_table import REPOSITORY_ONLY, agents_section

    row = json.loads(
        (ROOT / "benchmarks/results/agents/dqn-dqn-root-pt-stage-full-real-game.json").read_text()
    )
    assert row["extra"]["repository_only"]
    text = "\n".join(agents_section([row]))
    assert "real game † |" in text and REPOSITORY_ONLY in text


@pytest.mark.slow
def test_bench__shows_the_rows_done_on_a_terminal(tmp_path: Path) -> None:
    """Issue 65: ``wordle-gym bench`` showed no overall progress (a Quordle row printed nothing for
    minutes); on a terminal a bar counts the rows done (and the time left), the rows still print as
    they come."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios

    from tests.helpers.processes import ROOT

    leader, follower = pty.openpty()
    # a 120-column terminal
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    command = [
        sys.executable,
        "-m",
        "wordle_gym",
        "bench",
        "--only",
        "random (",
        "--out",
        str(tmp_path),
    ]
    command += ["--optimal-agent", "none"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=follower, env=env, text=True)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        shown += chunk
    stdout = process.communicate(timeout=300)[0]
    os.close(leader)
    assert process.returncode == 0
    assert "bench: 100%" in shown.decode(errors="replace") and "2/2" in shown.decode(
        errors="replace"
    )
    assert stdout.count("| random (") == 2


def test_sb3_policy__plays_with_the_mask_its_zip_records(tmp_path: Path) -> None:
    """Regression (issue 65): a MaskablePPO trained with the candidates mask was evaluated by
    ``wordle-gym eval`` with mask "all" (0.17 % where the harness with its mask gave 99.35 %). The
    zip records the mask, and the loaded policy plays among the candidates whatever the env's mask:
    the same games as with that mask."""
    from wordle_agents.rl.sb3_policies import save_model

    answers, allowed = stage_words("20")
    venv = make_sb3_vec_env(
        num_envs=8, device="cpu", answers=answers, allowed=allowed, action_mask="candidates"
    )
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=64, seed=3, device="cpu")
    save_model(
        model,
        tmp_path / "m.zip",
        stage="20",
        answers=answers,
        allowed=allowed,
        action_mask="candidates",
    )
    loaded = SB3Policy.load(tmp_path / "m.zip")
    assert loaded.trained_mask == "candidates"
    game = {"answers": answers, "allowed": allowed, "device": "cpu", "progress": False}
    wide = evaluate(loaded, action_mask="all", **game)
    own = evaluate(loaded, action_mask="candidates", **game)
    assert wide.histogram == own.histogram and wide.win_rate == 1.0
    unaware = evaluate(SB3Policy(model), action_mask="all", **game)  # what eval did before
    assert unaware.histogram != own.histogram


@pytest.mark.slow  # two real-game rows: about 20 s
def test_bench__the_first_row_is_timed_warm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """First hour 4, item 7: the first bench row carried the process's start-up (a2c_full 12.07 s
    cold, 2.09 s for the next). One untimed game of 32 answers warms the process first."""
    import wordle_gym.cli.bench as bench

    played: list[tuple[int | None, bool]] = []
    evaluate = bench.evaluate

    def counted(policy, **options):  # type: ignore[no-untyped-def]
        answers = options.get("answers")
        played.append((None if answers is None else len(answers), options.get("progress") is None))
        return evaluate(policy, **options)

    monkeypatch.setattr(bench, "evaluate", counted)
    assert (
        bench.main(["--only", "random (", "--optimal-agent", "none", "--out", str(tmp_path)]) == 0
    )
    assert played == [(32, False), (None, True), (None, True)]  # the warm-up, then both rows


def test_multi_board_plot__every_label_inside_its_panel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """First hour 4, item 7: in ``multi_board.png`` the "100.0" labels touched the frame and "33.82"
    ran past its panel. Drawn as the bench draws it, every number lies inside its panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from wordle_gym.cli import bench

    rows = [
        {"agent": f"agent {k}", "boards": k, "derived": {"win_rate": rate, "mean_guesses_wins": m}}
        for k, rate, m in ((2, 1.0, 6.1), (4, 0.998, 9.3), (16, 0.7, 22.4), (32, 0.05, 33.82))
    ]
    drawn = []
    monkeypatch.setattr(bench, "_save", lambda plt_, fig, path: drawn.append(fig))
    bench._multi_board(plt, rows, tmp_path / "multi_board.png")
    (fig,) = drawn
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = 0
    for ax in fig.axes:
        frame = ax.get_window_extent(renderer)
        for text in ax.texts:
            box = text.get_window_extent(renderer)
            assert frame.x0 <= box.x0 and box.x1 <= frame.x1, (text.get_text(), box, frame)
            labels += 1
    assert labels == 8
    plt.close(fig)
