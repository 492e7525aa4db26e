"""Batched game state and the rules engine that steps it.

:class:`GameState` is plain data: a few tensors, one row per game. :class:`Game` holds the constant
tensors of one configuration on one device and moves states forward. The vector env is this engine
with ``num_envs`` rows; it is the reference for the rules, in torch only. Its named copies:
:class:`~wordle_gym.core.compiled.CompiledGame` (numba kernels for big CPU batches;
:mod:`wordle_gym.core.engines` picks it) and :class:`~wordle_gym.envs.scalar.ScalarGame` (plain
Python for one game), held to this engine step by step by ``tests/envs/test_scalar.py`` (where they
differ, this one is right).

What the player knows is kept as a compact, lossless summary of every constraint the
feedback so far implies (it is exactly as strong as the full history):

* ``green[n, i]``: the letter known to be at position ``i`` (26 if none);
* ``excluded[n, i]``: a 26-bit mask of letters known *not* to be at position ``i``;
* ``min_count[n, c]`` / ``max_count[n, c]``: bounds on how many ``c`` the answer holds.

After each guess a few sound deductions tighten it (:meth:`Game._deduce`), so equal
knowledge always has an equal encoding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import numpy as np
import torch

from wordle_gym.core import _kernels
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.rewards import TILES, Outcome, batch_reward
from wordle_gym.core.rules import (
    ALPHABET,
    GREEN,
    GREY,
    YELLOW,
    feedback,
    pattern_ids,
)
from wordle_gym.core.tables import pattern_table

NO_LETTER = ALPHABET  # 26: "no letter known here" / "empty board cell"
NO_TILE = 3  # board cell of a turn not played or refused
ALL_LETTERS = (1 << ALPHABET) - 1
_UNREAD, _GREENS_AT = 2 * ALPHABET, 2 * ALPHABET + 1  # count slots of Game._learn


@dataclass
class GameState:
    """A batch of games. Every field has the batch as its first dim."""

    answers: torch.Tensor  # (N,) int64: index into vocabulary.answers
    turn: torch.Tensor  # (N,) int64: guesses made so far, refused ones included
    won: torch.Tensor  # (N,) bool
    done: torch.Tensor  # (N,) bool: won or out of guesses
    guesses: torch.Tensor  # (N, T) int64: action of each turn, -1 before it is played
    tiles: torch.Tensor  # (N, T, L) uint8: feedback of each turn; NO_TILE if unplayed or refused
    green: torch.Tensor  # (N, L) uint8: letter known at each position, NO_LETTER if none
    excluded: torch.Tensor  # (N, L) int32: bit c set = letter c is known not to be here
    min_count: torch.Tensor  # (N, 26) uint8: the answer holds at least this many of each letter
    max_count: torch.Tensor  # (N, 26) uint8: ... and at most this many
    # (N, num_answers) bool: answers consistent with all feedback; kept
    candidates: torch.Tensor | None
    #                                   only in mask mode "candidates", else None

    @property
    def num_games(self) -> int:
        """Rows in the batch."""
        return self.answers.shape[0]

    def clone(self) -> GameState:
        """A deep copy (for undo, or to look ahead without touching the env)."""
        return self._map(torch.Tensor.clone)

    def row(self, index: int) -> GameState:
        """Game ``index`` alone, a copy on the CPU (a batch of one)."""
        return self._map(lambda v: v[index : index + 1].cpu().clone())

    def _map(self, copy: Callable[[torch.Tensor], torch.Tensor]) -> GameState:
        """A state of ``copy`` applied to each field (None stays None)."""
        return GameState(
            **{
                f.name: None if (v := getattr(self, f.name)) is None else copy(v)
                for f in fields(self)
            }
        )


class StepOutcome(NamedTuple):
    """What one batched step produced."""

    tiles: torch.Tensor  # (N, L) uint8: feedback of this guess; NO_TILE where refused or inactive
    reward: torch.Tensor  # (N,) float32: 0 where inactive
    terminated: torch.Tensor  # (N,) bool: the game ended on this step (win or last guess)
    won: torch.Tensor  # (N,) bool: the game was won on this step
    invalid: torch.Tensor  # (N,) bool: a hard-mode guess refused (info "invalid")


def hard_breaches(
    green: torch.Tensor, min_count: torch.Tensor, codes: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """THE hard-mode rule: how guesses (letter codes ``(N, L)``) break what games know.

    A hard-mode guess keeps every revealed green in place and uses each revealed letter at least
    as many times as one guess showed it (green or yellow): ``green`` ``(N, L)`` (``NO_LETTER``
    where none), ``min_count`` ``(N, 26)``. Returns ``moved`` ``(N, L)`` bool, the positions whose
    green the guess does not keep, and ``short`` ``(N, 26)`` int16, how many more copies of each
    letter the guess needs (0 where it has enough); the guess obeys hard mode where both are empty.

    This is the reference. Its copies, held to it by the tests: ``Game.hard_mask`` (which words
    obey, from precomputed word sets), ``ScalarGame.hard_valid`` (one game in Python) and the exact
    solver's ``wordle_gym.solver._kernel.valid`` (numba); the CLI's messages read this
    function."""
    moved = (green != NO_LETTER) & (codes != green)
    counts = torch.zeros((codes.shape[0], ALPHABET), dtype=torch.int16, device=codes.device)
    counts.scatter_add_(1, codes.long(), torch.ones_like(codes, dtype=torch.int16))
    return moved, (min_count.to(torch.int16) - counts).clamp_(min=0)


def write_turn(
    history: torch.Tensor, turn: torch.Tensor, active: torch.Tensor, values: torch.Tensor
) -> torch.Tensor:
    """A copy of ``history`` (N, T, ...) with ``values`` (N, ...) written at row ``turn`` of the
    ``active`` games:
    the history of one more turn. A new tensor (a reference kept to the old history still reads the
    old one), made by one copy and a scatter of N rows rather than a select over all N T rows (a
    tenth of the time)."""
    shape, ones = (-1, 1, *values.shape[1:]), [1] * (history.dim() - 1)
    at = turn.clamp(max=history.shape[1] - 1).view(-1, *ones).expand(shape)  # (N, 1, ...)
    values = torch.where(
        active.view(-1, *ones), values.to(history.dtype).view(shape), history.gather(1, at)
    )
    return history.clone().scatter_(1, at, values)


class Game:
    """The rules of one :class:`WordleConfig` on one device, applied to batches of games (torch
    only)."""

    compiled = False
    """Whether the masks run compiled copies (:class:`~wordle_gym.core.compiled.CompiledGame`);
    never here."""

    def __init__(self, config: WordleConfig, device: torch.device) -> None:
        self.config = config
        self.device = device
        vocab = config.vocabulary
        self.vocabulary = vocab
        self.length = vocab.length
        self.max_guesses = config.max_guesses
        self.num_allowed = vocab.num_allowed
        self.num_answers = vocab.num_answers
        self.reward = config.reward_fn
        self.hard_mode = config.hard_mode
        self.mask_mode = config.mask_mode
        self.allowed_codes = vocab.allowed_codes.to(device)  # (A, L) uint8
        self.answer_codes = vocab.answer_codes.to(device)  # (K, L) uint8
        self.answer_actions = vocab.answer_actions.to(device)  # (K,) int64
        # (26,) int32
        self.letter_bits = (1 << torch.arange(ALPHABET, dtype=torch.int32)).to(device)
        # The pattern table is only needed to track candidates; build (or reuse) it then.
        self.table = pattern_table(vocab, device) if self.mask_mode == "candidates" else None
        # Byte -> its 8 bits as 8 bool bytes of one int64 (little-endian: bit i is byte i).
        self._byte_bits = (
            ((torch.arange(256)[:, None] >> torch.arange(8)) & 1) << (8 * torch.arange(8))
        ).sum(1)
        self._byte_bits = self._byte_bits.to(device)  # (256,) int64
        self._requirement_sets: torch.Tensor | None = None  # built on first hard_mask()
        # Constants of the step, so that it makes as few (small) torch calls as it can.
        self._turns = torch.arange(self.max_guesses, device=device)  # (T,) int64
        self._allowed_slots = self.allowed_codes.long()  # (A, L) int64: count slots (see _learn)
        # (A, L) int32: each letter's bit
        self._allowed_bits = self.letter_bits[self._allowed_slots]
        # Exclusions of a position known green (index: its letter; NO_LETTER: none, unused).
        none = torch.zeros(1, dtype=torch.int32, device=device)
        self._green_exclusions = torch.cat([ALL_LETTERS ^ self.letter_bits, none])  # (27,) int32
        self._ones = torch.ones((1, self.length), dtype=torch.uint8, device=device)

    # ----------------------------------------------------------------------------- state
    def new_state(self, num_games: int) -> GameState:
        """Fresh games, all answering answer 0 until :meth:`reset` picks answers."""
        n, t, length, dev = num_games, self.max_guesses, self.length, self.device
        state = GameState(
            answers=torch.zeros(n, dtype=torch.int64, device=dev),
            turn=torch.zeros(n, dtype=torch.int64, device=dev),
            won=torch.zeros(n, dtype=torch.bool, device=dev),
            done=torch.zeros(n, dtype=torch.bool, device=dev),
            guesses=torch.full((n, t), -1, dtype=torch.int64, device=dev),
            tiles=torch.full((n, t, length), NO_TILE, dtype=torch.uint8, device=dev),
            green=torch.full((n, length), NO_LETTER, dtype=torch.uint8, device=dev),
            excluded=torch.zeros((n, length), dtype=torch.int32, device=dev),
            min_count=torch.zeros((n, ALPHABET), dtype=torch.uint8, device=dev),
            max_count=torch.full((n, ALPHABET), length, dtype=torch.uint8, device=dev),
            candidates=(
                torch.ones((n, self.num_answers), dtype=torch.bool, device=dev)
                if self.table is not None
                else None
            ),
        )
        return state

    def reset(self, state: GameState, mask: torch.Tensor | None, answers: torch.Tensor) -> None:
        """Start new games in place: rows where ``mask`` (N,) bool is True (all rows if None)
        get answer ``answers`` (N,) int64 and a blank board."""
        if mask is None:
            fresh = self.new_state(state.num_games)
            fresh.answers.copy_(answers)
            for f in fields(state):
                setattr(state, f.name, getattr(fresh, f.name))
            return
        self._reset_rows(state, mask, answers)
        if state.candidates is not None:
            self._fill_candidates(state, mask)

    def _fill_candidates(self, state: GameState, mask: torch.Tensor) -> None:
        assert state.candidates is not None
        state.candidates.masked_fill_(mask[:, None], True)

    def _reset_rows(self, state: GameState, mask: torch.Tensor, answers: torch.Tensor) -> None:
        m1 = mask[:, None]
        state.answers = torch.where(mask, answers, state.answers)
        state.turn.masked_fill_(mask, 0)
        state.won.masked_fill_(mask, False)
        state.done.masked_fill_(mask, False)
        state.guesses.masked_fill_(m1, -1)
        state.tiles.masked_fill_(mask[:, None, None], NO_TILE)
        state.green.masked_fill_(m1, NO_LETTER)
        state.excluded.masked_fill_(m1, 0)
        state.min_count.masked_fill_(m1, 0)
        state.max_count.masked_fill_(m1, self.length)

    def compiled_rows(self, rows: int) -> bool:
        """Whether a step or reset of ``rows`` rows runs compiled copies (never here; see
        ``CompiledGame``)."""
        return False

    def check_actions(self, actions: torch.Tensor) -> None:
        """Raise a clear error for actions outside ``0 .. num_allowed - 1``."""
        if actions.dtype not in (torch.int64, torch.int32, torch.int16, torch.uint8, torch.int8):
            raise TypeError(f"actions must be integer word indices; got dtype {actions.dtype}")
        bad = (actions < 0) | (actions >= self.num_allowed)
        if bool(bad.any()):
            first = int(actions[bad.nonzero()[0, 0]])
            raise ValueError(
                f"action {first} is out of range; expected 0 <= action < {self.num_allowed} "
                f"(an index into the allowed words)"
            )

    # ------------------------------------------------------------------------------ step
    def step(self, state: GameState, actions: torch.Tensor, active: torch.Tensor) -> StepOutcome:
        """Play ``actions`` (N,) int64 in the games where ``active`` (N,) bool; others stay as they
        are."""
        # index_select, not indexing: a quarter of the time on 16384 CPU rows (the same on CUDA)
        codes = self.allowed_codes.index_select(0, actions)  # (N, L) uint8
        if self.hard_mode:
            invalid = active & ~self.hard_valid(state, codes)
            scored = active & ~invalid
        else:
            invalid, scored = torch.zeros_like(active), active
        tiles = self._score(codes, state.answers)  # (N, L) uint8
        is_green = tiles == GREEN
        won = scored & is_green.all(-1)
        greens = yellows = repeats = None
        if TILES in self.reward.needs:
            counted = is_green & scored[:, None]
            greens = counted.sum(-1)
            yellows = ((tiles == YELLOW) & scored[:, None]).sum(-1)
            repeats = (counted & (state.green == codes)).sum(-1)
        row_tiles, lost = self._advance(state, actions, codes, tiles, scored, active, won)
        reward = batch_reward(
            self.reward,
            Outcome(state.turn, won, lost, greens, yellows, repeats, invalid, active),
            state.num_games,
        )
        return StepOutcome(row_tiles, reward, won | lost, won, invalid)

    def _score(self, codes: torch.Tensor, answers: torch.Tensor) -> torch.Tensor:
        """The feedback of guesses ``codes`` (N, L) against answers ``answers`` (N,): (N, L) uint8
        tiles."""
        return feedback(codes, self.answer_codes.index_select(0, answers))

    def skip_turn(self, state: GameState, active: torch.Tensor | None = None) -> StepOutcome:
        """A turn spent without a guess in the ``active`` (N,) games (all if None): what a refused
        reply of the text env costs. Nothing is revealed or recorded; the turn and the reward are a
        refused guess's."""
        active = torch.ones_like(state.done) if active is None else active & ~state.done
        state.turn = state.turn + active
        lost = active & (state.turn >= self.max_guesses)
        state.done |= lost
        none = torch.zeros_like(active)
        counts = torch.zeros_like(state.turn) if TILES in self.reward.needs else None
        reward = batch_reward(
            self.reward,
            Outcome(state.turn, none, lost, counts, counts, counts, active, active),
            state.num_games,
        )
        tiles = torch.full(
            (state.num_games, self.length), NO_TILE, dtype=torch.uint8, device=self.device
        )
        return StepOutcome(tiles, reward, lost, none, active.clone())

    def observe(self, state: GameState, actions: torch.Tensor, tiles: torch.Tensor) -> None:
        """Record guesses ``actions`` (N,) with feedback ``tiles`` (N, L) that came from elsewhere
        (a person playing the real game), exactly as :meth:`step` records its own. The answer
        field is not used. Feedback that no answer fits shows as an empty candidate set."""
        codes = self.allowed_codes[actions]
        tiles = tiles.to(device=self.device, dtype=torch.uint8)
        active = ~state.done
        won = active & (tiles == GREEN).all(-1)
        self._advance(state, actions, codes, tiles, active, active, won)

    def _advance(
        self,
        state: GameState,
        actions: torch.Tensor,
        codes: torch.Tensor,
        tiles: torch.Tensor,
        scored: torch.Tensor,
        active: torch.Tensor,
        won: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Fold one guess into the ``active`` games (tiles count where ``scored``); returns the
        history row written (N, L) and which games were lost (N,)."""
        if state.candidates is not None:
            self._narrow(state, actions, tiles, scored)
        self._learn(state, actions, codes, tiles, scored)
        # This turn's row of the history, in the games that play (a game still playing has turn <
        # T).
        row_tiles = tiles.masked_fill(~scored[:, None], NO_TILE)
        state.guesses = write_turn(state.guesses, state.turn, active, actions)
        state.tiles = write_turn(state.tiles, state.turn, active, row_tiles)
        state.turn = state.turn + active
        lost = active & ~won & (state.turn >= self.max_guesses)
        state.won |= won
        state.done |= won | lost
        return row_tiles, lost

    def _narrow(
        self, state: GameState, actions: torch.Tensor, tiles: torch.Tensor, scored: torch.Tensor
    ) -> None:
        """Drop the candidates that the ``scored`` games' feedback ``tiles`` rules out."""
        assert self.table is not None and state.candidates is not None
        consistent = self.table[actions] == pattern_ids(tiles)[:, None]  # (N, K)
        state.candidates &= consistent | ~scored[:, None]

    def consistent(self, state: GameState) -> torch.Tensor:
        """Answers consistent with all feedback so far, from the knowledge summary: (N, num_answers)
        bool.

        Costs (N, num_answers, 26) work: meant for a few games (the CLI, tests); the env's
        "candidates" mask keeps the same set incrementally for big batches."""
        codes = self.answer_codes.long()  # (K, L)
        placed = ((state.excluded[:, None, :] >> codes[None]) & 1 == 0).all(-1)  # (N, K)
        counts = torch.zeros((codes.shape[0], ALPHABET), dtype=torch.uint8, device=self.device)
        counts.scatter_add_(1, codes, torch.ones_like(codes, dtype=torch.uint8))
        low, high = state.min_count[:, None], state.max_count[:, None]  # (N, 1, 26)
        return placed & ((counts >= low) & (counts <= high)).all(-1)

    def hard_valid(self, state: GameState, codes: torch.Tensor) -> torch.Tensor:
        """Whether each game's guess (letter codes (N, L)) obeys hard mode: (N,) bool (see
        :func:`hard_breaches`)."""
        moved, short = hard_breaches(state.green, state.min_count, codes)
        return ~(moved.any(-1) | (short > 0).any(-1))

    def _learn(
        self,
        state: GameState,
        actions: torch.Tensor,
        codes: torch.Tensor,
        tiles: torch.Tensor,
        scored: torch.Tensor,
    ) -> None:
        """Fold one guess's feedback into the knowledge of the ``scored`` games, then
        :meth:`_deduce`.

        One scatter counts, per letter, the guess's shown copies (green or yellow: slots 0..25)
        and grey copies (26..51) in the scored games (the others count into slot 52, never read),
        then the known greens (53..78; 79 is NO_LETTER's)."""
        n, keep = codes.shape[0], scored[:, None]
        state.green = torch.where(keep & (tiles == GREEN), codes, state.green)
        # A letter is not where it was yellow or grey (nor, for now, where green: _deduce rewrites
        # those).
        state.excluded = state.excluded | self._allowed_bits[actions] * keep
        slots = (self._allowed_slots[actions] + (tiles == GREY) * ALPHABET).masked_fill_(
            ~keep, _UNREAD
        )
        green = state.green.long()
        counts = torch.zeros((n, _GREENS_AT + ALPHABET + 1), dtype=torch.uint8, device=codes.device)
        ones = self._ones.expand(n, -1)
        counts.scatter_add_(1, slots, ones).scatter_add_(1, green + _GREENS_AT, ones)
        shown, greys = counts[:, :ALPHABET], counts[:, ALPHABET : 2 * ALPHABET]
        greens_of = counts[:, _GREENS_AT : _GREENS_AT + ALPHABET]
        # The answer holds at least the copies shown; a grey copy means exactly those.
        low = torch.maximum(state.min_count, shown)
        high = torch.where(greys > 0, torch.minimum(state.max_count, shown), state.max_count)
        self._deduce(state, low, high, green, greens_of)

    def _deduce(
        self,
        state: GameState,
        low: torch.Tensor,
        high: torch.Tensor,
        green: torch.Tensor,
        greens_of: torch.Tensor,
    ) -> None:
        """Sound deductions that make equal knowledge encode equally (idempotent), storing the
        count bounds ``low``/``high`` (N, 26) uint8 with them (``green``: ``state.green`` as int64,
        ``greens_of``: each letter's known greens):

        1. a letter appears at least as often as its known greens;
        2. a letter appears at most ``L`` minus the other letters' minimum counts;
        3. a green position excludes every other letter;
        4. a letter whose greens reach its maximum count is excluded everywhere else.
        """
        state.min_count = low = torch.maximum(low, greens_of)
        slack = self.length - low.sum(1, keepdim=True, dtype=torch.int16)
        state.max_count = high = torch.minimum(high, (low + slack).to(torch.uint8))
        # (N, 1)
        dead_bits = ((greens_of >= high) * self.letter_bits).sum(1, keepdim=True, dtype=torch.int32)
        has_green = state.green != NO_LETTER
        state.excluded = torch.where(
            has_green, self._green_exclusions[green], state.excluded | dead_bits
        )

    # ----------------------------------------------------------------------------- masks
    def action_mask(self, state: GameState) -> torch.Tensor:
        """Allowed actions of every game under the configured mask mode: (N, num_allowed) bool.

        In mode "all" this is one fresh row expanded over the games (no memory per game): writing to
        it cannot change the env, but its rows share memory; ``clone()`` it before editing one
        game's.
        """
        n = state.num_games
        if self.mask_mode == "all":
            return torch.ones((1, self.num_allowed), dtype=torch.bool, device=self.device).expand(
                n, -1
            )
        if self.mask_mode == "candidates":
            return self._candidates_mask(state)
        return self.hard_mask(state)

    def _candidates_mask(self, state: GameState) -> torch.Tensor:
        """Mode "candidates": the answers still possible, as actions (N, num_allowed) bool."""
        assert state.candidates is not None
        mask = torch.zeros(
            (state.num_games, self.num_allowed), dtype=torch.bool, device=self.device
        )
        return mask.index_copy_(1, self.answer_actions, state.candidates)

    def packed_action_mask(self, state: GameState) -> torch.Tensor:
        """:meth:`action_mask` packed 8 actions to a byte (:func:`pack_bits`): (N, ceil(num_allowed
        / 8)) uint8, an eighth of the memory (no bool mask is made where it can be helped). Mode
        "all": one row expanded."""
        n = state.num_games
        if self.mask_mode == "all":
            return pack_bits(
                torch.ones((1, self.num_allowed), dtype=torch.bool, device=self.device)
            ).expand(n, -1)
        width = -(-self.num_allowed // 8)
        # the AND of packed word sets is the packed mask, in memory order
        if self.mask_mode == "hard":
            return self._hard_words(state).view(torch.uint8)[:, :width].contiguous()
        assert state.candidates is not None
        # rows padded: no copy
        mask = torch.zeros((n, 8 * width), dtype=torch.bool, device=self.device)
        return pack_bits(mask.index_copy_(1, self.answer_actions, state.candidates))

    # Hard-mode masks are ANDs of precomputed word sets, packed 64 words to an int64:
    # row i*26 + c = words with letter c at position i; row 26L + (k-1)*26 + c = words with
    # at least k copies of c; the last row = every word (no requirement).
    @property
    def requirement_sets(self) -> torch.Tensor:
        if self._requirement_sets is None:
            self._requirement_sets = self._build_requirement_sets().to(self.device)
        return self._requirement_sets

    def _build_requirement_sets(self) -> torch.Tensor:
        codes, length = self.vocabulary.allowed_codes.long(), self.length
        at = torch.nn.functional.one_hot(codes, ALPHABET).bool()  # (A, L, 26)
        counts = at.sum(1)  # (A, 26)
        at_least = counts[:, None, :] >= torch.arange(1, length + 1)[None, :, None]  # (A, L, 26)
        rows = torch.cat(
            [at.reshape(-1, length * ALPHABET), at_least.reshape(-1, length * ALPHABET)], dim=1
        ).T
        rows = torch.cat([rows, torch.ones_like(rows[:1])])  # (R, A)
        width = -(-self.num_allowed // 64) * 64
        bits = torch.zeros((rows.shape[0], width), dtype=torch.bool)
        bits[:, : self.num_allowed] = rows
        return pack_bits(bits).view(torch.int64)  # (R, width / 64)

    def hard_mask(self, state: GameState) -> torch.Tensor:
        """Which allowed words obey hard mode in each game: (N, num_allowed) bool."""
        return self.unpack_bits(self._hard_words(state))[:, : self.num_allowed]

    def _hard_words(self, state: GameState) -> torch.Tensor:
        """Each game's hard-mode mask as packed words (torch's path): the AND of its requirement
        sets' rows, (N, ceil(num_allowed / 64)) int64, word ``w`` bit ``i`` for action ``64 w + i``;
        spare bits are 0."""
        sets, rows = self.requirement_sets, self._hard_rows(state)
        packed = sets[rows[:, 0]]
        for k in range(1, rows.shape[1]):
            packed &= sets[rows[:, k]]
        return packed

    def _hard_rows(self, state: GameState) -> torch.Tensor:
        """The rows of :attr:`requirement_sets` whose AND is each game's hard-mode mask: (N, 2L)
        int64."""
        length, none = self.length, self.requirement_sets.shape[0] - 1
        letters = torch.arange(length, device=self.device) * ALPHABET
        green_rows = torch.where(state.green != NO_LETTER, letters + state.green, none)  # (N, L)
        # At most L letters have a positive minimum count (they sum to <= L): only those matter.
        need, which = state.min_count.to(torch.int16).topk(min(length, ALPHABET), dim=1)
        count_rows = torch.where(
            need > 0, length * ALPHABET + (need.long() - 1) * ALPHABET + which, none
        )
        return torch.cat([green_rows, count_rows], dim=1)

    def unpack_bits(self, packed: torch.Tensor) -> torch.Tensor:
        """The bits of packed integers, least significant first: ``(N, k)`` -> ``(N, 8 k itemsize)``
        bool.

        Through a table of each byte's 8 bools as one int64 (a 1-D index_select: 3-4x faster on the
        CPU than comparing with each bit); bytes are read in memory order, which is little-endian on
        every device torch runs on."""
        bits = self._byte_bits.index_select(
            0, packed.contiguous().view(torch.uint8).reshape(-1).long()
        )
        return bits.view(torch.bool).view(packed.shape[0], -1)


def pack_bits(mask: torch.Tensor) -> torch.Tensor:
    """Bools packed 8 to a byte: (..., A) -> (..., ceil(A / 8)) uint8, ``mask[..., 8 j + i]`` at bit
    ``i`` of byte ``j`` (numpy's ``packbits(..., bitorder="little")``); the last byte's spare bits
    are 0."""
    spare = -mask.shape[-1] % 8
    if spare:
        mask = torch.cat([mask, mask.new_zeros((*mask.shape[:-1], spare))], dim=-1)
    shifts = torch.arange(8, dtype=torch.uint8, device=mask.device)
    # a bool's byte is 0 or 1: no copy
    bits = mask.reshape(*mask.shape[:-1], -1, 8).view(torch.uint8) << shifts
    return bits.sum(-1, dtype=torch.uint8)


def unpack_mask(packed: Any, num_actions: int) -> Any:
    """A mask of ``mask_dtype="packed"`` back to bools: (..., ceil(num_actions / 8)) uint8 -> (...,
    num_actions) bool, a torch tensor (on its device) or a numpy array, as given.

    >>> unpack_mask(np.array([5, 1], dtype=np.uint8), 9).nonzero()[0].tolist()
    [0, 2, 8]
    """
    width = packed.shape[-1] if hasattr(packed, "shape") and len(packed.shape) else None
    if (
        width is None
        or packed.dtype not in (np.uint8, torch.uint8)
        or not 0 <= num_actions <= 8 * width
    ):
        kind = (
            f"{packed.dtype} {tuple(packed.shape)}"
            if hasattr(packed, "dtype")
            else type(packed).__name__
        )
        raise ValueError(
            f"expected a packed mask (uint8, at least {-(-num_actions // 8)} bytes a "
            f"row); got {kind}"
        )
    if isinstance(packed, np.ndarray):
        return np.unpackbits(packed, axis=-1, count=num_actions, bitorder="little").astype(bool)
    shifts = torch.arange(8, dtype=torch.uint8, device=packed.device)
    return ((packed[..., None] >> shifts) & 1).flatten(-2)[..., :num_actions].bool()


def random_actions(
    mask: torch.Tensor, generator: torch.Generator | None = None, tries: int = 32
) -> torch.Tensor:
    """One allowed action per game, uniformly at random: ``mask`` is (num_envs, num_actions), bool
    or 0/1 (``info["action_mask"]``); int64 (num_envs,) on its device. The same distribution as
    ``torch.multinomial(mask.float(), 1)``, drawn by rejection (``tries`` rounds of one random word
    per game, each kept where it is allowed), then for the games left (whose allowed words are
    few) the k-th allowed word of the row, k uniform; a few gathers and a pass over those rows only,
    where ``multinomial`` passed over every word of every game (100x a step of 4096 real games). A
    game with no allowed action is a ValueError."""
    if mask.ndim != 2 or mask.shape[1] == 0:
        raise ValueError(f"expected a (num_envs, num_actions) mask; got shape {tuple(mask.shape)}")
    games, actions = mask.shape
    device = mask.device
    rows = torch.arange(games, device=device)
    drawn = torch.randint(actions, (games,), device=device, generator=generator)
    found = mask[rows, drawn].bool()
    for _ in range(tries):  # nothing read back in the loop: a GPU keeps going
        again = torch.randint(actions, (games,), device=device, generator=generator)
        drawn = torch.where(found, drawn, again)
        found = found | mask[rows, drawn].bool()
    left = (~found).nonzero().squeeze(1)
    if not left.numel():
        return drawn
    u = torch.rand(len(left), device=device, generator=generator, dtype=torch.float64)
    if device.type == "cpu" and _kernels.available():  # two passes over those rows, compiled
        picked = torch.empty(len(left), dtype=torch.int64)
        flags = mask.contiguous().to(torch.bool).numpy()
        cost = len(left) * actions
        _kernels.run(
            _kernels.kth_allowed, len(left), cost, flags, left.numpy(), u.numpy(), picked.numpy()
        )
    else:
        allowed = mask[left].to(torch.int32).cumsum(1)  # the running count of allowed words
        counts = allowed[:, -1]
        k = torch.minimum((u * counts).long(), counts - 1) + 1  # the k-th allowed word, from 1
        picked = torch.searchsorted(allowed, k.to(torch.int32)[:, None]).squeeze(1)
        picked = torch.where(counts > 0, picked, -1)
    if bool((picked < 0).any()):
        raise ValueError("a game has no allowed action in the mask")
    drawn[left] = picked
    return drawn
