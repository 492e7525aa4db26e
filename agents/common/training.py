"""The curriculum runner shared by the training examples: stages, evaluation, checkpoints, resume.

A trainer is a :class:`Trainer` (``step``, ``iteration``, ``state_dict``, ``load_state_dict``); an
agent is a :class:`~wordle_agents.common.network.WordAgent`; :class:`TrainingSpec` pairs them for
the runner. The run folder holds ``last.pt`` (everything to continue, written atomically),
``best_<stage>.pt`` (the stage's best greedy evaluation) and ``metrics.jsonl`` (one line per
evaluation).

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
import contextlib
import json
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Protocol

import torch
from tqdm import tqdm

from wordle_agents.common.checkpoint import (
    config_from_dict,
    half_weights,
    read_checkpoint,
    stored_list,
)
from wordle_agents.common.network import WordAgent
from wordle_gym.core.words import stage_words
from wordle_gym.harness.evaluation import EvalResult, evaluate
from wordle_gym.utils.commandline import OneLineParser, add_options, options_from, show
from wordle_gym.utils.device import resolve_device
from wordle_gym.utils.files import atomic_torch_save, check_writable, one_line, path_lock


@dataclass
class RunConfig:
    """How a training run is carried out: its folder, curriculum plan and bookkeeping."""

    run_dir: str = "runs/agent"
    """Folder of last.pt, best_<stage>.pt, metrics.jsonl and tb/."""
    stages: tuple[str, ...] = ("100", "1000", "2315", "full")
    """Curriculum stages, comma-separated: N (N answers, also the only guesses), full (2315
    answers, 12972 guesses) or today (today's game: 3158 answers, 14855 guesses)."""
    iterations: tuple[int, ...] = (5000,)
    """Updates per stage: one value for every stage, or one per stage."""
    device: str = "auto"
    """cpu, cuda, cuda:N or auto."""
    eval_every: int = 100
    """Greedy evaluation on the stage's answers every N updates."""
    eval_games: int = 2000
    """With more than one board: games of the standard multi-board set each evaluation plays (the
    first N)."""
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
    """Stop this command after about this many minutes of training (a time slot, a lease): last.pt
    is written and the best network so far exported; the same command continues the run exactly as
    if it had not stopped (evaluations stay on their schedule)."""

    def __post_init__(self) -> None:
        self.stages = tuple(str(s).strip() for s in self.stages)
        self.iterations = tuple(self.iterations)
        if not self.stages or any(not s for s in self.stages):
            raise ValueError(
                f"stages must be a non-empty list of stage names; got {','.join(self.stages)!r}"
            )
        for stage in self.stages:
            stage_words(stage)  # a ValueError names a bad stage
        if len(self.iterations) == 1:
            self.iterations = self.iterations * len(self.stages)
        if len(self.iterations) != len(self.stages):
            raise ValueError(
                f"iterations has {len(self.iterations)} values for {len(self.stages)} stages"
            )
        self._check_numbers()

    def _check_numbers(self) -> None:
        """The counts at least 1, --stop-at a win rate, --max-minutes positive."""
        for name in ("eval_every", "checkpoint_every", "eval_games"):
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


class Trainer(Protocol):
    """What the runner drives: updates made one call at a time, and everything to continue
    exactly."""

    iteration: int
    """Updates made so far."""

    def step(self, most: int | None = None) -> Any:
        """Make one update or more (at most ``most``); its stats, a dataclass or a dict of
        numbers."""
        ...

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue exactly (``torch.load(weights_only=True)``-loadable)."""
        ...

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue from :meth:`state_dict`'s output."""
        ...


@dataclass(frozen=True)
class TrainingSpec:
    """What the runner needs to know about an agent to train it."""

    agent_class: type[WordAgent]
    """Its ``kind`` names the run checkpoints; its ``config_class`` gives the command's options."""
    make_trainer: Callable[
        [WordAgent, list[str], list[str] | None, torch.device, int, bool], Trainer
    ]
    """(agent, answers, allowed, device, stage updates, warm) -> trainer; ``warm``: the stage starts
    from trained weights (a later stage, or ``--init``)."""
    defaults: RunConfig
    """The run options of this agent's training script."""


def parse_command(
    spec: TrainingSpec,
    argv: Sequence[str] | None = None,
    prog: str | None = None,
    doc: str | None = None,
) -> tuple[RunConfig, Any]:
    """A training script's options (RunConfig's and the agent's config's) from ``argv``; a bad value
    exits with a one-line error. The agent's options default to the config class's field defaults,
    not to a default instance's values: fields its checks resolve from others (A2C's
    ``max_guesses``: 0 is the game's default, ``boards + 5``) are resolved from the options
    given."""
    parser = OneLineParser(
        prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    config_class = spec.agent_class.config_class
    add_options(parser, RunConfig, spec.defaults, "run")
    add_options(parser, config_class, None, f"{spec.agent_class.kind} settings")
    args = parser.parse_args(argv)
    if args.stages is not None and args.iterations is None:  # the stages' own default update counts
        planned = dict(spec.defaults.plan)
        unknown = [stage for stage in args.stages if stage not in planned]
        if unknown:
            try:
                RunConfig(stages=args.stages)  # its own check names a stage that is no stage
            except ValueError as exc:
                parser.error(str(exc))
            parser.error(
                f"--stages {','.join(args.stages)}: stage {unknown[0]!r} has no default number of "
                "updates (the "
                f"defaults: {', '.join(f'{k} {v}' for k, v in planned.items())}); give --iterations"
            )
        args.iterations = tuple(planned[stage] for stage in args.stages)
    try:
        return options_from(RunConfig, args, spec.defaults), options_from(config_class, args)
    except ValueError as exc:
        parser.error(str(exc))


def main(
    spec: TrainingSpec,
    argv: Sequence[str] | None = None,
    doc: str | None = None,
    prog: str | None = None,
) -> int:
    """The command line of a training script: options from RunConfig and the agent's config
    (``prog``: its name in messages; by default the running script's)."""
    prog = prog or Path(sys.argv[0]).name
    run, config = parse_command(spec, argv, prog, doc)
    try:
        run_curriculum(run, spec, config)
    # OSError: a full disk, a folder that went away (last.pt stays whole)
    except (ValueError, OSError) as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except Interrupted as stop:
        print(f"\n{prog}: interrupted; {stop}: run the same command again to continue",
              file=sys.stderr)  # fmt: skip
        return 130
    except KeyboardInterrupt:  # a second Ctrl-C, or one outside an update
        print(
            f"\n{prog}: interrupted; last.pt keeps the run as last saved (every "
            f"--checkpoint-every {run.checkpoint_every} updates, and at each evaluation): run the "
            "same command again to continue from there",
            file=sys.stderr,
        )
        return 130
    return 0


class Interrupted(KeyboardInterrupt):
    """Ctrl-C in training, after the run was saved at the update it stopped at (the message says
    where)."""


@contextlib.contextmanager
def held_interrupt() -> Iterator[Callable[[], bool]]:
    """Ctrl-C during a training update held until the update ends: yields whether one came (the
    loop then saves last.pt and raises :class:`Interrupted`); a second Ctrl-C stops at once. Only
    on the main thread, where Python's own handler is in place (elsewhere: nothing held)."""
    came: list[bool] = []
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield lambda: False
        return

    def hold(signum: int, frame: Any) -> None:
        came.append(True)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # the next one stops at once

    signal.signal(signal.SIGINT, hold)
    try:
        yield lambda: bool(came)
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _check_resume(
    saved: dict[str, Any], run: RunConfig, config: Any, config_class: type, last: Path
) -> list[tuple[str, int]]:
    """The plan to follow when resuming ``saved``; refuses settings that differ from the run's."""
    before = asdict(config_from_dict(config_class, saved["config"], f"checkpoint {str(last)!r}"))
    now = asdict(config)
    differ = [
        f"{k} (run: {show(before[k])}, command: {show(now[k])})" for k in now if before[k] != now[k]
    ]
    if differ:
        raise ValueError(
            f"{last} was trained with other settings: {'; '.join(differ)}. Resume with the run's "
            "settings, start over with --fresh, or use another --run-dir"
        )
    saved_plan = list(zip(saved["stages"], saved["iterations"], strict=True))
    if not _plan_continues(saved_plan, run.plan, saved["stage_index"]):
        plans = lambda plan: ", ".join(f"{s}:{n}" for s, n in plan)  # noqa: E731
        raise ValueError(
            f"{last} follows the plan [{plans(saved_plan)}] (stage:updates); this command asks "
            f"[{plans(run.plan)}]. A resumed run keeps its plan; it may append stages, and give "
            "its last stage more updates while that stage is in progress; or start over with "
            "--fresh"
        )
    saved_init = saved.get("init")
    if run.init is not None and saved_init is not None and run.init != saved_init:
        raise ValueError(
            f"{last} started from --init {saved_init}; this command asks --init {run.init}"
        )
    if len(run.plan) > len(saved_plan):
        print(
            f"extending the plan of {last} with stages "
            f"{', '.join(s for s, _ in run.plan[len(saved_plan) :])}"
        )
    return run.plan


def _plan_continues(
    saved: list[tuple[str, int]], now: list[tuple[str, int]], stage_index: int
) -> bool:
    """Whether the plan ``now`` continues a run that followed ``saved`` and stopped at stage
    ``stage_index``: the same stages, some appended, and the last stage given more updates while
    it is still in progress."""
    now = now[: len(saved)]
    if now == saved:
        return True
    in_progress = stage_index == len(saved) - 1  # the last stage, not finished yet
    return (
        in_progress
        and len(now) == len(saved)
        and now[:-1] == saved[:-1]
        and now[-1][0] == saved[-1][0]
        and now[-1][1] >= saved[-1][1]
    )


def _stats_dict(stats: Any) -> dict[str, float]:
    data = asdict(stats) if is_dataclass(stats) else dict(stats)
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float | torch.Tensor)}


def run_curriculum(run: RunConfig, spec: TrainingSpec, config: Any) -> Path:
    """Train through ``run.plan`` (stage, updates), resuming from ``<run_dir>/last.pt`` when
    present.

    The run folder is checked for writing first and locked for the duration: a second training
    in the same folder is refused instead of interleaving its logs.
    """
    device = resolve_device(run.device)
    if run.init is not None:  # a missing or foreign --init is refused before any folder is made
        read_checkpoint(run.init, None)
    run_dir = check_writable(run.run_dir, folder=True)
    if run.export:
        check_writable(run.export)
    with path_lock(run_dir, "training"):
        return _train(run, spec, config, device, run_dir)


def _train(
    run: RunConfig, spec: TrainingSpec, config: Any, device: torch.device, run_dir: Path
) -> Path:
    with _Run(run, spec, config, device, run_dir) as training:
        stopped = False  # by the time limit, with updates left to make
        for index in range(training.first, len(training.plan)):
            if index > training.first and training.out_of_time():
                stopped = True  # between stages: last.pt already starts this one
                break
            stopped = training.train_stage(index)
            if stopped:
                break
        training.export(stopped)
    return run_dir


class _Run:
    """One command's share of a run: the state that lives across stages, and the steps of a
    stage."""

    def __init__(
        self, run: RunConfig, spec: TrainingSpec, config: Any, device: torch.device, run_dir: Path
    ) -> None:
        self.run, self.spec, self.config, self.device = run, spec, config, device
        self.kind = spec.agent_class.kind
        self.last, self.metrics = run_dir / "last.pt", run_dir / "metrics.jsonl"
        self.saved = (
            None
            if run.fresh or not self.last.exists()
            else read_checkpoint(self.last, f"{self.kind}-run")
        )
        self.plan = run.plan
        if self.saved is not None:
            self.plan = _check_resume(
                self.saved, run, config, spec.agent_class.config_class, self.last
            )
            resumed_at = min(self.saved["stage_index"] + 1, len(self.plan))
            print(f"resuming {self.last} at stage {resumed_at}/{len(self.plan)}")
        self._trim_metrics()
        self.init = self.saved.get("init") if self.saved is not None else run.init
        self.agent = spec.agent_class(config, device=device)
        self.writer = None
        if run.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(run_dir / "tb"))
        self.first = self.saved["stage_index"] if self.saved else 0
        # training seconds of earlier commands
        self.elapsed = self.saved["elapsed_s"] if self.saved else 0.0
        # updates made in the stages already finished
        self.offset = self.saved["step_offset"] if self.saved else 0
        # What a shipped checkpoint says of how it was made (the reward is in its config).
        steps = [
            *([f"--init {self.init}"] if self.init else []),
            *(f"{stage}:{n} updates" for stage, n in self.plan),
        ]
        self.provenance = {
            "teacher": None,
            "machine": machine(device),
            "curriculum": " -> ".join(steps),
        }
        # what the --init weights cost: their training_s and machine
        self.before = _trained(self.init)
        self.deadline = (
            math.inf if run.max_minutes is None else time.perf_counter() + 60 * run.max_minutes
        )
        self.best_path = run_dir / f"best_{self.plan[-1][0]}.pt"
        self.run_dir = run_dir

    def _trim_metrics(self) -> None:
        """The metrics log as of the checkpoint resumed (rows logged after it are logged again on
        the way); a fresh run starts a fresh log."""
        if not self.metrics.exists():
            return
        if self.saved is None:
            self.metrics.unlink()
            return
        logged = self.saved.get("metrics_size")
        if logged is not None and self.metrics.stat().st_size > logged:
            os.truncate(self.metrics, logged)

    def __enter__(self) -> _Run:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.writer is not None:
            self.writer.close()

    def out_of_time(self) -> bool:
        return time.perf_counter() >= self.deadline

    def checkpoint(
        self, stage_index: int, trainer_state: dict | None, best: dict, done_s: float
    ) -> None:
        """Write ``last.pt``: everything the same command needs to continue from here."""
        atomic_torch_save(
            self.last,
            {
                "kind": f"{self.kind}-run",
                "config": asdict(self.config),
                "stages": [s for s, _ in self.plan],
                "iterations": [n for _, n in self.plan],
                "stage_index": stage_index,
                "trainer": trainer_state,
                "best": best,
                "elapsed_s": done_s,
                "step_offset": self.offset,
                "init": self.init,
                "metrics_size": self.metrics.stat().st_size if self.metrics.exists() else 0,
            },
        )

    def start_weights(self, index: int) -> None:
        """A stage starts from the previous stage's best weights, or from ``--init``."""
        previous = self.run_dir / f"best_{self.plan[index - 1][0]}.pt" if index > 0 else None
        source = str(previous) if previous is not None and previous.exists() else self.init
        if not source:
            return
        loaded = self.spec.agent_class.load(source)
        weights = loaded.net.state_dict()
        if loaded.boards != self.agent.boards:
            adopt = getattr(self.agent.net, "adopt", None)
            if loaded.boards != 1 or adopt is None:
                raise ValueError(
                    f"--init {source}: a {loaded.boards}-board network; this run trains "
                    f"{self.agent.boards}"
                )
            weights = adopt(weights)  # a one-board network starts each board's
        for name, tensor in self.agent.net.state_dict().items():
            have = weights.get(name)
            if have is None or have.shape != tensor.shape:
                found = "missing" if have is None else f"of shape {tuple(have.shape)}"
                raise ValueError(
                    f"--init {source}: a network of another shape ({name!r} is {found}; this run's "
                    f"is {tuple(tensor.shape)})"
                )
        self.agent.net.load_state_dict(weights)

    def train_stage(self, index: int) -> bool:
        """Train stage ``index`` until its updates are made (False) or the time limit stops it
        (True)."""
        stage, iterations = self.plan[index]
        answers, allowed = stage_words(stage, seed=self.config.seed)
        self.best_path = self.run_dir / f"best_{stage}.pt"
        trainer, best = self._stage_trainer(index, answers, allowed, iterations)
        clock = time.perf_counter()
        started = trainer.iteration  # a time limit stops a command only after it made an update
        stopped = False
        bar = tqdm(
            total=iterations, initial=trainer.iteration, desc=f"stage {stage}", unit="update"
        )
        with held_interrupt() as interrupted:
            while trainer.iteration < iterations:
                before = trainer.iteration
                # device tensors: read only when logged (a sync)
                raw = trainer.step(iterations - trainer.iteration)
                bar.update(trainer.iteration - before)
                now = self.elapsed + time.perf_counter() - clock
                out_of_time = self.out_of_time() and trainer.iteration > started
                update = (stage, answers, allowed, trainer, before, iterations)
                evaluated, reached = self._after_update(update, now, raw, best, bar)
                periodic = (
                    trainer.iteration // self.run.checkpoint_every
                    > before // self.run.checkpoint_every
                )
                saved = evaluated or out_of_time or periodic
                if saved:
                    self.checkpoint(index, trainer.state_dict(), best, now)
                if reached:
                    break
                if out_of_time and trainer.iteration < iterations:
                    stopped = True
                    break
                if interrupted():  # Ctrl-C during this update: saved here, then stopped
                    if not saved:
                        self.checkpoint(index, trainer.state_dict(), best, now)
                    bar.close()
                    raise Interrupted(
                        f"stage {stage} saved at update {trainer.iteration}/{iterations} in "
                        f"{self.last}"
                    )
        bar.close()
        if stopped:
            self._say_stopped(stage, trainer.iteration, iterations, best)
            return True
        self.elapsed += time.perf_counter() - clock
        self.offset += trainer.iteration
        self.checkpoint(index + 1, None, best, self.elapsed)  # this stage is done
        print(
            f"stage {stage}: best {100 * best['win_rate']:.2f} % wins, {best['mean_guesses']:.4f} "
            f"mean guesses at update {best['iteration']} -> {self.best_path}"
        )
        return False

    def _stage_trainer(
        self, index: int, answers: Any, allowed: Any, iterations: int
    ) -> tuple[Any, dict[str, Any]]:
        """Stage ``index``'s trainer, and its best evaluation so far: resumed from ``last.pt``
        where this command continues the stage, else started from the weights it starts from."""
        resume = self.saved["trainer"] if self.saved is not None and index == self.first else None
        if resume is None:
            self.start_weights(index)
        warm = index > 0 or self.init is not None
        trainer = self.spec.make_trainer(
            self.agent, answers, allowed, self.device, iterations, warm
        )
        best = {"win_rate": -1.0, "mean_guesses": float("inf"), "iteration": 0}
        if resume is not None:
            trainer.load_state_dict(resume)
            best = self.saved["best"]
        return trainer, best

    def _after_update(
        self, update: tuple, now: float, raw: Any, best: dict[str, Any], bar: Any
    ) -> tuple[bool, bool]:
        """After an update (``update``: the stage, its words, the trainer, its iteration before,
        the stage's updates): its statistics logged (TensorBoard), and on the schedule the
        network evaluated; whether it was, and whether it reached ``--stop-at``."""
        stage, answers, allowed, trainer, before, iterations = update
        step = self.offset + trainer.iteration
        crossed = trainer.iteration // self.run.eval_every > before // self.run.eval_every
        # Evaluated on the schedule only: an evaluation where a time limit happened to stop
        # the command could pick another best network than the run that never stopped.
        evaluated = trainer.iteration > before and (crossed or trainer.iteration >= iterations)
        stats = _stats_dict(raw) if self.writer is not None or evaluated else {}
        if self.writer is not None and trainer.iteration > before:
            for key, value in stats.items():
                self.writer.add_scalar(
                    f"losses/{key}" if "loss" in key else f"charts/{key}", value, step
                )
        if not evaluated:
            return False, False
        result = self.evaluate(stage, answers, allowed, trainer.iteration, step, now, stats, best)
        bar.set_postfix(
            win=f"{result.win_rate:.3f}",
            mean=f"{result.mean_guesses_wins:.3f}",
            best=f"{best['win_rate']:.3f}",
        )
        return True, self.run.stop_at is not None and result.win_rate >= self.run.stop_at

    def _say_stopped(self, stage: str, iteration: int, iterations: int, best: dict) -> None:
        """The line a time limit's stop prints: where the stage stopped, and its best so far."""
        so_far = (
            f"best so far {100 * best['win_rate']:.2f} % wins"
            if best["iteration"]
            else f"not evaluated yet (every {self.run.eval_every} updates)"
        )
        print(
            f"time limit ({self.run.max_minutes:g} min): stage {stage} stopped at update "
            f"{iteration}/{iterations}, {so_far}; run the same command again to continue"
        )

    def evaluate(
        self,
        stage: str,
        answers: list[str],
        allowed: list[str] | None,
        iteration: int,
        step: int,
        now: float,
        stats: dict[str, float],
        best: dict[str, Any],
    ) -> EvalResult:
        """Evaluate greedily on the stage's lists, log it, and keep the weights if they are the
        stage's best (``best`` is updated in place)."""
        boards = self.agent.boards
        game = {} if boards == 1 else {"boards": boards, "games": self.run.eval_games}
        game["max_guesses"] = self.agent.layout.max_guesses
        result = evaluate(
            self.agent, answers=answers, allowed=allowed, device=self.device, progress=False, **game
        )
        # win_rate / mean_guesses: the greedy evaluation; train_*: the sampled training batch.
        record = {
            "stage": stage,
            "iteration": iteration,
            "step": step,
            "elapsed_s": now,
            **{f"train_{k}": v for k, v in stats.items()},
            "win_rate": result.win_rate,
            "mean_guesses": result.mean_guesses_wins,
        }
        with self.metrics.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        if self.writer is not None:
            self.writer.add_scalar("eval/win_rate", result.win_rate, step)
            self.writer.add_scalar("eval/mean_guesses", result.mean_guesses_wins, step)
        if (result.win_rate, -result.mean_guesses_wins) > (best["win_rate"], -best["mean_guesses"]):
            best.update(
                win_rate=result.win_rate, mean_guesses=result.mean_guesses_wins, iteration=iteration
            )
            self.agent.save(
                self.best_path,
                {
                    "stage": stage,
                    "answers": stored_list(answers, "answers"),
                    "allowed": stored_list(allowed, "allowed"),
                    "figures": dict(best),
                    **self.provenance,
                    "training_s": float(getattr(self.before, "training_s", 0.0) or 0.0) + now,
                    "machine": machines(self.before, now, self.provenance["machine"]),
                },
            )
        return result

    def export(self, stopped: bool) -> None:
        """Copy the last stage's best weights to ``--export`` (float16 with ``--half``)."""
        if stopped and self.run.export and not self.best_path.exists():
            print(
                f"nothing to export yet: {self.best_path} is not written until the stage is "
                "first evaluated"
            )
        elif self.run.export:
            data = torch.load(self.best_path, map_location="cpu", weights_only=True)
            atomic_torch_save(self.run.export, half_weights(data) if self.run.half else data)
            print(f"exported {self.best_path} -> {self.run.export}")


def _trained(path: str | None) -> SimpleNamespace:
    """The ``training_s`` and ``machine`` recorded in the checkpoint at ``path`` (none without
    one)."""
    if not path:
        return SimpleNamespace(training_s=0.0, machine=None)
    data = torch.load(path, map_location="cpu", weights_only=True)
    return SimpleNamespace(training_s=data.get("training_s") or 0.0, machine=data.get("machine"))


def machine(device: torch.device) -> str:
    """The hardware a run trained on, for its checkpoint: the GPU's name, or the CPU's cores and
    threads."""
    if device.type == "cuda":
        return f"{torch.cuda.get_device_name(device)} (CUDA)"
    return f"CPU, {os.cpu_count()} cores, {torch.get_num_threads()} torch threads"


def machines(init: Any, seconds: float, here: str) -> str:
    """Where the training time went: this run's machine, or, when the weights improved trained
    elsewhere too, each machine with its hours (a run on a GPU from weights a CPU trained is not
    'hours on the GPU')."""
    before, hours = (
        getattr(init, "machine", None),
        float(getattr(init, "training_s", None) or 0.0) / 3600,
    )
    if not before or before == here or not hours:
        return here
    spent: dict[str, float] = {}
    # "machine: 1.50 h; other: 0.10 h", as this writes it, or one machine
    for part in before.split("; "):
        name, _, figure = part.rpartition(": ")
        if name and figure.endswith(" h") and figure[:-2].replace(".", "", 1).isdigit():
            spent[name] = spent.get(name, 0.0) + float(figure[:-2])
        else:
            spent = {before: hours}
            break
    spent[here] = spent.get(here, 0.0) + seconds / 3600
    return "; ".join(f"{name}: {h:.2f} h" for name, h in spent.items())
