"""Batched game state and the rules engine that steps it.

:class:`GameState` is plain data: a few tensors, one row per game. :class:`Game` holds the
constant tensors of one configuration on one device and moves states forward. The single
env is this engine with one row; the vector env is this engine with ``num_envs`` rows. So
the two cannot drift apart.

What the player knows is kept as a compact, lossless summary of every constraint the
feedback so far implies (it is exactly as strong as the full history):

* ``green[n, i]``: the letter known to be at position ``i`` (26 if none);
* ``excluded[n, i]``: a 26-bit mask of letters known *not* to be at position ``i``;
* ``min_count[n, c]`` / ``max_count[n, c]``: bounds on how many ``c`` the answer holds.

After each guess a few sound deductions tighten it (:meth:`Game._deduce`), so equal
knowledge always has an equal encoding.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import NamedTuple

import torch

from wordle_gym.config import WordleConfig
from wordle_gym.rules import ALPHABET, GREEN, GREY, YELLOW, feedback, pattern_ids, pattern_table

NO_LETTER = ALPHABET  # 26: "no letter known here" / "empty board cell"
NO_TILE = 3  # board cell of a turn not played or refused
ALL_LETTERS = (1 << ALPHABET) - 1


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
    candidates: torch.Tensor | None  # (N, num_answers) bool: answers consistent with all feedback; kept
    #                                   only in mask mode "candidates", else None

    @property
    def num_games(self) -> int:
        """Rows in the batch."""
        return self.answers.shape[0]

    def clone(self) -> GameState:
        """A deep copy (for undo, or to look ahead without touching the env)."""
        return GameState(**{f.name: None if (v := getattr(self, f.name)) is None else v.clone() for f in fields(self)})


class StepOutcome(NamedTuple):
    """What one batched step produced."""

    tiles: torch.Tensor  # (N, L) uint8: feedback of this guess; NO_TILE where refused or inactive
    reward: torch.Tensor  # (N,) float32: 0 where inactive
    terminated: torch.Tensor  # (N,) bool: the game ended on this step (win or last guess)
    won: torch.Tensor  # (N,) bool: the game was won on this step
    refused: torch.Tensor  # (N,) bool: hard-mode guess refused


class Game:
    """The rules of one :class:`WordleConfig` on one device, applied to batches of games."""

    def __init__(self, config: WordleConfig, device: torch.device) -> None:
        self.config = config
        self.device = device
        vocab = config.vocabulary
        self.vocabulary = vocab
        self.length = vocab.length
        self.max_guesses = config.max_guesses
        self.num_allowed = vocab.num_allowed
        self.num_answers = vocab.num_answers
        self.reward = config.reward_scheme
        self.hard_mode = config.hard_mode
        self.mask_mode = config.mask_mode
        self.allowed_codes = vocab.allowed_codes.to(device)  # (A, L) uint8
        self.answer_codes = vocab.answer_codes.to(device)  # (K, L) uint8
        self.answer_actions = vocab.answer_actions.to(device)  # (K,) int64
        self.letter_bits = (1 << torch.arange(ALPHABET, dtype=torch.int32)).to(device)  # (26,) int32
        # The pattern table is only needed to track candidates; build (or reuse) it then.
        self.table = pattern_table(vocab, device) if self.mask_mode == "candidates" else None
        self._byte_bits = ((torch.arange(256)[:, None] >> torch.arange(8)) & 1).bool().to(device)  # (256, 8)
        self._requirement_sets: torch.Tensor | None = None  # built on first hard_mask()

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
                torch.ones((n, self.num_answers), dtype=torch.bool, device=dev) if self.table is not None else None
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
        if state.candidates is not None:
            state.candidates.masked_fill_(m1, True)

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
        """Play ``actions`` (N,) int64 in the games where ``active`` (N,) bool; others stay as they are."""
        codes = self.allowed_codes[actions]  # (N, L) uint8
        if self.hard_mode:
            refused = active & ~self.hard_valid(state, codes)
            scored = active & ~refused
        else:
            refused, scored = torch.zeros_like(active), active
        tiles = feedback(codes, self.answer_codes[state.answers])  # (N, L) uint8
        is_green = tiles == GREEN
        won = scored & is_green.all(-1)
        greens = yellows = repeats = None
        if self.reward.uses_tiles:
            counted = is_green & scored[:, None]
            greens = counted.sum(-1)
            yellows = ((tiles == YELLOW) & scored[:, None]).sum(-1)
            repeats = (counted & (state.green == codes)).sum(-1)
        row_tiles, lost = self._advance(state, actions, codes, tiles, scored, active, won)
        reward = self.reward.compute(state.turn, won, lost, greens, yellows, repeats, refused)
        return StepOutcome(row_tiles, torch.where(active, reward, 0.0), won | lost, won, refused)

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
            assert self.table is not None
            consistent = self.table[actions] == pattern_ids(tiles)[:, None]  # (N, K)
            state.candidates &= consistent | ~scored[:, None]
        self._learn(state, codes, tiles, scored)
        # Write this turn's row of the history (only its row: gather, blend, scatter back).
        row = state.turn.clamp(max=self.max_guesses - 1)[:, None]  # (N, 1)
        keep_old = ~active[:, None]
        state.guesses.scatter_(1, row, torch.where(keep_old, state.guesses.gather(1, row), actions[:, None]))
        row_tiles = torch.where(scored[:, None], tiles, NO_TILE)
        row3 = row[:, :, None].expand(-1, 1, self.length)
        old_tiles = state.tiles.gather(1, row3)
        state.tiles.scatter_(1, row3, torch.where(keep_old[:, :, None], old_tiles, row_tiles[:, None, :]))
        state.turn = state.turn + active
        lost = active & ~won & (state.turn >= self.max_guesses)
        state.won |= won
        state.done |= won | lost
        return row_tiles, lost

    def consistent(self, state: GameState) -> torch.Tensor:
        """Answers consistent with all feedback so far, from the knowledge summary: (N, num_answers) bool.

        Costs (N, num_answers, 26) work: meant for a few games (the CLI, tests); the env's
        "candidates" mask keeps the same set incrementally for big batches."""
        codes = self.answer_codes.long()  # (K, L)
        placed = ((state.excluded[:, None, :] >> codes[None]) & 1 == 0).all(-1)  # (N, K)
        counts = torch.zeros((codes.shape[0], ALPHABET), dtype=torch.uint8, device=self.device)
        counts.scatter_add_(1, codes, torch.ones_like(codes, dtype=torch.uint8))
        low, high = state.min_count[:, None], state.max_count[:, None]  # (N, 1, 26)
        return placed & ((counts >= low) & (counts <= high)).all(-1)

    def hard_valid(self, state: GameState, codes: torch.Tensor) -> torch.Tensor:
        """Whether each game's guess (letter codes (N, L)) obeys hard mode: (N,) bool."""
        in_place = ((state.green == NO_LETTER) | (codes == state.green)).all(-1)
        counts = torch.zeros((codes.shape[0], ALPHABET), dtype=torch.uint8, device=codes.device)
        counts.scatter_add_(1, codes.long(), torch.ones_like(codes))
        return in_place & (counts >= state.min_count).all(-1)

    def _learn(self, state: GameState, codes: torch.Tensor, tiles: torch.Tensor, scored: torch.Tensor) -> None:
        """Fold one guess's feedback into the knowledge of the ``scored`` games."""
        keep = scored[:, None]
        is_green = tiles == GREEN
        state.green = torch.where(keep & is_green, codes, state.green)
        bits = self.letter_bits[codes.long()]
        state.excluded |= torch.where(keep & ~is_green, bits, 0)
        index = codes.long()
        seen = torch.zeros((codes.shape[0], ALPHABET), dtype=torch.uint8, device=codes.device)
        seen.scatter_add_(1, index, (tiles != GREY).to(torch.uint8))
        greys = torch.zeros_like(seen).scatter_add_(1, index, (tiles == GREY).to(torch.uint8))
        state.min_count = torch.where(keep, torch.maximum(state.min_count, seen), state.min_count)
        capped = keep & (greys > 0)  # a grey copy means the answer holds exactly the non-grey ones
        state.max_count = torch.where(capped, torch.minimum(state.max_count, seen), state.max_count)
        self._deduce(state)

    def _deduce(self, state: GameState) -> None:
        """Sound deductions that make equal knowledge encode equally (idempotent):

        1. a letter appears at least as often as its known greens;
        2. a letter appears at most ``L`` minus the other letters' minimum counts;
        3. a green position excludes every other letter;
        4. a letter whose greens reach its maximum count is excluded everywhere else.
        """
        n = state.green.shape[0]
        greens_of = torch.zeros((n, ALPHABET + 1), dtype=torch.uint8, device=self.device)
        greens_of.scatter_add_(1, state.green.long(), torch.ones_like(state.green))
        greens_of = greens_of[:, :ALPHABET]
        state.min_count = torch.maximum(state.min_count, greens_of)
        slack = self.length - state.min_count.sum(1, keepdim=True, dtype=torch.int16)
        state.max_count = torch.minimum(state.max_count, (state.min_count + slack).to(torch.uint8))
        dead = greens_of >= state.max_count  # (N, 26)
        dead_bits = (dead * self.letter_bits).sum(1, dtype=torch.int32)  # (N,)
        has_green = state.green != NO_LETTER
        green_bits = self.letter_bits[state.green.long().clamp(max=ALPHABET - 1)]
        state.excluded = torch.where(has_green, ALL_LETTERS ^ green_bits, state.excluded | dead_bits[:, None])

    # ----------------------------------------------------------------------------- masks
    def action_mask(self, state: GameState) -> torch.Tensor:
        """Allowed actions of every game under the configured mask mode: (N, num_allowed) bool.

        In mode "all" this is one fresh row expanded over the games (no memory per game): writing to
        it cannot change the env, but its rows share memory; ``clone()`` it before editing one game's.
        """
        n = state.num_games
        if self.mask_mode == "all":
            return torch.ones((1, self.num_allowed), dtype=torch.bool, device=self.device).expand(n, -1)
        if self.mask_mode == "candidates":
            assert state.candidates is not None
            mask = torch.zeros((n, self.num_allowed), dtype=torch.bool, device=self.device)
            return mask.index_copy_(1, self.answer_actions, state.candidates)
        return self.hard_mask(state)

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
        rows = torch.cat([at.reshape(-1, length * ALPHABET), at_least.reshape(-1, length * ALPHABET)], dim=1).T
        rows = torch.cat([rows, torch.ones_like(rows[:1])])  # (R, A)
        width = -(-self.num_allowed // 64) * 64
        bits = torch.zeros((rows.shape[0], width), dtype=torch.uint8)
        bits[:, : self.num_allowed] = rows
        packed = (bits.view(rows.shape[0], -1, 8) << torch.arange(8, dtype=torch.uint8)).sum(-1, dtype=torch.uint8)
        return packed.view(torch.int64)  # (R, width / 64)

    def hard_mask(self, state: GameState) -> torch.Tensor:
        """Which allowed words obey hard mode in each game: (N, num_allowed) bool."""
        sets, length = self.requirement_sets, self.length
        none = sets.shape[0] - 1
        letters = torch.arange(length, device=self.device) * ALPHABET
        green_rows = torch.where(state.green != NO_LETTER, letters + state.green, none)  # (N, L)
        # At most L letters have a positive minimum count (they sum to <= L): only those matter.
        need, which = state.min_count.to(torch.int16).topk(min(length, ALPHABET), dim=1)
        count_rows = torch.where(need > 0, length * ALPHABET + (need.long() - 1) * ALPHABET + which, none)
        rows = torch.cat([green_rows, count_rows], dim=1)  # (N, 2L)
        packed = sets[rows[:, 0]]
        for k in range(1, rows.shape[1]):
            packed = packed & sets[rows[:, k]]
        return self.unpack_bits(packed)[:, : self.num_allowed]

    def unpack_bits(self, packed: torch.Tensor) -> torch.Tensor:
        """The bits of packed integers, least significant first: ``(N, k)`` -> ``(N, 8 k itemsize)`` bool.

        Through a byte -> 8 bools table (index_select measured fastest on CPU); bytes are read
        in memory order, which is little-endian on every device torch runs on."""
        bits = self._byte_bits.index_select(0, packed.contiguous().view(torch.uint8).reshape(-1).long())
        return bits.view(packed.shape[0], -1)
