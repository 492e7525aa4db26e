"""The table of opener values, computed: :func:`opener_values` on this machine (``--part K/N``
shares the openers between processes; :func:`merge_opener_values` joins their tables), and
:func:`opener_values_on_ray` as Ray tasks: batches of openers valued on the cores of a local Ray
instance, or of the cluster at ``RAY_ADDRESS``, each task on its worker's machine (its position
store shared by the tasks there), each result merged into the table under the table's lock as it
comes, the costliest openers first (by the published upper bound, else the proven lower bound).

    python -m wordle_agents.commands.optimal --values allowed --first-move-only --ray --save v.json

Ray is not a dependency (``pip install ray``); without it ``--part K/N`` shares the openers between
processes instead. A stopped driver keeps every batch merged; the same command continues.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from wordle_gym.core.config import WordleConfig
from wordle_gym.solver.opener_tables import (
    OpenerValues,
    _merge_locked,
    _merge_or_keep,
    read_opener_values,
    table_lock,
)
from wordle_gym.solver.oracle import Oracle
from wordle_gym.solver.store import PositionStore, machine_store
from wordle_gym.utils.files import (
    LockBusy,
)


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
    oracle = Oracle(config, root_opener=None, opener_table=save, store=_store(config, store))
    deadline = math.inf if max_minutes is None else time.perf_counter() + 60 * max_minutes
    first = words[0] if fewer_first else None
    todo = [w for w in share if oracle.tables.unvalued(w, table, first, opener_s, want_children)]
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
        limit = min(deadline, time.perf_counter() + (math.inf if opener_s is None else opener_s))
        try:
            result = _value_one(oracle, word, word == first, want_children, limit)
        except TimeoutError:
            if limit >= deadline:  # the run's own end, not the opener's limit
                break
            result = None
        _note(table, word, result, opener_s)
        merged = _merge_unless_busy(path, config, table, oracle.tables.check_values)
        waiting = merged is None  # what is found then waits for the next opener
        table = table if merged is None else merged
    if waiting:
        return _merge_or_keep(path, config, table, oracle.tables.check_values)
    return table.values


def _store(config: WordleConfig, store: PositionStore | bool | None) -> PositionStore | None:
    """``opener_values``' ``store``: True the machine's position store, False or None none."""
    if store is True:
        return machine_store(config)
    return None if store is False else store


def _merge_unless_busy(
    path: Path, config: WordleConfig, found: OpenerValues, check: Any
) -> OpenerValues | None:
    """``found`` merged into the table at ``path`` (the merged table), or None while another
    writer holds the table's lock."""
    try:
        return _merge_locked(path, config, [found], check, wait_s=0)
    except LockBusy:
        return None


def _note(
    table: OpenerValues,
    word: str,
    result: tuple[int, dict[Any, Any] | None, int | None] | None,
    opener_s: float | None,
) -> None:
    """Write one opener's :func:`_value_one` into ``table`` (None: it ran out of ``opener_s``)."""
    if result is None:
        table.timed_out[word] = float(opener_s)  # type: ignore[arg-type]
        return
    total, kids, fewer = result
    table.timed_out.pop(word, None)
    table.values[word] = total
    if kids is not None:
        table.children[word] = kids
    if fewer is not None:
        table.one_fewer[word] = fewer


def _value_one(
    oracle: Oracle, word: str, first: bool, children: bool, limit: float
) -> tuple[int, dict[Any, Any] | None, int | None]:
    """One opener's first-move total, with ``children`` the values of the positions it leads to,
    and if it is the ``first`` (the root opener) its total with one guess fewer, where there is
    one to spare; TimeoutError past ``limit`` (the clock of ``time.perf_counter``)."""
    start, action = oracle.start(), oracle.vocab.action(word)
    total = oracle.search.run(lambda: oracle._q_total(start, action), deadline=limit)
    kids = (
        oracle.search.run(lambda: oracle._children(start, action), deadline=limit)
        if children
        else None
    )
    fewer = None
    if first and oracle.max_guesses > 1:
        fewer = oracle._q_total(start._replace(left=oracle.max_guesses - 1), action)
    return total, kids, fewer


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
    (:meth:`~wordle_gym.solver.start_tables.StartTables.check_values`; exact totals are the same
    wherever two tables hold one): one that fails is a ValueError naming it, and ``into`` is left
    as it was."""
    config = WordleConfig.build(config)
    vocab, path = config.vocabulary, Path(into)
    game = (vocab, config.hard_mode, config.max_guesses)
    advice = "only tables of the same lists and rules merge"
    tables = [read_opener_values(Path(p), *game, strict=True, advice=advice) for p in others]
    checker = Oracle(config, root_opener=None, opener_table=path)
    return _merge_locked(path, config, tables, checker.tables.check_values)


BATCH = 20
"""Openers a task values (a task's start-up, a second or two, is then a small part of its work)."""


def value_batch(
    game: dict[str, Any],
    words: list[str],
    opener_s: float | None,
    children: bool,
    fewer_first: bool,
) -> OpenerValues:
    """A task: the exact first-move totals of ``words`` (and what :func:`opener_values` notes
    with them) for the game of ``game`` (a :class:`WordleConfig`'s fields), valued here into a table
    of the task's own, returned."""
    config = WordleConfig(**game)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "batch.json"
        opener_values(config, words, path, None, opener_s, False, children, fewer_first=fewer_first)
        return read_opener_values(path, config.vocabulary, config.hard_mode, config.max_guesses)


def plan(
    checker: Oracle,
    table: OpenerValues,
    words: list[str],
    opener_s: float | None,
    children: bool,
    batch: int = BATCH,
) -> list[list[str]]:
    """The batches of the openers of ``words`` that ``table`` lacks (as :func:`opener_values`
    passes by what it holds, or ran out of ``opener_s`` before), the costliest first: by the
    published strategy's total, else the proven lower bound; the first opener (valued with a guess
    fewer too) at the head of its batch."""
    vocab, first = checker.vocab, words[0]
    want_children = children and checker.max_guesses > 2

    def missing(w: str) -> bool:
        return checker.tables.unvalued(w, table, first, opener_s, want_children)

    def cost(w: str) -> int:
        action = vocab.action(w)
        return checker.root_upper.get(action, int(checker.root_floor[action]))

    todo = sorted((w for w in dict.fromkeys(words) if missing(w)), key=lambda w: (-cost(w), w))
    if first in todo:
        todo.remove(first)
        todo.insert(0, first)
    return [todo[i : i + batch] for i in range(0, len(todo), batch)]


def opener_values_on_ray(
    config: WordleConfig,
    words: list[str],
    save: str | Path,
    max_minutes: float | None = None,
    opener_s: float | None = None,
    progress: bool | None = None,
    children: bool = True,
    batch: int = BATCH,
) -> dict[str, int]:
    """:func:`opener_values` of ``words`` into the table at ``save``, as Ray tasks of ``batch``
    openers each (on the cluster at ``RAY_ADDRESS``, else a local Ray instance; two tasks a CPU at a
    time), the costliest first; returns the whole table. Each task's result is held to every check
    of a table and merged under the table's lock as it comes. No task starts after ``max_minutes``;
    those started are waited for."""
    import ray

    config = WordleConfig.build(config)
    if type(batch) is not int or batch < 1:
        raise ValueError(f"batch must be a positive integer; got {batch!r}")
    path, vocab = Path(save), config.vocabulary
    table = read_opener_values(path, vocab, config.hard_mode, config.max_guesses, strict=True)
    checker = Oracle(config, root_opener=None, opener_table=path)
    batches = plan(checker, table, words, opener_s, children, batch)
    todo = sum(len(b) for b in batches)
    if not batches:
        return table.values
    if not ray.is_initialized():
        ray.init(log_to_driver=False, include_dashboard=False)
    task = ray.remote(num_cpus=1)(value_batch)
    game = {
        "answers": list(vocab.answers),
        "allowed": list(vocab.allowed),
        "hard_mode": config.hard_mode,
        "max_guesses": config.max_guesses,
    }

    def submit(words_of: list[str]) -> Any:
        fewer = words_of[0] == words[0] and words[0] not in table.one_fewer
        return task.remote(game, words_of, opener_s, children, fewer)

    deadline = math.inf if max_minutes is None else time.monotonic() + 60 * max_minutes
    window = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    pending: dict[Any, int] = {}
    values = table.values
    shown = None if progress is None else not progress
    bar = tqdm(total=todo, desc="opener values (Ray)", unit="opener", disable=shown)
    while batches or pending:
        while batches and len(pending) < window and time.monotonic() <= deadline:
            words_of = batches.pop(0)
            pending[submit(words_of)] = len(words_of)
        if not pending:
            break
        done, _ = ray.wait(list(pending), num_returns=1)
        bar.update(pending.pop(done[0]))
        values = _merge_locked(path, config, [ray.get(done[0])], checker.tables.check_values).values
    bar.close()
    return values
