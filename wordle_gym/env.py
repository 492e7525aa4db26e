"""Compatibility: env specs saved before 0.2 name ``wordle_gym.env:WordleEnv``
(now :mod:`wordle_gym.envs.wordle`)."""

from wordle_gym.envs.wordle import WordleEnv as WordleEnv
