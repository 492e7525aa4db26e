"""Train Stable-Baselines3 PPO on Wordle (no masks: the policy must learn which words help).

python examples/sb3_ppo.py --stage 100 --timesteps 200000 [--single] [--tensorboard runs/sb3]
wordle-gym eval --agent sb3 --checkpoint runs/sb3/ppo.zip
"""

from stable_baselines3 import PPO

from wordle_agents.rl.sb3_policies import SB3Run, train_and_report
from wordle_gym.utils.commandline import parse_options

if __name__ == "__main__":
    run = parse_options(SB3Run, None, "sb3_ppo.py", __doc__, SB3Run(save="runs/sb3/ppo.zip"))
    train_and_report(
        run,
        lambda env: PPO(
            "MlpPolicy",
            env,
            n_steps=64,
            batch_size=512,
            seed=run.seed,
            device=run.device,
            tensorboard_log=run.tensorboard,
        ),
    )
