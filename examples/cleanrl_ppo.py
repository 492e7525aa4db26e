"""CleanRL-style PPO in one file on the torch vector env: masked logits, GAE, clipped updates.

    python examples/cleanrl_ppo.py [--words 100] [--iterations 300] [--num-envs 256] [--device auto]

``Wordle-v1`` gives float observations and a bool ``infos["action_mask"]``, which a torch network
and ``masked_fill`` take as they are; autoreset "same_step" keeps CleanRL's classic loop (the
observation after a game ends is the next game's, ``terminated`` cuts the return). The guesses are
the answers (``allowed=None``); ``--mask candidates`` offers only the words still possible.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

import gymnasium as gym
import torch
from torch import nn

import wordle_gym
from wordle_gym.harness.evaluation import evaluate
from wordle_gym.utils.commandline import parse_options


@dataclass(frozen=True)
class Args:
    """The run's settings (CleanRL's style: one documented dataclass, its fields the command's
    flags)."""

    mask: Literal["all", "candidates"] = "all"
    """The action mask: every word, or the words still possible."""
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
    gamma: float = 1.0
    """Discount."""
    gae_lambda: float = 0.95
    """GAE's lambda."""
    clip: float = 0.2
    """PPO's clip range."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus."""
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
    args = parse_options(Args, None, "cleanrl_ppo.py", __doc__)

    torch.manual_seed(args.seed)
    words = wordle_gym.load_word_list("answers")[: args.words]
    envs = gym.make_vec(
        "Wordle-v1",
        num_envs=args.num_envs,
        device=args.device,
        answers=words,
        allowed=None,
        action_mask=args.mask,
        autoreset_mode="same_step",
    )
    dev = envs.unwrapped.device
    n_obs, n_act = envs.single_observation_space.shape[0], envs.single_action_space.n
    actor = nn.Sequential(
        nn.Linear(n_obs, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(), nn.Linear(256, n_act)
    )
    critic = nn.Sequential(nn.Linear(n_obs, 256), nn.Tanh(), nn.Linear(256, 1))
    actor.to(dev), critic.to(dev)
    optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=args.lr)

    def logits(obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return actor(obs).masked_fill(~mask, float("-inf"))

    t_len, n = args.num_steps, args.num_envs
    obs, infos = envs.reset(seed=args.seed)
    start = time.perf_counter()
    for iteration in range(1, args.iterations + 1):
        buf = {k: [] for k in ("obs", "mask", "action", "logp", "value", "reward", "done")}
        with torch.no_grad():
            for _ in range(t_len):
                dist = torch.distributions.Categorical(logits=logits(obs, infos["action_mask"]))
                action = dist.sample()
                (
                    buf["obs"].append(obs),
                    buf["mask"].append(infos["action_mask"]),
                    buf["action"].append(action),
                )
                (
                    buf["logp"].append(dist.log_prob(action)),
                    buf["value"].append(critic(obs).squeeze(-1)),
                )
                obs, reward, terminated, truncated, infos = envs.step(action)
                buf["reward"].append(reward), buf["done"].append((terminated | truncated).float())
            b = {k: torch.stack(v) for k, v in buf.items()}  # (T, N, ...)
            # GAE: a done step's return stops there (same_step: obs is already the next game's).
            next_value, last, advantages = critic(obs).squeeze(-1), torch.zeros(n, device=dev), []
            for t in reversed(range(t_len)):
                following = next_value if t == t_len - 1 else b["value"][t + 1]
                keep = 1.0 - b["done"][t]
                delta = b["reward"][t] + args.gamma * following * keep - b["value"][t]
                last = delta + args.gamma * args.gae_lambda * keep * last
                advantages.append(last)
            adv = torch.stack(advantages[::-1])
            returns = adv + b["value"]
        flat = {k: v.flatten(0, 1) for k, v in b.items()}
        adv, returns = adv.flatten(), returns.flatten()
        for _ in range(args.epochs):
            dist = torch.distributions.Categorical(logits=logits(flat["obs"], flat["mask"]))
            ratio = (dist.log_prob(flat["action"]) - flat["logp"]).exp()
            norm = (adv - adv.mean()) / (adv.std() + 1e-8)
            policy_loss = -torch.min(
                ratio * norm, ratio.clamp(1 - args.clip, 1 + args.clip) * norm
            ).mean()
            value_loss = 0.5 * (critic(flat["obs"]).squeeze(-1) - returns).pow(2).mean()
            loss = policy_loss + value_loss - args.ent_coef * dist.entropy().mean()
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_([*actor.parameters(), *critic.parameters()], 0.5)
            optimizer.step()
        if iteration % 50 == 0 or iteration == args.iterations:
            ended, seconds = b["done"].sum().item(), time.perf_counter() - start
            mean_return = b["reward"].sum().item() / max(ended, 1)
            print(
                f"iteration {iteration}: {ended:.0f} games ended, mean return {mean_return:.3f}, "
                f"{seconds:.0f} s"
            )

    # Greedy play through the harness, every answer once (float observations, as the network saw
    # them).
    class Greedy:
        def act(
            self, observations: torch.Tensor, masks: torch.Tensor, _env: object
        ) -> torch.Tensor:
            with torch.no_grad():
                return logits(observations.float(), masks).argmax(-1)

    result = evaluate(
        Greedy(),
        device=dev,
        agent="cleanrl-ppo",
        answers=words,
        allowed=None,
        action_mask=args.mask,
        progress=False,
    )
    print(result.summary())


if __name__ == "__main__":
    main()
