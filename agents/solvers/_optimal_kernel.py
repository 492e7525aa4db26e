"""The exact search behind :mod:`wordle_agents.solvers.optimal`, compiled by numba (imported only there).

``solve(S, r, beta)`` returns the least total number of guesses that solves every answer in the
candidate set ``S`` with at most ``r`` guesses each (counting the next one), when that total is
below ``beta``; otherwise a lower bound that is at least ``beta`` (an alpha-beta style cutoff), and
fail-soft: the least bound proven over the guesses, often well above ``beta`` (what ranks every
opener quickly, :mod:`wordle_agents.solvers.openers`).

* Lower bounds: an answer needs this guess, and a bucket of ``c`` answers needs at least
  ``2c - 1`` more (one answer guessed next, every other at least twice), so guess ``g`` costs
  at least ``3n - [g in S] - buckets(g)``. Guesses are tried in order of that bound and the
  search stops when the bound reaches the best total found; inside a guess, the buckets are
  solved largest first with the budget that is left, and it stops as soon as the bound exceeds it.
* A cache keyed by the candidate set (two 64-bit sums of random keys per answer), the guesses
  left and, in hard mode, the revealed constraint holds exact values and the best guess, or lower
  bounds learnt from cutoffs.
* Hard mode: a guess must keep revealed greens in place and use every revealed letter as often
  as revealed (the env's rule); the constraint is carried down the search.
* Losses (``lose`` true, what the oracle uses): an answer not found within the limit costs one more
  than the limit (the env's "loss counts as max_guesses + 1") instead of making the set unsolvable; with
  one guess left the best is then to guess a candidate (``2n - 1``), and every bound above still holds.
* Stopping: another thread sets ``stop[0]`` (a time limit, Ctrl-C); every node checks it on entry
  and after each child, and unwinds without writing the cache, so what the cache holds stays exact.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

INF = 1 << 40  # "cannot be solved within the guesses left"
_ENTRY = types.UniTuple(types.int64, 3)  # a cache key, and a cache value: (value, exact, best guess)
NOT_CACHED = (np.int64(-1), np.int64(-1), np.int64(-1))

# The cache is only touched from Python through these compiled functions: a typed Dict's own methods,
# called from Python, are compiled anew in every process (reading the tree out of the cache took 1.7 s
# of `python -m wordle_agents.optimal salet`, now 0.1 s).


@njit(cache=True)
def new_cache():
    return Dict.empty(_ENTRY, _ENTRY)


@njit(cache=True)
def cache_size(cache) -> int:
    return len(cache)


@njit(cache=True)
def clear_cache(cache) -> None:
    cache.clear()


@njit(cache=True)
def cached(cache, S, keys_a, keys_b, r, constraint_key):
    """The cache's entry for a node (see :func:`set_key`), or :data:`NOT_CACHED`."""
    key = set_key(S, keys_a, keys_b, r, constraint_key)
    if key in cache:
        return cache[key]
    return NOT_CACHED


@njit(cache=True)
def set_key(S, keys_a, keys_b, r, constraint_key):
    a = np.int64(0)
    b = np.int64(0)
    for s in S:
        a += keys_a[s]
        b += keys_b[s]
    return (a, b, np.int64(r) * 1_000_003 + constraint_key)


@njit(cache=True)
def valid(g, codes, counts, green, need) -> bool:
    """Hard mode: guess ``g`` keeps the greens in place and uses each letter at least ``need`` times.

    A copy of ``wordle_gym.core.game.hard_breaches`` (the reference), held to it by tests/test_rules.py."""
    for i in range(green.shape[0]):
        if green[i] >= 0 and codes[g, i] != green[i]:
            return False
    for c in range(26):  # noqa: SIM110 (numba compiles no generator expressions)
        if need[c] > counts[g, c]:
            return False
    return True


@njit(cache=True)
def advance_constraint(g, p, codes, tiles, green, need, out_green, out_need) -> None:
    """Hard mode: the constraint after guess ``g`` got pattern ``p`` (written to ``out_*``)."""
    out_green[:] = green
    out_need[:] = 0
    for i in range(codes.shape[1]):
        if tiles[p, i] == 2:
            out_green[i] = codes[g, i]
        if tiles[p, i] != 0:
            out_need[codes[g, i]] += 1
    for c in range(26):
        out_need[c] = max(out_need[c], need[c])


@njit(cache=True)
def constraint_key(green, need) -> np.int64:
    key = np.int64(7)
    for i in range(green.shape[0]):
        key = key * 31 + green[i] + 1
    for c in range(26):
        key = key * 7 + need[c]
    return key


@njit(cache=True, nogil=True)
def solve(table, S, r, beta, cache, keys_a, keys_b, hard, codes, counts, tiles, green, need, stats, stop, lose):
    """See the module docstring. ``stats[0]`` counts searched nodes; ``stop[0] != 0`` abandons the search
    (the value returned is then meaningless). A cache holds values of one ``lose`` setting only."""
    if stop[0] != 0:
        return INF
    n = S.shape[0]
    if r <= 0:  # out of guesses: each answer lost, one more than the limit (or not allowed)
        return n if lose else INF
    if n == 1:
        return 1
    if r <= 1:
        return 2 * n - 1 if lose else INF
    if n == 2:
        return 3  # guess one: solved, or the other next
    floor = 2 * n - 1
    if floor >= beta:
        return floor
    key = set_key(S, keys_a, keys_b, r, constraint_key(green, need) if hard else np.int64(0))
    if key in cache:
        value, exact, _ = cache[key]
        if exact == 1 or value >= beta:
            return value
        floor = max(floor, value)
    stats[0] += 1
    num_guesses, num_patterns = table.shape[0], tiles.shape[0]
    solved = num_patterns - 1  # all green
    bounds = np.full(num_guesses, INF, np.int64)
    stamp = np.full(num_patterns, -1, np.int64)
    for g in range(num_guesses):
        if hard and not valid(g, codes, counts, green, need):
            continue
        row = table[g]
        buckets = 0
        for s in S:
            p = row[s]
            if stamp[p] != g:
                stamp[p] = g
                buckets += 1
        hit = 1 if stamp[solved] == g else 0
        if buckets == 1 and hit == 0:
            continue  # tells nothing
        bounds[g] = 3 * n - hit - buckets
    # Counting sort by bound (they lie in [2n - 1, 3n - 1]); ties keep the word order.
    span = n + 1
    tally = np.zeros(span + 1, np.int64)
    for g in range(num_guesses):
        if bounds[g] < INF:
            tally[bounds[g] - (2 * n - 1) + 1] += 1
    for b in range(span):
        tally[b + 1] += tally[b]
    order = np.empty(tally[span], np.int64)
    for g in range(num_guesses):
        if bounds[g] < INF:
            b = bounds[g] - (2 * n - 1)
            order[tally[b]] = g
            tally[b] += 1
    best, best_guess = beta, np.int64(-1)
    low = INF  # fail-soft: the least lower bound proven over the guesses cut off (when none beats beta)
    sizes = np.zeros(num_patterns, np.int64)
    starts = np.zeros(num_patterns, np.int64)
    fill = np.zeros(num_patterns, np.int64)
    grouped = np.empty(n, S.dtype)
    child_green = green.copy()
    child_need = need.copy()
    for k in range(order.shape[0]):
        g = order[k]
        bound = bounds[g]
        if bound >= best:
            low = min(low, bound)  # and every guess after this one is bounded as high
            break
        row = table[g]
        sizes[:] = 0
        for s in S:
            sizes[row[s]] += 1
        if r == 2 and not lose:  # the next guess must be the last: every bucket a single answer
            single = True
            for p in range(num_patterns):
                if p != solved and sizes[p] > 1:
                    single = False
                    break
            if not single:
                continue
        total = 0
        for p in range(num_patterns):
            starts[p] = total
            fill[p] = total
            total += sizes[p]
        for s in S:
            p = row[s]
            grouped[fill[p]] = s
            fill[p] += 1
        by_size = np.argsort(-sizes)
        total = n
        rest = bound - n  # lower bounds of the buckets not solved yet
        for j in range(num_patterns):
            p = by_size[j]
            size = sizes[p]
            if size == 0:
                break
            if p == solved:
                continue
            rest -= 2 * size - 1
            if hard:
                advance_constraint(g, p, codes, tiles, green, need, child_green, child_need)
            sub = grouped[starts[p] : starts[p] + size].copy()
            total += solve(
                table,
                sub,
                r - 1,
                best - total - rest,
                cache,
                keys_a,
                keys_b,
                hard,
                codes,
                counts,
                tiles,
                child_green,
                child_need,
                stats,
                stop,
                lose,
            )
            if stop[0] != 0:
                return INF  # abandoned: nothing cached from here up
            if total + rest >= best:
                break
        if total + rest < best:  # every bucket solved within budget (rest is 0 here)
            best, best_guess = total, g
        else:
            low = min(low, total + rest)
    if best < beta:
        cache[key] = (best, np.int64(1), best_guess)
    else:
        best = max(low, floor)
        cache[key] = (best, np.int64(0), np.int64(-1))
    return best
