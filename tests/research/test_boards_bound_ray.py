"""The every-opener Dordle bound on Ray (issue 44: a search that outgrows one machine runs on Ray's
engine, not on a hand-made pool): a local Ray instance gives the counts one machine gives. Ray is
not a dependency: CI runs this file in the Ray venv (``.ci/run``), where it is installed. Each test
runs Ray in a process of its own (a Ray instance inside a pytest-xdist worker takes the worker
down)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers.processes import ROOT

# The lab's tests run with the slow suite (CI runs both): the product's suite stays fast.
pytestmark = pytest.mark.slow

LISTS = """
    from wordle_gym.core.words import Vocabulary
    answers = list(Vocabulary().answers[:80])
    vocab = Vocabulary(answers, sorted({*answers, *Vocabulary().allowed[:150]}))
"""


def _run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "RAY_AUTH_MODE": "disabled",
        "OMP_NUM_THREADS": "1",
    }
    command = [sys.executable, "-c", textwrap.dedent(code), *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_dordle_openers__ray_tasks_give_one_machines_counts_and_resume(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    out = _run(
        LISTS
        + """
    import sys
    from pathlib import Path
    import ray
    from research.dordle_search import dordle_openers

    made = []  # the functions made Ray tasks
    remote = ray.remote
    def spy(*args, **kwargs):
        wrap = remote(*args, **kwargs)
        return lambda f: (made.append(f.__name__), wrap(f))[1]
    ray.remote = spy

    counted = dordle_openers(vocab)
    floors = sorted(5 - sum(c) / counted["pairs"] for c in counted["counts"].values())
    cut = floors[12]  # a dozen openers refined
    bounds = {"refine_below": cut, "search_below": cut}  # and those still below searched
    here = dordle_openers(vocab, **bounds)
    assert 0 < len(here["refined"]) < len(vocab.allowed) and here["finished"] and not made
    assert 0 < len(here["searched"]) <= len(here["refined"])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    there = dordle_openers(vocab, **bounds, use_ray=True)
    # the count pass, the refinement, the search
    assert there == here and made == ["bound_openers"] * 3, made
    journal = Path(sys.argv[1])  # stopped after the first task's openers, then continued
    row = dordle_openers(vocab, journal, max_minutes=1e-9, **bounds, use_ray=True)
    assert not row["finished"] and 0 < len(row["counts"]) < len(vocab.allowed)
    while not row["finished"]:
        row = dordle_openers(vocab, journal, max_minutes=1e-9, **bounds, use_ray=True)
    assert row == here
    print("same on Ray", len(here["refined"]), len(here["searched"]))
    """,
        str(tmp_path / "journal.json"),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "same on Ray" in out.stdout


def test_command__all_openers_on_ray(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    out = _run(
        LISTS
        + """
    import sys
    from pathlib import Path
    from research.dordle_search import dordle_openers
    Path(sys.argv[1], "a.txt").write_text("\\n".join(vocab.answers) + "\\n")
    Path(sys.argv[1], "g.txt").write_text("\\n".join(vocab.allowed) + "\\n")
    print(f"{dordle_openers(vocab)['lower_bound']:.4f}")
    """,
        str(tmp_path),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    bound = out.stdout.split()[-1]
    lists = ["--answers", str(tmp_path / "a.txt"), "--allowed", str(tmp_path / "g.txt"), "--quiet"]
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "RAY_AUTH_MODE": "disabled",
        "OMP_NUM_THREADS": "1",
    }
    command = [sys.executable, "-m", "research.boards_bound", "--all-openers", "--ray", *lists]
    out = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"proven lower bound on the optimal mean count: {bound}" in out.stdout
    assert "Started a local Ray instance" in out.stderr  # it ran on Ray
