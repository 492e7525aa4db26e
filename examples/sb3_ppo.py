"""Train Stable-Baselines3 PPO on Wordle (no masks: the policy must learn which words help).

python examples/sb3_ppo.py --stage 100 --timesteps 200000 [--single] [--tensorboard runs/sb3]
"""

from sb3_common import parse_args, train_and_report
from stable_baselines3 import PPO

if __name__ == "__main__":
    args = parse_args(__doc__, "ppo", timesteps=200_000)
    train_and_report(args, lambda env: PPO("MlpPolicy", env, n_steps=64, batch_size=512, seed=args.seed,
                                           device=args.device, tensorboard_log=args.tensorboard))  # fmt: skip
