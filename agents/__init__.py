"""wordle_agents: the baseline agents of wordle_gym (the repository's ``agents/`` folder).

Each agent is a harness Policy (``act(observations, action_masks, env)``) and is registered in the
``wordle_gym.agents`` entry-point group exactly as a third-party agent would be (see
:mod:`wordle_gym.harness.registry`); :mod:`wordle_agents.zoo` is the table of them. The subpackages,
by layer: ``common`` (checkpoints, the network base, the training runner), ``solvers``, ``rl``,
``methods`` (applied to a trained network) and ``commands`` (``python -m
wordle_agents.commands.NAME``, in one table; the recipes of the shipped learned agents are data
files in ``recipes/``). Stable-Baselines3 models live in :mod:`wordle_agents.rl.sb3_policies`
(needs the ``sb3`` extra), so importing this package does not import SB3.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# first, before any agent loads torch: ``import wordle_gym`` sets OpenMP's wait policy to PASSIVE
# (spinning threads stall a busy machine), which OpenMP reads once, when torch loads it
import wordle_gym  # noqa: F401

# imported on first use (torch with them): the exact solver's command loads no torch
if TYPE_CHECKING:
    from wordle_agents.common.checkpoint import CheckpointInfo
    from wordle_agents.common.training import RunConfig
    from wordle_agents.rl.a2c import A2CAgent, A2CConfig, A2CTrainer
    from wordle_agents.rl.dqn import DQNAgent, DQNConfig, DQNTrainer
    from wordle_agents.rl.replay import PrioritizedReplay, ReplaySample, UniformReplay
    from wordle_agents.solvers.baselines import RandomPolicy
    from wordle_agents.solvers.max_entropy import SCORES, MaxEntropySolver

_LAZY = {
    "CheckpointInfo": "wordle_agents.common.checkpoint",
    "RunConfig": "wordle_agents.common.training",
    **dict.fromkeys(["A2CAgent", "A2CConfig", "A2CTrainer"], "wordle_agents.rl.a2c"),
    **dict.fromkeys(["DQNAgent", "DQNConfig", "DQNTrainer"], "wordle_agents.rl.dqn"),
    **dict.fromkeys(
        ["PrioritizedReplay", "ReplaySample", "UniformReplay"], "wordle_agents.rl.replay"
    ),
    "RandomPolicy": "wordle_agents.solvers.baselines",
    **dict.fromkeys(["SCORES", "MaxEntropySolver"], "wordle_agents.solvers.max_entropy"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'wordle_agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "SCORES",
    "A2CAgent",
    "A2CConfig",
    "A2CTrainer",
    "CheckpointInfo",
    "DQNAgent",
    "DQNConfig",
    "DQNTrainer",
    "MaxEntropySolver",
    "PrioritizedReplay",
    "RandomPolicy",
    "ReplaySample",
    "RunConfig",
    "UniformReplay",
]
