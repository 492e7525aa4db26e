"""Files and faults: atomic outputs, leftovers, permissions, locks, logs that survive a kill."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wordle_agents.common.training import main
from wordle_agents.rl.a2c import TRAINING
from wordle_gym.cli.bench import Layout, render
from wordle_gym.core.files import atomic_write, atomic_write_text, check_writable, clean_stale_temporaries, folder_lock

TINY_RUN = [
    "--stages",
    "10",
    "--iterations",
    "4",
    "--eval-every",
    "2",
    "--checkpoint-every",
    "1",
    "--device",
    "cpu",
    "--hidden",
    "16",
    "--batch-games",
    "8",
]


def test_atomic_write__a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "plot.png"
    target.write_bytes(b"old")

    def half_then_fail(handle) -> None:  # e.g. savefig killed by an error half-way
        handle.write(b"half a png")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write(target, half_then_fail)
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["plot.png"]


def test_atomic_write__leftovers_of_killed_writers_are_removed(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".BENCHMARKS.md.{int(dead.stdout)}.0123abcd.tmp"
    mine = tmp_path / f".other.{os.getpid()}.89abcdef.tmp"  # a live writer's: kept
    stale.write_text("x")
    mine.write_text("x")
    atomic_write_text(tmp_path / "BENCHMARKS.md", "table\n")
    assert not stale.exists() and mine.exists() and (tmp_path / "BENCHMARKS.md").read_text() == "table\n"
    assert clean_stale_temporaries(tmp_path) == []


def test_atomic_write__long_names_and_the_umask(tmp_path: Path) -> None:
    name = "r" * 250 + ".json"  # valid (255 bytes); a temporary name built from it would not be
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / name, "{}\n")
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o644
        os.umask(0o077)
        atomic_write_text(tmp_path / "private.json", "{}\n")
        assert (tmp_path / "private.json").stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)


def test_check_writable__refuses_what_cannot_be_written(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is a file; expected a folder"):
        check_writable(tmp_path / "file", folder=True)
    with pytest.raises(ValueError, match="the name is too long"):
        check_writable(tmp_path / ("x" * 300))
    with pytest.raises(ValueError, match="cannot write '/proc/wordle/x.json'"):
        check_writable("/proc/wordle/x.json")  # read-only even for root
    assert check_writable(tmp_path / "new" / "folder", folder=True).is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "new"]  # no probe left behind


def test_training__resume_drops_log_rows_written_after_the_checkpoint(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert main(TRAINING, [*TINY_RUN, "--run-dir", str(run_dir), "--iterations", "2"]) == 0
    rows = (run_dir / "metrics.jsonl").read_text().splitlines()
    with (run_dir / "metrics.jsonl").open("a") as log:  # a row logged, then killed before last.pt
        log.write(json.dumps({"stage": "10", "iteration": 99}) + "\n")
    assert main(TRAINING, [*TINY_RUN, "--run-dir", str(run_dir), "--stages", "10,20", "--iterations", "2,2"]) == 0
    after = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in after][: len(rows)] == [json.loads(r)["iteration"] for r in rows]
    assert all(r["iteration"] != 99 for r in after) and [r["stage"] for r in after][-1] == "20"


def test_training__a_second_training_in_the_same_folder_is_refused(tmp_path: Path, capsys) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    with folder_lock(run_dir, "training"):
        assert main(TRAINING, [*TINY_RUN, "--run-dir", str(run_dir)]) == 2
    assert f"'{run_dir}' is in use by another training (pid {os.getpid()})" in capsys.readouterr().err
    assert not (run_dir / "metrics.jsonl").exists()
    assert main(TRAINING, [*TINY_RUN, "--run-dir", str(run_dir)]) == 0  # the lock goes with its holder


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not a wordle-gym result (Expecting property name"),
        (json.dumps({"agent": "x"}), "missing 8 required positional arguments"),
        (
            json.dumps(
                {
                    "agent": "x",
                    "games": 0,
                    "wins": 0,
                    "max_guesses": 6,
                    "histogram": [0] * 7,
                    "lost_answers": [],
                    "openers": {},
                    "wall_time_s": 1.0,
                    "device": "cpu",
                }
            ),
            "a result needs at least one game",
        ),
    ],
)
def test_report__bad_results_json_names_the_file(tmp_path: Path, content: str, message: str) -> None:
    agents = tmp_path / "benchmarks" / "results" / "agents"
    agents.mkdir(parents=True)
    (agents / "broken.json").write_text(content)
    with pytest.raises(ValueError, match="broken.json: not a wordle-gym result") as info:
        render(Layout.under(tmp_path))
    assert message in str(info.value)
    assert not (tmp_path / "BENCHMARKS.md").exists()


def test_training_log__win_rate_is_the_greedy_evaluation(tmp_path: Path) -> None:
    """Regression: the training batch's stats used to overwrite the evaluation's win_rate in the log."""
    run_dir = tmp_path / "run"
    argv = [*TINY_RUN, "--run-dir", str(run_dir), "--batch-games", "3", "--iterations", "6", "--eval-every", "1"]
    assert main(TRAINING, argv) == 0
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all("train_win_rate" in r and "train_loss" in r for r in rows)
    assert all(abs(10 * r["win_rate"] - round(10 * r["win_rate"])) < 1e-9 for r in rows)  # k of the 10 answers
    import torch

    best = torch.load(run_dir / "best_10.pt", weights_only=True)["figures"]
    assert best["win_rate"] == max(r["win_rate"] for r in rows)
