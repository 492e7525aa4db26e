"""The exact oracle: the optimal value of any Wordle position, of any guess there, and so the regret
of every decision an agent makes.

A position is what a player knows: the answers still possible, the guesses left and, in hard mode,
the constraint the feedback revealed. Its value ``V*`` is the least expected number of further
guesses (the next one included; each possible answer equally likely), an answer not found within the
limit counting one more than the limit, as ``mean_guesses_all`` counts a loss. ``Q*(s, a)`` is the
same after guessing ``a`` first (a guess hard mode refuses spends the turn and reveals nothing).
Both come from the exact search of :mod:`wordle_gym.solver.search` (numba), whose cache
is kept across calls, so positions that share subproblems get cheaper as an evaluation goes on.

The start of a game is the one position this oracle does not search: its value is the best opener's,
a search over every allowed first guess (alex1770 proved SALET best on the real lists: a day of
CPU). By default ``V*`` there is ``Q*`` of ``root_opener`` (SALET on the real lists, the reference
of ``wordle-gym bench``); ``root_opener=None`` searches it exactly, which small lists afford;
``"proven"`` takes the opener the tables prove best, where they do. For the lists they were made on,
shipped tables (:mod:`wordle_gym.solver.opener_tables`) answer the first move without a search: the
project's exact values, the published totals and the every-opener ranking with losses, each checked
against the others and against what the opener's feedback buckets force before it is used.

    oracle = Oracle(WordleConfig())  # the real game
    report = oracle.regrets(histories)  # histories[i]: the actions played on answer i
    report.mean_regret, report.by_turn, report.costliest(20)

The sum of an agent's regrets over a game, averaged over the answers, is its mean number of guesses
(a loss counted as the limit + 1) minus ``V*`` of the start, for an agent that plays the same guess
wherever it knows the same (every deterministic agent of the harness): ``report.check()`` asserts
it.
"""

from __future__ import annotations

import copy
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from wordle_gym.core.config import WordleConfig
from wordle_gym.core.game import NO_LETTER
from wordle_gym.core.rules import ALPHABET, num_patterns
from wordle_gym.core.words import Vocabulary
from wordle_gym.solver.position import Position
from wordle_gym.solver.report import RegretReport, analyze, regrets
from wordle_gym.solver.search import _Search
from wordle_gym.solver.start_tables import StartTables
from wordle_gym.solver.store import PositionStore, machine_store

ORACLE_CACHE_ENTRIES = 2_000_000
"""Past this many entries an oracle's search cache is emptied before a move is valued (about 100 MB;
the exact values proven stay in its memo and the position store)."""

STORE_MIN, STORE_S, STORE_WORK = 8, 0.005, 10_000_000
"""Positions of at least this many answers whose search took at least this long (or, searched from
nothing within a budget, this much work) go to the position store (smaller ones are searched faster
than they are looked up)."""


def regret_oracle(config: WordleConfig) -> Oracle:
    """The oracle of the text env's ``reward="regret"`` (``regret.load_oracle`` keeps one a game):
    the start valued from the opener the tables prove best (SALET on the real lists), else searched;
    solved positions kept in the disk cache (:func:`~wordle_gym.utils.files.cache_folder`; none when
    it is off)."""
    return Oracle(config, root_opener="proven", store=machine_store(config))


class Oracle:
    """Exact ``V*`` and ``Q*`` for the game of ``config`` (or its fields as keywords). See the
    module doc."""

    def __init__(
        self,
        config: WordleConfig | None = None,
        *,
        root_opener: str | None = "salet",
        avoid_losses: bool = False,
        opener_table: str | Path | None = None,
        store: PositionStore | None = None,
        **options: Any,
    ):
        """``avoid_losses``: :meth:`best_action` plays the best tree that wins every answer where
        one exists (a teacher that never gives a game up), and the best tree counting losses only
        where none does. Values always count a loss as the limit + 1: in hard mode that optimum can
        give games up (from SALET, 8116 guesses with 3 losses against 8122 winning all).
        ``opener_table``: a table of exact first-move totals (``tasks.opener_values``) for the
        shipped one. ``store``: solved positions kept on disk across processes
        (:class:`~wordle_gym.solver.store.PositionStore`; :func:`regret_oracle` uses one).
        ``root_opener="proven"``: the best opener where the tables prove it best, else None (the
        start searched)."""
        self.avoid_losses = avoid_losses
        self.store = store
        self._strict: _Search | None = None
        self.config = WordleConfig.build(config, **options)
        self.vocab: Vocabulary = self.config.vocabulary
        self.max_guesses = self.config.max_guesses
        self.hard_mode = self.config.hard_mode
        self.search = _Search(self.vocab, self.hard_mode, self.max_guesses, lose=True)
        self.cache = self.search.new_cache()
        self.stats = np.zeros(1, dtype=np.int64)
        self.solved = num_patterns(self.vocab.length) - 1
        self._totals: dict[Position, int] = {}
        # the tables' values (the same in every process), and what searches from nothing proved
        # (total, work) or ran out of (the largest budget): what a budgeted move reads
        self._shipped: dict[Position, int] = {}
        self._proven: dict[Position, tuple[int, int]] = {}
        self._failed: dict[Position, int] = {}
        self._uppers: dict[Position, int] = {}
        length = self.vocab.length
        self._start = Position(
            tuple(range(self.vocab.num_answers)), self.max_guesses, (-1,) * length, (0,) * ALPHABET
        )
        self.tables = StartTables(
            self.vocab,
            self.hard_mode,
            self.max_guesses,
            self.search,
            self._start.arrays()[0],
            self.solved,
            opener_table,
        )
        tables = self.tables
        self.root_exact, self.root_floor, self.root_tabled = (
            tables.exact,
            tables.floor,
            tables.tabled,
        )
        self.root_upper, self.root_sources = tables.upper, tables.sources
        self.root_one_fewer = tables.one_fewer
        self._learn_children(tables.children)
        self.root_opener = self.proven_best() if root_opener == "proven" else root_opener
        if isinstance(self.root_opener, str):
            self.root_opener = self.vocab.action(self.root_opener)
        if self.root_opener is not None and self.root_opener in self.root_exact:
            self._shipped[self._start] = self.root_exact[self.root_opener]
        if self.root_opener is not None and self.root_opener in self.root_one_fewer:
            fewer = self._start._replace(left=self.max_guesses - 1)
            self._shipped[fewer] = self.root_one_fewer[self.root_opener]
        self._totals.update(self._shipped)

    def fork(self) -> Oracle:
        """An oracle of the same game that searches on its own (its own search cache and stop flag,
        so that two forks search at once on two cores and neither waits on the other), sharing the
        tables, the store and the values every fork has proven (exact values only, so sharing them
        is safe)."""
        twin = copy.copy(self)
        twin.search = copy.copy(self.search)
        twin.search.stop = np.zeros(3, dtype=np.int64)
        twin.cache = self.search.new_cache()
        twin.stats = np.zeros(1, dtype=np.int64)
        twin._strict = None
        return twin

    def proven_best(self) -> int | None:
        """The opener the tables prove best (its exact total at most every other opener's lower
        bound), or None."""
        if not self.root_exact:
            return None
        best = min(self.root_exact, key=lambda a: (self.root_exact[a], a))
        others = np.delete(self.root_floor, best)
        return best if others.size == 0 or self.root_exact[best] <= int(others.min()) else None

    def _learn_children(self, children: dict[str, dict[int, tuple[int, int]]]) -> None:
        """Take the table's values of the positions after each opener (with the guesses left, and
        one fewer)."""
        start = self._start
        members, green, need = start.arrays()
        for word, found in children.items():
            action = self.vocab.action(word)
            if not found or not self.search.hard_valid(action, green, need):
                continue
            for pattern, group in self.search.buckets(action, members):
                if pattern in found:
                    child = self._child(start, action, pattern, group, green, need)
                    fewer = child._replace(left=child.left - 1)
                    self._shipped[child], self._shipped[fewer] = found[pattern]

    def _children(self, position: Position, action: int) -> dict[int, tuple[int, int]]:
        """``V*`` totals of each position ``action`` leads to from ``position`` (by feedback
        pattern): with the guesses left after it, and with one fewer."""
        members, green, need = position.arrays()
        out: dict[int, tuple[int, int]] = {}
        if position.left <= 2:
            return out
        for pattern, group in self.search.buckets(action, members):
            if pattern != self.solved:
                child = self._child(position, action, pattern, group, green, need)
                out[pattern] = (
                    self._total(child),
                    self._total(child._replace(left=child.left - 1)),
                )
        return out

    # ------------------------------------------------------------------ positions
    def start(self) -> Position:
        """The position before the first guess."""
        return self._start

    def positions(self, game: Any, state: Any) -> list[Position]:
        """The position of each game of a batched :class:`~wordle_gym.core.game.GameState`
        (``game``: the env's :class:`~wordle_gym.core.game.Game`, ``env.game``), e.g. the vector
        env's ``env.state``."""
        if game.config != self.config and (game.vocabulary, game.hard_mode, game.max_guesses) != (
            self.vocab,
            self.hard_mode,
            self.max_guesses,
        ):
            raise ValueError("the games are of other lists or rules than this oracle's")
        members = game.consistent(state).cpu()
        lefts = (self.max_guesses - state.turn).cpu().tolist()
        greens = torch.where(state.green == NO_LETTER, -1, state.green.long()).cpu().tolist()
        needs = state.min_count.long().cpu().tolist()
        out = []
        for i, row in enumerate(members):
            green = tuple(greens[i]) if self.hard_mode else self._start.green
            need = tuple(needs[i]) if self.hard_mode else self._start.need
            out.append(Position(tuple(row.nonzero().flatten().tolist()), lefts[i], green, need))
        return out

    def values(self, game: Any, state: Any) -> np.ndarray:
        """``V*`` of every game of a batched state (nan where the game is over or no answer
        fits)."""
        done = state.done.cpu().tolist()
        return np.array(
            [
                self.value(p) if p.left > 0 and p.members and not done[i] else math.nan
                for i, p in enumerate(self.positions(game, state))
            ]
        )

    def after(self, position: Position, action: int, answer: int) -> Position:
        """The position after guessing ``action`` when the answer is ``answer`` (a refused hard-mode
        guess only spends the turn)."""
        _, green, need = position.arrays()
        if not self.search.hard_valid(action, green, need):
            return position._replace(left=position.left - 1)
        row = self.search.table[action]
        pattern = row[answer]
        members = [m for m in position.members if row[m] == pattern]
        return self._child(position, action, int(pattern), members, green, need)

    def _child(
        self, position: Position, action: int, pattern: int, members: Any, green: Any, need: Any
    ) -> Position:
        """The position after ``action`` got feedback ``pattern``: ``members`` (answer indices), one
        guess fewer, hard mode's constraint advanced."""
        answers = tuple(sorted(np.asarray(members, dtype=np.int64).tolist()))
        if not self.hard_mode:  # the constraint is the start's all game long
            return Position(answers, position.left - 1, position.green, position.need)
        child_green, child_need = self.search.child_constraint(action, pattern, green, need)
        return Position(
            answers, position.left - 1, tuple(child_green.tolist()), tuple(child_need.tolist())
        )

    # --------------------------------------------------------------------- values
    def value(self, position: Position) -> float:
        """``V*``: the least expected number of further guesses."""
        return self._total(position) / len(position.members)

    def q_value(self, position: Position, action: int) -> float:
        """``Q*``: the least expected number of further guesses when ``action`` is the next one."""
        return self._q_total(position, action) / len(position.members)

    def best_action(self, position: Position) -> int:
        """One optimal guess (the search's own, read from its cache)."""
        if self.root_opener is not None and position == self._start:
            return self.root_opener
        # guess a candidate (the search caches no such node)
        if position.left <= 1 or len(position.members) <= 2:
            return int(self.vocab.answer_actions[position.members[0]])
        members, green, need = position.arrays()
        if self.avoid_losses:
            if self._strict is None:
                self._strict = _Search(self.vocab, self.hard_mode, self.max_guesses)
                self._strict_cache = self._strict.new_cache()
            strict = self._strict
            if (
                strict.value(members, position.left, green, need, self._strict_cache, self.stats)
                < strict.kernel.INF
            ):
                return strict.best_guess(members, position.left, green, need, self._strict_cache)
        self._total(position)
        return self.search.best_guess(members, position.left, green, need, self.cache)

    def optimal_actions(self, position: Position) -> list[int]:
        """Every guess whose ``Q*`` equals ``V*`` (all of them, by exact search with cutoffs)."""
        best = self._total(position)
        n = len(position.members)
        members = position.arrays()[0]
        out = []
        for g in range(self.vocab.num_allowed):
            patterns = self.search.table[g, members]
            hit = int((patterns == self.solved).any())
            if 3 * n - hit - len(np.unique(patterns)) > best and position.left > 1:
                continue  # its lower bound is already worse (the search's own bound)
            if self._q_total(position, g) == best:
                out.append(g)
        return out

    def _total(self, position: Position) -> int:
        found = self._totals.get(position)
        if found is not None:
            return found
        n = len(position.members)
        if n == 0:
            raise ValueError(
                "a position with no possible answer has no value (feedback no answer fits)"
            )
        # (the tables' values, the start with a guess fewer among them, are in the memo)
        if self.root_opener is not None and position == self._start:
            total = self._q_total(position, self.root_opener)
        else:
            row, wrong = self._stored(position)
            total = None if row is None else row[0]
            if total is None:
                searched = time.perf_counter()
                members, green, need = position.arrays()
                total = self.search.value(
                    members, position.left, green, need, self.cache, self.stats
                )
                # abandoned (a budget, Ctrl-C): the value is meaningless and is not kept
                if self.search.stop[0]:
                    raise TimeoutError("the search was stopped")
                slow = time.perf_counter() - searched >= STORE_S
                if self.store is not None and n >= STORE_MIN and (wrong or slow):
                    self.store.put(position, total)
        self._totals[position] = total
        return total

    def _stored(self, position: Position) -> tuple[tuple[int, int | None] | None, bool]:
        """The position store's ``(total, work)`` for ``position`` where it holds what is proven
        for it (None where it holds nothing, or for a small position), and whether it held a row
        that is not, which it is told of (its warning, once)."""
        n = len(position.members)
        row = None if self.store is None or n < STORE_MIN else self.store.lookup(position)
        if row is None or self._value_floor(position) <= row[0] <= n * (position.left + 1):
            return row, False
        self.store.refuse(f"a stored total ({row[0]}) is outside what is proven for its position")
        return None, True

    def _q_total(self, position: Position, action: int) -> int:
        """Total further guesses over the position's answers when ``action`` comes next."""
        if position == self._start and action in self.root_exact:
            return self.root_exact[action]
        if position.left <= 0:
            raise ValueError("no guess is left in this position")
        _, green, need = position.arrays()
        if not self.search.hard_valid(action, green, need):
            return self._spent(position, self._total)
        return self._q_from(position, action, self._total)

    def _spent(self, position: Position, child_total: Any) -> int | None:
        """One guess for each answer of ``position`` plus ``child_total`` of the same position with
        a guess fewer (a turn spent; after the last turn each answer is lost, one guess more); None
        where ``child_total`` gives None."""
        n = len(position.members)
        if position.left == 1:
            return 2 * n
        after = child_total(position._replace(left=position.left - 1))
        return None if after is None else n + after

    def _q_from(self, position: Position, action: int, child_total: Any) -> int | None:
        """One guess for each answer of ``position`` plus ``child_total`` of each position
        ``action`` (a guess it allows) leads to, largest first (an answer left after the last guess
        costs one, lost); None where ``child_total`` gives None for one (every one is asked)."""
        members, green, need = position.arrays()
        total: int | None = len(position.members)
        for pattern, group in self.search.buckets(action, members):
            if pattern == self.solved:
                continue
            found = (
                len(group)
                if position.left == 1
                else child_total(self._child(position, action, pattern, group, green, need))
            )
            total = None if total is None or found is None else total + found
        return total

    # ------------------------------------------------------- one move, in bounded time
    def move_regret(
        self, position: Position, action: int | None, budget: int | None = None
    ) -> dict[str, Any]:
        """The regret ``Q*(s, a) - V*(s)`` of one move at ``position`` (``action`` None: a turn
        spent without a guess, as the text env's refused reply; a guess hard mode refuses is the
        same), exact where the tables hold it or searches from nothing prove it within ``budget``
        work (the kernel's count: candidates times guesses scanned; None: no limit), else proven
        bounds.

        A pure function of the position, the move and the budget: ``V*`` is exact where a search
        of the position from an empty cache takes at most ``budget``, ``Q*`` where the positions
        the move leads to take at most ``budget`` together (searched largest first, each from an
        empty cache); what a search proved is kept with the work it took, and used only where that
        work fits the budget, so the same move gets the same reward, flag and bounds in any
        process, order, load and state of the store.

        Returns ``{"regret", "exact", "low", "high", "basis", "seconds"}``:
        ``low <= Q* - V* <= high`` always, equal when ``exact``; ``regret`` is the exact value, or
        past the budget the upper bound ``high``, never the optimistic one: a move is never charged
        less than a move it is proven better than, and a search that runs out of work never pays
        (``basis`` says which: "exact", or the upper bound and where it came from). The bounds:
        ``Q*`` from below by the buckets of the guess (each bucket of c answers needs 2c - 1 more
        guesses, c on the last turn) and from above by a real policy's exact total (the greedy play
        of :meth:`upper`; at the start, a published strategy's total where the tables have one),
        each bucket proven within the budget counted exactly; ``V*`` from below by the buckets'
        bound's least over every guess and from above by ``Q*`` of the move."""
        start = time.perf_counter()
        n = len(position.members)
        if n == 0 or position.left <= 0:
            raise ValueError("a position with no answer left or no guess left has no move to value")
        if budget is not None and (isinstance(budget, bool) or not budget >= 1):
            raise ValueError(f"budget must be a positive amount of work, or None; got {budget!r}")
        _, green, need = position.arrays()
        if action is not None and not self.search.hard_valid(action, green, need):
            action = None  # refused by hard mode: the turn is spent
        if budget is None:  # every search finishes: exact, whatever the caches hold
            v = self.search.run(lambda: self._total(position), stats=self.stats)
            q = self.search.run(lambda: self._move_total(position, action), stats=self.stats)
            return {**self._judged(q, v, n), "seconds": time.perf_counter() - start}
        v, q, known = self.search.run(lambda: self._judge_within(position, action, budget))
        if v is not None and q is not None:
            return {**self._judged(q, v, n), "seconds": time.perf_counter() - start}
        return {
            **self.bracket(position, action, v, q, known),
            "seconds": time.perf_counter() - start,
        }

    def _judge_within(
        self, position: Position, action: int | None, budget: int
    ) -> tuple[int | None, int | None, dict[Position, int]]:
        """``V*``'s and ``Q*``'s totals where proven within ``budget`` (None where not), and the
        totals of the positions the move leads to that were proven on the way."""
        # a long-lived env's memory stays flat
        if len(self._proven) > ORACLE_CACHE_ENTRIES:
            self._proven.clear()
            self._failed.clear()
        # an opener the tables do not hold: its search takes minutes on lists the tables were made
        # for, so it is bounded at once (the tables' bounds) instead of searched in vain
        hopeless = (
            position == self._start
            and self.root_tabled
            and action is not None
            and action not in self.root_exact
        )
        # the start of the real lists: a day of search
        unproven_start = position == self._start and self.root_opener is None and self.root_tabled
        v = None if unproven_start else self._within(position, budget)[0]
        q, _, known = (None, 0, {}) if hopeless else self._move_within(position, action, budget)
        return v, q, known

    @staticmethod
    def _judged(q: int, v: int, n: int) -> dict[str, Any]:
        regret = (q - v) / n
        return {"regret": regret, "exact": True, "low": regret, "high": regret, "basis": "exact"}

    def _closed(self, position: Position) -> int | None:
        """``V*``'s total where the kernel has it in closed form (no node expanded), else None."""
        closed = int(self.search.kernel.closed_value(len(position.members), position.left, True))
        return None if closed < 0 else closed

    def _within(self, position: Position, budget: int) -> tuple[int | None, int]:
        """``V*``'s total where the tables hold it or a search of ``position`` from an empty cache
        proves it within ``budget`` work, and the work that takes; ``(None, budget)`` where it
        does not. What it proves (or runs out of) is kept, with its work, in this process and
        the position store: the answer depends on the position and the budget alone."""
        found = self._shipped.get(position)
        if found is None:
            found = self._closed(position)
        if found is not None:
            return found, 0
        if position == self._start and self.root_opener is not None:  # V* is its opener's Q*
            total, work, _ = self._move_within(position, self.root_opener, budget)
            return total, work
        proven = self._proven.get(position)
        if proven is None:
            row, _ = self._stored(position)
            if row is not None and row[1] is not None:
                proven = self._proven[position] = (row[0], row[1])
        if proven is not None:
            return (proven[0], proven[1]) if proven[1] <= budget else (None, budget)
        if budget <= self._failed.get(position, 0):
            return None, budget
        return self._search_within(position, budget)

    def _search_within(self, position: Position, budget: int) -> tuple[int | None, int]:
        """:meth:`_within`'s search of ``position`` from an empty cache, stopped past ``budget``
        work; what it proves (or runs out of) kept with its work."""
        members, green, need = position.arrays()
        stop = self.search.stop
        stop[1], stop[2] = budget, 0
        try:
            total = self.search.value(
                members, position.left, green, need, self.search.new_cache(), self.stats
            )
            work = int(stop[2])
        finally:
            stop[1] = stop[2] = 0
        if stop[0]:  # Ctrl-C: nothing half done is kept
            raise TimeoutError("the search was stopped")
        if work > budget:
            self._failed[position] = budget
            return None, budget
        self._proven[position] = (total, work)
        self._totals.setdefault(position, total)
        if self.store is not None and len(position.members) >= STORE_MIN and work >= STORE_WORK:
            self.store.put(position, total, work)
        return total, work

    def _move_within(
        self, position: Position, action: int | None, budget: int
    ) -> tuple[int | None, int, dict[Position, int]]:
        """:meth:`_move_total` where its positions are proven within ``budget`` work together
        (:meth:`_within`, largest first), the work, and the totals of the positions it proved."""
        if action is not None and position == self._start and action in self.root_exact:
            return self.root_exact[action], 0, {}
        spare, known = [budget], {}

        def child_total(child: Position) -> int | None:
            found, work = self._within(child, spare[0])
            if found is None:
                spare[0] = 0  # it had what was left
            else:
                known[child] = found
                spare[0] -= work
            return found

        total = (
            self._spent(position, child_total)
            if action is None
            else self._q_from(position, action, child_total)
        )
        return total, budget - spare[0], known

    def bracket(
        self,
        position: Position,
        action: int | None,
        v: int | None = None,
        q: int | None = None,
        known: dict[Position, int] | None = None,
    ) -> dict:
        """:meth:`move_regret`'s proven bounds of a move (``action`` None: a turn spent) with what
        is known: ``v`` and ``q``, the exact ``V*`` and ``Q*`` totals (None where unproven), and
        ``known``, the exact totals of positions the move leads to."""
        n = len(position.members)
        q_low, q_high, basis = (
            (q, q, "exact") if q is not None else self._move_bounds(position, action, known or {})
        )
        v_low, v_high = (v, v) if v is not None else (self._value_floor(position), q_high)
        # no guess costs less than the best, nor in normal mode a spent turn (a guess that ignores
        # its feedback does as well); in hard mode a guess binds the later ones, so spending the
        # turn may be best. A spent turn can cost less than one guess: with a guess fewer, a loss
        # costs one guess less.
        least = -math.inf if action is None and self.hard_mode else 0
        low, high = max(least, q_low - v_high) / n, max(0, q_high - v_low) / n
        exact = low == high
        basis = "exact" if exact else f"upper bound ({basis})"
        return {"regret": high, "exact": exact, "low": low, "high": high, "basis": basis}

    def _move_total(self, position: Position, action: int | None) -> int:
        """Q* total of a move (None: the turn spent)."""
        if action is None:
            return self._spent(position, self._total)
        return self._q_total(position, action)

    def _move_bounds(
        self, position: Position, action: int | None, known: dict[Position, int]
    ) -> tuple[int, int, str]:
        """Proven (lower, upper) bounds on :meth:`_move_total`, with the totals ``known``, and what
        the upper one is."""

        def floor(child: Position) -> int:
            return known[child] if child in known else self._value_floor(child)

        def ceiling(child: Position) -> int:
            return known[child] if child in known else self.upper(child)

        if action is None:
            exact = position.left == 1 or position._replace(left=position.left - 1) in known
            low, high = self._spent(position, floor), self._spent(position, ceiling)
            return low, high, "exact" if exact else "greedy play"
        if position == self._start and action in self.root_upper:
            high, what = self.root_upper[action], "a published strategy's total"
            return int(self.root_floor[action]), high, what
        # a bucket of c answers: 2c - 1 more guesses at least
        low = self._q_from(
            position, action, lambda child: known.get(child, 2 * len(child.members) - 1)
        )
        high = self._q_from(position, action, ceiling)
        if position == self._start:
            low = max(low, int(self.root_floor[action]))
        return low, high, "greedy play"

    def upper(self, position: Position) -> int:
        """A proven upper bound on ``V*``'s total, the same in every process: the tables' exact
        value where they hold it, else the total of the greedy policy that makes the most feedback
        buckets at each node (a real policy, valued exactly)."""
        found = self._shipped.get(position)
        if found is None:
            found = self._uppers.get(position)
        if found is None:
            members, green, need = position.arrays()
            found = self._uppers[position] = self.search.greedy(members, position.left, green, need)
        return found

    def _value_floor(self, position: Position) -> int:
        """A proven lower bound on V*'s total: the bucket bound's least over every allowed guess
        (hard mode's refusals included, which can only lower it)."""
        if position == self._start:
            return int(self.root_floor.min())
        members = position.arrays()[0]
        n = len(members)
        if n == 1:
            return 1
        splits, hits = self.search.kernel.split_counts(
            self.search.by_answer, members, self.search.everything, self.solved + 1
        )
        floor = (2 * n - hits) if position.left == 1 else (3 * n - hits - splits)
        return int(floor.min())

    def analyze(self, actions: list[int], answer: int) -> dict[str, Any]:
        """The skill and the luck of one game (:func:`wordle_gym.solver.report.analyze`)."""
        return analyze(self, actions, answer)

    def regrets(
        self,
        histories: list[list[int]],
        progress: bool | None = None,
        answers: list[int] | None = None,
    ) -> RegretReport:
        """The regret of every decision of games played once per answer
        (:func:`wordle_gym.solver.report.regrets`)."""
        return regrets(self, histories, progress, answers)
