"""Train Stable-Baselines3 DQN on Wordle (one output per word; compare agents/rl/dqn.py's letter
values).

python examples/sb3_dqn.py --stage 100 --timesteps 200000 [--single] [--tensorboard runs/sb3]
wordle-gym eval --agent sb3 --checkpoint runs/sb3/dqn.zip
"""

from stable_baselines3 import DQN

from wordle_agents.rl.sb3_policies import SB3Run, train_and_report
from wordle_gym.utils.commandline import parse_options

if __name__ == "__main__":
    run = parse_options(SB3Run, None, "sb3_dqn.py", __doc__, SB3Run(save="runs/sb3/dqn.zip"))
    train_and_report(
        run,
        lambda env: DQN(
            "MlpPolicy",
            env,
            learning_starts=1_000,
            buffer_size=100_000,
            seed=run.seed,
            device=run.device,
            tensorboard_log=run.tensorboard,
        ),
    )
