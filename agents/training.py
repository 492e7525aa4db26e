"""The curriculum runner shared by the training examples: stages, evaluation, checkpoints, resume.

A *trainer* has ``step()`` (returns stats: a dataclass or a dict of numbers), ``iteration`` (updates
made), ``state_dict()`` and ``load_state_dict()``. An *agent* has ``save(path, extra)``, a class
method ``load(path)``, and ``net`` (a torch module). The run folder holds ``last.pt`` (everything to
continue, written atomically), ``best_<stage>.pt`` (the stage's best greedy evaluation) and
``metrics.jsonl`` (one line per evaluation).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, fields, is_dataclass
from pathlib import Path
from typing import Any

import torch
from tqdm import tqdm

from wordle_gym._io import atomic_torch_save
from wordle_gym.config import resolve_device
from wordle_gym.evaluation import evaluate
from wordle_gym.words import load_word_list


def config_from_dict(cls: type, data: dict[str, Any]) -> Any:
    """Rebuild a config dataclass saved with ``asdict``, refusing fields it does not have."""
    unknown = sorted(set(data) - {f.name for f in fields(cls)})
    if unknown:
        raise ValueError(f"unknown {cls.__name__} fields {unknown}")
    return cls(**data)


def load_checkpoint(path: str | Path, kind: str) -> dict[str, Any]:
    """``torch.load(weights_only=True)`` with clear errors for missing, corrupt or foreign files."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint {str(path)!r} does not exist")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a damaged file
        raise ValueError(f"checkpoint {str(path)!r} is corrupt or not a wordle_gym checkpoint ({exc})") from None
    if not isinstance(data, dict) or data.get("kind") != kind:
        found = data.get("kind") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"checkpoint {str(path)!r} holds {found!r}, expected an {kind!r} checkpoint")
    return data


def stage_words(stage: str, seed: int = 0) -> tuple[list[str], list[str] | None]:
    """(answers, allowed) of a curriculum stage: "N" = N answers, also the guesses (nested
    samples: the 100 are among the 1000); "2315" = every answer; "full" = 2315 answers and
    12972 guesses."""
    answers = load_word_list("answers")
    if stage == "full":
        return answers, load_word_list("allowed")
    try:
        size = int(stage)
    except ValueError:
        raise ValueError(f"unknown stage {stage!r}; expected a word count (e.g. 100) or 'full'") from None
    if not 2 <= size <= len(answers):
        raise ValueError(f"stage size {size} is out of range; expected 2 to {len(answers)} words")
    order = list(answers)
    random.Random(seed).shuffle(order)  # one fixed order: smaller stages are prefixes of larger ones
    return sorted(order[:size]), None


def add_run_arguments(parser: argparse.ArgumentParser, stages: str, iterations: str) -> None:
    """The command-line options every training example shares."""
    parser.add_argument("--stages", default=stages, help=f"comma-separated curriculum stages (default {stages})")
    parser.add_argument("--iterations", default=iterations, help="updates per stage (one value, or one per stage)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="auto", help="cpu, cuda or auto (default)")
    parser.add_argument("--eval-every", type=int, default=100, help="greedy evaluation every N updates")
    parser.add_argument("--checkpoint-every", type=int, default=50, help="write last.pt every N updates")
    parser.add_argument(
        "--stop-at", type=float, default=None, help="end a stage once its evaluated win rate reaches this"
    )
    parser.add_argument("--init", default=None, help="start from these weights (a checkpoint of the same agent)")
    parser.add_argument("--tensorboard", action="store_true", help="log to <run-dir>/tb")
    parser.add_argument("--fresh", action="store_true", help="ignore an existing last.pt and start over")
    parser.add_argument("--export", default=None, help="copy the final best checkpoint here")


def parse_plan(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[tuple[str, int]]:
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    counts = [int(n) for n in args.iterations.split(",")]
    counts = counts * len(stages) if len(counts) == 1 else counts
    if len(counts) != len(stages):
        parser.error(f"--iterations has {len(counts)} values for {len(stages)} stages")
    for stage in stages:
        try:
            stage_words(stage)
        except ValueError as exc:
            parser.error(str(exc))
    return list(zip(stages, counts, strict=True))


def _stats_dict(stats: Any) -> dict[str, float]:
    data = asdict(stats) if is_dataclass(stats) else dict(stats)
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float)}


def run_curriculum(
    args: argparse.Namespace,
    kind: str,
    plan: list[tuple[str, int]],
    config: Any,
    config_from_dict: Callable[[dict[str, Any]], Any],
    make_agent: Callable[[Any, torch.device], Any],
    load_agent: Callable[[str], Any],
    make_trainer: Callable[[Any, list[str], list[str] | None, torch.device, int], Any],
) -> Path:
    """Train through ``plan`` (stage, updates), resuming from ``<run_dir>/last.pt`` when present."""
    device = resolve_device(args.device)
    run_dir = Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    last, metrics = run_dir / "last.pt", run_dir / "metrics.jsonl"
    saved = None if args.fresh or not last.exists() else load_checkpoint(last, f"{kind}-run")
    if saved is not None:
        config = config_from_dict(saved["config"])
        plan = list(zip(saved["stages"], saved["iterations"], strict=True))
        print(f"resuming {last} at stage {min(saved['stage_index'] + 1, len(plan))}/{len(plan)}")
    agent = make_agent(config, device)
    writer = None
    if args.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir / "tb"))
    first = saved["stage_index"] if saved else 0
    elapsed = saved["elapsed_s"] if saved else 0.0
    offset = saved["step_offset"] if saved else 0  # updates made in the stages already finished

    def checkpoint(stage_index: int, trainer_state: dict | None, best: dict, done_s: float, steps: int) -> None:
        atomic_torch_save(last, {
            "kind": f"{kind}-run", "config": asdict(config), "stages": [s for s, _ in plan],
            "iterations": [n for _, n in plan], "stage_index": stage_index, "trainer": trainer_state,
            "best": best, "elapsed_s": done_s, "step_offset": steps,
        })  # fmt: skip

    best_path = run_dir / f"best_{plan[-1][0]}.pt"
    for index in range(first, len(plan)):
        stage, iterations = plan[index]
        answers, allowed = stage_words(stage, seed=config.seed)
        best_path = run_dir / f"best_{stage}.pt"
        resume = saved["trainer"] if saved is not None and index == first else None
        if resume is None:  # a stage starts from the previous stage's best weights (or --init)
            previous = run_dir / f"best_{plan[index - 1][0]}.pt" if index > 0 else None
            source = str(previous) if previous is not None and previous.exists() else args.init
            if source:
                agent.net.load_state_dict(load_agent(source).net.state_dict())
        trainer = make_trainer(agent, answers, allowed, device, iterations)
        best = {"win_rate": -1.0, "mean_guesses": float("inf"), "iteration": 0}
        if resume is not None:
            trainer.load_state_dict(resume)
            best = saved["best"]
        clock = time.perf_counter()
        bar = tqdm(total=iterations, initial=trainer.iteration, desc=f"stage {stage}", unit="update")
        while trainer.iteration < iterations:
            before = trainer.iteration
            stats = _stats_dict(trainer.step())
            bar.update(trainer.iteration - before)
            now, step = elapsed + time.perf_counter() - clock, offset + trainer.iteration
            if writer is not None and trainer.iteration > before:
                for key, value in stats.items():
                    writer.add_scalar(f"losses/{key}" if "loss" in key else f"charts/{key}", value, step)
            crossed = trainer.iteration // args.eval_every > before // args.eval_every
            evaluated = trainer.iteration > before and (crossed or trainer.iteration >= iterations)
            if evaluated:
                result = evaluate(agent, answers=answers, allowed=allowed, device=device, progress=False)
                record = {"stage": stage, "iteration": trainer.iteration, "step": step, "elapsed_s": now,
                          "win_rate": result.win_rate, "mean_guesses": result.mean_guesses_wins, **stats}  # fmt: skip
                with metrics.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(record) + "\n")
                if writer is not None:
                    writer.add_scalar("eval/win_rate", result.win_rate, step)
                    writer.add_scalar("eval/mean_guesses", result.mean_guesses_wins, step)
                if (result.win_rate, -result.mean_guesses_wins) > (best["win_rate"], -best["mean_guesses"]):
                    best = {"win_rate": result.win_rate, "mean_guesses": result.mean_guesses_wins,
                            "iteration": trainer.iteration}  # fmt: skip
                    agent.save(best_path, {"stage": stage, "answers": answers, "allowed": allowed,
                                           "figures": best, "training_s": now})  # fmt: skip
                bar.set_postfix(win=f"{result.win_rate:.3f}", mean=f"{result.mean_guesses_wins:.3f}",
                                best=f"{best['win_rate']:.3f}")  # fmt: skip
            crossed_checkpoint = trainer.iteration // args.checkpoint_every > before // args.checkpoint_every
            if evaluated or crossed_checkpoint:
                checkpoint(index, trainer.state_dict(), best, now, offset)
            if evaluated and args.stop_at is not None and result.win_rate >= args.stop_at:
                break
        bar.close()
        elapsed += time.perf_counter() - clock
        offset += trainer.iteration
        checkpoint(index + 1, None, best, elapsed, offset)  # this stage is done
        print(f"stage {stage}: best {100 * best['win_rate']:.2f} % wins, {best['mean_guesses']:.4f} mean guesses "
              f"at update {best['iteration']} -> {best_path}")  # fmt: skip
    if writer is not None:
        writer.close()
    if args.export:
        atomic_torch_save(args.export, torch.load(best_path, map_location="cpu", weights_only=True))
        print(f"exported {best_path} -> {args.export}")
    return run_dir
