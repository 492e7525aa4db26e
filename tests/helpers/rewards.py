"""A reward written as a user writes one: a class of the RewardFn interface, not linear in the
tiles."""

from __future__ import annotations

import numpy as np
import torch

from wordle_gym.core.rewards import Outcome


class Quadratic:
    """A reward no linear scheme writes, in one class: 0.1 per green squared, 6 / turn for a win, 1
    less for a loss, -2 for a refused guess."""

    needs = frozenset({"tiles"})

    def __call__(self, outcome: Outcome) -> torch.Tensor:
        turn, won, lost, greens, _, _, invalid, active = outcome[:8]
        greens = greens.float()
        reward = torch.where(won, 6.0 / turn.float(), 0.1 * greens * greens)
        reward = torch.where(invalid, -2.0, torch.where(lost, reward - 1.0, reward))
        return reward if active is None else torch.where(active, reward, 0.0)

    def scalar(self, outcome: Outcome) -> float:
        f32 = np.float32
        greens = f32(outcome.greens)
        reward = f32(6.0) / f32(outcome.turn) if outcome.won else f32(0.1) * greens * greens
        if outcome.invalid:
            return -2.0
        return float(reward - f32(1.0) if outcome.lost else reward)
