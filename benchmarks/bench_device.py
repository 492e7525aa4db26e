"""Every agent's row of ``wordle-gym bench --device cuda`` beside its CPU row: the same games, the
evaluation time on each device.

    wordle-gym bench --device cuda --optimal-agent none --out gpu-run/bench
    python -m benchmarks.bench_device --rows gpu-run/bench/benchmarks/results/agents

Keeps, for each row file of ``--rows``, its agent, games, wins, histogram and evaluation time; the
CPU row of the same file name (``benchmarks/results/agents``) is read when the table is rendered.
Writes ``benchmarks/results/bench_<device>.json`` (the device of the rows) and regenerates
BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.common import save

KEEP = ("agent", "games", "wins", "histogram", "wall_time_s", "device")


def _machine(device: str) -> str:
    """This machine, described as the other benchmarks describe theirs, where it has that device;
    else ""."""
    import torch

    from wordle_gym.harness.throughput import describe

    return describe(torch.device(device)) if device == "cpu" or torch.cuda.is_available() else ""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rows", required=True, help="the folder of a bench run's row files (its --results)"
    )
    parser.add_argument(
        "--machine", default=None, help="the machine the rows ran on (default: this one)"
    )
    args = parser.parse_args(argv)
    files = sorted(Path(args.rows).glob("*.json"))
    if not files:
        parser.error(
            f"--rows {args.rows!r} holds no row files (*.json); expected a bench run's "
            "--results folder"
        )
    rows = []
    for path in files:
        row = json.loads(path.read_text())
        rows.append({"file": path.name, **{key: row[key] for key in KEEP}})
    devices = {row["device"] for row in rows}
    if len(devices) != 1:
        parser.error(
            f"--rows {args.rows!r} mixes devices {sorted(devices)}; expected the rows of "
            "one bench run"
        )
    device = devices.pop()
    result = {
        "device": device,
        "machine": args.machine or _machine(device),
        "date": time.strftime("%Y-%m-%d", time.gmtime(max(p.stat().st_mtime for p in files))),
        "rows": rows,
    }
    save("bench", result)


if __name__ == "__main__":
    main()
