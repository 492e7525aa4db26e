"""Evaluate every available agent through the harness and regenerate BENCHMARKS.md and the plots.

    python -m benchmarks.run [--device cuda] [--model runs/sb3/maskable_ppo.zip] [--only TEXT]

The same as ``wordle-gym bench --out . --prune`` run from the repository root: it runs that command.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    # rows of agents gone
    prune = [] if any(arg.startswith("--only") for arg in sys.argv[1:]) else ["--prune"]
    command = [
        sys.executable,
        "-m",
        "wordle_gym",
        "bench",
        "--out",
        str(ROOT),
        *prune,
        *sys.argv[1:],
    ]
    sys.exit(subprocess.run(command, check=False).returncode)
