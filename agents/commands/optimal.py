"""``python -m wordle_agents.commands.optimal``: the exact solver, from the command line.

The optimal tree from an opener, and the best of the 10 best greedy openers::

    python -m wordle_agents.commands.optimal salet [--hard] [--save tree.npz]
    python -m wordle_agents.commands.optimal best-of-10

Every opener ranked, the best proven (with --losses, a loss costing the limit + 1)::

    python -m wordle_agents.commands.optimal --all-openers [--save ranking.json]
    python -m wordle_agents.commands.optimal --all-openers --losses --top 1

Exact first moves for the oracle (with ``--part 1/2`` and ``--part 2/2``, two processes into one
table at once), and tables made elsewhere merged into it::

    python -m wordle_agents.commands.optimal --values allowed --first-move-only --save v.json
    python -m wordle_agents.commands.optimal --merge other.json --save v.json

The search is :mod:`wordle_gym.solver.search` (a tree from one opener) and
:mod:`wordle_gym.solver.openers` (every first guess ranked; resumable from its journal beside
--save).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wordle_gym.core.config import WordleConfig
from wordle_gym.core.words import GAME_OPTION, Vocabulary, game_lists, word_source
from wordle_gym.solver.search import best_of, check_limits, solve
from wordle_gym.utils.commandline import OneLineParser, add_options, options_from
from wordle_gym.utils.files import check_writable, one_line

PROG = "python -m wordle_agents.commands.optimal"


@dataclass(frozen=True)
class OptimalRun:
    """What to solve."""

    opener: str | None = field(default=None, metadata={"positional": True})
    """The first guess, or best-of-K (the K best greedy openers)."""
    all_openers: bool = False
    """Rank every allowed first guess, proving the --top best (resumable with --save)."""
    values: str | None = None
    """Comma-separated openers, or 'models' (those language models favour), 'answers' or 'allowed'
    (those, then every word of that list, the answers first): each one's exact first-move total, a
    loss costing limit + 1 (the oracle's regret reward reads it), added to the table at --save
    (resumable)."""
    first_move_only: bool = False
    """With --values: each opener's total alone, not the values of the positions it leads to (a few
    times faster; the first move exact, the second searched when played)."""
    part: str | None = field(default=None, metadata={"metavar": "K/N"})
    """With --values: only the K-th of N interleaved shares of the openers (K/N, K from 1), so that
    N processes value them into one table (--save) at once."""
    ray: bool = False
    """With --values: the openers as Ray tasks (pip install ray): batches of 20 on the cores of a
    local Ray instance, or of the cluster at $RAY_ADDRESS, the costliest first, each merged into
    the table as it comes (--part shares them between processes without Ray)."""
    merge: str | None = field(default=None, metadata={"metavar": "TABLES"})
    """Comma-separated tables of opener values (--values', for the same lists and rules) to merge
    into the table at --save: what runs on other machines made."""
    top: int = 10
    """With --all-openers: how many to rank exactly."""
    losses: bool = False
    """With --all-openers: an answer not found within the limit costs limit + 1 instead of ruling
    the tree out (the oracle's values; what the multi-board lower bound starts from)."""
    max_minutes: float | None = None
    """With --all-openers or --values: stop after this long (the same command continues)."""
    hard: bool = False
    """Hard mode."""
    max_guesses: int = 6
    """The guess limit."""
    game: str | None = field(default=None, metadata=GAME_OPTION)
    """The lists of a game: original (the default), nyt (its 2309 answers of 2022) or today (the
    NYT's game today: 3158 answers, 14855 guesses)."""
    answers: str | None = None
    """Answer list: a name or a file (default: the game's)."""
    allowed: str | None = None
    """Allowed guesses: a name or a file (default: the game's)."""
    save: str | None = None
    """Write the tree (.npz), or with --all-openers the ranking (.json), here."""
    time_limit: float | None = None
    """One opener (each opener, with --values): give up after this many seconds (with --values the
    table notes the opener, and a run with no longer limit passes it by)."""
    max_cache_entries: int = 5_000_000
    """Bound on the search's cache."""
    quiet: bool = False
    """No progress bar."""

    def __post_init__(self) -> None:
        lists = game_lists(self.game, self.answers, self.allowed)  # --game names both lists
        object.__setattr__(self, "answers", lists[0])
        object.__setattr__(self, "allowed", lists[1])
        chosen = (self.opener, self.all_openers or None, self.values, self.merge)
        if sum(x is not None for x in chosen) != 1:
            raise ValueError("give an opener, --all-openers, --values or --merge (one of them)")
        self._check_values_options()
        self._check_all_openers_options()
        for name in ("max_minutes", "time_limit"):
            value = getattr(self, name)
            if value is not None and not (
                isinstance(value, int | float) and 0 < value < float("inf")
            ):
                raise ValueError(f"{name} must be a positive number; got {value!r}")
        if self.save is not None and not self.save.strip():
            raise ValueError("--save needs a file name; got ''")
        check_limits(self.max_guesses, self.time_limit, self.max_cache_entries)

    def _check_values_options(self) -> None:
        """The options that go with --values (and --merge)."""
        for name in ("first_move_only", "part", "ray"):
            if getattr(self, name) not in (None, False) and self.values is None:
                raise ValueError(f"--{name.replace('_', '-')} goes with --values")
        if (self.values is not None or self.merge is not None) and not self.save:
            raise ValueError(
                f"--{'values' if self.merge is None else 'merge'} needs --save FILE (the table, "
                "continued if it exists)"
            )
        _ = self.share
        if self.ray and self.part is not None:
            raise ValueError("--ray shares the openers among Ray's workers; --part is without it")

    def _check_all_openers_options(self) -> None:
        """The options that go with --all-openers (--max-minutes with --values too)."""
        if self.all_openers and self.time_limit is not None:
            raise ValueError(
                "--time-limit is for one opener; --all-openers stops with --max-minutes"
            )
        if not self.all_openers and self.losses:
            raise ValueError("--losses goes with --all-openers")
        if not self.all_openers and self.top != OptimalRun.top:
            raise ValueError("--top goes with --all-openers")
        if not (self.all_openers or self.values) and self.max_minutes is not None:
            raise ValueError(
                "--max-minutes goes with --all-openers (a single opener takes --time-limit)"
            )

    @property
    def share(self) -> tuple[int, int]:
        """--part as (k, n) with k from 0 (the whole list: (0, 1))."""
        if self.part is None:
            return (0, 1)
        k, _, n = self.part.partition("/")
        digits = k.isascii() and k.isdigit() and n.isascii() and n.isdigit()  # not "²"
        if not (digits and 1 <= int(k) <= int(n)):
            raise ValueError(f"--part must be K/N with 1 <= K <= N (e.g. 1/2); got {self.part!r}")
        return (int(k) - 1, int(n))


def main(argv: list[str] | None = None, own_process: bool = False, prog: str = PROG) -> int:
    """The command (``prog``: its name in messages); ``own_process``: run in a process of its own,
    as ``python -m`` or ``wordle-gym optimal`` (see :func:`_numba_without_blas`)."""
    parser = OneLineParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_options(parser, OptimalRun)
    try:
        args = options_from(OptimalRun, parser.parse_args(argv))
    except (ValueError, TypeError) as exc:
        print(f"{prog}: error: {one_line(exc)} (see {prog} --help)", file=sys.stderr)
        return 2
    if own_process:
        _numba_without_blas()
    if args.all_openers:
        return _all_openers(args, prog)
    if args.values is not None:
        return _values(args, prog)
    if args.merge is not None:
        return _merge(args, prog)
    start = time.perf_counter()
    try:
        vocab = _lists_and_output(args)
        trees = []
        chosen = [args.opener]
        if k := best_of(args.opener):  # the greedy solver ranks them (torch, only here)
            from wordle_agents.solvers.optimal_agent import greedy_openers

            chosen = greedy_openers(vocab, k)
        for opener in chosen:
            tree = solve(
                vocab,
                opener,
                args.hard,
                args.max_guesses,
                args.time_limit,
                args.max_cache_entries,
                progress=not args.quiet,
            )
            trees.append(tree)
            if len(trees) > 1 or args.opener.startswith("best-of"):  # one line per opener tried
                print(
                    f"{opener.upper()}: {tree.total} guesses over {tree.num_answers} answers "
                    f"(mean {tree.mean:.4f})"
                )
        tree = min(trees, key=lambda t: t.total)
        used = tree.play(vocab)
        if args.save:
            tree.save(args.save)
    except (ValueError, OSError, ImportError, TimeoutError) as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return 130
    mode = "hard mode" if args.hard else "normal mode"
    seconds = time.perf_counter() - start
    print(
        f"optimal from {tree.opener.upper()} ({mode}, {args.max_guesses} guesses): {tree.total} "
        "guesses over "
        f"{tree.num_answers} answers, mean {tree.mean:.4f}, max {used.max()}, every answer solved: "
        f"{bool(used.min() > 0)}; {tree.nodes_searched:,} nodes searched; {seconds:.1f} s"
    )
    return 0


def _lists_and_output(args: OptimalRun) -> Vocabulary:
    """The command's word lists, after checking that ``--save`` (if given) names a file that can be
    written."""
    vocab = Vocabulary(word_source(args.answers), word_source(args.allowed))
    if args.save:
        check_writable(args.save)
    return vocab


def _game(args: OptimalRun) -> WordleConfig:
    """The game of the command's lists and rules (ValueError naming a bad list)."""
    return WordleConfig(
        answers=word_source(args.answers),
        allowed=word_source(args.allowed),
        hard_mode=args.hard,
        max_guesses=args.max_guesses,
    )


def _values(args: OptimalRun, prog: str) -> int:
    """``--values``: exact first-move totals of the openers named, into the table at --save."""
    from wordle_gym.solver.tasks import opener_values

    try:
        config = _game(args)
    except ValueError as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    words = _opener_words(args.values, config.vocabulary)
    unknown = [w for w in words if w not in config.vocabulary.allowed_index]
    if unknown or not words:
        print(
            f"{prog}: error: --values: not allowed guesses: {', '.join(unknown) or '(none given)'}",
            file=sys.stderr,
        )
        return 2
    assert args.save is not None
    try:
        check_writable(args.save)
        run = (config, words, args.save, args.max_minutes, args.time_limit, not args.quiet)
        children = not args.first_move_only
        if args.ray:
            values = _on_ray()(*run, children)
        else:
            values = opener_values(*run, children, args.share, args.max_cache_entries)
    except (OSError, ValueError) as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted; every opener valued is kept in {args.save}: the same "
              "command continues",
              file=sys.stderr)  # fmt: skip
        return 130
    _print_values(args, config, words, values)
    return 0


def _opener_words(spec: str, vocab: Vocabulary) -> list[str]:
    """The openers ``--values`` names: its words, or a list's name ('models', 'answers',
    'allowed') expanded, the words players use first (the answers) before the other guesses."""
    from wordle_gym.solver.opener_tables import MODEL_OPENERS

    lists = {"models": [], "answers": [*vocab.answers], "allowed": [*vocab.answers, *vocab.allowed]}
    if spec not in lists:
        return [w.strip().lower() for w in spec.split(",") if w.strip()]
    models = [w for w in MODEL_OPENERS if w in vocab.allowed_index]
    return list(dict.fromkeys(models + lists[spec]))


def _print_values(
    args: OptimalRun, config: WordleConfig, words: list[str], values: dict[str, int]
) -> None:
    """``--values``' account: how many of this share's openers are valued, and which are not; each
    one's total where they are few."""
    from wordle_gym.solver.tasks import opener_share

    words = opener_share(words, args.share)
    done = sum(w in values for w in words)
    n = config.vocabulary.num_answers
    best = f"; the best {min(values.values())} ({min(values.values()) / n:.4f})" if values else ""
    print(f"{done}/{len(words)} openers valued ({len(values)} in {args.save}){best}")
    missing = [w for w in words if w not in values]
    published: dict[str, int] = {}
    if missing and args.first_move_only:  # those a published table proves are not searched
        published = _published(config, args.save, missing)
        if published:
            print(f"{len(published)} more proven by the published tables (not searched again)")
        missing = [w for w in missing if w not in published]
    if len(words) <= SHOWN_VALUES:
        for word in words:
            total = values.get(word, published.get(word))
            found = "not valued" if total is None else f"{total} ({total / n:.4f})"
            print(f"  {word.upper()} {found}")
    if missing:
        more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
        print(
            "not valued (past --time-limit or --max-minutes; the same command tries again): "
            f"{', '.join(missing[:20])}{more}"
        )


SHOWN_VALUES = 20
"""``--values`` prints each opener's total where it names at most this many."""


def _published(config: WordleConfig, save: str, words: list[str]) -> dict[str, int]:
    """The exact totals of ``words`` the published tables prove (the oracle's, beside ``save``)."""
    from wordle_gym.solver.oracle import Oracle

    vocab = config.vocabulary
    proven = Oracle(config, root_opener=None, opener_table=save).root_exact
    return {w: int(proven[vocab.action(w)]) for w in words if vocab.action(w) in proven}


def _on_ray() -> Any:
    """``--values --ray``: :func:`~wordle_gym.solver.tasks.opener_values_on_ray`, or a
    one-line ValueError where Ray is not installed."""
    try:
        import ray  # noqa: F401

        from wordle_gym.solver.tasks import opener_values_on_ray
    except ImportError:
        raise ValueError("--ray needs Ray: pip install ray (or share with --part K/N)") from None
    return opener_values_on_ray


def _merge(args: OptimalRun, prog: str) -> int:
    """``--merge``: tables of opener values merged into the table at --save."""
    from wordle_gym.solver.tasks import merge_opener_values

    assert args.save is not None and args.merge is not None
    others = [p.strip() for p in args.merge.split(",") if p.strip()]
    try:
        config = _game(args)
        missing = [p for p in others if not Path(p).is_file()]
        if missing or not others:
            raise ValueError(f"--merge: no such table: {', '.join(missing) or '(none given)'}")
        check_writable(args.save)
        merged = merge_opener_values(config, args.save, others)
    except (OSError, ValueError) as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    print(
        f"{len(merged.values)} openers valued in {args.save} ({len(merged.timed_out)} past a time "
        "limit)"
    )
    return 0


def _all_openers(args: OptimalRun, prog: str) -> int:
    """``--all-openers``: the ranking, printed, and saved with ``--save`` (its journal beside
    it)."""
    from wordle_gym.solver import openers as ranking

    journal = None
    try:
        vocab = _lists_and_output(args)
        if args.save:
            journal = Path(f"{args.save}.journal")
        data = ranking.rank_openers(
            vocab,
            args.hard,
            args.max_guesses,
            args.top,
            journal,
            args.max_minutes,
            args.max_cache_entries,
            progress=not args.quiet,
            lose=args.losses,
        )
        if data["finished"] and args.save:
            ranking.save(data, args.save)
            for leftover in (journal, Path(f"{journal}.lock"), Path(f"{journal}.lock.pid")):
                # the run is done: its journal and the journal's lock
                leftover.unlink(missing_ok=True)
    except (ValueError, OSError, ImportError) as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        kept = (
            (f"; what was done is kept in {journal}: the same command continues") if journal else ""
        )
        print(f"\n{prog}: interrupted{kept}", file=sys.stderr)
        return 130
    for rank, (word, value) in enumerate(data["ranking"], start=1):
        print(f"{rank:>4}. {word.upper()}  {value} guesses (mean {value / vocab.num_answers:.4f})")
    out = data["ruled_out"]
    print(
        f"{data['openers_done']:,} of {vocab.num_allowed:,} openers: {len(data['ranking'])} ranked "
        f"exactly below the cutoff {data['cutoff']}; ruled out by the root bound "
        f"{out['root bound']:,}, the second-level bound {out['second-level bound']:,}, the search "
        f"{out['search']:,}; {data['nodes']:,} nodes; {data['wall_s']:.0f} s"
    )
    if not data["finished"]:
        how = (
            f"kept in {journal}: the same command continues"
            if journal
            else ("nothing kept (add --save PATH)")
        )
        print(f"stopped before every opener was ranked; {how}")
    elif args.save:
        print(f"saved {args.save}")
    return 0


def _numba_without_blas() -> None:
    """numba's array support imported with scipy's BLAS hidden: where scipy is installed, importing
    ``numba.np.arraymath`` imports ``scipy.linalg`` to look for BLAS (0.17-0.27 s here, an eighth of
    solving from SALET), and the solver's kernels do no linear algebra. numba then has no BLAS in
    this process, so only the command's own process does it, never the library."""
    name = "scipy.linalg.cython_blas"
    if "numba.np.arraymath" in sys.modules or name in sys.modules:
        return
    sys.modules[name] = None  # type: ignore[assignment]  # importing it raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    except ImportError:
        pass  # no numba: the solver says so in one line
    finally:
        del sys.modules[name]


def command(argv: list[str], prog: str) -> int:
    """``wordle-gym optimal``: the command in the ``wordle-gym`` process (its own: no library around
    it)."""
    return main(argv, own_process=True, prog=prog)


if __name__ == "__main__":
    code = main(own_process=True)
    sys.stdout.flush()
    sys.stderr.flush()
    # Everything is written (trees and journals atomically, before main returns): the interpreter's
    # teardown of numba's, llvmlite's and scipy's modules (0.2 s of a 1.5 s solve) has nothing left
    # to do.
    os._exit(code)
