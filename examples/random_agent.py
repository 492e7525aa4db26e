"""Play every Wordle answer once with a random agent that guesses among the words still
possible, all games at once on the vector env, and print how it did.

    python examples/random_agent.py [--device cpu|cuda|auto] [--hard] [--answers nyt] [--seed 0]
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

import wordle_gym
from wordle_gym.utils.commandline import OneLineParser, parse_options


@dataclass(frozen=True)
class Args:
    """The run's settings."""

    device: str = "auto"
    """cpu, cuda or auto."""
    answers: str = "answers"
    """Answer list: answers (2315), nyt (2309) or a file."""
    hard: bool = False
    """Hard mode."""
    seed: int = 0
    """Seed of the random guesses."""


def main() -> None:
    args = parse_options(Args, None, "random_agent.py", __doc__)

    try:
        num = wordle_gym.Vocabulary(args.answers).num_answers
        env = wordle_gym.WordleVectorEnv(
            num,
            device=args.device,
            answers=args.answers,
            hard_mode=args.hard,
            action_mask="candidates",
        )
    except ValueError as exc:
        OneLineParser(prog="random_agent.py").error(str(exc))
    start = time.perf_counter()
    # every answer once
    _, infos = env.reset(seed=args.seed, options={"answers": torch.arange(num)})
    generator = torch.Generator(device=env.device).manual_seed(args.seed)
    guesses = torch.zeros(num, dtype=torch.int64, device=env.device)
    won = torch.zeros(num, dtype=torch.bool, device=env.device)
    finished = torch.zeros(num, dtype=torch.bool, device=env.device)
    while not bool(finished.all()):
        # A uniformly random word among those the feedback has not ruled out.
        actions = wordle_gym.random_actions(infos["action_mask"], generator)
        _, _, terminated, _, infos = env.step(actions)
        ending = terminated & ~finished  # only the first game of each answer counts
        guesses = torch.where(ending, env.state.turn, guesses)
        won |= ending & infos["won"]
        finished |= terminated
    seconds = time.perf_counter() - start

    wins = int(won.sum())
    counts = torch.bincount(guesses[won], minlength=env.config.max_guesses + 1)[1:].tolist()
    print(
        f"random candidate guesser, {num} answers{' (hard mode)' if args.hard else ''}, device "
        f"{env.device}"
    )
    print(
        f"won {wins}/{num} ({100 * wins / num:.2f} %), mean guesses on wins "
        f"{guesses[won].float().mean():.3f}"
    )
    print(
        "guesses: "
        + "  ".join(f"{k}:{c}" for k, c in enumerate(counts, start=1))
        + f"  X:{num - wins}"
    )
    print(f"{seconds:.2f} s, {num / seconds:,.0f} games/s")


if __name__ == "__main__":
    main()
