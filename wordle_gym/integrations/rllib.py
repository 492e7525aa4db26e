"""Gymnasium wrappers for stacks that take the action mask inside the observation (RLlib).

    env = DictActionMask(gym.make("Wordle-v1"))
    obs, info = env.reset()  # {"observations": float32 (319,), "action_mask": float32 (12972,)}

RLlib's action-masking module (``ActionMaskingTorchRLModule``) reads exactly these two keys, with a
float mask (it adds ``log(mask)`` to the logits). :func:`rllib_env` is the env creator to register:

    from ray.tune.registry import register_env register_env("wordle",
    wordle_gym.integrations.rllib.rllib_env)  # env_config: any Wordle-v1 keyword
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces


class DictActionMask(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Observations become ``{"observations": obs, "action_mask": mask}``; the mask is
    ``info["action_mask"]`` (1 = allowed) as ``dtype`` (float32 by default, RLlib's convention)."""

    def __init__(self, env: gym.Env, dtype: type = np.float32) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, dtype=dtype)  # so env.spec can rebuild it
        super().__init__(env)
        if not isinstance(env.action_space, spaces.Discrete):
            raise TypeError(f"DictActionMask needs a Discrete action space; got {env.action_space}")
        self._dtype = np.dtype(dtype)
        mask = spaces.Box(0, 1, (int(env.action_space.n),), self._dtype)
        self.observation_space = spaces.Dict(
            {"observations": env.observation_space, "action_mask": mask}
        )

    def _wrap(self, obs: Any, info: dict[str, Any]) -> dict[str, np.ndarray]:
        return {
            "observations": obs,
            "action_mask": np.asarray(info["action_mask"], dtype=self._dtype),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return self._wrap(obs, info), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._wrap(obs, info), reward, terminated, truncated, info


def rllib_env(config: dict[str, Any] | None = None) -> gym.Env:
    """An env creator for RLlib's ``register_env``: ``DictActionMask(gym.make(id, **options))`` from
    ``env_config`` = ``{"id": "Wordle-v1" (default), **options}`` (any Wordle keyword)."""
    # RLlib passes an EnvContext (a dict with worker fields as attributes)
    options = dict(config or {})
    return DictActionMask(gym.make(options.pop("id", "Wordle-v1"), **options))
