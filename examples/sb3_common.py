"""What the three SB3 examples share: options, the training env, saving and a harness report."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

import wordle_gym  # noqa: F401  (registers Wordle-v0)
from wordle_agents.rl.sb3 import SB3Policy, save_model
from wordle_gym.core.words import stage_words
from wordle_gym.harness.evaluation import evaluate
from wordle_gym.integrations.sb3 import make_sb3_vec_env


def parse_args(doc: str | None, name: str, timesteps: int, mask: str = "all") -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stage", default="100", help="words: N (answers = guesses) or full (default 100)")
    parser.add_argument("--timesteps", type=int, default=timesteps, help=f"environment steps (default {timesteps:,})")
    parser.add_argument("--num-envs", type=int, default=64, help="games stepped together (default 64)")
    parser.add_argument(
        "--single", action="store_true", help="gym.make single envs in a DummyVecEnv instead of the vector env"
    )
    parser.add_argument(
        "--mask", choices=["all", "hard", "candidates"], default=mask, help=f"action mask (default {mask})"
    )
    parser.add_argument("--device", default="cpu", help="device of the model and the vector env (default cpu)")
    parser.add_argument("--tensorboard", default=None, metavar="DIR", help="SB3 TensorBoard log folder")
    parser.add_argument(
        "--save", default=f"runs/sb3/{name}.zip", help=f"where to save the model (default runs/sb3/{name}.zip)"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        args.answers, args.allowed = stage_words(args.stage)
    except ValueError as exc:
        parser.error(str(exc))
    return args


def make_env(args: argparse.Namespace) -> VecEnv:
    kwargs: dict[str, Any] = {"answers": args.answers, "allowed": args.allowed, "action_mask": args.mask}
    if args.single:
        return DummyVecEnv([lambda: Monitor(gym.make("Wordle-v0", **kwargs))] * args.num_envs)
    return make_sb3_vec_env(num_envs=args.num_envs, device=args.device, **kwargs)


def train_and_report(args: argparse.Namespace, build: Callable[[VecEnv], Any]) -> None:
    """Build the model on the env, learn with SB3's progress bar, save it, evaluate it greedily."""
    env = make_env(args)
    env.seed(args.seed)
    model = build(env)
    if not args.tensorboard:  # SB3's default logger makes an empty /tmp/SB3-<date> folder per run
        model.set_logger(Logger(folder=None, output_formats=[]))
    start = time.perf_counter()
    model.learn(args.timesteps, progress_bar=True)
    seconds = time.perf_counter() - start
    # The zip records the lists it was trained on: eval plays them by default and refuses others.
    save_model(model, args.save, stage=args.stage, answers=list(args.answers), allowed=args.allowed,
               action_mask=args.mask)  # fmt: skip
    result = evaluate(SB3Policy(model), answers=args.answers, allowed=args.allowed, action_mask=args.mask,
                      device="cpu", progress=False)  # fmt: skip
    print(f"trained {args.timesteps:,} steps in {seconds:.1f} s; saved {args.save}")
    print(result.summary())
