"""WordleVectorEnv: a whole batch of Wordle games as torch tensors on one device."""

from __future__ import annotations

import functools
import math
import numbers
import os
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from wordle_gym.core import _kernels
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.game import NO_TILE, StepOutcome
from wordle_gym.envs.base import WordleBase
from wordle_gym.envs.render import RENDER_MODES, game_rows, render_ansi, render_rgb
from wordle_gym.utils.device import device_generator, resolve_device

_MODES = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}
_AUTORESET = {**_MODES, **{mode: mode for mode in _MODES.values()}}
RENDER_LIMIT = 16  # render() draws at most this many games


def _batch_work(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` with its torch calls on one thread where its batch runs the compiled kernels (a
    big batch on the CPU; the kernels still split over torch's threads): torch's spinning idle
    workers took the cores the kernels run on (see
    :func:`wordle_gym.core._kernels.torch_on_one_thread`). Smaller batches run torch alone, whose
    calls on so few rows stay on one thread anyway (switching would only cost them)."""

    @functools.wraps(method)
    def wrapped(self: WordleVectorEnv, *args: Any, **kwargs: Any) -> Any:
        if self.device.type != "cpu" or self.num_envs * self.config.boards < _kernels.STEP_MIN_ROWS:
            return method(self, *args, **kwargs)
        with _kernels.torch_on_one_thread():
            return method(self, *args, **kwargs)

    return wrapped


class WordleVectorEnv(WordleBase, VectorEnv):
    """``num_envs`` Wordle games stepped together as torch tensors on ``device``.

    Same rules, observations, masks and rewards as :class:`wordle_gym.envs.wordle.WordleEnv` (see
    its docstring for the spaces): both run :class:`wordle_gym.core.game.Game`. Actions are an
    ``(num_envs,)`` integer tensor (numpy arrays and lists are accepted and moved to the device);
    observations, rewards, terminations, truncations and every info value are tensors on ``device``.
    No per-game Python objects exist.

    Autoreset (``metadata["autoreset_mode"]``):

    * ``"next_step"`` (default, Gymnasium's default): the step after a game ends ignores that
      game's action, starts a new game and returns its first observation with reward 0.
    * ``"same_step"``: a game that ends is reset within the same step; the observation
      returned is the new game's, the last one is in ``infos["final_obs"]`` (rows where
      ``infos["_final_obs"]``).
    * ``"disabled"`` (what TorchRL prefers): nothing is reset by ``step``; the caller resets the
      games that ended, ``reset(options={"reset_mask": terminated})``, before it steps them again.
      Stepping one that was not reset raises (as Gymnasium's own vector envs do); with
      ``check_actions=False``, which skips that host read, such a game stays as it ended (reward 0).

    Info keys, the same after every reset and step (tensors over all games, fresh each call; the
    caller may modify them):

    * ``action_mask`` (N, num_allowed) int8, 1 = allowed (Gymnasium's convention, as in the single
      env), or bool with ``mask_dtype`` "bool" or "native" (``-v1``), or (N, ceil(num_allowed / 8))
      uint8 with "packed" (8 actions to a byte; ``wordle_gym.unpack_mask``); ``action_masks()``
      gives it as bool (sb3-contrib's). In mask mode "all" it is one row expanded over the games:
      its rows share memory, so ``clone()`` it before editing one game's.
    * ``turn``: guesses made in the game the returned observation shows (0 for a game just started).
    * ``tiles`` (N, L) uint8, ``invalid``, ``won`` and ``is_success`` (N,) bool: the guess just
      played (3 where no tiles were scored: refused, inactive, or after a reset), so in "same_step"
      mode they describe the game that ended. The single env's info has these keys and dtypes, per
      game.
    * "same_step" mode only: ``final_obs`` (the last observation of the games that ended, rows where
      ``_final_obs``; elsewhere equal to the returned observation), ``final_info`` ({"turn", "won"}
      of those games) and ``_final_info``.

    ``reset(options={"answers": ...})`` fixes the answers (N words or indices into the answer
    list); ``options={"reset_mask": mask}`` resets only some games (a bool array or tensor).
    ``env.state`` gives read access to the batched :class:`~wordle_gym.core.game.GameState`.
    """

    metadata: dict[str, Any] = {
        "render_modes": list(RENDER_MODES),
        "render_fps": 2,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        num_envs: int = 1,
        config: WordleConfig | None = None,
        *,
        device: torch.device | str | None = "auto",
        autoreset_mode: str | AutoresetMode = "next_step",
        render_mode: str | None = None,
        check_actions: bool = True,
        **options: Any,
    ) -> None:
        """``num_envs`` games of ``config`` (or its fields as keywords, as for ``WordleEnv``) on
        ``device``.

        ``check_actions``: ``step`` raises a clear error for an action outside the word list, and
        ``reset`` for an answer index out of range, as does setting :attr:`answer_weights` for
        weights that cannot be drawn from (the default). That check reads one flag back from
        the device every call, which stalls a GPU pipeline; a trainer whose actions are argmaxes or
        draws over the word list passes False (an out-of-range index is then an indexing error, on
        CUDA a device-side assert)."""
        # any integer type (numpy's too), never a bool
        if isinstance(num_envs, bool) or not isinstance(num_envs, numbers.Integral) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer; got {num_envs!r}")
        num_envs = int(num_envs)
        if autoreset_mode not in _AUTORESET:
            raise ValueError(
                f"unknown autoreset_mode {autoreset_mode!r}; expected 'next_step', 'same_step' or "
                "'disabled'"
            )
        self.num_envs = num_envs
        self.check_actions = bool(check_actions)
        self.device = resolve_device(device)
        self._build(config, options, self.device, render_mode)
        self.autoreset_mode = _AUTORESET[autoreset_mode]
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.single_observation_space = self.observation.space
        self.single_action_space = spaces.Discrete(self.vocabulary.num_allowed)
        self._check_memory(num_envs)
        self.state = self.game.new_state(num_envs)
        self._autoreset = torch.zeros(num_envs, dtype=torch.bool, device=self.device)
        self._all = torch.ones(num_envs, dtype=torch.bool, device=self.device)
        self._answer_weights: torch.Tensor | None = None
        # the split's answers (config.split), drawn when no weights are set
        pool = self.config.answer_pool
        self._pool = (
            None if pool is None else torch.tensor(pool, dtype=torch.int64, device=self.device)
        )
        self._generator = device_generator(self.device)
        self._generator.seed()
        self._needs_reset = True
        self._bool_info_mask = self.config.mask_dtype in ("bool", "native")  # torch masks with bool
        self._packed_mask = self.config.mask_dtype == "packed"

    def _check_memory(self, num_envs: int) -> None:
        """Refuse at once a batch whose steps would not fit in the device's available memory (rather
        than fail after seconds of allocating, with torch's raw error or the OOM killer)."""
        per_game = _nbytes(self.game.new_state(1))
        per_game += self.vocabulary.num_allowed + 4 * math.prod(self.single_observation_space.shape)
        need, have = PEAK_FACTOR * num_envs * per_game, _device_memory(self.device)
        if have is not None and need > have:
            raise ValueError(
                f"num_envs={num_envs:,} needs about {need / 2**30:,.1f} GiB at its steps' peak "
                f"(its games' state, masks and observations, {PEAK_FACTOR:g} times over); this "
                f"{self.device.type} has {have / 2**30:,.1f} GiB available"
            )

    # The batched spaces hold num_envs copies of the bounds in numpy; build them on demand
    # so that a million-game env does not pay for them unless someone asks.
    @cached_property
    def observation_space(self) -> spaces.Space:  # type: ignore[override]
        return batch_space(self.single_observation_space, self.num_envs)

    @cached_property
    def action_space(self) -> spaces.Space:  # type: ignore[override]
        return batch_space(self.single_action_space, self.num_envs)

    @torch.no_grad()
    @_batch_work
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Reset all games, or those in ``options["reset_mask"]``; ``options["answers"]`` fixes
        answers."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
                raise TypeError(f"seed must be an int (one seed for the whole batch); got {seed!r}")
            self._generator.manual_seed(int(seed))
        if options is not None and not isinstance(options, dict):
            expected = "a dict such as {'answers': ..., 'reset_mask': ...}"
            raise TypeError(f"reset options must be {expected}; got {repr(options)[:80]}")
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        answers = options.pop("answers", None)
        if options:
            raise ValueError(
                f"unknown reset options {sorted(options)}; expected 'answers' and/or 'reset_mask'"
            )
        if mask is not None:
            mask = torch.as_tensor(mask, device=self.device)
            if mask.dtype != torch.bool or mask.shape != (self.num_envs,):
                raise ValueError(
                    f"reset_mask must be a bool array of shape ({self.num_envs},); got "
                    f"{mask.dtype} {tuple(mask.shape)}"
                )
            if self._needs_reset and not bool(mask.all()):
                raise ValueError(
                    "the first reset must reset every game: call reset() without reset_mask"
                )
        self._start_games(mask, self._answers_tensor(answers))
        self._autoreset = (
            torch.zeros_like(self._autoreset) if mask is None else self._autoreset & ~mask
        )
        self._needs_reset = False
        observations = self.observation(self.state)
        return observations, self._infos(None, observations, self.state.turn)

    @torch.no_grad()
    @_batch_work
    def step(
        self, actions: torch.Tensor | np.ndarray | Sequence[int]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
        """Play one guess in every game; see the class docstring for autoreset."""
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        actions = self._actions_tensor(actions)
        state = self.state
        # No host synchronisation: finished games are reset by masked, batched ops every step.
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            pending = self._autoreset
            outcome = self.game.step(state, actions, ~pending)
            self._start_games(pending, None)
            observations = self.observation(state)
            infos = self._infos(outcome)
        elif self.autoreset_mode == AutoresetMode.DISABLED:
            if self.check_actions and bool(self._autoreset.any()):
                first = int(self._autoreset.nonzero()[0, 0])
                raise RuntimeError(
                    f"game {first} ended and was not reset (autoreset 'disabled'): call "
                    f"reset(options={{'reset_mask': terminated}}) before stepping it again"
                )
            outcome = self.game.step(state, actions, ~state.done)
            observations = self.observation(state)
            infos = self._infos(outcome)
        else:
            outcome = self.game.step(state, actions, self._all)
            final, final_turn = self.observation(state), state.turn.clone()
            self._start_games(outcome.terminated, None)
            shape = (self.num_envs,) + (1,) * (final.ndim - 1)
            observations = torch.where(
                outcome.terminated.view(shape), self.observation.initial, final
            )
            infos = self._infos(outcome, final, final_turn)
        self._autoreset = outcome.terminated.clone()  # the caller may modify what step() returns
        truncations = torch.zeros_like(outcome.terminated)
        return observations, outcome.reward, outcome.terminated, truncations, infos

    @_batch_work
    def action_masks(self) -> torch.Tensor:
        """Allowed actions of every game: (num_envs, num_allowed) bool tensor (sb3-contrib
        convention)."""
        return self.game.action_mask(self.state)

    def render(self) -> tuple[Any, ...] | None:
        """Render the first games (at most 16): text, images, or printed (``human``)."""
        if self.render_mode is None:
            return None
        games = range(min(self.num_envs, RENDER_LIMIT))
        rows = [game_rows(self.game, self.state, i) for i in games]
        if self.render_mode == "rgb_array":
            return tuple(render_rgb(r, self.game.length) for r in rows)
        texts = tuple(render_ansi(r, self.game.length) for r in rows)
        if self.render_mode == "human":
            print("\n".join(texts), flush=True)
            return None
        return texts

    # ---------------------------------------------------------------------------- helpers
    @property
    def answer_weights(self) -> torch.Tensor | None:
        """Relative chances of each answer when the env picks one (uniform where None)."""
        return self._answer_weights

    @answer_weights.setter
    def answer_weights(self, weights: torch.Tensor | None) -> None:
        if weights is not None:
            weights = torch.as_tensor(weights, dtype=torch.float32, device=self.device)
            if weights.shape != (self.vocabulary.num_answers,) or (
                # the values are read back from the device: skipped with check_actions=False
                self.check_actions
                and (
                    not bool(torch.isfinite(weights).all())
                    or bool((weights < 0).any())
                    or not bool(weights.sum() > 0)
                )
            ):
                raise ValueError(
                    f"answer_weights must be {self.vocabulary.num_answers} finite non-negative "
                    f"numbers with a positive sum; got shape {tuple(weights.shape)}"
                )
        self._answer_weights = weights

    def _start_games(self, mask: torch.Tensor | None, answers: torch.Tensor | None) -> None:
        if answers is None and self._answer_weights is not None:
            answers = torch.multinomial(
                self._answer_weights, self.num_envs, replacement=True, generator=self._generator
            )
        elif answers is None and self._pool is not None:
            draw = torch.randint(
                len(self._pool), (self.num_envs,), generator=self._generator, device=self.device
            )
            answers = self._pool[draw]
        elif answers is None:
            answers = torch.randint(
                self.vocabulary.num_answers,
                (self.num_envs,),
                generator=self._generator,
                device=self.device,
            )
        self.game.reset(self.state, mask, answers)

    def _infos(
        self,
        outcome: StepOutcome | None,
        final: torch.Tensor | None = None,
        final_turn: torch.Tensor | None = None,
    ) -> dict[str, Any]:
        """The same keys after every reset and step (see the class docstring); fresh tensors."""
        n, dev = self.num_envs, self.device
        if outcome is None:
            tiles = torch.full((n, self.game.length), NO_TILE, dtype=torch.uint8, device=dev)
            invalid, won = (
                torch.zeros(n, dtype=torch.bool, device=dev),
                torch.zeros(n, dtype=torch.bool, device=dev),
            )
            ended = won
        else:
            tiles, invalid, won, ended = (
                outcome.tiles,
                outcome.invalid,
                outcome.won,
                outcome.terminated,
            )
        if self._packed_mask:
            mask = self.game.packed_action_mask(self.state)
        else:
            mask = self.game.action_mask(self.state)
            mask = mask if self._bool_info_mask else mask.view(torch.int8)  # zero-copy: 1 = allowed
        infos: dict[str, Any] = {
            "action_mask": mask,
            "turn": self.state.turn.clone(),
            "tiles": tiles,
            "invalid": invalid,
            "won": won,
            "is_success": won.clone(),
        }
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            assert final is not None and final_turn is not None
            infos["final_obs"], infos["_final_obs"] = final, ended.clone()
            infos["final_info"] = {"turn": final_turn, "won": won}
            infos["_final_info"] = ended.clone()
        return infos

    def _answers_tensor(self, answers: Any) -> torch.Tensor | None:
        if answers is None:
            return None
        if isinstance(answers, torch.Tensor | np.ndarray):
            return self._answer_indices_checked(
                answers,
                (self.num_envs,),
                f"expected {self.num_envs} answers (one per game); got shape ",
            )
        items = list(answers)
        if len(items) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} answers (one per game); got {len(items)}")
        ids = [self.vocabulary.answer_id(a) for a in items]
        return torch.tensor(ids, dtype=torch.int64, device=self.device)

    def _answer_indices_checked(
        self, answers: torch.Tensor | np.ndarray, shape: tuple[int, ...], expected: str
    ) -> torch.Tensor:
        """``reset``'s answers given as an array of answer indices of ``shape``, checked (integers,
        the shape, in range); ``expected``: the error's words before the shape given."""
        values = torch.as_tensor(answers, device=self.device)
        if values.is_floating_point() or values.dtype == torch.bool:
            raise TypeError(f"answers must be words or integer indices; got dtype {values.dtype}")
        if values.shape != shape:
            raise ValueError(f"{expected}{tuple(values.shape)}")
        values = values.long()
        bad = (values < 0) | (values >= self.vocabulary.num_answers)
        if self.check_actions and bool(bad.any()):
            raise ValueError(
                f"answer index {int(values[bad][0])} is out of range; "
                f"expected 0 <= index < {self.vocabulary.num_answers}"
            )
        return values

    def _actions_tensor(self, actions: Any) -> torch.Tensor:
        values = torch.as_tensor(actions, device=self.device)
        if values.shape != (self.num_envs,):
            raise ValueError(
                f"expected actions of shape ({self.num_envs},); got {tuple(values.shape)}"
            )
        if self.check_actions:
            self.game.check_actions(values)
        return values.long()


def _nbytes(state: Any) -> int:
    """Bytes held by the tensors of a game state (and of the states it holds)."""
    values = vars(state).values()
    return sum(
        v.nbytes if isinstance(v, torch.Tensor) else _nbytes(v)
        for v in values
        if hasattr(v, "__dict__")
    )


PEAK_FACTOR = 2.5
"""A step's peak memory over the state, masks and observations a batch keeps (its temporaries:
measured 1.3 to 2.1 times on Duotrigordle, ``tests/envs/test_multi.py``)."""


def _device_memory(device: torch.device) -> int | None:
    """Bytes of memory ``device`` has available now (None where unknown, e.g. the meta device): on
    Linux the kernel's MemAvailable, on CUDA the free memory plus what torch holds unused."""
    try:
        if device.type == "cuda":
            free = torch.cuda.mem_get_info(device)[0]
            return free + torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device)
        if device.type == "cpu":
            try:
                with open("/proc/meminfo", encoding="ascii") as meminfo:
                    for line in meminfo:
                        if line.startswith("MemAvailable:"):
                            return int(line.split()[1]) * 1024
            except OSError:
                pass
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError, RuntimeError):
        pass
    return None
