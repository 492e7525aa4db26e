"""The SB3 adapter: VecEnv contract, and SB3 PPO / DQN / sb3-contrib MaskablePPO train on both
envs."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3 import DQN, PPO
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from wordle_gym import WordleVectorEnv
from wordle_gym.integrations.sb3 import WordleSB3VecEnv, make_sb3_vec_env


def test_adapter__numpy_boundary_terminal_obs_and_masks(tiny_words: list[str]) -> None:
    venv = WordleSB3VecEnv(
        num_envs=3, device="cpu", answers=tiny_words, allowed=None, action_mask="candidates"
    )
    venv.seed(4)
    obs = venv.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (3, 52 * 5 + 52 + 7)
    answers = venv.env.game.answer_actions[venv.env.state.answers].numpy()
    wrong = (answers + 1) % len(tiny_words)
    obs, rewards, dones, infos = venv.step(np.array([answers[0], wrong[1], wrong[2]]))
    assert dones.tolist() == [True, False, False] and rewards.dtype == np.float32
    assert infos[0]["is_success"] and not infos[0]["TimeLimit.truncated"]
    assert infos[0]["terminal_observation"].shape == obs.shape[1:]
    assert not np.array_equal(infos[0]["terminal_observation"], obs[0]) and infos[1] == {}
    masks = get_action_masks(venv)
    assert masks.shape == (3, len(tiny_words)) and masks.dtype == bool
    assert masks[0].all() and not masks[1, wrong[1]]  # a fresh game / a ruled-out guess
    assert (
        venv.get_attr("num_envs") == [3, 3, 3] and venv.env_is_wrapped(gym.Wrapper) == [False] * 3
    )
    with pytest.raises(ValueError, match="same-step autoreset"):
        WordleSB3VecEnv(WordleVectorEnv(2, device="cpu"))


def _vector(tiny_words: list[str], **kwargs: object):
    return make_sb3_vec_env(num_envs=8, device="cpu", answers=tiny_words, allowed=None, **kwargs)


def _single(tiny_words: list[str], **kwargs: object):
    return DummyVecEnv(
        [lambda: Monitor(gym.make("Wordle-v0", answers=tiny_words, allowed=None, **kwargs))] * 2
    )


@pytest.mark.parametrize("make_env", [_vector, _single], ids=["vector", "single"])
def test_sb3__ppo_dqn_and_maskable_ppo_train(make_env, tiny_words: list[str]) -> None:
    torch.manual_seed(0)
    ppo = PPO(
        "MlpPolicy",
        make_env(tiny_words),
        n_steps=32,
        batch_size=64,
        n_epochs=2,
        seed=0,
        device="cpu",
    )
    ppo.set_logger(Logger(folder=None, output_formats=[]))  # no /tmp/SB3-* folder
    ppo.learn(256)
    dqn = DQN(
        "MlpPolicy",
        make_env(tiny_words),
        learning_starts=32,
        buffer_size=1000,
        seed=0,
        device="cpu",
    )
    dqn.set_logger(Logger(folder=None, output_formats=[]))  # no /tmp/SB3-* folder
    dqn.learn(256)
    masked_env = make_env(tiny_words, action_mask="candidates")
    maskable = MaskablePPO(
        "MlpPolicy", masked_env, n_steps=32, batch_size=64, n_epochs=2, seed=0, device="cpu"
    )
    maskable.set_logger(Logger(folder=None, output_formats=[]))  # no /tmp/SB3-* folder
    maskable.learn(256)
    for model in (ppo, dqn, maskable):
        assert model.num_timesteps >= 256
        assert len(model.ep_info_buffer) > 0  # whole episodes were played and logged
    # A masked policy never picks a word the feedback has ruled out.
    obs = masked_env.reset()
    for _ in range(12):
        masks = get_action_masks(masked_env)
        actions, _ = maskable.predict(obs, action_masks=masks)
        assert masks[np.arange(len(actions)), actions].all()
        obs, *_ = masked_env.step(actions)


def test_sb3__maskable_ppo_trains_on_a_tiny_quordle(tiny_words: list[str]) -> None:
    """Multi-board games through the same adapter (boards=4: ``make_vector_env`` builds the
    multi-board env):
    MaskablePPO trains, whole games end with ``is_success``, and the masked policy keeps to its
    masks."""
    venv = make_sb3_vec_env(num_envs=8, device="cpu", answers=tiny_words, allowed=None, boards=4)
    assert venv.observation_space.shape == venv.unwrapped.env.single_observation_space.shape
    assert venv.unwrapped.env.multi_board and venv.unwrapped.env.config.boards == 4
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=2, seed=0, device="cpu"
    )
    model.set_logger(Logger(folder=None, output_formats=[]))  # no /tmp/SB3-* folder
    model.learn(512)
    assert model.num_timesteps >= 512 and len(model.ep_info_buffer) > 0
    assert all(1 <= info["l"] <= 9 for info in model.ep_info_buffer)  # K + 5 guesses at most
    obs, ended = venv.reset(), []
    for _ in range(20):
        masks = get_action_masks(venv)
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(len(actions)), actions].all()
        obs, _, dones, infos = venv.step(actions)
        ended += [info["is_success"] for info, done in zip(infos, dones, strict=True) if done]
    assert ended and all(isinstance(won, bool) for won in ended)
