"""The exact solver's whole command beside the C++ it is measured against and the code before, in
one run.

    python -m benchmarks.exact [--cpp BINARY] [--before PATH] [--rounds 3] [--openers W,W,...]

``python -m wordle_agents.commands.optimal salet [--hard]`` in a fresh process (this checkout, and
with ``--before`` an older checkout: ``git worktree add PATH COMMIT``), and with ``--cpp``
alex1770/wordle's solver on the same lists (``wordle -w salet -a allowed -h answers [-H]``; build it
with ``make`` in a checkout of that repository), alternating, best of ``--rounds``; then where this
checkout's process spends its time; then the search of each of ``--openers``' first-move total (what
the table of opener values is made of: every first-move group on one thread, a loss counted as the
limit + 1), this checkout and ``--before`` in fresh processes, alternating. Writes
``benchmarks/results/exact_cpu.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from benchmarks.common import describe, run_fresh, save
from wordle_gym.core.words import Vocabulary

ROOT = Path(__file__).resolve().parent.parent
# This checkout's command, timed in phases (the same work as the command's own process: numba's
# array support without scipy's BLAS, solve, replay every answer, no interpreter teardown).
PHASED = """
import json, os, sys, time
start = time.perf_counter()
from wordle_agents.commands.optimal import _numba_without_blas
from wordle_gym.solver.search import solve
from wordle_gym.core.words import Vocabulary
_numba_without_blas()
imported = time.perf_counter()
vocab = Vocabulary()
listed = time.perf_counter()
tree = solve(vocab, "salet", {hard}, progress=False)
solved = time.perf_counter()
used = tree.play(vocab)
phases = {{"imports": imported - start, "lists": listed - imported, **tree.seconds,
          "replay": time.perf_counter() - solved}}
print(json.dumps({{"total": tree.total, "mean": tree.mean, "max": int(used.max()),
                  "solved": int((used > 0).sum()), "nodes": tree.nodes_searched,
                  "in_process_s": time.perf_counter() - start,
                  "torch_imported": "torch" in sys.modules, "phases_s": phases}}))
sys.stdout.flush()
os._exit(0)
"""
# One opener's first-move total, as the table of opener values searches it (losses counted).
OPENER = """
import json, sys, time
import numpy as np
from wordle_gym.core.words import Vocabulary
from wordle_gym.solver.search import _Search
vocab = Vocabulary()
search = _Search(vocab, False, 6, lose=True)
first = vocab.action(sys.argv[1])
cache, stats = search.new_cache(), np.zeros(1, dtype=np.int64)
members = np.arange(vocab.num_answers, dtype=np.int32)
start = time.perf_counter()
total = vocab.num_answers
for p, group in search.buckets(first, members):
    if p != search.solved:
        green, need = search.child_constraint(first, p, *search.root())
        total += search.value(group, 5, green, need, cache, stats)
print(json.dumps({"total": total, "nodes": int(stats[0]), "search_s": time.perf_counter() - start}))
"""
SIX = "widen,aarti,wharf,weave,whoop,woozy"
"""The six openers issue 85 measured (their largest groups take most of the time)."""
_REPORT = re.compile(r"(\d+) guesses over .*?; ([\d,]+) nodes searched")


def _timed(command: list[str], env: dict[str, str], cwd: str) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    seconds = time.perf_counter() - start
    if out.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{out.stderr[-2000:]}")
    return seconds, out.stdout


def _python_env(before: str | None, links: Path) -> dict[str, str]:
    """This checkout's installed packages, or the older checkout first on the path
    (``wordle_agents`` is its ``agents`` folder: a link in ``links`` names it)."""
    env = dict(os.environ)
    if before:
        (links / "wordle_agents").symlink_to(Path(before, "agents").resolve())
        env["PYTHONPATH"] = os.pathsep.join([before, str(links)])
    return env


def _cold(hard: bool) -> float:
    """This checkout's phased command as on a fresh machine: numba compiles the kernel, the table is
    built."""
    from wordle_gym.solver import _kernel

    for stale in Path(_kernel.__file__).parent.glob("__pycache__/_kernel*.nb[ci]"):
        stale.unlink()
    with tempfile.TemporaryDirectory() as cache:
        return run_fresh(PHASED.format(hard=hard), cwd=ROOT, extra_env={"WORDLE_GYM_CACHE": cache})[
            1
        ]


def _openers(words: list[str], contenders: dict[str, dict[str, str]], cwd: str) -> list[dict]:
    """Each opener's first-move search in a fresh process of each contender, alternating: its
    search time, nodes and total (the same in every contender)."""
    rows = []
    for word in words:
        found = {}
        for name, env in contenders.items():
            _, out = _timed([sys.executable, "-c", OPENER, word], env, cwd)
            found[name] = json.loads(out.strip().splitlines()[-1])
        totals = {f["total"] for f in found.values()}
        assert len(totals) == 1, (word, found)
        rows.append({"opener": word, "total": totals.pop(), "by": found})
        print(word, json.dumps(found))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cpp", help="alex1770/wordle's built solver (the `wordle` binary)")
    parser.add_argument("--before", help="an older checkout of this repository, timed side by side")
    parser.add_argument(
        "--rounds", type=int, default=3, help="fresh processes per contender and mode (best kept)"
    )
    parser.add_argument(
        "--openers", default=SIX, help=f"openers whose first-move totals are timed (default {SIX})"
    )
    args = parser.parse_args()
    vocab = Vocabulary()
    with tempfile.TemporaryDirectory() as tmp:
        lists = Path(tmp)
        (lists / "answers").write_text("\n".join(vocab.answers) + "\n")
        (lists / "allowed").write_text("\n".join(vocab.allowed) + "\n")
        (lists / "links").mkdir()
        contenders = {"this checkout": _python_env(None, lists)}
        if args.before:
            contenders["before"] = _python_env(args.before, lists / "links")
        rows = []
        for hard in (False, True):
            cold = _cold(hard)
            flag = ["--hard"] if hard else []
            times: dict[str, list[float]] = {name: [] for name in contenders}
            nodes: dict[str, int] = {}
            if args.cpp:
                times["C++"] = []
            # each checkout's kernel loaded from numba's cache from here on
            for env in contenders.values():
                _timed(
                    [sys.executable, "-m", "wordle_agents.commands.optimal", "salet", *flag],
                    env,
                    tmp,
                )
            for _ in range(args.rounds):
                for name, env in contenders.items():
                    command = [
                        sys.executable,
                        "-m",
                        "wordle_agents.commands.optimal",
                        "salet",
                        *flag,
                    ]
                    seconds, out = _timed(command, env, tmp)
                    total, searched = _REPORT.search(out).groups()
                    assert int(total) == (8122 if hard else 7920), out
                    times[name].append(seconds)
                    nodes[name] = int(searched.replace(",", ""))
                if args.cpp:
                    cpp = [
                        args.cpp,
                        "-w",
                        "salet",
                        "-a",
                        "allowed",
                        "-h",
                        "answers",
                        *(["-H"] if hard else []),
                    ]
                    times["C++"].append(_timed(cpp, dict(os.environ), tmp)[0])
            phases, process_s = run_fresh(PHASED.format(hard=hard), cwd=ROOT)
            rows.append(
                {
                    "hard_mode": hard,
                    "best_s": {name: min(t) for name, t in times.items()},
                    "nodes": nodes,
                    "phased": {**phases, "process_s": process_s},
                    "cold_process_s": cold,
                }
            )
            print(json.dumps(rows[-1]["best_s"]))
        openers = _openers(args.openers.split(","), contenders, tmp)
    before = None
    if args.before:
        log = ["git", "-C", args.before, "log", "-1", "--format=%h"]
        before = subprocess.run(log, capture_output=True, text=True, check=False).stdout.strip()
    result = {
        "device": "cpu",
        "machine": describe(torch.device("cpu")),
        "date": time.strftime("%Y-%m-%d"),
        "rounds": args.rounds,
        "before": before,
        "cpp": "alex1770/wordle" if args.cpp else None,
        "modes": rows,
        "openers": openers,
    }
    save("exact", result)


if __name__ == "__main__":
    main()
