"""The search behind :func:`research.dordle_search.dordle_finish`, compiled by numba (imported
only there).

Two boards, answers ``a != b``, the opener fixed. For each pair of the opener's cells ``(A, B)``
(the answers of each board that agree with its feedback) it finds the most ordered answer pairs of
``A x B`` a policy can finish by the third and by the fourth guess (the module docstring of
``boards_bound`` proves what each count is). The second guess ``g`` is searched over every allowed
word: an upper bound from the class sizes alone (:func:`_size_bound`) orders them and stops the
search once no guess left can beat the best found; the exact count is taken only for the guesses
that pass it.

* ``table[g, n]``: the pattern of guess ``g`` on answer ``n``; ``aa[x, n]``: of answer ``x``
  guessed.
* ``answer_of[g]``: the answer that guess ``g`` is, or -1; ``guess_cell[g]``: the opener's cell of
  that answer, or -1.
* ``sizes[g, starts[c]:starts[c] + nclass[c, g]]``: the class sizes of cell ``c`` under guess ``g``,
  ascending, ``g``'s own answer left out (a board it solves is counted apart).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from wordle_gym.utils.files import cached_njit


@cached_njit()
def class_sizes(table, answer_of, order, starts, num_patterns):  # pragma: no cover (compiled)
    """``(sizes, nclass)`` for every cell and guess (see the module docstring)."""
    num_guesses = table.shape[0]
    num_cells = starts.shape[0] - 1
    sizes = np.zeros((num_guesses, order.shape[0]), dtype=np.int32)
    nclass = np.zeros((num_cells, num_guesses), dtype=np.int32)
    slot = np.full(num_patterns, -1, dtype=np.int64)
    pats = np.zeros(num_patterns, dtype=np.int64)
    longest = np.max(starts[1:] - starts[:-1])
    out = np.zeros(longest, dtype=np.int64)
    bounds = np.zeros(longest + 1, dtype=np.int64)
    for g in range(num_guesses):
        for c in range(num_cells):
            k = _group(
                table[g], order[starts[c] : starts[c + 1]], answer_of[g], slot, pats, out, bounds
            )
            sizes[g, starts[c] : starts[c] + k] = np.sort(bounds[1 : k + 1] - bounds[:k])
            nclass[c, g] = k
    return sizes, nclass


@cached_njit()
def _size_bound(s, t) -> np.int64:  # pragma: no cover (compiled)
    """The sum over every class pair of ``max(|A'|, |B'|)``: class sizes ``s``, ``t``, both
    ascending."""
    total = np.int64(0)
    j = 0
    for i in range(s.shape[0]):
        while j < t.shape[0] and t[j] <= s[i]:
            j += 1
        total += s[i] * j
    i = 0
    for j in range(t.shape[0]):
        while i < s.shape[0] and s[i] < t[j]:
            i += 1
        total += t[j] * i
    return total


@cached_njit()
def _group(row, members, own, slot, pats, out, bounds) -> int:  # pragma: no cover (compiled)
    """Group ``members`` (but ``own``) by ``row[member]``: class ``q`` is
    ``out[bounds[q]:bounds[q + 1]]``."""
    k = 0
    for n in members:
        if n == own:
            continue
        p = row[n]
        if slot[p] < 0:
            slot[p] = k
            pats[k] = p
            bounds[k + 1] = 0
            k += 1
        bounds[slot[p] + 1] += 1
    bounds[0] = 0
    for q in range(k):
        bounds[q + 1] += bounds[q]
    fill = bounds[:k].copy()
    for n in members:
        if n == own:
            continue
        q = slot[row[n]]
        out[fill[q]] = n
        fill[q] += 1
    for q in range(k):
        slot[pats[q]] = -1
    return k


@cached_njit()
def _split(row, members, skip, stamp, epoch) -> int:  # pragma: no cover (compiled)
    """How many patterns ``row`` gives over ``members`` but ``skip`` (``stamp``: marks, ``epoch``:
    fresh)."""
    k = 0
    for n in members:
        if n == skip:
            continue
        p = row[n]
        if stamp[p] != epoch:
            stamp[p] = epoch
            k += 1
    return k


@cached_njit()
def _best_split(table, members, stamp, epoch) -> int:  # pragma: no cover (compiled)
    """The most classes any allowed guess splits ``members`` into (at most their number)."""
    m = members.shape[0]
    if m <= 2:
        return m
    best = 0
    for g in range(table.shape[0]):
        epoch[0] += 1
        k = _split(table[g], members, -1, stamp, epoch[0])
        if k > best:
            best = k
            if best == m:
                break
    return best


@cached_njit()
def _exact(
    g, ca, cb, same, a_hit, b_hit, table, aa, answer_of, work
) -> np.int64:  # pragma: no cover (compiled)
    """The pairs of ``A x B`` (``a != b``) finished by the fourth guess at best after second guess
    ``g`` (``a_hit``, ``b_hit``: ``g`` is an answer of ``A``, of ``B``), a board that ``g`` solves
    counted with the best third guess over every allowed word."""
    slot, pats, stamp, epoch, out_a, bnd_a, out_b, bnd_b = work
    row = table[g]
    own = answer_of[g]
    total = np.int64(0)
    ka = _group(row, ca, own, slot, pats, out_a, bnd_a)
    if same:
        for qa in range(ka):
            sa = out_a[bnd_a[qa] : bnd_a[qa + 1]]
            for qb in range(ka):
                sb = out_a[bnd_a[qb] : bnd_a[qb + 1]]
                if qa == qb:
                    if sa.shape[0] >= 2:  # both answers here: a third guess must be one of them
                        best = 0
                        for x in sa:
                            epoch[0] += 1
                            k = _split(aa[x], sa, x, stamp, epoch[0])
                            best = max(best, 2 * k)
                        total += best
                    continue
                total += _cross(sa, sb, aa, stamp, epoch)
        if a_hit:  # g solves one board (either): the other's class, split at best by a third guess
            for qa in range(ka):
                total += 2 * _best_split(table, out_a[bnd_a[qa] : bnd_a[qa + 1]], stamp, epoch)
        return total
    kb = _group(row, cb, own, slot, pats, out_b, bnd_b)
    for qa in range(ka):
        sa = out_a[bnd_a[qa] : bnd_a[qa + 1]]
        for qb in range(kb):
            total += _cross(sa, out_b[bnd_b[qb] : bnd_b[qb + 1]], aa, stamp, epoch)
    if a_hit:  # g solves board A: B's class, split at best by a third guess
        for qb in range(kb):
            total += _best_split(table, out_b[bnd_b[qb] : bnd_b[qb + 1]], stamp, epoch)
    if b_hit:
        for qa in range(ka):
            total += _best_split(table, out_a[bnd_a[qa] : bnd_a[qa + 1]], stamp, epoch)
    return total


@cached_njit()
def _cross(sa, sb, aa, stamp, epoch) -> int:  # pragma: no cover (compiled)
    """Neither board solved by the second guess, answers in classes ``sa`` and ``sb``: the third
    guess must solve one (a word of its class), the fourth the other; the most pairs finished:
    ``max over x in sa of classes(sb under x)``, or the same the other way round."""
    cap = max(sa.shape[0], sb.shape[0])
    best = 0
    first, second = (sb, sa) if sb.shape[0] < sa.shape[0] else (sa, sb)  # the larger class first
    for x in second:
        epoch[0] += 1
        best = max(best, _split(aa[x], first, -1, stamp, epoch[0]))
        if best == cap:
            return best
    for x in first:
        epoch[0] += 1
        best = max(best, _split(aa[x], second, -1, stamp, epoch[0]))
        if best == cap:
            return best
    return best


@cached_njit()
def _after_solved(other, nclass, guess_cell) -> int:  # pragma: no cover (compiled)
    """The opener solved one board: the most answers of cell ``other`` a second guess leaves alone
    in their class (found by the third guess) or solves itself."""
    best = 0
    for g in range(nclass.shape[1]):
        best = max(best, nclass[other, g] + (1 if guess_cell[g] == other else 0))
    return best


# complexity: compiled (numba), the count of a cell pair's second guesses inline in one loop nest
@cached_njit(nogil=True)
def pair_counts(  # pragma: no cover (compiled)
    i,
    order,
    starts,
    guess_cell,
    cell_solved,
    sizes,
    nclass,
    table,
    aa,
    answer_of,
    num_patterns,
    search,
    stop,
):
    """For cell ``i`` and every cell ``j >= i``: the most ordered answer pairs of cell ``i`` x cell
    ``j`` (``a != b``) finished by the third guess and by the fourth, and how many second guesses
    were counted exactly. ``cell_solved``: the opener's own cell (an answer it solves), or -1.
    ``search`` false: by the fourth guess, the class-size bound's best alone (no search; ``aa`` is
    not read). ``stop[0]`` set (from another thread: the GIL is released) ends it early with the
    counts unfinished."""
    num_guesses = table.shape[0]
    num_cells = starts.shape[0] - 1
    by3 = np.zeros(num_cells, dtype=np.int64)
    by4 = np.zeros(num_cells, dtype=np.int64)
    exact = np.zeros(num_cells, dtype=np.int64)
    slot = np.full(num_patterns, -1, dtype=np.int64)
    pats = np.zeros(num_patterns, dtype=np.int64)
    stamp = np.zeros(num_patterns, dtype=np.int64)
    epoch = np.zeros(1, dtype=np.int64)
    longest = np.max(starts[1:] - starts[:-1])
    work = (
        slot,
        pats,
        stamp,
        epoch,
        np.zeros(longest, dtype=np.int64),
        np.zeros(longest + 1, dtype=np.int64),
        np.zeros(longest, dtype=np.int64),
        np.zeros(longest + 1, dtype=np.int64),
    )
    bound = np.zeros(num_guesses, dtype=np.int64)
    ca = order[starts[i] : starts[i + 1]]
    for j in range(i, num_cells):
        if stop[0]:
            break
        cb = order[starts[j] : starts[j + 1]]
        same = i == j
        na, nb = ca.shape[0], cb.shape[0]
        if same and na < 2:
            continue
        if i == cell_solved or j == cell_solved:
            # the opener solved one board: the other, within two more guesses (the most classes a
            # second guess makes, its own answer solved at once); within three, counted as finished
            # (a bound)
            other = j if i == cell_solved else i
            by3[j] = _after_solved(other, nclass, guess_cell)
            by4[j] = starts[other + 1] - starts[other]
            continue
        best3 = 0
        for g in range(num_guesses):
            a_hit = guess_cell[g] == i
            b_hit = guess_cell[g] == j
            if same:
                if a_hit:
                    best3 = max(best3, 2 * nclass[i, g])
                sa = sizes[g, starts[i] : starts[i] + nclass[i, g]]
                full = _size_bound(sa, sa)
                for s in sa:
                    full += s - 2
                bound[g] = full + (2 * (na - 1) if a_hit else 0)
            else:
                if a_hit:
                    best3 = max(best3, nclass[j, g])
                if b_hit:
                    best3 = max(best3, nclass[i, g])
                sa = sizes[g, starts[i] : starts[i] + nclass[i, g]]
                sb = sizes[g, starts[j] : starts[j] + nclass[j, g]]
                bound[g] = _size_bound(sa, sb) + (nb if a_hit else 0) + (na if b_hit else 0)
        by3[j] = best3
        if not search:
            by4[j] = bound.max()
            continue
        ranked = np.argsort(-bound)
        best4 = np.int64(0)
        count = 0
        for g in ranked:
            if bound[g] <= best4 or stop[0]:
                break
            count += 1
            hits = (guess_cell[g] == i, guess_cell[g] == j)
            best4 = max(best4, _exact(g, ca, cb, same, *hits, table, aa, answer_of, work))
        by4[j] = best4
        exact[j] = count
    return by3, by4, exact


@cached_njit()
def class_counts(table, answer_of, order, starts, num_patterns):  # pragma: no cover (compiled)
    """``nclass`` alone (see :func:`class_sizes`): how many classes each guess splits each cell
    into."""
    num_guesses = table.shape[0]
    num_cells = starts.shape[0] - 1
    nclass = np.zeros((num_cells, num_guesses), dtype=np.int32)
    stamp = np.zeros(num_patterns, dtype=np.int64)
    epoch = 0
    for g in range(num_guesses):
        row = table[g]
        for c in range(num_cells):
            epoch += 1
            nclass[c, g] = _split(row, order[starts[c] : starts[c + 1]], answer_of[g], stamp, epoch)
    return nclass


# complexity: compiled (numba), each pair's bound inline in one parallel loop
@cached_njit(parallel=True)
def count_bounds(starts, guess_cell, cell_solved, nclass):  # pragma: no cover (compiled)
    """For every cell pair: the most pairs finished by the third guess (exact) and, by the fourth, a
    bound from the class counts alone: a class pair finishes at most ``max(s, t) <= s + t - 1``
    pairs, so a second guess at most ``|A||B| - (|A| - k_A)(|B| - k_B)`` (classes ``k``; answers in
    one cell: ``2kn - k^2 - k``) besides the boards it solves. Returns the totals over ordered cell
    pairs."""
    num_guesses = nclass.shape[1]
    num_cells = starts.shape[0] - 1
    by3 = np.zeros(num_cells, dtype=np.int64)
    by4 = np.zeros(num_cells, dtype=np.int64)
    for p in prange(num_cells):
        # prange's index is unsigned: mixed with signed ones, numba would make floats
        i = np.int64(p)
        na = starts[i + 1] - starts[i]
        for j in range(i, num_cells):
            nb = starts[j + 1] - starts[j]
            if i == j and na < 2:
                continue
            twice = 1 if i == j else 2
            # as pair_counts: exact by the third, all by the fourth
            if i == cell_solved or j == cell_solved:
                other = j if i == cell_solved else i
                by3[i] += twice * _after_solved(other, nclass, guess_cell)
                by4[i] += twice * (nb if i == cell_solved else na)
                continue
            best3 = 0
            best4 = 0
            for g in range(num_guesses):
                a_hit = guess_cell[g] == i
                b_hit = guess_cell[g] == j
                ka = nclass[i, g]
                if i == j:
                    n = na - 1 if a_hit else na
                    v = 2 * ka * n - ka * ka - ka
                    if a_hit:
                        v += 2 * (na - 1)
                        best3 = max(best3, 2 * ka)
                else:
                    kb = nclass[j, g]
                    a = na - 1 if a_hit else na
                    b = nb - 1 if b_hit else nb
                    v = a * b - (a - ka) * (b - kb)
                    if a_hit:
                        v += nb
                        best3 = max(best3, kb)
                    if b_hit:
                        v += na
                        best3 = max(best3, ka)
                best4 = max(best4, v)
            by3[i] += twice * best3
            by4[i] += twice * best4
    return by3.sum(), by4.sum()
