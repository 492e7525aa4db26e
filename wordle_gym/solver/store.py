"""Solved positions on disk, shared by every process on the machine: the exact oracle's ``V*``
totals, so that a position one env, rollout worker or earlier run searched is never searched again.

One SQLite file per game (the lists' digest, mode and limit are in its name: other lists never read
it), written one small transaction at a time, so that several processes read and write it at once
without corrupting it; bounded (past ``max_rows``, the rows written longest ago go). A file that
cannot be opened or read turns the store off with one warning: the oracle then searches, as it would
without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from wordle_gym.core.config import WordleConfig
from wordle_gym.solver.search import WORK
from wordle_gym.utils.files import cache_folder

FORMAT = 2
"""Raised when what a row means changes: older files are then left alone (2: each row's work, the
search's count from an empty cache, or NULL where the search that found it did not count it)."""


_INHERITED: list[sqlite3.Connection] = []
"""Connections a forked process inherited: kept, never used nor closed."""


class PositionStore:
    """``get(position)`` / ``put(position, total, work)`` of exact totals in the SQLite file
    ``path``, with the work a search from nothing takes to prove each (where it was counted)."""

    def __init__(self, path: str | Path, max_rows: int = 1_000_000):
        if max_rows < 1:
            raise ValueError(f"max_rows must be at least 1, got {max_rows}")
        self.path, self.max_rows = Path(path), max_rows
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._pid = -1
        self.broken = False
        self._refused = False
        self._rebuilt = False

    @classmethod
    def for_game(
        cls, folder: Path, digest: str, hard_mode: bool, max_guesses: int, **options: Any
    ) -> PositionStore:
        """The store of one game's positions in ``folder``."""
        mode = "hard" if hard_mode else "normal"
        name = f"positions-{digest}-{mode}-{max_guesses}-v{FORMAT}w{WORK}.sqlite"
        return cls(folder / name, **options)

    @staticmethod
    def key(position: Any) -> bytes:
        """16 bytes naming a position (its answers, guesses left and hard mode's constraint)."""
        parts = (
            np.array(position.members, np.int16).tobytes(),
            bytes([position.left]),
            repr(position[2:]).encode(),
        )
        return hashlib.blake2b(b"|".join(parts), digest_size=16).digest()

    def _connection(self) -> sqlite3.Connection | None:
        if self.broken:
            return None
        # a forked child opens its own, and never closes
        if self._db is not None and self._pid != os.getpid():
            # the parent's (SQLite: closing it in the child can harm the parent's file)
            _INHERITED.append(self._db)
            self._db = None
        if self._db is None:
            # processes opening a new file at once: the switch to WAL can be refused
            for attempt in range(100):
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    # a link is never followed out of the cache
                    for suffix in ("", "-wal", "-shm", "-journal"):
                        linked = Path(f"{self.path}{suffix}")
                        if linked.is_symlink():
                            linked.unlink()
                    db = sqlite3.connect(
                        self.path, timeout=60, check_same_thread=False, isolation_level=None
                    )
                    db.execute("PRAGMA journal_mode=WAL")  # readers never wait on a writer
                    # a crash loses the last rows at worst, never the file
                    db.execute("PRAGMA synchronous=NORMAL")
                    db.execute(
                        "CREATE TABLE IF NOT EXISTS totals (key BLOB PRIMARY KEY, total "
                        "INTEGER NOT NULL, work INTEGER)"
                    )
                    break
                except sqlite3.OperationalError as error:
                    if "locked" not in str(error) or attempt == 99:
                        return self._broken(error)
                    time.sleep(0.05)
                except (OSError, sqlite3.Error) as error:
                    return self._broken(error)
            self._db, self._pid = db, os.getpid()
        return self._db

    def _broken(self, error: Exception) -> None:
        """A file that is not a database or is damaged is set aside and made anew (once); any other
        failure turns the store off, with one warning."""
        damaged = isinstance(error, sqlite3.DatabaseError) and any(
            words in str(error) for words in ("not a database", "malformed", "corrupt")
        )
        if damaged and not self._rebuilt:
            self._rebuilt = True
            with contextlib.suppress(sqlite3.Error):
                if self._db is not None:
                    self._db.close()
            self._db = None
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(OSError):
                    Path(f"{self.path}{suffix}").replace(Path(f"{self.path}{suffix}.damaged"))
            warnings.warn(
                f"the oracle's position store {self.path} was damaged ({error}): set aside as "
                "*.damaged, made anew",
                RuntimeWarning,
                stacklevel=3,
            )
            return
        self.broken = True
        warnings.warn(
            f"the oracle's position store {self.path} is off: {error}", RuntimeWarning, stacklevel=3
        )

    def refuse(self, why: str) -> None:
        """Say once that a row of this file failed its check (the caller searches instead and
        rewrites it)."""
        if not self._refused:
            self._refused = True
            warnings.warn(
                f"the oracle's position store {self.path}: {why}; searched again",
                RuntimeWarning,
                stacklevel=3,
            )

    def get(self, position: Any) -> int | None:
        """The stored total of ``position``, or None."""
        row = self.lookup(position)
        return None if row is None else row[0]

    def lookup(self, position: Any) -> tuple[int, int | None] | None:
        """The stored ``(total, work)`` of ``position`` (work None where it was not counted), or
        None."""
        with self._lock:
            db = self._connection()
            if db is None:
                return None
            try:
                row = db.execute(
                    "SELECT total, work FROM totals WHERE key = ?", (self.key(position),)
                ).fetchone()
            except sqlite3.Error as error:
                return self._broken(error)
            if row is None:
                return None
            return int(row[0]), None if row[1] is None else int(row[1])

    def put(self, position: Any, total: int, work: int | None = None) -> None:
        """Store ``total`` for ``position``, with ``work`` where it was counted (a row's work is
        kept when a later one has none); past ``max_rows``, the oldest rows go."""
        with self._lock:
            db = self._connection()
            if db is None:
                return
            try:
                db.execute(
                    "INSERT INTO totals (key, total, work) VALUES (?, ?, ?) ON CONFLICT(key) DO "
                    "UPDATE SET total = excluded.total, work = COALESCE(excluded.work, work)",
                    (self.key(position), total, work),
                )
                db.execute(
                    "DELETE FROM totals WHERE rowid <= (SELECT MAX(rowid) FROM totals) - ?",
                    (self.max_rows,),
                )
            except sqlite3.Error as error:
                self._broken(error)

    def __len__(self) -> int:
        with self._lock:
            db = self._connection()
            return 0 if db is None else int(db.execute("SELECT COUNT(*) FROM totals").fetchone()[0])


def machine_store(config: WordleConfig) -> PositionStore | None:
    """The position store of ``config``'s game in the cache folder, which every process of the
    machine shares (None when the cache is off)."""
    folder = cache_folder()
    game = (config.vocabulary.digest, config.hard_mode, config.max_guesses)
    return None if folder is None else PositionStore.for_game(folder, *game)
