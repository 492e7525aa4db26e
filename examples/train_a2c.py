"""Train the seed-000 A2C agent through its curriculum, resumably, on CPU or CUDA.

    python examples/train_a2c.py --stages 100,1000,2315,full --iterations 5000,10000,15000,30000 \
        --device cuda --run-dir runs/a2c [--tensorboard] [--export agents/checkpoints/a2c.pt]

Stages: "N" plays N answers that are also the only guesses (nested samples of the answer list),
"full" the 2315 answers with all 12972 guesses. Each stage starts from the previous stage's best
weights. The run folder holds ``last.pt`` (everything needed to continue, written atomically),
``best_<stage>.pt`` and ``metrics.jsonl``. Run the same command again after a kill to continue.
"""

from __future__ import annotations

import argparse
import sys

from agents.a2c import A2CAgent, A2CConfig, A2CTrainer
from agents.training import add_run_arguments, parse_plan, run_curriculum


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(parser, stages="100,1000,2315,full", iterations="5000,10000,15000,30000")
    parser.add_argument("--run-dir", default="runs/a2c", help="checkpoints and logs (default runs/a2c)")
    parser.add_argument("--batch-games", type=int, default=1024, help="games per update (seed: 1024; 2048 for full)")
    parser.add_argument("--encoding", choices=["seed", "knowledge"], default="seed")
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args(argv)
    plan = parse_plan(parser, args)
    config = A2CConfig(batch_games=args.batch_games, encoding=args.encoding, hidden=args.hidden, lr=args.lr,
                       seed=args.seed)  # fmt: skip
    try:
        run_curriculum(
            args, "a2c", plan, config, A2CConfig.from_dict,
            make_agent=lambda cfg, device: A2CAgent(cfg, device=device),
            load_agent=A2CAgent.load,
            make_trainer=lambda agent, answers, allowed, device, _: A2CTrainer(agent, answers, allowed, device),
        )  # fmt: skip
    except (ValueError, FileNotFoundError) as exc:
        print(f"train_a2c: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
