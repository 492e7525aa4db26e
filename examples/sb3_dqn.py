"""Train Stable-Baselines3 DQN on Wordle (one output per word; compare agents/rl/dqn.py's letter values).

python examples/sb3_dqn.py --stage 100 --timesteps 200000 [--single] [--tensorboard runs/sb3]
"""

from sb3_common import parse_args, train_and_report
from stable_baselines3 import DQN

if __name__ == "__main__":
    args = parse_args(__doc__, "dqn", timesteps=200_000)
    train_and_report(args, lambda env: DQN("MlpPolicy", env, learning_starts=1_000, buffer_size=100_000, seed=args.seed,
                                           device=args.device, tensorboard_log=args.tensorboard))  # fmt: skip
