"""The rewards, in one place: one interface, :class:`RewardFn`, and its implementations.

* :class:`Outcome`: what a step's guess did, game by game (turn, win, loss, refusal; the tile
  counts, the move's regret and the bits it gave when a reward needs them): the input of every
  reward, batched ((N,) tensors) or for one game (plain numbers).
* :class:`RewardFn`: a reward is a callable over a batched :class:`Outcome` with a ``scalar`` form
  for one game that agrees with it exactly, and ``needs``, the costly fields it reads. Whoever plays
  the game fills them: the engines count the tiles, the text env's oracle values the move
  (``"regret"``), a trainer tracks the candidates (``"bits"``).
* The implementations: :class:`RewardScheme` (linear in the outcome: per guess, win by turn, loss,
  tiles, refusals); :class:`Regret` (the exact cost of the move, the text env's
  ``reward="regret"``); :class:`FormatBonus` (a reply taken in form, the text env's
  ``format_reward``); :class:`InformationGain` (shaping by the bits a guess gave, a trainer's); and
  :class:`RewardSum` of any of them.
* :data:`PRESETS`, the registry every env's ``reward=`` and the trainers' ``reward`` read
  (:func:`get_reward`). A new reward is a class with ``__call__``, ``scalar`` and ``needs``, and an
  entry in :data:`PRESETS` (or its object passed as ``reward=``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    import torch


class Outcome(NamedTuple):
    """What the guess of one step did, game by game. Batched: (N,) tensors (``turn`` int64, the
    flags bool); for one game: plain numbers (hashable: the single env caches rewards by it). A
    field the reward does not read may be None: the tile counts unless it ``needs`` ``"tiles"``,
    ``regret`` and ``bits`` unless it needs those."""

    turn: Any = None
    """Guesses made including this one (1 for the first guess)."""
    won: Any = None
    lost: Any = None
    greens: Any = None
    """Green tiles of this guess (re-entered greens included)."""
    yellows: Any = None
    repeats: Any = None
    """Greens re-entered where they were already known green."""
    invalid: Any = None
    """A hard-mode guess refused (or a text env reply that plays no guess)."""
    active: Any = None
    """(N,) bool: the games this step plays (None: all); the reward is 0 elsewhere."""
    regret: Any = None
    """The move's regret, ``Q*(s, a) - V*(s)`` in expected guesses (the text env's oracle)."""
    bits: Any = None
    """What the guess told about the answer, in bits (a trainer that tracks the candidates)."""


TILES, REGRET, BITS = "tiles", "regret", "bits"
"""The costly :class:`Outcome` fields a reward may need (``needs``): the tile counts (greens,
yellows, repeats; every engine counts them), ``regret`` (the text env) and ``bits`` (a trainer)."""


@runtime_checkable
class RewardFn(Protocol):
    """A reward: ``reward(outcome)`` over a batch, float32 ``(N,)``, 0 where not ``active``; and
    ``reward.scalar(outcome)`` for one game, equal to the batched value exactly."""

    @property
    def needs(self) -> frozenset[str]:
        """The costly fields of the outcome it reads (:data:`TILES`, :data:`REGRET`,
        :data:`BITS`): the others are never computed for it."""
        ...

    def __call__(self, outcome: Outcome) -> torch.Tensor: ...

    def scalar(self, outcome: Outcome) -> float: ...


@dataclass(frozen=True)
class RewardScheme:
    """The reward of one guess is the sum of the terms that apply to it.

    A refused guess (hard mode) scores no tiles: it earns ``step + invalid`` (plus ``loss``
    if it was the last guess).
    """

    step: float = -1.0
    """Added for every guess, refused or not."""
    win: tuple[float, ...] = (0.0,)
    """Added on a win; ``win[k - 1]`` for a win on guess ``k``, the last entry repeating."""
    loss: float = 0.0
    """Added when the last allowed guess misses."""
    green: float = 0.0
    """Per green tile (except re-entered greens, see ``repeat_green``)."""
    yellow: float = 0.0
    """Per yellow tile."""
    repeat_green: float = 0.0
    """Per green tile whose letter was already known green at that position (instead of
    ``green``)."""
    invalid: float = 0.0
    """Added when a hard-mode guess is refused."""

    def __post_init__(self) -> None:
        win = (self.win,) if isinstance(self.win, int | float) else tuple(self.win)
        if not win:
            raise ValueError("RewardScheme.win needs at least one value")
        object.__setattr__(self, "win", tuple(float(w) for w in win))
        for name in ("step", "loss", "green", "yellow", "repeat_green", "invalid", "win"):
            values = getattr(self, name) if name == "win" else (getattr(self, name),)
            if not all(math.isfinite(v) for v in values):
                raise ValueError(f"RewardScheme.{name} must be finite; got {getattr(self, name)!r}")

    @cached_property
    def needs(self) -> frozenset[str]:
        """The tile counts when a tile term is set (they cost time to count)."""
        return frozenset({TILES} if self.green or self.yellow or self.repeat_green else ())

    def __call__(self, outcome: Outcome) -> torch.Tensor:
        """Batched rewards, float32 ``(N,)``; 0 where ``outcome.active`` is False."""
        # here: the schemes themselves (read by the exact solver's command) need no torch
        import torch

        turn, won, lost, greens, yellows, repeats, invalid, active = outcome[:8]
        if active is None:
            reward = torch.full(turn.shape, self.step, dtype=torch.float32, device=turn.device)
        else:  # won, lost, invalid and the tile counts are already 0 where inactive
            reward = torch.where(active, self.step, 0.0)
        if self.needs:
            assert greens is not None and yellows is not None and repeats is not None
            reward += (
                self.green * (greens - repeats)
                + self.yellow * yellows
                + self.repeat_green * repeats
            )
        if any(self.win):
            table = _win_table(self.win, turn.device)
            reward += won * table[(turn - 1).clamp(0, len(self.win) - 1)]
        if self.loss:
            reward += self.loss * lost
        if self.invalid:
            reward += self.invalid * invalid
        return reward

    def scalar(self, outcome: Outcome) -> float:
        """The reward of one game, in plain Python with float32 rounding at each operation as the
        batched form has (so the two agree exactly; the one-game engine uses this)."""
        turn, won, lost, greens, yellows, repeats, invalid = outcome[:7]
        f32 = np.float32
        reward = f32(self.step)
        if self.needs:
            tiles = f32(self.green) * f32(greens - repeats) + f32(self.yellow) * f32(yellows)
            reward += tiles + f32(self.repeat_green) * f32(repeats)
        if won and any(self.win):
            reward += f32(self.win[min(turn - 1, len(self.win) - 1)])
        if lost and self.loss:
            reward += f32(self.loss)
        if invalid and self.invalid:
            reward += f32(self.invalid)
        return float(reward)

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@lru_cache(maxsize=64)
def _win_table(win: tuple[float, ...], device: torch.device) -> torch.Tensor:
    """The win bonuses as a tensor, made once per device (not copied to the device every step)."""
    import torch

    return torch.tensor(win, dtype=torch.float32, device=device)


def _on_active(reward: torch.Tensor, active: torch.Tensor | None) -> torch.Tensor:
    import torch

    return reward if active is None else torch.where(active, reward, 0.0)


@dataclass(frozen=True)
class Regret:
    """Minus the move's exact regret: the text env's ``reward="regret"`` (its oracle values each
    move, or charges a proven upper bound past its budget; see
    :class:`~wordle_gym.envs.text.WordleText`). Over a game the rewards sum to ``V*(start)``
    minus the guesses used."""

    needs = frozenset({REGRET})

    def __call__(self, outcome: Outcome) -> torch.Tensor:
        return _on_active(-outcome.regret.float(), outcome.active)

    def scalar(self, outcome: Outcome) -> float:
        return -float(outcome.regret)


@dataclass(frozen=True)
class FormatBonus:
    """``amount`` for every reply the game takes (a refused or unreadable one earns nothing): the
    text env's ``format_reward``, a shaping term for a model's first steps of answering in form."""

    amount: float = 0.0
    needs = frozenset()

    def __call__(self, outcome: Outcome) -> torch.Tensor:
        return _on_active(self.amount * ~outcome.invalid, outcome.active)

    def scalar(self, outcome: Outcome) -> float:
        return 0.0 if outcome.invalid else self.amount


@dataclass(frozen=True)
class InformationGain:
    """``weight`` times the bits a guess told about the answer (:func:`information_bits`): a
    trainer's shaping term, added to the env's reward (the A2C variants' ``info_gain``)."""

    weight: float = 0.0
    needs = frozenset({BITS})

    def __call__(self, outcome: Outcome) -> torch.Tensor:
        active = outcome.active
        return self.weight * outcome.bits * (1 if active is None else active)

    def scalar(self, outcome: Outcome) -> float:
        return self.weight * float(outcome.bits)


class RewardSum:
    """Rewards added term by term, in order: ``RewardSum(Regret(), FormatBonus(0.1))``."""

    def __init__(self, *terms: RewardFn) -> None:
        if not terms or not all(isinstance(term, RewardFn) for term in terms):
            raise ValueError(f"RewardSum adds RewardFn objects; got {terms!r}")
        self.terms = terms
        self.needs = frozenset().union(*(term.needs for term in terms))

    def __call__(self, outcome: Outcome) -> torch.Tensor:
        total = self.terms[0](outcome)
        for term in self.terms[1:]:
            total = total + term(outcome)
        return total

    def scalar(self, outcome: Outcome) -> float:
        total = self.terms[0].scalar(outcome)
        for term in self.terms[1:]:
            total += term.scalar(outcome)
        return total

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RewardSum) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(self.terms)

    def __repr__(self) -> str:
        return f"RewardSum{self.terms!r}"


PRESETS: dict[str, RewardFn] = {
    "default": RewardScheme(step=-1.0, loss=-5.0, invalid=-1.0),
    "win-bonus": RewardScheme(step=0.0, win=(1.0, 1.0, 1.0, 1.0, 0.5), loss=-10.0, invalid=-1.0),
    "tile-shaped": RewardScheme(
        step=-5.0, win=(15.0,), loss=-15.0, green=1.0, yellow=1.0, repeat_green=-0.1, invalid=-5.0
    ),
    "sparse": RewardScheme(step=0.0, win=(1.0,)),
    "win-first": RewardScheme(step=-1.0, loss=-20.0, invalid=-1.0),
    "regret": Regret(),
}
"""The named rewards (:data:`ABOUT` says what each pays)."""

ABOUT = {
    "default": "-1 per guess and -5 more for a loss: a win on guess k returns -k",
    "win-bonus": "+1 for a win on guesses 1-4, +0.5 on 5-6, -10 for a loss: the A2C write-up's",
    "tile-shaped": "+1 per green or yellow tile, -0.1 instead for a green re-entered where it was "
    "already known, -5 per guess, +15 win, -15 loss: the DQN write-up's",
    "sparse": "+1 for a win, nothing else",
    "win-first": "-1 per guess and -20 more for a loss: every game won first, a loss costing as "
    "much as 20 guesses elsewhere, then few guesses",
    "regret": "minus the exact cost of each move in expected guesses, Q*(s, a) - V*(s) (the text "
    "env's: the exact solver values the move)",
}
"""What each of :data:`PRESETS` pays, in a line (the docs' lists are made from it)."""

ALIASES = {
    "a2c": "win-bonus",
    "dqn": "tile-shaped",
    "seed000": "win-bonus",
    "seed001": "tile-shaped",
}
"""Other names of presets: the agents they were written for, and their old names (saved specs and
checkpoints name them)."""


def presets_text(skip: tuple[str, ...] = ()) -> str:
    """Every preset but ``skip``, as the docs list them: ``"name"`` (what it pays; its other
    names)."""
    others: dict[str, list[str]] = {}
    for alias, name in ALIASES.items():
        others.setdefault(name, []).append(f'``"{alias}"``')
    return "; ".join(
        f'``"{name}"`` ({ABOUT[name]}'
        + (f"; also {', '.join(others[name])}" if name in others else "")
        + ")"
        for name in PRESETS
        if name not in skip
    )


PRESETS_MARK = "<the presets>"
"""Where a docstring lists the presets: :func:`with_presets` writes them there."""


def with_presets(doc: str | None, skip: tuple[str, ...] = ()) -> str | None:
    """``doc`` with :data:`PRESETS_MARK` replaced by :func:`presets_text` (an env's docstring lists
    the registry's presets, not names written by hand)."""
    return doc.replace(PRESETS_MARK, presets_text(skip)) if doc else doc


def canonical_reward(name: str) -> str:
    """A preset's name, an alias resolved (another string as it is)."""
    return ALIASES.get(name, name)


def get_reward(reward: str | RewardFn | dict) -> RewardFn:
    """A preset by name (see :data:`PRESETS`; :data:`ALIASES`), a reward object as given, or a
    :class:`RewardScheme`'s fields as a dict (how a scheme comes back from an env spec's JSON)."""
    if isinstance(reward, RewardFn):
        return reward
    if isinstance(reward, dict):
        names = [f.name for f in fields(RewardScheme)]
        unknown = sorted(set(reward) - set(names), key=str)
        if unknown:
            raise ValueError(f"unknown RewardScheme field(s) {unknown}; expected any of {names}")
        return RewardScheme(**reward)
    key = ALIASES.get(reward, reward) if isinstance(reward, str) else None
    if key not in PRESETS:
        raise ValueError(
            f"unknown reward {reward!r}; expected a RewardScheme, a RewardFn or one of "
            f"{sorted([*PRESETS, *ALIASES])}"
        )
    return PRESETS[key]


_FILLED_BY = {
    TILES: "every engine",
    REGRET: "WordleText's oracle (reward='regret')",
    BITS: "a trainer that tracks the candidates (a shaping term)",
}


def scalar_reward(reward: RewardFn, outcome: Outcome) -> float:
    """``reward.scalar(outcome)``, held to be one finite number (a ValueError naming the reward
    and what it gave otherwise: a NaN, an infinity, an array or a string is never a reward)."""
    value = reward.scalar(outcome)
    if hasattr(value, "numel") and hasattr(value, "item") and value.numel() == 1:  # a tensor
        value = value.item()
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float | np.integer | np.floating)
        or not math.isfinite(value)
    ):
        shown = f"a {type(value).__name__}" if not isinstance(value, int | float) else repr(value)
        raise ValueError(
            f"the reward {type(reward).__name__} gave {shown} for one move; expected one finite "
            "number"
        )
    return float(value)


def batch_reward(reward: RewardFn, outcome: Outcome, games: int) -> torch.Tensor:
    """``reward(outcome)``, held to be one float per game (``games``,): its shape and type, which
    cost nothing to read. Its values are not read back (a host sync each step, which the hot loops
    never make): a :class:`RewardScheme`'s are finite by its fields; one move's reward
    (:func:`scalar_reward`) is checked whole."""
    import torch

    value = reward(outcome)
    if (
        not isinstance(value, torch.Tensor)
        or value.shape != (games,)
        or not value.dtype.is_floating_point
    ):
        shown = (
            f"a tensor of shape {tuple(value.shape)} and {value.dtype}"
            if isinstance(value, torch.Tensor)
            else f"a {type(value).__name__}"
        )
        raise ValueError(
            f"the reward {type(reward).__name__} gave {shown} for {games} games; expected {games} "
            "floats"
        )
    return value


def reward_for(reward: str | RewardFn | dict, player: str, fills: frozenset[str]) -> RewardFn:
    """The reward as :func:`get_reward` gives it, refused in one line naming who fills them if
    it reads an :class:`Outcome` field that ``player`` (which fills ``fills``) does not compute."""
    resolved = get_reward(reward)
    unknown = sorted(str(name) for name in set(resolved.needs) - set(_FILLED_BY))
    if unknown:
        raise ValueError(
            f"reward {type(resolved).__name__} needs {unknown}, which no outcome has; a reward "
            f"needs some of {sorted(_FILLED_BY)}"
        )
    beyond = sorted(resolved.needs - fills)
    if beyond:
        who = "; ".join(f"{field}: {_FILLED_BY[field]}" for field in beyond)
        raise ValueError(
            f"reward {reward!r} reads the outcome's {beyond}, which {player} does not compute "
            f"({who})"
        )
    return resolved


def information_bits(
    table: torch.Tensor, candidates: torch.Tensor, actions: torch.Tensor, answers: torch.Tensor
) -> torch.Tensor:
    """The bits each game's guess ``actions`` (N,) gives about its answer ``answers`` (N,): log2 of
    how many ``candidates`` ((N, K) bool) were consistent before it over how many are after, with
    the pattern ``table`` ((A, K): the pattern each answer shows each guess). Narrows ``candidates``
    in place."""
    import torch

    before = candidates.sum(1)
    rows = table[actions]  # (N, K): the pattern each answer would show
    candidates &= rows == rows.gather(1, answers[:, None])
    return torch.log2(before.float()) - torch.log2(candidates.sum(1).float())
