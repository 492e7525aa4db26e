"""wordle_agents: the baseline agents of wordle_gym (the repository's ``agents/`` folder).

Each agent is a harness Policy (``act(observations, action_masks, env)``) and is registered in the
``wordle_gym.agents`` entry-point group exactly as a third-party agent would be (see
:mod:`wordle_gym.harness.registry`). Stable-Baselines3 models live in :mod:`wordle_agents.sb3` (needs the
``sb3`` extra), so importing this package does not import SB3.
"""

from wordle_agents.a2c import A2CAgent, A2CConfig, A2CTrainer
from wordle_agents.baselines import RandomPolicy
from wordle_agents.checkpoint import CheckpointInfo
from wordle_agents.dqn import DQNAgent, DQNConfig, DQNTrainer
from wordle_agents.max_entropy import SCORES, MaxEntropySolver
from wordle_agents.replay import PrioritizedReplay, ReplaySample, UniformReplay
from wordle_agents.training import RunConfig

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
