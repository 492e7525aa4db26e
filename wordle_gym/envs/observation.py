"""Observation encodings: each is one object with its Gymnasium ``space`` and its encoder.

``"knowledge"`` (default, :class:`KnowledgeObservation`), flat, ``D = 52 L + 52 + T + 1``
values (319 for L=5, T=6), position-major so that each block is one contiguous ``(L, 26)``
slab. Read the blocks by name (``enc.slices["min_count"]``, or ``enc.layout.fields(obs)`` for
shaped views), never by offset arithmetic:

=============  ====================  =======  ===================================================
name           slice                 values   meaning
=============  ====================  =======  ===================================================
``green``      ``[0, 26L)``          0/1      ``[i*26 + c]``: position ``i`` is known to be ``c``
``excluded``   ``[26L, 52L)``        0/1      ``[i*26 + c]``: ``c`` is known not to be at ``i``
``min_count``  ``[52L, 52L+26)``     0..L     the answer holds at least this many of letter ``c``
``max_count``  ``[52L+26, 52L+52)``  0..L     ... and at most this many
``turn``       ``[52L+52, D)``       one-hot  guesses made so far, 0..T
=============  ====================  =======  ===================================================

It is lossless: a word is consistent with all feedback so far exactly when its letters are
not excluded at their positions and its letter counts lie within the bounds.

``"board"`` (:class:`BoardObservation`): shape ``(2, T, L)``; ``[0]`` letters of each guess
(0..25, 26 for a row not played or refused), ``[1]`` tiles (0 grey, 1 yellow, 2 green, 3 for
such rows).

A new encoding is one class here with ``name``, ``space``, ``__call__(state)`` and ``initial``,
added to :data:`OBSERVATIONS`; ``WordleConfig(observation=name)`` then accepts it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
import torch
from gymnasium import spaces

from wordle_gym.core import _kernels
from wordle_gym.core.boards import MultiGame, MultiState
from wordle_gym.core.game import NO_LETTER, NO_TILE, Game, GameState
from wordle_gym.core.rules import ALPHABET


class KnowledgeFields(NamedTuple):
    """Shaped views of a batch of "knowledge" observations (no copies)."""

    green: torch.Tensor  # (B, L, 26)
    excluded: torch.Tensor  # (B, L, 26)
    min_count: torch.Tensor  # (B, 26)
    max_count: torch.Tensor  # (B, 26)
    turn: torch.Tensor  # (B, T + 1) one-hot


@dataclass(frozen=True)
class KnowledgeLayout:
    """Where each block of the "knowledge" observation lives, for a word length and guess limit.

    Agents build one from their own config to size a network, and compare it with the env's
    (``env.observation.layout``) before playing.
    """

    length: int
    max_guesses: int

    @cached_property
    def slices(self) -> dict[str, slice]:
        """Block name -> slice of the flat observation (names as in :class:`KnowledgeFields`)."""
        block = self.length * ALPHABET
        bounds = {
            "green": block,
            "excluded": block,
            "min_count": ALPHABET,
            "max_count": ALPHABET,
            "turn": self.max_guesses + 1,
        }
        return _consecutive(bounds)

    @property
    def size(self) -> int:
        """Length of the flat observation: 52 L + 52 + T + 1."""
        return self.slices["turn"].stop

    def fields(self, obs: torch.Tensor) -> KnowledgeFields:
        """Split observations ``(B, size)`` into named, shaped views."""
        if obs.shape[-1] != self.size:
            raise ValueError(
                f"observation has {obs.shape[-1]} values; a {self.length}-letter, "
                f"{self.max_guesses}-guess 'knowledge' observation has {self.size}"
            )
        s, batch = self.slices, obs.shape[0]
        return KnowledgeFields(
            green=obs[:, s["green"]].view(batch, self.length, ALPHABET),
            excluded=obs[:, s["excluded"]].view(batch, self.length, ALPHABET),
            min_count=obs[:, s["min_count"]],
            max_count=obs[:, s["max_count"]],
            turn=obs[:, s["turn"]],
        )


def _consecutive(sizes: dict[str, int]) -> dict[str, slice]:
    """Blocks of the given sizes laid end to end: name -> its slice of the flat observation."""
    out, start = {}, 0
    for name, size in sizes.items():
        out[name] = slice(start, start + size)
        start += size
    return out


def _numpy_dtype(dtype: torch.dtype) -> type:
    return np.int8 if dtype == torch.int8 else np.float32


class KnowledgeObservation:
    """The lossless "knowledge" encoding (module docstring)."""

    name = "knowledge"

    def __init__(self, game: Game) -> None:
        self.game = game
        self.dtype = game.config.torch_obs_dtype
        self.layout = KnowledgeLayout(game.length, game.max_guesses)
        self.slices = self.layout.slices
        dev = game.device
        # NO_LETTER: all False
        self._one_hot = torch.eye(ALPHABET + 1, ALPHABET, dtype=torch.bool, device=dev)
        self._turn_ids = torch.arange(game.max_guesses + 1, device=dev)  # (T+1,)
        high = np.ones(self.layout.size, dtype=_numpy_dtype(self.dtype))
        high[self.slices["min_count"]] = game.length
        high[self.slices["max_count"]] = game.length
        self.space = spaces.Box(low=np.zeros_like(high), high=high, dtype=high.dtype)
        self.initial = self(game.new_state(1))[0]  # every fresh game looks like this

    def __call__(self, state: GameState) -> torch.Tensor:
        """Observations of every game: (N, D) in the configured dtype."""
        n, length = state.num_games, self.game.length
        if self.game.compiled_rows(n):
            none = torch.zeros((n, 0), dtype=torch.bool)
            return _compiled_knowledge(state, none, state.turn, self.layout.size, self.dtype)
        # Table look-ups, not comparisons with every letter: a third of the time on big batches.
        green = self._one_hot.index_select(0, state.green.reshape(-1).long())  # (N L, 26) bool
        # (N, L, 26) bool
        excluded = self.game.unpack_bits(state.excluded).view(n, length, 32)[:, :, :ALPHABET]
        turn = state.turn[:, None] == self._turn_ids  # (N, T + 1) bool
        # One concatenation in block order, every block read as uint8 first (a cat of bool and uint8
        # blocks promotes element by element: a third slower), then read as int8.
        blocks = [
            green.view(n, -1),
            excluded.reshape(n, -1),
            state.min_count,
            state.max_count,
            turn,
        ]
        out = torch.cat([b.view(torch.uint8) for b in blocks], dim=1).view(torch.int8)
        return out if self.dtype == torch.int8 else out.to(self.dtype)


def _compiled_knowledge(
    rows: GameState, solved: torch.Tensor, turn: torch.Tensor, size: int, dtype: torch.dtype
) -> torch.Tensor:
    """The "knowledge" observation by the compiled copy (``_kernels.encode_knowledge``), each row
    written once:
    ``rows`` holds K boards' knowledge for each of the N games of ``solved`` (N, K) (K = 0: one
    board)."""
    n = turn.shape[0]
    out = torch.empty((n, size), dtype=torch.uint8)
    arrays = [
        t.contiguous().numpy() for t in (rows.green, rows.excluded, rows.min_count, rows.max_count)
    ]
    _kernels.run(
        _kernels.encode_knowledge,
        n,
        4 * out.numel(),
        *arrays,
        solved.contiguous().numpy(),
        turn.numpy(),
        out.numpy(),
    )
    out = out.view(torch.int8)
    return out if dtype == torch.int8 else out.to(dtype)


class BoardObservation:
    """The raw board: letters and tiles of each guess, ``(2, T, L)``."""

    name = "board"

    def __init__(self, game: Game) -> None:
        self.game = game
        self.dtype = game.config.torch_obs_dtype
        high = np.empty((2, game.max_guesses, game.length), dtype=_numpy_dtype(self.dtype))
        high[0], high[1] = NO_LETTER, NO_TILE
        self.space = spaces.Box(low=np.zeros_like(high), high=high, dtype=high.dtype)
        self.initial = self(game.new_state(1))[0]

    def __call__(self, state: GameState) -> torch.Tensor:
        """Observations of every game: (N, 2, T, L) in the configured dtype."""
        played = state.tiles[:, :, :1] != NO_TILE  # (N, T, 1): a scored row
        letters = self.game.allowed_codes[state.guesses.clamp(min=0)]  # (N, T, L)
        letters = torch.where(played, letters, NO_LETTER)
        return torch.stack([letters, state.tiles], dim=1).to(self.dtype)


Observation = KnowledgeObservation | BoardObservation
OBSERVATIONS: dict[str, type[Observation]] = {
    "knowledge": KnowledgeObservation,
    "board": BoardObservation,
}


# -------------------------------------------------------------------------------------- multi-board
class MultiKnowledgeFields(NamedTuple):
    """Shaped views of a batch of multi-board "knowledge" observations (no copies)."""

    green: torch.Tensor  # (B, K, L, 26)
    excluded: torch.Tensor  # (B, K, L, 26)
    min_count: torch.Tensor  # (B, K, 26)
    max_count: torch.Tensor  # (B, K, 26)
    solved: torch.Tensor  # (B, K)
    turn: torch.Tensor  # (B, T + 1) one-hot


@dataclass(frozen=True)
class MultiKnowledgeLayout:
    """Where each block of the multi-board "knowledge" observation lives: every board's blocks of
    the single-board encoding (:class:`KnowledgeLayout`), block by block, then which boards are
    solved and the turn.

    =============  ==========  =====  ==========================================================
    name           size        value  meaning
    =============  ==========  =====  ==========================================================
    ``green``      ``26 K L``  0/1    ``[(k*L + i)*26 + c]``: board ``k``, position ``i`` is ``c``
    ``excluded``   ``26 K L``  0/1    ``[(k*L + i)*26 + c]``: board ``k``, ``c`` is not at ``i``
    ``min_count``  ``26 K``    0..L   ``[k*26 + c]``: board ``k``'s answer holds at least this many
    ``max_count``  ``26 K``    0..L   ... and at most this many
    ``solved``     ``K``       0/1    board ``k`` is solved (its knowledge stops there)
    ``turn``       ``T + 1``   0/1    one-hot of the guesses made so far, 0..T
    =============  ==========  =====  ==========================================================
    """

    length: int
    max_guesses: int
    boards: int

    @cached_property
    def slices(self) -> dict[str, slice]:
        """Block name -> slice of the flat observation (names as in
        :class:`MultiKnowledgeFields`)."""
        block, k = self.length * ALPHABET, self.boards
        bounds = {
            "green": k * block,
            "excluded": k * block,
            "min_count": k * ALPHABET,
            "max_count": k * ALPHABET,
            "solved": k,
            "turn": self.max_guesses + 1,
        }
        return _consecutive(bounds)

    @property
    def size(self) -> int:
        """Length of the flat observation: K (52 L + 53) + T + 1."""
        return self.slices["turn"].stop

    def fields(self, obs: torch.Tensor) -> MultiKnowledgeFields:
        """Split observations ``(B, size)`` into named, shaped views."""
        if obs.shape[-1] != self.size:
            raise ValueError(
                f"observation has {obs.shape[-1]} values; a {self.boards}-board, "
                f"{self.length}-letter, "
                f"{self.max_guesses}-guess 'knowledge' observation has {self.size}"
            )
        s, b, k, length = self.slices, obs.shape[0], self.boards, self.length
        return MultiKnowledgeFields(
            green=obs[:, s["green"]].view(b, k, length, ALPHABET),
            excluded=obs[:, s["excluded"]].view(b, k, length, ALPHABET),
            min_count=obs[:, s["min_count"]].view(b, k, ALPHABET),
            max_count=obs[:, s["max_count"]].view(b, k, ALPHABET),
            solved=obs[:, s["solved"]],
            turn=obs[:, s["turn"]],
        )


class MultiKnowledgeObservation:
    """The lossless "knowledge" encoding of every board (:class:`MultiKnowledgeLayout`)."""

    name = "knowledge"

    def __init__(self, game: MultiGame) -> None:
        self.game = game
        self.dtype = game.config.torch_obs_dtype
        self.layout = MultiKnowledgeLayout(game.length, game.max_guesses, game.num_boards)
        self.slices = self.layout.slices
        dev = game.device
        self._one_hot = torch.eye(ALPHABET + 1, ALPHABET, dtype=torch.bool, device=dev)
        self._turn_ids = torch.arange(game.max_guesses + 1, device=dev)
        high = np.ones(self.layout.size, dtype=_numpy_dtype(self.dtype))
        high[self.slices["min_count"]] = game.length
        high[self.slices["max_count"]] = game.length
        self.space = spaces.Box(low=np.zeros_like(high), high=high, dtype=high.dtype)
        self.initial = self(game.new_state(1))[0]

    def __call__(self, state: MultiState) -> torch.Tensor:
        """Observations of every game: (N, D) in the configured dtype."""
        n, rows, length = state.num_games, state.boards, self.game.length
        if self.game.game.compiled_rows(rows.num_games):
            return _compiled_knowledge(rows, state.solved, state.turn, self.layout.size, self.dtype)
        green = self._one_hot.index_select(0, rows.green.reshape(-1).long())  # (N K L, 26)
        excluded = self.game.game.unpack_bits(rows.excluded).view(-1, length, 32)[:, :, :ALPHABET]
        turn = state.turn[:, None] == self._turn_ids
        blocks = [
            green.view(n, -1),
            excluded.reshape(n, -1),
            rows.min_count.view(n, -1),
            rows.max_count.view(n, -1),
            state.solved,
            turn,
        ]
        # as in the one-board case
        out = torch.cat([b.view(torch.uint8) for b in blocks], dim=1).view(torch.int8)
        return out if self.dtype == torch.int8 else out.to(self.dtype)


class MultiBoardObservation:
    """Every board's raw board (:class:`BoardObservation`), stacked: ``(K, 2, T, L)``."""

    name = "board"

    def __init__(self, game: MultiGame) -> None:
        self.game = game
        self._board = BoardObservation(game.game)
        self.dtype = self._board.dtype
        high = np.broadcast_to(
            self._board.space.high, (game.num_boards, *self._board.space.shape)
        ).copy()
        self.space = spaces.Box(low=np.zeros_like(high), high=high, dtype=high.dtype)
        self.initial = self(game.new_state(1))[0]

    def __call__(self, state: MultiState) -> torch.Tensor:
        """Observations of every game: (N, K, 2, T, L) in the configured dtype."""
        boards = self._board(state.boards)
        return boards.view(state.num_games, self.game.num_boards, *boards.shape[1:])


MultiObservation = MultiKnowledgeObservation | MultiBoardObservation
MULTI_OBSERVATIONS: dict[str, type[MultiObservation]] = {
    "knowledge": MultiKnowledgeObservation,
    "board": MultiBoardObservation,
}
