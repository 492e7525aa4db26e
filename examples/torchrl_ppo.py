"""PPO with TorchRL's own modules on the torch vector env, tensors on the device throughout.

    pip install ".[torchrl]"   # in the repository
    python examples/torchrl_ppo.py [--words 100] [--iterations 300] [--num-envs 256] [--device auto]

:class:`wordle_gym.integrations.torchrl.WordleTorchRLEnv` is an ``EnvBase``: ``ActionMask`` reads
its bool ``action_mask``, ``MaskedCategorical`` samples only allowed words, ``GAE`` and
``ClipPPOLoss`` do the rest. The guesses are the answers (``allowed=None``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.envs import ActionMask, ExplorationType, TransformedEnv, set_exploration_type
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

import wordle_gym
from wordle_gym.harness.evaluation import evaluate
from wordle_gym.integrations.torchrl import WordleTorchRLEnv
from wordle_gym.utils.commandline import parse_options


@dataclass(frozen=True)
class Args:
    """The run's settings."""

    iterations: int = 300
    """PPO iterations."""
    num_envs: int = 256
    """Games stepped together."""
    num_steps: int = 12
    """Steps per game per iteration."""
    lr: float = 1e-3
    """Adam learning rate."""
    epochs: int = 4
    """Optimisation epochs per iteration."""
    device: str = "auto"
    """cpu, cuda or auto."""
    seed: int = 0
    """Seed of the networks and the envs."""
    words: int = 100
    """The first N answers, also the only guesses."""

    def __post_init__(self) -> None:
        if not 2 <= self.words <= 2315:
            raise ValueError(f"--words must be 2..2315; got {self.words}")


def main() -> None:
    args = parse_options(Args, None, "torchrl_ppo.py", __doc__)

    torch.manual_seed(args.seed)
    words = wordle_gym.load_word_list("answers")[: args.words]
    base = WordleTorchRLEnv(args.num_envs, device=args.device, answers=words, allowed=None)
    env = TransformedEnv(base, ActionMask())
    env.set_seed(args.seed)
    dev = base.device
    n_obs = base.observation_spec["observation"].shape[-1]
    n_act = base.action_spec.space.n

    def mlp(out: int) -> nn.Module:
        return nn.Sequential(
            nn.Linear(n_obs, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(), nn.Linear(256, out)
        )

    actor = ProbabilisticActor(
        TensorDictModule(mlp(n_act), in_keys=["observation"], out_keys=["logits"]),
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        spec=env.action_spec,
    ).to(dev)
    critic = ValueOperator(mlp(1), in_keys=["observation"]).to(dev)
    advantage = GAE(gamma=1.0, lmbda=0.95, value_network=critic)
    loss = ClipPPOLoss(
        actor, critic, clip_epsilon=0.2, entropy_coeff=0.01, normalize_advantage=True
    )
    optimizer = torch.optim.Adam(loss.parameters(), lr=args.lr)

    start = time.perf_counter()
    for iteration in range(1, args.iterations + 1):
        # sample (the default is the mode)
        with torch.no_grad(), set_exploration_type(ExplorationType.RANDOM):
            # (num_envs, num_steps)
            data = env.rollout(args.num_steps, actor, break_when_any_done=False)
            advantage(data)
        flat = data.reshape(-1)
        for _ in range(args.epochs):
            losses = loss(flat)
            total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
            optimizer.zero_grad()
            total.backward()
            nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
            optimizer.step()
        if iteration % 50 == 0 or iteration == args.iterations:
            ended, seconds = data["next", "done"].sum().item(), time.perf_counter() - start
            mean_return = data["next", "reward"].sum().item() / max(ended, 1)
            print(
                f"iteration {iteration}: {ended} games ended, mean return {mean_return:.3f}, "
                f"{seconds:.0f} s"
            )

    # Greedy play through the harness, every answer once (float observations, as the network saw
    # them).
    net = actor.module[0].module

    class Greedy:
        def act(
            self, observations: torch.Tensor, masks: torch.Tensor, _env: object
        ) -> torch.Tensor:
            with torch.no_grad():
                return net(observations.float()).masked_fill(~masks, float("-inf")).argmax(-1)

    print(
        evaluate(
            Greedy(), device=dev, agent="torchrl-ppo", answers=words, allowed=None, progress=False
        ).summary()
    )


if __name__ == "__main__":
    main()
