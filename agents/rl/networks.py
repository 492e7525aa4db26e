"""Any saved A2C or DQN network, by its checkpoint's kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from wordle_agents.common.checkpoint import read_checkpoint
from wordle_agents.common.network import WordAgent
from wordle_agents.rl.a2c import A2CAgent
from wordle_agents.rl.dqn import DQNAgent

NETWORKS: dict[str, type[WordAgent]] = {cls.kind: cls for cls in (A2CAgent, DQNAgent)}
"""The network classes by checkpoint kind."""


def load_network(path: str | Path, device: Any = "cpu") -> WordAgent:
    """The A2C or DQN network of a checkpoint (by its ``kind``; the file is read once)."""
    data = read_checkpoint(path, None)
    kind = data.get("kind")
    if kind not in NETWORKS:
        expected = f"expected an A2C or DQN network ({sorted(NETWORKS)})"
        raise ValueError(f"checkpoint {str(path)!r} holds {kind!r}; {expected}")
    return NETWORKS[kind].load(path, device, data)


class ByMode:
    """Two networks as one policy: ``hard``'s weights in a hard-mode game, ``normal``'s elsewhere (``normal``'s
    everywhere when ``hard`` is None). Its name, checkpoint and provenance are ``normal``'s (or ``name``)."""

    def __init__(
        self, normal: str | Path, hard: str | Path | None = None, device: Any = "cpu", name: str | None = None
    ) -> None:
        self.normal = load_network(normal, device)
        self.hard = self.normal if hard is None else load_network(hard, device)
        self.checkpoint = self.normal.checkpoint
        self._name = name

    @property
    def name(self) -> str:
        return self._name or self.normal.name

    @property
    def provenance(self) -> dict[str, Any]:
        return self.normal.provenance

    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        agent = self.hard if env.config.hard_mode else self.normal
        return agent.act(observations, action_masks, env)
