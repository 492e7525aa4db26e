"""``wordle-gym bench``: every installed agent through the harness, written as a table (see
:data:`DESCRIPTION`).

The rows, the lists they are played on and the table are :mod:`wordle_gym.harness.bench_table`'s;
this module is the command and the plot. ``--env`` measures the vector env instead
(:mod:`wordle_gym.harness.throughput`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from wordle_gym.core.config import WordleConfig
from wordle_gym.harness.bench_table import (
    Layout,
    check_ours,
    jobs,
    optimal_gaps,
    provenance,
    read_row,
    real_game,
    render,
    settings,
    slug,
    table_order,
)
from wordle_gym.harness.evaluation import EvalResult, evaluate
from wordle_gym.harness.registry import AgentError, make_agent, playing
from wordle_gym.utils.commandline import OneLineParser, add_options, options_from
from wordle_gym.utils.device import resolve_device
from wordle_gym.utils.files import atomic_write, atomic_write_text, check_writable

DESCRIPTION = """\
Evaluate every installed agent on every answer (greedy play, one batched pass each) and write
the agents table, one JSON per row and the guess-distribution plot.

Rows come from the installed agents (wordle-gym agents lists them); --model adds SB3 model zips.
Everything goes under --out (default: wordle-gym-bench/, made here):

  BENCHMARKS.md                    the table, then every markdown file of --sections
  benchmarks/results/agents/*.json one result per row, written atomically
  benchmarks/plots/                guess_distribution.png and multi_board.png (need matplotlib)

Each real-game row gets its gap to perfect play, measured by the agent --optimal-agent (default
optimal; none skips it) against the optimum from --reference-opener (default salet). A
BENCHMARKS.md that this command did not write is never replaced.

--env measures the vector env's steps per second on --device instead."""


@dataclass(kw_only=True)
class BenchOptions:
    """The options of ``wordle-gym bench``."""

    device: str = "cpu"
    """cpu, cuda or auto."""
    out: str = "wordle-gym-bench"
    """Folder that receives BENCHMARKS.md and benchmarks/ (made here)."""
    results: str | None = field(default=None, metadata={"metavar": "FOLDER"})
    """Folder of the rows' JSON (default OUT/benchmarks/results/agents)."""
    plots: str | None = field(default=None, metadata={"metavar": "FOLDER"})
    """Folder of the plots (default OUT/benchmarks/plots)."""
    sections: str | None = field(default=None, metadata={"metavar": "FOLDER"})
    """Markdown appended to the table (default OUT/benchmarks/sections)."""
    model: tuple[str, ...] = field(default=(), metadata={"repeat": True, "metavar": "ZIP"})
    """Also evaluate this SB3 model zip (repeatable)."""
    only: tuple[str, ...] = field(default=(), metadata={"repeat": True, "metavar": "TEXT"})
    """Evaluate only the rows whose label contains this text, e.g. dqn_boards.pt (repeatable: any
    of them)."""
    optimal_agent: str = field(default="optimal", metadata={"metavar": "AGENT"})
    """Agent that measures the gap to perfect play ('none': no gap)."""
    reference_opener: str = field(default="salet", metadata={"metavar": "WORD"})
    """The opener whose optimum the gap is measured from."""
    prune: bool = False
    """Delete result files of rows this run did not write (agents that are gone or renamed);
    refused with --only."""
    env: bool = False
    """Measure the vector env's steps/s on --device instead of evaluating agents (writes
    OUT/benchmarks/results/vector_env_<device>.json)."""
    sizes: str | None = None
    """With --env: batch sizes, comma-separated (default 1,8,64,1024,16384, and 1048576 on a
    GPU)."""
    seconds: float = 1.0
    """With --env: seconds per measurement."""


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        prog="wordle-gym bench",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_options(parser, BenchOptions)
    args = options_from(BenchOptions, parser.parse_args(argv))
    if args.env:
        return _env_throughput(parser, args)
    if args.prune and args.only:
        parser.error("--prune deletes every row this run did not write: it cannot go with --only")
    device = resolve_device(args.device)
    to_path = lambda value: None if value is None else Path(value)  # noqa: E731
    layout = Layout.under(
        Path(args.out), to_path(args.results), to_path(args.plots), to_path(args.sections)
    )
    check_ours(layout.table)
    for folder in (layout.table.parent, layout.results, layout.plots):
        check_writable(folder, folder=True)  # before the work, not after it
    selected = _selected(list(args.model), list(args.only))
    start, warmed = time.perf_counter(), []
    written: dict[Path, EvalResult] = {}
    # The rows done and the time left, on a terminal (each row's own games show beneath it); lines
    # go above it.
    rows = tqdm(
        selected, desc="bench", unit="row", disable=None, file=sys.stderr, dynamic_ncols=True
    )
    for name, run in rows:
        rows.set_postfix_str(run.label[:40], refresh=False)
        try:
            policy = make_agent(name, run.options, device=str(device))
        # a missing extra, a broken plugin: the rest of the table goes on
        except (AgentError, ImportError) as exc:
            tqdm.write(f"skipped {run.label}: {exc}")
            continue
        for label, result in _rows_of(name, run, policy, device, warmed):
            written[result.save(layout.results / f"{slug(label)}.json")] = result
            if len(written) == 1:  # the rows printed as they come get the table's header first
                tqdm.write(result.markdown_header())
            tqdm.write(result.markdown_row())
    rows.close()
    if args.optimal_agent.lower() != "none":
        optimal_gaps(written, layout.trees, args.optimal_agent, args.reference_opener.lower())
    if args.prune:
        for stale in set(layout.results.glob("*.json")) - set(written):
            print(f"pruned {stale} (no such row this run)")
            stale.unlink()
    plot(layout)
    print(f"wrote {render(layout)} in {time.perf_counter() - start:.1f} s")
    return 0


def _selected(models: list[str], only: list[str]) -> list[tuple[str, Any]]:
    """The bench's jobs (with ``models``, SB3 zips) whose label holds one of ``only`` (any text,
    any case; all of them without)."""
    texts = [text.lower() for text in only]
    selected = [
        (name, run)
        for name, run in jobs(models)
        if not texts or any(t in run.label.lower() for t in texts)
    ]
    if not selected:
        given = " ".join(f"--only {text!r}" for text in only)
        raise ValueError(f"{given} matches no agent; run without --only to see every row")
    return selected


def _rows_of(
    name: str, run: Any, policy: Any, device: Any, warmed: list[bool]
) -> Iterator[tuple[str, EvalResult]]:
    """The rows (label, result) one job's agent plays (a row for each of its settings, or one on
    lists of its own), each evaluated and labelled with where it comes from; a row that fails is
    skipped with a line saying why, and the rest go on."""
    info = getattr(policy, "checkpoint", None)
    boards = run.env.get("boards", 1)
    # a row on lists of its own (today's game): the agent as it is, one row
    fixed = "answers" in run.env
    for label, play, lists in (
        [(run.label, policy, {})] if fixed else settings(run.label, policy, info, boards)
    ):
        game = {**lists, **run.env}
        try:
            _warm_up(play, device, game, warmed)  # the start-up is no row's eval time
            result = evaluate(play, agent=label, device=device, progress=None, **game)
        except Exception as exc:  # one failing agent costs its row, not the table
            tqdm.write(f"skipped {label}: {type(exc).__name__}: {exc}")
            continue
        result.extra.update(provenance(playing(play, game.get("hard_mode", False), boards)))
        if "training" in Path(str(run.options.get("checkpoint", ""))).parent.parts[-1:]:
            # its weights are the repository's, not the wheel's
            result.extra["repository_only"] = True
        if run.section:
            result.extra["section"] = run.section
        yield label, result


def _warm_up(play: Any, device: Any, game: dict[str, Any], warmed: list[bool]) -> None:
    """Once a run (``warmed`` empty), a one-board row's policy on 32 of its answers, untimed: what a
    process does once (the tables and kernels loaded, torch's first calls) was counted in the first
    row's eval time (a2c's 12 s cold against 2 s warm)."""
    if warmed or game.get("boards", 1) != 1:
        return
    config = WordleConfig.build(**game)
    evaluate(
        play, device=device, progress=False, **{**game, "answers": config.vocabulary.answers[:32]}
    )
    warmed.append(True)


def _env_throughput(parser: argparse.ArgumentParser, args: BenchOptions) -> int:
    """``--env``: the vector env's throughput on the device, printed as a table and saved as
    JSON."""
    from wordle_gym.harness import throughput

    device = resolve_device(args.device)
    try:
        sizes = (
            throughput.default_sizes(device)
            if args.sizes is None
            else [int(v) for v in args.sizes.split(",")]
        )
    except ValueError:
        parser.error(f"--sizes must be whole numbers separated by commas; got {args.sizes!r}")
    if any(n < 1 for n in sizes) or not 0 < args.seconds <= 3600:
        parser.error(
            f"--sizes must be positive and --seconds in (0, 3600]; got {args.sizes!r} and "
            f"{args.seconds}"
        )
    target = Layout.under(Path(args.out)).results.parent / f"vector_env_{device.type}.json"
    check_writable(target.parent, folder=True)
    rows = throughput.measure(device, sizes, args.seconds)
    machine = throughput.describe(device)
    print(
        "Vector env, real game (12972 guesses), random actions, env-steps/s (ms per batched "
        f"step); {machine}:"
    )
    print(throughput.table(rows))
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, json.dumps({"machine": machine, "rows": rows}, indent=1) + "\n")
    print(f"wrote {target}")
    return 0


def plot(layout: Layout) -> None:
    """The guess-count distribution of every real-game row, and the multi-board rows' wins and means
    (PNG)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(
            "matplotlib is not installed (pip install matplotlib, or the package's [plot] "
            "extra): no plots this time"
        )
        return
    rows = [read_row(p) for p in layout.results.glob("*.json")]
    # training stages are not Wordle results
    results = sorted((r for r in rows if real_game(r)), key=table_order)
    multi = sorted(
        (r for r in rows if r.get("boards", 1) > 1), key=lambda r: (r["boards"], r["agent"])
    )
    if results or multi:
        layout.plots.mkdir(parents=True, exist_ok=True)
    if results:
        _distribution(plt, results, layout.plots / "guess_distribution.png")
    if multi:
        _multi_board(plt, multi, layout.plots / "multi_board.png")


WIDTH_IN, DPI = 7.2, 100
"""The plots' width: 720 px, under the documentation's column (about 736 px), so that they are shown
at their size and their labels can be read (a 1320 px plot was shown at 56 %: labels about 8 px)."""


def _names(results: list[dict[str, Any]]) -> list[str]:
    """The rows' names as a plot's labels: the table's markdown dropped, wrapped to two short lines
    (the bars keep the width of the page)."""
    import textwrap

    return ["\n".join(textwrap.wrap(r["agent"].replace("`", ""), 34)) for r in results]


def _save(plt: Any, fig: Any, path: Path) -> None:
    atomic_write(path, lambda handle: fig.savefig(handle, format="png", dpi=DPI))
    plt.close(fig)


def _distribution(plt: Any, results: list[dict[str, Any]], path: Path) -> None:
    """One bar per row: the share of games won in 1, 2, ... guesses and lost; its mean on the
    right."""
    turns = max(r["max_guesses"] for r in results)
    labels = [*(str(k) for k in range(1, turns + 1)), "X"]
    names = _names(results)
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 0.42 * len(results) + 2.2))
    left = [0.0] * len(results)
    # dark (few guesses) to light (many): every share visible on white
    shades = plt.get_cmap("YlGnBu_r")
    for k, label in enumerate(labels):
        # The share won in k guesses (a row with fewer turns has none); the last column is the share
        # lost.
        shares = [
            100
            * (
                r["histogram"][-1]
                if label == "X"
                else r["histogram"][k]
                if k < r["max_guesses"]
                else 0
            )
            / r["games"]
            for r in results
        ]
        color = "#c0392b" if label == "X" else shades(0.05 + 0.8 * k / max(1, turns - 1))
        ax.barh(
            names, shares, left=left, label=label, color=color, edgecolor="white", linewidth=0.3
        )
        left = [a + b for a, b in zip(left, shares, strict=True)]
    hard = [i for i, r in enumerate(results) if r["hard_mode"]]
    if hard and len(hard) < len(results):  # hard-mode rows come last, below a line
        ax.axhline(hard[0] - 0.5, color="black", linewidth=0.8)
    ax.tick_params(axis="y", labelsize=8)
    ax.set_ylim(len(results) - 0.5, -0.5)  # the table's order, top to bottom
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the games won in k guesses (X: lost)")
    # each row's mean guesses on wins (and its win rate where it lost any) at its right
    means = ax.twinx()
    means.set_ylim(ax.get_ylim())
    means.set_yticks(range(len(results)))
    means.set_yticklabels(
        [
            f"{r['derived']['mean_guesses_wins']:.3f}"
            + (
                ""
                if r["derived"]["win_rate"] >= 1
                else f" ({100 * r['derived']['win_rate']:.2f} %)"  # 0.04 %, not 0.0 %
            )
            for r in results
        ]
    )
    means.set_ylabel("mean guesses on wins (win % below 100)")
    ax.set_title("Guesses needed, the real game\n(normal mode, then hard mode)", pad=30)
    ax.legend(
        ncol=len(labels),
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        frameon=False,
        fontsize=8,
        handlelength=1.2,
        columnspacing=0.8,
    )
    fig.tight_layout()
    _save(plt, fig, path)


def _multi_board(plt: Any, results: list[dict[str, Any]], path: Path) -> None:
    """The multi-board rows: win % and mean guesses on wins, one bar each, grouped by board
    count."""
    names = _names(results)
    fig, (wins, means) = plt.subplots(
        1, 2, figsize=(WIDTH_IN, 0.42 * len(results) + 1.9), sharey=True
    )
    shades = plt.get_cmap("tab10")
    by_boards = {k: shades(i % 10) for i, k in enumerate(sorted({r["boards"] for r in results}))}
    color = [by_boards[r["boards"]] for r in results]
    rate = [100 * r["derived"]["win_rate"] for r in results]
    mean = [r["derived"]["mean_guesses_wins"] for r in results]
    wins.barh(names, rate, color=color)
    means.barh(names, mean, color=color)
    wins.tick_params(axis="y", labelsize=8)
    wins.set_ylim(len(results) - 0.5, -0.5)
    wins.set_xlim(0, 100)
    wins.set_xlabel("win %")
    means.set_xlim(0, max((m for m in mean if m == m), default=1) * 1.05)
    means.set_xlabel("mean guesses on wins")
    for axis, values, fmt in ((wins, rate, "{:.1f}"), (means, mean, "{:.2f}")):
        edge = axis.get_xlim()[1]
        for i, value in enumerate(values):
            if value != value:  # (no wins: no mean)
                continue
            # inside the end of a long bar, after a short one: never past the panel's frame
            inside = value > 0.5 * edge
            style = {"ha": "right", "color": "white"} if inside else {"ha": "left"}
            axis.text(value, i, f" {fmt.format(value)} ", va="center", fontsize=8, **style)
    fig.suptitle("Multi-board Wordle: K boards share every guess\n(K + 5 guesses; colour: K)")
    fig.tight_layout()
    _save(plt, fig, path)
