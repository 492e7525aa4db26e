"""Encoders from game state to observation tensors, with their Gymnasium spaces.

``"knowledge"`` (default), flat, ``D = 52 L + 52 + T + 1`` values (319 for L=5, T=6),
position-major so that each block is one contiguous ``(L, 26)`` slab:

====================  ===========  ====================================================
slice                 values       meaning
====================  ===========  ====================================================
``[0, 26L)``          0/1          ``green[i*26 + c]``: position ``i`` is known to be ``c``
``[26L, 52L)``        0/1          ``excluded[i*26 + c]``: ``c`` is known not to be at ``i``
``[52L, 52L+26)``     0..L         the answer holds at least this many of letter ``c``
``[52L+26, 52L+52)``  0..L         ... and at most this many
``[52L+52, D)``       one-hot      guesses made so far, 0..T
====================  ===========  ====================================================

It is lossless: a word is consistent with all feedback so far exactly when its letters are
not excluded at their positions and its letter counts lie within the bounds.

``"board"``: shape ``(2, T, L)``; ``[0]`` letters of each guess (0..25, 26 for a row not
played or refused), ``[1]`` tiles (0 grey, 1 yellow, 2 green, 3 for such rows).
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces

from wordle_gym.core import ALPHABET
from wordle_gym.state import NO_LETTER, NO_TILE, Game, GameState


class Observer:
    """Builds observations of one configuration on one device (allocations done once)."""

    def __init__(self, game: Game) -> None:
        config = game.config
        self.game = game
        self.kind = config.observation
        self.dtype = config.torch_obs_dtype
        length, turns = game.length, game.max_guesses
        self.length, self.turns = length, turns
        dev = game.device
        self.letters = torch.arange(ALPHABET, dtype=torch.uint8, device=dev)  # (26,)
        self.byte_shifts = torch.tensor([0, 8, 16, 24], dtype=torch.int32, device=dev)  # (4,)
        # bits_of_byte[b, k] = bit k of byte b: unpacks 26-bit masks 8 bits per lookup.
        self.bits_of_byte = ((torch.arange(256)[:, None] >> torch.arange(8)) & 1).to(torch.int8).to(dev)  # (256, 8)
        self.turn_ids = torch.arange(turns + 1, device=dev)  # (T+1,)
        np_dtype = np.int8 if self.dtype == torch.int8 else np.float32
        if self.kind == "knowledge":
            pos = 2 * length * ALPHABET
            self.size = self.size_for(length, turns)
            high = np.ones(self.size, dtype=np_dtype)
            high[pos : pos + 2 * ALPHABET] = length
            self.space = spaces.Box(low=np.zeros_like(high), high=high, dtype=np_dtype)
        else:
            high = np.empty((2, turns, length), dtype=np_dtype)
            high[0], high[1] = NO_LETTER, NO_TILE
            self.space = spaces.Box(low=np.zeros_like(high), high=high, dtype=np_dtype)
        # Every fresh game has the same observation: reset rows are filled from this.
        self.initial = self(game.new_state(1))[0]

    @staticmethod
    def size_for(length: int, max_guesses: int) -> int:
        """Length of the "knowledge" observation: 52 L + 52 + T + 1."""
        return 2 * length * ALPHABET + 2 * ALPHABET + max_guesses + 1

    def __call__(self, state: GameState) -> torch.Tensor:
        """Observations of every game: (N, *space.shape) in the configured dtype."""
        obs = self._board(state) if self.kind == "board" else self._knowledge(state)
        return obs if obs.dtype == self.dtype else obs.to(self.dtype)

    def _knowledge(self, state: GameState) -> torch.Tensor:
        # Built in int8, each block written once: comparisons go straight into a bool view.
        n, length = state.num_games, self.length
        out = torch.empty((n, self.size), dtype=torch.int8, device=self.letters.device)
        block = length * ALPHABET
        green = out[:, :block].view(torch.bool).view(n, length, ALPHABET)
        torch.eq(state.green[:, :, None], self.letters, out=green)
        excluded_bytes = (state.excluded[:, :, None] >> self.byte_shifts) & 0xFF  # (N, L, 4)
        bits = self.bits_of_byte[excluded_bytes].view(n, length, 32)[:, :, :ALPHABET]
        out[:, block : 2 * block].view(n, length, ALPHABET).copy_(bits)
        counts = 2 * block
        out[:, counts : counts + ALPHABET] = state.min_count
        out[:, counts + ALPHABET : counts + 2 * ALPHABET] = state.max_count
        turn = out[:, counts + 2 * ALPHABET :].view(torch.bool)
        torch.eq(state.turn[:, None], self.turn_ids, out=turn)
        return out

    def _board(self, state: GameState) -> torch.Tensor:
        played = state.tiles[:, :, :1] != NO_TILE  # (N, T, 1): a scored row
        letters = self.game.allowed_codes[state.guesses.clamp(min=0)]  # (N, T, L)
        letters = torch.where(played, letters, NO_LETTER)
        return torch.stack([letters, state.tiles], dim=1).to(torch.int8)
