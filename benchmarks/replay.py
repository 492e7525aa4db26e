"""Prioritized replay: sum-tree sample + priority update against a plain O(n) proportional
sampler, at capacities 10^4, 10^5, 10^6 and 10^7 (DQN training throughput: benchmarks/training.py).

    python -m benchmarks.replay [--device cpu|cuda|auto] [--quick]

The O(n) baseline (written here) keeps ``p^alpha`` in a flat tensor and samples by a cumulative
sum and a binary search over it each time: the way prioritized replay is often first written.
Writes ``benchmarks/results/replay_<device>.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import time

import torch

from benchmarks.common import parse_args, save
from wordle_agents.rl.replay import PrioritizedReplay

BATCH = 512


class LinearProportional:
    """The baseline: p^alpha in a flat tensor; each sample is a cumsum (O(n)) plus searchsorted."""

    def __init__(self, capacity: int, device: torch.device, alpha: float = 0.6) -> None:
        self.p = torch.ones(capacity, dtype=torch.float64, device=device)
        self.alpha = alpha

    def sample(self, batch: int) -> torch.Tensor:
        cumulative = torch.cumsum(self.p, 0)
        targets = torch.rand(batch, dtype=torch.float64, device=self.p.device) * cumulative[-1]
        return torch.searchsorted(cumulative, targets).clamp(max=self.p.numel() - 1)

    def update(self, indices: torch.Tensor, priorities: torch.Tensor) -> None:
        self.p[indices] = priorities.double() ** self.alpha


def time_loop(sample_update, device: torch.device, budget: float) -> float:
    """Sample + update rounds per second."""
    sample_update()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    rounds, start = 0, time.perf_counter()
    while time.perf_counter() - start < budget:
        sample_update()
        rounds += 1
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return rounds / (time.perf_counter() - start)


def main() -> None:
    args, device, result = parse_args(__doc__, "shorter timings (a smoke run)")
    budget = 0.2 if args.quick else 2.0
    result["batch"] = BATCH
    result["replay"] = []
    for capacity in (10**4, 10**5) if args.quick else (10**4, 10**5, 10**6, 10**7):
        tree = PrioritizedReplay(capacity, (1,), device=device)
        while len(tree) < capacity:  # fill and prioritise in chunks (bounded memory)
            k = min(capacity - len(tree), 1 << 16)
            obs = torch.zeros(k, 1, dtype=torch.int8, device=device)
            slots = tree.add(
                obs,
                torch.zeros(k, dtype=torch.int64),
                torch.zeros(k),
                obs,
                torch.zeros(k, dtype=torch.bool),
            )
            tree.update_priorities(slots, torch.rand(k, device=device))
        linear = LinearProportional(capacity, device)

        def tree_round(tree: PrioritizedReplay = tree) -> None:
            batch = tree.sample(BATCH)
            tree.update_priorities(batch.indices, torch.rand(BATCH, device=device))

        def linear_round(linear: LinearProportional = linear) -> None:
            indices = linear.sample(BATCH)
            linear.update(indices, torch.rand(BATCH, device=device))

        result["replay"].append(
            {
                "capacity": capacity,
                "sum_tree_per_s": time_loop(tree_round, device, budget),
                "linear_per_s": time_loop(linear_round, device, budget),
            }
        )
    save("replay", result)


if __name__ == "__main__":
    main()
