"""PPO with action masking in Ray RLlib (new API stack) on Wordle-v1.

    pip install ".[rllib]"   # in the repository
    python examples/rllib_ppo.py [--words 20] [--iterations 20] [--env-runners 0]

The env is :func:`wordle_gym.integrations.rllib.rllib_env`: ``Wordle-v1`` (float observations, which
RLlib's default networks take) with the mask moved into a Dict observation, the form RLlib's
``ActionMaskingTorchRLModule`` reads. ``--env-runners N`` samples in N worker processes; on a Ray
cluster (``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on the others, then
``RAY_ADDRESS=HEAD:6379 python examples/rllib_ppo.py --env-runners 64``) the same script scales out
across machines. The guesses are the answers (``allowed=None``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

import wordle_gym
from wordle_gym.harness.evaluation import evaluate
from wordle_gym.integrations.rllib import rllib_env
from wordle_gym.utils.commandline import parse_options


@dataclass(frozen=True)
class Args:
    """The run's settings."""

    iterations: int = 20
    """Training iterations."""
    env_runners: int = 0
    """Sampling workers (0: in this process)."""
    batch: int = 2000
    """Env steps per training iteration."""
    seed: int = 0
    """Seed of the run."""
    words: int = 20
    """The first N answers, also the only guesses."""

    def __post_init__(self) -> None:
        if not 2 <= self.words <= 2315:
            raise ValueError(f"--words must be 2..2315; got {self.words}")


def main() -> None:
    args = parse_options(Args, None, "rllib_ppo.py", __doc__)  # --help works without Ray
    try:
        from ray.rllib.algorithms.ppo import PPOConfig
        from ray.rllib.core.columns import Columns
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec
        from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
            ActionMaskingTorchRLModule,
        )
        from ray.tune.registry import register_env
    except ImportError as exc:
        raise SystemExit(
            f"this example needs Ray RLlib ({exc}): pip install '.[rllib]' in the repository"
        ) from None

    words = wordle_gym.load_word_list("answers")[: args.words]
    register_env("wordle", rllib_env)
    config = (
        PPOConfig()
        .environment("wordle", env_config={"answers": words, "allowed": None})
        .env_runners(num_env_runners=args.env_runners)
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [128, 128]}
            )
        )
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=500,
            num_epochs=4,
            lr=1e-3,
            entropy_coeff=0.01,
        )
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    start = time.perf_counter()
    for iteration in range(1, args.iterations + 1):
        result = algo.train()
        episodes = result.get("env_runners", {})
        mean_return = episodes.get("episode_return_mean", float("nan"))
        print(
            f"iteration {iteration}: mean return {mean_return:.3f}, "
            f"{time.perf_counter() - start:.0f} s"
        )

    # Greedy play through the harness, every answer once.
    module = algo.get_module()

    class Greedy:
        def act(
            self, observations: torch.Tensor, masks: torch.Tensor, _env: object
        ) -> torch.Tensor:
            batch = {
                Columns.OBS: {"observations": observations.float(), "action_mask": masks.float()}
            }
            with torch.no_grad():
                return module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].argmax(-1)

    print(
        evaluate(
            Greedy(), device="cpu", agent="rllib-ppo", answers=words, allowed=None, progress=False
        ).summary()
    )
    algo.stop()


if __name__ == "__main__":
    main()
