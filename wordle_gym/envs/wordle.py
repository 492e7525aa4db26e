"""WordleEnv: the single-game Gymnasium environment (numpy at its edge)."""

from __future__ import annotations

import operator
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces

from wordle_gym.core.config import WordleConfig
from wordle_gym.core.game import NO_TILE, GameState
from wordle_gym.core.rewards import with_presets
from wordle_gym.envs.base import WordleBase, reset_answer
from wordle_gym.envs.render import RENDER_MODES, game_rows, render_ansi, render_rgb
from wordle_gym.envs.scalar import ScalarGame


class WordleEnv(WordleBase, gym.Env[np.ndarray, np.int64]):
    """Wordle: find the hidden word in at most ``max_guesses`` guesses.

    ## Description

    Each guess is scored tile by tile: green (right letter, right place), yellow (the letter is
    elsewhere in the answer), grey. Repeated letters follow the real game: greens are taken first,
    then the remaining copies of a guess letter are yellow, left to right, while the answer still
    has unmatched copies, and grey after that (guess SPEED against ABIDE gives grey grey yellow grey
    yellow). The rules live in :mod:`wordle_gym.core.rules` and :mod:`wordle_gym.core.game` (the
    batched engine of ``gym.make_vec``); this env plays one game with their plain-Python copy,
    :mod:`wordle_gym.envs.scalar`, which the tests hold to them step by step.

    ## Action Space

    ``Discrete(len(allowed))``: action ``i`` guesses ``env.unwrapped.words[i]`` (12972 words by
    default, in sorted order); ``env.unwrapped.vocabulary.action("crane")`` maps back.

    ## Observation Space

    ``observation="knowledge"`` (default): a flat ``Box`` of ``52 L + 52 + T + 1`` int8 values
    (319 for 5 letters and 6 guesses) that holds everything the feedback has revealed,
    losslessly, with ``L`` = word length and ``T`` = ``max_guesses``:

    - ``[0, 26L)``: ``green[i*26 + c]`` = 1 if position ``i`` is known to be letter ``c``;
    - ``[26L, 52L)``: ``excluded[i*26 + c]`` = 1 if letter ``c`` is known not to be at ``i``
      (a green position excludes all other letters; a letter whose greens reach its
      maximum count is excluded elsewhere);
    - ``[52L, 52L+26)``: the answer holds at least this many of letter ``c`` (0..L);
    - ``[52L+26, 52L+52)``: ... and at most this many (0..L);
    - ``[52L+52, 52L+52+T+1)``: one-hot of the number of guesses made so far (0..T).

    ``observation="board"``: ``Box`` of shape ``(2, T, L)``: the letters of each guess (0..25,
    26 for a row not yet played or refused) and their tiles (0 grey, 1 yellow, 2 green, 3 for
    such rows). ``obs_dtype="float32"`` gives float observations instead of int8.

    ## Rewards

    ``reward=`` a preset of :data:`~wordle_gym.core.rewards.PRESETS`: <the presets>. Or any
    :class:`~wordle_gym.core.rewards.RewardScheme`.

    ## Starting State

    A uniformly random answer from ``answers``, or ``reset(options={"answer": "cigar"})`` (a word
    or an index into ``answers``). Nothing is known.

    ## Episode End

    Terminated on a correct guess or after ``max_guesses`` guesses (a loss; the game's own end,
    so never truncated). Stepping a finished episode raises ``RuntimeError``.

    ## Action masks

    ``info["action_mask"]`` (int8, 1 = allowed; bool with ``mask_dtype="bool"``; with ``"packed"``,
    uint8, 8 actions to a byte, ``wordle_gym.unpack_mask`` unpacks it) on reset and every step, and
    ``env.action_masks()`` (bool, the sb3-contrib convention). ``action_mask="all"``: every word;
    ``"hard"`` (default in hard mode): words that keep revealed greens in place and reuse revealed
    letters; ``"candidates"``: answers still consistent with all feedback.

    ## Hard mode

    ``hard_mode=True``: a guess that moves a revealed green or drops a revealed letter (fewer
    copies than known) is refused as in the game: no tiles, nothing learned, but the turn is
    spent (so every episode still ends) and the reward adds the scheme's ``invalid`` penalty;
    ``info["invalid"]`` is True. Masked agents never make such guesses.

    ## Info

    The same keys after reset and every step, numbers and arrays only (so vector wrappers and
    TorchRL can batch them): ``action_mask`` (int8, 1 = allowed: Gymnasium's convention, usable as
    ``action_space.sample(mask)``; ``action_masks()`` gives it as bool, sb3-contrib's), ``turn``
    (int64: guesses made), ``tiles`` (uint8 tiles of the guess just made, 0/1/2; all 3 after a reset
    or a refused guess), ``invalid`` (bool: a refused hard-mode guess), ``won`` and ``is_success``
    (bool: the game was just won; SB3 logs ``is_success``). The vector env has the same keys, with
    a leading batch dimension, and the same dtypes. The guessed word is
    ``env.unwrapped.words[action]``; the answer is ``env.unwrapped.answer``.

    ## Arguments

    ``answers`` and ``allowed`` (list names "answers", "answers_nyt"/"nyt", "allowed", or your own
    words of any length 2..10; ``allowed=None`` means the answers), ``max_guesses=6``,
    ``hard_mode=False``, ``reward``, ``observation``, ``action_mask``, ``obs_dtype``,
    ``mask_dtype``, ``render_mode`` in ("ansi", "human", "rgb_array").

    ## Vectorized environment

    ``gym.make_vec("Wordle-v0", num_envs=N, device="cuda")`` returns a
    :class:`wordle_gym.envs.vector.WordleVectorEnv`: the same rules, observations, masks and
    rewards as torch tensors on a device, for millions of games at once.

    ## Version History

    * v1 (recommended): ``obs_dtype="float32"`` and ``mask_dtype="native"``: float observations,
      which the default networks of SB3, RLlib, TorchRL and a CleanRL script take unchanged, and a
      bool ``info["action_mask"]`` in the torch vector env (int8 here, as Gymnasium samples). The
      same game.
    * v0: the first release, int8 observations and int8 info masks (a quarter of the memory in huge
      batches); ``gym.make`` says that v1 exists.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self, config: WordleConfig | None = None, *, render_mode: str | None = None, **options: Any
    ) -> None:
        """``config``, or its fields as keywords (``answers=..., hard_mode=True``); see ##
        Arguments."""
        self._build(config, options, torch.device("cpu"), render_mode)
        self.observation_space = self.observation.space
        self.action_space = spaces.Discrete(self.vocabulary.num_allowed)
        # One game in plain Python (wordle_gym.envs.scalar), held to self.game by the tests.
        self._scalar = ScalarGame(self.game, self.config.observation)
        self._obs_dtype = self.observation_space.dtype.type
        self._blank = np.full(self.game.length, NO_TILE, dtype=np.uint8)
        self._num_allowed = self.vocabulary.num_allowed
        self._mask_shape = (self._num_allowed,)
        self._every_action = self.config.mask_mode == "all"
        # "native" is int8 here (Gymnasium samples)
        self._bool_info_mask = self.config.mask_dtype == "bool"
        self._packed_mask = self.config.mask_dtype == "packed"
        self._needs_reset = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game; ``options={"answer": word_or_index}`` fixes the answer."""
        super().reset(seed=seed)
        self._scalar.new(
            reset_answer(options, self.vocabulary, self.np_random, self.config.answer_pool)
        )
        self._needs_reset = False
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(self._blank.copy(), invalid=False, won=False)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Guess word ``action`` (an index into :attr:`words`)."""
        if self._needs_reset:
            raise RuntimeError("the episode is over (or never started): call reset() before step()")
        if type(action) is not int or not 0 <= action < self._num_allowed:
            action = self._check_action(action)
        tiles, reward, terminated, won = self._scalar.step(action)
        row = (
            self._blank.copy() if tiles is None else np.frombuffer(bytearray(tiles), dtype=np.uint8)
        )
        info = self._info(row, invalid=tiles is None, won=won)
        self._needs_reset = terminated
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, False, info

    def _info(self, tiles: np.ndarray, invalid: bool, won: bool) -> dict[str, Any]:
        """The same keys after reset and every step; numbers and arrays only (no strings)."""
        if self._packed_mask:
            mask = np.packbits(self.action_masks(), bitorder="little")
        elif self._bool_info_mask:
            mask = (
                self._all_allowed_mask(bool) if self._every_action else self._scalar.mask().copy()
            )
        else:
            mask = (
                self._all_allowed_mask(np.int8)
                if self._every_action
                else self._scalar.mask().astype(np.int8)
            )
        array = np.array  # 0-d arrays: Gymnasium's SyncVectorEnv and TorchRL batch them by dtype
        return {
            "action_mask": mask,
            "turn": array(self._scalar.turn, np.int64),
            "tiles": tiles,
            "invalid": array(invalid),
            "won": array(won),
            "is_success": array(won),
        }

    def action_masks(self) -> np.ndarray:
        """Which actions are allowed now: bool ``(num_allowed,)`` (sb3-contrib convention).

        In mask mode "all", as ``info["action_mask"]``, a read-only view of a single fresh 1 (no
        ``num_allowed`` bytes written per step; ``np.array(mask)`` gives an editable copy)."""
        mask = self._scalar.mask()
        return self._all_allowed_mask(bool) if mask is None else mask.copy()

    def _all_allowed_mask(self, dtype: type) -> np.ndarray:
        """Every action allowed: a fresh, read-only, stride-0 view of one element."""
        mask = np.ndarray(self._mask_shape, dtype, bytearray(b"\x01"), 0, (0,))
        mask.flags.writeable = False
        return mask

    @property
    def state(self) -> GameState:
        """The game as a one-row :class:`~wordle_gym.core.game.GameState` (a snapshot: to change the
        game, edit it and assign it back, ``env.state = state``)."""
        return self._scalar.state()

    @state.setter
    def state(self, state: GameState) -> None:
        if state.num_games != 1:
            raise ValueError(f"a WordleEnv holds one game; got a state of {state.num_games}")
        encoded = self.observation(state)[0] if self._scalar.encoding is not None else None
        self._scalar.load(state, encoded)
        self._needs_reset = bool(state.done[0])

    @property
    def answer(self) -> str:
        """The current answer (for rendering, tests and debugging; an agent should not peek)."""
        return self.vocabulary.answers[self._scalar.answer]

    def render(self) -> str | np.ndarray | None:
        """Render per ``render_mode``: ``ansi`` returns text, ``rgb_array`` an image, ``human``
        prints."""
        if self.render_mode is None:
            gym.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', "
                "'human' or 'rgb_array'"
            )
            return None
        rows = game_rows(self.game, self.state, 0)
        if self.render_mode == "rgb_array":
            return render_rgb(rows, self.game.length)
        text = render_ansi(rows, self.game.length)
        if self.render_mode == "human":
            print(text, flush=True)
            return None
        return text

    def _observation(self) -> np.ndarray:
        if self._scalar.encoding is None:  # an encoding the one-game engine does not know
            return self.observation(self.state)[0].numpy()
        return self._scalar.observation(self._obs_dtype)

    def _check_action(self, action: Any) -> int:
        return as_action(action, self.vocabulary.num_allowed)


def as_action(action: Any, num_allowed: int) -> int:
    """``action`` as a word index ``0 <= index < num_allowed``, or a one-line TypeError or
    ValueError."""
    if isinstance(action, np.ndarray | torch.Tensor) and action.ndim == 0:
        action = action.item()
    if isinstance(action, bool | np.bool_ | float | np.floating):
        raise TypeError(f"action must be an integer word index; got {action!r}")
    try:
        index = operator.index(action)
    except TypeError:
        raise TypeError(
            f"action must be an integer word index; got {type(action).__name__} {action!r}"
        ) from None
    if not 0 <= index < num_allowed:
        raise ValueError(
            f"action {index} is out of range; expected 0 <= action < {num_allowed} (an index into "
            "env.unwrapped.words)"
        )
    return index


WordleEnv.__doc__ = with_presets(WordleEnv.__doc__, skip=("regret",))  # the text env's alone
