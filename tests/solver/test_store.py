"""The oracle's position store: solved positions shared on disk by processes, bounded, per game
(issue 61)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from tests.helpers.lists import small_lists
from wordle_gym.core.config import WordleConfig
from wordle_gym.solver import oracle as oracle_module
from wordle_gym.solver.oracle import Oracle
from wordle_gym.solver.position import Position
from wordle_gym.solver.store import PositionStore


def _position(i: int) -> Position:
    return Position((i, i + 1, i + 2), 4, (-1,) * 5, (0,) * 26)


_WRITER = """
import sys
from typing import NamedTuple
from wordle_gym.solver.store import PositionStore

class Position(NamedTuple):  # the oracle's, without importing torch
    members: tuple
    left: int
    green: tuple
    need: tuple

store, start = PositionStore(sys.argv[1]), int(sys.argv[2])
for i in range(start, start + 200):
    position = Position((i, i + 1, i + 2), 4, (-1,) * 5, (0,) * 26)
    store.put(position, 1000 + i)
    assert store.get(position) == 1000 + i
"""


def test_store__processes_write_at_once_and_each_reads_all(tmp_path) -> None:
    path = tmp_path / "p.sqlite"
    workers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(200 * k)]) for k in range(3)
    ]
    assert [w.wait(120) for w in workers] == [0] * 3
    store = PositionStore(path)
    assert len(store) == 600 and all(store.get(_position(i)) == 1000 + i for i in range(600))
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_store__bounded_the_oldest_go_first_and_each_game_has_its_own_file(tmp_path) -> None:
    store = PositionStore(tmp_path / "p.sqlite", max_rows=50)
    for i in range(200):
        store.put(_position(i), i + 3)
    assert len(store) == 50
    assert store.get(_position(149)) is None and store.get(_position(150)) == 153
    assert store.get(_position(10)._replace(left=3)) is None  # another position: other guesses left
    names = {
        PositionStore.for_game(tmp_path, digest, hard, limit).path.name
        for digest, hard, limit in [
            ("aa", False, 6),
            ("bb", False, 6),
            ("aa", True, 6),
            ("aa", False, 5),
        ]
    }
    assert len(names) == 4
    with pytest.raises(ValueError, match="max_rows must be at least 1, got 0"):
        PositionStore(tmp_path / "q.sqlite", max_rows=0)


def test_store__a_damaged_file_is_set_aside_and_made_anew(tmp_path) -> None:
    """Reliability 5, finding 11: a corrupt position store was switched off for good and never
    rebuilt. It is set aside (``*.damaged``) and made anew, once; a store that cannot be opened at
    all turns off with one warning."""
    path = tmp_path / "p.sqlite"
    path.write_bytes(b"not a database at all" * 100)
    store = PositionStore(path)
    with pytest.warns(RuntimeWarning, match="damaged"):
        assert store.get(_position(1)) is None
    store.put(_position(1), 5)
    assert store.get(_position(1)) == 5 and not store.broken
    assert (tmp_path / "p.sqlite.damaged").read_bytes().startswith(b"not a database")
    folder = tmp_path / "a folder"
    folder.mkdir()
    off = PositionStore(folder)  # a folder where the file should be: cannot be opened
    with pytest.warns(RuntimeWarning, match="position store .* is off"):
        assert off.get(_position(1)) is None
    off.put(_position(1), 5)  # off: no second warning, no error
    assert off.get(_position(1)) is None and off.broken


def test_oracle__a_second_process_finds_what_the_first_solved(tmp_path, monkeypatch) -> None:
    """A fresh oracle on the same store reads a position's value instead of searching it."""
    answers, allowed = small_lists(5, 80, 200)
    config = WordleConfig(answers=answers, allowed=allowed)
    monkeypatch.setattr(oracle_module, "STORE_S", 0.0)
    store = PositionStore.for_game(tmp_path, config.vocabulary.digest, False, 6)
    first = Oracle(config, root_opener=None, store=store)
    start = first.start()
    # the largest group of answers the first word leaves
    biggest = first.search.buckets(0, start.arrays()[0])[0][1]
    position = first.after(start, 0, int(biggest[0]))
    assert len(position.members) >= oracle_module.STORE_MIN
    value = first.value(position)
    second = Oracle(config, root_opener=None, store=PositionStore(store.path))

    def no_search(*args, **kwargs):
        raise AssertionError("searched a stored position")

    monkeypatch.setattr(second.search, "value", no_search)
    assert second.value(position) == value
    fresh = Oracle(config, root_opener=None)  # no store: the same value, searched
    assert fresh.value(position) == value


def test_regret_oracle__keeps_its_positions_in_the_cache_folder_unless_it_is_off(
    tmp_path, monkeypatch
) -> None:
    from wordle_gym.solver.oracle import regret_oracle

    answers, allowed = small_lists(6, 40, 90)
    config = WordleConfig(answers=answers, allowed=allowed)
    monkeypatch.setenv("WORDLE_GYM_CACHE", str(tmp_path))
    store = regret_oracle(config).store
    assert (
        store is not None
        and store.path.parent == tmp_path
        and config.vocabulary.digest in store.path.name
    )
    monkeypatch.setenv("WORDLE_GYM_CACHE", "")
    assert regret_oracle(config).store is None


def _child_uses(store: PositionStore) -> None:
    from wordle_gym.solver import store as module

    inherited = store._db
    store.put(_position(501), 7)
    assert store.get(_position(500)) == 6
    # its own; the parent's kept open
    assert store._db is not inherited and module._INHERITED[-1] is inherited


def test_store__a_forked_child_opens_its_own_connection_and_leaves_the_parents(tmp_path) -> None:
    """SQLite connections must not cross a fork: the child (a forked rollout worker) opens its own,
    and the parent's, inherited, is never closed there."""
    import multiprocessing

    store = PositionStore(tmp_path / "p.sqlite")
    store.put(_position(500), 6)
    child = multiprocessing.get_context("fork").Process(target=_child_uses, args=(store,))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    store.put(_position(502), 8)  # the parent's connection still works
    assert [store.get(_position(i)) for i in (500, 501, 502)] == [6, 7, 8]
    assert sqlite3.connect(store.path).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_solver_data__every_shipped_file_is_named_and_every_named_file_ships() -> None:
    """The exact solver's data (trees, rankings, opener tables) lies beside the word lists, each
    file named with what it is in ``wordle_gym.solver.DATA``."""
    from wordle_gym.solver import DATA, solver_data

    shipped = {
        p.name
        for p in solver_data().iterdir()
        # a merge into a shipped table leaves its lock beside it (not package data; gitignored)
        if p.is_file() and not p.name.endswith((".lock", ".lock.pid"))
    }
    assert shipped == set(DATA) | {"README.md"}
