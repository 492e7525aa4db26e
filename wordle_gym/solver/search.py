"""Exact optimal play: the decision tree that minimises the expected number of guesses.

:func:`solve` searches, for a given first guess, the tree that solves every answer within the guess
limit with the fewest guesses in total (the search is in :mod:`wordle_gym.solver._kernel`, compiled
by numba, a dependency). Normal and hard mode, any word lists and lengths the env accepts. With
SALET on the real lists it proves 7920 guesses over the 2315 answers (mean 3.4212), 8122 in hard
mode (3.5084).

:class:`OptimalTree` is the result: flat int32 arrays (a node's guess, its children by feedback
pattern), saved as ``.npz`` without pickles and loaded in milliseconds. The SALET trees for the
real lists ship in ``wordle_gym/data/solver/``; the agent
:class:`~wordle_agents.solvers.optimal_agent.OptimalSolver` plays a tree through the harness
(``wordle-gym eval --agent optimal --opener salet [--hard]``).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import queue
import time
import zipfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from tqdm import tqdm

from wordle_gym.core.config import MAX_GUESSES
from wordle_gym.core.patterns import (
    ALPHABET,
    letter_codes,
    num_patterns,
    pattern_tiles,
)
from wordle_gym.core.tables import pattern_array
from wordle_gym.core.words import Vocabulary
from wordle_gym.solver import solver_data
from wordle_gym.utils.files import atomic_write, open_regular, quoted

if TYPE_CHECKING:
    pass

# Solving and saving a tree never imports torch (``python -m wordle_agents.commands.optimal``:
# torch's import took longer than the search); playing one through the harness does, inside the
# methods that need it.

FORMAT = "wordle-gym optimal tree 1"
WORK = 2
"""How the kernel counts a search's work (a work budget's unit), raised when its order or its
counting changes: the position store keeps the works of one such version."""
POLL_S = 0.2
"""How often a waiting search checks its time limit and Ctrl-C (seconds)."""
MAX_BEST_OF = 100
"""The most greedy openers "best-of-K" solves from (each is a full search)."""
FIRST_GUESS_BUDGET = 1_500_000_000
"""``assist --optimal``: the work (:data:`WORK`) a first guess's searches get, about 5 s of one core
here; past it the guess is given its proven bounds."""


def compiled_kernel() -> Any:
    """The numba search kernel (:mod:`wordle_gym.solver._kernel`), else an ImportError."""
    try:
        import numba  # noqa: F401

        from wordle_gym.solver import _kernel
    except ImportError as exc:
        raise ImportError(f"the exact solver needs numba ({exc}): pip install numba") from None
    return _kernel


@dataclass
class OptimalTree:
    """A decision tree: node 0 is the first guess; a node's children are keyed by feedback pattern
    id."""

    opener: str
    hard_mode: bool
    max_guesses: int
    lists: str
    """:attr:`Vocabulary.digest` of the lists it was solved on."""
    total: int
    """Guesses over all answers (each answer's guesses, the winning one included)."""
    num_answers: int
    guesses: np.ndarray  # (nodes,) int32: the action each node guesses
    # (nodes + 1,) int32: node i's children are child_*[start[i]:start[i+1]]
    child_start: np.ndarray
    child_pattern: np.ndarray  # (edges,) int32, increasing within a node
    child_node: np.ndarray  # (edges,) int32
    nodes_searched: int = 0
    """Nodes the search expanded (not saved)."""
    seconds: dict[str, float] = field(default_factory=dict)
    """Where :func:`solve` spent its time: ``setup`` (pattern table, kernel), ``search``,
    ``extract`` (not saved)."""

    @property
    def mean(self) -> float:
        """Mean guesses per answer."""
        return self.total / self.num_answers

    def child(self, node: int, pattern: int) -> int | None:
        """The node reached from ``node`` on feedback ``pattern`` (None: not in the tree)."""
        lo, hi = int(self.child_start[node]), int(self.child_start[node + 1])
        i = lo + int(np.searchsorted(self.child_pattern[lo:hi], pattern))
        return int(self.child_node[i]) if i < hi and self.child_pattern[i] == pattern else None

    def play(self, vocab: Vocabulary) -> np.ndarray:
        """Guesses the tree takes on each answer of ``vocab`` (0 where it fails within its
        limit)."""
        table = pattern_array(vocab)
        solved = num_patterns(vocab.length) - 1
        used = np.zeros(vocab.num_answers, dtype=np.int64)
        for answer in range(vocab.num_answers):
            node: int | None = 0
            for turn in range(1, self.max_guesses + 1):
                pattern = int(table[self.guesses[node], answer])
                if pattern == solved:
                    used[answer] = turn
                    break
                node = self.child(node, pattern)
                if node is None:
                    break
        return used

    def check(
        self,
        vocab: Vocabulary,
        hard_mode: bool,
        max_guesses: int,
        opener: str | None = None,
        source: str = "tree",
    ) -> OptimalTree:
        """This tree, if it was solved for these lists, mode, guess limit and (unless None) first
        guess, and plays as its header says: its first guess is its opener, it wins every answer
        within its limit with ``total`` guesses in all. Otherwise a ValueError that says what
        differs (a tree is never played on trust)."""
        wanted = {
            "lists": vocab.digest,
            "hard_mode": hard_mode,
            "max_guesses": max_guesses,
            "num_answers": vocab.num_answers,
        }
        have = {k: getattr(self, k) for k in wanted}
        if opener is not None:
            wanted["opener"], have["opener"] = opener.lower(), str(self.opener).lower()
        if have != wanted:
            differ = ", ".join(
                f"{k} {have[k]!r} (wanted {wanted[k]!r})" for k in wanted if have[k] != wanted[k]
            )
            raise ValueError(f"{source} does not fit: {differ}")
        if not (int(self.guesses.min()) >= 0 and int(self.guesses.max()) < vocab.num_allowed):
            raise ValueError(f"{source} guesses words outside the allowed list")
        if vocab.allowed[int(self.guesses[0])] != str(self.opener).lower():
            raise ValueError(
                f"{source} says it opens with {str(self.opener).upper()} but its first guess is "
                f"{vocab.allowed[int(self.guesses[0])].upper()}"
            )
        used = self.play(vocab)
        if used.min() < 1 or int(used.sum()) != self.total:
            raise ValueError(
                f"{source} does not play as its header says (total {self.total}, played "
                f"{int(used.sum())}{', some answers unsolved' if used.min() < 1 else ''})"
            )
        return self

    def save(self, path: str | Path) -> Path:
        """Write an ``.npz`` (arrays and a JSON header, no pickles) atomically."""
        meta = {
            "format": FORMAT,
            "opener": self.opener,
            "hard_mode": self.hard_mode,
            "total": self.total,
            "max_guesses": self.max_guesses,
            "lists": self.lists,
            "num_answers": self.num_answers,
        }
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer,
            meta=np.array(json.dumps(meta)),
            guesses=self.guesses,
            child_start=self.child_start,
            child_pattern=self.child_pattern,
            child_node=self.child_node,
        )
        return atomic_write(path, lambda handle: handle.write(buffer.getvalue()))

    @classmethod
    def load(cls, path: str | Path) -> OptimalTree:
        """Read a tree written by :meth:`save`; checked. No code runs (no pickles), and every
        array's declared size is checked against the file and :data:`MAX_TREE_BYTES` before it is
        read."""
        names = ("guesses", "child_start", "child_pattern", "child_node")
        try:
            arrays = _read_npz(path, ("meta", *names))
            meta = _tree_header(json.loads(str(arrays.pop("meta"))))
            tree = cls(**meta, **{k: arrays[k].astype(np.int32) for k in names})
        except (
            OSError,
            EOFError,
            KeyError,
            TypeError,
            ValueError,
            RecursionError,
            zipfile.BadZipFile,
        ) as exc:
            raise ValueError(
                f"{quoted(str(path), 200)}: not an optimal-play tree ({exc})"
            ) from None
        if not tree._consistent():
            raise ValueError(
                f"{quoted(str(path), 200)}: not an optimal-play tree (inconsistent node arrays)"
            )
        return tree

    def _consistent(self) -> bool:
        """Whether the node arrays make a tree: each node's children a run of the edge arrays,
        in order, every child a node after the root."""
        nodes, edges = len(self.guesses), self.child_start
        return not (
            nodes == 0
            or self.guesses.ndim != 1
            or len(edges) != nodes + 1
            or edges[0] != 0
            or edges[-1] != len(self.child_node)
            or np.any(np.diff(edges) < 0)
            or len(self.child_pattern) != len(self.child_node)
            or (
                len(self.child_node)
                and (self.child_node.min() < 1 or self.child_node.max() >= nodes)
            )
        )


_TREE_FIELDS = {
    "opener": str,
    "hard_mode": bool,
    "max_guesses": int,
    "lists": str,
    "total": int,
    "num_answers": int,
}
"""A tree file's header fields (besides its format) and their types."""


def _tree_header(meta: Any) -> dict[str, Any]:
    """A tree file's header, checked: a JSON object of this format with every field of
    :data:`_TREE_FIELDS` of its type (a ValueError saying which is not)."""
    if not isinstance(meta, dict):
        raise ValueError(f"its header is a JSON {type(meta).__name__}, not an object")
    if meta.get("format") != FORMAT:
        raise ValueError(f"format {quoted(str(meta.get('format')))}, expected {FORMAT!r}")
    for key, kind in _TREE_FIELDS.items():
        if not isinstance(meta.get(key), kind) or (kind is int and isinstance(meta[key], bool)):
            raise ValueError(f"header field {key!r} is missing or not a {kind.__name__}")
    return {k: meta[k] for k in _TREE_FIELDS}


MAX_TREE_BYTES = 64 << 20
"""Bound on one array of a tree file (the SALET tree's are about 10 kB)."""


def _read_npz(path: str | Path, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The named arrays of an ``.npz``, each checked from its header first: integer (or, for a
    header, text) data, no pickles, a size within :data:`MAX_TREE_BYTES` and within what the file
    holds."""
    out = {}
    with open_regular(path, "tree file") as raw, zipfile.ZipFile(raw) as archive:
        for name in names:
            info = archive.getinfo(f"{name}.npy")
            with archive.open(info) as handle:
                fmt = np.lib.format
                version = fmt.read_magic(handle)
                read_header = (
                    fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
                )
                shape, fortran, dtype = read_header(handle)
                if dtype.kind not in ("U" if name == "meta" else "iu") or dtype.hasobject:
                    raise ValueError(f"array {name!r} holds {dtype}")
                size = math.prod(shape) * dtype.itemsize
                if size > MAX_TREE_BYTES or size > info.file_size:
                    raise ValueError(
                        f"array {name!r} declares {size:,} bytes (the file holds "
                        f"{info.file_size:,})"
                    )
                data = handle.read(size)
                if len(data) != size:
                    raise ValueError(f"array {name!r} is cut short")
                out[name] = np.frombuffer(data, dtype=dtype).reshape(
                    shape, order="F" if fortran else "C"
                )
    return out


class _Search:
    """The constant arrays of one (lists, mode, limit) and the kernel's cache."""

    def __init__(
        self, vocab: Vocabulary, hard_mode: bool, max_guesses: int, lose: bool = False
    ) -> None:
        """``lose``: an answer not found within ``max_guesses`` costs ``max_guesses + 1`` (else it
        is not allowed)."""
        self.kernel = compiled_kernel()
        self.lose = lose
        self.vocab, self.hard_mode, self.max_guesses = vocab, hard_mode, max_guesses
        self.table = pattern_array(vocab)  # (allowed, answers)
        # The kernel reads it answer-major: a node's few answers are then a few rows read along the
        # guesses, where (allowed, answers) costs a cache line per (guess, answer) (the search ran
        # 4x slower).
        self.by_answer = np.ascontiguousarray(self.table.T)
        self.actions = np.array([vocab.allowed_index[w] for w in vocab.answers], dtype=np.int64)
        self.everything = np.arange(vocab.num_allowed, dtype=np.int32)
        self.codes = letter_codes(vocab.allowed).astype(np.int64)
        self.counts = np.zeros((vocab.num_allowed, ALPHABET), dtype=np.int64)
        np.add.at(self.counts, (np.arange(vocab.num_allowed)[:, None], self.codes), 1)
        self.tiles = pattern_tiles(vocab.length).astype(np.int64)
        rng = np.random.default_rng(20220101)
        self.keys_a = rng.integers(-(2**62), 2**62, size=vocab.num_answers, dtype=np.int64)
        self.keys_b = rng.integers(-(2**62), 2**62, size=vocab.num_answers, dtype=np.int64)
        self.new_cache = self.kernel.new_cache
        self.solved = num_patterns(vocab.length) - 1
        # the most feedback patterns one guess gets from the answers: no guess splits a set of
        # answers into more (the kernel's bound on a bucket it has not searched)
        answers, patterns = np.arange(vocab.num_answers, dtype=np.int32), self.solved + 1
        splits, _ = self.kernel.split_counts(self.by_answer, answers, self.everything, patterns)
        self.most = int(splits.max())
        # each guess's buckets in all the answers: no set of answers gets more from it (the root's
        # caps: a guess its cap bounds at beta or more is not scanned)
        self.caps = splits.astype(np.int64)
        # [0] set to abandon every running search (time limit, Ctrl-C); [1] a work budget (0: none)
        # and [2] the work spent against it (the kernel's halted)
        self.stop = np.zeros(3, dtype=np.int64)
        self._compile()

    def _compile(self) -> None:
        """Every kernel the searches call, compiled (or loaded from numba's cache) here, on the
        calling thread, where Ctrl-C stops it: a worker thread that compiles a kernel on its first
        call cannot be stopped, and an interrupt then waited for the compiler (11 s on a fresh
        checkout here; in CI, over 120 s)."""
        cache, green, need = self.new_cache(), *self.root()
        self.kernel.clear_cache(cache)
        self.kernel.cache_size(cache)
        if self.hard_mode:
            self.kernel.advance_constraint(
                0, 0, self.codes, self.tiles, green, need, green.copy(), need.copy()
            )
        self.value(np.zeros(1, dtype=np.int32), 1, green, need, cache, np.zeros(1, dtype=np.int64))
        self.greedy(np.zeros(1, dtype=np.int32), 1, green, need)
        self.kernel.closed_value(1, 1, True)  # the oracle reads it from Python

    def root(self) -> tuple[np.ndarray, np.ndarray]:
        return np.full(self.vocab.length, -1, dtype=np.int64), np.zeros(ALPHABET, dtype=np.int64)

    def child_constraint(
        self, g: int, p: int, green: np.ndarray, need: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        out_green, out_need = green.copy(), need.copy()
        if self.hard_mode:
            self.kernel.advance_constraint(
                g, p, self.codes, self.tiles, green, need, out_green, out_need
            )
        return out_green, out_need

    def buckets(self, g: int, members: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """(pattern, answers) of each feedback ``g`` can get from ``members``, largest first."""
        patterns = self.table[g, members]
        order = np.argsort(patterns, kind="stable")
        values, starts = np.unique(patterns[order], return_index=True)
        groups = np.split(members[order], starts[1:])
        return sorted(zip(values.tolist(), groups, strict=True), key=lambda pg: -len(pg[1]))

    def value(
        self,
        members: np.ndarray,
        left: int,
        green: np.ndarray,
        need: np.ndarray,
        cache: Any,
        stats: np.ndarray,
        beta: int | None = None,
    ) -> int:
        """The least total guesses for ``members`` with ``left`` guesses each (kernel.INF:
        impossible), or, when that is ``beta`` or more, a lower bound of at least ``beta`` (the
        kernel's fail-soft cutoff).

        Runs on the calling thread until done or :attr:`stop` is set (then its value is
        meaningless)."""
        beta = self.kernel.INF if beta is None else beta
        return int(
            self.kernel.solve(
                self.by_answer,
                members.astype(np.int32, copy=False),
                left,
                beta,
                cache,
                self.keys_a,
                self.keys_b,
                self.hard_mode,
                self.codes,
                self.counts,
                self.tiles,
                green,
                need,
                stats,
                self.stop,
                self.lose,
                self.actions,
                self.everything,
                self.most,
                self.caps,
            )
        )

    def greedy(self, members: np.ndarray, left: int, green: np.ndarray, need: np.ndarray) -> int:
        """The total of the greedy policy of :func:`_optimal_kernel.greedy` (most buckets at each
        node) for ``members`` with ``left`` guesses: a proven upper bound on :meth:`value`
        (kernel.INF where it loses a game and losses are not allowed)."""
        return int(
            self.kernel.greedy(
                self.by_answer,
                members.astype(np.int32, copy=False),
                left,
                self.hard_mode,
                self.codes,
                self.counts,
                self.tiles,
                green,
                need,
                self.lose,
                self.actions,
                self.everything,
            )
        )

    def worker_caches(self) -> tuple[int, queue.Queue[tuple[Any, np.ndarray]], list[np.ndarray]]:
        """For searches on worker threads (the kernel releases the GIL): how many workers, a queue
        of one (cache, node counter) per worker to borrow with :meth:`borrow`, and the counters."""
        workers = max(1, min(os.cpu_count() or 1, 8))
        spare: queue.Queue[tuple[Any, np.ndarray]] = queue.Queue()
        stats = [np.zeros(1, dtype=np.int64) for _ in range(workers)]
        for counter in stats:
            spare.put((self.new_cache(), counter))
        return workers, spare, stats

    @contextlib.contextmanager
    def borrow(
        self, spare: queue.Queue[Any], max_cache_entries: int
    ) -> Iterator[tuple[Any, np.ndarray]]:
        """A worker's (cache, counter) from ``spare``, emptied first when it holds more than
        ``max_cache_entries``."""
        cache, counter = spare.get()
        try:
            if self.kernel.cache_size(cache) > max_cache_entries:
                self.kernel.clear_cache(cache)
            yield cache, counter
        finally:
            spare.put((cache, counter))

    def gather(
        self, futures: dict[Future, Any], deadline: float, bar: Any, stats: list[np.ndarray]
    ) -> Iterator[Any]:
        """Each of ``futures`` (kernel calls on worker threads) as it completes. The calling thread
        stays free, so Ctrl-C and the ``deadline`` (a ``time.perf_counter()`` reading) stop the
        search within a poll (:data:`POLL_S`); ``bar`` shows the nodes searched so far.

        Completed futures arrive on a queue (each future's done callback puts it there): the calling
        thread waits on the queue alone and never holds a future's lock, so an interrupt cannot
        leave one held (a ``concurrent.futures.wait`` over thousands of futures takes every one's
        lock, and a Ctrl-C in the middle of it left some held: the workers then hung on them for
        ever)."""
        arrived: queue.SimpleQueue[Future] = queue.SimpleQueue()
        for future in futures:
            future.add_done_callback(arrived.put)
        remaining = len(futures)
        try:
            while remaining:
                try:
                    future = arrived.get(timeout=POLL_S)
                except queue.Empty:
                    future = None
                if future is not None:
                    remaining -= 1
                    if not future.cancelled():
                        yield future.result()
                if bar is not None:
                    bar.set_postfix_str(f"{int(sum(s[0] for s in stats)):,} nodes", refresh=False)
                    bar.update(0)  # redrawn at tqdm's own pace
                if remaining and time.perf_counter() > deadline:
                    raise TimeoutError("time limit reached before every answer was solved")
        except (Exception, KeyboardInterrupt, GeneratorExit):
            self.stop[0] = 1  # the workers unwind at their next node, caching nothing more
            for future in futures:
                future.cancel()
            raise

    def run(
        self,
        call: Any,
        bar: Any = None,
        stats: np.ndarray | None = None,
        deadline: float = math.inf,
    ) -> Any:
        """``call()`` (a kernel search) on a worker thread, stopped at once by Ctrl-C (see
        :meth:`gather`), or with TimeoutError at ``deadline`` (a ``time.perf_counter()`` reading);
        either way the cache stays usable."""
        with ThreadPoolExecutor(1) as pool:
            try:
                return next(
                    self.gather(
                        {pool.submit(call): None}, deadline, bar, [] if stats is None else [stats]
                    )
                )
            except BaseException:
                # also for a Ctrl-C before gather began: the search unwinds at its next node
                self.stop[0] = 1
                raise
            finally:
                pool.shutdown(wait=True)
                self.stop[0] = 0  # nothing half-done was cached: the cache stays usable

    def hard_valid(self, g: int, green: np.ndarray, need: np.ndarray) -> bool:
        return not self.hard_mode or bool(
            self.kernel.valid(g, self.codes, self.counts, green, need)
        )

    def best_guess(
        self, members: np.ndarray, left: int, green: np.ndarray, need: np.ndarray, cache: Any
    ) -> int:
        """The optimal guess at a node the search solved exactly (as an action)."""
        if len(members) <= 2:
            return int(self.actions[members[0]])
        hard = self.kernel.constraint_key(green, need) if self.hard_mode else np.int64(0)
        members = members.astype(np.int32)
        found = self.kernel.cached(cache, members, self.keys_a, self.keys_b, left, hard)
        if found[1] != 1:  # dropped by a cache bound (or only a bound was kept): solve it again
            self.value(members, left, green, need, cache, np.zeros(1, dtype=np.int64))
            found = self.kernel.cached(cache, members, self.keys_a, self.keys_b, left, hard)
        if found[1] != 1:
            raise RuntimeError("internal error: a node of the optimal tree was not solved exactly")
        return int(found[2])


def solve(
    vocab: Vocabulary | None = None,
    opener: str = "salet",
    hard_mode: bool = False,
    max_guesses: int = 6,
    time_limit: float | None = None,
    max_cache_entries: int = 5_000_000,
    progress: bool = True,
) -> OptimalTree:
    """The optimal tree that starts with ``opener``; raises ValueError if no tree solves every
    answer within ``max_guesses``, TimeoutError past ``time_limit`` seconds (within :data:`POLL_S`).

    The cache is emptied between first-guess buckets when it holds more than ``max_cache_entries``
    (the tree's nodes that were dropped are solved again when it is read out).
    """
    vocab = vocab or Vocabulary()
    first = vocab.action(opener)
    check_limits(max_guesses, time_limit, max_cache_entries)
    began = time.perf_counter()
    search = _Search(vocab, hard_mode, max_guesses)
    start = time.perf_counter()
    deadline = math.inf if time_limit is None else start + time_limit
    members = np.arange(vocab.num_answers, dtype=np.int32)
    green, need = search.root()
    buckets = [(p, group) for p, group in search.buckets(first, members) if p != search.solved]
    # The first guess's buckets are disjoint, so nothing is lost by solving them on separate
    # threads, each with its own cache.
    workers, spare, stats = search.worker_caches()

    def solve_bucket(p: int, group: np.ndarray) -> tuple[int, int, Any]:
        with search.borrow(spare, max_cache_entries) as (cache, counter):
            child_green, child_need = search.child_constraint(first, p, green, need)
            return (
                p,
                search.value(group, max_guesses - 1, child_green, child_need, cache, counter),
                cache,
            )

    total, caches = vocab.num_answers, {}
    bar = tqdm(
        total=vocab.num_answers,
        desc=f"optimal tree from {opener.upper()}",
        unit="answer",
        disable=not progress,
    )
    bar.update(vocab.num_answers - sum(len(g) for _, g in buckets))
    with ThreadPoolExecutor(workers) as pool:
        futures = {pool.submit(solve_bucket, p, group): len(group) for p, group in buckets}
        sizes = {p: len(group) for p, group in buckets}
        try:
            for p, value, cache in search.gather(futures, deadline, bar, stats):
                if value >= search.kernel.INF:
                    raise ValueError(
                        f"no tree from {opener.upper()} solves every answer within "
                        f"{max_guesses} guesses"
                    )
                total += value
                caches[p] = cache
                bar.update(sizes[p])
        except BaseException as exc:
            search.stop[0] = 1  # the workers unwind at their next node
            if isinstance(exc, TimeoutError):
                raise TimeoutError(
                    f"time limit of {time_limit:g} s reached before every answer was solved"
                ) from None
            raise
        finally:
            bar.close()
    searched = time.perf_counter()
    tree = _extract(search, opener, first, members, total, caches)
    tree.nodes_searched = int(sum(counter[0] for counter in stats))
    tree.seconds = {
        "setup": start - began,
        "search": searched - start,
        "extract": time.perf_counter() - searched,
    }
    return tree


def check_limits(max_guesses: Any, time_limit: Any = None, max_cache_entries: Any = 1) -> None:
    """The solver's limits, refused in one line when out of range (before any work)."""
    if (
        isinstance(max_guesses, bool)
        or not isinstance(max_guesses, int)
        or not 1 <= max_guesses <= MAX_GUESSES
    ):
        raise ValueError(
            f"max_guesses must be an integer from 1 to {MAX_GUESSES}; got "
            f"{quoted(str(max_guesses))}"
        )
    if time_limit is not None and not (
        isinstance(time_limit, int | float) and 0 < time_limit < math.inf
    ):
        raise ValueError(
            f"time_limit must be a positive number of seconds; got {quoted(str(time_limit))}"
        )
    if (
        isinstance(max_cache_entries, bool)
        or not isinstance(max_cache_entries, int)
        or max_cache_entries < 1
    ):
        raise ValueError(
            f"max_cache_entries must be an integer >= 1; got {quoted(str(max_cache_entries))}"
        )


def _extract(
    search: _Search,
    opener: str,
    first: int,
    members: np.ndarray,
    total: int,
    caches: dict[int, Any],
) -> OptimalTree:
    """The tree's arrays, from the search caches (``caches[p]`` solved the first guess's bucket
    ``p``), breadth-first, so that the children of a node are contiguous."""
    guesses: list[int] = []
    children: list[list[tuple[int, int]]] = []
    todo = [(members, search.max_guesses, *search.root(), first, None)]
    head = 0
    while head < len(todo):
        node_members, left, green, need, guess, cache = todo[head]
        head += 1
        guesses.append(guess)
        edges = []
        for p, group in sorted(search.buckets(guess, node_members), key=lambda pg: pg[0]):
            if p == search.solved:
                continue
            child_cache = caches[p] if cache is None else cache
            child_green, child_need = search.child_constraint(guess, p, green, need)
            next_guess = search.best_guess(group, left - 1, child_green, child_need, child_cache)
            edges.append((p, len(todo)))
            todo.append((group, left - 1, child_green, child_need, next_guess, child_cache))
        children.append(edges)
    start = np.zeros(len(guesses) + 1, dtype=np.int32)
    start[1:] = np.cumsum([len(e) for e in children])
    flat = [edge for edges in children for edge in edges]
    return OptimalTree(
        opener=opener,
        hard_mode=search.hard_mode,
        max_guesses=search.max_guesses,
        lists=search.vocab.digest,
        total=total,
        num_answers=search.vocab.num_answers,
        guesses=np.array(guesses, dtype=np.int32),
        child_start=start,
        child_pattern=np.array([p for p, _ in flat], dtype=np.int32),
        child_node=np.array([c for _, c in flat], dtype=np.int32),
    )


def best_of(spec: str) -> int:
    """K of an opener "best-of-K" (0 for a word); a malformed "best-of-..." is a ValueError."""
    text = spec.lower()
    if not text.startswith("best-of-"):
        return 0
    count = text.removeprefix("best-of-")
    if not (count.isascii() and count.isdigit()) or not 1 <= int(count) <= MAX_BEST_OF:
        raise ValueError(
            f"opener {quoted(spec)} is malformed; expected a word or best-of-K with K from 1 to "
            f"{MAX_BEST_OF}"
        )
    return int(count)


def shipped_tree(opener: str, hard_mode: bool) -> Path:
    """Where the shipped tree for ``opener`` on the real lists lives."""
    return solver_data() / f"optimal_{opener.lower()}_{'hard' if hard_mode else 'normal'}.npz"


def shipped_trees(opener: str, hard_mode: bool) -> list[Path]:
    """Every shipped tree from ``opener`` in this mode, whatever its lists
    (``optimal_tarse_today_normal.npz``: today's game; each file records its lists)."""
    mode = "hard" if hard_mode else "normal"
    return sorted(solver_data().glob(f"optimal_{opener.lower()}_*{mode}.npz"))
