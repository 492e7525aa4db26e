"""The one configuration both envs take: a documented, validated, frozen dataclass."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any

from wordle_gym.core.rewards import TILES, RewardFn, get_reward, reward_for
from wordle_gym.core.words import (
    SPLITS,
    Vocabulary,
    WordSource,
    builtin_vocabulary,
    held_out_answers,
    split_answers,
)

if TYPE_CHECKING:
    import torch

MAX_GUESSES = 1000  # bound on the guess limit (every game keeps T rows of history)
MAX_BOARDS = 32  # Duotrigordle
BOARD_NAMES = {2: "Dordle", 4: "Quordle", 8: "Octordle", 16: "Sedecordle", 32: "Duotrigordle"}
MASK_MODES = ("all", "hard", "candidates")
OBS_DTYPES = ("int8", "float32")  # torch's dtypes of the same names
MASK_DTYPES = ("int8", "bool", "native", "packed")


def _integer(name: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int in [low, high] (numpy's integers too: np.int64(4) was refused), else
    ValueError."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}; got {value!r}")
    return value


def _one_of(name: str, value: Any, choices: tuple[str, ...], none: bool = False) -> None:
    """ValueError unless ``value`` is one of ``choices`` (or None where ``none``)."""
    if not (value is None and none) and value not in choices:
        raise ValueError(
            f"unknown {name} {value!r}; expected one of {choices}{' or None' if none else ''}"
        )


@dataclass(frozen=True)
class WordleConfig:
    """Rules and encodings of a Wordle game; ``WordleEnv(**kw)`` and ``WordleVectorEnv(**kw)`` build
    one.

    Example:
        >>> cfg = WordleConfig(answers=["cigar", "rebut"], allowed=None, max_guesses=3)
        >>> cfg.vocabulary.num_allowed, cfg.mask_mode
        (2, 'all')
    """

    answers: WordSource = "answers"
    """Possible answers: a built-in list name ("answers", "answers_nyt"/"nyt", "allowed") or
    words."""
    allowed: WordSource | None = "allowed"
    """Allowed guesses, the action space in this order: a list name, words, or None for the
    answers."""
    max_guesses: int | None = None
    """Guesses before the game is lost; None: ``boards + 5`` (6 for Wordle, 9 for Quordle, 37 for
    Duotrigordle)."""
    hard_mode: bool = False
    """Revealed greens must stay in place and revealed letters must be reused (at least their known
    counts); a guess that breaks this is refused: it reveals nothing but spends the turn."""
    reward: str | RewardFn | dict = "default"
    """A name of :data:`~wordle_gym.core.rewards.PRESETS` or of its aliases (``rewards.ABOUT`` says
    what each pays), a RewardScheme (its fields as a dict are taken too, and made a RewardScheme)
    or any :class:`~wordle_gym.core.rewards.RewardFn`."""
    observation: str = "knowledge"
    """"knowledge" (flat, lossless summary of every constraint) or "board" (raw guesses and
    tiles)."""
    action_mask: str | None = None
    """"all" (every allowed word), "hard" (hard-mode-valid words) or "candidates" (answers still
    consistent with all feedback); None picks "hard" in hard mode and "all" otherwise."""
    obs_dtype: str = "int8"
    """"int8" (compact; SB3 and torch models cast it) or "float32" (what default MLPs take:
    ``-v1``)."""
    mask_dtype: str = "int8"
    """dtype of ``info["action_mask"]``: "int8" (1 = allowed; Gymnasium samples with it), "bool",
    "native":
    int8 in the numpy single env, bool in the torch vector env (torch masks with bool; ``-v1``), or
    "packed": uint8, 8 actions to a byte (action ``a`` is bit ``a % 8`` of byte ``a // 8``, numpy's
    ``packbits(..., bitorder="little")``; ``wordle_gym.unpack_mask`` gives the bools back), an
    eighth of the memory, for big batches that read the mask seldom or on another device.
    ``action_masks()`` stays bool."""
    boards: int = 1
    """Boards played at once, 1..32, each with its own answer (distinct), sharing every guess: 1 is
    Wordle, 2 Dordle, 4 Quordle, 8 Octordle, 16 Sedecordle, 32 Duotrigordle (see
    :mod:`wordle_gym.core.boards`)."""
    split: str | None = None
    """"train" or "eval": the answers the env draws, a seeded split of the answer list
    (:func:`~wordle_gym.core.words.split_answers`: ``split_eval_size`` held out as "eval", the rest
    "train"); None draws from every answer. The game stays the whole list's (candidates, masks and
    the regret reward know every answer); ``reset(options={"answer": ...})`` still plays any
    answer."""
    split_seed: int = 0
    """Seed of the split's shuffle."""
    split_eval_size: int = 315
    """Answers held out as "eval"."""
    split_held_out: Sequence[str] | str | None = None
    """The "eval" answers given outright instead of the seeded shuffle's (a list of words, or the
    path of a file of them, e.g. NeMo Gym's 315): "eval" draws them, "train" every other answer."""

    def __post_init__(self) -> None:
        """Each field checked on its own, then the rules between them (the lists are read once,
        here)."""
        for name, low, high in (("boards", 1, MAX_BOARDS), ("max_guesses", 1, MAX_GUESSES)):
            if name == "max_guesses" and self.max_guesses is None:
                object.__setattr__(self, "max_guesses", self.boards + 5)
            object.__setattr__(self, name, _integer(name, getattr(self, name), low, high))
        # the name is checked against the encodings when an env is built
        if not isinstance(self.observation, str):
            raise TypeError(
                f"observation must be the name of an encoding; got {self.observation!r}"
            )
        _one_of("action_mask", self.action_mask, MASK_MODES, none=True)
        _one_of("obs_dtype", self.obs_dtype, OBS_DTYPES)
        _one_of("mask_dtype", self.mask_dtype, MASK_DTYPES)
        if not isinstance(self.hard_mode, bool):
            raise TypeError(f"hard_mode must be a bool; got {self.hard_mode!r}")
        # a scheme's fields, as an env spec's JSON gives them back
        if isinstance(self.reward, dict):
            object.__setattr__(self, "reward", get_reward(self.reward))
        # fail early on an unknown preset, or one an engine step cannot give
        reward_for(self.reward, "an engine step", frozenset({TILES}))
        self._check_boards()
        _ = self.vocabulary  # validate the word lists now, not on first use
        self._check_split()
        if self.boards > self.vocabulary.num_answers:
            raise ValueError(
                f"boards={self.boards} needs as many distinct answers; "
                f"the answer list has {self.vocabulary.num_answers}"
            )

    def _check_boards(self) -> None:
        """Several boards: no hard mode (it can leave no legal guess)."""
        if self.boards > 1 and self.hard_mode:
            raise ValueError(
                f"hard_mode is not defined for boards={self.boards}: one guess must keep every "
                "board's greens, and "
                "two boards with different greens at one position leave no legal guess"
            )
        if self.boards > 1 and self.action_mask == "hard":
            raise ValueError(
                f"action_mask 'hard' needs hard_mode, which boards={self.boards} does not have"
            )

    def _check_split(self) -> None:
        """The split's fields, against the answer list."""
        if self.split_held_out is not None and self.split is None:
            raise ValueError(
                "split_held_out names a split's eval answers: give split='train' or 'eval' with it"
            )
        if self.split_held_out is not None:
            object.__setattr__(
                self,
                "split_held_out",
                held_out_answers(self.split_held_out, self.vocabulary.answers),
            )
        _one_of("split", self.split, SPLITS, none=True)
        if isinstance(self.split_seed, bool) or not isinstance(self.split_seed, numbers.Integral):
            raise TypeError(f"split_seed must be an integer; got {self.split_seed!r}")
        size, most = self.split_eval_size, self.vocabulary.num_answers - 1
        if (
            isinstance(size, bool)
            or not isinstance(size, numbers.Integral)
            or (self.split and not 0 < size <= most)
        ):
            raise ValueError(
                f"split_eval_size must be an integer from 1 to {most} (answers - 1); got {size!r}"
            )
        if self.split and len(self.answer_pool) < self.boards:
            count = len(self.answer_pool)
            raise ValueError(
                f"boards={self.boards} needs as many answers; the {self.split!r} split has {count}"
            )

    @classmethod
    def build(cls, config: WordleConfig | dict | None = None, **options: Any) -> WordleConfig:
        """``config`` itself (or its fields as a dict), or a new config from keyword ``options``
        (the ``gym.make`` form); not both."""
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(options) - set(names))
        if unknown:
            # Worded as Python's own TypeError: wrappers that pass optional keywords (TorchRL's
            # GymEnv passes frameskip) recognise it and retry without.
            what = "argument " if len(unknown) == 1 else "arguments "
            hint = (" (device is the vector env's: gym.make_vec(id, num_envs=N, device=...))") * (
                "device" in unknown
            )
            raise TypeError(
                f"Wordle got an unexpected keyword {what}{', '.join(map(repr, unknown))}; expected "
                f"any of {names}{hint}"
            )
        if config is None:
            return cls(**options)
        if isinstance(config, dict):  # its fields, as an env spec's JSON gives them back
            if options:
                raise TypeError(
                    f"pass config= or keyword options, not both (got config and {sorted(options)})"
                )
            return cls.build(None, **config)
        if not isinstance(config, cls):
            raise TypeError(f"config must be a WordleConfig; got {type(config).__name__}")
        if options:
            raise TypeError(
                f"pass config= or keyword options, not both (got config and {sorted(options)})"
            )
        return config

    @cached_property
    def vocabulary(self) -> Vocabulary:
        """The validated word lists (one shared, read-only, for each pair of built-in lists)."""
        if isinstance(self.answers, str) and isinstance(self.allowed, str | None):
            return builtin_vocabulary(self.answers, self.allowed)
        return Vocabulary(self.answers, self.allowed)

    @cached_property
    def answer_pool(self) -> list[int] | None:
        """The answer indices the env draws from (``split``), in list order; None: every answer."""
        if self.split is None:
            return None
        words = self.vocabulary.answers
        held = set(
            split_answers(
                words,
                self.split,
                int(self.split_eval_size),
                int(self.split_seed),
                self.split_held_out,
            )
        )
        return [i for i, word in enumerate(words) if word in held]

    @property
    def reward_fn(self) -> RewardFn:
        """The reward object (a preset's name resolved)."""
        return get_reward(self.reward)

    @property
    def mask_mode(self) -> str:
        """The action-mask mode in force."""
        if self.action_mask is not None:
            return self.action_mask
        return "hard" if self.hard_mode else "all"

    @property
    def torch_obs_dtype(self) -> torch.dtype:
        """Observation dtype as a torch dtype."""
        import torch  # here: the configuration alone (the exact solver's limits) needs no torch

        return getattr(torch, self.obs_dtype)
