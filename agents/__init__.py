"""Baseline agents for wordle_gym; each implements the harness's ``act`` method."""

from agents.baselines import RandomPolicy
from agents.max_entropy import SCORES, MaxEntropySolver

__all__ = ["SCORES", "MaxEntropySolver", "RandomPolicy"]
