"""The engine's compiled copy for the CPU: :class:`CompiledGame` runs
:class:`~wordle_gym.core.game.Game`'s masks, and on batches of at least
:attr:`CompiledGame.compiled_from` rows its step and resets, with the numba kernels of
:mod:`wordle_gym.core._kernels`; everything else, and smaller batches, is ``Game``'s torch code.

``Game`` is the reference; ``tests/envs/test_scalar.py`` holds both to the scalar engine step by
step, ``tests/envs/test_vector.py`` and ``tests/envs/test_multi.py`` the two to each other.
"""

from __future__ import annotations

import numpy as np
import torch

from wordle_gym.core import _kernels
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.game import Game, GameState
from wordle_gym.core.rules import pattern_ids


class CompiledGame(Game):
    """:class:`Game` with its hot paths compiled for the CPU (numba)."""

    def __init__(self, config: WordleConfig, device: torch.device) -> None:
        if device.type != "cpu" or not _kernels.available():
            raise ValueError(
                f"CompiledGame runs on a CPU with numba; got device {device} (use make_game)"
            )
        super().__init__(config, device)
        self.compiled = self.mask_mode != "all"
        """Whether the masks run the kernels (the tests set it False to run ``Game``'s)."""
        self.compiled_from = _kernels.STEP_MIN_ROWS
        """From this many rows a step, reset and observation run the kernels (the tests set it to 0,
        or past any batch, to hold the two paths to each other)."""
        actions = self.answer_actions.numpy().astype(np.uint32)
        self._answer_actions_np = actions
        # each answer's (byte, bit)
        self._answer_bits_np = (actions >> 3, (actions & 7).astype(np.uint8))
        self._mask_buffers = _kernels.MaskBuffers()

    def compiled_rows(self, rows: int) -> bool:
        """Whether a step or reset of ``rows`` rows runs the kernels."""
        return rows >= self.compiled_from

    # ------------------------------------------------------------------------ step and reset
    def _reset_rows(self, state: GameState, mask: torch.Tensor, answers: torch.Tensor) -> None:
        if not self.compiled_rows(state.num_games):
            return super()._reset_rows(state, mask, answers)
        state.answers = state.answers.clone()  # a new tensor, as torch's path makes
        fields_ = (
            state.turn,
            state.won,
            state.done,
            state.guesses,
            state.tiles,
            state.green,
            state.excluded,
        )
        arrays = [t.contiguous().numpy() for t in (mask, answers)]
        _kernels.run(
            _kernels.reset_rows,
            mask.shape[0],
            64 * mask.shape[0],
            *arrays,
            state.answers.numpy(),
            *(t.numpy() for t in fields_),
            state.min_count.numpy(),
            state.max_count.numpy(),
        )
        return None

    def _fill_candidates(self, state: GameState, mask: torch.Tensor) -> None:
        if not self.compiled:
            return super()._fill_candidates(state, mask)
        assert state.candidates is not None
        candidates = state.candidates
        rows = mask.contiguous().numpy()
        _kernels.run(
            _kernels.fill_rows, mask.shape[0], candidates.numel(), candidates.numpy(), rows
        )
        return None

    def _score(self, codes: torch.Tensor, answers: torch.Tensor) -> torch.Tensor:
        n = codes.shape[0]
        if not self.compiled_rows(n):
            return super()._score(codes, answers)
        tiles = torch.empty_like(codes)
        answer_codes = self.answer_codes.index_select(0, answers).numpy()
        _kernels.run(_kernels.score, n, 16 * n, codes.numpy(), answer_codes, tiles.numpy())
        return tiles

    def _narrow(
        self, state: GameState, actions: torch.Tensor, tiles: torch.Tensor, scored: torch.Tensor
    ) -> None:
        if not self.compiled:
            return super()._narrow(state, actions, tiles, scored)
        assert self.table is not None and state.candidates is not None
        _kernels.run(
            _kernels.narrow_candidates,
            actions.shape[0],
            state.candidates.numel(),
            state.candidates.numpy(),
            self.table.numpy(),
            actions.contiguous().numpy(),
            pattern_ids(tiles).numpy(),
            scored.contiguous().numpy(),
        )
        return None

    def _learn(
        self,
        state: GameState,
        actions: torch.Tensor,
        codes: torch.Tensor,
        tiles: torch.Tensor,
        scored: torch.Tensor,
    ) -> None:
        n = codes.shape[0]
        if not self.compiled_rows(n):
            return super()._learn(state, actions, codes, tiles, scored)
        # New tensors, as torch's path makes: whoever holds the last step's keeps them unchanged.
        state.green, state.excluded = state.green.clone(), state.excluded.clone()
        state.min_count, state.max_count = state.min_count.clone(), state.max_count.clone()
        arrays = [t.contiguous().numpy() for t in (codes, tiles, scored)]
        knowledge = [
            t.numpy() for t in (state.green, state.excluded, state.min_count, state.max_count)
        ]
        _kernels.run(_kernels.learn, n, 64 * n, *arrays, *knowledge)
        return None

    # ----------------------------------------------------------------------------- masks
    def _candidates_mask(self, state: GameState) -> torch.Tensor:
        if not self.compiled:
            return super()._candidates_mask(state)
        assert state.candidates is not None
        n = state.num_games
        return self._compiled_mask(
            _kernels.candidates_mask, n, state.candidates.numpy(), self._answer_actions_np
        )

    def packed_action_mask(self, state: GameState) -> torch.Tensor:
        if not self.compiled:
            return super().packed_action_mask(state)
        n = state.num_games
        if self.mask_mode == "candidates":
            assert state.candidates is not None
            bytes_, bits = self._answer_bits_np
            return self._compiled_mask(
                _kernels.candidates_bits, n, state.candidates.numpy(), bytes_, bits, packed=True
            )
        sets = self.requirement_sets.numpy().view(np.uint64)
        rows = self._hard_rows(state).numpy()
        return self._compiled_mask(_kernels.hard_mask, n, sets, rows, True, packed=True)

    def hard_mask(self, state: GameState) -> torch.Tensor:
        if not self.compiled:
            return super().hard_mask(state)
        sets, rows = self.requirement_sets, self._hard_rows(state)
        return self._compiled_mask(
            _kernels.hard_mask, rows.shape[0], sets.numpy().view(np.uint64), rows.numpy(), False
        )

    def _compiled_mask(
        self, kernel: _kernels.Kernel, games: int, *inputs: np.ndarray, packed: bool = False
    ) -> torch.Tensor:
        """The (games, num_allowed) bool mask, or with ``packed`` its (games, ceil(num_allowed / 8))
        uint8 form, that ``kernel(start, stop, *inputs, out)`` writes, in recycled memory."""
        if packed:
            mask = self._mask_buffers.take(games, -(-self.num_allowed // 8), np.uint8)
        else:
            mask = self._mask_buffers.take(games, self.num_allowed)
        _kernels.run(kernel, games, mask.numel(), *inputs, mask.numpy())
        return mask
