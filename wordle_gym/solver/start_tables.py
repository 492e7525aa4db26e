"""What the tables prove about the start of a game (:class:`StartTables`): each opener's exact
first-move total where a shipped table (or one given) holds it, its proven lower bound otherwise,
and the published strategies' totals as upper bounds; every value read is held to what the opener's
feedback buckets prove, and the tables to each other, before it is used."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from wordle_gym.core.words import Vocabulary
from wordle_gym.solver import solver_data
from wordle_gym.solver.opener_tables import (
    OPENER_TOTALS,
    OPENER_VALUES,
    OpenerValues,
    read_loss_ranking,
    read_opener_totals,
    read_opener_values,
)

if TYPE_CHECKING:
    from wordle_gym.solver.search import _Search


def _least(count: int, left: int) -> int:
    """The least total ``count`` answers can cost with ``left`` guesses left (a loss costing the
    limit + 1): each lost when none is left, else one guessed and the others found later."""
    return count if left <= 0 else 2 * count - 1


class StartTables:
    """The start's tables of one game, read and checked: ``exact`` (total by opener action),
    ``floor`` (every opener's proven lower bound, its exact total where known), ``upper`` (published
    strategies' totals) with their ``sources``, ``one_fewer`` (exact totals with a guess fewer),
    ``children`` (the positions after an opener, by the table of exact values) and ``tabled``
    (whether tables bound every opener: then one they do not hold is not searched)."""

    def __init__(
        self,
        vocab: Vocabulary,
        hard_mode: bool,
        max_guesses: int,
        search: _Search,
        members: np.ndarray,
        solved: int,
        opener_table: str | Path | None = None,
    ) -> None:
        """``members``: the start's answers as the search takes them; ``solved``: the pattern of
        every tile green."""
        self.vocab, self.hard_mode, self.max_guesses = vocab, hard_mode, max_guesses
        self.search, self.members, self.solved = search, members, solved
        self.upper: dict[int, int] = {}
        self.sources: dict[str, str] = {}
        self.exact, self.floor, found = self._read(opener_table)
        self.one_fewer = {vocab.action(w): t for w, t in found.one_fewer.items()}
        self.children = found.children

    def _read(
        self, opener_table: str | Path | None
    ) -> tuple[dict[int, int], np.ndarray, OpenerValues]:
        """Exact ``Q*`` totals at the start by action (the shipped tables of exact values and of
        published totals, or ``opener_table``), and every opener's proven lower bound: what its
        feedback buckets force, raised by the shipped ranking with losses where it is of these
        lists. Every value read is checked against those bounds (and a published upper bound against
        the exact value) first: a file that fails says so; and the table of exact values read."""
        mode = "hard" if self.hard_mode else "normal"
        n = self.vocab.num_answers
        members = self.members
        splits, hits = self.search.kernel.split_counts(
            self.search.by_answer, members, self.search.everything, self.solved + 1
        )
        floor = (
            (3 * n - hits - splits).astype(np.int64)
            if self.max_guesses > 1
            else (2 * n - hits).astype(np.int64)
        )
        ranking, ranked = Path("no ranking"), {}
        # whether tables bound every opener (then one no table holds is not searched)
        losses = read_loss_ranking(self.vocab, self.hard_mode, self.max_guesses)
        self.tabled = losses is not None
        if losses is not None:
            ranking, values, ranked = losses
            floor = np.maximum(floor, values)
        sources: list[tuple[Path, dict[str, int]]] = []
        for path in sorted(solver_data().glob(OPENER_TOTALS)):
            table = read_opener_totals(path, self.vocab, self.hard_mode, self.max_guesses)
            if table is not None:
                self.tabled = True
                sources.append((path, table.exact))
                self.upper.update({self.vocab.action(w): t for w, t in table.upper.items()})
                self.sources.update(table.sources)
                self._check_upper(path, table.upper, floor)
        published: dict[int, int] = {}
        for where, totals in [
            *sources,
            (ranking, {self.vocab.allowed[i]: t for i, t in ranked.items()}),
        ]:
            for word, total in totals.items():
                action = self.vocab.action(word)
                self._check_exact(where, word, total, int(floor[action]), published.get(action))
                published[action] = total
        self._published, self._floor = published, floor.copy()
        path = (
            Path(opener_table)
            if opener_table is not None
            else solver_data() / OPENER_VALUES.format(mode=mode)
        )
        found = read_opener_values(path, self.vocab, self.hard_mode, self.max_guesses)
        self.check_values(found, path)
        exact = {**published, **{self.vocab.action(w): t for w, t in found.values.items()}}
        self._check_upper(
            Path("the tables"),
            {self.vocab.allowed[a]: t for a, t in self.upper.items()},
            floor,
            exact,
        )
        for action, total in exact.items():
            floor[action] = total
        return exact, floor, found

    def unvalued(
        self,
        word: str,
        table: OpenerValues,
        first: str | None,
        opener_s: float | None,
        children: bool,
    ) -> bool:
        """Whether ``tasks.opener_values`` has ``word`` still to value for ``table``: its total
        (unless a published table proves it and only the first move is wanted), its children (with
        ``children``), its total with a guess fewer (the ``first`` opener); never when it ran out
        of an ``opener_s`` limit as long before."""
        if opener_s is not None and table.timed_out.get(word, -1.0) >= opener_s:
            return False
        # the first move alone: a total another table proves (a published one) is not searched again
        known = word in table.values or (not children and self.vocab.action(word) in self.exact)
        return (
            not known
            or (children and word not in table.children)
            or (word == first and word not in table.one_fewer)
        )

    def check_values(self, table: OpenerValues, path: Path) -> None:
        """Every check a table of opener values (``tasks.opener_values``) is held to before it is
        used or written: each total within what the feedback buckets and the ranking prove for its
        opener and equal to a published exact total; each opener's children exactly the positions it
        leads to, each within what its answers allow, summing to the opener's total (ValueError
        naming ``path``, the opener and what fails)."""
        n, most = self.vocab.num_answers, self.max_guesses
        members, floor, published = self.members, self._floor, self._published
        for word, total in table.values.items():
            action = self.vocab.action(word)
            self._check_exact(path, word, total, int(floor[action]), published.get(action))
        for word, total in table.one_fewer.items():
            groups = self.search.buckets(self.vocab.action(word), members)
            least = n + sum(_least(len(g), most - 2) for p, g in groups if p != self.solved)
            if not least <= total <= most * n:
                raise ValueError(
                    f"{path}: {word!r} with one guess fewer totals {total}, outside what is proven "
                    f"for it ([{least}, {most * n}]: its feedback buckets)"
                )
        for word, kids in table.children.items():
            if kids:
                action = self.vocab.action(word)
                implied = self._check_children(path, word, kids)
                known = table.values.get(word, published.get(action))
                if known is not None and implied != known:
                    raise ValueError(
                        f"{path}: {word!r}'s total {known} is not one guess an answer plus its "
                        f"children's totals ({implied})"
                    )
                self._check_exact(path, word, implied, int(floor[action]), None)

    def _check_children(self, path: Path, word: str, kids: dict[int, tuple[int, int]]) -> int:
        """An opener's children in a table read from ``path``: exactly the positions it leads to,
        each total within what its answers allow; the opener's total they imply (ValueError
        naming the file, the opener and what fails)."""
        n, most = self.vocab.num_answers, self.max_guesses
        found = self.search.buckets(self.vocab.action(word), self.members)
        groups = {p: len(g) for p, g in found if p != self.solved}
        if set(kids) != set(groups):
            extra, missing = len(set(kids) - set(groups)), len(set(groups) - set(kids))
            raise ValueError(
                f"{path}: {word!r}'s children are not the {len(groups)} positions it leads to "
                f"({extra} extra, {missing} missing)"
            )
        for pattern, c in groups.items():
            for value, left in zip(kids[pattern], (most - 1, most - 2), strict=True):
                if not _least(c, left) <= value <= c * (left + 1):
                    raise ValueError(
                        f"{path}: {word!r}'s position of {c} answers (feedback {pattern}) "
                        f"with {left} guesses left totals {value}, outside what is possible "
                        f"([{_least(c, left)}, {c * (left + 1)}])"
                    )
        return n + sum(t for t, _ in kids.values())

    def _check_exact(
        self, path: Path, word: str, total: int, floor: int, other: int | None
    ) -> None:
        """An exact first-move total read from ``path``, held to what is proven (ValueError naming
        the file)."""
        n = self.vocab.num_answers
        if not floor <= total <= (self.max_guesses + 1) * n:
            raise ValueError(
                f"{path}: {word!r} totals {total}, outside what is proven for it "
                f"([{floor}, {(self.max_guesses + 1) * n}]: its feedback buckets and the ranking)"
            )
        if other is not None and other != total:
            raise ValueError(f"{path}: {word!r} totals {total}, another table {other}")

    def _check_upper(
        self,
        path: Path,
        upper: dict[str, int],
        floor: np.ndarray,
        exact: dict[int, int] | None = None,
    ) -> None:
        """Upper bounds read from ``path``, held to the proven lower bounds (ValueError naming the
        file)."""
        for word, total in upper.items():
            action = self.vocab.action(word)
            least = max(int(floor[action]), (exact or {}).get(action, 0))
            if total < least:
                raise ValueError(
                    f"{path}: {word!r}'s upper bound {total} is below what is proven ({least})"
                )
