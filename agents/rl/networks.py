"""Any saved A2C or DQN network, by its checkpoint's kind; one played on several boards (as a
mixture, or seeing every board); two by game mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from wordle_agents.common.checkpoint import read_checkpoint
from wordle_agents.common.network import WordAgent
from wordle_agents.rl.a2c import A2CAgent
from wordle_agents.rl.dqn import DQNAgent
from wordle_gym.core.config import MAX_GUESSES
from wordle_gym.core.rules import ALPHABET
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
    """Each board of multi-board "knowledge" observations (B, D) as a one-board game of
    ``max_guesses`` guesses shows it: (B, K, 52 L + 52 + max_guesses + 1) float, the board's
    knowledge and the turn (a turn past the one-board game's last reads as its last), and the
    unsolved boards (B, K) bool."""
    f = layout.fields(observations.float())
    boards = layout.boards
    turn = F.one_hot(f.turn.argmax(1).clamp(max=max_guesses - 1), max_guesses + 1).to(f.green.dtype)
    blocks = [
        f.green.flatten(2),
        f.excluded.flatten(2),
        f.min_count,
        f.max_count,
        turn[:, None].expand(-1, boards, -1),
    ]
    return torch.cat(blocks, dim=2), f.solved < 0.5


class BoardMixture:
    """A one-board network (A2C or DQN) played on any board count (a harness Policy). On K boards
    each unsolved board is shown to the network as the one-board game it would be alone
    (:func:`one_board_observations`), its word scores give a softmax over the words, and each guess
    is the likeliest word of the unsolved boards' softmaxes mixed with equal weights. (A DQN's
    softmax is over its action values: a dueling network's state value and mean advantage cancel in
    it.) It has no update of its own: the network learned on one board, or on several through this
    mixture (:mod:`wordle_agents.methods.policy_iteration_boards`). On one board it plays as the
    network does."""

    def __init__(self, agent: WordAgent, block: int = 256) -> None:
        if agent.boards != 1:
            raise ValueError(
                f"BoardMixture takes a one-board network; this one plays {agent.boards} boards"
            )
        self.agent, self.block = agent, block
        self.checkpoint = agent.checkpoint

    @property
    def name(self) -> str:
        return f"{self.agent.name}, a mixture over the boards"

    @property
    def provenance(self) -> dict[str, Any]:
        found = dict(self.agent.provenance)
        if found.get("learned_from") and "on several boards" not in found["learned_from"]:
            # not taught several boards (methods.policy_iteration_boards)
            found["learned_from"] += " (on one board)"
        return found

    @torch.no_grad()
    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        config, agent = env.config, self.agent
        if config.boards == 1:
            return agent.act(observations, action_masks, env)
        if config.observation != "knowledge" or config.vocabulary.length != agent.length:
            raise ValueError(
                f"the {agent.kind} agent reads the env's 'knowledge' observation of "
                f"{agent.length}-letter words; the game has the {config.observation!r} observation "
                f"of {config.vocabulary.length}-letter words"
            )
        agent.use_words(env.words)
        agent.net.eval()
        layout, max_guesses = env.observation.layout, agent.layout.max_guesses
        allowed = bool_mask(action_masks)
        actions = []
        for start in range(0, observations.shape[0], self.block):
            rows = slice(start, start + self.block)
            boards, unsolved = one_board_observations(
                observations[rows].to(agent.device), layout, max_guesses
            )
            # (b, K, W)
            log_pi = agent.scores(boards.flatten(0, 1)).log_softmax(1).view(*unsolved.shape, -1)
            log_pi = log_pi.masked_fill_(~unsolved[..., None], -torch.inf).logsumexp(1)
            actions.append(
                log_pi.masked_fill_(~allowed[rows].to(agent.device), -torch.inf).argmax(1)
            )
        return torch.cat(actions).to(env.device)


def pool_boards(
    features: torch.Tensor, unsolved: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """The boards in play (B, K) bool (the unsolved ones; every one of a finished game), the boards'
    features (B, K, H), >= 0, zeroed on the others, and their order-free summary: the mean and the
    max over the boards in play and their share (B, 1)."""
    seen = unsolved | ~unsolved.any(1, keepdim=True)
    weight = seen.to(features.dtype)[..., None]
    features = features * weight
    return seen, features, (features.sum(1) / weight.sum(1), features.amax(1), weight.mean(1))


MAX_HIDDEN = 1 << 14
"""The widest context a checkpoint may declare."""


class AllBoardsNetwork:
    """A network that sees every board: the one-board network (``agent``) scores each unsolved
    board's letters as it would alone, and a context network corrects each board's scores and weighs
    the boards from what it sees of all of them, order-free: each board's encoding (its knowledge
    and its one-board scores), their mean and max over the unsolved boards, the game's turn and the
    share of boards left. The policy is the weighted mixture of the corrected boards' word
    softmaxes. The context's last layer starts at zero, so a new one plays exactly as
    :class:`BoardMixture` (equal weights, the one-board scores); ``freeze_board`` keeps the
    one-board network as it came (only the context learns). ``max_guesses``: the longest game it
    plays (its turn input). A harness policy (greedy: the mixture's likeliest allowed word)."""

    def __init__(
        self,
        agent: WordAgent,
        max_guesses: int,
        hidden: int = 256,
        freeze_board: bool = True,
        block: int | None = None,
    ) -> None:
        if agent.boards != 1:
            raise ValueError(
                f"AllBoardsNetwork takes a one-board network; this one plays {agent.boards} boards"
            )
        self.agent, self.max_guesses, self.hidden = agent, max_guesses, hidden
        # Games scored at once when playing: few on the CPU, many on a GPU (its launches, not its
        # memory, bound it).
        self.freeze_board = freeze_board
        self.block = (
            block
            if block is not None
            else 4096
            if torch.device(agent.device).type == "cuda"
            else 128
        )
        self.context = self.context_net(agent, max_guesses, hidden).to(agent.device)
        self.net = nn.ModuleDict({"board": agent.net, "context": self.context})
        self.device, self.checkpoint = agent.device, agent.checkpoint
        for weight in agent.net.parameters():
            weight.requires_grad_(not freeze_board)

    @staticmethod
    def context_net(agent: WordAgent, max_guesses: int, hidden: int) -> nn.ModuleDict:
        """The context network for ``agent``'s boards, its last layer zero (it starts as the
        mixture)."""
        letters = ALPHABET * agent.length
        # one_board_observations' width
        board = 2 * letters + 2 * ALPHABET + agent.layout.max_guesses + 1
        encode = nn.Sequential(nn.Linear(board + letters, hidden), nn.ReLU())
        # a board's encoding, their mean and max, the turn, the share left
        inputs = 3 * hidden + max_guesses + 2
        correct = nn.Sequential(
            nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, letters + 1)
        )
        nn.init.zeros_(correct[-1].weight)
        nn.init.zeros_(correct[-1].bias)
        return nn.ModuleDict({"encode": encode, "correct": correct})

    kind = "see-all"
    """Its checkpoints' kind: ``{"kind", "board": the one-board network's checkpoint, "context":
    weights, "max_guesses", "hidden"}``."""

    @classmethod
    def load(
        cls, path: str | Path, device: Any = "cpu", freeze_board: bool = True
    ) -> AllBoardsNetwork:
        """A network that sees every board from its checkpoint (written by
        ``python -m wordle_agents.commands.improve_boards --see-all``); ``freeze_board`` as in the
        constructor."""
        data = read_checkpoint(path, cls.kind)
        board = data.get("board")
        if not isinstance(board, dict) or board.get("kind") not in NETWORKS:
            raise ValueError(f"checkpoint {str(path)!r} holds no one-board network")
        agent = NETWORKS[board["kind"]].load(path, device, board)
        where = f"checkpoint {str(path)!r}"
        sizes = _sizes(data, where)
        weights = data.get("context")
        # the declared shapes, nothing allocated: a huge declared network costs nothing
        with torch.device("meta"):
            declared = cls.context_net(agent, sizes["max_guesses"], sizes["hidden"]).state_dict()
        _check_context(where, weights, declared)
        seeing = cls(agent, sizes["max_guesses"], sizes["hidden"], freeze_board)
        seeing.context.load_state_dict({k: v.float() for k, v in weights.items()})
        seeing.checkpoint = agent.checkpoint
        return seeing

    @property
    def name(self) -> str:
        return f"{self.agent.name}, seeing every board"

    @property
    def provenance(self) -> dict[str, Any]:
        # the board network's checkpoint records the whole training
        return dict(self.agent.provenance)

    def use_words(self, words: Any) -> None:
        self.agent.use_words(words)

    def log_pi(self, observations: torch.Tensor, layout: MultiKnowledgeLayout) -> torch.Tensor:
        """log pi of every word (B, W), differentiable in the context's weights (and the board
        network's, unless frozen)."""
        boards, unsolved = one_board_observations(
            observations, layout, self.agent.layout.max_guesses
        )
        batch, count, _ = boards.shape
        with torch.set_grad_enabled(torch.is_grad_enabled() and not self.freeze_board):
            letters = self.agent.letter_scores(boards.flatten(0, 1)).view(batch, count, -1)
        # (B, K, H) >= 0
        encoded = self.context["encode"](torch.cat([boards, letters.detach()], dim=2))
        seen, h, (mean, top, share) = pool_boards(encoded, unsolved)
        turn = layout.fields(observations.float()).turn  # (B, the game's max_guesses + 1)
        if turn.shape[1] > self.max_guesses + 1:
            raise ValueError(
                f"a game of {turn.shape[1] - 1} guesses; this network sees at most "
                f"{self.max_guesses}"
            )
        turn = nn.functional.pad(turn, (0, self.max_guesses + 1 - turn.shape[1]))
        pooled = torch.cat([mean, top, turn, share], dim=1)[:, None].expand(-1, count, -1)
        out = self.context["correct"](torch.cat([h, pooled], dim=2))  # (B, K, 26 L + 1)
        log_alpha = out[..., -1].masked_fill(~seen, -torch.inf).log_softmax(1)
        each = (
            self.agent.net.words((letters + out[..., :-1]).flatten(0, 1))
            .log_softmax(1)
            .view(batch, count, -1)
        )
        return (log_alpha[..., None] + each).logsumexp(1)

    @torch.no_grad()
    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        if env.config.boards == 1:
            return self.agent.act(observations, action_masks, env)
        self.use_words(env.words)
        self.net.eval()
        layout, allowed, actions = env.observation.layout, bool_mask(action_masks), []
        for start in range(0, observations.shape[0], self.block):
            rows = slice(start, start + self.block)
            log_pi = self.log_pi(observations[rows].to(self.device), layout)
            actions.append(
                log_pi.masked_fill_(~allowed[rows].to(self.device), -torch.inf).argmax(1)
            )
        return torch.cat(actions).to(env.device)


class NormalHardPair:
    """Two networks as one policy: ``hard``'s weights in a hard-mode game, ``normal``'s elsewhere
    (``normal``'s everywhere when ``hard`` is None); on several boards (no hard mode there),
    ``normal``'s as a :class:`BoardMixture`. Its name, checkpoint and provenance are ``normal``'s
    (or ``name``)."""

    def __init__(
        self,
        normal: str | Path,
        hard: str | Path | None = None,
        device: Any = "cpu",
        name: str | None = None,
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
        """What plays a game of this mode and board count
        (``wordle_gym.harness.registry.playing``)."""
        return self.hard if hard_mode else self.mixture if boards > 1 else self.normal

    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        config = env.config
        return self.plays(config.hard_mode, config.boards).act(observations, action_masks, env)


def _sizes(data: dict[str, Any], where: str) -> dict[str, int]:
    """A see-all checkpoint's ``max_guesses`` and ``hidden``, each an integer within its bound."""
    sizes = {}
    for name, most in (("max_guesses", MAX_GUESSES), ("hidden", MAX_HIDDEN)):
        value = data.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
            raise ValueError(f"{where}: {name} must be an integer from 1 to {most}; got {value!r}")
        sizes[name] = value
    return sizes


def _check_context(where: str, weights: Any, declared: dict[str, torch.Tensor]) -> None:
    """A see-all checkpoint's context weights: exactly the ``declared`` names, each finite floats
    of the declared shape."""
    if not isinstance(weights, dict) or set(weights) != set(declared):
        raise ValueError(f"{where}: the context's weights are not {sorted(declared)}")
    for name, want in declared.items():
        have = weights[name]
        if (
            not isinstance(have, torch.Tensor)
            or not have.is_floating_point()
            or have.shape != want.shape
        ):
            shown = tuple(have.shape) if isinstance(have, torch.Tensor) else type(have).__name__
            raise ValueError(
                f"{where}: the context's {name!r} is {shown}; expected floats of "
                f"{tuple(want.shape)}"
            )
        if not bool(torch.isfinite(have).all()):
            raise ValueError(f"{where}: the context's {name!r} holds NaN or infinite weights")
