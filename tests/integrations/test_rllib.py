"""Ray RLlib: the Dict-observation mask wrapper (always) and PPO on Wordle-v1 (when ray is
installed)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import wordle_gym  # noqa: F401  (registers the ids)
from tests.helpers.processes import ROOT
from wordle_gym.integrations.rllib import DictActionMask, rllib_env

WORDS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade"]


def test_dict_action_mask__observation_holds_the_mask_the_info_gives() -> None:
    env = rllib_env({"answers": WORDS, "allowed": None, "action_mask": "candidates"})
    # the wrapper is what is checked here: Gymnasium's note says it is one
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", "(?s).*is different from the unwrapped version", UserWarning
        )
        check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=0, options={"answer": "cigar"})
    assert env.observation_space.contains(obs) and obs["observations"].dtype == np.float32
    assert obs["action_mask"].dtype == np.float32 and np.array_equal(
        obs["action_mask"], info["action_mask"]
    )
    obs, _, _, _, info = env.step(WORDS.index("rebut"))
    assert (
        np.array_equal(obs["action_mask"], info["action_mask"])
        and obs["action_mask"][WORDS.index("rebut")] == 0
    )
    assert env.observation_space.contains(obs)
    with pytest.raises(TypeError, match="needs a Discrete action space"):
        DictActionMask(gym.make("Pendulum-v1"))


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_AUTH_MODE": "disabled"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_rllib__ppo_default_network_on_wordle_v1() -> None:
    """RLlib's default PPO network takes Wordle-v1's float observations (v0's int8 fails in its
    first layer)."""
    pytest.importorskip("ray.rllib")
    out = _run(f"""
        from ray.rllib.algorithms.ppo import PPOConfig
        words = {{"answers": {WORDS}, "allowed": None}}
        config = (PPOConfig().environment("wordle_gym:Wordle-v1", env_config=words)
                  .env_runners(num_env_runners=0)
                  .training(train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1))
        algo = config.build_algo()
        result = algo.train()
        print("steps", result["env_runners"]["num_env_steps_sampled_lifetime"])
        algo.stop()
    """)
    assert out.returncode == 0, out.stderr[-3000:]
    assert float(out.stdout.split("steps")[-1]) >= 200


@pytest.mark.slow
def test_rllib__masked_ppo_example_trains_and_plays_through_the_harness() -> None:
    pytest.importorskip("ray.rllib")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_AUTH_MODE": "disabled"}
    out = subprocess.run(
        [
            sys.executable,
            "examples/rllib_ppo.py",
            "--words",
            "8",
            "--iterations",
            "1",
            "--batch",
            "500",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "iteration 1: mean return" in out.stdout and "rllib-ppo: " in out.stdout.splitlines()[-1]


@pytest.mark.slow
def test_rllib__docs_snippet_runs_as_written(tmp_path: Path) -> None:
    """The RLlib tutorial's snippet (fenced ``python rllib``: the docs test runs without ray)."""
    pytest.importorskip("ray.rllib")
    page = ROOT / "docs" / "tutorials" / "rllib.md"
    blocks = re.findall(r"```python rllib\n(.*?)```", page.read_text(), flags=re.S)
    assert len(blocks) == 1
    out = _run(blocks[0])
    assert out.returncode == 0, out.stderr[-3000:]
