"""The exact search behind :mod:`wordle_gym.solver.search`, compiled by numba (imported
only there).

``solve(S, r, beta)`` returns the least total number of guesses that solves every answer in the
candidate set ``S`` with at most ``r`` guesses each (counting the next one), when that total is
below ``beta``; otherwise a lower bound that is at least ``beta`` (an alpha-beta style cutoff), and
fail-soft: the least bound proven over the guesses, often well above ``beta`` (what ranks every
opener quickly, :mod:`wordle_gym.solver.openers`).

* Lower bounds: an answer needs this guess, and a bucket of ``c`` answers needs at least
  ``2c - 1`` more (one answer guessed next, every other at least twice), so guess ``g`` costs
  at least ``3n - [g in S] - buckets(g)``. Guesses are tried in order of that bound and the
  search stops when the bound reaches the best total found; inside a guess, the buckets are
  solved largest first with the budget that is left, and it stops as soon as the bound exceeds it.
* Before descending into any bucket of a guess, each is bounded without a search
  (:func:`bucket_floor`, alex1770's pre-pass): its cached value or bound, else ``2c - 1`` where a
  candidate tells the others apart and ``2c`` where none does, and never below
  ``2c - 1 + (c - most)`` (a guess splits c answers into at most ``most`` buckets, the most any
  guess gets from all the answers): a guess whose buckets' bounds already reach the best is cut
  there.
* Shortcuts that return what the ordered search would: a candidate telling every other candidate
  apart reaches the floor ``2n - 1`` (looked for first, in n x n work); failing that, the first
  guess whose bound is ``2n`` with no bucket of more than two answers is exact. A guess that tells a
  node's candidates nothing tells its children's nothing either: each node passes down only the
  guesses that told.
* Guesses that differ only in letters no candidate has split the candidates alike: a node tries the
  first of each such class (:func:`distinct_guesses`).
* A guess splits a node's candidates into no more buckets than it split its parent's (``caps``,
  passed down with the guesses): one whose bound from that cap, ``3n - 1 - min(n, cap)``, already
  reaches ``beta`` is not scanned, and is scanned alone only where the fail-soft bound needs it.
  The values, the guesses chosen, the bounds returned and the nodes searched are those of the full
  scan.
* Where one guess's buckets are counted alone (the perfect-guess check, the fail-soft bound's lone
  scans), the count stops once enough answers have shared a pattern that the guess cannot tell
  every candidate apart or lower the bound (:func:`buckets_within`).
* The pattern table is read answer-major (``by_answer[answer, guess]``): each candidate's row is
  read once along the guesses (:func:`split_counts`).
* A cache keyed by the candidate set (two 64-bit sums of random keys per answer), the guesses
  left and, in hard mode, the revealed constraint holds exact values and the best guess, or lower
  bounds learnt from cutoffs.
* Hard mode: a guess must keep revealed greens in place and use every revealed letter as often
  as revealed (the env's rule); the constraint is carried down the search.
* Losses (``lose`` true, what the oracle uses): an answer not found within the limit costs one more
  than the limit (the env's "loss counts as max_guesses + 1") instead of making the set unsolvable;
  with one guess left the best is then to guess a candidate (``2n - 1``), and every bound above
  still holds.
* Stopping: another thread sets ``stop[0]`` (a time limit, Ctrl-C); every node checks it on entry
  and after each child, and unwinds without writing the cache, so what the cache holds stays exact.
* A work budget (``stop`` of three entries): each node it expands adds its candidates times the
  guesses it is passed to ``stop[2]`` (the pairs its split counts scan, what its time goes to), and
  past ``stop[1]`` (when > 0) the search unwinds as if stopped. The work a search takes from an
  empty cache is a function of the position alone: the same on any machine, load or thread
  (:data:`~wordle_gym.solver.search.WORK` names how it is counted).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from wordle_gym.utils.files import cached_njit

INF = 1 << 40  # "cannot be solved within the guesses left"
# a cache key, and a cache value: (value, exact, best guess)
_ENTRY = types.UniTuple(types.int64, 3)
NOT_CACHED = (np.int64(-1), np.int64(-1), np.int64(-1))

# The cache is only touched from Python through these compiled functions: a typed Dict's own
# methods, called from Python, are compiled anew in every process.


@cached_njit()
def new_cache():
    return Dict.empty(_ENTRY, _ENTRY)


@cached_njit()
def cache_size(cache) -> int:
    return len(cache)


@cached_njit()
def clear_cache(cache) -> None:
    cache.clear()


@cached_njit()
def cached(cache, S, keys_a, keys_b, r, constraint_key):
    """The cache's entry for a node (see :func:`set_key`), or :data:`NOT_CACHED`."""
    key = set_key(S, keys_a, keys_b, r, constraint_key)
    if key in cache:
        return cache[key]
    return NOT_CACHED


@cached_njit()
def set_key(S, keys_a, keys_b, r, constraint_key):
    a = np.int64(0)
    b = np.int64(0)
    for s in S:
        a += keys_a[s]
        b += keys_b[s]
    return (a, b, np.int64(r) * 1_000_003 + constraint_key)


@cached_njit()
def valid(g, codes, counts, green, need) -> bool:
    """Hard mode: guess ``g`` keeps the greens in place and uses each letter at least ``need``
    times.

    A copy of ``wordle_gym.core.game.hard_breaches`` (the reference), held to it by
    tests/core/test_rules.py."""
    for i in range(green.shape[0]):
        if green[i] >= 0 and codes[g, i] != green[i]:
            return False
    for c in range(26):  # noqa: SIM110 (numba compiles no generator expressions)
        if need[c] > counts[g, c]:
            return False
    return True


@cached_njit()
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


@cached_njit()
def constraint_key(green, need) -> np.int64:
    key = np.int64(7)
    for i in range(green.shape[0]):
        key = key * 31 + green[i] + 1
    for c in range(26):
        key = key * 7 + need[c]
    return key


@cached_njit(nogil=True)
def closed_value(n, r, lose):
    """The value of ``n`` answers with ``r`` guesses left where it has a closed form, else -1: out
    of guesses, each lost (one more than the limit; or not allowed); one answer, one guess; one
    guess left, a candidate guessed and the rest lost (2n - 1); two answers, one guessed and the
    other next (3)."""
    if r <= 0:
        return n if lose else INF
    if n == 1:
        return 1
    if r <= 1:
        return 2 * n - 1 if lose else INF
    if n == 2:
        return 3
    return -1


@cached_njit(nogil=True)
def halted(stop) -> bool:
    """``stop[0]`` set, or a work budget ``stop[1]`` (> 0) spent (``stop[2]`` past it)."""
    return stop[0] != 0 or (stop.shape[0] > 2 and stop[1] > 0 and stop[2] > stop[1])


@cached_njit(nogil=True)
def buckets_within(by_answer, S, g, stamp, mark, limit) -> int:
    """How many feedback patterns guess ``g`` splits ``S`` into (each one's ``stamp`` is then
    ``mark``), or -1 as soon as ``limit`` answers have shared a pattern with an earlier one (the
    guess then splits ``S`` into at most ``n - limit``)."""
    buckets = 0
    shared = 0
    for s in S:
        p = by_answer[s, g]
        if stamp[p] != mark:
            stamp[p] = mark
            buckets += 1
        else:
            shared += 1
            if shared >= limit:
                return -1
    return buckets


@cached_njit(nogil=True)
def distinct_guesses(S, guesses, codes, actions):
    """The positions in ``guesses`` of the first of each class of guesses that split ``S`` alike,
    in ``guesses``' order: a letter no candidate has is grey wherever it stands, so guesses that
    differ only in such letters get the same feedback from every candidate (and are valid alike in
    hard mode, and reveal the same). Below the first guess's buckets, this leaves a third to a sixth
    of the guesses."""
    length = codes.shape[1]
    # a letter as the classes see it: 26 where no candidate has it
    shown = np.full(27, 26, np.int64)
    for s in S:
        for i in range(length):
            c = codes[actions[s], i]
            shown[c] = c
    bits = 1
    while (1 << bits) < 2 * guesses.shape[0]:
        bits += 1
    mask = (1 << bits) - 1
    seen = np.full(1 << bits, -1, np.int64)  # open addressing: the classes' keys
    kept = np.empty(guesses.shape[0], np.int64)
    m = 0
    for k in range(guesses.shape[0]):
        g = guesses[k]
        key = np.int64(0)
        wild = False
        for i in range(length):  # branch-free: a third faster
            c = shown[codes[g, i]]
            key = key * 27 + c
            wild |= c == 26
        if not wild:  # a word of the candidates' letters only: alone in its class
            kept[m] = k
            m += 1
            continue
        h = (
            np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))
            & mask
        )
        while seen[h] != -1 and seen[h] != key:
            h = (h + 1) & mask
        if seen[h] == -1:
            seen[h] = key
            kept[m] = k
            m += 1
    return kept[:m]


@cached_njit(nogil=True)
def split_counts(by_answer, S, guesses, num_patterns):
    """For each of ``guesses``: how many feedback patterns it splits ``S`` into, and 1 where one of
    them is all green. Answer-major and branch-free: each answer's row is read once along the
    guesses, setting each guess's bit for the pattern it gets (a count goes up where the bit was
    new)."""
    words = (num_patterns + 63) // 64
    num_guesses = guesses.shape[0]
    bits = np.zeros((num_guesses, words), np.uint64)
    splits = np.zeros(num_guesses, np.int64)
    one = np.uint64(1)
    for s in S:
        row = by_answer[s]
        for k in range(num_guesses):
            p = np.int64(row[guesses[k]])
            w = p >> 6
            old = bits[k, w]
            new = old | (one << np.uint64(p & 63))
            bits[k, w] = new
            splits[k] += old != new
    solved = num_patterns - 1
    hits = ((bits[:, solved >> 6] >> np.uint64(solved & 63)) & one).astype(np.int64)
    return splits, hits


@cached_njit(nogil=True)
def tells(by_answer, S, g) -> bool:
    """Whether guess ``g`` gets two feedback patterns from ``S`` (stops at the first)."""
    first = by_answer[S[0], g]
    for s in S:  # noqa: SIM110 (numba compiles no generator expressions)
        if by_answer[s, g] != first:
            return True
    return False


@cached_njit(nogil=True)
def perfect_guess(by_answer, S, hard, codes, counts, green, need, actions, stamp, marks, least):
    """A candidate of ``S`` that tells every other apart (in hard mode, one the constraint allows):
    the least such guess with ``least``, else the first found; -1 where none does (n x n work).
    ``stamp``: scratch of the feedback patterns' size, each check marking it with a number of its
    own (``marks[0]``, the checks so far: never the -1 a fresh stamp holds)."""
    found = np.int64(-1)
    for i in range(S.shape[0]):
        g = actions[S[i]]
        if (found >= 0 and g >= found) or (hard and not valid(g, codes, counts, green, need)):
            continue
        marks[0] += 1
        if buckets_within(by_answer, S, g, stamp, marks[0], 1) == S.shape[0]:
            found = g
            if not least:
                break
    return found


@cached_njit(nogil=True)
def bucket_floor(
    by_answer, S, r, g, p, cache, keys_a, keys_b, hard, codes, counts, tiles, green, need,
    child_green, child_need, stop, lose, actions, most, stamp, marks,
):  # fmt: skip
    """A lower bound of :func:`solve`'s value for the bucket ``S`` that guess ``g`` got pattern
    ``p`` for, with ``r`` guesses left, found without searching it: the closed forms; else the
    cache's value or bound; else 2c - 1 where a candidate tells every other apart and 2c where none
    does; and at least 2c - 1 + (c - ``most``): a guess splits c answers into ``most`` buckets at
    most (``stamp``, ``marks``: :func:`perfect_guess`'s scratch)."""
    c = S.shape[0]
    closed = closed_value(c, r, lose)
    if closed >= 0:
        return closed
    floor = 2 * c - 1 + max(0, c - most)
    hard_key = np.int64(0)
    if hard:
        advance_constraint(g, p, codes, tiles, green, need, child_green, child_need)
        hard_key = constraint_key(child_green, child_need)
    key = set_key(S, keys_a, keys_b, r, hard_key)
    if key in cache:
        return max(floor, cache[key][0])  # its exact value, or a bound it was cut at
    if c > most:
        return floor
    if stop.shape[0] > 2:
        stop[2] += c * c
    perfect = perfect_guess(
        by_answer, S, hard, codes, counts, child_green, child_need, actions, stamp, marks, False
    )
    return 2 * c - 1 if perfect >= 0 else 2 * c


@cached_njit(nogil=True)
def _least_bound(
    by_answer, S, t, order, bounds, unscanned, guesses, hard, codes, counts, green, need, stamp,
    marks, solved,
):  # fmt: skip
    """The least bound of the guesses ``order[t:]`` (increasing by bound, an unscanned guess's its
    estimate): the first scanned one's, lowered by the unscanned ones estimated below it, each
    scanned alone, in order, until an estimate reaches the least found."""
    n = S.shape[0]
    least = INF
    for u in range(t, order.shape[0]):
        if not unscanned[order[u]]:
            least = bounds[order[u]]
            break
    for u in range(t, order.shape[0]):
        k = order[u]
        if bounds[k] >= least:
            break
        g = guesses[k]
        if not unscanned[k] or (hard and not valid(g, codes, counts, green, need)):
            continue
        marks[0] += 1
        # a bound is at least 2n - 1 plus the answers that share a pattern: past least - (2n - 1)
        # of them, this guess cannot lower it
        buckets = buckets_within(by_answer, S, g, stamp, marks[0], least - (2 * n - 1))
        if buckets < 0:
            continue
        hit = 1 if stamp[solved] == marks[0] else 0
        if buckets > 1 or hit == 1:
            least = min(least, 3 * n - hit - buckets)
    return least


@cached_njit(nogil=True)
def _telling(by_answer, S, guesses, caps, bounds, unscanned, hard, codes, counts, green, need):
    """The guesses that tell ``S``'s candidates apart (and are valid in hard mode), in order, with
    their caps: what a node passes its children."""
    below = np.empty(guesses.shape[0], guesses.dtype)
    below_caps = np.empty(guesses.shape[0], np.int64)
    m = 0
    for k in range(guesses.shape[0]):
        if bounds[k] >= INF:
            continue
        g = guesses[k]
        if unscanned[k] and (
            (hard and not valid(g, codes, counts, green, need)) or not tells(by_answer, S, g)
        ):
            continue
        below[m] = g
        below_caps[m] = caps[k]
        m += 1
    return below[:m], below_caps[:m]


@cached_njit(nogil=True)
def solve(  # noqa: C901 (numba: the whole search is one loop over an explicit stack)
    by_answer,
    S,
    r,
    beta,
    cache,
    keys_a,
    keys_b,
    hard,
    codes,
    counts,
    tiles,
    green,
    need,
    stats,
    stop,
    lose,
    actions,
    guesses,
    most,
    caps,
):
    """See the module docstring. ``stats[0]`` counts searched nodes (and ``stats[1]``, where
    there is one, the guesses their caps left unscanned); ``stop[0] != 0`` (or a work
    budget spent, :func:`halted`) abandons the search (the value returned is then meaningless). A
    cache holds values of one ``lose`` setting only. ``actions[s]`` is answer ``s``'s guess;
    ``guesses`` the guesses worth trying, increasing (every guess at the root; a node passes its
    children the ones that told its candidates apart); ``caps[k]`` at least the buckets
    ``guesses[k]`` splits ``S`` into (its buckets in the parent's candidates; at the root, in all
    the answers); ``most`` the most feedback patterns one guess gets from the answers
    (:func:`bucket_floor`)."""
    if halted(stop):
        return INF
    n = S.shape[0]
    closed = closed_value(n, r, lose)
    if closed >= 0:
        return closed
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
    if stop.shape[0] > 2:
        stop[2] += n * guesses.shape[0]
        if halted(stop):
            return INF
    num_patterns = tiles.shape[0]
    solved = num_patterns - 1  # all green
    stamp = np.full(num_patterns, -1, np.int64)
    marks = np.zeros(1, np.int64)  # perfect_guess's checks so far
    # The floor 2n - 1 is reached only by a candidate that tells every other apart: look at those
    # first (n x n work), the least such guess being the one the ordered search below would pick.
    perfect = perfect_guess(
        by_answer, S, hard, codes, counts, green, need, actions, stamp, marks, True
    )
    if perfect >= 0:
        cache[key] = (floor, np.int64(1), perfect)
        return floor
    # Otherwise 2n is the least bound: the first guess to reach it with no bucket of more than two
    # (a non-candidate telling all apart, or a candidate leaving one pair) is exact and the search's
    # pick.
    pair_ok = r >= 3 or lose
    kept = distinct_guesses(S, guesses, codes, actions)
    guesses, caps = guesses[kept], caps[kept]
    num_guesses = guesses.shape[0]
    bounds = np.full(num_guesses, INF, np.int64)
    # A guess whose cap bounds it at beta or more is never tried here: it is not scanned, and its
    # bound is that estimate (unscanned) until the fail-soft bound needs more. Not where the
    # estimate is 2n: the first guess of bound 2n is the exact shortcut above.
    unscanned = np.zeros(num_guesses, np.bool_)
    scan = np.empty(num_guesses, np.int64)
    scanned = 0
    skip_at = max(beta, 2 * n + 1)
    for k in range(num_guesses):
        estimate = 3 * n - 1 - min(n, caps[k])
        if estimate >= skip_at:
            unscanned[k] = True
            bounds[k] = estimate
        else:
            scan[scanned] = k
            scanned += 1
    scan = scan[:scanned]
    if stats.shape[0] > 1:
        stats[1] += num_guesses - scanned
    splits, hits = split_counts(by_answer, S, guesses[scan], num_patterns)
    caps = caps.copy()  # the children's: the buckets here where scanned
    for j in range(scanned):
        k = scan[j]
        g = guesses[k]
        caps[k] = splits[j]
        if hard and not valid(g, codes, counts, green, need):
            continue
        buckets = splits[j]
        hit = hits[j]
        if buckets == 1 and hit == 0:
            continue  # tells nothing, here and below
        bounds[k] = 3 * n - hit - buckets
        if bounds[k] == 2 * n and (hit == 0 or pair_ok):
            cache[key] = (bounds[k], np.int64(1), g)
            return bounds[k]
    # Counting sort by bound (they lie in [2n - 1, 3n - 1]); ties keep the word order.
    span = n + 1
    tally = np.zeros(span + 1, np.int64)
    useful = 0
    for k in range(num_guesses):
        if bounds[k] < INF:
            tally[bounds[k] - (2 * n - 1) + 1] += 1
            useful += 1
    for b in range(span):
        tally[b + 1] += tally[b]
    order = np.empty(useful, np.int64)  # positions in guesses
    for k in range(num_guesses):
        if bounds[k] < INF:
            b = bounds[k] - (2 * n - 1)
            order[tally[b]] = k
            tally[b] += 1
    # the guesses that tell something, and their caps, for the children: made at the first descent
    below = guesses[:0]
    below_caps = caps[:0]
    best, best_guess = beta, np.int64(-1)
    # fail-soft: the least lower bound proven over the guesses cut off (when none beats beta)
    low = INF
    sizes = np.zeros(num_patterns, np.int64)
    lbs = np.zeros(num_patterns, np.int64)
    starts = np.zeros(num_patterns, np.int64)
    fill = np.zeros(num_patterns, np.int64)
    grouped = np.empty(n, S.dtype)
    child_green = green.copy()
    child_need = need.copy()
    for t in range(order.shape[0]):
        g = guesses[order[t]]
        bound = bounds[order[t]]
        if bound >= best:
            # every guess after this one is bounded as high
            least = _least_bound(
                by_answer, S, t, order, bounds, unscanned, guesses, hard, codes, counts, green,
                need, stamp, marks, solved,
            )  # fmt: skip
            low = min(low, least)
            break
        if below.shape[0] == 0:
            below, below_caps = _telling(
                by_answer, S, guesses, caps, bounds, unscanned, hard, codes, counts, green, need
            )
        sizes[:] = 0
        for s in S:
            sizes[by_answer[s, g]] += 1
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
            p = by_answer[s, g]
            grouped[fill[p]] = s
            fill[p] += 1
        by_size = np.argsort(-sizes)
        # the buckets to solve, largest first
        kept = 0
        while kept < num_patterns and sizes[by_size[kept]] > 0:
            kept += 1
        buckets = by_size[:kept][by_size[:kept] != solved]
        # every bucket's lower bound before descending into any (alex1770's pre-pass): a guess is
        # cut when they already reach the best
        rest = 0
        for p in buckets:
            size = sizes[p]
            lbs[p] = bucket_floor(
                by_answer, grouped[starts[p] : starts[p] + size], r - 1, g, p, cache, keys_a,
                keys_b, hard, codes, counts, tiles, green, need, child_green, child_need, stop,
                lose, actions, most, stamp, marks,
            )  # fmt: skip
            rest += lbs[p]
            if n + rest >= best:
                break
        if n + rest >= best:
            low = min(low, n + rest)
            continue
        total = n
        for p in buckets:
            size = sizes[p]
            rest -= lbs[p]  # the lower bounds of the buckets not solved yet
            if hard:
                advance_constraint(g, p, codes, tiles, green, need, child_green, child_need)
            sub = grouped[starts[p] : starts[p] + size].copy()
            value = solve(
                by_answer,
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
                actions,
                below,
                most,
                below_caps,
            )
            if halted(stop):
                return INF  # abandoned: nothing cached from here up
            total += max(value, lbs[p])
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


@cached_njit(nogil=True)
def greedy(by_answer, S, r, hard, codes, counts, tiles, green, need, lose, actions, guesses):
    """The total guesses of a real policy for the candidates ``S`` with ``r`` guesses left (the next
    one included): at each node the guess of least bound ``3n - hit - buckets`` (the most buckets, a
    candidate counting one more; the first such guess), an answer not found within the limit costing
    one more than it. A proven upper bound on :func:`solve`'s value with ``lose``; ``INF`` without
    ``lose`` where that policy loses a game."""
    n = S.shape[0]
    closed = closed_value(n, r, lose)
    if closed >= 0:
        return closed
    num_patterns = tiles.shape[0]
    solved = num_patterns - 1
    splits, hits = split_counts(by_answer, S, guesses, num_patterns)
    best, pick = INF, np.int64(-1)
    for k in range(guesses.shape[0]):
        g = guesses[k]
        if hard and not valid(g, codes, counts, green, need):
            continue
        bound = 3 * n - hits[k] - splits[k]
        if bound < best:
            best, pick = bound, g
    sizes = np.zeros(num_patterns, np.int64)
    for s in S:
        sizes[by_answer[s, pick]] += 1
    total = n
    child_green = green.copy()
    child_need = need.copy()
    for p in range(num_patterns):
        if sizes[p] == 0 or p == solved:
            continue
        sub = np.empty(sizes[p], S.dtype)
        m = 0
        for s in S:
            if by_answer[s, pick] == p:
                sub[m] = s
                m += 1
        if hard:
            advance_constraint(pick, p, codes, tiles, green, need, child_green, child_need)
        below = greedy(
            by_answer,
            sub,
            r - 1,
            hard,
            codes,
            counts,
            tiles,
            child_green,
            child_need,
            lose,
            actions,
            guesses,
        )
        if below >= INF:
            return INF
        total += below
    return total
