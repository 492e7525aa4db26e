"""The Dordle searches behind :mod:`research.boards_bound`'s bounds (the proofs are its docstring):
:func:`dordle_finish`, the most games any two-board policy from one opener finishes by the second,
third and fourth guess, and :func:`dordle_openers`, that bound for every opener (a journal that
continues, Ray tasks where asked), through the compiled kernel :mod:`research._pair_kernel`.
"""

from __future__ import annotations

import json
import math
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from research.order_bound import (
    _whole,
)
from wordle_gym.core.patterns import num_patterns
from wordle_gym.core.tables import pattern_array
from wordle_gym.core.words import Vocabulary
from wordle_gym.utils.files import atomic_write_json, check_writable, file_lock, quoted


def _tables(vocab: Vocabulary) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pattern table, each answer's guess index and each guess's answer index (or -1)."""
    table = np.ascontiguousarray(pattern_array(vocab))
    actions = np.array([vocab.allowed_index[w] for w in vocab.answers], dtype=np.int64)
    answer_of = np.full(vocab.num_allowed, -1, dtype=np.int64)
    answer_of[actions] = np.arange(vocab.num_answers)
    return table, actions, answer_of


def _cells(
    table: np.ndarray, answer_of: np.ndarray, first: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The opener's cells: the answers in cell order, where each cell starts, the cell of the answer
    each guess is (-1 for a guess that is no answer), and the cell of the opener itself (-1 for no
    answer)."""
    row = table[first].astype(np.int64)
    order = np.argsort(row, kind="stable").astype(np.int64)
    cell_of = np.unique(row, return_inverse=True)[1].astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(np.bincount(cell_of))]).astype(np.int64)
    guess_cell = np.where(answer_of >= 0, cell_of[np.maximum(answer_of, 0)], -1)
    return order, starts, guess_cell, int(guess_cell[first])


def _finished_by_two(starts: np.ndarray, cell_solved: int) -> int:
    """The ordered pairs finished by the second guess: the opener solves one board (an answer
    opener) and the second guess the other, at best one answer of each of the other cells, each way
    round."""
    return 2 * (len(starts) - 2) if cell_solved >= 0 else 0


def _pair_search(
    tables: tuple[np.ndarray, np.ndarray, np.ndarray],
    first: int,
    length: int,
    search: bool,
    progress: str | None,
) -> tuple[int, int, int, int, int]:
    """``(cells, by2, by3, by4, second guesses counted exactly)`` over the ordered pairs of the
    opener's cells:
    the kernel's ``pair_counts`` for each cell, searched (``search``) or from the class sizes alone;
    a bar named ``progress``, where given."""
    from research import _pair_kernel as kernel  # numba: only here

    table, actions, answer_of = tables
    order, starts, guess_cell, cell_solved = _cells(table, answer_of, first)
    sizes, nclass = kernel.class_sizes(table, answer_of, order, starts, num_patterns(length))
    # the answers guessed: the search reads it
    aa = np.ascontiguousarray(table[actions]) if search else table
    arrays = (
        order,
        starts,
        guess_cell,
        cell_solved,
        sizes,
        nclass,
        table,
        aa,
        answer_of,
        num_patterns(length),
    )
    cells = len(starts) - 1
    by3 = by4 = searched = 0
    stop = np.zeros(1, dtype=np.int64)
    # the kernel on a worker (it releases the GIL): Ctrl-C is taken at once
    with ThreadPoolExecutor(1) as pool:
        for i in tqdm(range(cells), desc=progress, unit="cell", disable=progress is None):
            c3, c4, exact = _stoppable(pool, stop, kernel.pair_counts, i, *arrays, search, stop)
            # an ordered pair of two cells counts once each way round
            by3 += int(2 * c3[i + 1 :].sum() + c3[i])
            by4 += int(2 * c4[i + 1 :].sum() + c4[i])
            searched += int(exact[i:].sum())
    return cells, _finished_by_two(starts, cell_solved), by3, by4, searched


def _stoppable(pool: ThreadPoolExecutor, stop: np.ndarray, call: Any, *args: Any) -> Any:
    """``call(*args)`` on ``pool``'s worker, waited for so that a Ctrl-C here sets ``stop`` (which
    the call polls), waits for it to end and is raised: a KeyboardInterrupt, never a result half
    counted."""
    future = pool.submit(call, *args)
    try:
        while True:
            try:
                return future.result(timeout=0.25)
            except FutureTimeout:
                continue
    except BaseException:
        stop[0] = 1
        wait([future])
        raise


def _check_two(vocab: Vocabulary) -> None:
    if vocab.num_answers < 2:
        raise ValueError(f"two boards need two answers at least; the list has {vocab.num_answers}")


def dordle_finish(vocab: Vocabulary, opener: str, progress: bool = False) -> dict[str, Any]:
    """The most ordered answer pairs ``(a, b)``, ``a != b``, that a two-board policy opening with
    ``opener`` finishes by the second, third and fourth guess, and the lower bound they give on its
    mean count (``5 - p2 - p3 - p4``; the module docstring proves it)."""
    word = opener.strip().lower()
    if word not in vocab.allowed_index:
        raise ValueError(f"the opener must be an allowed word; got {quoted(opener)}")
    _check_two(vocab)
    bar = f"Dordle from {word.upper()}" if progress else None
    cells, by2, by3, by4, searched = _pair_search(
        _tables(vocab), vocab.allowed_index[word], vocab.length, True, bar
    )
    n = vocab.num_answers
    pairs = n * (n - 1)
    return {
        "opener": word,
        "answers": n,
        "allowed": vocab.num_allowed,
        "cells": cells,
        "pairs": pairs,
        "finished_by": {"2": by2, "3": by3, "4": by4},
        "second_guesses_counted_exactly": searched,
        "lower_bound": 5 - (by2 + by3 + by4) / pairs,
    }


def dordle_openers(
    vocab: Vocabulary, save: str | Path | None = None, *args: Any, **options: Any
) -> dict[str, Any]:
    """:func:`_dordle_openers` (its documentation), the journal ``save`` locked for the whole run: a
    second run on it is refused at once (two runs on one journal kept the last writer's, losing
    hours of the other's)."""
    if save is None:
        return _dordle_openers(vocab, save, *args, **options)
    with file_lock(
        f"{save}.lock", "boards_bound --all-openers run on this journal", quoted(str(save))
    ):
        return _dordle_openers(vocab, save, *args, **options)


def _dordle_openers(
    vocab: Vocabulary,
    save: str | Path | None = None,
    progress: bool = False,
    max_minutes: float | None = None,
    openers: list[str] | None = None,
    refine_below: float | None = None,
    search_below: float | None = None,
    use_ray: bool = False,
) -> dict[str, Any]:
    """The bound on every two-board policy, whatever its opener: the least over the allowed first
    guesses of ``5 - p2 - p3 - p4``, with ``p4`` bounded from the class counts alone
    (``count_bounds`` of the kernel, well under a second an opener; :func:`dordle_finish` searches
    it exactly, minutes an opener). ``save``: a journal, written every minute and read back, so the
    same call continues a stopped one; ``max_minutes`` stops it after the opener it is on
    (``finished`` false). ``openers``: only these first guesses (a sample; its least bound bounds
    only the policies opening with one of them). ``refine_below``: then, for each opener whose bound
    is below it, ``p4`` bounded from the class sizes instead (a class pair finishes at most
    ``max(s, t)`` pairs: tighter, seconds an opener). ``search_below``: then each opener still below
    it (refined first) searched exactly as :func:`dordle_finish` does (minutes an opener, weakest
    first; the journal keeps each one searched). ``use_ray``: the openers run as Ray tasks, on the
    cluster at ``RAY_ADDRESS`` or else a local Ray instance (:func:`bound_openers`; the same
    counts). The least bound is proven as soon as every opener is counted, whether or not the
    refinement and the search are finished."""
    _check_two(vocab)
    words = _opener_words(vocab, openers)
    limits = {REFINE: [refine_below, search_below], SEARCH: [search_below]}
    journal = _OpenerJournal(vocab, words, save, limits)
    deadline = time.monotonic() + 60 * max_minutes if max_minutes else math.inf
    todo = [w for w in words if w not in journal.counts]
    with _DeferredInterrupt() as interrupt:
        # the journal after each opener; a Ctrl-C stops here, journal written
        def kept(force: bool = False) -> None:
            journal.checkpoint(force=force or interrupt.asked)
            if interrupt.asked:
                raise KeyboardInterrupt

        run = (vocab, use_ray, deadline, progress, kept)
        worked = _run_pass(journal, COUNT, todo, run)
        stopped = any(w not in journal.counts for w in todo)
        for step in (REFINE, SEARCH):
            # an opener done in this call: then no pass starts after the time limit
            if stopped or (worked and time.monotonic() > deadline):
                break
            todo = journal.below(step)
            worked = _run_pass(journal, step, todo, run) or worked
            stopped = any(w not in journal.done[step] for w in todo)
            if not stopped:  # every opener below its limit done: the journal says so
                journal.passed(step)
    journal.checkpoint(force=True)
    return journal.result()


def _opener_words(vocab: Vocabulary, openers: list[str] | None) -> list[str]:
    """The openers asked for (every allowed guess without ``openers``), each an allowed word."""
    words = list(vocab.allowed) if openers is None else [w.strip().lower() for w in openers]
    unknown = [w for w in words if w not in vocab.allowed_index]
    if unknown:
        raise ValueError(f"openers must be allowed words; got {quoted(unknown[0])}")
    return words


def _run_pass(journal: _OpenerJournal, step: str, todo: list[str], run: tuple) -> bool:
    """One pass (``step``: the counts, the refinement or the search) over the openers ``todo``,
    each result kept in ``journal`` as it comes (``run``: the lists, Ray or not, the deadline, the
    progress bar or not, and what keeps the journal); whether it did any."""
    vocab, use_ray, deadline, progress, kept = run
    desc = "Dordle openers" + {COUNT: "", REFINE: ", refined", SEARCH: ", searched"}[step]
    worked = False
    each = _each(vocab, todo, step, use_ray, deadline)
    for word, found in tqdm(each, desc, len(todo), disable=not progress):
        if step == COUNT:
            journal.counts[word] = found
        else:
            journal.counts[word][2] = found
            journal.done[step].add(word)
        worked = True
        kept(force=step == SEARCH)  # minutes an opener: each one kept
    return worked


class _OpenerJournal:
    """The every-opener Dordle bound's state: each opener's pair counts, the openers refined and
    searched, the bounds below which each pass is complete; read back from ``save`` where it
    exists (checked), and written there at most a minute apart."""

    def __init__(
        self,
        vocab: Vocabulary,
        words: list[str],
        save: str | Path | None,
        limits: dict[str, list[float | None]],
    ) -> None:
        self.vocab, self.words, self.save, self.limits = vocab, words, save, limits
        n = vocab.num_answers
        self.pairs = n * (n - 1)
        self.counts: dict[str, list[int]] = {}
        self.done: dict[str, set[str]] = {REFINE: set(), SEARCH: set()}
        # each pass done below these, over the calls
        self.complete: dict[str, float | None] = {REFINE: None, SEARCH: None}
        if save is not None and Path(save).is_file():
            self._read(Path(save))
        elif save is not None:
            check_writable(save)
        self.written = time.monotonic()

    def _read(self, save: Path) -> None:
        data = json.loads(save.read_text(encoding="utf-8"))
        vocab = self.vocab
        if not isinstance(data, dict) or data.get("lists") != vocab.digest or "counts" not in data:
            raise ValueError(
                f"{quoted(str(save))} is no Dordle opener bound of these lists; use another file"
            )
        counts = {w: list(v) for w, v in data["counts"].items() if isinstance(v, list)}
        valid = len(counts) == len(data["counts"]) and all(
            w in vocab.allowed_index and len(c) == 3 and all(_whole(x, 0, self.pairs) for x in c)
            for w, c in counts.items()
        )
        if not valid:
            raise ValueError(
                f"{quoted(str(save))} holds counts that cannot be right (out of "
                "range); use another file"
            )
        self.counts = counts
        self.done = {REFINE: set(data.get("refined", [])), SEARCH: set(data.get("searched", []))}
        self.complete = {REFINE: data.get("refined_below"), SEARCH: data.get("searched_below")}

    def result(self) -> dict[str, Any]:
        """The journal as the run returns and writes it."""
        pairs, counts = self.pairs, self.counts
        bounds = {w: 5 - sum(c) / pairs for w, c in counts.items()}
        weakest = sorted(bounds, key=lambda w: (bounds[w], w))
        finished = (
            all(w in counts for w in self.words)
            and not self.below(REFINE)
            and not self.below(SEARCH)
        )
        return {
            "lists": self.vocab.digest,
            "answers": self.vocab.num_answers,
            "allowed": self.vocab.num_allowed,
            "pairs": pairs,
            "finished": finished,
            "lower_bound": bounds[weakest[0]] if weakest else None,
            "weakest": [[w, bounds[w]] for w in weakest[:10]],
            "refined_below": self.complete[REFINE],
            "refined": sorted(self.done[REFINE]),
            "searched_below": self.complete[SEARCH],
            "searched": sorted(self.done[SEARCH]),
            "counts": counts,
        }

    def limit(self, step: str) -> float | None:
        """The bound below which the pass ``step`` takes an opener (None: the pass is not run)."""
        return max((b for b in self.limits[step] if b is not None), default=None)

    def below(self, step: str) -> list[str]:
        """The openers still to refine or to search, weakest first."""
        cut = self.limit(step)
        if cut is None:
            return []
        # a search is tighter than the refinement
        done = self.done[SEARCH] if step == SEARCH else self.done[REFINE] | self.done[SEARCH]
        bounds = {w: 5 - sum(c) / self.pairs for w, c in self.counts.items() if w not in done}
        return sorted((w for w, b in bounds.items() if b < cut), key=lambda w: (bounds[w], w))

    def passed(self, step: str) -> None:
        """The pass ``step`` done for every opener below its limit (where it has one)."""
        limit = self.limit(step)
        if limit is not None:
            self.complete[step] = max(b for b in (self.complete[step], limit) if b is not None)

    def checkpoint(self, force: bool = False) -> None:
        """The journal written, where it has a file, when a minute has passed (or ``force``)."""
        if self.save is not None and (force or time.monotonic() - self.written > 60):
            atomic_write_json(self.save, self.result())
            self.written = time.monotonic()


class _DeferredInterrupt:
    """Ctrl-C while the compiled kernels search is noted, not raised there (raised inside numba's
    code it came out as a ``SystemError``, and the journal of the last minute was lost): the run
    stops after the opener at work, its journal written. Only in the main thread (where Python runs
    signal handlers)."""

    asked = False

    def __enter__(self) -> _DeferredInterrupt:
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._note)
        return self

    def _note(self, signum: int, frame: Any) -> None:
        if not self.asked:
            print(
                "\nstopping after the opener at work; its journal keeps every opener done",
                file=sys.stderr,
            )
        self.asked = True

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def _opener_counts(
    tables: tuple[np.ndarray, np.ndarray, np.ndarray], length: int, first: int
) -> list[int]:
    """One opener's ``[by2, by3, by4]``, ``by4`` bounded from the class counts alone (well under a
    second)."""
    from research import _pair_kernel as kernel  # numba: only here

    table, _, answer_of = tables
    order, starts, guess_cell, cell_solved = _cells(table, answer_of, first)
    nclass = kernel.class_counts(table, answer_of, order, starts, num_patterns(length))
    by3, by4 = kernel.count_bounds(starts, guess_cell, cell_solved, nclass)
    return [_finished_by_two(starts, cell_solved), int(by3), int(by4)]


def _opener_refined(
    tables: tuple[np.ndarray, np.ndarray, np.ndarray], length: int, first: int
) -> int:
    """One opener's ``by4`` bounded from the class sizes (tighter; seconds)."""
    return _pair_search(tables, first, length, False, None)[3]


def _opener_searched(
    tables: tuple[np.ndarray, np.ndarray, np.ndarray], length: int, first: int
) -> int:
    """One opener's ``by4`` searched exactly, as :func:`dordle_finish` does (minutes)."""
    return _pair_search(tables, first, length, True, None)[3]


COUNT, REFINE, SEARCH = "count", "refine", "search"
PASSES = {COUNT: _opener_counts, REFINE: _opener_refined, SEARCH: _opener_searched}
"""One opener's counts, by pass: the count pass (``[by2, by3, by4]``), the refinement and the exact
search (each ``by4``)."""


def bound_openers(
    lists: tuple[list[str], list[str]], words: list[str], step: str
) -> dict[str, Any]:
    """The work of one Ray task: each opener's counts by the pass ``step`` (:data:`PASSES`) for the
    lists ``(answers, allowed)``, on one thread (Ray gives a task one CPU)."""
    import numba

    numba.set_num_threads(1)
    vocab = Vocabulary(lists[0], lists[1])
    tables, count = _tables(vocab), PASSES[step]
    return {w: count(tables, vocab.length, vocab.allowed_index[w]) for w in words}


RAY_CHUNK = {COUNT: 64, REFINE: 2, SEARCH: 1}
"""Openers in one Ray task: the count pass takes 0.1-0.3 s an opener, the refinement seconds, the
search minutes."""


def _each(
    vocab: Vocabulary, words: list[str], step: str, use_ray: bool, deadline: float = math.inf
) -> Iterator[tuple[str, Any]]:
    """``(opener, its counts)`` by the pass ``step`` (:data:`PASSES`) for each of ``words``: here,
    one at a time, or from Ray tasks (:func:`bound_openers`) as they finish, on the cluster at
    ``RAY_ADDRESS`` or else a local Ray instance, two tasks a CPU at a time. None is started after
    ``deadline`` (a ``time.monotonic()``; one opener here at least), and the tasks started then are
    still waited for (Ray 2.60 aborts the driver when a task is cancelled as it ends, so none
    is)."""
    if not words:
        return
    if not use_ray:
        tables, count = _tables(vocab), PASSES[step]
        for word in words:
            yield word, count(tables, vocab.length, vocab.allowed_index[word])
            if time.monotonic() > deadline:
                return
        return
    import ray

    if not ray.is_initialized():
        ray.init(log_to_driver=False, include_dashboard=False)
    task = ray.remote(num_cpus=1)(bound_openers)
    lists = ray.put((list(vocab.answers), list(vocab.allowed)))
    chunk = RAY_CHUNK[step]
    chunks = [words[i : i + chunk] for i in range(0, len(words), chunk)]
    window = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    pending: list[Any] = []
    while chunks or pending:
        while chunks and len(pending) < window and (time.monotonic() <= deadline or not pending):
            pending.append(task.remote(lists, chunks.pop(0), step))
        if time.monotonic() > deadline:
            chunks = []
        done, pending = ray.wait(pending, num_returns=1)
        yield from ray.get(done[0]).items()
