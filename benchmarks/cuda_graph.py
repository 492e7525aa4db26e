"""The vector env's step on CUDA, mask "all": eager with and without ``check_actions`` (its one host
read a step), and one step captured as a CUDA graph and replayed, at 16384 and 2^20 games.

    python -m benchmarks.cuda_graph [--device cuda] [--quick]

Eager: ``env.step(action)`` on a fixed action tensor, 100 steps after 3 warm-up steps. Graph: the
same step with ``check_actions=False`` (a host read cannot be captured) captured once (the env's
generator registered, so new games draw new answers on each replay) and replayed 200 times: what a
step with no launch overhead reaches, an upper bound for a fused step (the replay reuses its
captured action). Also checks that the eager step with ``check_actions=False`` makes no
synchronising call (``torch.cuda.set_sync_debug_mode("error")``). Writes
``benchmarks/results/cuda_graph_cuda.json`` and regenerates BENCHMARKS.md. Needs a CUDA device.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import torch

from benchmarks.common import parse_args, save
from wordle_gym.envs.multi import make_vector_env


def timed(step: Callable[[], object], repeats: int) -> float:
    """Seconds per call of ``step`` (3 warm-up calls first), synchronised with the device."""
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        step()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / repeats


def measure(size: int, device: torch.device, repeats: int) -> dict[str, object]:
    row: dict[str, object] = {"num_envs": size}
    for check in (True, False):
        env = make_vector_env(size, device=device, action_mask="all", check_actions=check)
        env.reset(seed=0)
        action = torch.randint(env.vocabulary.num_allowed, (size,), device=device)
        row[f"eager_check_actions_{check}".lower()] = 1e3 * timed(lambda: env.step(action), repeats)  # noqa: B023
    torch.cuda.set_sync_debug_mode("error")
    try:
        for _ in range(8):
            env.step(action)
        row["syncs_without_check"] = False
    except RuntimeError:
        row["syncs_without_check"] = True
    finally:
        torch.cuda.set_sync_debug_mode(0)
    graph = torch.cuda.CUDAGraph()
    register = getattr(graph, "register_generator_state", None)
    if register is not None:
        register(env._generator)
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):
        for _ in range(3):
            env.step(action)
    torch.cuda.current_stream(device).wait_stream(side)
    with torch.cuda.graph(graph, capture_error_mode="thread_local"):
        env.step(action)
    row["graph"] = 1e3 * timed(graph.replay, 2 * repeats)
    return row


def main() -> None:
    args, device, result = parse_args(__doc__, "256 and 4096 games, 10 steps (a smoke run)")
    if device.type != "cuda":
        raise SystemExit(
            "benchmarks.cuda_graph needs a CUDA device: run it with --device cuda on a GPU"
        )
    sizes, repeats = ((256, 4096), 10) if args.quick else ((16384, 1 << 20), 100)
    result["rows"] = [measure(n, device, repeats) for n in sizes]
    result["command"] = " ".join(["python -m benchmarks.cuda_graph", *sys.argv[1:]])
    save("cuda_graph", result)


if __name__ == "__main__":
    main()
