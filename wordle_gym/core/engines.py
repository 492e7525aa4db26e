"""The game engines, and the one factory that picks the batched one.

* :class:`~wordle_gym.core.game.Game`: the batched reference of the rules, in torch, on any device;
* :class:`~wordle_gym.core.compiled.CompiledGame`: its copy in numba kernels, for CPU batches (the
  same state, the same steps; held to the reference step by step by ``tests/envs/test_vector.py``
  and ``tests/envs/test_multi.py``);
* :class:`~wordle_gym.core.boards.MultiGame`: K boards sharing every guess, over one of the two
  above;
* :class:`~wordle_gym.envs.scalar.ScalarGame`: one game in plain Python, behind the single env (it
  keeps that env's observation, so it lives with the envs; held to the reference step by step by
  ``tests/envs/test_scalar.py``).

Where two disagree, :class:`~wordle_gym.core.game.Game` is right.
"""

from __future__ import annotations

import torch

from wordle_gym.core import _kernels
from wordle_gym.core.compiled import CompiledGame
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.game import Game


def make_game(config: WordleConfig, device: torch.device) -> Game:
    """The batched engine for ``config`` on ``device``: :class:`Game`, or on a CPU with numba its
    compiled copy."""
    if device.type != "cpu" or not _kernels.available():
        return Game(config, device)
    return CompiledGame(config, device)
