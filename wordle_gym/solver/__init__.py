"""The exact solver, the game's ground truth: the optimal tree from an opener and the value of any
position and move, on any lists.

``search`` (the exact search and its trees), ``_kernel`` (its numba kernel), ``store`` (solved
positions kept on disk for every process), ``openers`` (every first guess ranked, the best proven),
``position`` (what a player knows), ``report`` (the regret of every decision of an agent's games),
``opener_tables`` (the first-move tables as files), ``start_tables`` (what they prove of the start,
each value checked), ``oracle`` (``V*``, ``Q*`` and the regret of any decision), ``tasks`` (the
opener table computed, here or as Ray tasks) and ``regret`` (the text env's ``reward="regret"``).
Its shipped data (trees, rankings and opener tables of the real lists) lies beside the word lists,
in ``wordle_gym/data/solver/`` (:data:`DATA`).

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.solver; numpy, torch, numba, tqdm, ray.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

DATA = {
    "optimal_salet_normal.npz": "the optimal tree from SALET (the optimal agent's default)",
    "optimal_salet_hard.npz": "the same in hard mode",
    "optimal_soare_normal.npz": "an optimal tree from an opener a bench row plays (its gap)",
    "optimal_learn_normal.npz": "the same",
    "optimal_shine_normal.npz": "the same",
    "optimal_outer_normal.npz": "the same",
    "optimal_reast_hard.npz": "the same, hard mode",
    "optimal_tarse_today_normal.npz": "the optimal tree of today's game",
    "openers_normal.json": "every allowed first guess ranked, the best proven",
    "openers_hard.json": "the same in hard mode",
    "openers_today.json": "the same on today's game",
    "openers_normal_losses.json": "the ranking, a loss costing 7: the multi-board bound's start",
    "openers_hard_losses.json": "the same in hard mode: the regret reward's proven start",
    "openers_nyt_hard_losses.json": "the same on the NYT lists",
    "opener_values_normal.json": "the regret reward's exact first moves",
    "opener_totals_normal.json": "every opener's published total: exact or an upper bound",
    "opener_totals_hard.json": "the same in hard mode",
    "opener_totals_nyt.json": "the same on the NYT lists",
    "opener_totals_nyt_hard.json": "the same, hard mode",
    "opener_totals_today.json": "the same on today's game",
    "opener_totals_today_hard.json": "the same, hard mode",
    "dordle_openers_most.json": "the maxima over every Dordle opener: the order bound's start",
}
"""Every file of :func:`solver_data`, and what it is."""


def solver_data() -> Path:
    """The folder of the solver's shipped data (works from a wheel or a checkout)."""
    return Path(str(resources.files("wordle_gym.data").joinpath("solver")))
