"""Evaluate every available agent through the harness and regenerate BENCHMARKS.md and the plots.

    python -m benchmarks.run [--device cuda] [--model runs/sb3/maskable_ppo.zip] [--only TEXT]

The same as ``wordle-gym bench --out . --prune`` run from the repository root (see wordle_gym/cli/bench.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

from wordle_gym.cli.bench import main

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    prune = [] if any(arg.startswith("--only") for arg in sys.argv[1:]) else ["--prune"]  # rows of agents gone
    sys.exit(main(["--out", str(ROOT), *prune, *sys.argv[1:]]))
