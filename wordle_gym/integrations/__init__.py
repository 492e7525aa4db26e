"""Adapters to other RL stacks, each importing its stack only when used (a missing extra names
itself).

``sb3`` (a Stable-Baselines3 ``VecEnv`` over the torch vector env), ``torchrl`` (a native TorchRL
``EnvBase``), ``rllib`` (the Dict-mask wrapper and env creator RLlib reads), ``minari`` (offline-RL
datasets of an agent's games), ``textarena`` (the real game registered as TextArena envs),
``verifiers`` (the real game as a verifiers environment, installed as ``wordle_gym_verifiers``) and
``openenv`` (the text env as an OpenEnv server and client).

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.solver, wordle_gym.envs,
wordle_gym.harness, wordle_gym.integrations; gymnasium, numpy, torch, stable_baselines3, torchrl,
tensordict, ray, minari, textarena, verifiers, openenv, pydantic, uvicorn, fastapi, websockets.
"""
