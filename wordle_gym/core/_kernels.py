"""Numba kernels of the engine's per-step work for big CPU batches, run by
:class:`~wordle_gym.core.compiled.CompiledGame` (the named copy of
:class:`~wordle_gym.core.game.Game`).

Each is a copy of ``Game``'s torch code, one game's row at a time: ``score``
(:func:`~wordle_gym.core.rules.feedback`), ``learn`` (``Game._learn`` and ``_deduce``),
``reset_rows`` and ``fill_rows`` (``Game.reset``), ``narrow_candidates`` (``Game._narrow``),
``candidates_mask``, ``candidates_bits`` and ``hard_mask`` (the masks, bool or packed) and
``encode_knowledge`` (the "knowledge" observation). ``tests/envs/test_scalar.py`` holds them to the
scalar engine step by step, ``tests/envs/test_vector.py`` to torch. Each kernel does rows
``start:stop`` and releases the GIL; :func:`run` splits a batch over ``torch.get_num_threads()``
threads (numba's own thread pools are left alone: they are not fork-safe everywhere), while the
step's own torch calls run on one thread (:func:`torch_on_one_thread`).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import torch

from wordle_gym.utils.files import cached_njit

MIN_SPLIT_BYTES = 1 << 20  # below this much mask a batch runs on the calling thread
# from this many rows (boards) a CPU step runs the step's compiled copies (fewer: torch)
STEP_MIN_ROWS = 512
KEEP_BUFFERS = 4  # mask arrays a game keeps for reuse


@functools.cache
def available() -> bool:
    """Whether numba is installed (a dependency; without it, on a Python it does not support yet,
    torch runs the masks). Found, not imported: numba is imported at a kernel's first call, so a
    game that calls none (one env) never pays its half second of start-up."""
    return importlib.util.find_spec("numba") is not None


class Kernel:
    """A function of this module, compiled by numba on its first call (cached on disk by numba)."""

    def __init__(self, function: Callable[..., None]) -> None:
        self.python = function
        self._compiled: Callable[..., None] | None = None
        functools.update_wrapper(self, function)

    def compiled(self) -> Callable[..., None]:
        with _compile_lock:
            if self._compiled is None:
                self._compiled = cached_njit(nogil=True)(self.python)
        return self._compiled


_compile_lock = threading.Lock()


def run(kernel: Kernel, rows: int, cost: int, *args: Any) -> None:
    """``kernel(start, stop, *args)`` over ``rows`` rows, split over torch's thread count when the
    work (``cost`` bytes of mask) is worth it."""
    function = kernel.compiled()
    threads = min(getattr(_split, "threads", 0) or torch.get_num_threads(), rows)
    if threads <= 1 or cost < MIN_SPLIT_BYTES:
        function(0, rows, *args)
        return
    bounds = [rows * i // threads for i in range(threads + 1)]
    with _pool_lock:
        pool = _pool(threads)
    futures = [pool.submit(function, bounds[i], bounds[i + 1], *args) for i in range(1, threads)]
    function(bounds[0], bounds[1], *args)
    for future in futures:
        future.result()


_split = threading.local()  # in torch_on_one_thread: torch's thread count, for run()


@functools.cache
def openmp_backend() -> bool:
    """Whether torch's CPU operators run on OpenMP (``torch.__config__.parallel_info()``)."""
    return "ATen parallel backend: OpenMP" in torch.__config__.parallel_info()


@contextlib.contextmanager
def torch_on_one_thread() -> Iterator[None]:
    """Torch calls on the calling thread alone (``torch.set_num_threads(1)``), while :func:`run`
    still splits the compiled kernels over torch's thread count; restored on the way out,
    re-entrant.

    A big CPU step runs both: compiled kernels, split over the cores, and torch calls on the batch
    (gathers, copies and compares of a few MB, memory-bound). After each parallel torch call torch's
    idle OpenMP workers spin for a while (libgomp's default wait policy), on the cores where the
    next kernel's rows go:
    on 2 cores, 16384 games with mask "hard" took 20-23 ms a step with the torch calls on both cores
    and 13.6 ms on one (Quordle 18.6-19.9 ms and 13.4-14.7 ms; every mask and size gained or stayed;
    as fast as ``OMP_WAIT_POLICY=PASSIVE``, which only works when set before Python starts).
    BENCHMARKS.md has the figures. Only where torch's parallel backend is OpenMP (the usual wheels):
    the spinning is OpenMP's, and torch's native backend warns when its thread count changes after
    parallel work."""
    threads = torch.get_num_threads()
    if threads <= 1 or not openmp_backend() or getattr(_split, "threads", 0):
        yield
        return
    _split.threads = threads
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
        _split.threads = 0


class MaskBuffers:
    """Memory for the masks a game returns, recycled once nothing else holds it.

    Every mask handed out is a new tensor over an array of this pool; an array goes back into use
    only when no tensor, view or numpy array made from that mask is left (its reference count says
    so), so the caller can keep any mask as long as it likes. A loop that drops each step's
    ``infos`` makes the pool settle at two or three arrays, and a 200 MB mask then costs no
    allocation, page faults or zeroing by the kernel. New arrays come from numpy, which asks Linux
    for huge pages."""

    def __init__(self) -> None:
        self._arrays: list[np.ndarray] = []

    def take(self, rows: int, width: int, dtype: type = np.bool_) -> torch.Tensor:
        """A (rows, width) tensor whose contents are stale: the kernel writes every element."""
        arrays = self._arrays
        for i in range(len(arrays)):
            if (
                arrays[i].shape == (rows, width)
                and arrays[i].dtype == dtype
                and _references(arrays, i) == _UNUSED
            ):
                return torch.from_numpy(arrays[i])
        # Keep the arrays still in use (newest last), to recycle when they come free; drop the free
        # ones of another shape.
        held = [arrays[i] for i in range(len(arrays)) if _references(arrays, i) > _UNUSED]
        self._arrays = [*held[-(KEEP_BUFFERS - 1) :], np.empty((rows, width), dtype=dtype)]
        return torch.from_numpy(self._arrays[-1])


def _references(arrays: list[np.ndarray], i: int) -> int:
    return sys.getrefcount(arrays[i])


# the count of an array that only its list holds (the same code
_UNUSED = _references([np.empty(0)], 0)
# measures it: what the interpreter's own references add differs between Python versions)


_pools: dict[int, ThreadPoolExecutor] = {}
_pool_lock = threading.Lock()


def _pool(threads: int) -> ThreadPoolExecutor:
    if threads not in _pools:
        _pools[threads] = ThreadPoolExecutor(threads - 1, thread_name_prefix="wordle-gym-mask")
    return _pools[threads]


def _forget_pools() -> None:  # a forked child has the pools but not their threads
    _pools.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


@Kernel
def narrow_candidates(
    start, stop, candidates, table, actions, patterns, scored
):  # pragma: no cover (compiled)
    """``candidates[n] &= table[actions[n]] == patterns[n]`` in the ``scored`` games."""
    for n in range(start, stop):
        if scored[n]:
            row = table[actions[n]]
            keep = candidates[n]
            pattern = patterns[n]
            for k in range(keep.shape[0]):
                keep[k] &= row[k] == pattern


@Kernel
def kth_allowed(start, stop, mask, rows, u, out):  # pragma: no cover (compiled)
    """``out[i]``: of game ``rows[i]``'s allowed actions (``mask`` row), the k-th from 0, k =
    floor(``u[i]`` * their count); -1 where none is allowed."""
    width = mask.shape[1]
    for i in range(start, stop):
        row = mask[rows[i]]
        count = 0
        for j in range(width):
            if row[j]:
                count += 1
        out[i] = -1
        if count == 0:
            continue
        k = min(int(u[i] * count), count - 1)
        for j in range(width):
            if row[j]:
                if k == 0:
                    out[i] = j
                    break
                k -= 1


@Kernel
def candidates_mask(start, stop, candidates, answer_actions, out):  # pragma: no cover (compiled)
    """``out[n]``: False, then ``candidates[n]`` at the answers' actions (``answer_actions``
    unsigned: numba then skips the check for negative indices, a third of the time)."""
    for n in range(start, stop):
        row = out[n]
        keep = candidates[n]
        row[:] = False
        for k in range(answer_actions.shape[0]):
            row[answer_actions[k]] = keep[k]


@Kernel
def hard_mask(start, stop, sets, rows, packed, out):  # pragma: no cover (compiled)
    """``out[n]``: the bits of the AND of the word sets ``sets[rows[n]]`` (64 words to a uint64,
    least significant bit first), one bool per allowed word; with ``packed``, the AND's bytes
    (``Game.packed_action_mask``, ``out`` uint8)."""
    width = out.shape[1]
    full = width // 64
    for n in range(start, stop):
        words = sets[rows[n, 0]].copy()
        for j in range(1, rows.shape[1]):
            other = sets[rows[n, j]]
            for w in range(words.shape[0]):
                words[w] &= other[w]
        row = out[n]
        if packed:
            for i in range(width):
                row[i] = (words[i >> 3] >> np.uint64(8 * (i & 7))) & np.uint64(255)
            continue
        for w in range(full):  # 64 stores of constant shifts: the compiler vectorises this loop
            bits = words[w]
            for b in range(64):
                row[64 * w + b] = (bits >> np.uint64(b)) & np.uint64(1)
        for a in range(64 * full, width):
            row[a] = (words[full] >> np.uint64(a - 64 * full)) & np.uint64(1)


@Kernel
def candidates_bits(
    start, stop, candidates, answer_bytes, answer_bits, out
):  # pragma: no cover (compiled)
    """``candidates_mask``'s rows packed 8 actions to a byte: answer ``k`` is bit ``answer_bits[k]``
    of byte ``answer_bytes[k]`` (``Game.packed_action_mask``)."""
    for n in range(start, stop):
        row = out[n]
        keep = candidates[n]
        row[:] = 0
        for k in range(answer_bytes.shape[0]):
            row[answer_bytes[k]] |= np.uint8(keep[k]) << answer_bits[k]


@Kernel
def fill_rows(start, stop, candidates, rows):  # pragma: no cover (compiled)
    """``candidates[n] = True`` where ``rows[n]`` (a new game: every answer possible)."""
    for n in range(start, stop):
        if rows[n]:
            candidates[n][:] = True


@Kernel
def learn(
    start, stop, codes, tiles, scored, green, excluded, min_count, max_count
):  # pragma: no cover (compiled)
    """``Game._learn`` then ``Game._deduce`` in the ``scored`` rows (the others are left as they
    are: the deductions are idempotent, so torch's pass over them changes nothing).
    ``codes``/``tiles`` (N, L) uint8:
    the guesses' letters and their feedback; the knowledge arrays are updated in place."""
    length = codes.shape[1]
    shown = np.zeros(26, np.int64)
    greys = np.zeros(26, np.int64)
    greens_of = np.zeros(26, np.int64)
    low = np.zeros(26, np.int64)
    high = np.zeros(26, np.int64)
    for n in range(start, stop):
        if not scored[n]:
            continue
        shown[:] = 0
        greys[:] = 0
        greens_of[:] = 0
        for i in range(length):
            c = codes[n, i]
            # not where it was yellow or grey (a green is rewritten below)
            excluded[n, i] |= np.int32(1) << c
            if tiles[n, i] == 2:  # GREEN
                green[n, i] = c
            if tiles[n, i] == 0:  # GREY
                greys[c] += 1
            else:
                shown[c] += 1
        for i in range(length):
            if green[n, i] != 26:
                greens_of[green[n, i]] += 1
        total = 0
        for c in range(26):
            low[c] = max(max(np.int64(min_count[n, c]), shown[c]), greens_of[c])
            high[c] = (
                min(np.int64(max_count[n, c]), shown[c])
                if greys[c] > 0
                else np.int64(max_count[n, c])
            )
            total += low[c]
        slack = length - total
        dead = np.int32(0)
        for c in range(26):
            # torch's cast to uint8 wraps a negative slack (contradictory feedback)
            cap = (low[c] + slack) & 255
            high[c] = min(high[c], cap)
            min_count[n, c] = low[c]
            max_count[n, c] = high[c]
            if greens_of[c] >= high[c]:
                dead |= np.int32(1) << c
        for i in range(length):
            g = green[n, i]
            if g != 26:
                excluded[n, i] = np.int32((1 << 26) - 1) ^ (np.int32(1) << g)
            else:
                excluded[n, i] |= dead


@Kernel
def score(start, stop, guesses, answers, out):  # pragma: no cover (compiled)
    """``out[n]``: the tiles of ``guesses[n]`` against ``answers[n]`` ((N, L) letter codes), as
    :func:`wordle_gym.core.rules.feedback`: green where equal; then, left to right, yellow while the
    answer has a copy of the letter not matched green and not yet taken by an earlier yellow; else
    grey."""
    length = guesses.shape[1]
    spare = np.zeros(32, np.int64)
    for n in range(start, stop):
        for i in range(length):
            if guesses[n, i] != answers[n, i]:
                spare[answers[n, i]] += 1
        for i in range(length):
            g = guesses[n, i]
            if g == answers[n, i]:
                out[n, i] = 2  # GREEN
            elif spare[g] > 0:
                spare[g] -= 1
                out[n, i] = 1  # YELLOW
            else:
                out[n, i] = 0  # GREY
        for i in range(length):  # leave spare all zero for the next row
            spare[answers[n, i]] = 0


@Kernel
def reset_rows(  # pragma: no cover (compiled)
    start,
    stop,
    mask,
    new_answers,
    answers,
    turn,
    won,
    done,
    guesses,
    tiles,
    green,
    excluded,
    low,
    high,
):
    """``Game.reset`` of the rows where ``mask``: answer ``new_answers[n]`` and a blank board."""
    length = green.shape[1]
    for n in range(start, stop):
        if not mask[n]:
            continue
        answers[n] = new_answers[n]
        turn[n] = 0
        won[n] = False
        done[n] = False
        guesses[n, :] = -1
        tiles[n, :, :] = 3  # NO_TILE
        green[n, :] = 26  # NO_LETTER
        excluded[n, :] = 0
        low[n, :] = 0
        high[n, :] = length


@Kernel
def encode_knowledge(
    start, stop, green, excluded, low, high, solved, turn, out
):  # pragma: no cover (compiled)
    """The "knowledge" observation of games ``start:stop`` into ``out`` (N, D) uint8, each row
    written once:
    K boards to a game (``green``/``excluded`` (N K, L), ``low``/``high`` (N K, 26)), blocks in the
    order of ``KnowledgeLayout`` (K = 1, ``solved`` (N, 0)) and ``MultiKnowledgeLayout``: green
    one-hot, excluded bits, count bounds, ``solved`` (N, K), then the one-hot of ``turn`` (N,)."""
    boards = solved.shape[1] if solved.shape[1] else 1
    length = green.shape[1]
    block = 26 * length * boards
    at_low = 2 * block
    at_high = at_low + 26 * boards
    at_solved = at_high + 26 * boards
    at_turn = at_solved + solved.shape[1]
    turns = out.shape[1] - at_turn
    for n in range(start, stop):
        row = out[n]
        for k in range(boards):
            r = n * boards + k
            for i in range(length):
                base = (k * length + i) * 26
                g = green[r, i]
                bits = np.uint32(excluded[r, i])
                row[base : base + 26] = 0
                if g < 26:
                    row[base + g] = 1
                for c in range(26):
                    row[block + base + c] = np.uint8((bits >> np.uint32(c)) & np.uint32(1))
            row[at_low + k * 26 : at_low + k * 26 + 26] = low[r]
            row[at_high + k * 26 : at_high + k * 26 + 26] = high[r]
        for k in range(solved.shape[1]):
            row[at_solved + k] = solved[n, k]
        row[at_turn:] = 0
        if turn[n] < turns:
            row[at_turn + turn[n]] = 1
