"""Stable-Baselines3 adapter: a :class:`WordleVectorEnv` seen as an SB3 ``VecEnv``.

SB3 wants numpy at its boundary, a reset observation in place of the last one when a game
ends (with the last one in ``infos[i]["terminal_observation"]``) and per-env lists of infos.
The adapter runs the vector env in ``same_step`` autoreset mode and converts once per step.

Example:
    >>> from sb3_contrib import MaskablePPO
    >>> from wordle_gym.integrations.sb3 import make_sb3_vec_env
    >>> venv = make_sb3_vec_env(num_envs=64, answers=["cigar", "rebut", "sissy"], allowed=None)
    >>> model = MaskablePPO("MlpPolicy", venv, n_steps=16).learn(2048)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from gymnasium.error import DependencyNotInstalled
from gymnasium.vector import AutoresetMode

try:
    from stable_baselines3.common.vec_env import VecEnv, VecMonitor
    from stable_baselines3.common.vec_env.base_vec_env import (
        VecEnvIndices,
        VecEnvObs,
        VecEnvStepReturn,
    )
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise DependencyNotInstalled(
        f"{exc}. wordle_gym.integrations.sb3 needs Stable-Baselines3 and sb3-contrib: pip install "
        "'.[sb3]'"
    ) from exc

from wordle_gym.envs.multi import make_vector_env
from wordle_gym.envs.vector import WordleVectorEnv


class WordleSB3VecEnv(VecEnv):
    """Present ``env`` (or a new ``WordleVectorEnv(**kwargs)``) to SB3 and sb3-contrib.

    ``env_method("action_masks")`` returns one bool row per game (what MaskablePPO asks
    for); ``infos[i]`` holds ``terminal_observation``, ``TimeLimit.truncated`` and
    ``is_success`` (SB3 logs the success rate from it) for games that just ended.
    """

    def __init__(self, env: WordleVectorEnv | None = None, **kwargs: Any) -> None:
        if env is None:
            kwargs.setdefault("autoreset_mode", "same_step")
            env = make_vector_env(**kwargs)  # multi-board for boards=K > 1
        elif kwargs:
            raise TypeError(
                "pass either an env or keyword arguments to build one, not both (got "
                f"{sorted(kwargs)})"
            )
        if env.autoreset_mode != AutoresetMode.SAME_STEP:
            raise ValueError(
                "SB3 needs same-step autoreset: build the env with autoreset_mode='same_step'"
            )
        self.env = env
        self._actions: torch.Tensor | None = None
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    def reset(self) -> VecEnvObs:
        seed = next((s for s in self._seeds if s is not None), None)
        obs, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs.cpu().numpy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = torch.as_tensor(
            np.asarray(actions).reshape(self.num_envs), device=self.env.device
        )

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        obs, rewards, terminations, truncations, infos = self.env.step(self._actions)
        self._actions = None
        dones = (terminations | truncations).cpu().numpy()
        out_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = infos["final_obs"].cpu().numpy()
            won = infos["won"].cpu().numpy()
            truncated = (truncations & ~terminations).cpu().numpy()
            for i in np.flatnonzero(dones):
                out_infos[i] = {
                    "terminal_observation": final[i],
                    "TimeLimit.truncated": bool(truncated[i]),
                    "is_success": bool(won[i]),
                }
        return obs.cpu().numpy(), rewards.cpu().numpy(), dones, out_infos

    def action_masks(self) -> np.ndarray:
        """Allowed actions of every game: bool ``(num_envs, num_allowed)``."""
        return self.env.action_masks().cpu().numpy()

    def close(self) -> None:
        self.env.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.env.render_mode != "rgb_array":
            return [None] * self.num_envs
        frames = self.env.render() or ()
        return [*frames, *[None] * (self.num_envs - len(frames))]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.env, attr_name)
        return [value] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))


def make_sb3_vec_env(num_envs: int = 64, monitor: bool = True, **kwargs: Any) -> VecEnv:
    """A ``WordleSB3VecEnv`` of ``num_envs`` games (kwargs as for ``WordleVectorEnv``), wrapped
    in SB3's ``VecMonitor`` (episode returns and lengths in the logs) unless ``monitor=False``."""
    venv = WordleSB3VecEnv(num_envs=num_envs, **kwargs)
    return VecMonitor(venv) if monitor else venv
