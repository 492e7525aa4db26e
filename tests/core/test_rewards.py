"""The reward interface: every implementation's batched and one-game forms agree exactly, an engine
refuses a reward it cannot fill, and the text env plays the regret and format terms through it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from wordle_gym.core.config import WordleConfig
from wordle_gym.core.rewards import (
    PRESETS,
    FormatBonus,
    InformationGain,
    Outcome,
    Regret,
    RewardFn,
    RewardSum,
    get_reward,
)

REWARDS = {
    "regret": Regret(),
    "format": FormatBonus(0.25),
    "bits": InformationGain(0.05),
    "scheme+format": RewardSum(PRESETS["tile-shaped"], FormatBonus(-0.5)),
    "regret+format+bits": RewardSum(Regret(), FormatBonus(0.1), InformationGain(0.3)),
}


def _outcomes(n: int, seed: int) -> Outcome:
    g = torch.Generator().manual_seed(seed)
    turn = torch.randint(1, 7, (n,), generator=g)
    won = torch.rand(n, generator=g) < 0.3
    invalid = ~won & (torch.rand(n, generator=g) < 0.2)
    greens = torch.where(won, 5, torch.randint(0, 5, (n,), generator=g))
    # as the engines give them: the flags and tile counts 0 on the games the step does not play
    active = torch.rand(n, generator=g) < 0.8
    won, invalid = won & active, invalid & active
    return Outcome(
        turn=turn,
        won=won,
        lost=~won & (turn == 6) & active,
        greens=torch.where(invalid | ~active, 0, greens),
        yellows=torch.where(invalid | won | ~active, 0, torch.randint(0, 3, (n,), generator=g)),
        repeats=torch.zeros(n, dtype=torch.int64),
        invalid=invalid,
        active=active,
        # the float32 values a tensor holds, so that both forms read the same numbers
        regret=torch.rand(n, generator=g, dtype=torch.float64).float().double() * 0.3,
        bits=torch.rand(n, generator=g) * 8,
    )


@pytest.mark.parametrize("name", list(REWARDS))
def test_reward__batched_and_one_game_forms_agree(name: str) -> None:
    """Each implementation is a RewardFn whose batched value is its one-game value, game by game,
    and 0 off the active games."""
    reward = REWARDS[name]
    assert isinstance(reward, RewardFn)
    batch = _outcomes(400, seed=len(name))
    values = reward(batch)
    assert values.shape == (400,)
    for i in range(400):
        one = Outcome(*(f[i].item() for f in batch))._replace(active=None)
        expected = reward.scalar(one) if batch.active[i] else 0.0
        assert values[i].item() == pytest.approx(expected, rel=1e-6, abs=1e-6), i
    assert "regret" in reward.needs or name in ("format", "bits", "scheme+format")


def test_reward__an_engine_refuses_what_it_cannot_fill() -> None:
    """``regret`` and the bits are filled by the text env and a trainer: an engine's config names
    who gives them, as does the text env for the bits; an unknown name lists the registry."""
    from wordle_gym.envs.text import WordleTextEnv

    with pytest.raises(
        ValueError,
        match=r"reward 'regret' reads the outcome's \['regret'\].*"
        "WordleText",
    ):
        WordleConfig(reward="regret")
    with pytest.raises(ValueError, match=r"\['bits'\].*trainer"):
        WordleConfig(reward=InformationGain(0.1))
    with pytest.raises(ValueError, match=r"\[.bits.\], which WordleText does not compute"):
        WordleTextEnv(reward=RewardSum(Regret(), InformationGain(0.1)))
    with pytest.raises(ValueError, match="RewardSum adds RewardFn objects"):
        RewardSum("default")
    assert get_reward("regret") is PRESETS["regret"]


def test_text_env__regret_and_format_are_reward_terms() -> None:
    """The text env's reward is its RewardFn over the reply's outcome: ``format_reward`` is a
    FormatBonus added to the preset, the same as the sum given as ``reward=``; a tile reward counts
    the tiles though the engine's default would not."""
    from wordle_gym.envs.text import WordleTextEnv

    words = {"answers": ["cigar", "rebut", "sissy", "humph"], "allowed": None}
    replies = ["rebut", "no idea", "sissy", "cigar"]

    def rewards(**kwargs: object) -> list[float]:
        env = WordleTextEnv(**words, **kwargs)
        env.reset(options={"answer": "cigar"})
        return [env.step(reply)[1] for reply in replies]

    # -1 a reply, a refused one too; the bonus on the three taken
    assert rewards(format_reward=0.5) == [-0.5, -2.0, -0.5, -0.5]
    assert rewards(reward=RewardSum(PRESETS["default"], FormatBonus(0.5))) == [-0.5, -2, -0.5, -0.5]
    tiles = PRESETS["tile-shaped"]
    # -5 a reply, -5 more refused; REBUT vs CIGAR: 1 yellow (R); SISSY: 1 green (I); CIGAR: 4
    # greens, I re-entered (-0.1) and the win (+15); each taken reply +1
    expected = [-3.0, -10.0, -3.0, 14.9]
    assert rewards(reward=RewardSum(tiles, FormatBonus(1.0))) == pytest.approx(expected)
    shaped = WordleTextEnv(**words, reward=RewardSum(Regret(), tiles))
    assert shaped.regret and shaped._scalar._needs_tiles
    assert not WordleTextEnv(**words)._scalar._needs_tiles


def test_text_env__the_regret_sum_equals_regret_with_the_format_reward() -> None:
    """``reward="regret", format_reward=x`` and ``reward=RewardSum(Regret(), FormatBonus(x))`` give
    the same rewards and info, reply by reply (the exact oracle on a small game)."""
    from wordle_gym.envs.text import WordleTextEnv

    answers = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade"]
    replies = ["blush", "I pass", "cigar"]
    runs = []
    for kwargs in (
        {"reward": "regret", "format_reward": 0.1},
        {"reward": RewardSum(Regret(), FormatBonus(0.1))},
    ):
        env = WordleTextEnv(answers=answers, allowed=None, **kwargs)
        env.reset(options={"answer": "cigar"})
        runs.append([env.step(r) for r in replies])
    for a, b in zip(*runs, strict=True):
        assert a[1] == b[1] and a[4]["regret_basis"] == b[4]["regret_basis"]
        assert np.array_equal(a[4]["regret_bounds"], b[4]["regret_bounds"])
    # the refused reply costs the turn's regret, with no bonus; the taken ones earn it
    assert runs[0][1][1] <= 0 and runs[0][0][1] == pytest.approx(-runs[0][0][4]["regret"] + 0.1)


def test_reward_needs__an_unknown_field_is_one_line_not_a_key_error() -> None:
    """Reliability 6, finding 11: a RewardFn with ``needs={'foo'}`` raised ``KeyError: 'foo'``."""
    import gymnasium as gym

    import wordle_gym  # noqa: F401 (registers the ids)

    class Foo:
        needs = frozenset({"foo"})

        def __call__(self, outcome):  # type: ignore[no-untyped-def]
            return outcome.won.float()

        def scalar(self, outcome):  # type: ignore[no-untyped-def]
            return 0.0

    with pytest.raises(ValueError, match=r"needs \['foo'\], which no outcome has"):
        env = gym.make("Wordle-v1", reward=Foo())
        env.reset(seed=0)
        env.step(0)
