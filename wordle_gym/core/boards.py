"""Multi-board Wordle (Dordle to Duotrigordle) on the batched engine: K boards share every guess.

A game of ``K`` boards is ``K`` rows of :class:`~wordle_gym.core.game.Game`'s batch (board ``k`` of
game ``n`` is row ``n * K + k``), so every board is played by the single-board rules themselves, not
a copy:

* each board has its own answer, the ``K`` answers of a game distinct;
* a guess is played on every board not yet solved; a board is solved when its answer is guessed, and
  from then on gets no feedback (its row is inactive: its history and knowledge stop where it was
  solved);
* the game is won when every board is solved, and lost when ``max_guesses`` (``K + 5`` by default)
  guesses are spent with a board unsolved;
* there is no hard mode: one guess would have to keep every board's greens in place, and two boards
  with different greens at one position leave no legal guess at all (the popular games have none
  either).

The reward is the config's :class:`~wordle_gym.core.rewards.RewardScheme` applied to the game as a
whole:
``step`` per guess, ``win[k - 1]`` for finishing on guess ``k``, ``loss`` when the limit is spent;
tile terms count the tiles of every board the guess was played on. The default (-1 a guess, -5 more
for a loss) returns minus the guesses of a won game.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import NamedTuple

import torch

from wordle_gym.core.config import WordleConfig
from wordle_gym.core.engines import make_game
from wordle_gym.core.game import GameState, pack_bits, write_turn
from wordle_gym.core.rewards import TILES, Outcome, batch_reward
from wordle_gym.core.rules import GREEN, YELLOW


@dataclass
class MultiState:
    """A batch of multi-board games: the boards as rows of one :class:`GameState`, and each game's
    own turn, guesses and result."""

    boards: GameState  # (N K) rows: board k of game n is row n * K + k
    turn: torch.Tensor  # (N,) int64: guesses made so far
    guesses: torch.Tensor  # (N, T) int64: the action of each turn, -1 before it is played
    won: torch.Tensor  # (N,) bool: every board solved
    done: torch.Tensor  # (N,) bool: won or out of guesses

    @property
    def num_games(self) -> int:
        """Games in the batch."""
        return self.turn.shape[0]

    @property
    def num_boards(self) -> int:
        """Boards per game."""
        return self.boards.num_games // self.num_games

    @property
    def solved(self) -> torch.Tensor:
        """(N, K) bool: which boards are solved."""
        return self.boards.won.view(self.num_games, -1)

    @property
    def answers(self) -> torch.Tensor:
        """(N, K) int64: each board's answer (an index into the answer list)."""
        return self.boards.answers.view(self.num_games, -1)

    def clone(self) -> MultiState:
        """A deep copy."""
        return MultiState(
            boards=self.boards.clone(),
            **{f.name: getattr(self, f.name).clone() for f in fields(self)[1:]},
        )


class MultiOutcome(NamedTuple):
    """What one batched multi-board step produced."""

    # (N, K, L) uint8: feedback on each board; NO_TILE where a board was not played
    tiles: torch.Tensor
    reward: torch.Tensor  # (N,) float32: 0 where inactive
    terminated: torch.Tensor  # (N,) bool: the game ended on this step
    won: torch.Tensor  # (N,) bool: the game was won on this step (its last board solved)
    invalid: torch.Tensor  # (N,) bool: always False (no hard mode), kept for the envs' common info
    solved: torch.Tensor  # (N, K) bool: the boards solved after this step


class MultiGame:
    """The rules of a multi-board :class:`WordleConfig` (``boards >= 1``) on one device, on batches
    of games."""

    def __init__(self, config: WordleConfig, device: torch.device) -> None:
        if config.hard_mode:
            raise ValueError("multi-board games have no hard mode (see wordle_gym.core.boards)")
        self.config = config
        self.device = device
        self.num_boards = config.boards
        self.game = make_game(config, device)  # the rules of every board
        self.vocabulary = config.vocabulary
        self.length = self.game.length
        self.max_guesses = config.max_guesses
        self.num_allowed = self.game.num_allowed
        self.num_answers = self.game.num_answers
        self.reward = config.reward_fn
        self.mask_mode = config.mask_mode
        self.allowed_codes = self.game.allowed_codes
        self.answer_actions = self.game.answer_actions  # (num_answers,) the action of each answer

    def new_state(self, num_games: int) -> MultiState:
        """Fresh games (board ``k`` answering answer ``k`` until :meth:`reset` picks answers)."""
        n, dev = num_games, self.device
        state = MultiState(
            boards=self.game.new_state(n * self.num_boards),
            turn=torch.zeros(n, dtype=torch.int64, device=dev),
            guesses=torch.full((n, self.max_guesses), -1, dtype=torch.int64, device=dev),
            won=torch.zeros(n, dtype=torch.bool, device=dev),
            done=torch.zeros(n, dtype=torch.bool, device=dev),
        )
        state.boards.answers.copy_(torch.arange(self.num_boards, device=dev).repeat(n))
        return state

    def reset(self, state: MultiState, mask: torch.Tensor | None, answers: torch.Tensor) -> None:
        """Start new games in place: rows where ``mask`` (N,) bool is True (all if None) get the
        answers ``answers`` (N, K) int64 and blank boards."""
        rows = None if mask is None else mask.repeat_interleave(self.num_boards)
        self.game.reset(state.boards, rows, answers.reshape(-1))
        if mask is None:
            mask = torch.ones_like(state.done)
        state.turn.masked_fill_(mask, 0)
        state.guesses.masked_fill_(mask[:, None], -1)
        state.won.masked_fill_(mask, False)
        state.done.masked_fill_(mask, False)

    def check_actions(self, actions: torch.Tensor) -> None:
        """Raise a clear error for actions outside ``0 .. num_allowed - 1``."""
        self.game.check_actions(actions)

    def step(self, state: MultiState, actions: torch.Tensor, active: torch.Tensor) -> MultiOutcome:
        """Play ``actions`` (N,) int64 on the unsolved boards of the games where ``active`` (N,)
        bool."""
        n, k = state.num_games, self.num_boards
        row_actions = actions.repeat_interleave(k)
        playing = active.repeat_interleave(k) & ~state.boards.done
        repeats = None
        # greens re-entered where they were known, before the guess teaches them
        if TILES in self.reward.needs:
            known = state.boards.green == self.allowed_codes[row_actions]
        outcome = self.game.step(state.boards, row_actions, playing)
        tiles = outcome.tiles.view(n, k, self.length)
        solved = state.solved
        state.guesses = write_turn(state.guesses, state.turn, active, actions)
        state.turn = state.turn + active
        won = active & solved.all(1)
        lost = active & ~won & (state.turn >= self.max_guesses)
        state.won |= won
        state.done |= won | lost
        greens = yellows = None
        if TILES in self.reward.needs:
            green = tiles == GREEN
            greens, yellows = green.sum((1, 2)), (tiles == YELLOW).sum((1, 2))
            repeats = (green & known.view(n, k, self.length)).sum((1, 2))
        invalid = torch.zeros_like(active)
        reward = batch_reward(
            self.reward,
            Outcome(state.turn, won, lost, greens, yellows, repeats, invalid, active),
            state.num_games,
        )
        return MultiOutcome(tiles, reward, won | lost, won, invalid, solved.clone())

    def action_mask(self, state: MultiState) -> torch.Tensor:
        """Allowed actions of every game: (N, num_allowed) bool. Mode "all": every word (one row
        expanded over the games, as :meth:`Game.action_mask`); "candidates": the answers still
        possible on a board not yet solved (on every board once all are solved)."""
        n = state.num_games
        if self.mask_mode == "all":
            return torch.ones((1, self.num_allowed), dtype=torch.bool, device=self.device).expand(
                n, -1
            )
        candidates = state.boards.candidates
        assert candidates is not None
        solved = state.solved
        open_boards = ~solved | solved.all(1, keepdim=True)
        # (N, num_answers)
        possible = (candidates.view(n, self.num_boards, -1) & open_boards[:, :, None]).any(1)
        mask = torch.zeros((n, self.num_allowed), dtype=torch.bool, device=self.device)
        return mask.index_copy_(1, self.game.answer_actions, possible)

    def packed_action_mask(self, state: MultiState) -> torch.Tensor:
        """:meth:`action_mask` packed 8 actions to a byte
        (:func:`~wordle_gym.core.game.pack_bits`)."""
        if self.mask_mode == "all":  # one row expanded over the games, as the bool mask
            return pack_bits(self.action_mask(state)[:1]).expand(state.num_games, -1)
        return pack_bits(self.action_mask(state))

    def consistent(self, state: MultiState) -> torch.Tensor:
        """Answers consistent with each board's feedback: (N, K, num_answers) bool (for a few
        games)."""
        return self.game.consistent(state.boards).view(state.num_games, self.num_boards, -1)


def distinct_answers(
    num_games: int,
    num_boards: int,
    num_answers: int,
    generator: torch.Generator,
    device: torch.device,
) -> torch.Tensor:
    """Uniformly random answers for ``num_games`` games of ``num_boards`` boards, distinct within
    each game:
    (N, K) int64, drawn without a host synchronisation (each draw skips the answers already
    taken)."""
    picks = torch.empty((num_games, num_boards), dtype=torch.int64, device=device)
    for k in range(num_boards):
        draw = torch.randint(num_answers - k, (num_games,), generator=generator, device=device)
        if k:  # the draw-th answer not yet taken: step past each taken answer <= it, smallest first
            for taken in picks[:, :k].sort(dim=1).values.unbind(1):
                draw = draw + (draw >= taken)
        picks[:, k] = draw
    return picks
