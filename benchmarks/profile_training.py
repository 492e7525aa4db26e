"""Where one training update spends its time: A2C and DQN at the full vocabulary, torch profiler.

    python -m benchmarks.profile_training [--device cpu|cuda] [--quick]

One warm-up update, then one profiled update of each (A2C: seed settings, 1024 games to the end;
DQN: defaults, one env step and its updates), on 2315 answers with the 12972 allowed guesses.
Records the wall time of the profiled update and the operators with the most self time. Writes
``benchmarks/results/profile_training_<device>.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import time

import torch
from torch.profiler import ProfilerActivity, profile

from benchmarks.common import parse_args, save
from wordle_agents.rl.a2c import A2CAgent, A2CConfig, A2CTrainer
from wordle_agents.rl.dqn import DQNAgent, DQNConfig, DQNTrainer
from wordle_gym.core.words import stage_words

TOP = 12


def profiled(step, device: torch.device) -> dict:
    step()  # warm-up: lazy buffers, caches, allocator
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    start = time.perf_counter()
    with profile(activities=activities) as prof:
        step()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
    wall = time.perf_counter() - start
    events = sorted(prof.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)
    total = sum(e.self_cpu_time_total for e in events) or 1.0
    top = [
        {
            "op": e.key,
            "calls": e.count,
            "self_ms": e.self_cpu_time_total / 1000,
            "share": e.self_cpu_time_total / total,
        }
        for e in events[:TOP]
    ]
    return {"wall_s": wall, "ops": sum(e.count for e in events), "top": top}


def main() -> None:
    args, device, result = parse_args(__doc__, "small batches (a smoke run)")
    answers, allowed = stage_words("full")
    games = 64 if args.quick else 1024
    a2c = A2CTrainer(
        A2CAgent(A2CConfig(batch_games=games), device=device), answers, allowed, device
    )
    dqn_config = DQNConfig(
        num_games=32 if args.quick else 256, learning_starts=0, batch_size=64 if args.quick else 512
    )
    dqn = DQNTrainer(DQNAgent(dqn_config, device=device), answers, allowed, device)
    result["a2c"] = {"games": games, **profiled(a2c.step, device)}
    result["dqn"] = {
        "num_games": dqn_config.num_games,
        "batch_size": dqn_config.batch_size,
        "updates_per_step": dqn_config.updates_per_step,
        **profiled(dqn.step, device),
    }
    for name in ("a2c", "dqn"):
        print(f"{name}: {result[name]['wall_s']:.2f} s, top op {result[name]['top'][0]['op']}")
    save("profile_training", result)


if __name__ == "__main__":
    main()
