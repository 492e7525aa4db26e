"""The table of opener values as Ray tasks (issue 85, goal 4): a local Ray instance gives the table
one process gives, batch by batch, the costliest first, merged under the table's lock. Ray is not a
dependency: CI runs this file in the Ray venv (``.ci/run``), where it is installed; each test runs
Ray in a process of its own (a Ray instance inside a pytest-xdist worker takes the worker down)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers.processes import ROOT

pytestmark = pytest.mark.slow


def _run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_AUTH_MODE": "disabled"}
    env["OMP_NUM_THREADS"] = "1"
    command = [sys.executable, "-c", textwrap.dedent(code), *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


def test_opener_values__ray_tasks_give_one_processs_table(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    out = _run(
        """
    import sys
    from pathlib import Path
    import ray
    from tests.helpers.lists import small_lists
    from wordle_gym.solver import tasks
    from wordle_gym.solver.opener_tables import read_opener_values
    from wordle_gym.solver.tasks import opener_values
    from wordle_gym.core.config import WordleConfig

    answers, allowed = small_lists(4, 30, 90)
    config = WordleConfig(answers=answers, allowed=allowed)
    folder = Path(sys.argv[1])
    here = opener_values(config, allowed, folder / "here.json", progress=False)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    there = folder / "there.json"
    there = tasks.opener_values_on_ray(config, allowed, there, progress=False)
    assert there == here, (there, here)
    a = read_opener_values(folder / "here.json", config.vocabulary, False, 6, strict=True)
    b = read_opener_values(folder / "there.json", config.vocabulary, False, 6, strict=True)
    assert a == b  # the children and the first opener's guess fewer too
    # continued: nothing left to value, no task
    assert tasks.opener_values_on_ray(config, allowed, folder / "there.json") == here
    print("same on Ray")
    """,
        str(tmp_path),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "same on Ray" in out.stdout


def test_command__values_on_ray(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    out = _run(
        """
    import sys
    from pathlib import Path
    from tests.helpers.lists import small_lists
    from wordle_agents.commands.optimal import main
    from wordle_gym.solver.opener_tables import read_opener_values
    from wordle_gym.solver.oracle import Oracle
    from wordle_gym.core.config import WordleConfig

    answers, allowed = small_lists(5, 30, 90)
    folder = Path(sys.argv[1])
    (folder / "a.txt").write_text("\\n".join(answers) + "\\n")
    (folder / "g.txt").write_text("\\n".join(allowed) + "\\n")
    lists = ["--answers", str(folder / "a.txt"), "--allowed", str(folder / "g.txt"), "--quiet"]
    save = folder / "v.json"
    argv = ["--values", "allowed", "--first-move-only", "--ray", "--save", str(save), *lists]
    assert main(argv) == 0
    config = WordleConfig(answers=answers, allowed=allowed)
    table = read_opener_values(save, config.vocabulary, False, 6, strict=True)
    searched = Oracle(config, root_opener=None)
    assert len(table.values) == 90 and all(
        t == searched._q_total(searched.start(), searched.vocab.action(w))
        for w, t in table.values.items()
    )
    assert main([*argv, "--part", "1/2"]) == 2  # one or the other
    print("ray command")
    """,
        str(tmp_path),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "ray command" in out.stdout and "Started a local Ray instance" in out.stderr
