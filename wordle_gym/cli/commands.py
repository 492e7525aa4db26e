"""The ``wordle-gym`` command: play, get hints, evaluate agents, watch an agent play::

    wordle-gym play [--hard] [--answer WORD] [--seed N]
    wordle-gym assist [--hard] [--score entropy|expected|minimax|splits]
    wordle-gym eval --agent NAME [--checkpoint PATH] [--opener salet] [--score ...] [-o KEY=VALUE]
                    [--device cuda] [--answers nyt] [--hard] [--json out.json]
    wordle-gym solve WORD [--agent NAME] [--opener salet] [--score ...] [--hard]
    wordle-gym agents

Agents are found through the ``wordle_gym.agents`` entry points
(:mod:`wordle_gym.harness.registry`):
the command knows no agent by name beyond its default, ``max-entropy``.

Word lists (``--answers``, ``--allowed``): ``answers`` (2315, the default), ``nyt`` (2309),
``allowed`` (12972), or the path of a text file with one word per line.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gymnasium.error import DependencyNotInstalled

from wordle_gym.cli.cmd_analyze import AnalyzeOptions, cmd_analyze
from wordle_gym.cli.cmd_assist import AssistOptions, cmd_assist
from wordle_gym.cli.cmd_dataset import DatasetOptions, cmd_dataset
from wordle_gym.cli.cmd_eval import EvalOptions, cmd_eval
from wordle_gym.cli.cmd_play import PlayOptions, cmd_play
from wordle_gym.cli.cmd_solve import SolveOptions, cmd_solve
from wordle_gym.cli.shared import (
    UsageError,
)
from wordle_gym.harness.registry import (
    agent_names,
    command_help,
    command_names,
)
from wordle_gym.utils.commandline import (
    OneLineParser,
    add_options,
    options_from,
)
from wordle_gym.utils.files import one_line


def cmd_agents(args: argparse.Namespace) -> int:
    """Each installed agent: what it is (its ``description``) and the options it takes."""
    from wordle_gym.harness.registry import accepted_options, load_factory

    width = max([len(name) for name in agent_names()] + [12]) + 2
    for name in agent_names():
        try:
            factory = load_factory(name)
        except ValueError as exc:
            print(f"{name:{width}}unavailable: {exc}")
            continue
        accepted = accepted_options(factory)
        takes = "any" if accepted is None else ", ".join(sorted(accepted - {"device"})) or "none"
        print(f"{name:{width}}{getattr(factory, 'description', '') or '(no description)'}")
        print(f"{'':{width}}options: {takes}")
    return 0


@dataclass(frozen=True)
class Subcommand:
    """A command of wordle-gym: what it does, its options and the function that runs them."""

    help: str
    options: type
    run: Callable[[Any], int]


SUBCOMMANDS = {
    "play": Subcommand("play a game in the terminal", PlayOptions, cmd_play),
    "assist": Subcommand("get suggestions while you play the real game", AssistOptions, cmd_assist),
    "eval": Subcommand(
        "evaluate an agent on every answer (a trained one: of the game it learned, unless --game "
        "or --answers names another)",
        EvalOptions,
        cmd_eval,
    ),
    "solve": Subcommand("show an agent's game for one answer", SolveOptions, cmd_solve),
    "dataset": Subcommand(
        "play every answer with an agent and write a Minari dataset (offline RL)",
        DatasetOptions,
        cmd_dataset,
    ),
    "analyze": Subcommand(
        "the exact skill (regret) and luck of each guess of a game you played",
        AnalyzeOptions,
        cmd_analyze,
    ),
}
"""The env's own commands (``bench`` and the agents' commands have tables of their own)."""


def build_parser() -> argparse.ArgumentParser:
    from wordle_gym.core import __version__

    parser = OneLineParser(
        prog="wordle-gym", description="Wordle: play, get hints, evaluate agents."
    )
    parser.add_argument("--version", action="version", version=f"wordle-gym {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in SUBCOMMANDS.items():
        add_options(
            sub.add_parser(name, help=command.help, description=command.help), command.options
        )
    sub.add_parser(
        "bench",
        help="evaluate every agent into wordle-gym-bench/BENCHMARKS.md (see wordle-gym bench -h)",
        add_help=False,
    )
    listing = "list the installed agents and their options"
    sub.add_parser("agents", help=listing, description=f"{listing[0].upper()}{listing[1:]}.")
    # run by wordle_gym.cli.main before this parser; listed here for --help
    for name in command_names():
        if name not in sub.choices:
            sub.add_parser(
                name, help=f"{command_help(name)} (wordle-gym {name} --help)", add_help=False
            )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # the benchmark table has its own options
        from wordle_gym.cli.bench import main as bench

        try:
            return bench(argv[1:])
        except (ValueError, OSError, DependencyNotInstalled) as exc:
            print(f"wordle-gym bench: error: {one_line(exc)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("\nwordle-gym bench: interrupted", file=sys.stderr)
            return 130
    parser = build_parser()
    parsed = parser.parse_args(argv)
    command = SUBCOMMANDS.get(parsed.command)
    args: Any = parsed
    if command is not None:
        try:
            args = options_from(command.options, parsed)
        except (ValueError, TypeError) as exc:
            parser.error(str(exc))
    try:
        return command.run(args) if command is not None else cmd_agents(args)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly, as other tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (UsageError, ValueError, TypeError, OSError, ImportError, DependencyNotInstalled) as exc:
        print(f"wordle-gym {parsed.command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
