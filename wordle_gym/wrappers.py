"""Compatibility: specs saved before 0.2 name ``wordle_gym.wrappers:DictActionMask``
(now :mod:`wordle_gym.integrations.rllib`)."""

from wordle_gym.integrations.rllib import DictActionMask as DictActionMask
from wordle_gym.integrations.rllib import rllib_env as rllib_env
