"""Dordle from a fixed opener: the proven lower bound on every policy that opens with it, what the
bound's search costs, and the max-entropy solver from the same opener beside it, in one run.

    python -m benchmarks.dordle_bound [--openers salet] [--games 20000] [--every-opener JOURNAL]
    [--quick]

The bound (:func:`research.dordle_search.dordle_finish`; the proof is in the module docstring):
no policy opening with the word finishes more games by the second, third and fourth guess than the
exact search finds, so its mean count is at least ``5 - p2 - p3 - p4``. The solver plays the first
``--games`` games of the standard Dordle set (seeded pairs of distinct answers; the first 2000 are
the set every agent plays), with the share of its games finished by each guess beside the bound's.
``--quick``: the first 300 answers (and the openers allowed), 200 games.

``--every-opener JOURNAL``: the bound on every policy, whatever its opener, from a finished journal
of ``python -m research.boards_bound --all-openers --save JOURNAL [--refine-below B] [--search-below
B]`` with every opener bounded (its least bound, weakest openers and how many were refined and
searched; the count takes about half an hour here, a search minutes an opener, and the run continues
where stopped, so it is not run here), and what one opener's bound costs, timed on the first 200
allowed openers in this run. Writes ``benchmarks/results/dordle_bound_<device>.json``.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numba

from benchmarks.common import parse_args, save
from research.dordle_search import dordle_finish, dordle_openers
from wordle_agents.solvers.max_entropy import MaxEntropySolver
from wordle_gym.core.words import Vocabulary
from wordle_gym.harness.evaluation import evaluate


def main() -> None:
    def extra(parser) -> None:
        parser.add_argument(
            "--openers", default="salet", help="first guesses, comma-separated (default salet)"
        )
        parser.add_argument(
            "--games", type=int, default=20000, help="solver games per opener (default 20000)"
        )
        parser.add_argument(
            "--every-opener", default=None, help="a finished journal of boards_bound --all-openers"
        )

    args, device, result = parse_args(
        __doc__, "the first 300 answers (and the openers allowed), 200 games", extra
    )
    result["command"] = "python -m benchmarks.dordle_bound " + " ".join(sys.argv[1:])
    openers = [w.strip().lower() for w in args.openers.split(",")]
    full = Vocabulary()
    vocab = (
        Vocabulary(full.answers[:300], sorted({*full.answers[:300], *openers}))
        if args.quick
        else full
    )
    games = 200 if args.quick else args.games
    lists = {"answers": list(vocab.answers), "allowed": list(vocab.allowed)} if args.quick else {}
    result["lists"] = f"{vocab.num_answers} answers, {vocab.num_allowed} allowed"
    result["rows"] = []
    for opener in openers:
        start = time.perf_counter()
        bound = dordle_finish(vocab, opener, progress=sys.stderr.isatty())
        bound["bound_s"] = time.perf_counter() - start
        solver = MaxEntropySolver(opener=opener)
        r = evaluate(solver, boards=2, games=games, device=device, progress=None, **lists)
        counts = r.histogram  # games finished at guess 1, 2, ..., then the losses
        mean = r.mean_guesses_all
        second = sum(c * (t + 1) ** 2 for t, c in enumerate(counts)) / r.games
        bound["solver"] = {
            "agent": f"max-entropy (entropy, {opener.upper()})",
            "games": r.games,
            "win_rate": r.win_rate,
            "mean_guesses_all": mean,
            "standard_error": math.sqrt(max(second - mean**2, 0.0) / r.games),
            "finished_by": {str(t): sum(counts[:t]) / r.games for t in (2, 3, 4, 5)},
            "eval_s": r.wall_time_s,
        }
        result["rows"].append(bound)
        save("dordle_bound", result)
    if args.every_opener:
        every = json.loads(Path(args.every_opener).read_text(encoding="utf-8"))
        if every.get("lists") != vocab.digest or len(every.get("counts", {})) != vocab.num_allowed:
            raise SystemExit(
                f"{args.every_opener}: not an --all-openers journal of these lists "
                "with every opener"
            )
        sample = list(vocab.allowed[:200])
        start = time.perf_counter()
        dordle_openers(vocab, openers=sample)
        result["every_opener"] = {
            "lower_bound": every["lower_bound"],
            "weakest": every["weakest"],
            "openers": len(every["counts"]),
            "refined_below": every.get("refined_below"),
            "refined": len(every.get("refined", [])),
            "searched_below": every.get("searched_below"),
            "searched": len(every.get("searched", [])),
            "searched_least": min(
                (5 - sum(every["counts"][w]) / every["pairs"] for w in every.get("searched", [])),
                default=None,
            ),
            "per_opener_s": (time.perf_counter() - start) / len(sample),
            "threads": numba.get_num_threads(),
        }
        save("dordle_bound", result)


if __name__ == "__main__":
    main()
