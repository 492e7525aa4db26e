"""Compatibility: ``wordle_gym.torchrl_env`` is now :mod:`wordle_gym.integrations.torchrl`."""

from wordle_gym.integrations.torchrl import WordleTorchRLEnv as WordleTorchRLEnv
