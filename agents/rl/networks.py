"""Any saved A2C or DQN network, by its checkpoint's kind; one played on several boards; two by game mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from wordle_agents.common.checkpoint import read_checkpoint
from wordle_agents.common.network import WordAgent
from wordle_agents.rl.a2c import A2CAgent
from wordle_agents.rl.dqn import DQNAgent
from wordle_gym.envs.observation import MultiKnowledgeLayout
from wordle_gym.harness.play import bool_mask

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


def one_board_observations(
    observations: torch.Tensor, layout: MultiKnowledgeLayout, max_guesses: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Each board of multi-board "knowledge" observations (B, D) as a one-board game of ``max_guesses`` guesses
    shows it: (B, K, 52 L + 52 + max_guesses + 1) float, the board's knowledge and the turn (a turn past the
    one-board game's last reads as its last), and the unsolved boards (B, K) bool."""
    f = layout.fields(observations.float())
    boards = layout.boards
    turn = F.one_hot(f.turn.argmax(1).clamp(max=max_guesses - 1), max_guesses + 1).to(f.green.dtype)
    blocks = [f.green.flatten(2), f.excluded.flatten(2), f.min_count, f.max_count, turn[:, None].expand(-1, boards, -1)]
    return torch.cat(blocks, dim=2), f.solved < 0.5


class BoardMixture:
    """A one-board network (A2C or DQN) played on any board count (a harness Policy). On K boards each unsolved
    board is shown to the network as the one-board game it would be alone (:func:`one_board_observations`), its
    word scores give a softmax over the words, and each guess is the likeliest word of the unsolved boards'
    softmaxes mixed with equal weights. (A DQN's softmax is over its action values: a dueling network's state
    value and mean advantage cancel in it.) It has no update of its own: the network learned on one board, or
    on several through this mixture (:mod:`research.boards`). On one board it plays as the network
    does."""

    def __init__(self, agent: WordAgent, block: int = 256) -> None:
        if agent.boards != 1:
            raise ValueError(f"BoardMixture takes a one-board network; this one plays {agent.boards} boards")
        self.agent, self.block = agent, block
        self.checkpoint = agent.checkpoint

    @property
    def name(self) -> str:
        return f"{self.agent.name}, a mixture over the boards"

    @property
    def provenance(self) -> dict[str, Any]:
        found = dict(self.agent.provenance)
        if found.get("learned_from") and "on several boards" not in found["learned_from"]:
            found["learned_from"] += " (on one board)"  # not taught several boards (methods.boards)
        return found

    @torch.no_grad()
    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        config, agent = env.config, self.agent
        if config.boards == 1:
            return agent.act(observations, action_masks, env)
        if config.observation != "knowledge" or config.vocabulary.length != agent.length:
            raise ValueError(
                f"the {agent.kind} agent reads the env's 'knowledge' observation of {agent.length}-letter words; the "
                f"game has the {config.observation!r} observation of {config.vocabulary.length}-letter words"
            )
        agent.use_words(env.words)
        agent.net.eval()
        layout, max_guesses = env.observation.layout, agent.layout.max_guesses
        allowed = bool_mask(action_masks)
        actions = []
        for start in range(0, observations.shape[0], self.block):
            rows = slice(start, start + self.block)
            boards, unsolved = one_board_observations(observations[rows].to(agent.device), layout, max_guesses)
            log_pi = agent.scores(boards.flatten(0, 1)).log_softmax(1).view(*unsolved.shape, -1)  # (b, K, W)
            log_pi = log_pi.masked_fill_(~unsolved[..., None], -torch.inf).logsumexp(1)
            actions.append(log_pi.masked_fill_(~allowed[rows].to(agent.device), -torch.inf).argmax(1))
        return torch.cat(actions).to(env.device)


class ByMode:
    """Two networks as one policy: ``hard``'s weights in a hard-mode game, ``normal``'s elsewhere (``normal``'s
    everywhere when ``hard`` is None); on several boards (no hard mode there), ``normal``'s as a
    :class:`BoardMixture`. Its name, checkpoint and provenance are ``normal``'s (or ``name``)."""

    def __init__(
        self, normal: str | Path, hard: str | Path | None = None, device: Any = "cpu", name: str | None = None
    ) -> None:
        self.normal = load_network(normal, device)
        self.hard = self.normal if hard is None else load_network(hard, device)
        self.mixture = BoardMixture(self.normal)
        self.checkpoint = self.normal.checkpoint
        self._name = name

    @property
    def name(self) -> str:
        return self._name or self.normal.name

    @property
    def provenance(self) -> dict[str, Any]:
        return self.normal.provenance

    def plays(self, hard_mode: bool, boards: int = 1) -> WordAgent | BoardMixture:
        """What plays a game of this mode and board count (``wordle_gym.harness.registry.playing``)."""
        return self.hard if hard_mode else self.mixture if boards > 1 else self.normal

    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        config = env.config
        return self.plays(config.hard_mode, config.boards).act(observations, action_masks, env)
