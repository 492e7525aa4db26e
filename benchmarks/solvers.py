"""The greedy solver family and the exact optimal solver on the full original lists
(2315 answers, 12972 guesses).

    python -m benchmarks.solvers [--device cpu|cuda|auto] [--quick]

Every scoring rule with the openers SALET, SOARE, TARES, CRANE and the solver's own, plus
hard mode, and the cold-start time of a whole evaluation in a fresh process (Python and torch
start-up, building the pattern table, as on a fresh machine, and the opener computation included).
The exact solver proves the optimal SALET trees, normal and hard mode, each doing the work of
``python -m wordle_agents.optimal salet [--hard]`` (solve, then replay every answer) in a fresh
process: once cold (numba compiles its kernel and the pattern table is built, both then kept on disk),
then warm, best of two. Writes
``benchmarks/results/solvers_<device>.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from tqdm import tqdm

from benchmarks.common import parse_args, run_fresh, save
from wordle_agents.solvers.max_entropy import SCORES, MaxEntropySolver
from wordle_gym.core.rules import pattern_table
from wordle_gym.core.words import Vocabulary
from wordle_gym.harness.evaluation import evaluate

ROOT = Path(__file__).resolve().parent.parent
OPENERS = ["salet", "soare", "tares", "crane", None]

COLD_START = """
import json
from wordle_gym.harness.evaluation import evaluate
from wordle_agents.solvers.max_entropy import MaxEntropySolver
r = evaluate(MaxEntropySolver(opener={opener!r}), device={device!r}, progress=False)
print(json.dumps({{"eval_s": r.wall_time_s, "mean": r.mean_guesses_wins, "wins": r.wins}}))
"""


def cold_start(opener: str | None, device: str) -> dict:
    with tempfile.TemporaryDirectory() as empty:  # as on a fresh machine: the pattern table is built
        data, seconds = run_fresh(
            COLD_START.format(opener=opener, device=device), cwd=ROOT, extra_env={"WORDLE_GYM_CACHE": empty}
        )
    return {**data, "process_s": seconds, "opener": opener or "computed"}


EXACT = """
import json, time
start = time.perf_counter()
from wordle_agents.solvers.optimal import solve
from wordle_gym.core.words import Vocabulary
imported = time.perf_counter()
vocab = Vocabulary()
listed = time.perf_counter()
tree = solve(vocab, "salet", {hard}, progress=False)
solved = time.perf_counter()
used = tree.play(vocab)
print(json.dumps({{"total": tree.total, "mean": tree.mean, "max": int(used.max()), "solved": int((used > 0).sum()),
                  "nodes": tree.nodes_searched, "in_process_s": time.perf_counter() - start,
                  "phases_s": {{"imports": imported - start, "lists": listed - imported, **tree.seconds,
                               "replay": time.perf_counter() - solved}}}}))
"""


def exact(hard: bool, repeats: int) -> dict:
    """The exact SALET solve in fresh processes: the first (cold: no compiled kernel, no pattern table on
    disk) and the best warm one."""
    from wordle_agents.solvers import _optimal_kernel

    for stale in Path(_optimal_kernel.__file__).parent.glob("__pycache__/_optimal_kernel*.nb[ci]"):
        stale.unlink()  # so the first run below really is cold
    runs = []
    with tempfile.TemporaryDirectory() as cache:  # empty for the cold run: the pattern table is built and kept
        for _ in range(1 + repeats):
            data, seconds = run_fresh(EXACT.format(hard=hard), cwd=ROOT, extra_env={"WORDLE_GYM_CACHE": cache})
            runs.append({**data, "process_s": seconds})
    best = min(runs[1:], key=lambda r: r["process_s"]) if repeats else runs[0]
    return {"hard_mode": hard, **best, "cold_process_s": runs[0]["process_s"]}


def main() -> None:
    args, device, result = parse_args(__doc__, "one rule, two openers (a smoke run)")
    scores, openers = (["entropy"], ["salet", None]) if args.quick else (SCORES, OPENERS)
    runs = [(s, o, False) for s in scores for o in openers] + [("entropy", o, True) for o in ("salet", None)]
    result["cold_start"] = [cold_start(o, device.type) for o in ("salet", None)]
    result["exact"] = [exact(hard, 1 if args.quick else 2) for hard in (False, True)]
    pattern_table(Vocabulary(), device)  # built once here, so every row below is a warm evaluation
    rows = []
    for score, opener, hard in tqdm(runs, desc="solvers", unit="run"):
        r = evaluate(MaxEntropySolver(score=score, opener=opener), device=device, hard_mode=hard, progress=False)
        rows.append(
            {
                "score": score,
                "opener": next(iter(r.openers)),
                "fixed_opener": opener is not None,
                "hard_mode": hard,
                "result": r.to_dict(),
            }
        )
    result["runs"] = rows
    save("solvers", result)


if __name__ == "__main__":
    main()
