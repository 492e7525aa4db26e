"""``python -m research.a2c_variants``: the A2C trainer with the ablations' options (BENCHMARKS.md's
A2C ablation).

    python -m research.a2c_variants --stages full --init agents/checkpoints/a2c_full.pt \\
        --lr 1e-4 --gamma 0.8 --entropy-coef 0.01 [--temperature 2] [--gae-lambda 0.9] \\
        [--clip-range 0.2 --ppo-epochs 2 --minibatches 4] [--info-gain 0.05] \\
        --run-dir runs/a2c-entropy
    python -m research.a2c_variants recipe a2c --set full.entropy_coef=0.01 ... \\
        --run-dir runs/recipes/a2c-entropy

The first form is ``python -m wordle_agents.commands.train_a2c`` with :class:`A2CVariantConfig`'s
options; the second runs a shipped recipe (``python -m wordle_agents.commands.recipe``'s options)
with this trainer in ``train-a2c``'s place, so a stage may set the options below. Each option's
neutral value is the shipped trainer; none of them made a shipped network.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch

from wordle_agents.common.network import check_width
from wordle_agents.common.training import RunConfig, TrainingSpec
from wordle_agents.common.training import main as train
from wordle_agents.rl.a2c import A2CAgent, A2CConfig, A2CTrainer, Rollout, per_game
from wordle_gym.core.rewards import InformationGain, Outcome, information_bits
from wordle_gym.core.tables import pattern_table

PROG = "python -m research.a2c_variants"


@dataclass
class A2CVariantConfig(A2CConfig):
    """:class:`A2CConfig` and the variants' options (each neutral by default: the shipped
    trainer)."""

    gae_lambda: float = 0.0
    """lambda of a GAE advantage: 0 is the seed's TD(0) advantage, 1 the return to the end minus
    V(s)."""
    temperature: float = 1.0
    """Training samples from, and learns, softmax(word scores / temperature); greedy play is the
    same argmax."""
    entropy_coef: float = 0.0
    """Entropy bonus: the loss subtracts this many times the policy's entropy (nats, the whole word
    softmax, from the blocked pass of its log-partition) at each turn played, averaged as the
    rest."""
    clip_range: float = 0.0
    """PPO: above 0, each batch of games makes ``ppo_epochs`` passes over its turns in
    ``minibatches`` minibatches, each an Adam step on PPO's clipped surrogate
    (:func:`clipped_surrogate`) plus A2C's critic loss, with the advantages and targets computed
    once from the games played; the network then runs without dropout (the games' and the update's
    probabilities are one policy's)."""
    ppo_epochs: int = 4
    """PPO: passes over each batch's turns (``clip_range`` > 0)."""
    minibatches: int = 4
    """PPO: Adam steps in each pass, each on an equal share of the batch's turns in a random
    order."""
    info_gain: float = 0.0
    """Shaping added to each guess's reward: this many times the bits its feedback gives about the
    answer, log2(answers consistent before it / after it)
    (:func:`~wordle_gym.core.rewards.information_bits`)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.temperature > 0.0:
            raise ValueError(f"temperature must be > 0; got {self.temperature}")
        for name in ("entropy_coef", "clip_range", "info_gain"):
            if not getattr(self, name) >= 0.0:
                raise ValueError(f"{name} must be >= 0; got {getattr(self, name)}")
        if not 0.0 <= self.gae_lambda <= 1.0:
            raise ValueError(f"gae_lambda must be in [0, 1]; got {self.gae_lambda}")
        check_width("ppo_epochs", self.ppo_epochs, 1000)
        check_width("minibatches", self.minibatches, 1 << 20)


class A2CVariantAgent(A2CAgent):
    """:class:`A2CAgent` whose config holds the variants (its checkpoints name them); plays the same
    way."""

    config_class = A2CVariantConfig

    def reward_learned(self) -> str | None:
        reward = super().reward_learned()
        if reward and self.config.info_gain:
            return f"{reward} + {self.config.info_gain:g} x bits of information per guess"
        return reward


class VariantRollout(NamedTuple):
    """A :class:`~wordle_agents.rl.a2c.Rollout` and what the variants keep of it, per turn (T,
    N)."""

    logps: torch.Tensor
    values: torch.Tensor
    rewards: torch.Tensor
    alives: torch.Tensor
    ends: torch.Tensor
    wins: torch.Tensor
    guesses: torch.Tensor
    entropies: torch.Tensor | None  # the policy's entropy where it was played (``entropy_coef``)
    observations: torch.Tensor | None  # what each game showed before each guess (PPO)
    actions: torch.Tensor | None  # each game's guesses (PPO)


class A2CVariantTrainer(A2CTrainer):
    """:class:`A2CTrainer` with the options of :class:`A2CVariantConfig`, through the trainer's
    hooks."""

    config: A2CVariantConfig

    def __init__(self, agent: A2CVariantAgent, *args: Any, **kwargs: Any) -> None:
        super().__init__(agent, *args, **kwargs)
        # Feedback pattern of each guess against each answer: narrows each game's candidates for the
        # shaping.
        self.table = (
            pattern_table(self.env.vocabulary, self.device) if self.config.info_gain else None
        )
        self.shaping = InformationGain(self.config.info_gain)
        self._turns: dict[str, list[torch.Tensor]] = {}
        self._candidates: torch.Tensor | None = None

    @property
    def dropout_in_rollout(self) -> bool:  # type: ignore[override]
        return not self.config.clip_range  # PPO replays the turns with the policy that played them

    def play_and_update(
        self, obs: torch.Tensor, answers: torch.Tensor, queued: torch.Tensor
    ) -> tuple[Rollout, torch.Tensor]:
        if not self.config.clip_range:
            return super().play_and_update(obs, answers, queued)
        with torch.no_grad():
            batch = self.rollout(obs, answers, queued)
        return batch, self.ppo_update(batch)

    def rollout(
        self,
        obs: torch.Tensor,
        answers: torch.Tensor,
        queued: torch.Tensor,
        compact: bool | None = None,
    ):
        self._turns = {"entropies": [], "observations": [], "actions": []}
        n = self.config.batch_games
        if self.table is not None:
            self._candidates = torch.ones(
                (n, self.table.shape[1]), dtype=torch.bool, device=self.device
            )
        batch = super().rollout(obs, answers, queued, compact)
        kept = {key: torch.stack(turns) if turns else None for key, turns in self._turns.items()}
        return VariantRollout(*batch, **kept)

    def sample(
        self, scores: torch.Tensor, u: torch.Tensor, rows: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        cfg, words = self.config, self.agent.net.words
        if cfg.temperature != 1.0:
            scores = scores / cfg.temperature
        if not cfg.entropy_coef:
            return (scores, *words.log_partition(scores, u))
        log_z, drawn, entropy = words.log_partition_entropy(scores, u)
        self._turns["entropies"].append(per_game(entropy, rows, cfg.batch_games))
        return scores, log_z, drawn

    def observe_turn(self, obs: torch.Tensor, actions: torch.Tensor) -> None:
        if self.config.clip_range:
            self._turns["observations"].append(obs.clone())
            self._turns["actions"].append(actions)

    def training_reward(
        self,
        reward: torch.Tensor,
        actions: torch.Tensor,
        answers: torch.Tensor,
        alive: torch.Tensor,
    ) -> torch.Tensor:
        if self.table is None:
            return reward
        assert self._candidates is not None
        bits = information_bits(self.table, self._candidates, actions, answers)
        return reward + self.shaping(Outcome(bits=bits, active=alive))

    def loss(self, batch: VariantRollout) -> torch.Tensor:  # type: ignore[override]
        """A2C's loss less ``entropy_coef`` times the policy's mean entropy over the turns
        played."""
        loss = super().loss(batch)
        if batch.entropies is None:
            return loss
        return (
            loss
            - self.config.entropy_coef * (batch.alives * batch.entropies).sum() / batch.alives.sum()
        )

    def targets(self, batch: Rollout) -> torch.Tensor:
        """A2C's TD(0) targets; with ``gae_lambda`` > 0 each also adds gamma lambda A_{t+1}
        (detached) while the game goes on (GAE)."""
        target = super().targets(batch)
        cfg = self.config
        if not cfg.gae_lambda:
            return target
        deltas, decay = target - batch.values.detach(), cfg.gamma * cfg.gae_lambda
        # A_{t+1} while the game goes on, from the end back
        later, carried = torch.zeros_like(target[0]), []
        for t in range(len(deltas) - 1, -1, -1):
            carried.append(torch.where(batch.ends[t], 0.0, later))
            later = deltas[t] + decay * carried[-1]  # A_t
        return target + decay * torch.stack(carried[::-1])

    def ppo_update(self, batch: VariantRollout) -> torch.Tensor:
        """PPO's update from a rollout played without gradients: ``ppo_epochs`` passes over the
        turns played, ``minibatches`` Adam steps each, on :func:`clipped_surrogate` plus the
        critic's squared error to :meth:`targets` (and the entropy bonus); one update. The
        minibatches' mean loss."""
        cfg, net = self.config, self.agent.net
        assert batch.observations is not None and batch.actions is not None
        turn, game = batch.alives.nonzero(as_tuple=True)
        observations, actions = batch.observations[turn, game], batch.actions[turn, game]
        targets = self.targets(batch)[turn, game]
        old_logps, advantages = batch.logps[turn, game], targets - batch.values[turn, game]
        net.eval()  # no dropout: the same policy as the games'
        losses = []
        for _ in range(cfg.ppo_epochs):
            order = torch.randperm(len(turn), generator=self.draws).to(self.device)
            for rows in order.tensor_split(cfg.minibatches):
                scores, values = self.agent.letter_scores_values(observations[rows])
                if cfg.temperature != 1.0:
                    scores = scores / cfg.temperature
                if cfg.entropy_coef:
                    log_z, _, entropy = net.words.log_partition_entropy(scores, None)
                else:
                    log_z, _ = net.words.log_partition(scores, None)
                logps = net.words.pick(scores, actions[rows]) - log_z
                surrogate = clipped_surrogate(
                    logps, old_logps[rows], advantages[rows], cfg.clip_range
                )
                loss = (surrogate + (targets[rows] - values) ** 2).mean()
                if cfg.entropy_coef:
                    loss = loss - cfg.entropy_coef * entropy.mean()
                losses.append(self._optimize(loss))
        self.iteration += 1
        return torch.stack(losses).mean()


def clipped_surrogate(
    logps: torch.Tensor, old_logps: torch.Tensor, advantages: torch.Tensor, clip_range: float
) -> torch.Tensor:
    """PPO's policy loss at each position: ``-min(rho A, clip(rho, 1 - c, 1 + c) A)``,
    ``rho = pi / pi_old`` (``exp(logps - old_logps)``). Its gradient is the policy gradient's
    ``-rho A grad log pi`` until ``rho`` has moved past the clip in the advantage's direction, then
    0."""
    ratio = (logps - old_logps).exp()
    return -torch.min(
        ratio * advantages, ratio.clamp(1.0 - clip_range, 1.0 + clip_range) * advantages
    )


TRAINING = TrainingSpec(
    agent_class=A2CVariantAgent,
    make_trainer=lambda agent, answers, allowed, device, _updates, _warm: A2CVariantTrainer(
        agent, answers, allowed, device
    ),
    defaults=RunConfig(
        run_dir="runs/a2c-variant",
        stages=("100", "1000", "2315", "full"),
        iterations=(5000, 10000, 15000, 30000),
    ),
)
"""How this command trains."""


def main(argv: Sequence[str] | None = None) -> int:
    """Train (or, after ``recipe``, run a recipe) from the command line's options; the exit
    status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] != ["recipe"]:
        return train(TRAINING, argv, doc=__doc__, prog=PROG)
    from wordle_agents.commands import COMMANDS, Command, recipe

    variant = Command(
        __name__, ("wordle_agents.common.training:RunConfig", f"{__name__}:A2CVariantConfig")
    )
    return recipe.main(argv[1:], prog=f"{PROG} recipe", commands={**COMMANDS, "train-a2c": variant})


if __name__ == "__main__":
    sys.exit(main())
