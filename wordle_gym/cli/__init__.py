"""The ``wordle-gym`` command: play, assist, eval, solve, dataset, agents, and ``bench``.

``commands`` (every command but bench) and ``bench`` (the agents table's command and its plot; the table is
:mod:`wordle_gym.harness.bench`, ``--env`` :mod:`wordle_gym.harness.throughput`). Agents are reached through the
registry only: the command imports no agent code.

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.envs, wordle_gym.harness, wordle_gym.integrations,
wordle_gym.cli; gymnasium, numpy, torch, tqdm, matplotlib.
"""

from wordle_gym.cli.commands import main

__all__ = ["main"]
