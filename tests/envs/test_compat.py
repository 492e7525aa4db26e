"""What was saved before a change still loads after it: env specs and Minari datasets name module
paths."""

from __future__ import annotations

import shutil
import sys
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
    monkeypatch.delitem(sys.modules, "wordle_gym.env", raising=False)
    with pytest.warns(DeprecationWarning, match="wordle_gym.env moved to wordle_gym.envs.wordle"):
        env = loaded.recover_environment()
    assert type(env.unwrapped) is WordleEnv
    for episode in loaded.iterate_episodes():
        (meta,) = loaded.storage.get_episode_metadata([episode.id])
        obs, _ = env.reset(options=meta["options"])
        assert np.array_equal(obs, episode.observations[0])
        for t, action in enumerate(episode.actions):
            obs, reward, *_ = env.step(int(action))
            assert np.array_equal(obs, episode.observations[t + 1]) and reward == episode.rewards[t]


def test_env_spec__saved_before_the_layout_change_still_makes_both_envs(monkeypatch) -> None:
    """Its old module paths still make the envs (until 0.4, with a warning naming the new ones)."""
    spec = gym.envs.registration.EnvSpec.from_json((SAVED / "env_spec.json").read_text())
    assert (spec.entry_point, spec.vector_entry_point) == (
        "wordle_gym.env:WordleEnv",
        "wordle_gym.vector:WordleVectorEnv",
    )
    for old in ("wordle_gym.env", "wordle_gym.vector"):
        monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match="wordle_gym.env moved"):
        env = gym.make(spec)
    assert type(env.unwrapped) is WordleEnv and env.unwrapped.config.obs_dtype == "float32"
    with pytest.warns(DeprecationWarning, match="wordle_gym.vector moved"):
        envs = gym.make_vec(spec, num_envs=2, vectorization_mode="vector_entry_point", device="cpu")
    assert type(envs) is WordleVectorEnv and envs.num_envs == 2


def test_v0_ids__the_real_game_without_a_warning() -> None:
    """First hour 4, item 1: ``gym.make("Wordle-v0")``, the id third-party RL code writes, printed
    Gymnasium's "The environment Wordle-v0 is out of date. You should consider upgrading to version
    `v1`" (and so did ``Quordle-v0``). Each -v0 is its game with int8 observations, current beside
    the float32 -v1, and makes no warning; another package's out-of-date id still warns."""
    import subprocess
    import sys

    from tests.helpers.processes import ROOT

    code = (
        "import gymnasium as gym, wordle_gym\n"
        "env = gym.make('Wordle-v0')\n"
        "assert env.unwrapped.vocabulary.num_answers == 2315, env.unwrapped.vocabulary\n"
        "assert env.observation_space.dtype.name == 'int8'\n"
        "gym.make('Quordle-v0'); gym.make('WordleHard-v0'); gym.make('Wordle-v1')\n"
        "gym.make_vec('Wordle-v0', num_envs=2)\n"
        "print('made')\n"
    )

    def python(source: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-c", source]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)

    done = python(code)
    assert done.returncode == 0 and done.stdout == "made\n" and done.stderr == "", done.stderr
    other = (
        "import gymnasium as gym, wordle_gym\n"
        "pole = 'gymnasium.envs.classic_control:CartPoleEnv'\n"
        "for v in (0, 1):\n"
        "    gym.register(id=f'Other-v{v}', entry_point=pole)\n"
        "gym.make('Other-v0')\n"
    )
    assert "Other-v0 is out of date" in python(other).stderr
