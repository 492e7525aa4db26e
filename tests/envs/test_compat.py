"""What was saved before a change still loads after it: env specs and Minari datasets name module
paths."""

from __future__ import annotations

import shutil
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from wordle_gym import WordleEnv, WordleVectorEnv

SAVED = Path(__file__).resolve().parents[1] / "data" / "saved_0.1"


def test_dataset__written_before_the_layout_change_still_loads_and_replays(
    tmp_path, monkeypatch
) -> None:
    """A dataset written by 0.1's code (its env spec names ``wordle_gym.env:WordleEnv``, the module
    before the move to subpackages) loads, recovers its env and replays exactly."""
    minari = pytest.importorskip("minari")
    shutil.copytree(SAVED / "minari", tmp_path / "minari")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    loaded = minari.load_dataset("wordle/compat-v0")
    assert loaded.spec.env_spec.entry_point == "wordle_gym.env:WordleEnv"
    env = loaded.recover_environment()
    assert type(env.unwrapped) is WordleEnv
    for episode in loaded.iterate_episodes():
        (meta,) = loaded.storage.get_episode_metadata([episode.id])
        obs, _ = env.reset(options=meta["options"])
        assert np.array_equal(obs, episode.observations[0])
        for t, action in enumerate(episode.actions):
            obs, reward, *_ = env.step(int(action))
            assert np.array_equal(obs, episode.observations[t + 1]) and reward == episode.rewards[t]


def test_env_spec__saved_before_the_layout_change_still_makes_both_envs() -> None:
    spec = gym.envs.registration.EnvSpec.from_json((SAVED / "env_spec.json").read_text())
    assert (spec.entry_point, spec.vector_entry_point) == (
        "wordle_gym.env:WordleEnv",
        "wordle_gym.vector:WordleVectorEnv",
    )
    env = gym.make(spec)
    assert type(env.unwrapped) is WordleEnv and env.unwrapped.config.obs_dtype == "float32"
    envs = gym.make_vec(spec, num_envs=2, vectorization_mode="vector_entry_point", device="cpu")
    assert type(envs) is WordleVectorEnv and envs.num_envs == 2
