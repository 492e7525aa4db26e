"""Multi-board Wordle envs: Dordle, Quordle, Octordle, Sedecordle, Duotrigordle (and any 1..32
boards)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces

from wordle_gym.core.boards import MultiOutcome, MultiState, distinct_answers
from wordle_gym.core.config import BOARD_NAMES, WordleConfig
from wordle_gym.core.game import NO_TILE
from wordle_gym.envs.base import one_reset_option
from wordle_gym.envs.render import RENDER_MODES, game_rows, render_ansi, render_rgb
from wordle_gym.envs.vector import RENDER_LIMIT, WordleVectorEnv
from wordle_gym.envs.wordle import WordleEnv, as_action


class MultiWordleEnv(gym.Env[np.ndarray, np.int64]):
    """Multi-board Wordle: find ``K`` hidden words at once, every guess played on every board.

    ## Description

    ``boards=K`` Wordle boards, each with its own answer (the ``K`` answers of a game are distinct),
    share every guess: Dordle (2), Quordle (4), Octordle (8), Sedecordle (16), Duotrigordle (32). A
    guess is scored on every board not yet solved by the rules of Wordle
    (:class:`~wordle_gym.envs.wordle.WordleEnv`); a board is solved when its answer is guessed and
    gets no more feedback. The game is won when every board is solved and lost when ``max_guesses``
    (``K + 5`` by default) guesses are spent first. The boards are rows of the batched engine
    (:mod:`wordle_gym.core.boards`): there is no second copy of the rules.

    ## Action Space

    ``Discrete(len(allowed))``, as Wordle's: action ``i`` guesses ``env.unwrapped.words[i]``.

    ## Observation Space

    ``observation="knowledge"`` (default): a flat ``Box`` of ``K (52 L + 53) + T + 1`` values (1262
    for Quordle): each board's blocks of Wordle's encoding (green, excluded, min_count, max_count),
    block by block, then which boards are solved and a one-hot of the guesses made.
    ``env.unwrapped.observation.layout`` (a
    :class:`~wordle_gym.envs.observation.MultiKnowledgeLayout`) names the blocks and gives shaped
    views. ``observation="board"``: ``Box`` ``(K, 2, T, L)``, each board's letters and tiles as
    Wordle's "board" encoding (a solved board's rows stop where it was solved).

    ## Rewards

    The presets of Wordle, applied to the game as a whole: ``"default"`` -1 per guess and -5 more
    for a loss (a game won on guess k returns -k); ``win`` bonuses are paid when the last board is
    solved; tile terms count the tiles of every board the guess was played on.

    ## Starting State

    ``K`` distinct uniformly random answers, or
    ``reset(options={"answers": ["cigar", "rebut", ...]})`` (``K`` distinct words or indices into
    ``answers``). Nothing is known.

    ## Episode End

    Terminated when the last board is solved (a win) or after ``max_guesses`` guesses (a loss);
    never truncated. Stepping a finished episode raises ``RuntimeError``.

    ## Action masks

    ``info["action_mask"]`` and ``env.action_masks()`` as in Wordle; ``action_mask="all"``
    (default): every word; ``"candidates"``: the answers still possible on a board not yet solved.

    ## Hard mode

    None: one guess would have to keep every board's greens in place, and two boards with different
    greens at one position leave no legal guess at all (the popular games have no hard mode either);
    ``hard_mode=True`` with ``boards > 1`` is refused.

    ## Info

    Wordle's keys and dtypes, per board where a board has its own: ``action_mask``, ``turn``
    (int64), ``tiles`` (``(K, L)`` uint8: the feedback on each board of the guess just made, 3 on a
    board it was not played on), ``solved`` (``(K,)`` bool), ``invalid`` (always False), ``won`` and
    ``is_success`` (bool:
    the game was just won). The vector env has the same keys with a leading batch dimension.

    ## Arguments

    Those of Wordle, with ``boards`` (1..32) and ``max_guesses`` (default ``boards + 5``);
    ``hard_mode`` and ``action_mask="hard"`` are refused.

    ## Vectorized environment

    ``gym.make_vec("Quordle-v1", num_envs=N, device="cuda")`` gives a :class:`MultiWordleVectorEnv`:
    N games of K boards as ``N K`` rows of the batched engine.

    ## Version History

    * v1 (recommended): float32 observations and a bool vector-env mask, as Wordle-v1.
    * v0: int8 observations and int8 info masks, as Wordle-v0.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self, config: WordleConfig | None = None, *, render_mode: str | None = None, **options: Any
    ) -> None:
        """``config``, or its fields as keywords (``boards=4``; 2 if not given); see ##
        Arguments."""
        # worded as Python's TypeError, which wrappers that pass optional keywords read
        if "device" in options:
            raise TypeError(
                "MultiWordleEnv got an unexpected keyword argument 'device': the single env plays "
                "on the CPU; gym.make_vec(id, num_envs=N, device=...) plays games on a device"
            )
        if config is None:
            options.setdefault("boards", 2)
        # One game of the batched engine on the CPU; this env converts to numpy at its edge.
        self._batch = MultiWordleVectorEnv(
            1, config, device="cpu", autoreset_mode="disabled", render_mode=render_mode, **options
        )
        batch = self._batch
        self.config, self.game, self.vocabulary, self.words = (
            batch.config,
            batch.game,
            batch.vocabulary,
            batch.words,
        )
        self.observation = batch.observation
        self.render_mode = batch.render_mode
        self.observation_space = batch.single_observation_space
        self.action_space = spaces.Discrete(self.vocabulary.num_allowed)
        # "native" is int8 here (Gymnasium samples)
        self._bool_info_mask = self.config.mask_dtype == "bool"
        self._needs_reset = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game; ``options={"answers": [...]}`` fixes the boards' answers (K distinct words
        or indices)."""
        super().reset(seed=seed)
        answers = one_reset_option(options, "answers", "[...]")
        if answers is None:
            pool = self.config.answer_pool
            picked = self.np_random.choice(
                self.vocabulary.num_answers if pool is None else pool,
                self.config.boards,
                replace=False,
            )
            answers = [int(i) for i in picked]
        elif isinstance(answers, str) or not isinstance(
            answers, Sequence | np.ndarray | torch.Tensor
        ):
            raise TypeError(
                f"answers must be a list of {self.config.boards} words or indices; got {answers!r}"
            )
        obs, infos = self._batch.reset(options={"answers": [list(answers)]})
        self._needs_reset = False
        if self.render_mode == "human":
            self.render()
        return obs[0].numpy(), self._info(infos)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Guess word ``action`` (an index into :attr:`words`) on every board not yet solved."""
        if self._needs_reset:
            raise RuntimeError("the episode is over (or never started): call reset() before step()")
        action = as_action(action, self.vocabulary.num_allowed)
        obs, reward, terminated, _, infos = self._batch.step(torch.tensor([action]))
        self._needs_reset = bool(terminated[0])
        if self.render_mode == "human":
            self.render()
        return obs[0].numpy(), float(reward[0]), self._needs_reset, False, self._info(infos)

    def _info(self, infos: dict[str, torch.Tensor]) -> dict[str, Any]:
        mask = infos["action_mask"][0].numpy()
        if self.config.mask_dtype == "packed":
            mask = mask.copy()
        else:
            # a copy, as the one above
            mask = mask.astype(bool if self._bool_info_mask else np.int8)
        return {
            "action_mask": mask,
            "turn": infos["turn"][0].numpy(),
            "tiles": infos["tiles"][0].numpy(),
            "solved": infos["solved"][0].numpy(),
            "invalid": infos["invalid"][0].numpy(),
            "won": infos["won"][0].numpy(),
            "is_success": infos["is_success"][0].numpy(),
        }

    def action_masks(self) -> np.ndarray:
        """Which actions are allowed now: bool ``(num_allowed,)`` (sb3-contrib convention)."""
        return self._batch.action_masks()[0].numpy().copy()

    @property
    def state(self) -> MultiState:
        """The game as a one-game :class:`~wordle_gym.core.boards.MultiState` (the env's own: read
        it)."""
        return self._batch.state

    @property
    def answers(self) -> list[str]:
        """The boards' answers (for rendering, tests and debugging; an agent should not peek)."""
        return [self.vocabulary.answers[i] for i in self._batch.state.answers[0].tolist()]

    def render(self) -> str | np.ndarray | None:
        """Render per ``render_mode``: the boards side by side (``ansi`` text, an ``rgb_array``
        image, or printed)."""
        if self.render_mode is None:
            gym.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', "
                "'human' or 'rgb_array'"
            )
            return None
        return _render(self._batch, 0)


class MultiWordleVectorEnv(WordleVectorEnv):
    """``num_envs`` multi-board games stepped together as torch tensors on ``device`` (``N K`` board
    rows).

    The game, spaces and info of :class:`MultiWordleEnv`, batched as :class:`WordleVectorEnv`
    batches Wordle (the same autoreset modes, ``check_actions``, ``answer_weights`` and
    ``reset_mask``):
    ``reset(options={"answers": ...})`` takes ``N`` lists of ``K`` distinct words or indices (or an
    ``(N, K)`` integer array); ``infos["tiles"]`` is ``(N, K, L)`` uint8 and ``infos["solved"]``
    ``(N, K)`` bool; ``env.state`` is the batched :class:`~wordle_gym.core.boards.MultiState`.
    """

    multi_board = True

    def __init__(
        self, num_envs: int = 1, config: WordleConfig | None = None, **kwargs: Any
    ) -> None:
        if config is None:
            kwargs.setdefault("boards", 2)
        super().__init__(num_envs, config, **kwargs)

    @property
    def answer_weights(self) -> torch.Tensor | None:
        """Relative chances of each answer when the env picks a game's (distinct) answers (uniform
        where None)."""
        return self._answer_weights

    @answer_weights.setter
    def answer_weights(self, weights: torch.Tensor | None) -> None:
        WordleVectorEnv.answer_weights.fset(self, weights)  # type: ignore[attr-defined]
        if weights is not None and self.check_actions:
            positive = int((self._answer_weights > 0).sum())  # type: ignore[operator]
            if positive < self.config.boards:
                self._answer_weights = None
                raise ValueError(
                    f"answer_weights give {positive} answers a chance; {self.config.boards} boards "
                    "need as many distinct answers"
                )

    def _start_games(self, mask: torch.Tensor | None, answers: torch.Tensor | None) -> None:
        n, k = self.num_envs, self.config.boards
        if answers is None and self._answer_weights is not None:
            weights = self._answer_weights.expand(n, -1)
            answers = torch.multinomial(weights, k, replacement=False, generator=self._generator)
        elif answers is None and self._pool is not None:
            answers = self._pool[
                distinct_answers(n, k, len(self._pool), self._generator, self.device)
            ]
        elif answers is None:
            answers = distinct_answers(
                n, k, self.vocabulary.num_answers, self._generator, self.device
            )
        self.game.reset(self.state, mask, answers)

    def _infos(
        self,
        outcome: MultiOutcome | None,
        final: torch.Tensor | None = None,
        final_turn: torch.Tensor | None = None,
    ) -> dict[str, Any]:
        n, k, dev = self.num_envs, self.config.boards, self.device
        if outcome is None:
            none = torch.zeros(n, dtype=torch.bool, device=dev)
            outcome = MultiOutcome(
                torch.full((n, k, self.game.length), NO_TILE, dtype=torch.uint8, device=dev),
                torch.zeros(n, device=dev),
                none,
                none,
                none,
                self.state.solved.clone(),
            )
        infos = super()._infos(outcome, final, final_turn)  # type: ignore[arg-type]
        infos["solved"] = outcome.solved
        return infos

    def _answers_tensor(self, answers: Any) -> torch.Tensor | None:
        if answers is None:
            return None
        if isinstance(answers, torch.Tensor | np.ndarray):
            n, k = self.num_envs, self.config.boards
            values = self._answer_indices_checked(
                answers, (n, k), f"expected answers of shape ({n}, {k}) (K per game); got "
            )
        else:
            values = self._answer_rows(answers)
        if self.check_actions and self.config.boards > 1:
            ordered = values.sort(dim=1).values
            repeated = (ordered[:, 1:] == ordered[:, :-1]).any(1)
            if bool(repeated.any()):
                game = int(repeated.nonzero()[0, 0])
                words = [self.vocabulary.answers[i] for i in values[game].tolist()]
                raise ValueError(
                    f"the boards of a game need distinct answers; game {game} has {words}"
                )
        return values

    def _answer_rows(self, answers: Any) -> torch.Tensor:
        """``reset``'s answers given as a list a game of K words or indices, as indices."""
        n, k = self.num_envs, self.config.boards
        games = list(answers)
        if len(games) != n:
            raise ValueError(
                f"expected {n} lists of {k} answers (one list per game); got {len(games)}"
            )
        rows = []
        for game in games:
            if isinstance(game, str) or not isinstance(game, Sequence | np.ndarray | torch.Tensor):
                raise TypeError(
                    f"each game's answers must be a list of {k} words or indices; got {game!r}"
                )
            if len(game) != k:
                raise ValueError(
                    f"each game needs {k} answers (one per board); got {len(game)}: {list(game)!r}"
                )
            rows.append([self.vocabulary.answer_id(a) for a in game])
        return torch.tensor(rows, dtype=torch.int64, device=self.device)

    def render(self) -> tuple[Any, ...] | None:
        """Render the first games (at most 16), each with its boards side by side."""
        if self.render_mode is None:
            return None
        drawn = tuple(_render(self, i) for i in range(min(self.num_envs, RENDER_LIMIT)))
        return None if self.render_mode == "human" else drawn


def _render(env: MultiWordleVectorEnv, index: int) -> Any:
    """Game ``index`` of ``env``: its boards side by side, as text (``ansi``, ``human`` prints it)
    or an image."""
    game, state, k = env.game.game, env.state, env.config.boards
    boards = [game_rows(game, state.boards, index * k + b) for b in range(k)]
    if env.render_mode == "rgb_array":
        images = [render_rgb(rows, game.length) for rows in boards]
        gap = np.full((images[0].shape[0], 12, 3), 255, dtype=np.uint8)
        parts = [part for image in images for part in (image, gap)][:-1]
        return np.concatenate(parts, axis=1)
    columns = [render_ansi(rows, game.length).splitlines() for rows in boards]
    width = 3 * game.length
    lines = ["   ".join(c[r] for c in columns) for r in range(len(columns[0]))]
    heads = "   ".join(
        ("solved" if s else f"board {b + 1}").ljust(width)
        for b, s in enumerate(env.state.solved[index].tolist())
    )
    text = heads.rstrip() + "\n" + "\n".join(lines) + "\n"
    if env.render_mode == "human":
        print(text, flush=True)
        return None
    return text


def make_env(config: WordleConfig | None = None, **options: Any) -> WordleEnv | MultiWordleEnv:
    """The single env of a Wordle id (``gym.make``'s entry point): :class:`WordleEnv` for one board,
    :class:`MultiWordleEnv` for ``boards=K > 1``."""
    boards = config.boards if isinstance(config, WordleConfig) else options.get("boards", 1)
    return WordleEnv(config, **options) if boards == 1 else MultiWordleEnv(config, **options)


def make_vector_env(
    num_envs: int = 1, config: WordleConfig | None = None, **options: Any
) -> WordleVectorEnv | MultiWordleVectorEnv:
    """The vector env of a Wordle id (``gym.make_vec``'s entry point): :class:`WordleVectorEnv` for
    one board, :class:`MultiWordleVectorEnv` for ``boards=K > 1``."""
    boards = config.boards if isinstance(config, WordleConfig) else options.get("boards", 1)
    if boards == 1:
        return WordleVectorEnv(num_envs, config, **options)
    return MultiWordleVectorEnv(num_envs, config, **options)


__all__ = ["BOARD_NAMES", "MultiWordleEnv", "MultiWordleVectorEnv", "make_env", "make_vector_env"]
