"""DQN with letter-decomposed action values and prioritized replay (as the DQN write-ups it
reproduces).

The Q network reads the env's observation (the first write-up's 313 hand-made features are all
derivable from it: letters tried, known present, known here, known not here, guesses left) and
outputs 26 x L letter-position values; a word's value is the sum of its letters' values (the output
times the words x 26L one-hot matrix, a buffer, so the weights serve any vocabulary). Options follow
the second write-up: a target network, Double-DQN targets, a dueling head (value + advantage - mean
advantage), gradient clipping. Games run batched on the vector env; answers the agent loses are
drawn more often; epsilon falls linearly from 1.0 to 0.05 and the learning rate decays for a final
polish.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from wordle_agents.common.network import (
    WordAgent,
    WordScorer,
    check_finite,
    check_width,
    sample_categorical,
)
from wordle_agents.common.training import RunConfig, TrainingSpec
from wordle_agents.rl.replay import PrioritizedReplay, UniformReplay
from wordle_gym.core.rewards import canonical_reward
from wordle_gym.core.rules import ALPHABET
from wordle_gym.envs.vector import WordleVectorEnv
from wordle_gym.utils.device import device_generator, resolve_device


@dataclass
class DQNConfig:
    """Everything that defines a DQN run; saved with each checkpoint."""

    hidden: int = 1024
    """Width of each hidden layer (1024: the ablation's best, with the "default" reward; seed 001
    used 512)."""
    layers: int = 3
    """Hidden layers in the trunk."""
    dueling: bool = True
    """Dueling head: a state value plus the word advantages minus their mean."""
    double: bool = True
    """Double-DQN targets: the online network picks the next word, the target network values it."""
    gamma: float = 0.99
    """Discount."""
    lr: float = 5e-4
    """Adam learning rate at the start of each stage."""
    lr_final_fraction: float = 0.1
    """The learning rate falls linearly to ``lr * lr_final_fraction`` over ``total_updates`` (final
    polish)."""
    total_updates: int = 50_000
    """Schedule length for epsilon, beta and the learning rate (the training script sets it per
    stage)."""
    batch_size: int = 512
    """Transitions per gradient update."""
    buffer_size: int = 200_000
    """Replay capacity (transitions)."""
    learning_starts: int = 2_000
    """Transitions stored before learning begins."""
    num_games: int = 256
    """Games stepped together on the vector env."""
    updates_per_step: int = 2
    """Gradient updates per batched env step."""
    target_update: int = 500
    """Updates between copies of the online network into the target network."""
    eps_start: float = 1.0
    """Exploration rate at the start of a run from fresh weights."""
    eps_warm_start: float = 0.1
    """Exploration rate at the start of a stage whose weights were trained before (a later
    curriculum stage, or ``--init``). Restarting those at 1.0 fills the buffer with random play that
    unlearns them:
    the 100-word weights (30 % greedy wins on 1000 words) fell to 0.7 % after 4000 updates on 1000
    words."""
    eps_end: float = 0.05
    """Exploration rate after the fall."""
    eps_fraction: float = 0.3
    """Fraction of ``total_updates`` over which epsilon falls from start to end."""
    grad_clip: float = 1.0
    """Gradient norm clip."""
    prioritized: bool = True
    """Proportional prioritized replay on a sum tree (else uniform replay)."""
    alpha: float = 0.6
    """Priority exponent: P(i) = p_i^alpha / sum p^alpha."""
    priority_eps: float = 0.01
    """Added to ``|TD error|``. Wordle transitions are often fitted exactly; a tiny floor (1e-6)
    then makes the smallest priority, which normalises the importance weights, so small that every
    other weight (and so the step size) collapses: learning stalled at 30 % on 100 words until this
    was 0.01."""
    beta_start: float = 0.4
    """Importance-weight exponent, annealed to 1 over ``total_updates``."""
    reward: str = "default"
    """A reward preset: "default" (-1 per guess, -5 for a loss) learns fastest in the ablation;
    "tile-shaped" (once "seed001") is the DQN write-up's (+1 per green or yellow tile, -5 per guess,
    +15 win, -15 loss)."""
    max_guesses: int = 6
    """Guesses per game."""
    game_priority: float = 1.0
    """Weight added to an answer's chance of being drawn each time it is lost (halved back on a
    win)."""
    seed: int = 0
    """Seed of the initial weights, exploration and the env."""

    def __post_init__(self) -> None:
        check_finite(self)
        self.reward = canonical_reward(self.reward)  # a checkpoint's old name equals the new
        check_width("hidden", self.hidden)
        check_width("layers", self.layers, 64)
        check_width("max_guesses", self.max_guesses, 100)
        for name in (
            "total_updates",
            "batch_size",
            "buffer_size",
            "num_games",
            "updates_per_step",
            "target_update",
        ):
            check_width(name, getattr(self, name), 1 << 30)
        if self.learning_starts < 0:
            raise ValueError(f"learning_starts must be >= 0; got {self.learning_starts}")
        for name in ("eps_start", "eps_warm_start", "eps_end"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1]; got {getattr(self, name)}")


class QNet(nn.Module):
    """MLP trunk -> 26 L letter values (+ a state value when dueling) -> one value per word."""

    def __init__(self, inputs: int, length: int, hidden: int, layers: int, dueling: bool) -> None:
        super().__init__()
        blocks: list[nn.Module] = []
        for i in range(layers):
            blocks += [nn.Linear(inputs if i == 0 else hidden, hidden), nn.ReLU()]
        self.trunk = nn.Sequential(*blocks)
        self.letters = nn.Linear(hidden, ALPHABET * length)
        self.value = nn.Linear(hidden, 1) if dueling else None
        self.length = length
        self.words = WordScorer(length)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        features = self.trunk(observations.float())
        q = self.words(self.letters(features))  # (B, W): sum of the word's letter values
        if self.value is not None:
            q = self.value(features) + q - q.mean(dim=1, keepdim=True)
        return q

    def best_actions(
        self, observations: torch.Tensor, allowed: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``forward(observations).masked_fill(~allowed, -inf).argmax(1)``: the state value and the
        mean advantage are the same for every word of a row, so the words' letter values alone
        decide."""
        return self.words.best(self.letter_values(observations), allowed)

    def letter_values(self, observations: torch.Tensor) -> torch.Tensor:
        """The 26 L letter-position values (B, 26 L) that the word values sum."""
        return self.letters(self.trunk(observations.float()))

    def action_values(self, observations: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """``forward(observations)[b, actions[b]]``, (B,), at the cost of the letters alone: the
        chosen word's letter values summed, and (dueling) the mean over words as one dot product."""
        features = self.trunk(observations.float())
        letters = self.letters(features)
        q = self.words.pick(letters, actions)
        if self.value is not None:
            q = self.value(features).squeeze(1) + q - self.words.mean(letters)
        return q


class DQNAgent(WordAgent):
    """Greedy (masked) policy of a Q network: a harness Policy; see :class:`WordAgent`."""

    kind = "dqn"
    config_class = DQNConfig

    def build_net(self) -> QNet:
        cfg = self.config
        return QNet(self.layout.size, self.length, cfg.hidden, cfg.layers, cfg.dueling)

    @property
    def name(self) -> str:
        return (
            "DQN (letter-decomposed, prioritized replay)"
            if self.config.prioritized
            else "DQN (letter-decomposed)"
        )

    def letter_scores(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net.letter_values(observations.flatten(1))

    def scores(self, observations: torch.Tensor) -> torch.Tensor:
        """The action values Q(s, w) of every allowed word (the letter sums plus the dueling
        constant)."""
        return self.net(observations.flatten(1))


class DQNTrainer:
    """Steps ``num_games`` games with epsilon-greedy actions, stores transitions, learns."""

    def __init__(
        self,
        agent: DQNAgent,
        answers: Sequence[str],
        allowed: Sequence[str] | None,
        device: Any = None,
        schedule: int | None = None,
        warm_start: bool = False,
    ) -> None:
        """``schedule``: updates over which epsilon, beta and the learning rate move (default
        ``config.total_updates``). ``warm_start``: the agent's weights were trained before, so
        exploration starts at ``config.eps_warm_start`` instead of ``config.eps_start``."""
        cfg = agent.config
        self.schedule = schedule or cfg.total_updates
        self.eps_start = cfg.eps_warm_start if warm_start else cfg.eps_start
        self.agent, self.config = agent, cfg
        self.device = agent.device if device is None else resolve_device(device)
        guesses = None if allowed is None else list(allowed)
        self.env = WordleVectorEnv(
            cfg.num_games,
            device=self.device,
            answers=list(answers),
            allowed=guesses,
            reward=cfg.reward,
            max_guesses=cfg.max_guesses,
            autoreset_mode="same_step",
            check_actions=False,
        )
        agent.check_env(self.env)
        agent.use_words(self.env.words)
        self.target = agent.build_net().to(self.device)
        self.target.load_state_dict(agent.net.state_dict())
        self.target.words.set_words(self.env.words)
        self.optimizer = torch.optim.Adam(agent.net.parameters(), lr=cfg.lr)
        obs_shape = (agent.layout.size,)
        if cfg.prioritized:
            self.buffer: UniformReplay = PrioritizedReplay(
                cfg.buffer_size,
                obs_shape,
                device=self.device,
                alpha=cfg.alpha,
                beta=cfg.beta_start,
                eps=cfg.priority_eps,
            )
        else:
            self.buffer = UniformReplay(cfg.buffer_size, obs_shape, device=self.device)
        self.answer_weights = torch.ones(self.env.vocabulary.num_answers, device=self.device)
        self.updates = 0
        self.env_steps = 0
        self.sampler = device_generator(self.device).manual_seed(cfg.seed + 1)
        torch.manual_seed(cfg.seed + 2)
        self.env.answer_weights = self.answer_weights
        self.observations, self.infos = self.env.reset(seed=cfg.seed)

    @property
    def epsilon(self) -> float:
        cfg = self.config
        progress = min(1.0, self.updates / max(1, cfg.eps_fraction * self.schedule))
        return self.eps_start + progress * (cfg.eps_end - self.eps_start)

    def _schedules(self) -> None:
        cfg = self.config
        progress = min(1.0, self.updates / max(1, self.schedule))
        if isinstance(self.buffer, PrioritizedReplay):
            self.buffer.set_beta(cfg.beta_start + progress * (1.0 - cfg.beta_start))
        for group in self.optimizer.param_groups:
            group["lr"] = cfg.lr * (1.0 + progress * (cfg.lr_final_fraction - 1.0))

    def step(self, most: int | None = None) -> dict[str, float | torch.Tensor]:
        """One batched env step (epsilon-greedy), then ``updates_per_step`` updates once warm (at
        most ``most``:
        a stage of N updates makes exactly N).

        Nothing here reads a value back from the device; the loss in the stats is a device
        tensor."""
        cfg, env = self.config, self.env
        masks = self.infos["action_mask"].view(torch.bool)
        with torch.no_grad():
            greedy = self.agent.net.best_actions(self.observations.flatten(1), masks)
        random_actions = sample_categorical(masks.float(), generator=self.sampler)
        explore = (
            torch.rand(cfg.num_games, generator=self.sampler, device=self.device) < self.epsilon
        )
        actions = torch.where(explore, random_actions, greedy)
        # same-step autoreset replaces the answers of finished games
        playing = env.state.answers.clone()
        obs, rewards, terminated, truncated, infos = env.step(actions)
        done = terminated | truncated
        next_obs = (
            torch.where(done[:, None], infos["final_obs"], obs) if "final_obs" in infos else obs
        )
        self.buffer.add(
            self.observations.flatten(1), actions, rewards, next_obs.flatten(1), terminated
        )
        self.env_steps += 1
        # Prioritized game sampling: a lost answer is drawn more often, a won one less (down to 1).
        # The env holds this tensor and draws new answers from it; masked ops, no host read.
        lost, won = done & ~infos["won"], done & infos["won"]
        self.answer_weights.index_add_(0, playing, lost.float() * cfg.game_priority)
        current = self.answer_weights[playing]
        halved = torch.where(won, (current * 0.5).clamp(min=1.0), current)
        # won halves; others keep
        self.answer_weights.scatter_reduce_(0, playing, halved, reduce="amin")
        self.observations, self.infos = obs, infos
        stats: dict[str, float | torch.Tensor] = {"epsilon": self.epsilon}
        if len(self.buffer) >= cfg.learning_starts:
            for _ in range(
                cfg.updates_per_step if most is None else min(cfg.updates_per_step, most)
            ):
                stats["loss"] = self._learn()
        return stats

    def _learn(self) -> torch.Tensor:
        cfg, net = self.config, self.agent.net
        self._schedules()
        batch = self.buffer.sample(cfg.batch_size, generator=self.sampler)
        # Only the next state's argmax scores every word; the other values are of one word each.
        q = net.action_values(batch.observations, batch.actions)
        with torch.no_grad():
            # Double DQN: the online network picks the next word, the target values it.
            best = (net if cfg.double else self.target).best_actions(batch.next_observations)
            bootstrap = self.target.action_values(batch.next_observations, best)
            y = batch.rewards + cfg.gamma * bootstrap * (~batch.dones)
        td = y - q
        loss = (batch.weights * F.smooth_l1_loss(q, y, reduction="none")).mean()
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), cfg.grad_clip)
        self.optimizer.step()
        self.buffer.update_priorities(batch.indices, td.detach())
        self.updates += 1
        if self.updates % cfg.target_update == 0:
            self.target.load_state_dict(net.state_dict())
        return loss.detach()

    def state_dict(self) -> dict[str, Any]:
        """Everything to continue exactly: weights, target, optimizer, replay buffer, counters,
        answer weights, random states, and the games in flight (their state, last observations and
        infos)."""
        env = self.env
        return {
            "games": {f.name: getattr(env.state.clone(), f.name) for f in fields(env.state)},
            "observations": self.observations,
            "infos": self.infos,
            "env_rng": env._generator.get_state(),
            "model": self.agent.net.state_dict(),
            "target": self.target.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "buffer": self.buffer.state_dict(),
            "answer_weights": self.answer_weights.cpu(),
            "iteration": self.updates,
            "env_steps": self.env_steps,
            "sampler": self.sampler.get_state(),
            "torch_rng": torch.get_rng_state(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.agent.net.load_state_dict(state["model"])
        self.target.load_state_dict(state["target"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.buffer.load_state_dict(state["buffer"])
        self.answer_weights = state["answer_weights"].to(self.device)
        self.env.answer_weights = self.answer_weights
        self.updates, self.env_steps = int(state["iteration"]), int(state["env_steps"])
        self.sampler.set_state(state["sampler"])
        torch.set_rng_state(state["torch_rng"])
        if "games" in state:  # runs saved before games in flight were kept start fresh games
            for name, value in state["games"].items():
                setattr(self.env.state, name, None if value is None else value.to(self.device))
            self.observations = state["observations"].to(self.device)
            self.infos = _to_device(state["infos"], self.device)
            self.env._generator.set_state(state["env_rng"])
            self.env._autoreset.zero_()  # same-step autoreset: nothing is pending between steps

    @property
    def iteration(self) -> int:
        """Gradient updates made (the unit of the training schedule)."""
        return self.updates


def _to_device(value: Any, device: torch.device) -> Any:
    if isinstance(value, dict):
        return {k: _to_device(v, device) for k, v in value.items()}
    return value.to(device) if isinstance(value, torch.Tensor) else value


TRAINING = TrainingSpec(
    agent_class=DQNAgent,
    make_trainer=lambda agent, answers, allowed, device, updates, warm: DQNTrainer(
        agent, answers, allowed, device, updates, warm_start=warm
    ),
    defaults=RunConfig(
        run_dir="runs/dqn", stages=("100", "1000", "full"), iterations=(4000, 25000, 100000)
    ),
)
"""How ``examples/train_dqn.py`` trains this agent."""
