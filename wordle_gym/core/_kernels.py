"""Compiled CPU copies of the vector env's per-step mask work (numba), for big batches on the CPU.

Torch computes a "candidates" or "hard" mask as a few whole-batch passes over a (games x 12972) array,
most of them strided; these kernels do one game's row at a time while it sits in the cache, and write
the mask exactly once. On 16384 games of the real game they cut a step with either mask from about
0.2 s to 0.03 s (``benchmarks/env_throughput.py``).

They are copies of :class:`wordle_gym.core.game.Game`'s torch code (the reference, which CUDA and CPUs without
numba run): ``narrow_candidates`` of the candidate update in ``Game._advance``, ``fill_rows`` of the
candidates' reset in ``Game.reset``, ``candidates_mask`` of ``Game.action_mask`` in mode "candidates",
``hard_mask`` of ``Game.hard_mask``. ``Game.compiled`` picks them; ``tests/test_scalar.py`` holds both
engines to the scalar one step by step, ``tests/test_vector.py`` the two to each other. Each kernel does
rows ``start:stop`` and releases the GIL; :func:`run` splits a batch over ``torch.get_num_threads()``
threads (numba's own thread pools are left alone: they are not fork-safe everywhere, and one knob,
torch's, sets the threads of the whole step).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import torch

MIN_SPLIT_BYTES = 1 << 20  # below this much mask a batch runs on the calling thread
KEEP_BUFFERS = 4  # mask arrays a game keeps for reuse


@functools.cache
def available() -> bool:
    """Whether numba imports (a dependency; without it, on a Python it does not support yet, torch runs
    the masks). Imported on first use only: a game without these masks never pays its second of start-up."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


class Kernel:
    """A function of this module, compiled by numba on its first call (cached on disk by numba)."""

    def __init__(self, function: Callable[..., None]) -> None:
        self.python = function
        self._compiled: Callable[..., None] | None = None
        functools.update_wrapper(self, function)

    def compiled(self) -> Callable[..., None]:
        with _compile_lock:
            if self._compiled is None:
                from numba import njit

                self._compiled = njit(nogil=True, cache=True)(self.python)
        return self._compiled


_compile_lock = threading.Lock()


def run(kernel: Kernel, rows: int, cost: int, *args: Any) -> None:
    """``kernel(start, stop, *args)`` over ``rows`` rows, split over torch's thread count when the
    work (``cost`` bytes of mask) is worth it."""
    function = kernel.compiled()
    threads = min(torch.get_num_threads(), rows)
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


class MaskBuffers:
    """Memory for the masks a game returns, recycled once nothing else holds it.

    Every mask handed out is a new tensor over an array of this pool; an array goes back into use only
    when no tensor, view or numpy array made from that mask is left (its reference count says so), so
    the caller can keep any mask as long as it likes. A loop that drops each step's ``infos`` makes the
    pool settle at two or three arrays, and a 200 MB mask then costs no allocation, page faults or
    zeroing by the kernel. New arrays come from numpy, which asks Linux for huge pages."""

    def __init__(self) -> None:
        self._arrays: list[np.ndarray] = []

    def take(self, rows: int, width: int) -> torch.Tensor:
        """A (rows, width) bool tensor whose contents are stale: the kernel writes every element."""
        arrays = self._arrays
        for i in range(len(arrays)):
            if arrays[i].shape == (rows, width) and _references(arrays, i) == _UNUSED:
                return torch.from_numpy(arrays[i])
        # Keep the arrays still in use (newest last), to recycle when they come free; drop the free ones
        # of another shape.
        held = [arrays[i] for i in range(len(arrays)) if _references(arrays, i) > _UNUSED]
        self._arrays = [*held[-(KEEP_BUFFERS - 1) :], np.empty((rows, width), dtype=np.bool_)]
        return torch.from_numpy(self._arrays[-1])


def _references(arrays: list[np.ndarray], i: int) -> int:
    return sys.getrefcount(arrays[i])


_UNUSED = _references([np.empty(0)], 0)  # the count of an array that only its list holds (the same code
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
def narrow_candidates(start, stop, candidates, table, actions, patterns, scored):  # pragma: no cover (compiled)
    """``candidates[n] &= table[actions[n]] == patterns[n]`` in the ``scored`` games."""
    for n in range(start, stop):
        if scored[n]:
            row = table[actions[n]]
            keep = candidates[n]
            pattern = patterns[n]
            for k in range(keep.shape[0]):
                keep[k] &= row[k] == pattern


@Kernel
def candidates_mask(start, stop, candidates, answer_actions, out):  # pragma: no cover (compiled)
    """``out[n]``: False, then ``candidates[n]`` at the answers' actions (``answer_actions`` unsigned: numba
    then skips the check for negative indices, a third of the time)."""
    for n in range(start, stop):
        row = out[n]
        keep = candidates[n]
        row[:] = False
        for k in range(answer_actions.shape[0]):
            row[answer_actions[k]] = keep[k]


@Kernel
def hard_mask(start, stop, sets, rows, out):  # pragma: no cover (compiled)
    """``out[n]``: the bits of the AND of the word sets ``sets[rows[n]]`` (64 words to a uint64, least
    significant bit first), one bool per allowed word."""
    width = out.shape[1]
    full = width // 64
    for n in range(start, stop):
        words = sets[rows[n, 0]].copy()
        for j in range(1, rows.shape[1]):
            other = sets[rows[n, j]]
            for w in range(words.shape[0]):
                words[w] &= other[w]
        row = out[n]
        for w in range(full):  # 64 stores of constant shifts: the compiler vectorises this loop
            bits = words[w]
            for b in range(64):
                row[64 * w + b] = (bits >> np.uint64(b)) & np.uint64(1)
        for a in range(64 * full, width):
            row[a] = (words[full] >> np.uint64(a - 64 * full)) & np.uint64(1)


@Kernel
def fill_rows(start, stop, candidates, rows):  # pragma: no cover (compiled)
    """``candidates[n] = True`` where ``rows[n]`` (a new game: every answer possible)."""
    for n in range(start, stop):
        if rows[n]:
            candidates[n][:] = True
