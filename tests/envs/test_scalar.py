"""The one-game engine (wordle_gym.envs.scalar, behind WordleEnv) against the batched engine (Game).

The single env runs its own plain-Python copy of the rules for speed; here it is held to
``Game`` step by step: observations, rewards, terminations, tiles, masks, infos and the
state, over 10^5 random steps in each configuration below, with games that are won, lost
and (in hard mode) refused.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
import torch

from tests.helpers.reference import few_letter_words
from tests.helpers.rewards import Quadratic
from wordle_gym import WordleEnv
from wordle_gym.core import _kernels
from wordle_gym.core.compiled import CompiledGame
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.game import Game
from wordle_gym.core.rewards import RewardScheme
from wordle_gym.core.rules import feedback, feedback_one
from wordle_gym.core.words import encode, load_word_list
from wordle_gym.envs.observation import OBSERVATIONS
from wordle_gym.envs.scalar import ScalarGame

ODD = RewardScheme(
    step=-0.7,
    win=(3.3, 2.1, 0.9),
    loss=-4.1,
    green=0.3,
    yellow=0.11,
    repeat_green=-0.07,
    invalid=-2.9,
)


def _words(length: int, count: int, seed: int) -> list[str]:
    """Words over a small alphabet, so that repeated letters are common."""
    return few_letter_words(random.Random(seed), "abcdeo", length, count)


CONFIGS = {
    "default": WordleConfig(),
    "real+candidates": WordleConfig(action_mask="candidates"),
    "real+hard": WordleConfig(hard_mode=True),
    "answers-only+hard+tile-shaped": WordleConfig(
        allowed=None, hard_mode=True, reward="tile-shaped"
    ),
    "answers-only+candidates+board+win-bonus": WordleConfig(
        allowed=None, action_mask="candidates", observation="board", reward="win-bonus"
    ),
    "answers-only+hard+candidates+float+sparse": WordleConfig(
        allowed=None, hard_mode=True, action_mask="candidates", obs_dtype="float32", reward="sparse"
    ),
    "hard+all+board+odd": WordleConfig(
        hard_mode=True, action_mask="all", observation="board", reward=ODD
    ),
    "answers-only+hard+quadratic": WordleConfig(allowed=None, hard_mode=True, reward=Quadratic()),
    "4-letter+8-guesses+candidates+odd": WordleConfig(
        answers=_words(4, 300, 1)[:150],
        allowed=_words(4, 300, 1),
        max_guesses=8,
        action_mask="candidates",
        reward=ODD,
    ),
    "6-letter+hard+board+float": WordleConfig(
        answers=_words(6, 400, 2),
        allowed=None,
        max_guesses=5,
        hard_mode=True,
        observation="board",
        obs_dtype="float32",
    ),
    "3-letter+hard+candidates+tile-shaped": WordleConfig(
        answers=_words(3, 120, 3),
        allowed=None,
        max_guesses=4,
        hard_mode=True,
        action_mask="candidates",
        reward="tile-shaped",
    ),
}


def _pick(game: Game, state, rng: torch.Generator) -> torch.Tensor:
    """Mostly random words; the answer one time in eight (so games are won at every turn); a
    quarter words the configured mask allows (hard-valid ones in hard mode, candidates)."""
    n = state.num_games
    actions = torch.randint(game.num_allowed, (n,), generator=rng)
    kind = torch.randint(8, (n,), generator=rng)
    actions = torch.where(kind == 0, game.answer_actions[state.answers], actions)
    rows = (kind >= 6).nonzero().flatten()
    if len(rows) and game.mask_mode != "all":
        mask = game.action_mask(state)[rows]
        actions[rows] = torch.rand(mask.shape, generator=rng).masked_fill_(~mask, -1.0).argmax(1)
    return actions


def _expected_info(game: Game, state, tiles, won, invalid) -> dict[str, np.ndarray]:
    return {
        "action_mask": game.action_mask(state).numpy().astype(np.int8),
        "turn": state.turn.numpy(),
        "tiles": tiles.numpy(),
        "invalid": invalid.numpy(),
        "won": won.numpy(),
        "is_success": won.numpy(),
    }


def _check(envs, infos, expected, what: str) -> None:
    for key, want in expected.items():
        got = np.stack([np.asarray(info[key]) for info in infos])
        assert got.dtype == want.dtype, (what, key, got.dtype)
        assert np.array_equal(got, want), (what, key)
    masks = np.stack([env.action_masks() for env in envs])
    assert masks.dtype == bool and np.array_equal(masks, expected["action_mask"].astype(bool)), what


def _assert_same_state(env: WordleEnv, state, row: int) -> None:
    mine = env.state
    for name in (
        "answers",
        "turn",
        "won",
        "done",
        "guesses",
        "tiles",
        "green",
        "excluded",
        "min_count",
        "max_count",
    ):
        assert torch.equal(getattr(mine, name)[0], getattr(state, name)[row]), name
    if state.candidates is not None:
        assert torch.equal(mine.candidates[0], state.candidates[row])


# The batched engine has two forms on the CPU: the torch reference and the compiled copies of
# wordle_gym.core._kernels (CompiledGame: the masks, and from its compiled_from rows the step's
# feedback, knowledge update, resets and observation); both are held to the scalar engine, 2 x 10^3
# steps each in the default run. The slow run takes 3 x 10^4 steps of the torch engine in every
# configuration, and of the compiled one on the real lists with each of its masks.
CASES = [
    *(
        pytest.param(name, engine, 50, 40, id=f"{name}-{engine}-2e3")
        for name in CONFIGS
        for engine in ("torch", "compiled")
    ),
    *(
        pytest.param(name, "torch", 100, 300, id=f"{name}-torch-3e4", marks=pytest.mark.slow)
        for name in CONFIGS
        if not name.startswith("real+")
    ),
    *(
        pytest.param(name, "compiled", 100, 300, id=f"{name}-compiled-3e4", marks=pytest.mark.slow)
        for name in ("default", "real+candidates", "real+hard")
    ),
]


@pytest.mark.parametrize(("name", "engine", "games", "steps"), CASES)
def test_scalar__equals_batched_engine_step_by_step(
    name: str, engine: str, games: int, steps: int
) -> None:
    config = CONFIGS[name]
    envs = [WordleEnv(config) for _ in range(games)]
    if engine == "compiled" and not _kernels.available():
        pytest.skip("numba does not import here")
    game = (
        CompiledGame(config, torch.device("cpu"))
        if engine == "compiled"
        else Game(config, torch.device("cpu"))
    )
    if isinstance(game, CompiledGame):
        game.compiled_from = 0  # every step compiled
    encode_obs = OBSERVATIONS[config.observation](game)
    gen = torch.Generator().manual_seed(7)
    state = game.new_state(games)
    answers = torch.randint(game.num_answers, (games,), generator=gen)
    game.reset(state, None, answers)
    resets = [env.reset(options={"answer": int(a)}) for env, a in zip(envs, answers, strict=True)]
    blank = torch.full((games, game.length), 3, dtype=torch.uint8)
    no = torch.zeros(games, dtype=torch.bool)
    assert np.array_equal(np.stack([o for o, _ in resets]), encode_obs(state).numpy())
    _check(envs, [i for _, i in resets], _expected_info(game, state, blank, no, no), "reset")
    counts = {"won": 0, "lost": 0, "refused": 0}
    everyone = torch.ones(games, dtype=torch.bool)
    for t in range(steps):
        actions = _pick(game, state, gen)
        outcome = game.step(state, actions, everyone)
        results = [env.step(int(a)) for env, a in zip(envs, actions, strict=True)]
        obs = np.stack([r[0] for r in results])
        want_obs = encode_obs(state).numpy()
        assert obs.dtype == want_obs.dtype and np.array_equal(obs, want_obs), (name, t)
        rewards = np.array([r[1] for r in results], dtype=np.float64)
        assert np.array_equal(rewards, outcome.reward.double().numpy()), (name, t)
        assert [r[2] for r in results] == outcome.terminated.tolist()
        assert not any(r[3] for r in results)
        infos = [r[4] for r in results]
        _check(
            envs,
            infos,
            _expected_info(game, state, outcome.tiles, outcome.won, outcome.invalid),
            f"{name} {t}",
        )
        if t % 97 == 0:
            for row in range(0, games, 7):
                _assert_same_state(envs[row], state, row)
                envs[row].state = envs[row].state  # the game goes on from a reloaded snapshot
        counts["won"] += int(outcome.won.sum())
        counts["lost"] += int((outcome.terminated & ~outcome.won).sum())
        counts["refused"] += int(outcome.invalid.sum())
        done = outcome.terminated
        if bool(done.any()):
            fresh = torch.randint(game.num_answers, (games,), generator=gen)
            game.reset(state, done, fresh)
            for row in done.nonzero().flatten().tolist():
                envs[row].reset(options={"answer": int(fresh[row])})
    assert counts["won"] > steps and counts["lost"] > steps // 10, counts
    assert (counts["refused"] > steps) == config.hard_mode, counts


@pytest.mark.parametrize(
    "name",
    ["default", "real+hard", "answers-only+candidates+board+win-bonus", "hard+all+board+odd"],
)
def test_scalar_spend__equals_the_batched_engines_turn_without_a_guess(name: str) -> None:
    """``ScalarGame.skip_turn`` (the text env's refused reply, in the one-game engine) against
    ``Game.skip_turn``, steps and skipped turns interleaved at random: rewards, terminations,
    observations and the state, game by game."""
    config = CONFIGS[name]
    game = Game(config, torch.device("cpu"))
    encode_obs = OBSERVATIONS[config.observation](game)
    gen = torch.Generator().manual_seed(11)
    games = 24
    state = game.new_state(games)
    answers = torch.randint(game.num_answers, (games,), generator=gen)
    game.reset(state, None, answers)
    ones = [ScalarGame(game, config.observation) for _ in range(games)]
    for one, answer in zip(ones, answers.tolist(), strict=True):
        one.new(answer)
    spent = 0
    for _ in range(45):
        spend = torch.rand(games, generator=gen) < 0.3
        actions = _pick(game, state, gen)
        by_spend = game.skip_turn(state, spend)
        by_step = game.step(state, actions, ~spend)
        want_obs = encode_obs(state).numpy()
        for row, one in enumerate(ones):
            if spend[row]:
                reward, terminated = one.skip_turn()
                assert reward == float(by_spend.reward[row]) and terminated == bool(
                    by_spend.terminated[row]
                )
                spent += 1
            else:
                _, reward, terminated, _ = one.step(int(actions[row]))
                assert reward == float(by_step.reward[row]) and terminated == bool(
                    by_step.terminated[row]
                )
            mine = one.state()
            for field in (
                "turn",
                "won",
                "done",
                "guesses",
                "tiles",
                "green",
                "excluded",
                "min_count",
                "max_count",
            ):
                assert torch.equal(getattr(mine, field)[0], getattr(state, field)[row]), (
                    name,
                    field,
                )
            assert np.array_equal(
                one.observation(want_obs.dtype.type).reshape(-1), want_obs[row].reshape(-1)
            )
        done = state.done.clone()
        if bool(done.any()):
            fresh = torch.randint(game.num_answers, (games,), generator=gen)
            game.reset(state, done, fresh)
            for row in done.nonzero().flatten().tolist():
                ones[row].new(int(fresh[row]))
    assert spent > 250


@pytest.mark.parametrize("length", [2, 3, 4, 5, pytest.param(6, marks=pytest.mark.slow)])
def test_feedback_one__every_repeat_structure(length: int) -> None:
    """Every pair of words over a 3-letter alphabet (all ways letters can repeat) at lengths 2..6 (6
    in the slow run: half a million pairs)."""
    words = ["".join(w) for w in itertools.product("abc", repeat=length)]
    codes = encode(words)
    want = feedback(codes[:, None], codes[None, :]).tolist()
    tuples = [tuple(c) for c in codes.tolist()]
    assert [[feedback_one(g, a) for a in tuples] for g in tuples] == want


def test_feedback_one__real_pairs(rng: random.Random) -> None:
    """100 allowed words, half of them with repeated letters, against every answer (every repeat
    structure is covered below; the exhaustive small-alphabet check is in
    tests/core/test_rules.py)."""
    allowed, answers = load_word_list("allowed"), load_word_list("answers")
    guesses = rng.sample([w for w in allowed if len(set(w)) < 5], 50) + rng.sample(allowed, 50)
    g_codes, a_codes = encode(guesses), encode(answers)
    want = feedback(g_codes[:, None], a_codes[None, :]).tolist()
    a_tuples = [tuple(c) for c in a_codes.tolist()]
    assert [[feedback_one(tuple(g), a) for a in a_tuples] for g in g_codes.tolist()] == want


def test_scalar__state_round_trips_through_the_env(rng: random.Random) -> None:
    """``env.state = snapshot`` restores a game exactly (the CLI's undo), observations included."""
    for config in (
        WordleConfig(hard_mode=True, action_mask="candidates"),
        WordleConfig(observation="board"),
    ):
        env = WordleEnv(config)
        env.reset(seed=3)
        env.step(env.vocabulary.action("salet"))
        snapshot = env.state
        obs_then = env.step(env.vocabulary.action("crony"))[0]
        mask_then = env.action_masks()
        env.step(env.vocabulary.action("lymph"))
        env.state = snapshot
        obs, *_ = env.step(env.vocabulary.action("crony"))
        assert np.array_equal(obs, obs_then) and np.array_equal(env.action_masks(), mask_then)


def test_env__returns_fresh_data_and_no_constant_mask_copies() -> None:
    """Nothing returned aliases the env or an earlier return; in mode "all" the mask is a
    read-only stride-0 view (no 12972 bytes written per step) that still reads as all ones."""
    env = WordleEnv()
    obs0, info0 = env.reset(seed=0)
    obs1, _, _, _, info1 = env.step(5)
    for a, b in itertools.combinations(
        [
            obs0,
            obs1,
            info0["tiles"],
            info1["tiles"],
            info0["action_mask"],
            info1["action_mask"],
            env.action_masks(),
        ],
        2,
    ):
        assert not np.shares_memory(a, b)
    mask = info1["action_mask"]
    assert mask.dtype == np.int8 and mask.shape == (12972,) and mask.strides == (0,) and mask.all()
    with pytest.raises(ValueError, match="read-only"):
        mask[0] = 0
    twin = WordleEnv()
    twin.reset(seed=0)
    twin.step(5)
    obs1[:] = 1  # the caller edits what it got: the env must not notice
    info1["tiles"][:] = 0
    for action in (6, 7, 8):
        mine, theirs = env.step(action), twin.step(action)
        assert np.array_equal(mine[0], theirs[0]) and np.array_equal(
            mine[4]["tiles"], theirs[4]["tiles"]
        )
        mine[0][:] = 1


def test_make__one_env_plays_without_importing_numba() -> None:
    """Regression (issue 65): every CPU game imported numba when it was built (half a second of
    ``gym.make``'s start-up) although one env runs none of its kernels."""
    import subprocess
    import sys

    code = (
        "import sys, gymnasium as gym, wordle_gym\nenv = gym.make('Wordle-v1'); env.reset(seed=0); "
        "env.step(env.action_space.sample())\nprint('numba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]
