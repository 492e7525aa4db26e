"""Old import paths that keep working for one release: each old module is the new one under its old
name, with a DeprecationWarning that says where it went (:data:`MOVED` lists every one)."""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import Any

REMOVED_IN = "0.4"
"""The release that drops the old paths of :data:`MOVED`."""

MOVED = {
    # the exact solver, moved into the env package after 0.2
    "wordle_agents.solvers.oracle": "wordle_gym.solver.oracle",
    "wordle_agents.solvers.optimal_search": "wordle_gym.solver.search",
    "wordle_agents.solvers._optimal_kernel": "wordle_gym.solver._kernel",
    "wordle_agents.solvers.store": "wordle_gym.solver.store",
    "wordle_agents.solvers.openers": "wordle_gym.solver.openers",
    "wordle_agents.solvers.opener_tasks": "wordle_gym.solver.tasks",
    "wordle_gym.core.regret": "wordle_gym.solver.regret",
    # the modules of 0.1, which env specs and datasets saved then name (wordle_gym.env:WordleEnv)
    "wordle_gym.env": "wordle_gym.envs.wordle",
    "wordle_gym.vector": "wordle_gym.envs.vector",
    "wordle_gym.wrappers": "wordle_gym.integrations.rllib",
    "wordle_gym.sb3": "wordle_gym.integrations.sb3",
    "wordle_gym.torchrl_env": "wordle_gym.integrations.torchrl",
    # the commands before they moved to wordle_agents.commands (python -m wordle_agents.optimal ...)
    "wordle_agents.optimal": "wordle_agents.commands.optimal",
    "wordle_agents.improve": "wordle_agents.commands.improve",
    "wordle_agents.teach": "wordle_agents.commands.teach",
    "wordle_agents.recipe": "wordle_agents.commands.recipe",
}
"""Every old module path -> where it lives now: each old module is one line, ``alias(__spec__.name,
__name__)``, and goes in :data:`REMOVED_IN` (a dataset saved by 0.1 then needs its env passed to
``recover_environment``)."""


def alias(old: str, run_as: str = "") -> None:
    """Make the module being imported as ``old`` the one it moved to (the same object, so that what
    is set on one is set on the other), with a DeprecationWarning naming the new path; run as a
    command (``run_as`` "__main__": ``python -m OLD``), run the new module's ``main`` instead."""
    new = MOVED[old]
    warnings.warn(
        f"{old} moved to {new}; the old path goes in {REMOVED_IN}",
        DeprecationWarning,
        stacklevel=2 if run_as == "__main__" else 3,
    )
    module = importlib.import_module(new)
    if run_as == "__main__":
        sys.exit(module.main())
    sys.modules[old] = module


RENAMED = {
    "wordle_gym.integrations.openenv": {
        "WordleEnv": "WordleEnvClient",  # the Gymnasium env is wordle_gym.WordleEnv
        "WordleState": "WordleServerState",  # verifiers' is WordleRolloutState
    },
}
"""Old public names -> their names now, by module (one public class a name); each old name goes in
:data:`REMOVED_IN`."""


def renamed(module: str, name: str) -> Any:
    """A module's ``__getattr__``: the class an old name of :data:`RENAMED` now has, with a
    DeprecationWarning naming it (an AttributeError for any other name)."""
    new = RENAMED.get(module, {}).get(name)
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"{module}.{name} is now {module}.{new}; the old name goes in {REMOVED_IN}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(sys.modules[module], new)
