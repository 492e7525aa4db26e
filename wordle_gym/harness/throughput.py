"""How fast the torch vector env steps on this machine: ``wordle-gym bench --env [--device cuda]``.

Random actions over the 12972 allowed guesses of the real game, every mask mode, a few batch sizes
(up to 2^20 games on a GPU): env-steps per second and milliseconds per batched step, each after a
warm-up, synchronised with the device every few steps. ``benchmarks/env_throughput.py`` (the
repository's full env benchmark, with peers side by side) times the vector env with this function.
"""

from __future__ import annotations

import os
import platform
import time

import torch

from wordle_gym.envs.multi import make_vector_env

MASKS = ("all", "candidates", "hard")
# a (num_envs x num_allowed) bool mask per step beyond this many bytes is skipped
MASK_MEMORY_LIMIT = 1 << 31


def describe(device: torch.device) -> str:
    """E.g. "NVIDIA H100 80GB HBM3, torch 2.13.0+cu128" or "AMD EPYC (2 cores, ...), torch
    2.13.0+cpu"."""
    if device.type == "cuda":
        return f"{torch.cuda.get_device_name(device)}, torch {torch.__version__}"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="ignore") as handle:
            names = [
                line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")
            ]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    return (
        f"{cpu} ({os.cpu_count()} cores, {torch.get_num_threads()} torch threads), torch "
        f"{torch.__version__}"
    )


def default_sizes(device: torch.device) -> list[int]:
    """Batch sizes measured by default: 1 to 16384 games, and 2^16, 2^18 and 2^20 on a GPU."""
    return [1, 8, 64, 1024, 16384] + ([1 << 16, 1 << 18, 1 << 20] if device.type == "cuda" else [])


def time_vector(
    num_envs: int, device: torch.device, mask: str, budget_s: float, boards: int = 1
) -> dict[str, float | int | str]:
    """Step ``num_envs`` games (of ``boards`` boards) with mask mode ``mask`` for about ``budget_s``
    seconds (8 batches of random actions in turn, 3 warm-up steps first)."""
    env = make_vector_env(num_envs, device=device, action_mask=mask, boards=boards)
    env.reset(seed=0)
    gen = torch.Generator(device=device).manual_seed(0)
    actions = [
        torch.randint(env.vocabulary.num_allowed, (num_envs,), device=device, generator=gen)
        for _ in range(8)
    ]

    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    for a in actions[:3]:  # warm-up (allocator, kernels)
        env.step(a)
    sync()
    steps, start = 0, time.perf_counter()
    while True:
        env.step(actions[steps % len(actions)])
        steps += 1
        if steps % 4 == 0:
            sync()
            if time.perf_counter() - start > budget_s:
                break
    elapsed = time.perf_counter() - start
    return {
        "num_envs": num_envs,
        "boards": boards,
        "mask": mask,
        "env_steps_per_s": steps * num_envs / elapsed,
        "ms_per_step": 1e3 * elapsed / steps,
        "steps": steps,
    }


def measure(
    device: torch.device, sizes: list[int], budget_s: float, progress: bool | None = None
) -> list[dict]:
    """:func:`time_vector` for every size and mask mode (masks that would not fit are skipped)."""
    from tqdm import tqdm

    runs = [
        (n, mask)
        for n in sizes
        for mask in MASKS
        if mask == "all" or n * 12972 <= MASK_MEMORY_LIMIT
    ]
    return [
        time_vector(n, device, mask, budget_s)
        for n, mask in tqdm(runs, desc="vector env", unit="config", disable=progress is False)
    ]


def table(rows: list[dict]) -> str:
    """The rows as a markdown table: one line per batch size, one column per mask mode."""
    lines = [
        "| num_envs | " + " | ".join(f"mask `{m}`" for m in MASKS) + " |",
        "| ---: " * (len(MASKS) + 1) + "|",
    ]
    for n in sorted({r["num_envs"] for r in rows}):
        cells = {r["mask"]: r for r in rows if r["num_envs"] == n}
        text = [
            f"{_si(c['env_steps_per_s'])} ({c['ms_per_step']:.2f} ms)"
            if (c := cells.get(m))
            else "-"
            for m in MASKS
        ]
        lines.append(f"| {n:,} | " + " | ".join(text) + " |")
    return "\n".join(lines)


def _si(value: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.2f} {unit}"
    return f"{value:.0f}"
