"""A2C training throughput, and the harness rows of the shipped A2C checkpoints.

    python benchmarks/training.py [--device cpu|cuda|auto] [--quick]

Throughput: updates per second and games per second of ``A2CTrainer`` (seed settings: hidden
512, 1024 games per update) on the 100-word stage and on the full vocabulary (2315 answers,
12972 guesses). Checkpoints: every ``agents/checkpoints/a2c*.pt``, evaluated greedily through the
harness on the word lists it was trained on. Writes ``benchmarks/results/training_<device>.json``
and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import parse_args, save

from wordle_agents.a2c import A2CAgent, A2CConfig, A2CTrainer
from wordle_agents.checkpoint import shipped_dir
from wordle_gym.evaluation import evaluate
from wordle_gym.words import stage_words

CHECKPOINTS = shipped_dir()  # the shipped weights


def throughput(stage: str, device: torch.device, updates: int, batch: int) -> dict:
    answers, allowed = stage_words(stage)
    trainer = A2CTrainer(A2CAgent(A2CConfig(batch_games=batch), device=device), answers, allowed)
    trainer.step()  # warm-up
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    start = time.perf_counter()
    for _ in range(updates):
        trainer.step()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    seconds = time.perf_counter() - start
    return {"stage": stage, "batch_games": batch, "updates_per_s": updates / seconds,
            "games_per_s": updates * batch / seconds}  # fmt: skip


def main() -> None:
    args, device, result = parse_args(__doc__, "fewer updates (a smoke run)")
    updates = 2 if args.quick else 10
    result["throughput"] = [throughput(stage, device, updates, 1024) for stage in ("100", "full")]
    result["checkpoints"] = []
    for path in sorted(CHECKPOINTS.glob("a2c*.pt")):
        agent = A2CAgent.load(path, device=device)
        info = agent.checkpoint
        r = evaluate(agent, **info.lists, device=device, progress=False)
        r.agent = f"A2C `{path.name}` (stage {info.stage})"
        r.extra = {"training_s": info.training_s, "stage": info.stage}
        result["checkpoints"].append(r.to_dict())
    save("training", result)


if __name__ == "__main__":
    main()
