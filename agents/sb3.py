"""Stable-Baselines3 / sb3-contrib models as harness policies (the ``sb3`` agent).

Needs the ``sb3`` extra (``pip install 'wordle-gym[sb3]'``). The env side of SB3 (a
``VecEnv`` over the torch vector env) is :mod:`wordle_gym.sb3`.
"""

from __future__ import annotations

import inspect
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium.error import DependencyNotInstalled

from wordle_agents.checkpoint import shipped_dir
from wordle_gym.registry import BenchRun

ALGORITHMS = ("ppo", "dqn", "maskable_ppo")


class SB3Policy:
    """Any Stable-Baselines3 / sb3-contrib model as a harness policy (greedy actions).

    Models with action-mask support (sb3-contrib ``MaskablePPO``) get the env's masks; others
    do not, and may pick a masked word (the env decides what that means, e.g. refusal in hard mode).
    """

    def __init__(self, model: Any, name: str | None = None) -> None:
        self.model = model
        self.name = name or f"SB3 {type(model).__name__}"
        self.masked = "action_masks" in inspect.signature(model.predict).parameters

    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        actions = getattr(self.model.action_space, "n", None)
        if actions is not None and int(actions) != len(env.words):
            raise ValueError(f"the model has {int(actions)} actions but the env has {len(env.words)} allowed words")
        kwargs = {"action_masks": action_masks.cpu().numpy()} if self.masked else {}
        actions, _ = self.model.predict(observations.cpu().numpy(), deterministic=True, **kwargs)
        return torch.as_tensor(np.asarray(actions), dtype=torch.int64, device=env.device)

    @classmethod
    def load(cls, path: str | Path, algorithm: str | None = None, device: str = "cpu") -> SB3Policy:
        """Load a saved model; ``algorithm`` (ppo, dqn, maskable_ppo) is read from the file when None."""
        try:
            from sb3_contrib import MaskablePPO
            from stable_baselines3 import DQN, PPO
        except ImportError as exc:
            raise DependencyNotInstalled(f"{exc}. The sb3 agent needs: pip install 'wordle-gym[sb3]'") from exc

        classes = {"ppo": PPO, "dqn": DQN, "maskable_ppo": MaskablePPO}
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"model {str(path)!r} does not exist")
        if algorithm is None:
            algorithm = _saved_algorithm(path)
        if algorithm not in classes:
            raise ValueError(f"unknown SB3 algorithm {algorithm!r}; expected one of {ALGORITHMS}")
        model = classes[algorithm].load(str(path), device=device)
        return cls(model, name=f"SB3 {type(model).__name__} ({path.name})")


def _saved_algorithm(path: Path) -> str:
    """Which algorithm saved a model zip, from the module of the policy class recorded in its ``data``:
    MaskablePPO's policies live in ``sb3_contrib.common.maskable``, DQN's in ``stable_baselines3.dqn``,
    PPO's actor-critic policies in ``stable_baselines3.common.policies``."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
        module = str(data["policy_class"]["__module__"])
    except (zipfile.BadZipFile, KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{str(path)!r} is not a Stable-Baselines3 model file ({exc})") from None
    if "maskable" in module:
        return "maskable_ppo"
    if ".dqn" in module:
        return "dqn"
    if module.endswith("common.policies"):
        return "ppo"
    raise ValueError(f"{str(path)!r} holds a {module} policy; expected PPO, DQN or MaskablePPO")


def load(checkpoint: str | None = None, algorithm: str | None = None, device: str = "cpu") -> SB3Policy:
    """The ``sb3`` agent entry point: a saved model zip (default: the one shipped with the package)."""
    if checkpoint is None:
        shipped = sorted(shipped_dir().glob("*.zip"))
        if not shipped:
            raise FileNotFoundError("no SB3 model ships with wordle_agents; pass a model zip as the checkpoint")
        checkpoint = str(shipped[-1])
    return SB3Policy.load(checkpoint, algorithm=algorithm, device=str(device))


def _bench_runs() -> list[BenchRun]:
    return [BenchRun(f"SB3 `{path.name}`", {"checkpoint": str(path)}) for path in sorted(shipped_dir().glob("*.zip"))]


load.bench_runs = _bench_runs  # type: ignore[attr-defined]
