"""Today's game proven: the best opener over all 14855 allowed guesses, and its tree beside
alex1770's C++.

    python -m benchmarks.today [--cpp BINARY] [--rounds 3] [--skip-run]

The NYT's lists of today (``WordleToday-v1``: 3158 answers, 14855 guesses). Runs ``python -m
wordle_agents.commands.optimal --all-openers --answers answers_today --allowed allowed_today --save
wordle_gym/data/solver/openers_today.json`` (resumable; the command's own clock, summed over its
sessions, is the time reported; ``--skip-run`` reads the shipped ranking) and holds every opener's
figure to alex1770's published exact totals (``opener_totals_today.json``): an exact total must
equal its, a bound that ruled an opener out must not exceed it. Then the optimal tree from the best
opener, ours (``python -m wordle_agents.commands.optimal tarse --answers answers_today --allowed
allowed_today`` in a fresh process) and with ``--cpp`` alex1770's solver on the same lists (``wordle
-w tarse -a allowed -h
answers``), alternating, best of ``--rounds``. Writes ``benchmarks/results/today_cpu.json`` and
regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from benchmarks.common import parse_args, save
from benchmarks.exact import _REPORT, _timed
from benchmarks.openers import KEEP, against_cited, finished_ranking
from wordle_gym.core.words import Vocabulary

ROOT = Path(__file__).resolve().parent.parent
CHECKPOINTS = ROOT / "agents" / "checkpoints"
LISTS = ["--answers", "answers_today", "--allowed", "allowed_today"]


def trees(cpp: str | None, opener: str, rounds: int) -> dict:
    """The optimal tree from ``opener`` on today's lists: ours and the C++, alternating, best of
    ``rounds``."""
    vocab = Vocabulary("answers_today", "allowed_today")
    times: dict[str, list[float]] = {"ours": [], **({"C++": []} if cpp else {})}
    found: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "answers").write_text("\n".join(vocab.answers) + "\n")
        Path(tmp, "allowed").write_text("\n".join(vocab.allowed) + "\n")
        ours = [sys.executable, "-m", "wordle_agents.commands.optimal", opener, *LISTS, "--quiet"]
        _timed(ours, dict(os.environ), tmp)  # the kernels and the pattern table cached from here on
        for _ in range(rounds):
            seconds, out = _timed(ours, dict(os.environ), tmp)
            total, nodes = _REPORT.search(out).groups()
            found = {"total": int(total), "nodes": int(nodes.replace(",", ""))}
            times["ours"].append(seconds)
            if cpp:
                times["C++"].append(
                    _timed(
                        [cpp, "-w", opener, "-a", "allowed", "-h", "answers"], dict(os.environ), tmp
                    )[0]
                )
            print(json.dumps({name: t[-1] for name, t in times.items()}), flush=True)
    return {"opener": opener, **found, "best_s": {name: min(t) for name, t in times.items()}}


def main() -> None:
    def extra(parser: object) -> None:
        parser.add_argument("--cpp", help="alex1770/wordle's built solver (the `wordle` binary)")
        parser.add_argument(
            "--rounds", type=int, default=3, help="fresh processes per contender (best kept)"
        )
        parser.add_argument(
            "--skip-run", action="store_true", help="read the shipped ranking, run no ranking"
        )

    args, _, result = parse_args(__doc__, "(no quick mode: the ranking is the benchmark)", extra)
    data = finished_ranking(CHECKPOINTS / "openers_today.json", LISTS, args.skip_run)
    table = json.loads((CHECKPOINTS / "opener_totals_today.json").read_text(encoding="utf-8"))
    (source,) = table["sources"]
    agree, bounded, disagree = against_cited(data, source["totals"])
    result["ranking"] = {k: data[k] for k in KEEP}
    result["check"] = {
        "cited": len(source["totals"]),
        "exact_agree": agree,
        "bounds_below": bounded,
        "disagree": disagree,
        "source": source["name"],
    }
    print(json.dumps(result["check"]))
    result["tree"] = trees(args.cpp, str(data["ranking"][0][0]), args.rounds)
    result["command"] = " ".join(["python -m benchmarks.today", *sys.argv[1:]])
    save("today", result)


if __name__ == "__main__":
    main()
