"""The sections of BENCHMARKS.md that the benchmark scripts measure, rendered from their JSON.

    python -m benchmarks.make_table   # re-render every section and BENCHMARKS.md

Each script writes ``benchmarks/results/<name>_<device>.json``; :func:`write_sections` renders them
into ``benchmarks/sections/measured.md``, which ``wordle-gym bench`` appends to its agents table
(it appends every markdown file in that folder, and knows nothing of these scripts).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.report_boards import dordle_bound_section, multi_board_section
from benchmarks.report_learning import (
    a2c_ablation_section,
    cited_section,
    dqn_ablation_section,
    improve_section,
    learning_section,
    profile_section,
    replay_section,
    training_section,
)
from benchmarks.report_solver import (
    exact_section,
    opener_totals_section,
    openers_section,
    oracle_section,
    regret_reward_section,
    solver_section,
    today_section,
)
from benchmarks.report_speed import (
    contention_section,
    cuda_graph_section,
    env_section,
    openenv_flood_section,
    text_env_section,
)
from wordle_gym.utils.files import atomic_write_text

HERE = Path(__file__).resolve().parent


def bench_device_section(result: dict) -> list[str]:
    """``wordle-gym bench`` on another device beside the CPU rows
    (``benchmarks/bench_device.py``)."""
    lines = [
        f"### Every agent on {result['device']}, beside its CPU row ({result['date']})",
        "",
        f"Machine: {result['machine']}. Commands: `wordle-gym bench --device {result['device']} "
        "--optimal-agent none --out gpu-run/bench`, then `python -m benchmarks.bench_device "
        "--rows gpu-run/bench/benchmarks/results/agents`. The CPU column is the row in the table "
        "above. Where the games differ it says so: the random agents draw from each device's own "
        "generator, and float rounding differs between devices.",
        "",
        f"| agent | games | wins, CPU | wins, {result['device']} | eval, CPU | eval, "
        f"{result['device']} |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    agents = HERE / "results" / "agents"
    for row in result["rows"]:
        path = agents / row["file"]
        cpu = _read(path) if path.exists() else None
        same = cpu is not None and (cpu["wins"], cpu["histogram"]) == (
            row["wins"],
            row["histogram"],
        )
        mark = "" if cpu is None or same else " (other games)"
        cpu_wins, cpu_time = (cpu["wins"], f"{cpu['wall_time_s']:.2f} s") if cpu else ("n/a", "n/a")
        lines.append(
            f"| {row['agent']} | {row['games']:,} | {cpu_wins} | {row['wins']}{mark} | {cpu_time} "
            f"| {row['wall_time_s']:.2f} s |"
        )
    total = sum(row["wall_time_s"] for row in result["rows"])
    return [
        *lines,
        "",
        f"Evaluation time of every row together on {result['device']}: {total:.1f} s.",
        "",
    ]


def _read(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a benchmark result ({exc})") from None


RENDERERS = [
    ("env_throughput", env_section),
    ("cuda_graph", cuda_graph_section),
    ("bench", bench_device_section),
    ("solvers", solver_section),
    ("exact", exact_section),
    ("openers", openers_section),
    ("today", today_section),
    ("opener_totals", opener_totals_section),
    ("training", training_section),
    ("replay", replay_section),
    ("dqn_ablation", dqn_ablation_section),
    ("a2c_ablation", a2c_ablation_section),
    ("improve", improve_section),
    ("profile_training", profile_section),
    ("oracle", oracle_section),
    ("multi_board", multi_board_section),
    ("dordle_bound", dordle_bound_section),
    ("text_env", text_env_section),
    ("openenv_flood", openenv_flood_section),
    ("regret_reward", regret_reward_section),
    ("contention", contention_section),
    ("library_contention", contention_section),
]


def write_sections(
    results: Path = HERE / "results", out: Path = HERE / "sections" / "measured.md"
) -> Path:
    """Render every script's results (``results/<name>_*.json``) into one markdown file."""
    sections: list[str] = cited_section()
    for name, section in RENDERERS:
        for path in sorted(results.glob(f"{name}_*.json")):
            try:
                sections += section(_read(path))
            except (KeyError, TypeError, IndexError) as exc:
                raise ValueError(
                    f"{path}: not a {name} benchmark result (missing or bad {exc})"
                ) from None
        if name == "training":
            sections += learning_section()
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, "\n".join(sections))
    return out
