"""``python -m wordle_agents.commands.recipe NAME``: train a shipped agent from scratch, by its
recipe.

    python -m wordle_agents.commands.recipe --list

    python -m wordle_agents.commands.recipe dqn-explored [--run-dir runs/recipes/dqn-explored] \\
        [--device cuda] [--max-minutes 60] [--until STAGE] [--set STAGE.OPTION=VALUE ...] \\
        [--out dqn_explored.pt]

A recipe is the chain of commands that made a shipped checkpoint, kept as data
(``recipes/NAME.toml`` in this package, as RL Baselines3 Zoo keeps its hyperparameter files): each
stage is one command of the project (``train-a2c``, ``train-dqn``, ``improve``, ``teach``) with its
options, and starts from the previous stage's weights (or, with ``after``, an earlier stage's: a
branch). A recipe may ``extends`` another (its stages come first); a stage that ``continues`` an
earlier improve stage goes on in that stage's run folder with new options, as the shipped runs did;
``ships`` names the shipped file a stage's result stands for.

The run folder holds ``recipe.json`` (the stages as first run: a later command with other stages is
refused), one folder per command run (its own ``last.pt``), ``STAGE.pt`` (each stage's weights) and
``STAGE.done`` (a finished stage, with its figures). The same command continues a stopped run: a
stage that is done is skipped, one that was stopped continues from its ``last.pt``.
``--max-minutes`` reaches the resumable commands (training and improving) as their own
``--max-minutes``; a teach stage runs whole.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any

import torch

from wordle_agents.commands import COMMANDS, Command
from wordle_agents.common.checkpoint import half_weights, read_checkpoint, shipped_dir
from wordle_gym.utils.commandline import OneLineParser, add_options, options_from
from wordle_gym.utils.files import (
    atomic_torch_save,
    atomic_write_json,
    check_writable,
    one_line,
    path_lock,
    read_text_bounded,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PROG = "python -m wordle_agents.commands.recipe"

STAGES = tuple(name for name, command in COMMANDS.items() if command.stage)
"""The commands a stage may run."""
RESERVED = ("init", "out", "export", "run_dir", "device", "max_minutes", "half", "fresh")
"""Options the runner sets itself (where a stage's weights come from and go, the device, the
time)."""


@dataclass(frozen=True)
class Stage:
    """One command of a recipe."""

    name: str
    """Unique in its recipe; names the stage's files in the run folder."""
    command: str
    """One of :data:`STAGES`."""
    options: dict[str, Any]
    """The command's options by field name (``deep_top = 4``); lists are comma-joined."""
    ships: str | None = None
    """The file under ``checkpoints/`` that this stage's result stands for."""
    continues: str | None = None
    """An earlier improve stage whose run this one continues (its run folder and its start)."""
    after: str | None = None
    """An earlier stage whose weights this one starts from, in place of the previous stage's (a
    branch)."""
    note: str = ""
    """What the stage did when the shipped file was made."""

    def argv(self) -> list[str]:
        """The stage's own options as command-line arguments."""
        args: list[str] = []
        for key, value in self.options.items():
            flag = "--" + key.replace("_", "-")
            if isinstance(value, bool):
                args.append(flag if value else "--no-" + key.replace("_", "-"))
            elif isinstance(value, list | tuple):
                args += [flag, ",".join(str(v) for v in value)]
            else:
                args += [flag, str(value)]
        return args


@dataclass(frozen=True)
class Recipe:
    """The stages that make one shipped agent, from scratch."""

    name: str
    """The recipe's name: its file's stem (the agent's name)."""
    description: str
    """One line: what the recipe makes."""
    stages: tuple[Stage, ...]
    """In order, those of the recipe it extends first."""
    commands: Mapping[str, Command] = field(
        default_factory=lambda: COMMANDS, compare=False, repr=False
    )
    """The commands its stages run, by name (:data:`wordle_agents.commands.COMMANDS`; an experiment
    passes its own table, e.g. a trainer of its own as ``train-a2c``)."""

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise ValueError(
            f"recipe {self.name!r} has no stage {name!r}; its stages: {', '.join(self.names)}"
        )

    @property
    def names(self) -> list[str]:
        return [stage.name for stage in self.stages]

    def with_options(self, name: str, **options: Any) -> Recipe:
        """The same recipe with stage ``name``'s options updated (a smaller run, another
        setting)."""
        stage = self.stage(name)
        changed = replace(stage, options={**stage.options, **options})
        _check_options(self, changed)
        return replace(self, stages=tuple(changed if s.name == name else s for s in self.stages))


def recipe_names() -> list[str]:
    """The recipes this package ships."""
    folder = resources.files("wordle_agents").joinpath("recipes")
    return sorted(
        entry.name[: -len(".toml")] for entry in folder.iterdir() if entry.name.endswith(".toml")
    )


def load_recipe(name: str, commands: Mapping[str, Command] = COMMANDS) -> Recipe:
    """A shipped recipe, with the stages of the recipes it extends first, its stages run by
    ``commands``."""
    return _load(name, (), commands)


def _load(name: str, seen: tuple[str, ...], commands: Mapping[str, Command]) -> Recipe:
    names = recipe_names()
    if name not in names:
        raise ValueError(f"unknown recipe {name!r}; expected one of: {', '.join(names)}")
    if name in seen:
        raise ValueError(f"recipe {name!r} extends itself (through {' -> '.join(seen)})")
    text = (
        resources.files("wordle_agents")
        .joinpath("recipes", f"{name}.toml")
        .read_text(encoding="utf-8")
    )
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"recipe {name!r} is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"description", "extends", "stage"})
    if unknown:
        raise ValueError(
            f"recipe {name!r}: unknown keys {unknown}; expected description, extends, stage"
        )
    base = _load(data["extends"], (*seen, name), commands).stages if "extends" in data else ()
    stages = base + tuple(_stage(name, entry) for entry in data.get("stage", []))
    recipe = Recipe(name, str(data.get("description", "")), stages, commands)
    _check(recipe)
    return recipe


def _stage(recipe: str, entry: dict[str, Any]) -> Stage:
    known = {f.name for f in fields(Stage)}
    unknown = sorted(set(entry) - known)
    if unknown or "name" not in entry or "command" not in entry:
        raise ValueError(
            f"recipe {recipe!r}: a stage needs name and command and may have "
            f"{', '.join(sorted(known))}; got {sorted(entry)}"
        )
    return Stage(**{**entry, "options": dict(entry.get("options", {}))})


def _check(recipe: Recipe) -> None:
    """Names unique, commands known, options those of the command, continued stages earlier improve
    stages."""
    if not recipe.stages:
        raise ValueError(f"recipe {recipe.name!r} has no stages")
    seen: dict[str, Stage] = {}
    runnable = tuple(name for name, command in recipe.commands.items() if command.stage)
    improving = tuple(name for name, command in recipe.commands.items() if command.improves)
    for index, stage in enumerate(recipe.stages):
        if stage.name in seen:
            raise ValueError(f"recipe {recipe.name!r}: two stages are named {stage.name!r}")
        if stage.command not in runnable:
            raise ValueError(
                f"recipe {recipe.name!r}, stage {stage.name!r}: unknown command {stage.command!r}; "
                f"expected one of {', '.join(runnable)}"
            )
        if index == 0 and stage.command in improving:
            raise ValueError(f"recipe {recipe.name!r}: the first stage has no weights to improve")
        _check_start(recipe, stage, seen, improving)
        _check_options(recipe, stage)
        seen[stage.name] = stage


def _check_start(
    recipe: Recipe, stage: Stage, seen: dict[str, Stage], improving: tuple[str, ...]
) -> None:
    """A stage's start: after an earlier stage (``seen``), or continuing an earlier improve stage
    of its own command, not both."""
    if stage.after is not None and (stage.after not in seen or stage.continues is not None):
        raise ValueError(
            f"recipe {recipe.name!r}, stage {stage.name!r}: starts after {stage.after!r}, "
            "which is no earlier stage (or the stage also continues a run)"
        )
    if stage.continues is not None:
        before = seen.get(stage.continues)
        if before is None or before.command not in improving or stage.command != before.command:
            raise ValueError(
                f"recipe {recipe.name!r}, stage {stage.name!r}: continues {stage.continues!r}, "
                "which is no earlier improve stage"
            )


def _check_options(recipe: Recipe, stage: Stage) -> None:
    classes = recipe.commands[stage.command].option_classes()
    allowed = {f.name for cls in classes for f in fields(cls)} - set(RESERVED)
    for key in stage.options:
        if key in RESERVED:
            raise ValueError(
                f"recipe {recipe.name!r}, stage {stage.name!r}: option {key!r} is set by the "
                "recipe runner "
                f"(each stage starts from the previous stage's weights in the run folder)"
            )
        if key not in allowed:
            raise ValueError(
                f"recipe {recipe.name!r}, stage {stage.name!r}: {stage.command} has no option "
                f"{key!r}; expected one of {', '.join(sorted(allowed))}"
            )


# --- running --------------------------------------------------------------------------------------


def _state(path: Path) -> Any:
    """A run folder's ``last.pt``, mapped rather than read (a DQN's holds its replay buffer)."""
    return torch.load(path, map_location="cpu", weights_only=True, mmap=True)


@dataclass(frozen=True)
class RecipeRun:
    """Where and how a recipe runs (the stages are the recipe's)."""

    run_dir: Path
    """Folder of recipe.json, every stage's run folder, STAGE.pt and STAGE.done."""
    device: str = "cpu"
    """cpu, cuda or auto: every stage's --device."""
    max_minutes: float | None = None
    """Start no new stage after this many minutes (one is run at least); resumable stages get what
    is left as their --max-minutes."""
    until: str | None = None
    """Stop after this stage."""
    prog: str = PROG
    """How the recipe was run: under ``wordle-gym recipe`` a stage's messages name it as
    ``wordle-gym COMMAND``."""

    def weights(self, stage: Stage) -> Path:
        return self.run_dir / f"{stage.name}.pt"

    def done(self, stage: Stage) -> Path:
        return self.run_dir / f"{stage.name}.done"

    def folder(self, stage: Stage) -> Path:
        return self.run_dir / (stage.continues or stage.name)


def _start(recipe: Recipe, index: int, run: RecipeRun) -> str | None:
    """The weights stage ``index`` starts from: the previous stage's, or its ``after`` stage's (a
    continued run's own start)."""
    stage = recipe.stages[index]
    if stage.continues is not None:
        return _start(recipe, recipe.names.index(stage.continues), run)
    if stage.after is not None:
        return str(run.weights(recipe.stage(stage.after)))
    return str(run.weights(recipe.stages[index - 1])) if index > 0 else None


def run_stage(recipe: Recipe, index: int, run: RecipeRun, minutes: float | None = None) -> bool:
    """Run (or continue) stage ``index``; True when it is finished, False when the time limit
    stopped it."""
    stage = recipe.stages[index]
    command = recipe.commands[stage.command]
    start = _start(recipe, index, run)
    out, folder = run.weights(stage), run.folder(stage)
    argv = [*stage.argv(), "--device", run.device]
    argv += ["--init", start] if start is not None else []
    resumable = stage.command != "teach"
    if resumable and minutes is not None:
        argv += ["--max-minutes", f"{max(minutes, 1e-6):.6g}"]  # what is left, however little
    if stage.command == "teach":
        argv += ["--out", str(out)]
    elif command.improves:
        argv += ["--out", str(out), "--run-dir", str(folder)]
    else:
        argv += ["--export", str(out), "--run-dir", str(folder)]
    print(
        f"[{recipe.name}] stage {index + 1}/{len(recipe.stages)} {stage.name}: {stage.command} "
        f"{' '.join(argv)}"
    )
    if run.prog.startswith("wordle-gym"):  # its messages name what the user ran
        code = command.main()(argv, prog=f"wordle-gym {stage.command}")
    else:
        code = command.main()(argv)
    # the command caught a Ctrl-C and kept its run folder: the recipe stops the same way
    if code == 130:
        raise KeyboardInterrupt
    if code != 0:
        raise ValueError(f"stage {stage.name!r} ({stage.command}) ended with exit status {code}")
    if stage.command == "teach":
        return True
    state = _state(folder / "last.pt")
    if command.improves:
        run_class = command.option_classes()[0]
        wanted = stage.options.get(
            "iterations", run_class.__dataclass_fields__["iterations"].default
        )
        return len(state["history"]) >= int(wanted)
    return int(state["stage_index"]) >= len(state["stages"])


def _figures(path: Path) -> dict[str, float]:
    figures = read_checkpoint(path, None).get("figures") or {}
    wanted = ("win_rate", "mean_guesses")
    return {
        k: float(v)
        for k, v in figures.items()
        if k in wanted or (k.startswith("boards") and k.endswith(wanted))
    }


def _describe(figures: dict[str, float]) -> str:
    """One board's figures, or each board count's (a network's validation games on several
    boards)."""
    if not figures:
        return "no figures recorded"
    if "win_rate" in figures:
        return f"{100 * figures['win_rate']:.2f} % / {figures.get('mean_guesses', math.nan):.4f}"
    counts = sorted({int(k[len("boards") :].split("_")[0]) for k in figures})
    each = [
        (k, figures[f"boards{k}_win_rate"], figures.get(f"boards{k}_mean_guesses", math.nan))
        for k in counts
    ]
    return ", ".join(f"{k} boards {100 * win:.2f} % / {mean:.4f}" for k, win, mean in each)


def run_recipe(recipe: Recipe, run: RecipeRun) -> bool:
    """Run the recipe's stages in ``run.run_dir``, continuing what an earlier command did.

    Returns True when every stage (up to ``run.until``) is done, False when the time limit stopped
    it."""
    if run.until is not None:
        recipe.stage(run.until)  # a clear error for an unknown stage
    deadline = math.inf if run.max_minutes is None else time.perf_counter() + 60 * run.max_minutes
    check_writable(run.run_dir, folder=True)
    with path_lock(run.run_dir, "recipe"):
        _check_same(recipe, run.run_dir / "recipe.json")
        ran = False  # a command runs one stage at least, as each command makes one update at least
        for index, stage in enumerate(recipe.stages):
            if run.done(stage).exists():
                print(f"[{recipe.name}] stage {stage.name}: done")
            else:
                left = deadline - time.perf_counter()
                if left <= 0 and ran:
                    print(
                        f"[{recipe.name}] time limit: stopped before stage {stage.name}; the "
                        "same command continues"
                    )
                    return False
                clock, ran = time.perf_counter(), True
                if not run_stage(recipe, index, run, None if math.isinf(left) else left / 60):
                    print(
                        f"[{recipe.name}] time limit: stage {stage.name} stopped; the same "
                        "command continues"
                    )
                    return False
                figures = _figures(run.weights(stage))
                atomic_write_json(
                    run.done(stage),
                    {
                        "figures": figures,
                        "seconds": time.perf_counter() - clock,
                        "ships": stage.ships,
                    },
                )
            if stage.ships is not None:
                shipped = shipped_dir() / stage.ships
                theirs = (
                    _describe(_figures(shipped))
                    if shipped.is_file()
                    else ("not in this installation")
                )
                ours = _describe(_figures(run.weights(stage)))
                print(f"[{recipe.name}] {stage.name}: {ours} (shipped {stage.ships}: {theirs})")
            if stage.name == run.until:
                break
    return True


def _check_same(recipe: Recipe, path: Path) -> None:
    """A run folder follows the stages it started with."""
    stages = [
        {k: v for k, v in asdict(stage).items() if k not in ("note", "ships")}
        for stage in recipe.stages
    ]
    if not path.exists():
        atomic_write_json(path, {"recipe": recipe.name, "stages": stages})
        return
    text = read_text_bounded(path, what="recipe run's record")  # a FIFO or device: one line
    try:
        saved = json.loads(text)
        before = saved["stages"]
        if not isinstance(before, list) or not all(isinstance(old, dict) for old in before):
            raise TypeError("its stages are no list of stages")
    except (ValueError, KeyError, TypeError, RecursionError):
        raise ValueError(
            f"{str(path)!r} is no recipe run's record; use another --run-dir"
        ) from None
    for old, new in zip(before, stages, strict=False):
        if old != new:
            raise ValueError(
                f"{path} ran recipe {saved.get('recipe')!r} with another stage {old.get('name')!r} "
                f"than this command's {new['name']!r} ({recipe.name}); use the same recipe and "
                "--set options, or another --run-dir"
            )
    if len(before) != len(stages):
        raise ValueError(
            f"{path} ran recipe {saved.get('recipe')!r} with {len(before)} stages; this command "
            f"has {len(stages)}; use another --run-dir"
        )


def write_final(recipe: Recipe, run: RecipeRun, out: str) -> None:
    """Copy the last stage's weights to ``out``, float16 (as every shipped network is)."""
    last = recipe.stage(run.until) if run.until else recipe.stages[-1]
    data = torch.load(run.weights(last), map_location="cpu", weights_only=True)
    atomic_torch_save(out, half_weights(data))
    print(f"wrote {out} (stage {last.name}, float16)")


def _parse_set(recipe: Recipe, items: Sequence[str]) -> Recipe:
    """``--set STAGE.OPTION=VALUE``: a stage's option changed (the value as TOML reads it, else a
    string)."""
    for item in items:
        target, sep, text = item.partition("=")
        name, dot, key = target.rpartition(".")
        if not sep or not dot or not name or not key:
            raise ValueError(
                f"--set {item!r}: expected STAGE.OPTION=VALUE, e.g. vocab-1000.iterations=40"
            )
        try:
            value = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            value = text
        if isinstance(value, datetime.date | datetime.time):  # (a datetime is a date)
            raise ValueError(
                f"--set {item!r}: {text!r} reads as a TOML date or time; expected a number, a "
                "boolean, a string or a list of them (quote it for a string)"
            )
        recipe = recipe.with_options(name, **{key: value})
    return recipe


@dataclass(kw_only=True)
class RecipeOptions:
    """The options of ``recipe``."""

    name: str | None = field(default=None, metadata={"positional": True})
    """The recipe (an agent's name; --list shows them)."""
    list: bool = False
    """List the recipes and their stages, then exit."""
    run_dir: str | None = None
    """The run folder (default: runs/recipes/NAME); the same command continues."""
    device: str = "cpu"
    """cpu, cuda or auto: every stage's --device."""
    max_minutes: float | None = None
    """Start no new stage after this many minutes."""
    until: str | None = field(default=None, metadata={"metavar": "STAGE"})
    """Stop after this stage."""
    set: tuple[str, ...] = field(
        default=(), metadata={"repeat": True, "metavar": "STAGE.OPTION=VALUE"}
    )
    """Change one stage's option (repeatable)."""
    out: str | None = None
    """Also write the last stage's weights here, float16."""


def _print_recipes(commands: Mapping[str, Command]) -> None:
    """``--list``: every recipe, its stages and the weights each ships."""
    for name in recipe_names():
        recipe = load_recipe(name, commands)
        print(f"{name}: {recipe.description}")
        for stage in recipe.stages:
            ships = f"  -> {stage.ships}" if stage.ships else ""
            start = f" (from {stage.after}'s weights)" if stage.after else ""
            start += f" (continues {stage.continues})" if stage.continues else ""
            print(f"  {stage.name}{start}: {stage.command} {' '.join(stage.argv())}{ships}")


def main(
    argv: Sequence[str] | None = None, prog: str = PROG, commands: Mapping[str, Command] = COMMANDS
) -> int:
    """The command (``prog``: its name in messages; ``commands``: what the stages run, see
    :class:`Recipe`)."""
    parser = OneLineParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_options(parser, RecipeOptions)
    args = options_from(RecipeOptions, parser.parse_args(argv))
    try:
        if args.list:
            _print_recipes(commands)
            return 0
        if args.name is None:
            parser.error(f"name a recipe: {', '.join(recipe_names())}")
        if args.max_minutes is not None and not (
            math.isfinite(args.max_minutes) and args.max_minutes > 0
        ):
            raise ValueError(
                f"--max-minutes must be a number of minutes > 0; got {args.max_minutes!r}"
            )
        recipe = _parse_set(load_recipe(args.name, commands), args.set)
        run = RecipeRun(
            Path(args.run_dir or f"runs/recipes/{recipe.name}"),
            args.device,
            args.max_minutes,
            args.until,
            prog,
        )
        if args.out:
            check_writable(args.out)
        finished = run_recipe(recipe, run)
        if finished and args.out:
            write_final(recipe, run, args.out)
    except (ValueError, OSError) as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted; the same command continues", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
