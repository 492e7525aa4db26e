"""Simple reference policies for the harness."""

from __future__ import annotations

import torch

from wordle_gym.envs.vector import WordleVectorEnv
from wordle_gym.utils.device import device_generator


class RandomPolicy:
    """Uniformly random among the actions the env's mask allows (the floor of every table).

    Seeded, so an evaluation is reproducible.
    """

    name = "random (masked)"

    def __init__(self, seed: int = 0) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise ValueError(f"seed must be an integer from 0 to 2**63 - 1; got {str(seed)[:40]!r}")
        self.seed = seed
        self._generator: torch.Generator | None = None

    def act(
        self, observations: torch.Tensor, action_masks: torch.Tensor, env: WordleVectorEnv
    ) -> torch.Tensor:
        if self._generator is None or self._generator.device != action_masks.device:
            self._generator = device_generator(action_masks.device).manual_seed(self.seed)
        weights = action_masks.float()
        return torch.multinomial(weights, 1, generator=self._generator).squeeze(1)
