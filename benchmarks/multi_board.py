"""Multi-board Wordle: the greedy solver on the standard evaluation set of each board count, and the
vector env's speed at 16384 Quordle games beside Wordle's, in one run.

    python -m benchmarks.multi_board [--device cpu|cuda|auto] [--quick] [--games N] [--boards
    2,4,8,16,32]

Solver rows: the max-entropy solver with the opener SALET (entropy summed over the boards not yet
solved; a board with one candidate left is played first), every allowed word a guess for 2 and 4
boards, the words still possible on some board for 8 boards and more (scoring all 12972 words for
each of up to 32 boards costs hours on a CPU). Games: the standard set
(``wordle_gym.harness.play.standard_games``: 2000 seeded K-tuples of distinct answers, the same for
every agent) or its first ``--games``. Throughput: random actions, mask "all", game-steps per
second. Writes ``benchmarks/results/multi_board_<device>.json`` and regenerates BENCHMARKS.md after
each board count; rows of the board counts a run does not play are kept from the last result of the
same set size.
"""

from __future__ import annotations

import json
import sys

from tqdm import tqdm

from benchmarks.common import RESULTS, parse_args, save
from wordle_agents.solvers.max_entropy import MaxEntropySolver
from wordle_gym.core.config import BOARD_NAMES
from wordle_gym.harness.evaluation import evaluate
from wordle_gym.harness.play import MULTI_BOARD_GAMES
from wordle_gym.harness.throughput import time_vector

# boards up to this many: every allowed word is a guess; more: the possible answers only
ALL_WORDS_UP_TO = 4


def _boards(text: str) -> list[int]:
    values = [int(v) for v in text.split(",")]
    if not values or any(not 2 <= v <= 32 for v in values):
        raise ValueError(f"--boards takes board counts from 2 to 32, comma-separated; got {text!r}")
    return values


def merged_command(earlier: str, now: str) -> str:
    """The commands that made a table, in order, each once: ``now`` after the ``earlier`` ones
    (joined by "; then "), a command run again moving to the end."""
    parts = [part for part in earlier.split("; then ") if part != now]
    return "; then ".join([*dict.fromkeys(parts), now])


def main() -> None:
    def extra(parser) -> None:
        parser.add_argument(
            "--games",
            type=int,
            default=None,
            help=f"games per board count (default {MULTI_BOARD_GAMES})",
        )
        parser.add_argument(
            "--boards", default="2,4,8,16,32", help="board counts (default 2,4,8,16,32)"
        )

    args, device, result = parse_args(
        __doc__, "20 games of 2 and 4 boards, 256 games of throughput", extra
    )
    boards = [2, 4] if args.quick else _boards(args.boards)
    games = 20 if args.quick else args.games
    result["command"] = "python -m benchmarks.multi_board " + " ".join(sys.argv[1:])
    # the throughput first (the machine is quietest at the start), then each board count, saved as
    # it ends; rows of board counts this run does not play are kept from the last result of the same
    # set size
    size = 256 if args.quick else 16384
    budget = 0.5 if args.quick else 5.0
    result["throughput"] = [time_vector(size, device, "all", budget, boards=k) for k in (1, 4)]
    path = RESULTS / f"multi_board_{device.type}.json"
    earlier = json.loads(path.read_text()) if path.exists() and not args.quick else {}
    kept = {
        r["boards"]: r
        for r in earlier.get("rows", [])
        if r["games"] == (games or MULTI_BOARD_GAMES)
    }
    if set(kept) - set(boards):  # rows of an earlier run stay: both commands made the table
        result["command"] = merged_command(earlier["command"], result["command"])
    for k in tqdm(boards, desc="boards", unit="count"):
        everything = k <= ALL_WORDS_UP_TO
        solver = MaxEntropySolver(opener="salet", candidates_only=not everything)
        r = evaluate(solver, boards=k, games=games, device=device, progress=None)
        kept[k] = {
            "boards": k,
            "name": BOARD_NAMES.get(k, f"{k} boards"),
            "agent": "max-entropy (entropy, "
            f"SALET{'' if everything else ', possible answers only'})",
            "games": r.games,
            "wins": r.wins,
            "win_rate": r.win_rate,
            "mean_guesses_wins": r.mean_guesses_wins,
            "mean_guesses_all": r.mean_guesses_all,
            "max_guesses": r.max_guesses,
            "boards_solved": r.extra["boards_solved"],
            "histogram": r.histogram,
            "eval_s": r.wall_time_s,
        }
        result["rows"] = [kept[b] for b in sorted(kept)]
        save("multi_board", result)


if __name__ == "__main__":
    main()
