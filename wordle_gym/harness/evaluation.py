"""The common evaluation harness: any policy, every answer once, one batched pass.

A *policy* is anything with an ``act`` method (no base class, no ``isinstance`` checks)::

    class MyPolicy:
        def act(self, observations, action_masks, env):
            # observations: (N, *obs_shape) tensor on env.device
            # action_masks: (N, num_allowed) bool tensor on env.device
            # env: the WordleVectorEnv, for read access to env.state (the games' history),
            #      env.vocabulary and env.config; a policy must not step or reset it.
            return actions  # (N,) integer tensor of word indices

Example:
    >>> from wordle_gym.harness.evaluation import evaluate
    >>> result = evaluate(MyPolicy(), answers="answers", device="cpu")  # doctest: +SKIP
    >>> print(result.markdown_row())  # doctest: +SKIP
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import torch

from wordle_gym.core.config import WordleConfig
from wordle_gym.envs.vector import WordleVectorEnv
from wordle_gym.harness.play import PolicyError, bool_mask, play, standard_games
from wordle_gym.utils.files import atomic_write_json

__all__ = [
    "EvalResult",
    "GuessesFrom",
    "Policy",
    "PolicyError",
    "bool_mask",
    "evaluate",
    "word_actions",
]


@runtime_checkable
class Policy(Protocol):
    """What the harness needs from an agent: one action per game."""

    def act(
        self, observations: torch.Tensor, action_masks: torch.Tensor, env: WordleVectorEnv
    ) -> torch.Tensor:
        """Return (N,) integer word indices for the games in ``env``; ``action_masks`` is (N, A)
        bool (the harness passes bool; :func:`bool_mask` also accepts the envs' int8 info masks).

        A policy may also have ``stats()``, returning a dict of JSON data that :func:`evaluate` adds
        to the result's ``extra`` (what it counted itself: a language model's requests, tokens and
        transcripts)."""
        ...


def word_actions(
    env: WordleVectorEnv, words: Sequence[str], who: str = "the agent", hint: str = ""
) -> torch.Tensor:
    """The env's action index of each of ``words``: (len(words),) int64 on ``env.device``.

    A word the env does not allow as a guess is an error that names ``who`` and one such word."""
    index = env.vocabulary.allowed_index
    missing = [w for w in words if w not in index]
    if missing:
        raise ValueError(
            f"{who} guesses words this env does not allow ({len(missing)}, e.g. "
            f"{missing[0]!r}){hint}"
        )
    return torch.tensor([index[w] for w in words], dtype=torch.int64, device=env.device)


class GuessesFrom:
    """``policy`` restricted to guessing among ``words`` (a subset of the env's allowed guesses).

    How an agent trained on a smaller vocabulary plays the real game legally: it guesses only
    words it knows. The env's own mask still applies on top.
    """

    def __init__(self, policy: Any, words: Sequence[str]) -> None:
        self.policy, self.words = policy, tuple(words)
        self.name = getattr(policy, "name", type(policy).__name__)
        self.checkpoint = getattr(policy, "checkpoint", None)
        self.provenance = getattr(policy, "provenance", {})
        self._mask: tuple[Any, torch.Tensor] | None = None

    def act(
        self, observations: torch.Tensor, action_masks: torch.Tensor, env: WordleVectorEnv
    ) -> torch.Tensor:
        if self._mask is None or self._mask[0] is not env:
            mask = torch.zeros(len(env.words), dtype=torch.bool, device=env.device)
            mask[word_actions(env, self.words, self.name)] = True
            self._mask = (env, mask)
        return self.policy.act(observations, bool_mask(action_masks) & self._mask[1], env)


@dataclass
class EvalResult:
    """The outcome of :func:`evaluate`. Serialises to JSON and to a Markdown table row."""

    agent: str
    """Name of the agent (and its settings) for tables."""
    games: int
    """Games played: one per answer (for ``K`` boards, the standard set's K-tuples)."""
    wins: int
    max_guesses: int
    """The game's guess limit (a loss counts as max_guesses + 1 in ``mean_guesses_all``)."""
    histogram: list[int]
    """Games won in 1, 2, ..., max_guesses guesses, then the number lost."""
    lost_answers: list[str]
    """The answers of the games lost (``"a/b/c/d"`` for multi-board games)."""
    openers: dict[str, int]
    """First guesses played, with how many games opened with each."""
    wall_time_s: float
    """Wall time of the whole evaluation, building the env and the agent's first moves included."""
    device: str
    hard_mode: bool = False
    answers: str = "answers"
    """Which answer list (a name, or "custom (N words)")."""
    num_allowed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    """Anything else worth keeping (training time, checkpoint, the gap to optimal play, ...)."""
    guesses: list[int] | None = None
    """Guesses used on each answer, in the answer list's order (``max_guesses + 1`` for a loss)."""
    histories: list[list[int]] | None = None
    """The actions played on each answer, in the answer list's order
    (``evaluate(..., histories=True)``):
    what :mod:`wordle_gym.solver.oracle` measures the regret of each decision from."""
    boards: int = 1
    """Boards per game (1: Wordle; ``extra["boards_solved"]`` then holds the mean boards solved a
    game)."""

    def __post_init__(self) -> None:
        if not isinstance(self.games, int) or self.games < 1:
            raise ValueError(f"a result needs at least one game; got games={self.games!r}")
        if not isinstance(self.histogram, list) or len(self.histogram) != self.max_guesses + 1:
            raise ValueError(f"histogram must have max_guesses + 1 = {self.max_guesses + 1} counts")
        if sum(self.histogram) != self.games or self.games - self.histogram[-1] != self.wins:
            raise ValueError(
                f"histogram {self.histogram} does not add up to {self.games} games "
                f"and {self.wins} wins"
            )
        if self.guesses is not None:
            counts = Counter(self.guesses)
            if (
                len(self.guesses) != self.games
                or [counts[k] for k in range(1, self.max_guesses + 2)] != self.histogram
            ):
                raise ValueError(f"per-answer guesses do not match the histogram {self.histogram}")

    @property
    def win_rate(self) -> float:
        return self.wins / self.games  # games >= 1: checked on construction

    @property
    def mean_guesses_wins(self) -> float:
        """Mean guesses over won games (nan if none)."""
        total = sum(k * c for k, c in enumerate(self.histogram[: self.max_guesses], start=1))
        return total / self.wins if self.wins else float("nan")

    @property
    def mean_guesses_all(self) -> float:
        """Mean guesses counting each loss as ``max_guesses + 1``."""
        total = sum(k * c for k, c in enumerate(self.histogram, start=1))
        return total / self.games

    @property
    def worst(self) -> int:
        """Most guesses used in a won game (``max_guesses + 1`` if any game was lost)."""
        return max(k for k, c in enumerate(self.histogram, start=1) if c)

    @property
    def games_per_s(self) -> float:
        return self.games / self.wall_time_s if self.wall_time_s > 0 else float("inf")

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict, with the derived figures added for readers of the file."""
        data = asdict(self)
        data["derived"] = {
            "win_rate": self.win_rate,
            "mean_guesses_wins": self.mean_guesses_wins,
            "mean_guesses_all": self.mean_guesses_all,
            "worst": self.worst,
            "games_per_s": self.games_per_s,
        }
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalResult:
        """Rebuild a result (the ``derived`` figures are recomputed); bad data raises ValueError."""
        if not isinstance(data, dict):
            raise ValueError(f"expected a JSON object; got {type(data).__name__}")
        fields = {k: v for k, v in data.items() if k != "derived"}
        try:
            return cls(**fields)
        except TypeError as exc:
            raise ValueError(str(exc).replace("EvalResult.__init__() ", "")) from None

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> EvalResult:
        return cls.from_dict(json.loads(text))

    def save(self, path: str | Path) -> Path:
        """Write JSON atomically; returns the path."""
        return atomic_write_json(path, self.to_dict())

    MARKDOWN_HEADER = (
        "| agent | win % | mean guesses (wins) | mean (loss = {x}) | max | histogram 1..{t} + X | "
        "eval time | games/s | device |\n| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | "
        "--- |"
    )

    def markdown_header(self) -> str:
        return self.MARKDOWN_HEADER.format(x=self.max_guesses + 1, t=self.max_guesses)

    def markdown_row(self) -> str:
        hist = " ".join(str(c) for c in self.histogram)
        worst = "X" if self.histogram[-1] else str(self.worst)
        return (
            f"| {self.agent} | {100 * self.win_rate:.2f} | {self.mean_guesses_wins:.4f} | "
            f"{self.mean_guesses_all:.4f} | {worst} | {hist} | {self.wall_time_s:.2f} s | "
            f"{self.games_per_s:,.0f} | {self.device} |"
        )

    def summary(self) -> str:
        wins = f"mean {self.mean_guesses_wins:.4f} guesses on wins" if self.wins else "no game won"
        return (
            f"{self.agent}: {self.wins}/{self.games} won ({100 * self.win_rate:.2f} %), "
            f"{wins}, {self.mean_guesses_all:.4f} with losses as "
            f"{self.max_guesses + 1}; {self.wall_time_s:.2f} s on {self.device}"
        )


def _answers_name(config: WordleConfig, count: int) -> str:
    """The answers an evaluation played, as its result names them (a list's name, or a custom
    list's size; with a split, the split's)."""
    name = config.answers if isinstance(config.answers, str) else f"custom ({count} words)"
    if config.answer_pool is not None:
        name += (
            f" ({config.split} split, seed {config.split_seed}: {len(config.answer_pool)} answers)"
        )
    return name


def _lost_answers(
    env: Any, config: WordleConfig, num: int, lost: list[int]
) -> tuple[list[str], dict]:
    """The answers of the games ``lost`` (several boards': joined by "/"), and with several
    boards the boards solved a game (of ``num``), as the result's extra."""
    if config.boards > 1:
        words = env.vocabulary.answers
        lost_answers = ["/".join(words[i] for i in env.state.answers[g].tolist()) for g in lost]
        return lost_answers, {"boards_solved": float(env.state.solved.sum()) / num}
    # game g played answer env.state.answers[g] (with a split, not answer number g)
    played = env.state.answers.reshape(num, -1)[:, 0].tolist()
    return [env.vocabulary.answers[played[g]] for g in lost], {}


def evaluate(
    policy: Policy,
    config: WordleConfig | None = None,
    *,
    device: torch.device | str | None = "auto",
    agent: str | None = None,
    progress: bool | None = None,
    histories: bool = False,
    games: int | None = None,
    **options: Any,
) -> EvalResult:
    """Play every answer exactly once with ``policy``, all games in one batch, and report; with
    ``boards=K``, the standard multi-board set (:func:`~wordle_gym.harness.play.standard_games`;
    ``games`` sets its size).

    The game is what the envs take: ``config``, or its fields as keywords (``answers``, ``allowed``,
    ``max_guesses``, ``hard_mode``, ``reward``, ``observation``, ``action_mask``, ``obs_dtype``; the
    defaults are the real game's), ``answers=None`` meaning the default. Deterministic for a
    deterministic policy. ``agent`` names the policy in the result; ``progress=None`` shows a bar on
    a terminal only. ``histories=True`` keeps every game's actions in the result (for the oracle's
    regrets).
    """
    start = time.perf_counter()
    if "answers" in options and options["answers"] is None:
        del options["answers"]
    config = WordleConfig.build(config, **options)
    if games is not None and config.boards == 1:
        raise ValueError(
            "games= sizes the multi-board evaluation set; one board plays every answer once"
        )
    games = play(
        policy,
        config,
        games=standard_games(config, games),
        device=device,
        progress=progress,
        desc="evaluate",
    )
    num, max_guesses = len(games.won), config.max_guesses
    wins = int(games.won.sum())
    counts = torch.bincount(games.guesses[games.won], minlength=max_guesses + 1)[1:].tolist()
    lost = torch.nonzero(~games.won).flatten().tolist()
    env = games.env
    openers = Counter(env.words[a] for a in games.actions[:, 0].tolist())
    name = agent or getattr(policy, "name", None) or type(policy).__name__
    lost_answers, extra = _lost_answers(env, config, num, lost)
    stats = getattr(policy, "stats", None)
    # what the agent counted itself (a language model's requests and tokens, ...)
    if callable(stats):
        extra.update(stats())
    return EvalResult(
        agent=str(name),
        games=num,
        wins=wins,
        max_guesses=max_guesses,
        histogram=[*counts, num - wins],
        lost_answers=lost_answers,
        openers=dict(openers.most_common()),
        wall_time_s=time.perf_counter() - start,
        device=str(env.device),
        hard_mode=config.hard_mode,
        answers=_answers_name(config, env.vocabulary.num_answers),
        num_allowed=env.vocabulary.num_allowed,
        guesses=games.guesses.tolist(),
        histories=games.histories if histories else None,
        boards=config.boards,
        extra=extra,
    )
