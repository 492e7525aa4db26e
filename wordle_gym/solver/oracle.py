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
shipped tables answer the first move without a search: exact ``Q*`` of the openers the project
valued (:data:`OPENER_VALUES`, made by :func:`opener_values`, with the values of every position they
lead to), the published totals of :data:`OPENER_TOTALS` (exact ones and real strategies' totals,
each source cited) and a proven lower bound of every opener's (the every-opener ranking with losses,
``openers_<mode>_losses.json``); each is checked against the others and against what the opener's
feedback buckets force before it is used.

    oracle = Oracle(WordleConfig())                      # the real game report =
    oracle.regrets(histories)                   # histories[i]: the actions played on answer i
    report.mean_regret, report.by_turn, report.costliest(20)

The sum of an agent's regrets over a game, averaged over the answers, is its mean number of guesses
(a loss counted as the limit + 1) minus ``V*`` of the start, for an agent that plays the same guess
wherever it knows the same (every deterministic agent of the harness): ``report.check()`` asserts
it.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch
from tqdm.auto import tqdm

from wordle_gym.core.config import WordleConfig
from wordle_gym.core.game import NO_LETTER
from wordle_gym.core.rules import ALPHABET, num_patterns
from wordle_gym.core.words import Vocabulary
from wordle_gym.solver import solver_data
from wordle_gym.solver.search import _Search
from wordle_gym.solver.store import PositionStore
from wordle_gym.utils.files import (
    LockBusy,
    atomic_write_text,
    cache_folder,
    file_lock,
    quoted,
    read_text_bounded,
)


class Position(NamedTuple):
    """A position: candidate answers (sorted answer indices), guesses left, hard-mode constraint."""

    members: tuple[int, ...]
    left: int
    green: tuple[int, ...]  # letter required at each position (-1: none); all -1 outside hard mode
    need: tuple[int, ...]  # (26,) copies of each letter a guess must use (all 0 outside hard mode)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(members, green, need)`` as the search kernel takes them (int32, int64, int64)."""
        return (
            np.array(self.members, dtype=np.int32),
            np.array(self.green, dtype=np.int64),
            np.array(self.need, dtype=np.int64),
        )


@dataclass
class Decision:
    """One decision of an agent: where, what it guessed, and what that cost beyond the optimum."""

    answer: int  # index into the answers: the game it was made in
    turn: int  # 1 = the opener
    position: Position
    action: int
    q: float  # Q*(s, a): expected further guesses after this guess, this one included
    v: float  # V*(s)

    @property
    def regret(self) -> float:
        return self.q - self.v


@dataclass
class RegretReport:
    """Every decision of an evaluation with its exact regret."""

    decisions: list[Decision]
    num_games: int
    root_value: float  # V* of the start
    mean_cost: float  # the agent's mean guesses, a loss counted as the limit + 1
    answers: list[int] | None = None  # the answer of each game (None: every answer, in order)

    @property
    def mean_regret(self) -> float:
        """Regret per game: the sum of a game's regrets, averaged over the answers."""
        return sum(d.regret for d in self.decisions) / self.num_games

    @property
    def by_turn(self) -> dict[int, float]:
        """Regret per game made at each turn (they sum to :attr:`mean_regret`)."""
        out: dict[int, float] = {}
        for d in self.decisions:
            out[d.turn] = out.get(d.turn, 0.0) + d.regret / self.num_games
        return dict(sorted(out.items()))

    def identity_holds(self, tolerance: float = 1e-9) -> bool:
        """Whether mean regret = mean cost - V*(start) (true for any agent that plays by what it
        knows alone)."""
        return abs(self.mean_regret - (self.mean_cost - self.root_value)) <= tolerance

    def check(self, tolerance: float = 1e-9) -> None:
        """The identity (:meth:`identity_holds`); raises AssertionError if it fails."""
        if not self.identity_holds(tolerance):
            gap = self.mean_cost - self.root_value
            raise AssertionError(
                f"regrets sum to {self.mean_regret:.6f} per game; mean - V* is {gap:.6f}"
            )

    def costliest(self, k: int = 20) -> list[Decision]:
        """The ``k`` positions whose decisions cost the most regret in all (a position shared by
        several games counts once, with its regret times its games), one decision each."""
        weight: dict[tuple[Position, int], float] = {}
        first: dict[tuple[Position, int], Decision] = {}
        for d in self.decisions:
            key = (d.position, d.action)
            weight[key] = weight.get(key, 0.0) + d.regret
            first.setdefault(key, d)
        return [
            first[key]
            for key in sorted(weight, key=lambda key: -weight[key])[:k]
            if weight[key] > 0
        ]

    def to_json(self, oracle: Oracle, k: int = 20) -> dict[str, Any]:
        """What ``wordle-gym eval --regret`` keeps: every decision's regret (per answer, per turn),
        the means, and the ``k`` costliest positions with the words so far, their feedback, the
        candidates left, the agent's guess and an optimal one."""
        per_answer: list[list[float]] = [[] for _ in range(self.num_games)]
        game_of = {answer: i for i, answer in enumerate(self.answers or range(self.num_games))}
        for d in self.decisions:
            per_answer[game_of[d.answer]].append(round(d.regret, 6))
        words, answers = oracle.vocab.allowed, oracle.vocab.answers
        games_at = Counter((d.position, d.action) for d in self.decisions)
        costly = []
        for d in self.costliest(k):
            games = games_at[d.position, d.action]
            history = _history(
                oracle, per_answer_actions=self._actions(d.answer)[: d.turn - 1], answer=d.answer
            )
            costly.append(
                {
                    "turn": d.turn,
                    "games": games,
                    "regret": round(d.regret, 6),
                    "history": history,
                    "candidates": len(d.position.members),
                    "some_candidates": [answers[m] for m in d.position.members[:10]],
                    "guess": words[d.action],
                    "optimal": words[oracle.best_action(d.position)],
                    "q": round(d.q, 6),
                    "v": round(d.v, 6),
                }
            )
        return {
            "mean_regret": self.mean_regret,
            "by_turn": self.by_turn,
            "root_value": self.root_value,
            "mean_cost": self.mean_cost,
            "per_answer": per_answer,
            "costliest": costly,
        }

    def _actions(self, answer: int) -> list[int]:
        return [d.action for d in self.decisions if d.answer == answer]


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


def machine_store(config: WordleConfig) -> PositionStore | None:
    """The position store of ``config``'s game in the cache folder, which every process of the
    machine shares (None when the cache is off)."""
    folder = cache_folder()
    game = (config.vocabulary.digest, config.hard_mode, config.max_guesses)
    return None if folder is None else PositionStore.for_game(folder, *game)


def allowed_opener(vocab: Vocabulary, word: str) -> str | None:
    """``word`` where the lists allow it as a guess (the start's value is then taken from it), else
    None (the start is searched over every first guess: small lists only)."""
    try:
        vocab.action(word)
    except ValueError:
        return None
    return word


def _history(oracle: Oracle, per_answer_actions: list[int], answer: int) -> list[str]:
    """ "WORD tiles" for each guess played before a decision (tiles as 0/1/2; "-----" for a refused
    guess)."""
    out, position = [], oracle.start()
    for action in per_answer_actions:
        child = oracle.after(position, action, answer)
        _, green, need = position.arrays()
        refused = not oracle.search.hard_valid(action, green, need)
        pattern = (
            "-" * oracle.vocab.length
            if refused
            else "".join(str(t) for t in oracle.search.tiles[oracle.search.table[action, answer]])
        )
        out.append(f"{oracle.vocab.allowed[action]} {pattern}")
        position = child
    return out


VALUES_FORMAT = "wordle-gym opener values 1"
OPENER_VALUES = "opener_values_{mode}.json"
"""The shipped table of exact first-move totals (``Q*`` at the start times the answers), in
:func:`~wordle_gym.solver.solver_data`."""
MODEL_OPENERS = [
    "salet",
    "crane",
    "slate",
    "adieu",
    "audio",
    "raise",
    "arise",
    "stare",
    "crate",
    "trace",
    "roate",
    "soare",
    "irate",
    "tears",
    "later",
    "alert",
    "alter",
    "least",
    "steal",
    "aisle",
    "ouija",
    "house",
    "plant",
    "chair",
    "table",
    "apple",
    "sound",
    "heart",
    "earth",
    "beast",
    "ratio",
    "radio",
    "route",
    "cares",
    "snare",
    "saint",
    "stone",
    "tread",
    "react",
    "learn",
    "share",
    "spare",
    "train",
    "trice",
    "grape",
    "pride",
    "brave",
    "shine",
    "smart",
    "cloud",
    "light",
    "night",
    "world",
    "words",
    "guess",
    "about",
    "first",
    "great",
    "where",
    "think",
    "money",
    "music",
    "water",
    "happy",
    "party",
    "place",
    "point",
]
"""The openers language models favour (the first guesses they play most), valued exactly in the
shipped table."""


def _values_header(vocab: Vocabulary, hard_mode: bool, max_guesses: int) -> dict[str, Any]:
    return {
        "format": VALUES_FORMAT,
        "lists": vocab.digest,
        "hard_mode": hard_mode,
        "max_guesses": max_guesses,
    }


class OpenerValues(NamedTuple):
    """A table of :func:`opener_values` read for one game: exact first-move totals by opener, those
    with one guess fewer, the exact ``V*`` total of each position a first guess leads to (by opener,
    then feedback pattern: the total with the guesses left after it, and with one fewer, what a turn
    spent there leaves), and the openers whose search outlasted a limit (seconds)."""

    values: dict[str, int]
    one_fewer: dict[str, int]
    children: dict[str, dict[int, tuple[int, int]]]
    timed_out: dict[str, float]


def read_opener_values(
    path: Path,
    vocab: Vocabulary,
    hard_mode: bool,
    max_guesses: int,
    strict: bool = False,
    advice: str = "give another --save or the same settings",
) -> OpenerValues:
    """The table :func:`opener_values` wrote at ``path`` for these lists and rules (empty when the
    file is missing or of other lists and rules, or with ``strict`` a ValueError naming the setting
    that differs, then ``advice``; ValueError when it is not such a table)."""
    empty = OpenerValues({}, {}, {}, {})
    try:
        data = json.loads(read_text_bounded(path, what="table of opener values"))
    except FileNotFoundError:
        return empty
    except (json.JSONDecodeError, RecursionError):
        data = None
    if (
        not isinstance(data, dict)
        or data.get("format") != VALUES_FORMAT
        or not isinstance(data.get("values"), dict)
    ):
        raise ValueError(f"{path} is not a table of opener values (expected {VALUES_FORMAT!r})")
    wanted = _values_header(vocab, hard_mode, max_guesses)
    differ = [k for k in ("lists", "hard_mode", "max_guesses") if data.get(k) != wanted[k]]
    if differ and strict:
        what = {"lists": "word lists", "hard_mode": "hard mode", "max_guesses": "guess limit"}
        shown = "; ".join(
            f"{what[k]} {_shown(data.get(k))} there, {_shown(wanted[k])} here" for k in differ
        )
        raise ValueError(f"{path} is a table of another game ({shown}): {advice}")
    if differ:
        return empty
    n = vocab.num_answers

    def valid(table: Any) -> dict[str, int]:
        table = table if isinstance(table, dict) else {}
        return {
            word: total
            for word, total in table.items()
            if word in vocab.allowed_index
            and type(total) is int
            and n <= total <= (max_guesses + 1) * n
        }

    def rows(found: Any) -> dict[int, tuple[int, int]]:
        found = found if isinstance(found, list) else []
        fine = (
            r
            for r in found
            if isinstance(r, list) and len(r) == 3 and all(type(x) is int for x in r)
        )
        # one fewer can cost less: a loss is
        return {r[0]: (r[1], r[2]) for r in fine if r[1] > 0 and r[2] > 0}
        # the limit + 1 whatever the turn

    def limits(found: Any) -> dict[str, float]:
        found = found if isinstance(found, dict) else {}
        return {
            w: float(t)
            for w, t in found.items()
            # a limit read as Infinity or NaN is none: that opener is tried again
            if w in vocab.allowed_index and type(t) in (int, float) and 0 <= t < math.inf
        }

    children = data.get("children")
    children = (
        {w: rows(found) for w, found in children.items() if w in vocab.allowed_index}
        if isinstance(children, dict)
        else {}
    )
    return OpenerValues(
        valid(data["values"]), valid(data.get("one_fewer")), children, limits(data.get("timed_out"))
    )


def _least(count: int, left: int) -> int:
    """The least total ``count`` answers can cost with ``left`` guesses left (a loss costing the
    limit + 1): each lost when none is left, else one guessed and the others found later."""
    return count if left <= 0 else 2 * count - 1


def _shown(value: Any) -> str:
    """A table setting as the refusal shows it (a list digest shortened)."""
    return f"{value[:12]}..." if isinstance(value, str) and len(value) > 16 else repr(value)


def opener_values(
    config: WordleConfig,
    words: list[str],
    save: str | Path,
    max_minutes: float | None = None,
    opener_s: float | None = None,
    progress: bool | None = None,
    children: bool = True,
    part: tuple[int, int] = (0, 1),
    max_cache_entries: int = 5_000_000,
    store: PositionStore | bool | None = True,
    fewer_first: bool = True,
) -> dict[str, int]:
    """Exact first-move totals (``Q*`` at the start, a loss costing the limit + 1) of ``words``,
    added to the table at ``save`` one opener at a time (atomically: a stopped run keeps what it
    finished, and the same call continues); returns the whole table. With each opener, the ``V*``
    total of every position it leads to, with the guesses left and with one fewer (the second move's
    values: the costliest searches of a game). The first word (the oracle's root opener, SALET) is
    also valued with one guess fewer (unless ``fewer_first`` is False): what a turn spent without a
    guess leaves at the start. An
    opener whose searches outlast ``opener_s`` seconds is left out (the oracle then bounds it from
    the ranking), and the table notes the limit it ran out of (``timed_out``): a run with no longer
    limit passes it by instead of searching it in vain again. ``progress``: a bar (None: on a
    terminal only). ``children=False``: each opener's total alone, not the values of the positions
    it leads to (a few times faster: what makes the first move exact), and only where no shipped
    table (a published one) proves it already. ``part=(k, n)``: only the ``k``-th of ``n``
    interleaved shares of ``words`` (from 0), so that ``n`` processes value them into one table at
    once: each opener is merged into the table as it is on disk then, under a lock
    (:func:`merge_opener_values`). The search's cache, which later openers reuse, is emptied between
    openers past ``max_cache_entries`` (about 50 bytes each). ``store``: where the positions a first
    guess leads to are kept once solved (True: the machine's position store in the cache folder,
    which every worker, run and env of this game shares and checks before use; False: none), so
    that openers sharing a group (the same letters give the same all-grey group) search it once,
    and a killed worker loses at most the group it was solving."""
    config = WordleConfig.build(config)
    share = opener_share(words, part)  # a bad part is refused before the table is read
    path, want_children = Path(save), children and config.max_guesses > 2
    # a table of another game is refused before anything is read into the search (the run would
    # rewrite it)
    # (atomic writes: read without the lock, so that a refused table leaves no lock beside it)
    table = read_opener_values(
        path, config.vocabulary, config.hard_mode, config.max_guesses, strict=True
    )
    with table_lock(path):  # a lock that cannot be taken fails here, before any search
        pass
    values, one_fewer, children, timed_out = table
    shared = machine_store(config) if store is True else (None if store is False else store)
    oracle = Oracle(config, root_opener=None, opener_table=save, store=shared)
    vocab, start = oracle.vocab, oracle.start()
    deadline = math.inf if max_minutes is None else time.perf_counter() + 60 * max_minutes
    first = words[0] if fewer_first else None
    todo = [w for w in share if oracle.unvalued(w, table, first, opener_s, want_children)]
    waiting = False
    for word in tqdm(
        todo,
        desc="opener values",
        unit="opener",
        disable=None if progress is None else not progress,
    ):
        if time.perf_counter() >= deadline:
            break
        if oracle.search.kernel.cache_size(oracle.cache) > max_cache_entries:
            oracle.search.kernel.clear_cache(oracle.cache)
        action = vocab.action(word)
        limit = min(deadline, time.perf_counter() + (math.inf if opener_s is None else opener_s))
        try:
            total = oracle.search.run(lambda a=action: oracle._q_total(start, a), deadline=limit)
            kids = (
                oracle.search.run(lambda a=action: oracle._children(start, a), deadline=limit)
                if want_children
                else {}
            )
            # the first (the root opener) with one guess fewer too, where there is one to spare
            fewer = None
            if word == first and oracle.max_guesses > 1:
                fewer = oracle._q_total(start._replace(left=oracle.max_guesses - 1), action)
        except TimeoutError:
            if limit >= deadline:  # the run's own end, not the opener's limit
                break
            timed_out[word] = float(opener_s)  # type: ignore[arg-type]
        else:
            timed_out.pop(word, None)
            values[word] = total
            if want_children:
                children[word] = kids
            if fewer is not None:
                one_fewer[word] = fewer
        found, waiting = OpenerValues(values, one_fewer, children, timed_out), True
        try:  # while another writer holds the table, what is found waits for the next opener
            values, one_fewer, children, timed_out = _merge_locked(
                path, config, [found], oracle.check_values, wait_s=0
            )
            waiting = False
        except LockBusy:
            pass
    if waiting:
        found = OpenerValues(values, one_fewer, children, timed_out)
        values = _merge_or_keep(path, config, found, oracle.check_values)
    return values


def _merge_or_keep(
    path: Path, config: WordleConfig, found: OpenerValues, check: Callable[..., None]
) -> dict[str, int]:
    """``found`` merged into the table at ``path`` (waiting for its lock); where the lock stays
    taken, kept in a table beside it, named in the :class:`LockBusy` raised."""
    try:
        return _merge_locked(path, config, [found], check).values
    except LockBusy as busy:
        kept = path.with_name(f"{path.name}.{os.getpid()}.json")
        atomic_write_text(kept, _table_json(config, found))
        raise LockBusy(
            f"{busy}; what this run valued is kept in {quoted(str(kept), 400)}: --merge it"
        ) from None


def opener_share(words: list[str], part: tuple[int, int]) -> list[str]:
    """The openers of ``words`` (each once) that share ``part=(k, n)`` of :func:`opener_values`
    values: every ``n``-th from the ``k``-th."""
    index, count = part
    if not (type(index) is int and type(count) is int and 0 <= index < count):
        raise ValueError(f"part must be (k, n) with 0 <= k < n; got {part!r}")
    return list(dict.fromkeys(words))[index::count]


def merge_opener_values(
    config: WordleConfig, into: str | Path, others: list[str | Path]
) -> OpenerValues:
    """Merge the tables ``others`` (of :func:`opener_values`, for the same game) into the table
    ``into`` (made if missing), atomically and under the table's lock; returns the merged table.
    The merged table is held to every check the oracle makes on a table before it is written
    (:meth:`Oracle.check_values`; exact totals are the same wherever two tables hold one): one that
    fails is a ValueError naming it, and ``into`` is left as it was."""
    config = WordleConfig.build(config)
    vocab, path = config.vocabulary, Path(into)
    game = (vocab, config.hard_mode, config.max_guesses)
    advice = "only tables of the same lists and rules merge"
    tables = [read_opener_values(Path(p), *game, strict=True, advice=advice) for p in others]
    checker = Oracle(config, root_opener=None, opener_table=path)
    return _merge_locked(path, config, tables, checker.check_values)


TABLE_WAIT_S = 600.0
"""How long a writer of a table of opener values waits for another to release it."""


def table_lock(path: Path, wait_s: float | None = None) -> contextlib.AbstractContextManager[None]:
    """The lock of the table of opener values at ``path`` (waiting up to ``wait_s`` seconds, by
    default :data:`TABLE_WAIT_S`): the file ``<path>.lock`` beside it, so that every writer of the
    table takes the same lock whatever its cache folder."""
    wait = TABLE_WAIT_S if wait_s is None else wait_s
    return file_lock(f"{path}.lock", "run of opener values", quoted(str(path), 200), wait)


def _merge_locked(
    path: Path,
    config: WordleConfig,
    tables: list[OpenerValues],
    check: Callable[[OpenerValues, Path], None],
    wait_s: float | None = None,
) -> OpenerValues:
    """The table at ``path`` as it is on disk with ``tables`` merged in, held to ``check`` and
    written back under the table's lock, so that processes sharing the table never lose each
    other's openers."""
    with table_lock(path, wait_s):
        game = (config.vocabulary, config.hard_mode, config.max_guesses)
        merged = read_opener_values(path, *game, strict=True)
        for table in tables:
            merged = _merge_two(merged, table, path)
        check(merged, path)
        atomic_write_text(path, _table_json(config, merged))
    return merged


def _table_json(config: WordleConfig, table: OpenerValues) -> str:
    """The file of a table of opener values."""
    rows = {w: [[p, *t] for p, t in sorted(found.items())] for w, found in table.children.items()}
    data = {
        **_values_header(config.vocabulary, config.hard_mode, config.max_guesses),
        "values": table.values,
        "one_fewer": table.one_fewer,
        "timed_out": table.timed_out,
        "children": rows,
    }
    return _compact_json(data)


def _merge_two(a: OpenerValues, b: OpenerValues, where: Path) -> OpenerValues:
    """Two tables' union (ValueError on an exact total they give differently); an opener's time
    limit is the longest it ran out of, and none once it is valued."""

    def union(x: dict[Any, Any], y: dict[Any, Any], what: str) -> dict[Any, Any]:
        for key in x.keys() & y.keys():
            if x[key] != y[key]:
                raise ValueError(
                    f"{where}: two tables give {what} {key!r} differently ({x[key]} and "
                    f"{y[key]}); exact totals cannot differ, so one table is wrong"
                )
        return {**x, **y}

    values = union(a.values, b.values, "the total of")
    children = dict(a.children)
    for word, rows in b.children.items():
        children[word] = union(children.get(word, {}), rows, f"{word!r}'s position")
    timed_out = {
        w: max(a.timed_out.get(w, -1.0), b.timed_out.get(w, -1.0))
        for w in a.timed_out.keys() | b.timed_out.keys()
        if w not in values
    }
    return OpenerValues(
        values,
        union(a.one_fewer, b.one_fewer, "one guess fewer, the total of"),
        children,
        timed_out,
    )


def _compact_json(data: dict[str, Any]) -> str:
    """``data`` as JSON with one line for each opener's children (the table stays readable and
    small)."""
    rows = data["children"]
    head = json.dumps(
        {k: v for k, v in data.items() if k != "children"}, indent=1, allow_nan=False
    )[:-2]
    lines = ",\n".join(
        f"  {json.dumps(w)}: {json.dumps(r, separators=(',', ':'))}" for w, r in rows.items()
    )
    return head + ',\n "children": {\n' + lines + "\n }\n}\n"


TOTALS_FORMAT = "wordle-gym opener totals 1"
OPENER_TOTALS = "opener_totals_*.json"
"""Shipped tables of published first-move totals (a game each: exact ones and upper bounds, each
source cited), in :func:`~wordle_gym.solver.solver_data`; made by
``python -m benchmarks.opener_totals``."""


class OpenerTotals(NamedTuple):
    """A table of first-move totals for one game: exact ones and proven upper bounds (a real
    strategy's total) by opener, and each source's citation."""

    exact: dict[str, int]
    upper: dict[str, int]
    sources: dict[str, str]


def read_opener_totals(
    path: Path, vocab: Vocabulary, hard_mode: bool, max_guesses: int
) -> OpenerTotals | None:
    """The table at ``path`` when it is of this game (None when it is of another; ValueError naming
    the file when it is not such a table)."""
    try:
        data = json.loads(read_text_bounded(path, what="table of opener totals"))
    except (json.JSONDecodeError, RecursionError):
        data = None
    if (
        not isinstance(data, dict)
        or data.get("format") != TOTALS_FORMAT
        or not isinstance(data.get("sources"), list)
    ):
        raise ValueError(f"{path} is not a table of opener totals (expected {TOTALS_FORMAT!r})")
    if (data.get("lists"), data.get("hard_mode"), data.get("max_guesses")) != (
        vocab.digest,
        hard_mode,
        max_guesses,
    ):
        return None
    out = OpenerTotals({}, {}, {})
    for source in data["sources"]:
        if not isinstance(source, dict) or source.get("kind") not in ("exact", "upper"):
            raise ValueError(
                f"{path}: a source is not {{'name', 'kind': 'exact' or 'upper', 'cite', 'totals'}}"
            )
        totals = source.get("totals") if isinstance(source.get("totals"), dict) else {}
        bad = [w for w, t in totals.items() if w not in vocab.allowed_index or type(t) is not int]
        if bad:
            raise ValueError(
                f"{path}: {source.get('name')}: {bad[0]!r} is not an allowed guess with a total"
            )
        into = out.exact if source["kind"] == "exact" else out.upper
        for word, total in totals.items():
            into[word] = min(total, into.get(word, total))
        out.sources[str(source.get("name"))] = str(source.get("cite"))
    return out


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
        ``opener_table``: a table of exact first-move totals (:func:`opener_values`) instead of the
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
        self.root_upper: dict[int, int] = {}
        self.root_sources: dict[str, str] = {}
        self.root_exact, self.root_floor = self._root_tables(opener_table)
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

    def _root_tables(self, opener_table: str | Path | None) -> tuple[dict[int, int], np.ndarray]:
        """Exact ``Q*`` totals at the start by action (the shipped tables of exact values and of
        published totals, or ``opener_table``), and every opener's proven lower bound: what its
        feedback buckets force, raised by the shipped ranking with losses where it is of these
        lists. Every value read is checked against those bounds (and a published upper bound against
        the exact value) first: a file that fails says so."""
        mode = "hard" if self.hard_mode else "normal"
        n = self.vocab.num_answers
        members = self._start.arrays()[0]
        splits, hits = self.search.kernel.split_counts(
            self.search.by_answer, members, self.search.everything, self.solved + 1
        )
        floor = (
            (3 * n - hits - splits).astype(np.int64)
            if self.max_guesses > 1
            else (2 * n - hits).astype(np.int64)
        )
        ranking = Path("no ranking")
        ranked: dict[int, int] = {}
        # whether tables bound every opener (then one no table holds is not searched)
        self.root_tabled = False
        # a game's every-opener ranking, losses
        for path in sorted(solver_data().glob("openers_*losses.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            same = (
                data.get("lists"),
                data.get("hard_mode"),
                data.get("max_guesses"),
                data.get("losses"),
            )
            if same == (self.vocab.digest, self.hard_mode, self.max_guesses, True):
                ranking = path
                values = np.array([n if v is None else v for v in data["values"]], np.int64)
                floor = np.maximum(floor, values)
                ranked = {
                    i: int(values[i]) for i, flag in enumerate(data["exact_flags"]) if flag == "1"
                }
                self.root_tabled = True
        sources: list[tuple[Path, dict[str, int]]] = []
        for path in sorted(solver_data().glob(OPENER_TOTALS)):
            table = read_opener_totals(path, self.vocab, self.hard_mode, self.max_guesses)
            if table is not None:
                self.root_tabled = True
                sources.append((path, table.exact))
                self.root_upper.update({self.vocab.action(w): t for w, t in table.upper.items()})
                self.root_sources.update(table.sources)
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
            {self.vocab.allowed[a]: t for a, t in self.root_upper.items()},
            floor,
            exact,
        )
        self.root_one_fewer = {self.vocab.action(w): t for w, t in found.one_fewer.items()}
        self._learn_children(found.children)
        for action, total in exact.items():
            floor[action] = total
        return exact, floor

    def unvalued(
        self,
        word: str,
        table: OpenerValues,
        first: str | None,
        opener_s: float | None,
        children: bool,
    ) -> bool:
        """Whether :func:`opener_values` has ``word`` still to value for ``table``: its total
        (unless a published table proves it and only the first move is wanted), its children (with
        ``children``), its total with a guess fewer (the ``first`` opener); never when it ran out
        of an ``opener_s`` limit as long before."""
        if opener_s is not None and table.timed_out.get(word, -1.0) >= opener_s:
            return False
        # the first move alone: a total another table proves (a published one) is not searched again
        known = word in table.values or (
            not children and self.vocab.action(word) in self.root_exact
        )
        return (
            not known
            or (children and word not in table.children)
            or (word == first and word not in table.one_fewer)
        )

    def check_values(self, table: OpenerValues, path: Path) -> None:
        """Every check a table of opener values (:func:`opener_values`) is held to before it is
        used or written: each total within what the feedback buckets and the ranking prove for its
        opener and equal to a published exact total; each opener's children exactly the positions it
        leads to, each within what its answers allow, summing to the opener's total (ValueError
        naming ``path``, the opener and what fails)."""
        n, most = self.vocab.num_answers, self.max_guesses
        members, floor, published = self._start.arrays()[0], self._floor, self._published
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
            if not kids:
                continue
            action = self.vocab.action(word)
            found = self.search.buckets(action, members)
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
            implied = n + sum(t for t, _ in kids.values())
            known = table.values.get(word, published.get(action))
            if known is not None and implied != known:
                raise ValueError(
                    f"{path}: {word!r}'s total {known} is not one guess an answer plus its "
                    f"children's totals ({implied})"
                )
            self._check_exact(path, word, implied, int(floor[action]), None)

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

        def judge() -> tuple[int | None, int | None, dict[Position, int]]:
            v = None if unproven_start else self._within(position, budget)[0]
            q, _, known = (None, 0, {}) if hopeless else self._move_within(position, action, budget)
            return v, q, known

        v, q, known = self.search.run(judge)
        if v is not None and q is not None:
            return {**self._judged(q, v, n), "seconds": time.perf_counter() - start}
        return {
            **self.bracket(position, action, v, q, known),
            "seconds": time.perf_counter() - start,
        }

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
        n = len(position.members)
        proven = self._proven.get(position)
        if proven is None:
            row, _ = self._stored(position)
            if row is not None and row[1] is not None:
                proven = self._proven[position] = (row[0], row[1])
        if proven is not None:
            return (proven[0], proven[1]) if proven[1] <= budget else (None, budget)
        if budget <= self._failed.get(position, 0):
            return None, budget
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
        if self.store is not None and n >= STORE_MIN and work >= STORE_WORK:
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
        """The skill and the luck of one game: the guesses ``actions`` (word indices) played on
        answer ``answer`` (an answer index).

        For each guess: its ``regret`` ``Q*(s, a) - V*(s)`` (the expected guesses it cost), its
        ``luck`` ``E[V*(s')] - V*(s')`` (how many guesses the feedback it got saved against the
        feedback expected:
        ``E[V*(s')] = Q*(s, a) - 1``; a solved board is worth 0, a loss after the last guess 1), the
        candidates before and after it, and an optimal guess (:meth:`best_action`). Then, for any
        game, ``guesses - start_value = sum(regret) - sum(luck)``, where ``guesses`` counts a lost
        game as the limit + 1 (checked here). A game not finished is analysed as far as it went
        (``finished`` False)."""
        position, rows = self._start, []
        start_value = self.value(position)
        solved = False
        for action in actions:
            if solved:
                raise ValueError("the game was already won before its last guess")
            if position.left <= 0:
                raise ValueError(f"more guesses than the game's {self.max_guesses}")
            value, q = self.value(position), self.q_value(position, action)
            after = self.after(position, action, answer)
            solved = action == int(self.vocab.answer_actions[answer])
            later = 0.0 if solved else (1.0 if after.left == 0 else self.value(after))
            best = self.vocab.allowed[self.best_action(position)]
            rows.append(
                {
                    "guess": self.vocab.allowed[action],
                    "value": value,
                    "q_value": q,
                    "regret": q - value,
                    "luck": (q - 1.0) - later,
                    "candidates_before": len(position.members),
                    "candidates_after": 0 if solved else len(after.members),
                    "optimal": best,
                }
            )
            position = after
        finished = solved or position.left == 0
        used = len(actions) if solved or not finished else self.max_guesses + 1
        regret, luck = sum(r["regret"] for r in rows), sum(r["luck"] for r in rows)
        if finished and not math.isclose(used - start_value, regret - luck, abs_tol=1e-9):
            raise AssertionError(
                f"regret - luck = {regret - luck} is not guesses - start value {used - start_value}"
            )
        return {
            "answer": self.vocab.answers[answer],
            "won": solved,
            "finished": finished,
            "guesses_used": used,
            "start_value": start_value,
            "regret": regret,
            "luck": luck,
            "guesses": rows,
        }

    # ---------------------------------------------------------------- evaluations
    def regrets(
        self,
        histories: list[list[int]],
        progress: bool | None = None,
        answers: list[int] | None = None,
    ) -> RegretReport:
        """The regret of every decision of games played once per answer: ``histories[i]`` is the
        actions played on answer ``i`` (in the answer list's order), up to the win or the limit;
        with ``answers``, on answer ``answers[i]`` (some of the answers: a subset's games valued in
        this game). ``progress``: a bar of the games valued (None: on a terminal only)."""
        if answers is None and len(histories) != self.vocab.num_answers:
            raise ValueError(
                f"expected one history per answer ({self.vocab.num_answers}); got {len(histories)}"
            )
        if answers is not None and len(answers) != len(histories):
            raise ValueError(
                f"expected one history per answer given ({len(answers)}); got {len(histories)}"
            )
        played = list(range(len(histories))) if answers is None else answers
        answer_actions = self.vocab.answer_actions.tolist()
        decisions, cost = [], 0
        games = tqdm(
            zip(played, histories, strict=True),
            total=len(histories),
            desc="regret",
            unit="game",
            leave=False,
            disable=None if progress is None else not progress,
        )
        for answer, actions in games:
            position = self.start()
            won = False
            for turn, action in enumerate(actions, start=1):
                if won or position.left <= 0:
                    raise ValueError(f"answer {answer}: actions after the game ended ({actions})")
                decisions.append(
                    Decision(
                        answer,
                        turn,
                        position,
                        int(action),
                        self.q_value(position, int(action)),
                        self.value(position),
                    )
                )
                won = int(action) == answer_actions[answer]
                position = self.after(position, int(action), answer)
            if not won and len(actions) < self.max_guesses:
                raise ValueError(
                    f"answer {answer}: the game stops before its end ({len(actions)} "
                    "guesses, not won)"
                )
            cost += len(actions) if won else self.max_guesses + 1
        return RegretReport(
            decisions, len(histories), self.value(self.start()), cost / len(histories), answers
        )
