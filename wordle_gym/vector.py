"""Compatibility: env specs saved before 0.2 name ``wordle_gym.vector:WordleVectorEnv``
(now :mod:`wordle_gym.envs.vector`)."""

from wordle_gym.envs.vector import WordleVectorEnv as WordleVectorEnv
