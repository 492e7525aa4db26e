"""The commands of ``wordle_agents`` (``python -m wordle_agents.commands.NAME``), in one table.

Each takes its options as documented dataclasses (one ``--field-name`` per field,
:mod:`wordle_gym.utils.commandline`) and has ``main(argv) -> exit status``. :data:`COMMANDS` names
them, their modules and their option classes; the recipe runner (``recipe``) reads it to check and
run its stages.

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.solver, wordle_gym.envs,
wordle_gym.harness, wordle_gym.integrations, wordle_agents.common, wordle_agents.solvers,
wordle_agents.rl, wordle_agents.methods, wordle_agents.commands; numpy, torch, numba, tqdm, tomli,
ray.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """One command: its module, the dataclasses whose fields are its options, and what a recipe may
    do with it."""

    module: str
    """The module ``python -m`` runs; its ``main(argv)`` runs the command."""
    options: tuple[str, ...]
    """The option dataclasses, as ``"module:Class"`` (imported on use: the table imports no
    torch)."""
    stage: bool = True
    """A recipe stage may run it (it makes or changes a network)."""
    improves: bool = False
    """It improves a network: a stage of it needs weights to start from and may continue another's
    run."""

    def option_classes(self) -> tuple[type, ...]:
        """The option dataclasses, imported."""
        found = []
        for spec in self.options:
            module, name = spec.split(":")
            found.append(getattr(importlib.import_module(module), name))
        return tuple(found)

    def main(self) -> Callable[..., int]:
        """The command's ``main``."""
        return importlib.import_module(self.module).main


_TRAIN = "wordle_agents.common.training:RunConfig"
COMMANDS: dict[str, Command] = {
    "train-a2c": Command(
        "wordle_agents.commands.train_a2c", (_TRAIN, "wordle_agents.rl.a2c:A2CConfig")
    ),
    "train-dqn": Command(
        "wordle_agents.commands.train_dqn", (_TRAIN, "wordle_agents.rl.dqn:DQNConfig")
    ),
    "improve": Command(
        "wordle_agents.commands.improve",
        (
            "wordle_agents.commands.improve:ImproveRun",
            "wordle_agents.methods.policy_iteration:ImproveOptions",
        ),
        improves=True,
    ),
    "improve-boards": Command(
        "wordle_agents.commands.improve_boards",
        (
            "wordle_agents.commands.improve_boards:BoardsRun",
            "wordle_agents.methods.policy_iteration_boards:BoardsOptions",
        ),
        improves=True,
    ),
    "teach": Command(
        "wordle_agents.commands.teach",
        ("wordle_agents.commands.teach:TeachRun", "wordle_agents.methods.dagger:TeachOptions"),
    ),
    "optimal": Command(
        "wordle_agents.commands.optimal",
        ("wordle_agents.commands.optimal:OptimalRun",),
        stage=False,
    ),
    "recipe": Command("wordle_agents.commands.recipe", (), stage=False),
}
"""Every command by name (``train-a2c`` runs ``python -m wordle_agents.commands.train_a2c``)."""
