"""The exact regret of a move (``reward="regret"`` in the text env): the oracle that values it (one
a game in a process) and the info keys it gives."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from wordle_gym.core import __version__
from wordle_gym.core.config import WordleConfig
from wordle_gym.utils.files import built_once

REGRET_BUDGET = 300_000_000
"""The work a move's searches get by default (``regret_budget``): the exact search's count of the
(candidate, guess) pairs it scans, for ``V*`` and again for ``Q*``; about a second each on one core
of a 2.5 GHz Xeon. Work, not seconds: the reward is the same on any machine and at any load."""


def check_budget(budget: Any) -> int | None:
    """``budget`` as a work budget (a positive integer, or None: no limit), else a ValueError."""
    if budget is None:
        return None
    if isinstance(budget, bool) or not isinstance(budget, int | np.integer) or budget < 1:
        raise ValueError(
            "regret_budget must be a positive whole amount of work (the exact search's count, "
            f"default {REGRET_BUDGET:_}), or None; got {budget!r}"
        )
    return int(budget)


_ORACLES: dict[tuple[Any, ...], Any] = {}
_ORACLES_LOCK = threading.Lock()


def load_oracle(config: WordleConfig) -> Any:
    """The exact oracle for ``config``'s game (:func:`wordle_gym.solver.oracle.regret_oracle`): an
    object with ``positions(game, state)`` and ``move_regret(position, action, budget)``. One per
    game (lists, mode, limit) in a process; an env takes a ``fork()`` of it (its own search, so envs
    never wait on each other's searches), and what any fork proves serves every later game."""
    key = (config.vocabulary.digest, config.hard_mode, config.max_guesses)
    with _ORACLES_LOCK:
        found = _ORACLES.get(key)
        if found is not None:
            return found
        from wordle_gym.solver.oracle import regret_oracle  # torch and numba: only when asked

        # the first build on a machine compiles the search and writes the pattern table: one process
        # builds while the others that start at once wait, then read what it left in the disk cache
        with built_once(
            f"oracle-{__version__}-{config.vocabulary.digest}-{config.hard_mode}-{config.max_guesses}"
        ):
            oracle = regret_oracle(config)
        _ORACLES[key] = oracle
        return oracle


def regret_info(judged: dict[str, Any]) -> dict[str, Any]:
    """The info keys of ``reward="regret"``: ``regret`` (float64), ``regret_exact`` (bool),
    ``regret_bounds`` ((2,) float64: proven low and high) and ``regret_basis`` (str: "exact", or the
    upper bound charged)."""
    return {
        "regret": np.array(judged["regret"], np.float64),
        "regret_exact": np.array(bool(judged["exact"])),
        "regret_bounds": np.array([judged["low"], judged["high"]], np.float64),
        "regret_basis": str(judged.get("basis", "exact" if judged["exact"] else "upper bound")),
    }
