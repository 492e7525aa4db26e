"""Train sb3-contrib MaskablePPO on Wordle with action masks (default: the candidates mask).

python examples/sb3_maskable_ppo.py --stage 100 --timesteps 200000 [--single] [--tensorboard
runs/sb3] wordle-gym eval --agent sb3 --checkpoint runs/sb3/maskable_ppo.zip
"""

from sb3_contrib import MaskablePPO

from wordle_agents.rl.sb3_policies import SB3Run, train_and_report
from wordle_gym.utils.commandline import parse_options

if __name__ == "__main__":
    defaults = SB3Run(save="runs/sb3/maskable_ppo.zip", mask="candidates")
    run = parse_options(SB3Run, None, "sb3_maskable_ppo.py", __doc__, defaults)
    train_and_report(
        run,
        lambda env: MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=64,
            batch_size=512,
            seed=run.seed,
            device=run.device,
            tensorboard_log=run.tensorboard,
        ),
    )
