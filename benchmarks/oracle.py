"""The exact oracle on the real game: every decision of each deterministic agent of the real-game
table measured against the optimum (regret by turn), and how fast the oracle values the positions an
evaluation visits.

    python -m benchmarks.oracle [--quick] [--only TEXT]

The rows are ``wordle-gym bench``'s real-game rows (the same agents, options and labels), but the
random floors: see :data:`SKIPPED`. Each agent plays every answer once through the harness
(``evaluate(..., histories=True)``); a fresh :class:`wordle_gym.solver.oracle.Oracle` then
values every position it reached and the guess it made there (cold: an empty cache), and once more
with the same oracle (warm). ``--only TEXT`` measures the rows whose label holds TEXT and keeps the
others from the last run. ``--quick``: the first 100 answers as both lists, two agents. Writes
``benchmarks/results/oracle_cpu.json`` (after each row) and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import json
import time
from typing import Any

from benchmarks.common import RESULTS, parse_args, save
from wordle_gym.core.words import load_word_list
from wordle_gym.harness.bench_table import jobs, settings
from wordle_gym.harness.evaluation import evaluate
from wordle_gym.harness.registry import make_agent
from wordle_gym.solver.oracle import Oracle

SKIPPED = {
    "random": "the random floors: their positions lie off every sensible line, and each costs the "
    "oracle "
    "minutes (the first game of random (all words), 6 positions: 234 s; of random (remaining "
    "candidates), 2 "
    "positions: 249 s, both beside a training run), so days for 2315 games; and a random agent's "
    "regrets add "
    "up to its mean minus the optimum only in expectation, not in one evaluation",
}
"""Agents of the real-game table left out, and why (in BENCHMARKS.md under the table)."""


def real_game_rows() -> list[tuple[str, Any, dict[str, Any]]]:
    """(label, policy, evaluate options) of every real-game row of ``wordle-gym bench`` but
    :data:`SKIPPED`."""
    rows = []
    for name, run in jobs([]):
        if name in SKIPPED:
            continue
        policy = make_agent(name, run.options, device="cpu")
        for label, play, lists in settings(run.label, policy, getattr(policy, "checkpoint", None)):
            # the real game: a stage's own lists are not Wordle, and the oracle values one board
            if "answers" not in lists and run.env.get("boards", 1) == 1:
                rows.append((label, play, {**lists, **run.env}))
    return rows


def measure(
    label: str, policy: Any, options: dict[str, Any], root_opener: str | None
) -> dict[str, Any]:
    """One row: the agent's regrets by turn, checked against its mean, and the oracle's cold and
    warm times."""
    played = evaluate(policy, device="cpu", agent=label, progress=False, histories=True, **options)
    oracle_options = {k: v for k, v in options.items() if k in ("answers", "allowed", "hard_mode")}
    oracle = Oracle(root_opener=root_opener, **oracle_options)
    start = time.perf_counter()
    report = oracle.regrets(played.histories)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    oracle.regrets(played.histories)
    warm = time.perf_counter() - start
    report.check(1e-6)
    positions = len({d.position for d in report.decisions})
    print(
        f"{label}: regret {report.mean_regret:+.4f} per game; {positions} positions, cold "
        f"{cold:.1f} s, warm {warm:.2f} s",
        flush=True,
    )
    return {
        "agent": label,
        "mean_cost": report.mean_cost,
        "root_value": report.root_value,
        "mean_regret": report.mean_regret,
        "by_turn": report.by_turn,
        "decisions": len(report.decisions),
        "positions": positions,
        "cold_s": cold,
        "warm_s": warm,
        "costliest": report.to_json(oracle, 3)["costliest"],
    }


def main() -> None:
    args, _, result = parse_args(
        __doc__,
        "the first 100 answers as both lists, two agents",
        lambda p: p.add_argument(
            "--only", default=None, help="measure only rows whose label holds this text"
        ),
    )
    previous = RESULTS / f"oracle_{result['device']}.json"
    kept: dict[str, dict] = {}
    if args.quick:
        words = load_word_list("answers")[:100]
        lists = {"answers": words, "allowed": None}
        rows = [
            ("max-entropy (entropy)", make_agent("max-entropy", {}), lists),
            ("optimal (best-of-1)", make_agent("optimal", {"opener": "best-of-1"}), lists),
        ]
        result["lists"] = "first 100 answers (both lists)"
    else:
        rows = real_game_rows()
        result["lists"] = "2315 answers x 12972 guesses"
        if args.only and previous.exists():
            kept = {r["agent"]: r for r in json.loads(previous.read_text())["rows"]}
        result["skipped"] = SKIPPED
    labels = [label for label, *_ in rows]
    if args.only:
        rows = [row for row in rows if args.only.lower() in row[0].lower()]
        if not rows:
            raise SystemExit(f"--only {args.only!r} matches none of: {', '.join(labels)}")
    result["command"] = "python -m benchmarks.oracle" + (" --quick" if args.quick else "")
    for label, policy, options in rows:
        kept[label] = measure(label, policy, options, None if args.quick else "salet")
        result["rows"] = [kept[name] for name in labels if name in kept]  # the table's order
        save("oracle", result)


if __name__ == "__main__":
    main()
