"""The exact oracle on the real game: every decision of each deterministic agent measured against the
optimum (regret by turn), and how fast the oracle values the positions an evaluation visits.

    python benchmarks/oracle.py [--quick]

Each agent plays every answer once through the harness (``evaluate(..., histories=True)``); a fresh
:class:`wordle_agents.oracle.Oracle` then values every position it reached and the guess it made
there (cold: an empty cache), and once more with the same oracle (warm). ``--quick``: the first 100
answers as both lists. Writes ``benchmarks/results/oracle_cpu.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import parse_args, save

from wordle_agents.oracle import Oracle
from wordle_gym.evaluation import evaluate
from wordle_gym.registry import make_agent
from wordle_gym.words import load_word_list

AGENTS = [  # (label, agent, options[, game]): the deterministic agents of the real-game table
    ("A2C `a2c_full.pt`", "a2c", {}),
    ("DQN `dqn_full.pt`", "dqn", {}),
    ("A2C `a2c_taught.pt` (taught by the exact solver)", "a2c-taught", {}),
    ("max-entropy (entropy, SALET)", "max-entropy", {"opener": "salet"}),
    ("max-entropy (splits, SALET)", "max-entropy", {"opener": "salet", "score": "splits"}),
    ("optimal (SALET)", "optimal", {"opener": "salet"}),
    ("A2C `a2c_taught_hard.pt` (taught by the exact solver), hard mode", "a2c-taught", {}, {"hard_mode": True}),
    ("optimal (SALET, hard mode)", "optimal", {"opener": "salet"}, {"hard_mode": True}),
]


def main() -> None:
    args, _, result = parse_args(__doc__, "the first 100 answers as both lists, two agents")
    lists = {}
    agents = AGENTS
    if args.quick:
        words = load_word_list("answers")[:100]
        lists = {"answers": words, "allowed": None}
        agents = [("max-entropy (entropy)", "max-entropy", {}),
                  ("optimal (best-of-1)", "optimal", {"opener": "best-of-1"})]  # fmt: skip
    result["lists"] = "first 100 answers (both lists)" if args.quick else "2315 answers x 12972 guesses"
    result["rows"] = []
    for label, name, options, *game in agents:
        game_options = {**lists, **(game[0] if game else {})}
        policy = make_agent(name, options, device="cpu")
        played = evaluate(policy, device="cpu", agent=label, progress=False, histories=True, **game_options)
        oracle = Oracle(root_opener=None if args.quick else "salet", **game_options)
        start = time.perf_counter()
        report = oracle.regrets(played.histories)
        cold = time.perf_counter() - start
        start = time.perf_counter()
        oracle.regrets(played.histories)
        warm = time.perf_counter() - start
        report.check(1e-6)
        positions = len({d.position for d in report.decisions})
        row = {"agent": label, "mean_cost": report.mean_cost, "root_value": report.root_value,
               "mean_regret": report.mean_regret, "by_turn": report.by_turn, "decisions": len(report.decisions),
               "positions": positions, "cold_s": cold, "warm_s": warm,
               "costliest": report.to_json(oracle, 3)["costliest"]}  # fmt: skip
        print(f"{label}: regret {report.mean_regret:+.4f} per game; {positions} positions, cold {cold:.1f} s, "
              f"warm {warm:.2f} s", flush=True)  # fmt: skip
        result["rows"].append(row)
    result["command"] = " ".join(["python benchmarks/oracle.py", *sys.argv[1:]])
    save("oracle", result)


if __name__ == "__main__":
    main()
