"""Train the seed-000 A2C agent through its curriculum, resumably, on CPU or CUDA.

    python examples/train_a2c.py --stages 100,1000,2315,full --iterations 5000,10000,15000,30000 \
        --device cuda --run-dir runs/a2c [--tensorboard] [--export agents/checkpoints/a2c.pt]

Stages: "N" plays N answers that are also the only guesses (nested samples of the answer
list), "full" the 2315 answers with all 12972 guesses. Each stage starts from the previous
stage's best weights. The run folder holds ``last.pt`` (everything needed to continue; written
atomically every ``--checkpoint-every`` updates), ``best_<stage>.pt`` (best greedy evaluation of
the stage) and ``metrics.jsonl``. Run the same command again after a kill to continue.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

import torch
from tqdm import tqdm

from agents.a2c import A2CAgent, A2CConfig, A2CTrainer, load_checkpoint, stage_words
from wordle_gym._io import atomic_torch_save
from wordle_gym.config import resolve_device
from wordle_gym.evaluation import evaluate


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--stages", default="100,1000,2315,full", help="comma-separated curriculum stages")
    p.add_argument("--iterations", default="5000,10000,15000,30000", help="updates per stage (one, or one per stage)")
    p.add_argument("--batch-games", type=int, default=1024, help="games per update (seed: 1024; 2048 for full)")
    p.add_argument("--encoding", choices=["seed", "knowledge"], default="seed")
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="auto", help="cpu, cuda or auto (default)")
    p.add_argument("--run-dir", default="runs/a2c", help="checkpoints and logs (default runs/a2c)")
    p.add_argument("--eval-every", type=int, default=100, help="greedy evaluation every N updates")
    p.add_argument("--checkpoint-every", type=int, default=50, help="write last.pt every N updates")
    p.add_argument("--stop-at", type=float, default=None, help="end a stage once its evaluated win rate reaches this")
    p.add_argument("--init", default=None, help="start from these weights (an A2C checkpoint)")
    p.add_argument("--tensorboard", action="store_true", help="log to <run-dir>/tb")
    p.add_argument("--fresh", action="store_true", help="ignore an existing last.pt and start over")
    p.add_argument("--export", default=None, help="copy the final best checkpoint here")
    args = p.parse_args(argv)
    args.stage_list = [s.strip() for s in args.stages.split(",") if s.strip()]
    counts = [int(n) for n in args.iterations.split(",")]
    if len(counts) == 1:
        counts = counts * len(args.stage_list)
    if len(counts) != len(args.stage_list):
        p.error(f"--iterations has {len(counts)} values for {len(args.stage_list)} stages")
    args.iteration_list = counts
    for stage in args.stage_list:
        try:
            stage_words(stage)
        except ValueError as exc:
            p.error(str(exc))
    return args


def run(args: argparse.Namespace) -> Path:
    device = resolve_device(args.device)
    run_dir = Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    last, metrics = run_dir / "last.pt", run_dir / "metrics.jsonl"
    saved = None if args.fresh or not last.exists() else load_checkpoint(last, "a2c-run")
    if saved is not None:
        config = A2CConfig.from_dict(saved["config"])
        plan = list(zip(saved["stages"], saved["iterations"], strict=True))
        print(f"resuming {last} at stage {min(saved['stage_index'] + 1, len(plan))}/{len(plan)}")
    else:
        config = A2CConfig(batch_games=args.batch_games, encoding=args.encoding, hidden=args.hidden, lr=args.lr,
                           seed=args.seed)  # fmt: skip
        plan = list(zip(args.stage_list, args.iteration_list, strict=True))
    agent = A2CAgent(config, device=device)
    writer = None
    if args.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir / "tb"))
    first = saved["stage_index"] if saved else 0
    elapsed = saved["elapsed_s"] if saved else 0.0
    offset = saved["step_offset"] if saved else 0  # updates made in the stages already finished

    def checkpoint(stage_index: int, trainer_state: dict | None, best: dict, done_s: float, steps: int) -> None:
        atomic_torch_save(last, {
            "kind": "a2c-run", "config": asdict(config), "stages": [s for s, _ in plan],
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
                agent.net.load_state_dict(A2CAgent.load(source).net.state_dict())
        trainer = A2CTrainer(agent, answers, allowed, device)
        best = {"win_rate": -1.0, "mean_guesses": float("inf"), "iteration": 0}
        if resume is not None:
            trainer.load_state_dict(resume)
            best = saved["best"]
        clock = time.perf_counter()
        bar = tqdm(total=iterations, initial=trainer.iteration, desc=f"stage {stage}", unit="update")
        while trainer.iteration < iterations:
            stats = trainer.step()
            bar.update(1)
            now, step = elapsed + time.perf_counter() - clock, offset + trainer.iteration
            if writer is not None:
                writer.add_scalar("losses/loss", stats.loss, step)
                writer.add_scalar("charts/train_win_rate", stats.win_rate, step)
                writer.add_scalar("charts/recent_losses", stats.queue, step)
            evaluated = trainer.iteration % args.eval_every == 0 or trainer.iteration == iterations
            if evaluated:
                result = evaluate(agent, answers=answers, allowed=allowed, device=device, progress=False)
                record = {"stage": stage, "iteration": trainer.iteration, "step": step, "elapsed_s": now,
                          "win_rate": result.win_rate, "mean_guesses": result.mean_guesses_wins,
                          "train_win_rate": stats.win_rate, "loss": stats.loss}  # fmt: skip
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
            if evaluated or trainer.iteration % args.checkpoint_every == 0:
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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        run(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"train_a2c: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
