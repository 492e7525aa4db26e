"""Train the DQN agent (letter-decomposed Q, prioritized replay) through a vocabulary curriculum.

    python examples/train_dqn.py --stages 100,1000,full --iterations 20000,50000,100000 \
        --device cuda --run-dir runs/dqn [--tensorboard] [--export agents/checkpoints/dqn.pt]

An iteration is one gradient update. Stages as in train_a2c.py; each starts from the previous
stage's best weights with a fresh replay buffer. ``last.pt`` holds the weights, target network,
optimizer, replay buffer and random states; run the same command again after a kill to continue
(games that were in flight start over).
"""

from __future__ import annotations

import argparse
import sys

from agents.dqn import DQNAgent, DQNConfig, DQNTrainer
from agents.training import add_run_arguments, parse_plan, run_curriculum
from wordle_gym.observation import Observer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(parser, stages="100,1000,full", iterations="20000,50000,100000")
    parser.add_argument("--run-dir", default="runs/dqn", help="checkpoints and logs (default runs/dqn)")
    parser.add_argument("--num-games", type=int, default=256, help="games stepped together")
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--buffer-size", type=int, default=200_000)
    parser.add_argument("--learning-starts", type=int, default=5_000)
    parser.add_argument("--uniform", action="store_true", help="uniform instead of prioritized replay")
    args = parser.parse_args(argv)
    plan = parse_plan(parser, args)
    config = DQNConfig(
        num_games=args.num_games, hidden=args.hidden, layers=args.layers, lr=args.lr, batch_size=args.batch_size,
        buffer_size=args.buffer_size, learning_starts=args.learning_starts, prioritized=not args.uniform,
        seed=args.seed,
    )  # fmt: skip
    obs_size = Observer.size_for(5, config.max_guesses)
    try:
        run_curriculum(
            args, "dqn", plan, config, DQNConfig.from_dict,
            make_agent=lambda cfg, device: DQNAgent(cfg, obs_size, device=device),
            load_agent=DQNAgent.load,
            make_trainer=lambda agent, words, allowed, device, n: DQNTrainer(agent, words, allowed, device, n),
        )  # fmt: skip
    except (ValueError, FileNotFoundError) as exc:
        print(f"train_dqn: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
