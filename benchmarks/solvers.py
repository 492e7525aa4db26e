"""The greedy solver family and the exact optimal solver on the full original lists
(2315 answers, 12972 guesses).

    python -m benchmarks.solvers [--device cpu|cuda|auto] [--quick]

Every scoring rule with the openers SALET, SOARE, TARES, CRANE and the solver's own, plus
hard mode, and the cold-start time of a whole evaluation in a fresh process (Python and torch
start-up, building the pattern table, as on a fresh machine, and the opener computation included).
The exact solver is timed by :mod:`benchmarks.exact`. Writes
``benchmarks/results/solvers_<device>.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from tqdm import tqdm

from benchmarks.common import parse_args, run_fresh, save
from wordle_agents.solvers.max_entropy import SCORES, MaxEntropySolver
from wordle_gym.core.tables import pattern_table
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
    # as on a fresh machine: the pattern table is built
    with tempfile.TemporaryDirectory() as empty:
        data, seconds = run_fresh(
            COLD_START.format(opener=opener, device=device),
            cwd=ROOT,
            extra_env={"WORDLE_GYM_CACHE": empty},
        )
    return {**data, "process_s": seconds, "opener": opener or "computed"}


def main() -> None:
    args, device, result = parse_args(__doc__, "one rule, two openers (a smoke run)")
    scores, openers = (["entropy"], ["salet", None]) if args.quick else (SCORES, OPENERS)
    runs = [(s, o, False) for s in scores for o in openers] + [
        ("entropy", o, True) for o in ("salet", None)
    ]
    result["cold_start"] = [cold_start(o, device.type) for o in ("salet", None)]
    pattern_table(Vocabulary(), device)  # built once here, so every row below is a warm evaluation
    rows = []
    for score, opener, hard in tqdm(runs, desc="solvers", unit="run"):
        r = evaluate(
            MaxEntropySolver(score=score, opener=opener),
            device=device,
            hard_mode=hard,
            progress=False,
        )
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
