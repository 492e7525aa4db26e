"""Policy iteration by a network's own rollouts (``python -m wordle_agents.improve``), from the shipped runs.

The runs take hours on this CPU, so this script does not improve anything: it reads each shipped
improved checkpoint's own record (``improving.history``: every iteration's greedy play on all 2315
answers, the positions changed, the guesses tried, the time) and writes its table.

    python benchmarks/improve.py

Writes ``benchmarks/results/improve_cpu.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import parse_args, save

from wordle_agents.checkpoint import read_checkpoint, shipped_dir

# the shipped improved checkpoint: the command that made it (the same command continues its run folder)
RUNS = {
    "a2c_improved.pt": "python -m wordle_agents.improve --init agents/checkpoints/a2c_full.pt --out a2c_improved.pt "
    "--run-dir runs/improve_a2c --top 64 --iterations 3; then --top 64 --deep-top 8 --deep-random 64 --iterations 4",
    "dqn_improved.pt": "python -m wordle_agents.improve --init agents/checkpoints/dqn_full.pt --out dqn_improved.pt "
    "--run-dir runs/improve_dqn --top 64 --iterations 5; then --top 128 --deep-top 4 --deep-answers 30 "
    "--deep-random 128 --iterations 8",
}


def main() -> None:
    _, _, result = parse_args(__doc__, "(no effect: nothing is trained)")
    runs = []
    for name, command in RUNS.items():
        path = shipped_dir() / name
        if not path.is_file():
            continue
        data = read_checkpoint(path, None)
        runs.append({"file": name, "kind": data["kind"], "command": command, "curriculum": data["curriculum"],
                     "figures": data["figures"], "history": data["improving"]["history"],
                     "training_s": data["training_s"]})  # fmt: skip
    result.update({"device": "cpu", "runs": runs})
    save("improve", result)


if __name__ == "__main__":
    main()
