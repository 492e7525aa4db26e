"""What both envs build from one :class:`WordleConfig`: the engine, the observation encoding, the words.

``WordleEnv`` is this with one game on the CPU and numpy at its edge; ``WordleVectorEnv`` is this
with ``num_envs`` games on a device. Both take ``config=WordleConfig(...)`` or the same fields as
keywords (the ``gym.make`` form), resolved here once.
"""

from __future__ import annotations

from typing import Any

import torch

from wordle_gym.core.config import WordleConfig
from wordle_gym.core.game import Game
from wordle_gym.core.words import Vocabulary
from wordle_gym.envs.observation import OBSERVATIONS, Observation
from wordle_gym.envs.render import check_render_mode


class WordleBase:
    """The parts of a Wordle env that do not depend on how many games it runs."""

    config: WordleConfig
    """The rules and encodings in force (frozen)."""
    game: Game
    """The batched rules engine on this env's device."""
    vocabulary: Vocabulary
    """The validated word lists."""
    words: tuple[str, ...]
    """The allowed guesses: action ``i`` guesses ``words[i]``."""
    observation: Observation
    """The observation encoding: ``space``, the encoder, and for "knowledge" ``layout`` and ``slices``."""

    def _build(
        self, config: WordleConfig | None, options: dict[str, Any], device: torch.device, render_mode: str | None
    ) -> None:
        self.config = WordleConfig.build(config, **options)
        if self.config.observation not in OBSERVATIONS:
            raise ValueError(f"unknown observation {self.config.observation!r}; expected one of {tuple(OBSERVATIONS)}")
        self.render_mode = check_render_mode(render_mode)
        self.game = Game(self.config, device)
        self.vocabulary = self.config.vocabulary
        self.words = self.vocabulary.allowed
        self.observation = OBSERVATIONS[self.config.observation](self.game)
