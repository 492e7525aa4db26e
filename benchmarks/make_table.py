"""Regenerate BENCHMARKS.md: the scripts' sections from benchmarks/results/*.json, then the table.

python -m benchmarks.make_table
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.report import write_sections
from wordle_gym.harness.bench_table import Layout, render

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    print(f"wrote {write_sections()}")
    print(f"wrote {render(Layout.under(ROOT))}")


if __name__ == "__main__":
    main()
