"""Train sb3-contrib MaskablePPO on Wordle with action masks (default: the candidates mask).

python examples/sb3_maskable_ppo.py --stage 100 --timesteps 200000 [--single] [--tensorboard runs/sb3]
wordle-gym eval --agent sb3 --checkpoint runs/sb3/maskable_ppo.zip --answers ... --allowed ...
"""

from sb3_common import parse_args, train_and_report
from sb3_contrib import MaskablePPO

if __name__ == "__main__":
    args = parse_args(__doc__, "maskable_ppo", timesteps=200_000, mask="candidates")
    train_and_report(args, lambda env: MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=512, seed=args.seed,
                                                   device=args.device, tensorboard_log=args.tensorboard))  # fmt: skip
