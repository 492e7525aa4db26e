"""The learning sections of BENCHMARKS.md (the published agents cited, training, learning curves,
ablations, policy iteration, the training profile), rendered from their JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wordle_gym.utils.files import atomic_write

HERE = Path(__file__).resolve().parent


CITED_AGENTS = [
    ("Greedy max-entropy, opener SALET (seed 002)", "100", "3.4423", "5"),
    (
        "A2C, word one-hot policy, full curriculum, ~17.5 h on a GTX 1070 (seed 000)",
        "99.78",
        "3.752",
        "X",
    ),
    ("A2C (Andrew Ho)", "99.5", "3.9", "X"),
    ("DQN, letter-decomposed Q, prioritized replay (seed 001)", "99.96 (2314/2315)", "3.6959", "X"),
    ("Max-entropy baseline of seed 001", "100", "3.6367", ""),
    ("Entropy-guided PPO (Sung, Hersch, Kant)", "", "3.51", ""),
    (
        "WordleBot (RylieWeaver): PPO, information-gain reward, hand rules, ~30 M games",
        "100",
        "3.53",
        "",
    ),
]


def cited_section() -> list[str]:
    """Published figures on the real game, beside the measured table (not measured here)."""
    lines = [
        "### Published figures (cited, not measured here)",
        "",
        "On 2315 answers with the allowed guesses, as their authors report them.",
        "",
        "| source | win % | mean guesses (wins) | max |",
        "| --- | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {name} (cited) | {win} | {mean} | {worst} |" for name, win, mean, worst in CITED_AGENTS
    ]
    return [*lines, ""]


LOGS = HERE.parent / "agents" / "checkpoints" / "training"


def learning_curves(logs: list[Path], out: Path) -> Path | None:
    """The shipped checkpoints' training logs (``*.metrics.jsonl``: one greedy evaluation per line)
    as win rate and mean guesses by update, and win rate by wall time; None without matplotlib or
    logs."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    if not logs:
        return None
    # one column: the page's width
    fig, (ax_win, ax_mean, ax_time) = plt.subplots(3, 1, figsize=(7.2, 12))
    for log in logs:
        _plot_log(log, ax_win, ax_mean, ax_time)
    ax_win.set(xlabel="update", ylabel="win % on the stage's answers", title="win rate by update")
    ax_mean.set(xlabel="update", ylabel="mean guesses (wins)", title="mean guesses by update")
    ax_time.set(
        xlabel="training wall time (h)",
        ylabel="win % on the stage's answers",
        title="win rate by wall time",
    )
    handles, labels = ax_win.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, lambda handle: fig.savefig(handle, format="png", dpi=100))
    plt.close(fig)
    return out


def _plot_log(log: Path, ax_win: Any, ax_mean: Any, ax_time: Any) -> None:
    """One training log's curves, a line a stage: win rate and mean guesses by update, win rate
    by wall time."""
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    for stage in dict.fromkeys(r["stage"] for r in rows):
        part = [r for r in rows if r["stage"] == stage]
        # Logs written before the greedy figures were kept apart hold only the training batch's.
        key, what = (
            ("win_rate", "greedy") if "win_rate" in part[0] else ("train_win_rate", "sampled")
        )
        label = f"{log.name.split('.')[0]} stage {stage} ({what})"
        wins = [100 * r[key] for r in part]
        ax_win.plot([r["step"] for r in part], wins, label=label)
        means = [r[key.replace("win_rate", "mean_guesses")] for r in part]
        ax_mean.plot([r["step"] for r in part], means, label=label)
        ax_time.plot([r["elapsed_s"] / 3600 for r in part], wins, label=label)


def learning_section(
    logs: Path = LOGS, out: Path = HERE / "plots" / "learning_curves.png"
) -> list[str]:
    image = learning_curves(sorted(logs.glob("*.metrics.jsonl")), out)
    if image is None:
        return []
    return [
        "### Learning curves of the shipped A2C and DQN checkpoints",
        "",
        "From their training logs (`agents/checkpoints/training/*.metrics.jsonl`); drawn by "
        "`python -m benchmarks.make_table`.",
        "",
        f"![Learning curves](benchmarks/plots/{image.name})",
        "",
    ]


def training_section(result: dict) -> list[str]:
    before = result.get("before")
    lines = [
        f"### Training throughput and shipped checkpoints: {result['device']} ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `python -m benchmarks.training --device "
        f"{result['device']}"
        + (" --before PATH`" if before else "`")
        + ". Default settings: A2C (seed 000's) 1024 games per update; DQN 256 games per env step, "
        "2 updates "
        "of 512 transitions (width 1024). Stage full: 2315 answers, 12972 guesses. Each row timed "
        "in a fresh "
        "process"
        + (
            f", alternating with commit `{before}` (the same settings on the older code)."
            if before
            else "."
        ),
        "",
    ]
    if before:
        lines += [
            f"| agent | stage | this checkout: updates/s | items/s | `{before}`: updates/s | "
            "items/s | speed-up |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
        ]
    else:
        lines += ["| agent | stage | updates/s | items/s |", "| --- | --- | ---: | ---: |"]
    for row in result["throughput"]:
        now = row["this checkout"]
        cells = f"| {row['agent'].upper()} | {row['stage']} | {now['updates_per_s']:.2f} "
        cells += f"| {now['per_s']:,.0f} {row['unit']} |"
        if before:
            old = row["before"]
            cells += (
                f" {old['updates_per_s']:.2f} | {old['per_s']:,.0f} | "
                f"{now['per_s'] / old['per_s']:.2f}x |"
            )
        lines.append(cells)
    if result["checkpoints"]:
        note = (
            "Shipped checkpoints, evaluated greedily on the word lists they were trained on "
            "(training: wall time)."
        )
        if result.get("checkpoints_date"):
            note += f" Evaluated again on {result['checkpoints_date']} (`--checkpoints-only`)."
        lines += ["", note, ""]
        header = result["checkpoints"][0]
        lines += [EVAL_HEADER.format(x=header["max_guesses"] + 1, t=header["max_guesses"])]
        for r in result["checkpoints"]:
            hours = (r["extra"].get("training_s") or 0) / 3600
            lines.append(eval_row(r) + f" {hours:.2f} h |")
    return [*lines, ""]


EVAL_HEADER = (
    "| agent | games | win % | mean guesses (wins) | mean (loss = {x}) | histogram 1..{t} + X | "
    "training |\n| --- | ---: | ---: | ---: | ---: | --- | ---: |"
)


def eval_row(r: dict) -> str:
    d = r["derived"]
    hist = " ".join(map(str, r["histogram"]))
    return (
        f"| {r['agent']} | {r['games']} | {100 * d['win_rate']:.2f} | {d['mean_guesses_wins']:.4f} "
        f"| {d['mean_guesses_all']:.4f} | {hist} |"
    )


def replay_section(result: dict) -> list[str]:
    lines = [
        f"### Prioritized replay: {result['device']} ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `python -m benchmarks.replay --device "
        f"{result['device']}`. One round = sample {result['batch']} items in proportion to "
        "p^alpha, then update their priorities.",
        "",
        "| capacity | sum tree (rounds/s) | plain O(n) sampler (rounds/s) | speed-up |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for run in result["replay"]:
        ratio = run["sum_tree_per_s"] / run["linear_per_s"]
        lines.append(
            f"| {run['capacity']:,} | {run['sum_tree_per_s']:,.0f} | {run['linear_per_s']:,.0f} | "
            f"{ratio:.1f}x |"
        )
    return [*lines, ""]


def dqn_ablation_section(result: dict) -> list[str]:
    lines = [
        f"### DQN ablation, 100-word stage: {result['device']} ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `python -m benchmarks.dqn_ablation --device "
        f"{result['device']}`. One setting changed at a time from seed 001's settings (the DQN "
        f"defaults before this ablation; the defaults now are its last row); {result['updates']:,} "
        "updates each, greedy evaluation on the 100 answers every 250 updates (`--only NAME` "
        "reruns one row).",
        "",
        "| setting | updates to 95 % | best win % | final win % | wall time | measured |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for run in result["runs"]:
        reached = f"{run['updates_to_95']:,}" if run["updates_to_95"] else "not reached"
        lines.append(
            f"| {run['setting']} | {reached} | {100 * run['best_win_rate']:.1f} "
            f"| {100 * run['final_win_rate']:.1f} | {run['seconds']:.0f} s "
            f"| {run.get('date', result['date'])} |"
        )
    return [*lines, ""]


def a2c_ablation_section(result: dict) -> list[str]:
    lines = [
        f"### A2C ablation on the real game: {result['device']} ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `python -m benchmarks.a2c_ablation` (reads the "
        "runs' logs, kept in `benchmarks/results/a2c_ablation/`; `--collect NAME=RUN_DIR` adds "
        "one). One change at a time, greedy evaluation on all 2315 answers with the 12972 guesses "
        "(mean guesses over the wins). The same budget is the same number of games: 2.05 M (1000 "
        "updates of 2048 games, or 500 of 4096). Wall times are upper bounds: these runs shared "
        "the 2-core CPU with tests and benchmarks (about 1.4 s per update alone).",
        "",
        "| change | from | greedy win % / mean guesses, by games played (0: the weights it starts "
        "from) | wall time |",
        "| --- | --- | --- | ---: |",
    ]
    for run in result["runs"]:
        points = run["curve"]
        curve = "; ".join(
            f"{p['games'] / 1e6:.2f} M: {100 * p['win_rate']:.2f} / {p['mean_guesses']:.4f}"
            for p in _thin(points, 4)
        )
        last = points[-1]
        lines.append(
            f"| {run['change']} | {run['start']} | {curve} | {last['seconds'] / 3600:.2f} h |"
        )
    lines += ["", "The command of each row:", ""]
    lines += [f"- {run['change']}: `{run['command']}`" for run in result["runs"]]
    lines += ["", "![A2C ablation](benchmarks/plots/a2c_ablation.png)", ""]
    for run in result.get("scratch", []):
        lines += a2c_scratch_lines(run)
    return lines


def _thin(points: list, spans: int) -> list:
    """At most ``spans + 1`` of ``points``: the first, evenly spaced ones, and the last."""
    step = max(1, -(-(len(points) - 1) // spans))
    return points[::step] if (len(points) - 1) % step == 0 else [*points[::step], points[-1]]


def a2c_scratch_lines(run: dict) -> list[str]:
    """A from-scratch run of the ``a2c`` recipe with one change, beside the shipped run at the same
    updates."""

    def figures(point: dict) -> str:
        greedy = (
            ""
            if point["win_rate"] is None
            else (f"{100 * point['win_rate']:.2f} / {point['mean_guesses']:.4f}; ")
        )
        sampled = "-" if point["train_win_rate"] is None else f"{100 * point['train_win_rate']:.1f}"
        return f"{greedy}sampled {sampled}"

    lines = [
        f"From scratch, {run['change']}: the `a2c` recipe run whole with the change at every "
        "stage, beside the shipped run's own log at the same update of the same stage (greedy win "
        "% / mean guesses on the stage's answers, where evaluated; sampled: the training games' "
        f"win %). Command: `{run['command']}` (`--max-minutes N`: the same command continues).",
        "",
        "| recipe stage | vocabulary | update | the shipped run | this run | wall time (its "
        "stage's command) |",
        "| --- | --- | ---: | --- | --- | ---: |",
    ]
    stages: dict[tuple[str, str], list[dict]] = {}
    for point in run["points"]:
        stages.setdefault((point["recipe_stage"], point["stage"]), []).append(point)
    for points in stages.values():
        for point in _thin(points, 5):
            lines.append(
                f"| {point['recipe_stage']} | {point['stage']} | {point['update']} | "
                f"{figures(point['shipped'])} "
                f"| {figures(point['run'])} | {point['run']['elapsed_s'] / 3600:.2f} h |"
            )
    return [*lines, ""]


def improve_section(result: dict) -> list[str]:
    lines = [
        f"### Policy iteration by the network's own rollouts, real game: {result['device']} "
        f"({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `python -m benchmarks.improve` (reads each "
        "shipped checkpoint's own record). Each iteration the network plays all 2315 answers "
        "greedily (12972 guesses offered); at every position it reaches, its top guesses are each "
        "played and the game finished by its own greedy play on every answer still possible; the "
        "best by the env's reward (-1 a guess, -5 for a loss) becomes the label, and the network "
        "is trained on the labels of the improved policy. No solver, no teacher. Times are wall "
        "time on the machine each run names (this 2-core CPU, shared at times with tests, unless "
        "it says otherwise).",
        "",
    ]
    for run in result["runs"]:
        lines += [
            f"`{run['file']}` ({run['kind'].upper()}): {run['curriculum']}. Command: "
            f"`{run['command']}`."
            + (f" Trained on: {run['machine']}." if run.get("machine") else ""),
            "",
            "| iteration | the network: win % / mean guesses (wins) | positions changed | guesses "
            "tried | time so far |",
            "| ---: | --- | ---: | --- | ---: |",
        ]
        for h in run["history"]:
            tried = f"top {h['top']}" + (
                f", {h['deep_top']} one deeper + {h['deep_random']} random where many answers"
                if h["deep_top"]
                else ""
            )
            if h.get("screen"):
                tried += f", the critic's best {h['screen']}"
            if h.get("explore"):
                tried += (
                    f"; {h['explore']} other guesses explored ({h['explored']} positions "
                    "after them labelled)"
                )
            if h.get("explore_root"):
                tried += f"; {h['explore_root']} other first guesses"
            lines.append(
                f"| {h['iteration']} | {100 * h['win_rate']:.2f} / {h['mean_guesses']:.4f} | "
                f"{h['changed']} | {tried} | {h['seconds'] / 60:.0f} min |"
            )
        figures = run["figures"]
        kept = (
            "kept (the repository's, not the wheel's)"
            if run["file"].startswith("training/")
            else "shipped"
        )
        lines += [
            f"| {kept} | **{100 * figures['win_rate']:.2f} / {figures['mean_guesses']:.4f}** "
            "| | | |",
            "",
        ]
    if result.get("off_path"):
        lines += [
            "Off the network's own path (the same command; `benchmarks/improve.py:off_path`): "
            "after the network's own opener, the optimum's second guess at every position it leads "
            "to, then the network's own greedy play, on all 2315 answers. The oracle only measures "
            "here. A network that plays well only where its own guesses lead cannot value another "
            "guess by rollouts of its own play.",
            "",
            "| network | opener | its own play | optimum's second guess, then its play | optimum "
            "after its opener |",
            "| --- | --- | ---: | ---: | ---: |",
        ]
        lines += [
            f"| `{r['file']}` | {r['opener'].upper()} | {r['own']:.4f} | {r['off_path']:.4f} | "
            f"{r['optimum_after_opener']:.4f} |"
            for r in result["off_path"]
        ]
        lines.append("")
    return lines


def profile_section(result: dict) -> list[str]:
    a2c, dqn = result["a2c"], result["dqn"]
    lines = [
        f"### Where a training update's time goes (full vocabulary): {result['device']} "
        f"({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `python -m benchmarks.profile_training --device "
        f"{result['device']}` "
        "(torch profiler, one update after a warm-up; 2315 answers, 12972 allowed guesses).",
        f"A2C update, {a2c['games']} games to the end: {a2c['wall_s']:.2f} s, {a2c['ops']:,} "
        f"operator calls. DQN step, {dqn['num_games']} games and {dqn['updates_per_step']} updates "
        f"of batch {dqn['batch_size']}: {dqn['wall_s']:.2f} s, {dqn['ops']:,} operator calls.",
        "",
        "| agent | operator | calls | self time | share |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for name, run in (("A2C", a2c), ("DQN", dqn)):
        lines += [
            f"| {name} | `{op['op']}` | {op['calls']:,} | {op['self_ms']:.1f} ms | "
            f"{100 * op['share']:.1f} % |"
            for op in run["top"][:8]
        ]
    return [*lines, ""]
