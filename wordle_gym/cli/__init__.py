"""The ``wordle-gym`` command: play, assist, eval, solve, dataset, agents, and ``bench``; and the
commands installed packages add (entry points ``wordle_gym.commands``: the agents' ``train-a2c``,
``improve``, ...).

``commands`` (the table of commands, the parser and ``main``), a module a command (``cmd_play``,
``cmd_assist``, ``cmd_eval``, ``cmd_solve``, ``cmd_dataset``, ``cmd_analyze``: each its function and
its options), ``shared`` (what they share: the lists' and the agent's options, the checks of a
guess) and ``bench`` (the agents table's command and its plot; the table is
:mod:`wordle_gym.harness.bench_table`, ``--env`` :mod:`wordle_gym.harness.throughput`).
Agents are reached through the registry only: the command imports no agent code.

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.envs, wordle_gym.harness,
wordle_gym.integrations, wordle_gym.cli; gymnasium, numpy, torch, tqdm, matplotlib.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """The command; ``--version`` answers before anything heavy is imported (torch takes
    seconds)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--version"]:
        from wordle_gym.core import __version__

        print(f"wordle-gym {__version__}")
        return 0
    from wordle_gym.harness.registry import AgentError, command_names, load_command

    # an installed package's command (training, the exact solver)
    if args[:1] and args[0] in command_names():
        try:
            command = load_command(args[0])
        except AgentError as exc:
            print(f"wordle-gym {args[0]}: error: {exc}", file=sys.stderr)
            return 2
        return command(args[1:], prog=f"wordle-gym {args[0]}")
    from wordle_gym.cli.commands import main as run

    return run(args)


__all__ = ["main"]
