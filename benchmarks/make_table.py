"""Regenerate BENCHMARKS.md: the scripts' sections from benchmarks/results/*.json, then the table.

python benchmarks/make_table.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.report import write_sections  # noqa: E402
from wordle_gym.cli.bench import Layout, render  # noqa: E402


def main() -> None:
    print(f"wrote {write_sections()}")
    print(f"wrote {render(Layout.under(ROOT))}")


if __name__ == "__main__":
    main()
