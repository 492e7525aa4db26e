"""Regenerate BENCHMARKS.md from the JSON files in benchmarks/results/ (measured figures only).

python benchmarks/make_table.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from wordle_gym.report import render  # noqa: E402


def main() -> None:
    print(f"wrote {render(ROOT)}")


if __name__ == "__main__":
    main()
