"""Baseline agents for wordle_gym; each implements the harness's ``act`` method."""

from agents.a2c import A2CAgent, A2CConfig, A2CTrainer
from agents.baselines import RandomPolicy
from agents.dqn import DQNAgent, DQNConfig, DQNTrainer
from agents.max_entropy import SCORES, MaxEntropySolver
from agents.replay import PrioritizedReplay, ReplaySample, UniformReplay

__all__ = [
    "SCORES",
    "A2CAgent",
    "A2CConfig",
    "A2CTrainer",
    "DQNAgent",
    "DQNConfig",
    "DQNTrainer",
    "MaxEntropySolver",
    "PrioritizedReplay",
    "RandomPolicy",
    "ReplaySample",
    "UniformReplay",
]
