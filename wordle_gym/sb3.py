"""Compatibility: ``wordle_gym.sb3`` is now :mod:`wordle_gym.integrations.sb3`."""

from wordle_gym.integrations.sb3 import WordleSB3VecEnv as WordleSB3VecEnv
from wordle_gym.integrations.sb3 import make_sb3_vec_env as make_sb3_vec_env
