"""The curriculum runner shared by the training examples: stages, evaluation, checkpoints, resume.

A *trainer* has ``step()`` (returns stats: a dataclass or a dict of numbers), ``iteration`` (updates
made), ``state_dict()`` and ``load_state_dict()``. An agent is a :class:`~wordle_agents.common.WordAgent`.
The run folder holds ``last.pt`` (everything to continue, written atomically), ``best_<stage>.pt``
(the stage's best greedy evaluation) and ``metrics.jsonl`` (one line per evaluation).

Command lines are generated from the dataclasses (:class:`RunConfig` and the agent's config), so
every default and help text lives once, in the field's definition.

Resuming: running the same command again continues from ``last.pt``. A command whose agent
settings differ from the run's is refused, naming the fields; so is a plan that is not the saved
plan, except for two ways to extend a run: appending stages (``--stages 100,1000`` finished ->
``--stages 100,1000,2315`` trains the 2315 stage from its best weights), and more updates for the
last stage while it is still in progress (``--iterations 2000`` -> ``--iterations 5000``).
Run options (device, evaluation and checkpoint periods, ``--stop-at``, ``--export``,
``--tensorboard``) may change between sessions.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import itertools
import json
import math
import os
import sys
import textwrap
import time
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields, is_dataclass, replace
from pathlib import Path
from typing import Any

import torch
from tqdm import tqdm

from wordle_agents.checkpoint import config_from_dict, half_weights, read_checkpoint
from wordle_gym.config import resolve_device
from wordle_gym.evaluation import evaluate
from wordle_gym.files import OneLineParser, atomic_torch_save, check_writable, folder_lock, one_line
from wordle_gym.words import stage_words


@dataclass
class RunConfig:
    """How a training run is carried out: its folder, curriculum plan and bookkeeping."""

    run_dir: str = "runs/agent"
    """Folder of last.pt, best_<stage>.pt, metrics.jsonl and tb/."""
    stages: tuple[str, ...] = ("100", "1000", "2315", "full")
    """Curriculum stages, comma-separated: N (N answers, also the only guesses) or full (2315 answers,
    12972 guesses)."""
    iterations: tuple[int, ...] = (5000,)
    """Updates per stage: one value for every stage, or one per stage."""
    device: str = "auto"
    """cpu, cuda, cuda:N or auto."""
    eval_every: int = 100
    """Greedy evaluation on the stage's answers every N updates."""
    checkpoint_every: int = 50
    """Write last.pt every N updates."""
    stop_at: float | None = None
    """End a stage once its evaluated win rate reaches this (0..1)."""
    init: str | None = None
    """Start from these weights (a checkpoint of the same agent)."""
    tensorboard: bool = False
    """Log to <run-dir>/tb."""
    fresh: bool = False
    """Ignore an existing last.pt and start over."""
    export: str | None = None
    """Copy the final best checkpoint here."""
    half: bool = False
    """Export the weights as float16: half the file size, loaded back as float32."""
    max_minutes: float | None = None
    """Stop this command after about this many minutes of training (a time slot, a lease): the stage
    is evaluated, last.pt written and --export done; the same command continues the run."""

    def __post_init__(self) -> None:
        self.stages = tuple(str(s).strip() for s in self.stages)
        self.iterations = tuple(self.iterations)
        if not self.stages or any(not s for s in self.stages):
            raise ValueError(f"stages must be a non-empty list of stage names; got {','.join(self.stages)!r}")
        for stage in self.stages:
            stage_words(stage)  # a ValueError names a bad stage
        if len(self.iterations) == 1:
            self.iterations = self.iterations * len(self.stages)
        if len(self.iterations) != len(self.stages):
            raise ValueError(f"iterations has {len(self.iterations)} values for {len(self.stages)} stages")
        for name in ("eval_every", "checkpoint_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1; got {getattr(self, name)}")
        if any(n < 1 for n in self.iterations):
            raise ValueError(f"iterations must be >= 1; got {list(self.iterations)}")
        if self.stop_at is not None and not 0.0 < self.stop_at <= 1.0:
            raise ValueError(f"stop_at must be in (0, 1]; got {self.stop_at}")
        if self.max_minutes is not None and not self.max_minutes > 0:
            raise ValueError(f"max_minutes must be > 0; got {self.max_minutes}")

    @property
    def plan(self) -> list[tuple[str, int]]:
        """(stage, updates) pairs."""
        return list(zip(self.stages, self.iterations, strict=True))


@dataclass(frozen=True)
class TrainingSpec:
    """What the runner needs to know about an agent to train it."""

    agent_class: Any
    """A WordAgent subclass (its ``kind`` names the run checkpoints)."""
    make_trainer: Callable[[Any, list[str], list[str] | None, torch.device, int, bool], Any]
    """(agent, answers, allowed, device, stage updates, warm) -> trainer; ``warm``: the stage starts
    from trained weights (a later stage, or ``--init``)."""
    defaults: RunConfig
    """The run options of this agent's training script."""


# ------------------------------------------------------------------- command lines from dataclasses
def field_docs(cls: type) -> dict[str, str]:
    """Each field's docstring (the string literal under it), collapsed to one line."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError):
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs = {}
    for node, following in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[node.target.id] = " ".join(following.value.value.split())
    return docs


def _parser_for(hint: Any) -> tuple[Callable[[str], Any], str]:
    """A string -> value function for a field type, and how to write a value."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in args:
        inner, metavar = _parser_for(next(a for a in args if a is not type(None)))
        return (lambda text: None if text.lower() in ("none", "") else inner(text)), metavar
    if typing.get_origin(hint) is tuple:
        item = args[0]
        convert, _ = _parser_for(item)
        size = None if len(args) == 2 and args[1] is Ellipsis else len(args)

        def parse_tuple(text: str) -> tuple:
            values = tuple(convert(part.strip()) for part in text.split(",") if part.strip())
            if size is not None and len(values) != size:
                raise argparse.ArgumentTypeError(f"expected {size} comma-separated values, got {text!r}")
            return values

        return parse_tuple, "A,B,..."
    if hint in (int, float, str):

        def parse_scalar(text: str) -> Any:
            try:
                return hint(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"expected {'an' if hint is int else 'a'} {hint.__name__}, "
                                                 f"got {text!r}") from None  # fmt: skip

        return parse_scalar, hint.__name__.upper()
    raise TypeError(f"no command-line form for a field of type {hint!r}")


def _show(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)


def add_dataclass_arguments(parser: argparse.ArgumentParser, cls: type, defaults: Any, title: str) -> None:
    """One ``--field-name`` option per field of ``cls``; help text from the field's docstring."""
    group = parser.add_argument_group(title)
    hints, docs = typing.get_type_hints(cls), field_docs(cls)
    for f in fields(cls):
        flag = "--" + f.name.replace("_", "-")
        default = getattr(defaults, f.name)
        text = docs.get(f.name, "")
        if hints[f.name] is bool:
            group.add_argument(flag, action=argparse.BooleanOptionalAction, default=None,
                               help=f"{text} (default: {default})")  # fmt: skip
            continue
        convert, metavar = _parser_for(hints[f.name])
        group.add_argument(flag, type=convert, default=None, metavar=metavar,
                           help=f"{text} (default: {_show(default)})".replace("%", "%%"))  # fmt: skip


def dataclass_from_args(cls: type, args: argparse.Namespace, defaults: Any) -> Any:
    """``defaults`` with the fields the command line set replaced (validated by the class)."""
    given = {f.name: getattr(args, f.name) for f in fields(cls) if getattr(args, f.name, None) is not None}
    return replace(defaults, **given)


def main(spec: TrainingSpec, argv: Sequence[str] | None = None, doc: str | None = None) -> int:
    """The command line of a training script: options from RunConfig and the agent's config."""
    prog = Path(sys.argv[0]).name
    parser = OneLineParser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    config_class = spec.agent_class.config_class
    add_dataclass_arguments(parser, RunConfig, spec.defaults, "run")
    add_dataclass_arguments(parser, config_class, config_class(), f"{spec.agent_class.kind} settings")
    args = parser.parse_args(argv)
    try:
        run = dataclass_from_args(RunConfig, args, spec.defaults)
        config = dataclass_from_args(config_class, args, config_class())
    except ValueError as exc:
        parser.error(str(exc))
    try:
        run_curriculum(run, spec, config)
    except (ValueError, OSError) as exc:  # OSError: a full disk, a folder that went away (last.pt stays whole)
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted; run the same command again to continue", file=sys.stderr)
        return 130
    return 0


def _check_resume(
    saved: dict[str, Any], run: RunConfig, config: Any, config_class: type, last: Path
) -> list[tuple[str, int]]:
    """The plan to follow when resuming ``saved``; refuses settings that differ from the run's."""
    before = asdict(config_from_dict(config_class, saved["config"], f"checkpoint {str(last)!r}"))
    now = asdict(config)
    differ = [f"{k} (run: {_show(before[k])}, command: {_show(now[k])})" for k in now if before[k] != now[k]]
    if differ:
        raise ValueError(
            f"{last} was trained with other settings: {'; '.join(differ)}. Resume with the run's settings, "
            f"start over with --fresh, or use another --run-dir"
        )
    saved_plan = list(zip(saved["stages"], saved["iterations"], strict=True))
    now_plan = run.plan[: len(saved_plan)]
    in_progress = saved["stage_index"] == len(saved_plan) - 1  # the last stage, not finished yet
    longer_last = (
        in_progress
        and len(now_plan) == len(saved_plan)
        and now_plan[:-1] == saved_plan[:-1]
        and now_plan[-1][0] == saved_plan[-1][0]
        and now_plan[-1][1] >= saved_plan[-1][1]
    )
    if now_plan != saved_plan and not longer_last:
        show = lambda plan: ", ".join(f"{s}:{n}" for s, n in plan)  # noqa: E731
        raise ValueError(
            f"{last} follows the plan [{show(saved_plan)}] (stage:updates); this command asks [{show(run.plan)}]. "
            f"A resumed run keeps its plan; it may append stages, and give its last stage more updates while "
            f"that stage is in progress; or start over with --fresh"
        )
    saved_init = saved.get("init")
    if run.init is not None and saved_init is not None and run.init != saved_init:
        raise ValueError(f"{last} started from --init {saved_init}; this command asks --init {run.init}")
    if len(run.plan) > len(saved_plan):
        print(f"extending the plan of {last} with stages {', '.join(s for s, _ in run.plan[len(saved_plan) :])}")
    return run.plan


def _stats_dict(stats: Any) -> dict[str, float]:
    data = asdict(stats) if is_dataclass(stats) else dict(stats)
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float | torch.Tensor)}


def run_curriculum(run: RunConfig, spec: TrainingSpec, config: Any) -> Path:
    """Train through ``run.plan`` (stage, updates), resuming from ``<run_dir>/last.pt`` when present.

    The run folder is checked for writing first and locked for the duration: a second training
    in the same folder is refused instead of interleaving its logs.
    """
    device = resolve_device(run.device)
    run_dir = check_writable(run.run_dir, folder=True)
    if run.export:
        check_writable(run.export)
    with folder_lock(run_dir, "training"):
        return _train(run, spec, config, device, run_dir)


def _train(run: RunConfig, spec: TrainingSpec, config: Any, device: torch.device, run_dir: Path) -> Path:
    agent_class, kind = spec.agent_class, spec.agent_class.kind
    last, metrics = run_dir / "last.pt", run_dir / "metrics.jsonl"
    saved = None if run.fresh or not last.exists() else read_checkpoint(last, f"{kind}-run")
    plan = run.plan
    if saved is not None:
        plan = _check_resume(saved, run, config, agent_class.config_class, last)
        print(f"resuming {last} at stage {min(saved['stage_index'] + 1, len(plan))}/{len(plan)}")
        logged = saved.get("metrics_size")  # rows logged after this checkpoint are logged again on the way
        if logged is not None and metrics.exists() and metrics.stat().st_size > logged:
            os.truncate(metrics, logged)
    elif metrics.exists():
        metrics.unlink()  # a fresh run starts a fresh log
    init = saved.get("init") if saved is not None else run.init
    agent = agent_class(config, device=device)
    writer = None
    if run.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir / "tb"))
    first = saved["stage_index"] if saved else 0
    elapsed = saved["elapsed_s"] if saved else 0.0
    offset = saved["step_offset"] if saved else 0  # updates made in the stages already finished

    def checkpoint(stage_index: int, trainer_state: dict | None, best: dict, done_s: float, steps: int) -> None:
        atomic_torch_save(last, {
            "kind": f"{kind}-run", "config": asdict(config), "stages": [s for s, _ in plan],
            "iterations": [n for _, n in plan], "stage_index": stage_index, "trainer": trainer_state,
            "best": best, "elapsed_s": done_s, "step_offset": steps, "init": init,
            "metrics_size": metrics.stat().st_size if metrics.exists() else 0,
        })  # fmt: skip

    # What a shipped checkpoint says of how it was made (the reward is in its config).
    steps = [*([f"--init {init}"] if init else []), *(f"{stage}:{n} updates" for stage, n in plan)]
    provenance = {"teacher": None, "machine": machine(device), "curriculum": " -> ".join(steps)}
    deadline = math.inf if run.max_minutes is None else time.perf_counter() + 60 * run.max_minutes
    stopped = False  # by the time limit, with updates left to make
    best_path = run_dir / f"best_{plan[-1][0]}.pt"
    for index in range(first, len(plan)):
        stage, iterations = plan[index]
        if index > first and time.perf_counter() >= deadline:
            stopped = True  # between stages: last.pt already starts this one
            break
        answers, allowed = stage_words(stage, seed=config.seed)
        best_path = run_dir / f"best_{stage}.pt"
        resume = saved["trainer"] if saved is not None and index == first else None
        if resume is None:  # a stage starts from the previous stage's best weights (or --init)
            previous = run_dir / f"best_{plan[index - 1][0]}.pt" if index > 0 else None
            source = str(previous) if previous is not None and previous.exists() else init
            if source:
                weights = agent_class.load(source)
                if _shape_fields(weights.config) != _shape_fields(config):
                    raise ValueError(f"--init {source}: a network of another shape ({_shape_fields(weights.config)}; "
                                     f"this run: {_shape_fields(config)})")  # fmt: skip
                agent.net.load_state_dict(weights.net.state_dict())
        trainer = spec.make_trainer(agent, answers, allowed, device, iterations, index > 0 or init is not None)
        best = {"win_rate": -1.0, "mean_guesses": float("inf"), "iteration": 0}
        if resume is not None:
            trainer.load_state_dict(resume)
            best = saved["best"]
        clock = time.perf_counter()
        started = trainer.iteration  # a time limit stops a command only after it made an update
        bar = tqdm(total=iterations, initial=trainer.iteration, desc=f"stage {stage}", unit="update")
        while trainer.iteration < iterations:
            before = trainer.iteration
            raw = trainer.step()  # may hold device tensors: read only when logged (a host sync)
            bar.update(trainer.iteration - before)
            now, step = elapsed + time.perf_counter() - clock, offset + trainer.iteration
            crossed = trainer.iteration // run.eval_every > before // run.eval_every
            out_of_time = time.perf_counter() >= deadline and trainer.iteration > started
            evaluated = trainer.iteration > before and (crossed or trainer.iteration >= iterations or out_of_time)
            stats = _stats_dict(raw) if writer is not None or evaluated else {}
            if writer is not None and trainer.iteration > before:
                for key, value in stats.items():
                    writer.add_scalar(f"losses/{key}" if "loss" in key else f"charts/{key}", value, step)
            if evaluated:
                result = evaluate(agent, answers=answers, allowed=allowed, device=device, progress=False)
                # win_rate / mean_guesses: the greedy evaluation; train_*: the sampled training batch.
                record = {"stage": stage, "iteration": trainer.iteration, "step": step, "elapsed_s": now,
                          **{f"train_{k}": v for k, v in stats.items()},
                          "win_rate": result.win_rate, "mean_guesses": result.mean_guesses_wins}  # fmt: skip
                with metrics.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(record) + "\n")
                if writer is not None:
                    writer.add_scalar("eval/win_rate", result.win_rate, step)
                    writer.add_scalar("eval/mean_guesses", result.mean_guesses_wins, step)
                if (result.win_rate, -result.mean_guesses_wins) > (best["win_rate"], -best["mean_guesses"]):
                    best = {"win_rate": result.win_rate, "mean_guesses": result.mean_guesses_wins,
                            "iteration": trainer.iteration}  # fmt: skip
                    agent.save(best_path, {"stage": stage, "answers": answers, "allowed": allowed,
                                           "figures": best, "training_s": now, **provenance})  # fmt: skip
                bar.set_postfix(win=f"{result.win_rate:.3f}", mean=f"{result.mean_guesses_wins:.3f}",
                                best=f"{best['win_rate']:.3f}")  # fmt: skip
            crossed_checkpoint = trainer.iteration // run.checkpoint_every > before // run.checkpoint_every
            if evaluated or crossed_checkpoint:
                checkpoint(index, trainer.state_dict(), best, now, offset)
            if evaluated and run.stop_at is not None and result.win_rate >= run.stop_at:
                break
            if out_of_time and trainer.iteration < iterations:
                stopped = True
                break
        bar.close()
        if stopped:
            print(f"time limit ({run.max_minutes:g} min): stage {stage} stopped at update {trainer.iteration}/"
                  f"{iterations}, best so far {100 * best['win_rate']:.2f} % wins; run the same command again "
                  f"to continue")  # fmt: skip
            break
        elapsed += time.perf_counter() - clock
        offset += trainer.iteration
        checkpoint(index + 1, None, best, elapsed, offset)  # this stage is done
        print(f"stage {stage}: best {100 * best['win_rate']:.2f} % wins, {best['mean_guesses']:.4f} mean guesses "
              f"at update {best['iteration']} -> {best_path}")  # fmt: skip
    if writer is not None:
        writer.close()
    if stopped and run.export and not best_path.exists():
        print(f"nothing to export yet: {best_path} is not written until the stage is first evaluated")
    elif run.export:
        data = torch.load(best_path, map_location="cpu", weights_only=True)
        atomic_torch_save(run.export, half_weights(data) if run.half else data)
        print(f"exported {best_path} -> {run.export}")
    return run_dir


def machine(device: torch.device) -> str:
    """The hardware a run trained on, for its checkpoint: the GPU's name, or the CPU's cores and threads."""
    if device.type == "cuda":
        return f"{torch.cuda.get_device_name(device)} (CUDA)"
    return f"CPU, {os.cpu_count()} cores, {torch.get_num_threads()} torch threads"


def _shape_fields(config: Any) -> dict[str, Any]:
    """The fields that decide a network's shape (weights move between configs that share them)."""
    names = ("encoding", "hidden", "layers", "dueling", "max_guesses")
    return {k: v for k, v in asdict(config).items() if k in names}
