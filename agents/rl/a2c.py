"""A2C with a word one-hot policy (the write-up after Andrew Ho), trained on the vector env.

The network maps what the player knows to a 26 x L letter-position score; multiplying it with
a fixed one-hot tensor of every allowed word (a buffer, not a weight) gives one logit per word.
So the same weights serve any vocabulary, which the curriculum 100 -> 1000 -> 2315 -> full uses.

Training follows the write-up: a batch of games is played to the end with softmax sampling; each
transition adds ``-log pi(a|s) A.detach() + A^2`` with the TD(0) advantage
``A = r + gamma V(s') - V(s)`` (``V(s')`` detached, 0 at the end); the mean over all transitions
is one Adam step. Lost answers join a FIFO; a new game takes its answer from it with
probability 0.1, and for such games the answer is forced on the last guess with probability 1/2.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import torch
from torch import nn

from wordle_agents.common.network import WordAgent, WordScorer, check_finite, check_width
from wordle_agents.common.training import RunConfig, TrainingSpec
from wordle_gym.core.rewards import canonical_reward
from wordle_gym.core.rules import ALPHABET
from wordle_gym.envs.observation import KnowledgeLayout
from wordle_gym.envs.vector import WordleVectorEnv
from wordle_gym.utils.device import device_generator, resolve_device

ENCODINGS = ("positional", "knowledge")
ENCODING_ALIASES = {"seed": "positional"}
"""Old names of encodings (saved checkpoints name them)."""


@dataclass
class A2CConfig:
    """Everything that defines an A2C run. Every field is saved with each checkpoint."""

    encoding: str = "positional"
    """"positional" (once "seed"): 26 x 5 x 2 bits per letter and position {unknown, here, not here,
    elsewhere} (260 inputs, no exact letter counts, as in the A2C write-up); "knowledge": the env's
    lossless observation."""
    hidden: int = 512
    """Width of the trunk and policy head (the write-up: 512)."""
    dropout: float = 0.05
    """Dropout after every hidden layer (the write-up: 0.05)."""
    batch_games: int = 1024
    """Games played at once for each update (the write-up: 1024; 2048 for the full vocabulary)."""
    gamma: float = 0.9
    """Discount of the TD(0) advantage (the write-up: 0.9)."""
    lr: float = 1e-3
    """Adam learning rate (the write-up: 1e-3)."""
    betas: tuple[float, float] = (0.9, 0.999)
    """Adam betas (the write-up: 0.9, 0.999)."""
    reward: str = "win-bonus"
    """Reward preset ("win-bonus": +1 for a win in 1-4 guesses, +0.5 in 5-6, -10 for a loss; once
    "seed000")."""
    max_guesses: int = 0
    """Guesses per game (the network's turn input has this many entries); 0: the game's default."""
    queue_prob: float = 0.1
    """Chance that a new game takes its answer from the recent-losses FIFO (when not empty)."""
    queue_size: int = 10_000
    """FIFO capacity; the oldest losses drop out first."""
    force_prob: float = 0.5
    """For games drawn from the FIFO: chance that the answer is forced on the last guess."""
    seed: int = 0
    """Seed of the initial weights, the answer draws and the action sampling."""

    def __post_init__(self) -> None:
        check_finite(self)
        self.encoding = ENCODING_ALIASES.get(self.encoding, self.encoding)
        self.reward = canonical_reward(self.reward)  # a checkpoint's old name equals the new
        if self.encoding not in ENCODINGS:
            raise ValueError(f"unknown encoding {self.encoding!r}; expected one of {ENCODINGS}")
        check_width("hidden", self.hidden)
        check_width("batch_games", self.batch_games, 1 << 24)
        if self.max_guesses == 0:
            self.max_guesses = 6
        check_width("max_guesses", self.max_guesses, 100)
        check_width("queue_size", self.queue_size, 1 << 24)
        for name in ("queue_prob", "force_prob", "dropout"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1]; got {getattr(self, name)}")
        self.betas = tuple(self.betas)  # type: ignore[assignment]


def input_size(encoding: str, length: int) -> int:
    """Size of the state input for ``encoding`` and word length."""
    return ALPHABET * length * 2 + (0 if encoding == "positional" else 2 * ALPHABET)


def encode_observations(
    obs: torch.Tensor, encoding: str, layout: KnowledgeLayout
) -> tuple[torch.Tensor, torch.Tensor]:
    """(state, turn one-hot over the first T turns) float inputs from "knowledge" observations (B,
    D)."""
    green, excluded, low, high, turn = layout.fields(obs.float())
    return board_state(green, excluded, low, high, encoding), turn[:, : layout.max_guesses]


def board_state(
    green: torch.Tensor,
    excluded: torch.Tensor,
    low: torch.Tensor,
    high: torch.Tensor,
    encoding: str,
) -> torch.Tensor:
    """One board's network input (B, S) from its knowledge fields (green, excluded (B, L, 26),
    counts (B, 26)); a trainer of several boards encodes each board with it."""
    batch, length = green.shape[0], green.shape[1]
    if encoding == "knowledge":
        return torch.cat(
            [green.flatten(1), excluded.flatten(1), low / length, high / length], dim=1
        )
    here = green > 0
    not_here = (excluded > 0) & ~here
    # present, more than the known greens
    elsewhere = ~here & ~not_here & (low > green.sum(1))[:, None, :]
    bits = torch.stack([here | elsewhere, not_here | elsewhere], dim=-1)  # (B, L, 26, 2)
    return bits.permute(0, 2, 1, 3).reshape(batch, -1).float()  # letter-major 26 x L x 2


class A2CNet(nn.Module):
    """Trunk 3 x hidden; policy head to 2 x 26 x L mixed by (V, 1); value head [trunk, turn] -> 128
    -> 32 -> 1."""

    def __init__(
        self, inputs: int, length: int, max_guesses: int, hidden: int = 512, dropout: float = 0.05
    ) -> None:
        super().__init__()
        self.length = length

        def block(n_in: int, n_out: int) -> list[nn.Module]:
            return [nn.Linear(n_in, n_out), nn.ReLU(), nn.Dropout(dropout)]

        self.trunk = nn.Sequential(
            *block(inputs, hidden), *block(hidden, hidden), *block(hidden, hidden)
        )
        self.policy = nn.Sequential(
            *block(hidden, hidden), *block(hidden, hidden), nn.Linear(hidden, 2 * ALPHABET * length)
        )
        self.value = nn.Sequential(
            *block(hidden + max_guesses, 128), *block(128, 32), nn.Linear(32, 1)
        )
        self.words = WordScorer(length)

    def letter_scores(
        self, state: torch.Tensor, turn: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Letter-position scores (B, 26 L), which the word head sums into word logits, and values
        (B,)."""
        features = self.trunk(state)
        maps = self.policy(features).view(-1, 2, ALPHABET * self.length)
        value = self.value(torch.cat([features, turn], dim=1))  # (B, 1)
        return value * maps[:, 0] + maps[:, 1], value.squeeze(1)  # p = V * p0 + p1

    def forward(self, state: torch.Tensor, turn: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Word logits (B, W) and values (B,)."""
        scores, value = self.letter_scores(state, turn)
        return self.words(scores), value


class A2CAgent(WordAgent):
    """The trained policy: argmax over allowed words (a harness Policy); see :class:`WordAgent`."""

    kind = "a2c"
    config_class = A2CConfig

    def build_net(self) -> nn.Module:
        cfg = self.config
        return A2CNet(
            input_size(cfg.encoding, self.length),
            self.length,
            cfg.max_guesses,
            cfg.hidden,
            cfg.dropout,
        )

    @property
    def name(self) -> str:
        return f"A2C ({self.config.encoding} encoding)"

    def letter_scores_values(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Letter-position scores (B, 26 L) and state values (B,)."""
        return self.net.letter_scores(
            *encode_observations(observations, self.config.encoding, self.layout)
        )

    def logits_values(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Word logits (B, W) and state values (B,)."""
        scores, values = self.letter_scores_values(observations)
        return self.net.words(scores), values

    def letter_scores(self, observations: torch.Tensor) -> torch.Tensor:
        return self.letter_scores_values(observations)[0]


@dataclass
class IterationStats:
    """What one update saw."""

    loss: float
    win_rate: float
    mean_guesses: float
    queue: int
    games: int = field(default=0)


class Rollout(NamedTuple):
    """One batch of games played to the end: per turn ``(T, N)`` (``alives``: the game was still
    on)."""

    logps: torch.Tensor
    values: torch.Tensor
    rewards: torch.Tensor
    alives: torch.Tensor
    ends: torch.Tensor
    wins: torch.Tensor  # (N,) bool
    guesses: torch.Tensor  # (N,) float: the turn each game ended on


class A2CTrainer:
    """Runs updates of one curriculum stage; its whole state can be saved and resumed exactly."""

    def __init__(
        self,
        agent: A2CAgent,
        answers: Sequence[str],
        allowed: Sequence[str] | None,
        device: Any = None,
    ) -> None:
        cfg = agent.config
        self.agent, self.config = agent, cfg
        self.device = agent.device if device is None else resolve_device(device)
        self.env = self.make_env(list(answers), None if allowed is None else list(allowed))
        agent.check_env(self.env)
        agent.use_words(self.env.words)
        self.optimizer = torch.optim.Adam(agent.net.parameters(), lr=cfg.lr, betas=cfg.betas)
        self.iteration = 0
        self.queue: deque[int] = deque(maxlen=cfg.queue_size)
        self.draws = torch.Generator().manual_seed(cfg.seed)  # answers and FIFO draws (CPU)
        self.sampler = device_generator(self.device).manual_seed(cfg.seed + 1)  # actions, forcing
        torch.manual_seed(cfg.seed + 2)  # dropout

    def make_env(
        self,
        answers: list[str],
        allowed: list[str] | None,
        env_class: type = WordleVectorEnv,
        **options: Any,
    ):
        """The vector env (``env_class``, with ``options``) of ``batch_games`` games the trainer
        plays."""
        cfg = self.config
        return env_class(
            cfg.batch_games,
            device=self.device,
            answers=answers,
            allowed=allowed,
            reward=cfg.reward,
            max_guesses=cfg.max_guesses,
            check_actions=False,
            **options,
        )

    def draw_answers(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Each game's answer (N,) and whether it came from the recent losses (N,)."""
        n, k = self.config.batch_games, self.env.vocabulary.num_answers
        uniform = torch.randint(k, (n,), generator=self.draws)
        coins = torch.rand(n, generator=self.draws)
        # Games whose coin lands under queue_prob take the oldest recent losses, in order, while any
        # are left.
        takers = torch.nonzero(coins < self.config.queue_prob).flatten()[: len(self.queue)]
        uniform[takers] = torch.tensor(
            [self.queue.popleft() for _ in range(len(takers))], dtype=torch.int64
        )
        queued = torch.zeros(n, dtype=torch.bool)
        queued[takers] = True
        return uniform.to(self.device), queued.to(self.device)

    def step(self, most: int | None = None) -> IterationStats:
        """Play one batch of games to the end and make one update (``most``, at least 1, changes
        nothing)."""
        answers, queued = self.draw_answers()
        obs, _ = self.env.reset(options={"answers": answers})
        batch, loss = self.play_and_update(obs, answers, queued)
        wins = batch.wins
        self.queue_losses(answers, wins)
        return IterationStats(
            loss=float(loss),
            win_rate=float(wins.float().mean()),
            mean_guesses=float(batch.guesses[wins].mean()) if bool(wins.any()) else float("nan"),
            queue=len(self.queue),
            games=self.config.batch_games,
        )

    def play_and_update(
        self, obs: torch.Tensor, answers: torch.Tensor, queued: torch.Tensor
    ) -> tuple[Rollout, torch.Tensor]:
        """Play the games just reset and make one update from them: the rollout and the loss."""
        batch = self.rollout(obs, answers, queued)
        return batch, self.update(self.loss(batch))

    def rollout(
        self,
        obs: torch.Tensor,
        answers: torch.Tensor,
        queued: torch.Tensor,
        compact: bool | None = None,
    ) -> Rollout:
        """Play the games just reset (``obs``) to the end, sampling from the policy (device
        tensors).

        ``compact`` (default: on a CPU) runs the network only on the games still playing each turn.
        Otherwise (the default on a GPU) every game plays all ``max_guesses`` turns, finished ones
        masked out: picking the live games, or stopping when none is left, would stop the host once
        per turn until the device caught up. Both give the same games and the same update (the
        random numbers are drawn for every game either way); only the work differs."""
        cfg, env, net = self.config, self.env, self.agent.net
        compact = self.device.type == "cpu" if compact is None else compact
        net.train(self.dropout_in_rollout)
        n = cfg.batch_games
        alive = torch.ones(n, dtype=torch.bool, device=self.device)
        wins = torch.zeros_like(alive)
        guesses = torch.zeros(n, device=self.device)
        logps, values, rewards, alives, ends = [], [], [], [], []
        for turn in range(cfg.max_guesses):
            u = torch.rand(n, generator=self.sampler, device=self.device)
            rows = alive.nonzero().squeeze(1) if compact else None
            live = obs if rows is None else obs[rows]
            actions, logp, value = self.choose_guesses(
                live, u, rows, turn == cfg.max_guesses - 1, queued, answers
            )
            self.observe_turn(obs, actions)
            obs, reward, terminated, _, infos = env.step(actions)
            reward = self.training_reward(reward, actions, answers, alive)
            wins |= infos["won"] & alive
            guesses = torch.where(terminated & alive, float(turn + 1), guesses)
            logps.append(logp)
            values.append(value)
            rewards.append(reward)
            alives.append(alive)
            ends.append(terminated & alive)
            alive = alive & ~terminated
        stack = torch.stack
        return Rollout(
            stack(logps), stack(values), stack(rewards), stack(alives), stack(ends), wins, guesses
        )

    # The rollout's hooks (a variant trainer changes how it samples, what it keeps, the reward it
    # learns from).
    dropout_in_rollout = True
    """The network samples the games in training mode (dropout on)."""

    def choose_guesses(
        self,
        live: torch.Tensor,
        u: torch.Tensor,
        rows: torch.Tensor | None,
        last: bool,
        queued: torch.Tensor,
        answers: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Every game's guess, its log-probability and the position's value (N,) (0 off ``rows``),
        from the observations of the games in ``rows`` (all if None) and one uniform number a game;
        on the ``last`` turn a game from the recent losses (``queued``) is given its answer with
        probability ``force_prob``."""
        cfg, words, n = self.config, self.agent.net.words, self.config.batch_games
        scores, value = self.agent.letter_scores_values(live)
        scores, log_z, drawn = self.sample(scores, u if rows is None else u[rows], rows)
        actions = per_game(drawn, rows, n)
        if last:
            coin = torch.rand(n, generator=self.sampler, device=self.device)
            forced = self.env.game.answer_actions[answers]
            actions = torch.where(queued & (coin < cfg.force_prob), forced, actions)
        logp = words.pick(scores, actions if rows is None else actions[rows]) - log_z
        return actions, per_game(logp, rows, n), per_game(value, rows, n)

    def sample(
        self, scores: torch.Tensor, u: torch.Tensor, rows: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The letter scores the policy samples from, the log-partition of its word softmax and the
        words drawn with the uniform numbers ``u``, for the games in ``rows`` (all if None)."""
        return (scores, *self.agent.net.words.log_partition(scores, u))

    def queue_losses(self, answers: torch.Tensor, wins: torch.Tensor) -> None:
        """Keeps the answers of the games lost in the recent-losses FIFO."""
        self.queue.extend(answers[(~wins).nonzero().flatten()].tolist())

    def observe_turn(self, obs: torch.Tensor, actions: torch.Tensor) -> None:
        """Sees what every game showed (``obs``) and the guesses played on it, before the step."""

    def training_reward(
        self,
        reward: torch.Tensor,
        actions: torch.Tensor,
        answers: torch.Tensor,
        alive: torch.Tensor,
    ) -> torch.Tensor:
        """The reward the update learns from, given the env's (the preset's) and the guesses
        played: a variant adds a shaping term of the reward interface here (the A2C variants'
        :class:`~wordle_gym.core.rewards.InformationGain`, over the bits it tracks)."""
        return reward

    def loss(self, batch: Rollout) -> torch.Tensor:
        """The A2C loss of a rollout: policy gradient with the advantage, plus its square for the
        critic, averaged over the turns played. The seed's TD(0) advantage is A_t = r_t + gamma
        V(s_{t+1}) (detached; 0 after the end) - V(s_t)."""
        advantage = self.targets(batch) - batch.values
        return (
            batch.alives * (-batch.logps * advantage.detach() + advantage**2)
        ).sum() / batch.alives.sum()

    def targets(self, batch: Rollout) -> torch.Tensor:
        """The critic's targets (T, N), detached: the advantage of :meth:`loss` is these minus
        ``values``."""
        following = torch.cat([batch.values[1:].detach(), torch.zeros_like(batch.values[:1])])
        return (
            batch.rewards + self.config.gamma * torch.where(batch.ends, 0.0, following)
        ).detach()

    def update(self, loss: torch.Tensor) -> torch.Tensor:
        """One optimizer step on ``loss``, one update; the loss, detached."""
        loss = self._optimize(loss)
        self.iteration += 1
        return loss

    def _optimize(self, loss: torch.Tensor) -> torch.Tensor:
        """One Adam step on ``loss``."""
        self.optimizer.zero_grad()
        loss.backward()
        self.freeze_gradients()
        self.optimizer.step()
        return loss.detach()

    def freeze_gradients(self) -> None:
        """Before each Adam step: drop the gradients of the weights that step leaves as they are
        (none)."""

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue exactly (weights_only-loadable)."""
        state = {
            "model": self.agent.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "iteration": self.iteration,
            "queue": list(self.queue),
            "draws": self.draws.get_state(),
            "sampler": self.sampler.get_state(),
            "torch_rng": torch.get_rng_state(),
        }
        if self.device.type == "cuda":
            state["cuda_rng"] = torch.cuda.get_rng_state(self.device)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.agent.net.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.iteration = int(state["iteration"])
        self.queue = deque(state["queue"], maxlen=self.config.queue_size)
        self.draws.set_state(state["draws"])
        self.sampler.set_state(state["sampler"])
        torch.set_rng_state(state["torch_rng"])
        if "cuda_rng" in state and self.device.type == "cuda":
            torch.cuda.set_rng_state(state["cuda_rng"], self.device)


def per_game(live: torch.Tensor, rows: torch.Tensor | None, n: int) -> torch.Tensor:
    """One entry per game from the entries of the games in ``rows`` (0 for the others; all if None):
    a rollout's per-game records, for this trainer and those built on it."""
    return live if rows is None else live.new_zeros(n).index_copy(0, rows, live)


TRAINING = TrainingSpec(
    agent_class=A2CAgent,
    make_trainer=lambda agent, answers, allowed, device, _updates, _warm: A2CTrainer(
        agent, answers, allowed, device
    ),
    defaults=RunConfig(
        run_dir="runs/a2c",
        stages=("100", "1000", "2315", "full"),
        iterations=(5000, 10000, 15000, 30000),
    ),
)
"""How ``examples/train_a2c.py`` trains this agent."""
