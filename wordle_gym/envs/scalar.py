"""The one-game engine: :class:`~wordle_gym.core.game.Game`'s rules for a single game, in plain
Python.

``WordleEnv`` plays one game per call, where every batched torch op costs more in dispatch than the
work it does (a step was a few hundred small ops, 2,200 steps/s). :class:`ScalarGame` keeps the same
state as :class:`~wordle_gym.core.game.GameState` in Python lists and ints, and the observation in a
``bytearray`` that each step edits where it changed.

It is a second implementation of the rules (``Game.step``, ``_learn``, ``_deduce``, the masks, the
two observation encodings, the reward): ``tests/envs/test_scalar.py`` holds it to the batched engine
step by step over 10^5 random steps in each configuration it tests, and
:func:`~wordle_gym.core.rules.feedback_one` to :func:`~wordle_gym.core.rules.feedback` on every
repeat structure (all word pairs over a 3-letter alphabet) and on real words. When the two disagree,
the batched engine is right. An observation encoding this module does not know is computed by the
batched encoder from :meth:`ScalarGame.state` (correct, not fast).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from wordle_gym.core.game import NO_LETTER, NO_TILE, Game, GameState
from wordle_gym.core.rewards import TILES, Outcome, scalar_reward
from wordle_gym.core.rules import ALPHABET, GREEN, GREY, YELLOW, feedback_one
from wordle_gym.core.words import Vocabulary
from wordle_gym.envs.observation import KnowledgeLayout

# Sets of letters and per-letter counts are kept as "lanes": one byte per letter in a Python int
# (letter c in bits 8c..8c+7), so that int.to_bytes(26, "little") is the observation's row, and
# a comparison of all 26 counts is a few big-int operations (a guard bit per lane: values < 128).
LANE = tuple(1 << (8 * c) for c in range(ALPHABET))
ONES = sum(LANE)  # 1 in every lane: every letter
GUARDS = ONES << 7  # the top bit of every lane
FULL = ONES * 0xFF  # every bit of every lane


def _lanes_at_least(a: int, b: int) -> int:
    """1 in each lane where lane ``a`` >= lane ``b`` (lanes below 128), else 0."""
    return (((a | GUARDS) - b) & GUARDS) >> 7


def _lanes(values: bytes | bytearray) -> int:
    return int.from_bytes(values, "little")


def _bits_to_lanes(bits: int) -> int:
    return sum(LANE[c] for c in range(ALPHABET) if bits >> c & 1)


def _lanes_to_bits(lanes: int) -> int:
    return sum(1 << c for c, byte in enumerate(lanes.to_bytes(ALPHABET, "little")) if byte)


@lru_cache(maxsize=8)
def _word_codes(
    vocab: Vocabulary,
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Letter codes of the allowed words and of the answers, as tuples (shared by every env on
    ``vocab``)."""
    allowed = tuple(map(tuple, vocab.allowed_codes.tolist()))
    answers = tuple(allowed[i] for i in vocab.answer_actions.tolist())
    return allowed, answers


class ScalarGame:
    """One game of ``game``'s configuration, stepped in plain Python (see the module docstring)."""

    def __init__(self, game: Game, encoding: str, count_tiles: bool = False) -> None:
        self.game = game
        self.length, self.max_guesses = game.length, game.max_guesses
        self.allowed, self.answers = _word_codes(game.vocabulary)
        self.reward = game.reward
        self.hard_mode = game.hard_mode
        self.mask_mode = game.mask_mode
        self.encoding = encoding if encoding in ("knowledge", "board") else None
        self._knowledge, self._board = encoding == "knowledge", encoding == "board"
        # the tile counts of the outcome: for the game's reward, or another's (the text env's)
        self._needs_tiles = count_tiles or TILES in self.reward.needs
        self.last: tuple[int | bool, ...] = ()
        """The last step's :class:`Outcome` fields, turn to invalid (``Outcome(*last)``)."""
        length = self.length
        # where the "knowledge" blocks start
        blocks = KnowledgeLayout(length, self.max_guesses).slices
        self._excluded_at = blocks["excluded"].start
        self._min_at, self._max_at = blocks["min_count"].start, blocks["max_count"].start
        self._turn_at = blocks["turn"].start
        # the reward's scalar form, by the outcome's fields (a plain tuple: cheaper to build)
        self._rewards: dict[tuple[int | bool, ...], float] = {}
        if self.mask_mode == "candidates":
            assert game.table is not None
            self._table = game.table.numpy()
            self._answer_actions = game.answer_actions.numpy()
        if self.mask_mode == "hard":
            self._sets = game.requirement_sets.numpy()
        self.new(0)

    # ------------------------------------------------------------------------------ state
    def new(self, answer: int) -> None:
        """A fresh game whose answer is ``answers[answer]``."""
        length, turns = self.length, self.max_guesses
        self.answer = answer
        self.turn = 0
        self.won = self.done = False
        self.guesses = [-1] * turns
        self.tiles: list[list[int] | None] = [None] * turns  # None: a row not played or refused
        self.green = [NO_LETTER] * length
        self.excluded = [0] * length  # lanes: letters known not to be at each position
        self.min_count = bytearray(ALPHABET)
        self.max_count = bytearray([length]) * ALPHABET
        self._greens_of = bytearray(ALPHABET)  # known greens of each letter
        self._slack = length  # length minus the minimum counts' total
        self._dead = 0  # lanes: letters whose greens reach their maximum count
        self.candidates = (
            np.ones(self.game.num_answers, dtype=bool) if self.mask_mode == "candidates" else None
        )
        self._mask: np.ndarray | None = None
        if self._knowledge:
            buf = bytearray(self._turn_at + turns + 1)
            buf[self._max_at : self._turn_at] = bytes([length]) * ALPHABET
            buf[self._turn_at] = 1
            self.buffer = buf
        elif self._board:
            self.buffer = bytearray([NO_LETTER]) * (turns * length) + bytearray([NO_TILE]) * (
                turns * length
            )

    def step(self, action: int) -> tuple[list[int] | None, float, bool, bool]:
        """Guess ``allowed[action]``: (tiles, or None if refused; reward; terminated; won)."""
        codes = self.allowed[action]
        invalid = self.hard_mode and not self.hard_valid(codes)
        turn = self.turn
        self.guesses[turn] = action
        greens = yellows = repeats = 0
        if invalid:
            tiles = None
            won = False
        else:
            tiles = feedback_one(codes, self.answers[self.answer])
            greens = tiles.count(GREEN)
            won = greens == self.length
            if self._needs_tiles:
                yellows = tiles.count(YELLOW)
                repeats = sum(
                    t == GREEN and k == c for t, k, c in zip(tiles, self.green, codes, strict=True)
                )
            self.tiles[turn] = tiles
            self._learn(codes, tiles)
            if self.candidates is not None:
                pid = 0
                for t in tiles:
                    pid = pid * 3 + t
                self.candidates &= self._table[action] == pid
            if self._board:
                at = turn * self.length
                self.buffer[at : at + self.length] = bytes(codes)
                at += self.max_guesses * self.length
                self.buffer[at : at + self.length] = bytes(tiles)
        self.turn = turn = turn + 1
        lost = not won and turn >= self.max_guesses
        self.won, self.done = won, won or lost
        self._mask = None
        if self._knowledge:
            self.buffer[self._turn_at + turn - 1] = 0
            self.buffer[self._turn_at + turn] = 1
        key = (turn, won, lost, greens, yellows, repeats, invalid)
        reward = self._rewards.get(key)
        self.last = key
        if reward is None:
            reward = self._rewards[key] = scalar_reward(self.reward, Outcome(*key))
        return tiles, reward, won or lost, won

    def skip_turn(self) -> tuple[float, bool]:
        """A turn spent without a guess (the text env's refused reply): :meth:`Game.skip_turn` for
        one game, nothing revealed or recorded. Returns (reward; terminated, which is lost)."""
        self.turn = turn = self.turn + 1
        lost = turn >= self.max_guesses
        self.done = lost
        self._mask = None
        if self._knowledge:
            self.buffer[self._turn_at + turn - 1] = 0
            self.buffer[self._turn_at + turn] = 1
        key = (turn, False, lost, 0, 0, 0, True)
        reward = self._rewards.get(key)
        self.last = key
        if reward is None:
            reward = self._rewards[key] = scalar_reward(self.reward, Outcome(*key))
        return reward, lost

    def hard_valid(self, codes: tuple[int, ...]) -> bool:
        """Whether ``codes`` obeys hard mode: a copy of :func:`~wordle_gym.core.game.hard_breaches`
        for one game."""
        for known, code in zip(self.green, codes, strict=True):
            if known != NO_LETTER and known != code:
                return False
        return all(
            codes.count(letter) >= need for letter, need in enumerate(self.min_count) if need
        )

    def _learn(self, codes: tuple[int, ...], tiles: list[int]) -> None:  # noqa: C901 (the step, inline)
        """Fold one scored guess into the knowledge: ``Game._learn`` then ``Game._deduce``.

        Incremental where the batched version recomputes: a letter's greens only grow and its
        maximum only shrinks, so a letter once "used up" stays so (``_dead``), and the rule
        that bounds every maximum by the others' minimums changes nothing unless the total
        of the minimums (``_slack``) moved. The knowledge observation is edited where it changed."""
        green, excluded, greens_of = self.green, self.excluded, self._greens_of
        low, high = self.min_count, self.max_count
        buf = self.buffer if self._knowledge else None
        before = excluded[:]
        shown: dict[int, int] = {}
        capped = []
        for i, code in enumerate(codes):
            tile = tiles[i]
            if tile == GREEN:
                if green[i] == NO_LETTER:
                    green[i] = code
                    greens_of[code] += 1
                    if buf is not None:
                        buf[i * ALPHABET + code] = 1
                shown[code] = shown.get(code, 0) + 1
            else:
                excluded[i] |= LANE[code]
                if tile == GREY:
                    capped.append(code)
                    shown.setdefault(code, 0)
                else:
                    shown[code] = shown.get(code, 0) + 1
        counts_moved = False
        for code, count in shown.items():
            count = max(count, greens_of[code])  # a letter appears at least as often as its greens
            if count > low[code]:
                low[code] = count
                counts_moved = True
        for code in capped:  # a grey copy: the answer holds exactly the non-grey copies
            if shown[code] < high[code]:
                high[code] = shown[code]
                counts_moved = True
        slack = self.length - sum(low)
        dead = self._dead
        if slack != self._slack:  # at most L minus the other letters' minimums, for every letter
            caps, highs = _lanes(low) + slack * ONES, _lanes(high)
            keep = _lanes_at_least(caps, highs) * 0xFF
            capped_high = (highs & keep) | (caps & ~keep & FULL)
            if capped_high != highs:
                high[:] = capped_high.to_bytes(ALPHABET, "little")
                counts_moved = True
            # used up: excluded where not green
            dead |= _lanes_at_least(_lanes(greens_of), capped_high)
        else:  # no minimum moved: only this guess's letters can have changed
            for code in shown:
                if greens_of[code] >= high[code]:
                    dead |= LANE[code]
        self._slack, self._dead = slack, dead
        for i, code in enumerate(green):
            excluded[i] = ONES ^ LANE[code] if code != NO_LETTER else excluded[i] | dead
        if buf is None:
            return
        for i, lanes in enumerate(excluded):
            if lanes != before[i]:
                at = self._excluded_at + i * ALPHABET
                buf[at : at + ALPHABET] = lanes.to_bytes(ALPHABET, "little")
        if counts_moved:
            buf[self._min_at : self._max_at] = low
            buf[self._max_at : self._turn_at] = high

    # ------------------------------------------------------------------------------ masks
    def mask(self) -> np.ndarray | None:
        """This turn's allowed actions as bool ``(num_allowed,)`` (None in mode "all": every
        action).

        Computed once per turn and kept: callers get copies."""
        if self.mask_mode == "all":
            return None
        if self._mask is None:
            if self.mask_mode == "candidates":
                mask = np.zeros(self.game.num_allowed, dtype=bool)
                mask[self._answer_actions] = self.candidates
            else:
                mask = self._hard_mask()
            self._mask = mask
        return self._mask

    def _hard_mask(self) -> np.ndarray:
        """``Game.hard_mask`` for one game: an AND of packed word sets, unpacked."""
        length, sets = self.length, self._sets
        rows = [i * ALPHABET + code for i, code in enumerate(self.green) if code != NO_LETTER]
        base = length * ALPHABET
        rows += [
            base + (need - 1) * ALPHABET + letter
            for letter, need in enumerate(self.min_count)
            if need
        ]
        packed = np.bitwise_and.reduce(sets[rows], axis=0) if rows else sets[-1]
        bits = np.unpackbits(packed.view(np.uint8), bitorder="little")[: self.game.num_allowed]
        return bits.view(bool)

    # ------------------------------------------------------------------------------ views
    def observation(self, dtype: type) -> np.ndarray:
        """A fresh copy of the observation (the caller may keep and edit it)."""
        out = np.frombuffer(bytearray(self.buffer), dtype=np.int8)
        if dtype is not np.int8:
            out = out.astype(dtype)
        if self._board:
            return out.reshape(2, self.max_guesses, self.length)
        return out

    def state(self) -> GameState:
        """The game as a one-row :class:`GameState` on the CPU (a snapshot: edits do not come
        back)."""
        grid = [list(row) if row is not None else [NO_TILE] * self.length for row in self.tiles]
        return GameState(
            answers=torch.tensor([self.answer]),
            turn=torch.tensor([self.turn]),
            won=torch.tensor([self.won]),
            done=torch.tensor([self.done]),
            guesses=torch.tensor([self.guesses]),
            tiles=torch.tensor([grid], dtype=torch.uint8),
            green=torch.tensor([self.green], dtype=torch.uint8),
            excluded=torch.tensor(
                [[_lanes_to_bits(lanes) for lanes in self.excluded]], dtype=torch.int32
            ),
            min_count=torch.tensor([list(self.min_count)], dtype=torch.uint8),
            max_count=torch.tensor([list(self.max_count)], dtype=torch.uint8),
            candidates=None
            if self.candidates is None
            else torch.from_numpy(self.candidates.copy())[None],
        )

    def load(self, state: GameState, encoded: torch.Tensor | None) -> None:
        """Take over game 0 of ``state``; ``encoded``: its observation from the batched encoder."""
        self.answer = int(state.answers[0])
        self.turn = int(state.turn[0])
        self.won, self.done = bool(state.won[0]), bool(state.done[0])
        self.guesses = state.guesses[0].tolist()
        self.tiles = [row if row[0] != NO_TILE else None for row in state.tiles[0].tolist()]
        self.green = state.green[0].tolist()
        self.excluded = [_bits_to_lanes(bits) for bits in state.excluded[0].tolist()]
        self.min_count = bytearray(state.min_count[0].tolist())
        self.max_count = bytearray(state.max_count[0].tolist())
        self._greens_of = bytearray(self.green.count(code) for code in range(ALPHABET))
        self._slack = self.length - sum(self.min_count)
        self._dead = _lanes_at_least(_lanes(self._greens_of), _lanes(self.max_count))
        if self.mask_mode == "candidates":
            assert state.candidates is not None
            self.candidates = state.candidates[0].numpy().copy()
        self._mask = None
        if self.encoding is not None and encoded is not None:
            self.buffer = bytearray(encoded.to(torch.int8).numpy().tobytes())
