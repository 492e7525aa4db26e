"""Any saved A2C or DQN network, by its checkpoint's kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
