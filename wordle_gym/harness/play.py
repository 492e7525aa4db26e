"""The one loop that plays a batch of games to the end: what every "play every answer" caller
shares.

:func:`play` runs any harness policy (``act(observations, action_masks, env)``) on one
``WordleVectorEnv`` row per game, with no autoreset, and records what the callers need: each game's
guesses, win, return and actions, the last observations and infos (to go on from there), and, when
asked, every step. :func:`wordle_gym.harness.evaluation.evaluate` is this loop plus a result; the
agents' methods (rollouts, teaching, datasets) call it with policies of their own: one that forces a
game's first guesses, one that records the positions it meets.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import torch
from tqdm.auto import tqdm

from wordle_gym.core.config import WordleConfig
from wordle_gym.envs.multi import make_vector_env
from wordle_gym.envs.vector import WordleVectorEnv

MULTI_BOARD_GAMES = 2000
"""Games in the standard multi-board evaluation set (one game is 0.05 % of the win rate)."""
MULTI_BOARD_SEED = 20261125
"""The seed of the standard multi-board evaluation set."""


def standard_games(config: WordleConfig, games: int | None = None) -> torch.Tensor:
    """The standard evaluation set of a game: every answer once for one board ((num_answers,) answer
    indices); for ``K > 1`` boards, ``games`` (default :data:`MULTI_BOARD_GAMES`) K-tuples of
    distinct answers, the same for every agent: game ``g`` is
    ``numpy.random.default_rng([MULTI_BOARD_SEED, K, g]).choice(num_answers, K, replace=False)``, so
    the first games of a bigger set are the smaller set ((games, K) answer indices). With
    ``config.split``, the split's answers stand for the answer list (the indices stay the whole
    list's)."""
    pool = config.answer_pool
    num_answers, boards = (
        config.vocabulary.num_answers if pool is None else len(pool),
        config.boards,
    )
    index = (
        torch.arange(config.vocabulary.num_answers)
        if pool is None
        else torch.tensor(pool, dtype=torch.int64)
    )
    if boards == 1 and games is None:
        return index
    count = MULTI_BOARD_GAMES if games is None else games
    if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 1:
        raise ValueError(f"games must be a positive integer; got {games!r}")
    count = int(count)
    rows = [
        np.random.default_rng([MULTI_BOARD_SEED, boards, g]).choice(
            num_answers, boards, replace=False
        )
        for g in range(count)
    ]
    picks = index[torch.from_numpy(np.stack(rows).astype(np.int64))]
    return picks[:, 0] if boards == 1 else picks


class PolicyError(ValueError):
    """The evaluated policy failed (``act`` raised, returned nothing, or changed the env); the cause
    is chained."""


def bool_mask(mask: torch.Tensor) -> torch.Tensor:
    """An action mask as bool without a copy: the int8 ``infos["action_mask"]`` of the envs, or
    bool."""
    if mask.dtype == torch.bool:
        return mask
    if mask.dtype in (torch.int8, torch.uint8):
        return mask.view(torch.bool)  # 0/1 bytes: the same memory read as bool
    raise TypeError(f"an action mask must be bool or int8 (1 = allowed); got {mask.dtype}")


class Step(NamedTuple):
    """One turn of every game (``play(..., record=True)``); rows of games that had ended are kept as
    they were."""

    observations: torch.Tensor  # (N, *obs) what the policy saw
    actions: torch.Tensor  # (N,) int64 what it played
    rewards: torch.Tensor  # (N,) float32
    terminations: torch.Tensor  # (N,) bool: the game ended on this step
    playing: torch.Tensor  # (N,) bool: the game was still on before this step


@dataclass
class Played:
    """Every game of one :func:`play` call, one row per game (tensors on the env's device)."""

    env: WordleVectorEnv
    """The env after the last step: ``env.state`` holds every game's history."""
    observations: torch.Tensor
    """``(N, *obs)``: the last observations (those after the last step played)."""
    infos: dict[str, torch.Tensor]
    """The last infos (``action_mask`` of the next turn, ``tiles``, ...)."""
    actions: torch.Tensor
    """(N, turns) int64: each turn's guess, -1 once the game had ended."""
    guesses: torch.Tensor
    """(N,) int64: the guesses a won game used; ``max_guesses + 1`` for a game not won."""
    won: torch.Tensor
    """(N,) bool."""
    returns: torch.Tensor
    """(N,) float32: each game's rewards summed."""
    steps: list[Step] = field(default_factory=list)
    """Every turn, with ``record=True``."""

    @property
    def win_rate(self) -> float:
        return int(self.won.sum()) / len(self.won)

    @property
    def mean_guesses_wins(self) -> float:
        """Mean guesses over the games won (nan if none): the same ratio of integers as
        ``EvalResult``'s."""
        wins = int(self.won.sum())
        return int(self.guesses[self.won].sum()) / wins if wins else float("nan")

    @property
    def mean_guesses_all(self) -> float:
        """Mean guesses counting a game not won as ``max_guesses + 1``."""
        return int(self.guesses.sum()) / len(self.guesses)

    @property
    def histories(self) -> list[list[int]]:
        """Each game's guesses, as word indices."""
        return [[a for a in game if a >= 0] for game in self.actions.tolist()]


def play(
    policy: Any,
    config: WordleConfig | None = None,
    *,
    games: torch.Tensor | Sequence[int] | None = None,
    device: torch.device | str | None = "auto",
    turns: int | None = None,
    seed: int = 0,
    check: bool = True,
    record: bool = False,
    progress: bool | None = False,
    desc: str = "play",
    **options: Any,
) -> Played:
    """Play one game per entry of ``games`` with ``policy`` until every game has ended, or for
    ``turns`` turns:
    answer indices ``(N,)``, or ``(N, K)`` for ``K`` boards; default :func:`standard_games` (every
    answer once).

    Args:
        policy: anything with ``act(observations, action_masks, env)`` returning one word index per
            game. It sees every row every turn (rows of ended games included, whose actions are
            ignored).
        config: the game (or its fields as keyword ``options``), as the envs take it.
        games: the answer of each game (of each board of each game), as indices into the answer
            list.
        device: where the games run.
        turns: stop after this many turns (default: ``max_guesses``, when every game has ended).
        seed: the env's reset seed.
        check: hold the policy to the harness's contract: an error that names it if ``act`` raises,
            returns nothing or non-integer actions, an action outside the word list, or changes the
            games.
        record: keep every :class:`Step`.
        progress: a bar of games ended (None: on a terminal only).
        desc: the bar's label.

    Returns:
        :class:`Played`.
    """
    config = WordleConfig.build(config, **options)
    games = standard_games(config) if games is None else torch.as_tensor(games)
    count = len(games)
    env = make_vector_env(
        count, config, device=device, autoreset_mode="disabled", check_actions=False
    )
    dev = env.device
    observations, infos = env.reset(seed=seed, options={"answers": games.to(dev)})
    limit = config.max_guesses if turns is None else turns
    playing = torch.ones(count, dtype=torch.bool, device=dev)
    won = torch.zeros(count, dtype=torch.bool, device=dev)
    guesses = torch.full((count,), config.max_guesses + 1, dtype=torch.int64, device=dev)
    returns = torch.zeros(count, dtype=torch.float32, device=dev)
    played = torch.full((count, limit), -1, dtype=torch.int64, device=dev)
    steps: list[Step] = []
    # None: tqdm shows the bar on a terminal only
    disable = None if progress is None else not progress
    with tqdm(total=count, desc=desc, unit="game", disable=disable, leave=False) as bar:
        for turn in range(limit):
            # the bar moves before the first game ends
            bar.set_postfix_str(f"guess {turn + 1} of {limit}")
            actions = (
                _act(policy, observations, infos, env)
                if check
                else _fast_act(policy, observations, infos, env)
            )
            played[:, turn] = torch.where(playing, actions, -1)
            seen = observations
            observations, rewards, terminated, _, infos = env.step(actions)
            ending = terminated & playing
            returns += torch.where(playing, rewards, 0.0)
            guesses = torch.where(ending & infos["won"], turn + 1, guesses)
            won |= ending & infos["won"]
            if record:
                steps.append(Step(seen, actions, rewards, terminated, playing))
            playing = playing & ~terminated
            bar.update(int(ending.sum()))
            if not bool(playing.any()):
                played = played[:, : turn + 1]
                break
    return Played(env, observations, infos, played, guesses, won, returns, steps)


def _fast_act(
    policy: Any, observations: torch.Tensor, infos: dict[str, torch.Tensor], env: Any
) -> torch.Tensor:
    return torch.as_tensor(
        policy.act(observations, bool_mask(infos["action_mask"]), env), device=env.device
    ).long()


def _act(
    policy: Any, observations: torch.Tensor, infos: dict[str, torch.Tensor], env: Any
) -> torch.Tensor:
    """The policy's actions, held to the harness's contract (see :func:`play`'s ``check``)."""
    who = type(policy).__name__
    turns, answers = env.state.turn.clone(), env.state.answers.clone()
    try:
        raw = policy.act(observations, bool_mask(infos["action_mask"]), env)
    except (ValueError, OSError):
        raise  # a refusal that explains itself (a tree that does not fit, a time limit)
    except Exception as exc:
        raise PolicyError(f"{who}.act raised {type(exc).__name__}: {exc}") from exc
    if (
        env.state.turn.shape != turns.shape
        or env.state.answers.shape != answers.shape
        or not bool((env.state.turn == turns).all() and (env.state.answers == answers).all())
    ):
        raise PolicyError(
            f"{who}.act changed the games (it called reset or step?); a policy reads env and "
            "returns actions"
        )
    if raw is None:
        raise PolicyError(f"{who}.act returned None; expected one word index per game")
    actions = torch.as_tensor(raw, device=env.device)
    if actions.is_floating_point() or actions.is_complex() or actions.dtype == torch.bool:
        raise TypeError(
            f"{who}.act returned {actions.dtype} actions; expected integer word indices"
        )
    if actions.shape != (env.num_envs,):
        raise ValueError(f"expected actions of shape ({env.num_envs},); got {tuple(actions.shape)}")
    env.game.check_actions(actions)
    return actions.long()
