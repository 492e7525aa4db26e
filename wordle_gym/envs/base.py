"""What both envs build from one :class:`WordleConfig`: the engine, the observation encoding, the
words.

``WordleEnv`` is this with one game on the CPU and numpy at its edge; ``WordleVectorEnv`` is this
with ``num_envs`` games on a device. Both take ``config=WordleConfig(...)`` or the same fields as
keywords (the ``gym.make`` form), resolved here once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from wordle_gym.core.boards import MultiGame
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.engines import make_game
from wordle_gym.core.game import Game
from wordle_gym.core.words import Vocabulary
from wordle_gym.envs.observation import (
    MULTI_OBSERVATIONS,
    OBSERVATIONS,
    MultiObservation,
    Observation,
)
from wordle_gym.envs.render import check_render_mode


def one_reset_option(options: Any, key: str, example: str) -> Any:
    """The value of ``options[key]`` (None if absent) for an env whose ``reset`` takes that one
    option; a TypeError for options that are not a dict, a ValueError for any other key."""
    if options is not None and not isinstance(options, dict):
        raise TypeError(
            f"reset options must be a dict such as {{{key!r}: {example}}}; got {repr(options)[:80]}"
        )
    rest = dict(options or {})
    value = rest.pop(key, None)
    if rest:
        raise ValueError(f"unknown reset options {sorted(rest)}; expected only {key!r}")
    return value


def reset_answer(
    options: Any,
    vocabulary: Vocabulary,
    rng: np.random.Generator,
    pool: Sequence[int] | None = None,
) -> int:
    """The answer index a one-answer env's reset plays: ``options={"answer": word_or_index}``
    (checked as :func:`one_reset_option` checks it), else one drawn uniformly with ``rng`` (from
    ``pool``, the config's ``answer_pool``, where there is one)."""
    answer = one_reset_option(options, "answer", "...")
    if answer is None:
        if pool is not None:
            return int(pool[int(rng.integers(len(pool)))])
        return int(rng.integers(vocabulary.num_answers))
    return vocabulary.answer_id(answer)


class WordleBase:
    """The parts of a Wordle env that do not depend on how many games it runs."""

    config: WordleConfig
    """The rules and encodings in force (frozen)."""
    game: Game | MultiGame
    """The batched rules engine on this env's device (a :class:`MultiGame` in the multi-board
    envs)."""
    vocabulary: Vocabulary
    """The validated word lists."""
    words: tuple[str, ...]
    """The allowed guesses: action ``i`` guesses ``words[i]``."""
    observation: Observation | MultiObservation
    """The observation encoding: ``space``, the encoder, and for "knowledge" ``layout`` and
    ``slices``."""
    multi_board = False
    """Whether this env plays the multi-board game (``config.boards`` boards,
    :mod:`wordle_gym.core.boards`)."""

    def _build(
        self,
        config: WordleConfig | None,
        options: dict[str, Any],
        device: torch.device,
        render_mode: str | None,
    ) -> None:
        self.config = WordleConfig.build(config, **options)
        boards = self.config.boards
        if boards > 1 and not self.multi_board:
            raise ValueError(
                f"{type(self).__name__} plays one board; boards={boards} is MultiWordleEnv or "
                f"MultiWordleVectorEnv (gym.make('Wordle-v1', boards={boards}) picks it)"
            )
        encodings = MULTI_OBSERVATIONS if self.multi_board else OBSERVATIONS
        if self.config.observation not in encodings:
            raise ValueError(
                f"unknown observation {self.config.observation!r}; expected one of "
                f"{tuple(encodings)}"
            )
        self.render_mode = check_render_mode(render_mode)
        self.vocabulary = self.config.vocabulary
        self.words = self.vocabulary.allowed
        if self.multi_board:
            self.game = MultiGame(self.config, device)
            self.observation = MULTI_OBSERVATIONS[self.config.observation](self.game)
        else:
            self.game = make_game(self.config, device)
            self.observation = OBSERVATIONS[self.config.observation](self.game)
