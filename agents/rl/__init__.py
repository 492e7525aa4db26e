"""Agents that learn from the game's reward: A2C, DQN with its replay buffers, and Stable-Baselines3
models.

``a2c`` (the word one-hot policy of seed 000), ``dqn`` (letter-decomposed Q with prioritized replay,
seed 001), ``replay`` (uniform and proportional prioritized replay over a sum tree) and ``sb3``
(loading SB3 and sb3-contrib zips safely, as harness policies; training them on the SB3 ``VecEnv``
adapter).

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.envs, wordle_gym.harness,
wordle_gym.integrations, wordle_agents.common, wordle_agents.rl; gymnasium, numpy, torch,
stable_baselines3, sb3_contrib.
"""
