"""Layers (b) and (c): the single env on hand-built games, the env checker, seeding, errors."""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import wordle_gym
from tests.helpers.reference import (
    consistent,
    decode_knowledge,
    feedback_ref,
    hard_valid,
    satisfies_knowledge,
)
from wordle_gym import RewardScheme, WordleEnv


def play(env: WordleEnv, words: list[str]) -> list[tuple]:
    """Step through ``words``; return each step's (obs, reward, terminated, truncated, info)."""
    return [env.step(env.vocabulary.action(w)) for w in words]


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"observation": "board"},
        {"obs_dtype": "float32"},
        {"hard_mode": True},
        {"action_mask": "candidates"},
        {"reward": "tile-shaped", "max_guesses": 3},
        {"answers": ["cat", "dog"], "allowed": ["cat", "dog", "eel"]},
    ],
)
def test_check_env__passes(kwargs: dict) -> None:
    check_env(WordleEnv(**kwargs), skip_render_check=True)
    # Made through gym.make so the checker also tries the other render modes.
    check_env(gym.make("Wordle-v0", render_mode="ansi", **kwargs).unwrapped)


def test_registration__make_and_module_prefix() -> None:
    env = gym.make("Wordle-v0")
    assert isinstance(env.unwrapped, WordleEnv)
    assert isinstance(gym.make("wordle_gym:Wordle-v0").unwrapped, WordleEnv)
    assert gym.make("WordleHard-v0").unwrapped.config.hard_mode
    assert gym.make("WordleNYT-v0").unwrapped.vocabulary.num_answers == 2309
    # issue 78: today's game
    for env_id, hard in (("WordleToday-v0", False), ("WordleTodayHard-v1", True)):
        env = gym.make(env_id).unwrapped
        vocab = env.vocabulary
        assert (vocab.num_answers, vocab.num_allowed, env.config.hard_mode) == (3158, 14855, hard)
        check_env(env, skip_render_check=True)
    spec = gym.spec("Wordle-v0")  # factories: WordleEnv for one board, MultiWordleEnv for boards=K
    assert spec.entry_point == "wordle_gym.envs.multi:make_env"
    assert spec.vector_entry_point == "wordle_gym.envs.multi:make_vector_env"


def test_seeding__same_seed_same_rollout() -> None:
    def rollout(seed: int) -> list:
        env = WordleEnv(reward="tile-shaped")
        env.action_space.seed(seed)
        out = [env.reset(seed=seed)[0].tolist()]
        for _ in range(20):
            obs, reward, terminated, _, _ = env.step(env.action_space.sample())
            out.append((obs.tolist(), reward))
            if terminated:
                out.append(env.reset()[0].tolist())
        return out

    assert rollout(7) == rollout(7)
    assert rollout(7) != rollout(8)


def test_hand_game__knowledge_after_error_against_parry() -> None:
    env = WordleEnv()
    obs, info = env.reset(options={"answer": "parry"})
    assert obs.shape == (52 * 5 + 52 + 7,) and obs.dtype == np.int8
    know = decode_knowledge(obs, 5, 6)
    assert (
        know["turn"].tolist() == [1, 0, 0, 0, 0, 0, 0]
        and not know["green"].any()
        and not know["excluded"].any()
    )
    assert (know["min"] == 0).all() and (know["max"] == 5).all()

    obs, reward, terminated, truncated, info = env.step(env.vocabulary.action("error"))
    assert (
        info["tiles"].tolist() == [0, 1, 2, 0, 0]
        and env.words[env.vocabulary.action("error")] == "error"
    )
    assert (reward, terminated, truncated, info["turn"], info["invalid"]) == (
        -1.0,
        False,
        False,
        1,
        False,
    )
    know = decode_knowledge(obs, 5, 6)
    e, o, r, a = (ord(c) - 97 for c in "eora")
    # R: one green + one yellow + a grey copy -> exactly two R; E and O absent.
    assert (know["min"][r], know["max"][r]) == (2, 2)
    # 5 - two R
    assert know["max"][e] == know["max"][o] == 0 and know["min"][a] == 0 and know["max"][a] == 3
    assert know["green"][2, r] == 1 and know["green"].sum() == 1
    # Position 2 is R: every other letter excluded there; R excluded where it was yellow/grey.
    assert know["excluded"][2].sum() == 25 and know["excluded"][2, r] == 0
    assert know["excluded"][1, r] == know["excluded"][4, r] == 1 and know["excluded"][0, r] == 0
    # E and O are excluded at every position not known to be green.
    assert all(know["excluded"][i, e] and know["excluded"][i, o] for i in range(5))
    assert know["turn"].tolist() == [0, 1, 0, 0, 0, 0, 0]


@pytest.mark.parametrize(
    ("reward", "expected"),
    [
        ("default", [-1.0, -1.0, -1.0]),
        ("win-bonus", [0.0, 0.0, 1.0]),
        # ERROR: 1 green + 1 yellow - 5; CRANE: 2 yellows - 5; PARRY: 4 new greens + a re-entered
        # green R (-0.1) - 5 + 15.
        ("tile-shaped", [-3.0, -3.0, 13.9]),
        ("sparse", [0.0, 0.0, 1.0]),
        ("win-first", [-1.0, -1.0, -1.0]),
    ],
)
def test_hand_game__rewards_of_presets(reward: str, expected: list[float]) -> None:
    env = WordleEnv(reward=reward)
    env.reset(options={"answer": "parry"})
    steps = play(env, ["error", "crane", "parry"])
    assert [s[1] for s in steps] == pytest.approx(expected)
    assert [s[2] for s in steps] == [False, False, True]
    assert steps[-1][4]["won"] and steps[-1][4]["is_success"] and env.unwrapped.answer == "parry"


def test_rewards__the_old_preset_names_are_aliases_of_the_new() -> None:
    """Issue 63: the presets are named by what they are; their old names (the write-ups' seed
    numbers) still build the same scheme, so saved env specs load, and the agents' configs read an
    old name as the new one, so saved checkpoints and runs resume (the shipped a2c weights were
    saved with "seed000" and "seed")."""
    from wordle_agents.common.checkpoint import shipped_dir
    from wordle_agents.rl.a2c import A2CAgent, A2CConfig
    from wordle_agents.rl.dqn import DQNConfig
    from wordle_gym.core.rewards import PRESETS, get_reward

    assert "seed000" not in PRESETS and "seed001" not in PRESETS
    assert get_reward("seed000") is PRESETS["win-bonus"] is get_reward("a2c")
    assert get_reward("seed001") is PRESETS["tile-shaped"] is get_reward("dqn")
    assert WordleEnv(reward="seed001").unwrapped.config.reward_fn == PRESETS["tile-shaped"]
    old = A2CConfig(reward="seed000", encoding="seed")
    assert (old.reward, old.encoding) == ("win-bonus", "positional") and old == A2CConfig()
    assert DQNConfig(reward="seed001").reward == "tile-shaped"
    shipped = A2CAgent.load(shipped_dir() / "a2c_full.pt", device="cpu")
    assert (shipped.config.reward, shipped.config.encoding) == ("win-bonus", "positional")


def test_rewards__a_new_reward_is_one_class_and_a_registry_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 76: a reward that is not linear in the tiles is one RewardFn class and a PRESETS
    entry; every env plays it by name (the single env, the vector env, multi-board), and an
    unknown name is refused naming the registry."""
    import torch

    from tests.helpers.rewards import Quadratic
    from wordle_gym.core.rewards import PRESETS, RewardFn

    assert isinstance(Quadratic(), RewardFn) and all(
        isinstance(r, RewardFn) for r in PRESETS.values()
    )
    monkeypatch.setitem(PRESETS, "quadratic", Quadratic())
    words = {"answers": ["cigar", "rebut", "sissy"], "allowed": None}
    env = gym.make("Wordle-v0", reward="quadratic", **words)
    env.reset(options={"answer": "cigar"})
    # CIGAR against REBUT: no green (0.0); then won on the second guess: 6 / 2
    assert [env.step(a)[1] for a in (1, 0)] == [0.0, 3.0]
    vec = gym.make_vec("Wordle-v1", num_envs=2, reward="quadratic", device="cpu", **words)
    vec.reset(options={"answers": torch.tensor([0, 2])})
    # SISSY against CIGAR and SISSY: one green (0.1); won on the first guess (6.0)
    assert vec.step(torch.tensor([2, 2]))[1].tolist() == [pytest.approx(0.1), 6.0]
    dordle = gym.make_vec("Dordle-v1", num_envs=1, reward="quadratic", device="cpu", **words)
    dordle.reset(options={"answers": torch.tensor([[0, 1]])})
    # REBUT against CIGAR and REBUT: five greens, squared (2.5)
    assert dordle.step(torch.tensor([1]))[1].tolist() == [pytest.approx(2.5)]
    with pytest.raises(ValueError, match="unknown reward 'cubic'.*'quadratic'"):
        gym.make("Wordle-v0", reward="cubic")


@pytest.mark.parametrize(
    ("reward", "last"), [("default", -6.0), ("win-first", -21.0), ("sparse", 0.0)]
)
def test_hand_game__a_loss_costs_the_presets_loss_penalty(reward: str, last: float) -> None:
    env = WordleEnv(reward=reward)
    env.reset(options={"answer": "parry"})
    steps = play(env, ["error", "crane", "cigar", "rebut", "sissy", "humph"])
    assert [s[2] for s in steps] == [False] * 5 + [True] and not steps[-1][4]["won"]
    assert steps[-1][1] == pytest.approx(last)


@pytest.mark.parametrize(
    ("reward", "win_on", "expected_last"),
    [
        ("default", None, -6.0),
        ("win-bonus", None, -10.0),
        ("win-bonus", 5, 0.5),
        ("win-bonus", 4, 1.0),
    ],
)
def test_hand_game__loss_and_late_win(
    reward: str, win_on: int | None, expected_last: float
) -> None:
    env = WordleEnv(reward=reward)
    env.reset(options={"answer": "parry"})
    misses = ["error", "crane", "sloth", "bumpy", "wight", "fudge"]
    words = misses if win_on is None else [*misses[: win_on - 1], "parry"]
    steps = play(env, words)
    assert steps[-1][1] == pytest.approx(expected_last)
    assert steps[-1][2] and not steps[-1][3]
    assert steps[-1][4]["won"] == (win_on is not None) and steps[-1][4]["won"].dtype == bool
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_custom_reward_scheme_and_max_guesses() -> None:
    env = WordleEnv(reward=RewardScheme(step=-2.0, win=(10.0, 5.0), loss=-3.0), max_guesses=2)
    env.reset(options={"answer": "parry"})
    assert [s[1] for s in play(env, ["error", "parry"])] == [-2.0, 3.0]
    env.reset(options={"answer": "parry"})
    steps = play(env, ["error", "crane"])
    assert [s[1] for s in steps] == [-2.0, -5.0] and steps[-1][2]


def _random_history(
    env: WordleEnv, rng: random.Random, steps: int
) -> list[tuple[str, tuple[int, ...]]]:
    history = []
    for _ in range(steps):
        word = rng.choice(env.words)
        _, _, terminated, _, info = env.step(env.vocabulary.action(word))
        if not info["invalid"]:
            history.append((word, tuple(info["tiles"].tolist())))
        if terminated:
            break
    return history


def test_knowledge__exactly_the_consistent_answers(rng: random.Random) -> None:
    """Losslessness and soundness: the words an observation allows are exactly the answers
    consistent with the history, by the scalar reference."""
    env = WordleEnv()
    for _ in range(8):
        env.reset(seed=rng.randrange(10**6))
        history = []
        for _ in range(5):
            history += _random_history(env, rng, 1)
            obs = env.observation(env.state)[0].numpy()
            know = decode_knowledge(obs, 5, 6)
            from_obs = {w for w in env.vocabulary.answers if satisfies_knowledge(w, know)}
            from_ref = {w for w in env.vocabulary.answers if consistent(w, history)}
            assert from_obs == from_ref
            if env.state.done.item():
                break


def test_masks__candidates_and_hard_match_brute_force(rng: random.Random) -> None:
    cand = WordleEnv(action_mask="candidates")
    hard = WordleEnv(action_mask="hard")
    sample = rng.sample(range(12972), 1500)
    for _ in range(6):
        seed = rng.randrange(10**6)
        cand.reset(seed=seed)
        hard.reset(seed=seed)
        for _ in range(3):
            word = rng.choice(cand.vocabulary.answers)
            for env in (cand, hard):
                *_, terminated, _, info = env.step(env.vocabulary.action(word))
            if terminated:
                break
            history = [
                (env.words[a], tuple(t))
                for a, t in zip(
                    env.state.guesses[0].tolist(), env.state.tiles[0].tolist(), strict=True
                )
                if a >= 0
            ]
            expected = {w for w in cand.vocabulary.answers if consistent(w, history)}
            mask = cand.action_masks()
            assert mask.dtype == bool and {cand.words[i] for i in np.flatnonzero(mask)} == expected
            assert info["action_mask"].dtype == np.int8
            hard_mask = hard.action_masks()
            assert all(hard_mask[i] == hard_valid(hard.words[i], history) for i in sample)


def test_hard_mode__invalid_guess_is_refused_but_spends_the_turn() -> None:
    env = WordleEnv(hard_mode=True)
    env.reset(options={"answer": "parry"})
    play(env, ["error"])
    before = env.observation(env.state)[0].numpy().copy()
    mask = env.action_masks()
    assert not mask[env.vocabulary.action("crane")]  # drops the known R's
    # keeps R at 2, two R's
    assert mask[env.vocabulary.action("parry")] and mask[env.vocabulary.action("array")]
    obs, reward, terminated, _, info = env.step(env.vocabulary.action("crane"))
    assert (
        info["invalid"] and info["tiles"].tolist() == [3] * 5 and reward == -2.0 and not terminated
    )
    after = decode_knowledge(obs, 5, 6)
    assert np.array_equal(obs[:-7], before[:-7])  # nothing learned
    assert after["turn"].argmax() == 2  # but the turn is spent
    obs, reward, terminated, _, info = env.step(env.vocabulary.action("parry"))
    assert terminated and info["won"] and not info["invalid"]
    # The same guess is fine outside hard mode.
    easy = WordleEnv()
    easy.reset(options={"answer": "parry"})
    assert not play(easy, ["error", "crane"])[1][4]["invalid"]


def test_hard_mode__refused_guesses_still_end_the_episode() -> None:
    env = WordleEnv(hard_mode=True)
    env.reset(options={"answer": "parry"})
    steps = play(env, ["error", "crane", "crane", "crane", "crane", "crane"])
    assert [s[4]["invalid"] for s in steps] == [False, True, True, True, True, True]
    assert steps[-1][2] and not steps[-1][4]["won"]


def test_board_observation__rows_of_letters_and_tiles() -> None:
    env = WordleEnv(observation="board", hard_mode=True)
    obs, _ = env.reset(options={"answer": "parry"})
    assert obs.shape == (2, 6, 5) and (obs[0] == 26).all() and (obs[1] == 3).all()
    play(env, ["error", "crane"])  # the second is refused
    obs, *_ = play(env, ["parry"])[0]
    assert obs[0, 0].tolist() == [4, 17, 17, 14, 17] and obs[1, 0].tolist() == [0, 1, 2, 0, 0]
    # refused: nothing shown
    assert obs[0, 1].tolist() == [26] * 5 and obs[1, 1].tolist() == [3] * 5
    assert obs[1, 2].tolist() == [2] * 5 and (obs[1, 3:] == 3).all()


def test_custom_lengths__three_and_seven_letters() -> None:
    env = WordleEnv(answers=["cat", "act", "tac"], allowed=None, max_guesses=4)
    obs, _ = env.reset(options={"answer": "tac"})
    assert obs.shape == (52 * 3 + 52 + 5,)
    _, _, _, _, info = env.step(env.vocabulary.action("cat"))
    assert info["tiles"].tolist() == list(feedback_ref("cat", "tac"))
    words = ["letters", "settler", "sterile"]
    env7 = WordleEnv(answers=words, allowed=None)
    env7.reset(options={"answer": 1})
    _, _, _, _, info = env7.step(0)
    assert info["tiles"].tolist() == list(feedback_ref("letters", "settler"))


def test_errors__bad_actions_and_options() -> None:
    env = WordleEnv()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(
        ValueError, match="action 12972 is out of range; expected 0 <= action < 12972"
    ):
        env.step(12972)
    with pytest.raises(ValueError, match="action -1 is out of range"):
        env.step(-1)
    with pytest.raises(TypeError, match="integer word index; got 1.5"):
        env.step(1.5)
    with pytest.raises(TypeError, match="integer word index; got True"):
        env.step(True)
    with pytest.raises(TypeError, match="integer word index"):
        env.step("crane")
    env.step(np.int64(3))
    env.step(np.array(4))
    with pytest.raises(ValueError, match="unknown reset options \\['answr'\\]"):
        env.reset(options={"answr": "cigar"})
    with pytest.raises(ValueError, match="'zzzzz' is not one of the 2315 possible answers"):
        env.reset(options={"answer": "zzzzz"})
    with pytest.raises(ValueError, match="unknown observation 'pixels'"):
        WordleEnv(observation="pixels")
    with pytest.raises(ValueError, match="unknown reward 'dense'"):
        WordleEnv(reward="dense")
    with pytest.raises(ValueError, match="unknown action_mask 'some'"):
        WordleEnv(action_mask="some")
    with pytest.raises(ValueError, match="max_guesses must be an integer from 1 to 1000; got 0"):
        WordleEnv(max_guesses=0)
    with pytest.raises(ValueError, match="unknown render_mode 'video'"):
        WordleEnv(render_mode="video")


def test_render__ansi_human_rgb(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    env = WordleEnv(render_mode="ansi")
    env.reset(options={"answer": "parry"})
    play(env, ["error"])
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")  # colour is for terminals; pytest's stdout is not one
    text = env.render()
    assert "\x1b[" in text and "(R)" in text and "[R]" in text
    monkeypatch.delenv("FORCE_COLOR")
    plain = env.render()
    assert plain.splitlines()[0] == " e (R)[R] o  r " and "\x1b" not in plain
    assert plain.splitlines()[1] == " _ " * 5

    human = WordleEnv(render_mode="human")
    human.reset(options={"answer": "parry"})
    play(human, ["error"])
    assert "[R]" in capsys.readouterr().out

    rgb = WordleEnv(render_mode="rgb_array")
    rgb.reset(options={"answer": "parry"})
    play(rgb, ["error"])
    image = rgb.render()
    assert image.shape == (6 * 44 + 4, 5 * 44 + 4, 3) and image.dtype == np.uint8
    corner = lambda row, col: tuple(image[4 + row * 44 + 2, 4 + col * 44 + 2])  # noqa: E731
    assert corner(0, 2) == (106, 170, 100)  # green R
    assert corner(0, 1) == (201, 180, 88)  # yellow R
    assert corner(0, 0) == (120, 124, 126)  # grey E
    assert tuple(image[4 + 44 + 1, 4 + 1]) == (211, 214, 218)  # empty tile: a light border
    assert corner(1, 0) == (255, 255, 255)  # ... around a white inside
    center = image[4 + 10 : 4 + 30, 4 + 2 * 44 + 10 : 4 + 2 * 44 + 30]
    assert (center == 255).all(axis=-1).any()  # the letter is drawn in white on the tile


def test_info__keys_on_reset_and_step() -> None:
    env = gym.make("Wordle-v0")
    _, info = env.reset(seed=3)
    assert (
        info["action_mask"].dtype == np.int8
        and info["action_mask"].shape == (12972,)
        and info["turn"] == 0
    )
    keys = set(info)
    assert keys == {"action_mask", "turn", "tiles", "invalid", "won", "is_success"}
    # a lost game: the keys never change, and no value is a string
    for action in (0, 1, 2, 3, 4, 5):
        _, _, terminated, _, info = env.step(action)
        assert set(info) == keys and not any(isinstance(v, str) for v in info.values())
    assert terminated and not info["is_success"]
    env.reset(seed=3)
    assert env.unwrapped.action_masks().all()
    assert wordle_gym.WordleEnv().action_masks().dtype == bool


def test_reset__options_that_are_not_a_dict_or_a_bool_answer_are_refused() -> None:
    """Regression (issue 42): reset(options="cigar") failed with "dictionary update sequence", and
    {"answer": True} was read as answer index 1."""
    import gymnasium as gym

    import wordle_gym  # noqa: F401

    env = gym.make("Wordle-v1")
    with pytest.raises(
        TypeError,
        match=r"reset options must be a dict such as \{'answer': ...\}; "
        r"got 'cigar'",
    ):
        env.reset(options="cigar")
    with pytest.raises(TypeError, match="an answer must be a word or an index; got True"):
        env.reset(options={"answer": True})
    envs = gym.make_vec("Wordle-v1", num_envs=2, device="cpu")
    with pytest.raises(TypeError, match="reset options must be a dict such as"):
        envs.reset(options="cigar")
    with pytest.raises(TypeError, match="an answer must be a word or an index; got True"):
        envs.reset(options={"answers": [True, 0]})


@pytest.mark.parametrize(
    "config",
    [{"action_mask": "all"}, {"action_mask": "candidates"}, {"hard_mode": True}, {"boards": 2}],
)
def test_env__packed_info_masks_are_the_action_masks_packed(config: dict) -> None:
    """The single envs' ``mask_dtype="packed"``: ``info["action_mask"]`` is ``action_masks()``
    packed 8 to a byte (numpy's bit order "little"), fresh each step, and check_env passes."""
    env = gym.make("Wordle-v1", mask_dtype="packed", **config).unwrapped
    check_env(env, skip_render_check=True)
    _, info = env.reset(seed=1)
    for _ in range(4):
        mask = env.action_masks()
        assert info["action_mask"].dtype == np.uint8
        assert np.array_equal(info["action_mask"], np.packbits(mask, bitorder="little"))
        assert np.array_equal(wordle_gym.unpack_mask(info["action_mask"], mask.size), mask)
        info["action_mask"][:] = 0  # the caller's to keep or change
        _, _, terminated, _, info = env.step(int(np.flatnonzero(mask)[-1]))
        if terminated:
            _, info = env.reset()


def test_reset__a_huge_answer_option_is_not_echoed_whole() -> None:
    """Reliability 5, finding 11: a 1 MB ``answer`` option was echoed whole in its error."""
    env = gym.make("Wordle-v1")
    with pytest.raises(ValueError, match="is not one of the 2315 possible answers") as refused:
        env.reset(options={"answer": "x" * 1_000_000})
    assert len(str(refused.value)) < 200
