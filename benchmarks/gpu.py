"""Everything ``../shared/GPU.md`` asks of a GPU, in order, in one command: the first GPU minutes go to GPU work.

    python -m benchmarks.gpu --out gpu-run [--device cuda] [--train-minutes 8] [--dry-run]

Steps (each a fresh process with its own time limit; its output goes to ``<out>/<step>.log``, and
``<out>/summary.json`` records every step's command, exit status and seconds as soon as it ends):

1. ``cuda-tests``: ``pytest -m cuda`` (the CPU-vs-CUDA equality tests and the CUDA-only ones);
2. ``env-throughput``: ``python -m benchmarks.env_throughput --device cuda`` (writes
   ``benchmarks/results/env_throughput_cuda.json`` and rewrites BENCHMARKS.md's CUDA rows);
3. ``bench``: ``wordle-gym bench --device cuda --out <out>/bench`` (every agent's row on CUDA);
4. ``train-a2c`` and ``train-dqn``: the examples' training scripts from the shipped full-game weights, on
   the full game, ``--max-minutes`` each, resumable from ``<out>/runs/<agent>`` (the same command continues);
5. ``benchmarks``: ``python -m benchmarks.make_table`` (BENCHMARKS.md from every result, CUDA rows included).

A failing step is recorded and the next one runs. ``--dry-run`` runs every step on the CPU with tiny sizes
(the test suite does, so that the script works the first time a GPU is at hand); it writes nothing outside
``--out``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from wordle_gym.core.files import atomic_write_json

ROOT = Path(__file__).resolve().parent.parent


def steps(out: Path, device: str, train_minutes: float, dry: bool) -> list[tuple[str, list[str], float]]:
    """(name, command, time limit in seconds) of every step, in order."""
    python = sys.executable
    checkpoints = ROOT / "agents" / "checkpoints"
    runs = out / "runs"
    if dry:  # the same commands, on the CPU, with tiny sizes
        tiny = ["--stages", "20", "--iterations", "3", "--eval-every", "2", "--checkpoint-every", "1"]
        return [
            ("cuda-tests", [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "cuda", "tests/envs"], 600),
            (
                "env-throughput",
                [
                    python,
                    "-c",
                    "import wordle_gym.cli.throughput as t, torch; "
                    "print(t.table(t.measure(torch.device('cpu'), [8], 0.05, progress=False)))",
                ],
                300,
            ),
            (
                "bench",
                [
                    python,
                    "-m",
                    "wordle_gym",
                    "bench",
                    "--device",
                    "cpu",
                    "--only",
                    "random",
                    "--out",
                    str(out / "bench"),
                ],
                600,
            ),
            (
                "train-a2c",
                [
                    python,
                    "examples/train_a2c.py",
                    *tiny,
                    "--hidden",
                    "16",
                    "--batch-games",
                    "16",
                    "--device",
                    "cpu",
                    "--run-dir",
                    str(runs / "a2c"),
                    "--max-minutes",
                    "1",
                ],
                300,
            ),
            (
                "train-dqn",
                [
                    python,
                    "examples/train_dqn.py",
                    *tiny,
                    "--device",
                    "cpu",
                    "--run-dir",
                    str(runs / "dqn"),
                    "--max-minutes",
                    "1",
                ],
                300,
            ),
            ("benchmarks", [python, "-c", "import benchmarks.report as r; print(len(r.RENDERERS))"], 120),
        ]
    minutes = str(train_minutes)
    limit = 60 * train_minutes + 600
    return [
        ("cuda-tests", [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "cuda"], 1800),
        ("env-throughput", [python, "-m", "benchmarks.env_throughput", "--device", device], 1800),
        ("bench", [python, "-m", "wordle_gym", "bench", "--device", device, "--out", str(out / "bench")], 1800),
        (
            "train-a2c",
            [
                python,
                "examples/train_a2c.py",
                "--stages",
                "full",
                "--iterations",
                "1000000",
                "--init",
                str(checkpoints / "a2c_full.pt"),
                "--device",
                device,
                "--run-dir",
                str(runs / "a2c"),
                "--max-minutes",
                minutes,
                "--tensorboard",
            ],
            limit,
        ),
        (
            "train-dqn",
            [
                python,
                "examples/train_dqn.py",
                "--stages",
                "full",
                "--iterations",
                "1000000",
                "--init",
                str(checkpoints / "dqn_full.pt"),
                "--device",
                device,
                "--run-dir",
                str(runs / "dqn"),
                "--max-minutes",
                minutes,
                "--tensorboard",
            ],
            limit,
        ),
        ("benchmarks", [python, "-m", "benchmarks.make_table"], 600),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="folder of the logs, results and training runs")
    parser.add_argument("--device", default="cuda", help="the GPU (default: cuda)")
    parser.add_argument("--train-minutes", type=float, default=8.0, help="minutes of each training run (default 8)")
    parser.add_argument("--dry-run", action="store_true", help="every step on the CPU with tiny sizes")
    parser.add_argument("--only", help="run only the steps whose name holds this text")
    args = parser.parse_args(argv)
    if not args.train_minutes > 0:
        parser.error(f"--train-minutes must be > 0; got {args.train_minutes}")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    summary: dict = {"device": "cpu" if args.dry_run else args.device, "dry_run": args.dry_run, "steps": []}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(":")}
    for name, command, limit in steps(out, args.device, args.train_minutes, args.dry_run):
        if args.only and args.only not in name:
            continue
        print(f"[{name}] {shlex.join(command)} (limit {limit / 60:.0f} min)", flush=True)
        start, status = time.perf_counter(), None
        with open(out / f"{name}.log", "w") as log:
            try:
                status = subprocess.run(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=limit)
                code = status.returncode
            except subprocess.TimeoutExpired:
                code = 124
        seconds = time.perf_counter() - start
        summary["steps"].append({"name": name, "command": command, "exit": code, "seconds": round(seconds, 1)})
        atomic_write_json(out / "summary.json", summary)
        print(f"[{name}] exit {code} in {seconds:.0f} s; log {out / (name + '.log')}", flush=True)
    failed = [s["name"] for s in summary["steps"] if s["exit"]]
    print(f"done: {len(summary['steps'])} steps, {'failed: ' + ', '.join(failed) if failed else 'all passed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
