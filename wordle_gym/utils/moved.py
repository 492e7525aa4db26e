"""Old import paths that keep working for one release: each old module is the new one under its old
name, with a DeprecationWarning that says where it went (:data:`MOVED` lists every one)."""

from __future__ import annotations

import importlib
import sys
import warnings

REMOVED_IN = "0.4"
"""The release that drops the old paths of :data:`MOVED`."""

MOVED = {
    "wordle_agents.solvers.oracle": "wordle_gym.solver.oracle",
    "wordle_agents.solvers.optimal_search": "wordle_gym.solver.search",
    "wordle_agents.solvers._optimal_kernel": "wordle_gym.solver._kernel",
    "wordle_agents.solvers.store": "wordle_gym.solver.store",
    "wordle_agents.solvers.openers": "wordle_gym.solver.openers",
    "wordle_agents.solvers.opener_tasks": "wordle_gym.solver.tasks",
    "wordle_gym.core.regret": "wordle_gym.solver.regret",
}
"""Old module -> where it lives now (the exact solver moved into the env package after 0.2)."""


def alias(old: str) -> None:
    """Make the module being imported as ``old`` the one it moved to (the same object, so that what
    is set on one is set on the other), with a DeprecationWarning naming the new path."""
    new = MOVED[old]
    warnings.warn(
        f"{old} moved to {new}; the old path goes in {REMOVED_IN}",
        DeprecationWarning,
        stacklevel=3,
    )
    sys.modules[old] = importlib.import_module(new)
