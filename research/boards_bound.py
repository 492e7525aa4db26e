"""Proven lower bounds on the optimum of K-board Wordle (Dordle, Quordle, ...), from one board's
optimum and from the order in which the boards are solved.

    python -m research.boards_bound [--boards 2,4,8,16,32] [--ranking FILE] [--most FILE]
    python -m research.boards_bound --opener salet [--json FILE]   # Dordle from one opener
    python -m research.boards_bound --all-openers [--save FILE] [--max-minutes M]   # every policy
    python -m research.boards_bound --all-openers --save FILE [--refine-below B] [--search-below B]
    python -m research.boards_bound --all-openers --ray [...]   # the openers as Ray tasks

The game: K boards with K distinct answers drawn uniformly from the N answers, every guess applied
to every board not yet solved, ``L`` guesses (K + 5 by default); a game counts the guess that solves
its last board, or ``L + 1`` when it is lost (the harness's ``mean_guesses_all``). The bound holds
for every policy, the optimal one included:

**Claim 1.** Let ``t_k`` be the guess that solves board ``k`` (one guess solves at most one board:
the answers differ) and ``c_k = t_k``, or ``u`` for a board left unsolved. Then the game's count
``T`` is at least ``mean(c) + (K - 1) / 2`` whenever
``u <= u_K = min over j < K of (K(L + 1) - K(K - 1)/2 - S_j) / (K - j)``, ``S_j = jL - j(j - 1)/2``.
A won game's ``t_k`` are K distinct integers, whose largest is at least their mean plus
``(K - 1)/2``; a lost game (``T = L + 1``) with ``j`` boards solved has
``sum(c) <= S_j + (K - j)u``.

**Claim 2.** Let ``V`` be the optimal mean of one-board Wordle with ``m <= L`` guesses where a loss
costs ``m + 1`` (:class:`~wordle_gym.solver.oracle.Oracle`'s values; ``u_K >= m + 1`` is
required). Then for each board ``E[c_k] >= (N V - (K - 1) C) / (N - K + 1)``, ``C = max(L, u_K)``.
The policy seen from board ``k``, the other boards simulated from ``K - 1`` distinct answers drawn
uniformly from all ``N``, is a randomised one-board policy; its cost ``c_k`` is at least its cost in
the ``m``-guess game (anything after guess ``m`` costs at least ``m + 1``), so its mean is at least
``V``. With probability ``(K - 1)/N`` the draw holds the board's own answer (a cost of at most
``C``); otherwise the boards are distributed as in the real game.

Together: **optimum >= (N V - (K - 1) C) / (N - K + 1) + (K - 1)/2**. ``V`` comes from a ranking of
every opener with losses counted (``python -m wordle_agents.commands.optimal --all-openers --losses
--top 1``; the real lists' ships as ``openers_normal_losses.json``). The bound is loose (it only
uses that boards finish at different guesses, and for many boards it is below ``K``);
``tests/research/test_boards_bound.py`` holds it against the exact optimum of small games.

**Claim 3 (the order the boards are solved in).** Let ``N_t`` be the boards solved by guess ``t``
and ``t_(j)`` the guess that solves the ``j``-th board. A won game's last ``K - j`` boards take
``K - j`` more guesses, so ``T >= K - j + min(t_(j), m_j)`` with ``m_j = L + 1 - (K - j)`` (a lost
game counts ``L + 1``), and ``E[T] >= K - j + sum over t < m_j of (1 - P(N_t >= j))`` for every
``j``. Upper bounds on ``P(N_t >= j)``, each capped at 1:

* ``0`` for ``t < j`` (one guess solves one board), and ``P(N_{t-1} >= j - 1)`` (the same reason);
* ``j = 1``: ``E[N_1] <= K/N`` (the first guess is fixed); ``E[N_2] <= K q2 / k_1``, where ``q2`` is
  the most answers any opener's classes number, over ``N`` (one board solved by the second guess:
  one answer a class);
* ``j = 2``: ``E[C(N_t, 2)] <= C(K, 2) d_t / k_2`` for ``t = 2, 3``, where ``d_t`` is the largest
  share of ordered answer pairs any two-board policy finishes by guess ``t`` (the most over every
  opener of the count pass of ``--all-openers``, exact for ``t <= 3``).

``k_s`` corrects for the other boards, as in Claim 2: seen from ``s`` of the boards, the policy with
the other ``K - s`` answers drawn from all ``N`` (a distinct tuple, apart from the ``s``) is an
``s``-board policy; it is the real game whenever the draw misses the ``s`` answers, with probability
``k_s = prod over i < K - s of (N - s - i) / (N - i)``. The bound is the best ``j``; with many
boards it is about ``K + 1``, since the first guesses rarely solve a board. It reads ``q2``, ``d2``
and ``d3`` from a summary of every opener (:func:`dordle_most`; the real lists' ships as
``dordle_openers_most.json``).

**Dordle from a fixed opener** (``--opener WORD``, :func:`dordle_finish`): a bound on every
two-board policy that opens with ``WORD``, from the most games any such policy finishes by the
second, third and fourth guess. The count is ``T = sum over t >= 0 of [T > t]``, so
``E[T] = sum_t P(T > t) >= 5 - p2 - p3 - p4`` with ``p_t`` the largest probability of ``T <= t`` any
policy reaches (two boards take two guesses at least; the terms past ``t = 4`` are dropped, at least
0). Each ``p_t`` is a maximum over policies, searched exactly:

* By the fourth guess, with the opener not solving a board: the third guess must solve one board, so
  it is a word of that board's class, and the fourth the other. If the second guess solved a board,
  the third splits the other's class (the best of every allowed word: ``m`` classes finish ``m``
  answers). If not, with classes ``A'`` and ``B'`` after it, the third guess ``x`` in ``A'``
  finishes the pairs whose ``a`` is ``x`` and whose ``b`` it then tells apart:
  ``classes(B' under x)`` pairs, or the same the other way round; answers in one class (``a != b``)
  count both orders. The second guess is searched over every allowed word for each pair of the
  opener's cells, ordered by a bound from the class sizes alone (a class pair finishes at most
  ``max(|A'|, |B'|)`` pairs), and the search stops once no guess left can beat the best found.
* By the third guess: the second guess solves one board and the other's class is then a single
  answer.
* By the second: the opener is one answer and the second guess the other's.
* Where the opener itself solves a board (an answer opener), the other board's pairs count as
  finished by the fourth guess: an over-count, so the bound still holds.

**Every Dordle policy** (``--all-openers``, :func:`dordle_openers`): the optimal policy opens with
some word, so the least bound over the allowed openers bounds it. Searching one opener costs minutes
here (SALET:
about 11,000 pairs of its 148 cells, each searched over the 12,972 second guesses), so each opener
is first bounded with ``p4`` from the class counts alone (a class pair of sizes ``s`` and ``t``
finishes at most ``s + t - 1`` pairs, so a second guess with ``k`` classes of ``A`` and ``l`` of
``B`` finishes at most ``|A||B| - (|A| - k)(|B| - l)``); ``--refine-below`` bounds the openers still
below it from the class sizes (the search's own bound, without the search) and ``--search-below``
searches those still below it exactly.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from research.dordle_search import dordle_finish, dordle_openers
from research.order_bound import (
    SHIPPED,
    SHIPPED_MOST,
    bounds,
    load_most,
)
from wordle_gym.core.words import Vocabulary, word_source
from wordle_gym.utils.files import atomic_write_json, check_writable, one_line, quoted

PROG = "python -m research.boards_bound"


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if ignored := _ignored_option(parser, args):
        print(f"{PROG}: error: {ignored}", file=sys.stderr)
        return 2
    if args.opener is not None or args.all_openers:
        return _dordle(args, progress=not args.quiet and sys.stderr.isatty())
    try:
        boards = [int(v) for v in args.boards.split(",")]
        if not boards or any(not 1 <= k <= 32 for k in boards):
            raise ValueError
    except ValueError:
        print(
            f"{PROG}: error: --boards takes board counts from 1 to 32; got {quoted(args.boards)}",
            file=sys.stderr,
        )
        return 2
    try:
        rows = _bounds_rows(args, boards)
    except (ValueError, OSError) as exc:
        print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    _print_bounds(rows)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--boards",
        default="2,4,8,16,32",
        help="board counts, comma-separated (default 2,4,8,16,32)",
    )
    parser.add_argument(
        "--ranking", default=None, help=f"a ranking with losses (default: the shipped {SHIPPED})"
    )
    parser.add_argument(
        "--most",
        default=None,
        help="the maxima over every Dordle opener: a summary, or a journal of --all-openers "
        "(default: the shipped "
        f"{SHIPPED_MOST})",
    )
    parser.add_argument(
        "--save-most", default=None, help="also write the maxima read, as a summary, here"
    )
    parser.add_argument("--json", default=None, help="also write the bounds here")
    parser.add_argument(
        "--opener",
        default=None,
        help="instead: the bound on Dordle policies that open with this word (minutes)",
    )
    parser.add_argument(
        "--all-openers",
        action="store_true",
        help="instead: the bound on every Dordle policy, each opener bounded",
    )
    parser.add_argument(
        "--save", default=None, help="with --all-openers: its journal (the same command continues)"
    )
    parser.add_argument(
        "--max-minutes", type=float, default=None, help="with --all-openers: stop after this long"
    )
    parser.add_argument(
        "--refine-below",
        type=float,
        default=None,
        help="with --all-openers: a tighter bound where one is below this",
    )
    parser.add_argument(
        "--search-below",
        type=float,
        default=None,
        help="with --all-openers: search each opener still below this exactly (minutes an opener)",
    )
    parser.add_argument(
        "--answers", default="answers", help="the answer list (of --opener, --all-openers, --most)"
    )
    parser.add_argument(
        "--allowed", default="allowed", help="the allowed list (of --opener, --all-openers, --most)"
    )
    parser.add_argument(
        "--ray",
        action="store_true",
        help="with --all-openers: the openers as Ray tasks, on the cluster at RAY_ADDRESS or a "
        "local Ray instance",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _bounds_rows(args: argparse.Namespace, boards: list[int]) -> list[dict[str, Any]]:
    """The multi-board bounds of ``boards`` (from --ranking and --most), written where asked."""
    if args.save_most is not None and not args.most:
        raise ValueError(
            "--save-most writes the maxima of --most: give it a journal of --all-openers"
        )
    for output in (args.save_most, args.json):
        if output is not None:  # "" is refused by name, not taken for "not given"
            check_writable(output)
    most = (
        load_most(args.most, Vocabulary(word_source(args.answers), word_source(args.allowed)))
        if args.most
        else None
    )
    rows = bounds(boards, args.ranking, most)
    if args.save_most:
        atomic_write_json(args.save_most, most)
    if args.json:
        atomic_write_json(args.json, rows)
    return rows


def _print_bounds(rows: list[dict[str, Any]]) -> None:
    """The multi-board bounds as a table, after the one-board optimum they start from."""
    single = rows[0]["single_board"]
    print(
        f"one board, {single['max_guesses']} guesses, losses counted: optimum {single['total']} "
        f"over {single['answers']} answers (mean {single['total'] / single['answers']:.4f}, from "
        f"{single['opener'].upper()})"
    )
    print(
        "| boards | guesses | from one board's optimum | from the order of the solves | proven "
        "lower bound on the optimal mean |\n| ---: | ---: | ---: | ---: | ---: |"
    )
    for row in rows:
        order = row.get("order_bound")
        by_order = f"{order['lower_bound']:.4f}" if order else "(no maxima of these lists)"
        print(
            f"| {row['boards']} | {row['max_guesses']} | {row['one_board_bound']:.4f} | {by_order} "
            f"| {row['lower_bound']:.4f} |"
        )


# The options each mode reads; one given to a mode that does not read it is refused rather than
# ignored.
_COMMON = {"json", "answers", "allowed", "quiet"}
BOUNDS = "the multi-board bounds (no --opener or --all-openers)"
MODE_OPTIONS = {
    "--opener": {"opener", *_COMMON},
    "--all-openers": {
        "all_openers",
        "save",
        "max_minutes",
        "refine_below",
        "search_below",
        "ray",
        *_COMMON,
    },
    BOUNDS: {"boards", "ranking", "most", "save_most", *_COMMON},
}


def _used(mode: str, most: bool) -> set[str]:
    """The options ``mode`` reads (the bounds read the lists only with --most: its maxima's)."""
    used = MODE_OPTIONS[mode]
    return used - {"answers", "allowed"} if mode == BOUNDS and not most else used


def _ignored_option(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str | None:
    """The error for an option given (not its default) that the chosen mode would ignore, or
    None."""
    if args.opener is not None and args.all_openers:
        return "--opener and --all-openers are two modes; give one"
    mode = (
        "--opener" if args.opener is not None else "--all-openers" if args.all_openers else BOUNDS
    )
    used = _used(mode, bool(args.most))
    for action in parser._actions:
        if action.dest in used or not action.option_strings or action.dest == "help":
            continue
        if getattr(args, action.dest) != action.default:
            owners = (
                ["--most", "--opener", "--all-openers"]
                if action.dest in ("answers", "allowed")
                else [m for m, options in MODE_OPTIONS.items() if action.dest in options]
            )
            where = f"with {mode}" if mode != BOUNDS else f"by {BOUNDS}"
            return (
                f"{action.option_strings[0]} is not used {where}; it goes with "
                f"{' or '.join(owners)}"
            )
    return None


def _dordle(args: argparse.Namespace, progress: bool) -> int:
    try:
        return _dordle_run(args, progress)
    except KeyboardInterrupt:
        if args.all_openers and args.save:
            print(
                f"{PROG}: interrupted; {args.save} keeps the openers done: the same command "
                "continues",
                file=sys.stderr,
            )
        else:
            print(
                f"{PROG}: interrupted (nothing kept: --all-openers --save FILE keeps a run to "
                "continue)",
                file=sys.stderr,
            )
        return 130


def _print_all_openers(row: dict[str, Any], saved: bool) -> None:
    """--all-openers' account: how far it got, or the weakest openers and the bound."""
    done = len(row["counts"])
    if done < row["allowed"]:
        again = (
            "the same command continues"
            if saved
            else "nothing was kept: --save FILE keeps a run to continue"
        )
        print(f"{done:,} of {row['allowed']:,} openers bounded; {again}")
        return
    weakest = ", ".join(f"{w.upper()} {b:.4f}" for w, b in row["weakest"][:5])
    searched = f", {len(row['searched'])} searched" if row["searched"] else ""
    print(
        f"Dordle, every opener bounded ({row['answers']} answers, {row['allowed']} "
        f"allowed{searched}); the weakest:\n  {weakest}"
    )
    print(f"proven lower bound on the optimal mean count: {row['lower_bound']:.4f}")
    if not row["finished"]:
        print("the refinement or the search is not finished; the same command continues")


def _dordle_run(args: argparse.Namespace, progress: bool) -> int:
    try:
        for output in (args.json, args.save):  # before minutes of search, not after them
            if output is not None:
                check_writable(output)
        if args.max_minutes is not None and not (
            math.isfinite(args.max_minutes) and args.max_minutes > 0
        ):
            raise ValueError(
                f"--max-minutes must be a number of minutes > 0; got {args.max_minutes}"
            )
        vocab = Vocabulary(word_source(args.answers), word_source(args.allowed))
        if args.all_openers:
            if args.ray:
                try:
                    import ray  # noqa: F401
                except ImportError:
                    raise ValueError("--ray needs Ray: pip install ray") from None
            row = dordle_openers(
                vocab,
                args.save,
                progress,
                args.max_minutes,
                refine_below=args.refine_below,
                search_below=args.search_below,
                use_ray=args.ray,
            )
        else:
            row = dordle_finish(vocab, args.opener, progress=progress)
        if args.json:
            atomic_write_json(args.json, row)
    except (ValueError, OSError) as exc:
        print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    if args.all_openers:
        _print_all_openers(row, bool(args.save))
        return 0
    counts, pairs = row["finished_by"], row["pairs"]
    print(
        f"Dordle opening with {row['opener'].upper()} ({row['answers']} answers, {row['allowed']} "
        "allowed): of the games, at most\n  "
        + ", ".join(f"{counts[t] / pairs:.2%} finished by guess {t}" for t in "234")
    )
    print(f"proven lower bound on the mean count: {row['lower_bound']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
