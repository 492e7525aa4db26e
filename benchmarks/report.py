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

from wordle_gym.core.config import BOARD_NAMES
from wordle_gym.utils.files import atomic_write, atomic_write_text

HERE = Path(__file__).resolve().parent


def env_throughput_command(result: dict) -> str:
    """The command a throughput result was measured with (older results name none: the default)."""
    return result.get("command", "python -m benchmarks.env_throughput --device " + result["device"])


def _si(x: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.2f} {unit}"
    return f"{x:.0f}"


def env_section(result: dict) -> list[str]:
    table = result["pattern_table"]
    lines = [
        f"### Environment throughput: {result['device']} ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `{env_throughput_command(result)}`.",
        "",
        "| what | figure |",
        "| --- | --- |",
        f"| pattern table {table['shape'][0]} x {table['shape'][1]}, build | {table['best_s']:.2f} "
        f"s (first call {table['first_s']:.2f} s) |",
        f"| single env `WordleEnv` (random actions) | {_si(result['single_env_steps_per_s'])} "
        "steps/s |",
        f"| plain-Python single-game env (baseline in the benchmark) | "
        f"{_si(result['plain_python_steps_per_s'])} steps/s |",
        "",
        *_side_by_side(result.get("side_by_side")),
        "Vector env `WordleVectorEnv`, default observation (319 int8), random actions, env-steps "
        "per second (ms per batched step). Mask `all` costs nothing (an expanded view); "
        "`candidates` and `hard` compute a (num_envs x 12972) mask every step.",
        "",
    ]
    masks = ["all", "candidates", "hard"]
    lines += [
        "| num_envs | " + " | ".join(f"mask `{m}`" for m in masks) + " |",
        "| ---: |" + " ---: |" * len(masks),
    ]
    by_size: dict[int, dict[str, dict]] = {}
    for run in result["vector"]:
        by_size.setdefault(run["num_envs"], {})[run["mask"]] = run
    for n, runs in sorted(by_size.items()):
        cells = [
            f"{_si(runs[m]['env_steps_per_s'])} ({runs[m]['ms_per_step']:.2f} ms)"
            if m in runs
            else "n/a"
            for m in masks
        ]
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    if result.get("profile"):
        profile = result["profile"]
        # older results list kernels too
        operators = [op for op in profile["ops"] if op["name"].startswith("aten::")]
        lines += [
            "",
            f"Where a step's time goes, mask `all`, {profile['num_envs']:,} games (torch's "
            f"profiler over {profile['steps']} steps; {profile['calls_per_step']:.0f} operator "
            f"calls a step; self time on the {'GPU' if profile['time'] == 'device' else 'CPU'}, ms "
            "per step"
            + (
                "; torch's operators only: from 512 games the CPU step's compiled kernels do most "
                "of the work, timed in the next table)"
                if profile["time"] != "device"
                else ")"
            )
            + ":",
            "",
            "| operator | calls a step | ms a step |",
            "| --- | ---: | ---: |",
            *(
                f"| `{op['name']}` | {op['calls_per_step']:g} | {op['self_ms_per_step']:.3f} |"
                for op in operators[:10]
            ),
        ]
    if result.get("mask_breakdown"):
        lines += [
            "",
            "Where a step's time goes on the CPU, 16384 games (ms per step; each compiled kernel "
            "of `wordle_gym/core/_kernels.py` timed around its call, the rest is the step's torch "
            "work):",
            "",
            "| mask | step | kernels | the rest |",
            "| --- | ---: | --- | ---: |",
        ]
        for row in result["mask_breakdown"]:
            spent = row["kernels_ms"]
            named = ", ".join(f"`{name}` {ms:.1f}" for name, ms in spent.items())
            lines.append(
                f"| {row['mask']} | {row['ms_per_step']:.1f} | {named} | "
                f"{row['ms_per_step'] - sum(spent.values()):.1f} |"
            )
    if result.get("sync_vector"):
        lines += [
            "",
            "A few games on the CPU: Gymnasium's `SyncVectorEnv` of the single env "
            '(`gym.make_vec("Wordle-v0", num_envs=n, vectorization_mode="sync")`, numpy) beside '
            "the torch "
            "vector env above, mask `all`:",
            "",
            "| num_envs | `SyncVectorEnv` of `WordleEnv` | `WordleVectorEnv` |",
            "| ---: | ---: | ---: |",
        ]
        for run in result["sync_vector"]:
            torch_run = by_size.get(run["num_envs"], {}).get("all")
            other = (
                (f"{_si(torch_run['env_steps_per_s'])} ({torch_run['ms_per_step']:.2f} ms)")
                if torch_run
                else "n/a"
            )
            lines.append(
                f"| {run['num_envs']:,} | {_si(run['env_steps_per_s'])} ({run['ms_per_step']:.2f} "
                f"ms) | {other} |"
            )
    return [*lines, ""]


def cuda_graph_section(result: dict) -> list[str]:
    """The eager step against one step captured as a CUDA graph (``benchmarks/cuda_graph.py``)."""
    lines = [
        f"### The vector env's step as a CUDA graph: {result['device']} ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `{result['command']}`. Mask `all`, a fixed action "
        "tensor; ms per batched step (env-steps per second). `check_actions` (the default) reads "
        "one value back from the device each step to refuse an out-of-range action with a clear "
        "error; without it the step makes no synchronising call, and captures as a CUDA graph. "
        "The graph replays its captured action: an upper bound for a fused step.",
        "",
        "| num_envs | eager | eager, `check_actions=False` | CUDA graph, replayed |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for row in result["rows"]:
        n = row["num_envs"]
        cells = [row["eager_check_actions_true"], row["eager_check_actions_false"], row["graph"]]
        lines.append(
            f"| {n:,} | " + " | ".join(f"{ms:.3f} ms ({_si(n / ms * 1e3)})" for ms in cells) + " |"
        )
    if any(row["syncs_without_check"] for row in result["rows"]):
        lines += ["", "**A synchronising call was found in the step without `check_actions`.**"]
    return [*lines, ""]


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


def _side_by_side(result: dict | None) -> list[str]:
    """The single env and SB3 PPO on it, against an older checkout and gym-wordle, in one run."""
    if not result:
        return []
    before = f"before (commit {result['before']})" if result.get("before") else "before"
    names = {
        "this checkout": "this checkout",
        "before": before,
        "gym-wordle 0.1.3": "gym-wordle 0.1.3 (gym 0.19; the fastest Wordle env on PyPI, whose "
        "rules are wrong)",
    }
    lines = [
        "Side by side in one run, each in a fresh process, alternating, best of three: "
        '`gym.make("Wordle-v0")` '
        f"with random actions over the 12972 words ({result['steps']:,} steps), default "
        "observation, mask `all`, "
        "info included.",
        "",
        "| single env | steps/s |",
        "| --- | ---: |",
        *(f"| {names.get(k, k)} | {_si(v)} |" for k, v in result["single_env"].items()),
        "",
        f"Stable-Baselines3 on `DummyVecEnv` of 8 such envs ({result['sb3_ppo_steps']:,} steps; "
        "PPO `MlpPolicy`, n_steps 128, batch 256, 1 epoch, one torch thread):",
        "",
        "| checkout | DummyVecEnv(8) stepping, steps/s | PPO learning, steps/s |",
        "| --- | ---: | ---: |",
        *(
            f"| {names.get(k, k)} | {_si(v['dummy_vec_env_steps_per_s'])} | "
            f"{_si(v['ppo_steps_per_s'])} |"
            for k, v in result["sb3_ppo"].items()
        ),
        "",
    ]
    vector = result.get("vector_ms_per_step")
    passive_name = "this checkout, OMP_WAIT_POLICY=PASSIVE"
    passive = (
        (" `OMP_WAIT_POLICY=PASSIVE` |", " ---: |")
        if vector and passive_name in vector
        else ("", "")
    )
    if vector:
        lines += [
            "The torch vector env `WordleVectorEnv` the same way (each configuration in a fresh "
            "process, "
            "alternating, best of three; random actions): ms per batched step and env-steps per "
            "second. At a "
            "few games the fixed cost of each step's torch calls dominates; at 16,384 the masks' "
            "memory. "
            '`mask_dtype="packed"` rows: the masks packed 8 actions to a byte (the older checkout: '
            "its int8 masks).",
            "",
            f"| num_envs | mask | {before} | this checkout | speed-up |{passive[0]}",
            f"| ---: | --- | ---: | ---: | ---: |{passive[1]}",
        ]
        for key, now in vector["this checkout"].items():
            # older results: mask "all" only
            n, mask, *rest = key.split() if " " in key else (key, "all")
            old = vector["before"][key]
            rate = int(n) * 1e3
            boards = int(rest[0]) if rest else 1
            game = f", {boards} boards (game-steps)" if boards > 1 else ""
            game += ', `mask_dtype="packed"`' if rest[1:] == ["packed"] else ""
            quiet = vector.get(passive_name, {}).get(key)
            lines.append(
                f"| {int(n):,} | `{mask}`{game} | {old:.3f} ms ({_si(rate / old)}/s) | {now:.3f} "
                f"ms ({_si(rate / now)}/s) | {old / now:.2f}x |"
                + (
                    ""
                    if not passive[0]
                    else " |"
                    if quiet is None
                    else f" {quiet:.3f} ms ({_si(rate / quiet)}/s) |"
                )
            )
        if passive[0]:
            lines += [
                "",
                "The last column (16,384 games) runs this checkout again with "
                "`OMP_WAIT_POLICY=PASSIVE` in the environment (set before Python starts): torch's "
                "OpenMP threads then sleep when idle instead of spinning for a while after each "
                "parallel operation, which on a small CPU takes the core that a big step's "
                "compiled kernels split their rows onto. It changes nothing else (the rules, the "
                "results). A big CPU batch's reset and step run their torch calls on one thread "
                "(the kernels still split over torch's threads), so no worker is left spinning: "
                "the two columns should agree.",
            ]
        lines.append("")
    return lines


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


CITED_SOLVERS = [
    ("greedy max-entropy, opener SALET (seed 002)", "3.4423", "5"),
    ("greedy max-entropy, opener TARES (seed 002)", "3.4743", "5"),
    ("greedy max-entropy, opener SOARE (seed 002)", "3.4821", "5"),
]


PHASES = ("imports", "lists", "setup", "search", "extract", "replay")


def solver_section(result: dict) -> list[str]:
    lines = [
        f"### Solvers: greedy one-step rules on {result['device']} ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `python -m benchmarks.solvers --device "
        f"{result['device']}`. All 2315 original answers, 12972 allowed guesses, one batched "
        "evaluation each through the harness (`wordle-gym eval --score RULE --opener WORD`). "
        "Rules: `entropy` (seed 002), `expected` remaining candidates (seed 004), `minimax` worst "
        "bucket, `splits` distinct patterns; a candidate is preferred within 0.001 of the best "
        "score.",
        "",
        "Cold start, a fresh process (`wordle-gym eval`) on a fresh machine (no pattern table on "
        "disk): the evaluation itself (pattern table, opener and 2315 games) and the whole process "
        "(Python and torch start-up included):",
        "",
        "| opener | evaluation | whole process | mean guesses |",
        "| --- | ---: | ---: | ---: |",
    ]
    for run in result["cold_start"]:
        lines.append(
            f"| {run['opener']} | {run['eval_s']:.2f} s | {run['process_s']:.2f} s | "
            f"{run['mean']:.4f} |"
        )
    lines += [
        "",
        "| rule | opener | hard mode | win % | mean guesses (wins) | max | histogram 1..6 + X | "
        "eval time (warm) |",
        "| --- | --- | --- | ---: | ---: | ---: | --- | ---: |",
    ]
    for run in result["runs"]:
        r = run["result"]
        opener = run["opener"] + ("" if run["fixed_opener"] else " (computed)")
        hist = " ".join(map(str, r["histogram"]))
        worst = "X" if r["histogram"][-1] else str(r["derived"]["worst"])
        hard = "yes" if run["hard_mode"] else "no"
        lines.append(
            f"| {run['score']} | {opener} | {hard} | {100 * r['derived']['win_rate']:.2f} "
            f"| {r['derived']['mean_guesses_wins']:.4f} | {worst} | {hist} | "
            f"{r['wall_time_s']:.2f} s |"
        )
    lines += [
        "",
        "Cited for comparison (published figures, not measured here):",
        "",
        "| source | mean guesses | max |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {name} (cited) | {mean} | {worst} |" for name, mean, worst in CITED_SOLVERS]
    return [*lines, ""]


def exact_section(result: dict) -> list[str]:
    before = f"before ({result['before']})" if result.get("before") else None
    names = [
        "this checkout",
        *(["before"] if before else []),
        *(["C++"] if result.get("cpp") else []),
    ]
    lines = [
        "",
        f"### The exact solver beside alex1770's C++: {result['device']} ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `python -m benchmarks.exact --cpp wordle --before "
        "PATH`: `python -m wordle_agents.commands.optimal salet [--hard]` (prove the optimal tree "
        "from SALET, then replay every answer) in a fresh process, this checkout and the code "
        "before it, and alex1770/wordle's C++ (`wordle -w salet -a allowed -h answers [-H]`, "
        "built with its Makefile, single-threaded) on the same lists, alternating, best of "
        f"{result['rounds']}. Ours searches the first guess's buckets on both cores; the cold "
        "column is ours on a fresh machine (numba compiles the kernel, the pattern table is "
        "built).",
        "",
        "| mode | " + " | ".join(before if n == "before" else n for n in names) + " | ours / C++ | "
        "nodes searched "
        "(ours" + (", before" if before else "") + ") | cold |",
        "| --- | " + " | ".join("---:" for _ in names) + " | ---: | ---: | ---: |",
    ]
    for row in result["modes"]:
        best = row["best_s"]
        ratio = f"{best['this checkout'] / best['C++']:.2f}x" if "C++" in best else ""
        nodes = ", ".join(f"{row['nodes'][n]:,}" for n in names if n in row["nodes"])
        cells = " | ".join(f"{best[n]:.2f} s" for n in names)
        mode = "hard" if row["hard_mode"] else "normal"
        lines.append(f"| {mode} | {cells} | {ratio} | {nodes} | {row['cold_process_s']:.1f} s |")
    lines += [
        "",
        "Where this checkout's process spends its time: interpreter start-up and exit (the "
        "process's time less the script's; the command exits without the interpreter's teardown), "
        "imports (numpy, numba, numba's array support without scipy's BLAS, as the command does; "
        "torch is not imported), the lists, setup (the pattern table from disk, the kernels from "
        "numba's cache), the search, reading the tree out of its cache, replaying every answer:",
        "",
        "| mode | start-up and exit | imports | lists | setup | search | extract | replay | torch "
        "imported |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in result["modes"]:
        run = row["phased"]
        cells = [run["process_s"] - run["in_process_s"], *(run["phases_s"][k] for k in PHASES)]
        mode = "hard" if row["hard_mode"] else "normal"
        torch_in = "yes" if run["torch_imported"] else "no"
        lines.append(f"| {mode} | " + " | ".join(f"{c:.2f} s" for c in cells) + f" | {torch_in} |")
    return [*lines, ""]


def today_section(result: dict) -> list[str]:
    r, c, tree = result["ranking"], result["check"], result["tree"]
    out = r["ruled_out"]
    best = tree["best_s"]
    sessions = "" if r["sessions"] == 1 else f", {r['sessions']} sessions"
    cpp = (
        f" and alex1770's C++ {best['C++']:.1f} s (ours / C++ {best['ours'] / best['C++']:.2f}x)"
        if "C++" in best
        else ""
    )
    lines = [
        f"### Today's game proven: the best opener of its 14855 guesses: {result['device']} "
        f"({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `{result['command']}`: the all-openers ranking "
        "(`python -m wordle_agents.commands.optimal --all-openers --answers answers_today "
        "--allowed allowed_today`, "
        "as for the original lists above; shipped as `wordle_gym/data/solver/openers_today.json`), "
        "every opener's "
        f"figure held to {c['source']} (every opener's exact total, published), then the optimal "
        "tree from the "
        "best opener in a fresh process, ours and alex1770's C++ (`wordle -w OPENER -a allowed -h "
        "answers`, "
        "built with its Makefile, single-threaded), alternating, best of each. alex1770 publishes "
        "no time for "
        "his run over these lists; his README puts the original lists' proof at \"a day or two on "
        'single core".',
        "",
        "| ranked exactly (cutoff) | ruled out: root bound | second-level bound | search | nodes | "
        "wall time (thread time) | every opener beside the published totals |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        f"| {len(r['ranking'])} (< {r['cutoff']}) | {out['root bound']:,} | "
        f"{out['second-level bound']:,} | {out['search']:,} | {r['nodes']:,} | "
        f"{r['wall_s'] / 60:.1f} min ({r['thread_s'] / 60:.1f} min, {r['workers']} "
        f"threads{sessions}) | {c['exact_agree']} exact equal, {c['bounds_below']:,} ruled out by "
        f"a bound at most the published total, {len(c['disagree'])} disagree |",
        "",
        f"The optimal tree from {tree['opener'].upper()}: {tree['total']:,} guesses over 3158 "
        f"answers (mean {tree['total'] / 3158:.4f}), ours {best['ours']:.1f} s{cpp}; "
        f"{tree['nodes']:,} nodes searched.",
        "",
        "| rank | opener | total guesses | mean |",
        "| ---: | --- | ---: | ---: |",
    ]
    for rank, (word, value) in enumerate(r["ranking"], start=1):
        lines.append(f"| {rank} | {word} | {value:,} | {value / 3158:.4f} |")
    return [*lines, ""]


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


def oracle_section(result: dict) -> list[str]:
    rows = result["rows"]
    turns = max(max(map(int, r["by_turn"]), default=0) for r in rows)
    head = f"regret by turn 1..{turns}"
    lines = [
        f"### Every decision against the optimum: regret by turn ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `{result['command']}` (the real-game rows of the "
        "table above); "
        "one agent at a time: "
        f"`wordle-gym eval --agent NAME --regret` ({result['lists']}). Each decision's regret is "
        r"Q\*(s, a) - V\*(s), exact (`wordle_gym.solver.oracle`: a loss counts as the limit + "
        r"1, the start's value "
        "is the optimum from SALET); a game's regrets sum, averaged over the answers, to the "
        "agent's mean minus the "
        "optimum (checked for every row). The oracle's time: a fresh oracle (cold) valuing every "
        "position the "
        "evaluation reached, then the same again (warm)."
        + (
            " In hard mode, with a loss valued as 7, the optimum gives 3 games up (8116 guesses "
            "from SALET against 8122 for the best tree that wins every game), so the tree that "
            "wins them all shows +0.0026."
            if any("hard mode" in r["agent"] for r in rows)
            else ""
        ),
        "",
        f"| agent | mean (loss = 7) | optimum | regret per game | {head} | positions | oracle cold "
        "| warm |",
        "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for r in rows:
        by_turn = " ".join(f"{r['by_turn'].get(str(t), 0.0):+.4f}" for t in range(1, turns + 1))
        lines.append(
            f"| {r['agent']} | {r['mean_cost']:.4f} | {r['root_value']:.4f} | "
            f"{r['mean_regret']:+.4f} | {by_turn} | {r['positions']:,} | {r['cold_s']:.1f} s "
            f"({r['positions'] / r['cold_s']:,.0f}/s) | {r['warm_s']:.2f} s |"
        )
    for agent, why in result.get("skipped", {}).items():
        lines += ["", f"Not in this table: `{agent}`, {why}."]
    costly = [(r["agent"], c) for r in rows for c in r["costliest"][:1]]
    if costly:
        lines += [
            "",
            "The costliest position of each agent (its regret times the games that reach it):",
            "",
        ]
        for agent, c in costly:
            after = ", ".join(f"`{h}`" for h in c["history"]) or "the start"
            lines.append(
                f"- {agent}: turn {c['turn']} after {after} ({c['candidates']} answers left, "
                f"{c['games']} games): `{c['guess']}` costs {c['regret']:+.4f} guesses per game "
                f"there; `{c['optimal']}` is optimal."
            )
    return [*lines, ""]


def openers_section(result: dict) -> list[str]:
    lines = [
        f"### The best opener over all 12972 allowed guesses, proven: {result['device']} "
        f"({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `python -m wordle_agents.commands.optimal "
        "--all-openers "
        "[--hard] --save openers.json` (reproduced by `python -m benchmarks.openers`; the shipped "
        "rankings are "
        "`wordle_gym/data/solver/openers_{normal,hard}.json`). Every allowed first guess gets its "
        "exact optimal total "
        "or a proof that it is not among the 10 best (ties stay in): the root bound (each bucket "
        "of c answers "
        "needs 2c - 1 more guesses), then the second-level bound (each bucket searched with a "
        "budget one over its "
        "bound; the kernel returns the least bound over its guesses), then a search that raises "
        "every bucket's "
        "bound in rounds (+2, +4, ...) under what the cutoff leaves. Openers in order of the root "
        "bound, on both "
        "cores; resumable (`--max-minutes`, Ctrl-C: the same command continues from its journal). "
        "Anchors "
        '(cited): alex1770\'s C++ solver, "a day or two on single core" for the normal-mode proof; '
        "an unnamed "
        "solver, 70 min on one core and 20 GB.",
        "",
        "| mode | ranked exactly (cutoff) | ruled out: root bound | second-level bound | search | "
        "solved exactly "
        "above the cutoff | shown unable to win in 6 | nodes | wall time (thread time) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in result["rankings"]:
        out = r["ruled_out"]
        lines.append(
            f"| {r['mode']} | {len(r['ranking'])} (< {r['cutoff']}) | {out['root bound']:,} | "
            f"{out['second-level bound']:,} | {out['search']:,} | {r['exact'] - len(r['ranking'])} "
            f"| {r['unsolvable']:,} | {r['nodes']:,} | {r['wall_s'] / 60:.1f} min "
            f"({r['thread_s'] / 60:.1f} min, {r['workers']} "
            f"threads{'' if r['sessions'] == 1 else ', ' + str(r['sessions']) + ' sessions'}) |"
        )
    for r in result["rankings"]:
        c = r["check"]
        cited = dict(map(tuple, c["cited_top"]))
        lines += [
            "",
            f"{r['mode'].capitalize()} mode, the proven ranking beside the cited one "
            f"({r['source']}): of the {c['cited']} openers it lists, {c['exact_agree']} have our "
            f"exact total equal to its, {c['bounds_below']} were ruled out here by a bound at most "
            f"its total, {c['disagree']} disagree.",
            "",
            "| rank | opener | total guesses | mean | cited total |",
            "| ---: | --- | ---: | ---: | ---: |",
        ]
        for rank, (word, value) in enumerate(r["ranking"], start=1):
            lines.append(
                f"| {rank} | {word} | {value:,} | {value / 2315:.4f} | "
                f"{cited.get(word, 'not listed')} |"
            )
        missing = [w for w in cited if w not in dict(map(tuple, r["ranking"]))]
        if missing:
            lines += ["", f"In the cited top but not ranked here: {', '.join(missing)}."]
    return [*lines, ""]


def opener_totals_section(result: dict) -> list[str]:
    lines = [
        f"### Every opener's first move: the published tables, checked ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `{result['command']}` (a game checked alone: its "
        "command below the table). The shipped tables of first-move totals "
        "(`wordle_gym/data/solver/opener_totals_*.json`) hold "
        f"{result['source']}'s published totals as cited facts: exact ones, and real strategies' "
        "totals as upper bounds. alex1770 counts trees that lose no game; the project's search "
        "counts a loss as the limit + 1, so an "
        "exact entry must equal the search's value and an upper bound must not be below it. A "
        "random sample of each source, searched here:",
        "",
        "| table | source | kind | openers | sample (cited / searched) | holds |",
        "| --- | --- | --- | ---: | --- | --- |",
    ]
    for game in result["games"].values():
        for name, (kind, count) in game["sources"].items():
            rows = [r for r in game["checked"] if r["source"] == name]
            sample = ", ".join(
                f"{r['opener'].upper()} {r['cited']} / "
                f"{'-' if r['searched'] is None else r['searched']}"
                for r in rows
            )
            held = [r["holds"] for r in rows if r["holds"] is not None]
            late = len(rows) - len(held)
            verdict = f"{sum(held)} of {len(held)}" + (f" ({late} past the limit)" if late else "")
            lines.append(
                f"| `{game['table']}` | {name} | {kind} | {count:,} | {sample} | {verdict} |"
            )
    reruns: dict[tuple[str, str], list[str]] = {}  # a game checked alone: its command, its tables
    for game in result["games"].values():
        if game.get("command", result["command"]) != result["command"]:
            reruns.setdefault((game["command"], game["date"]), []).append(f"`{game['table']}`")
    if reruns:
        lines += ["", "Checked by a command of their own:", ""]
        lines += [
            f"- {', '.join(tables)} ({date}): `{command}`"
            for (command, date), tables in reruns.items()
        ]
    return [*lines, ""]


def _read(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a benchmark result ({exc})") from None


def multi_board_section(result: dict) -> list[str]:
    lines = [
        f"### Multi-board Wordle: the greedy solver and the vector env: {result['device']} "
        f"({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `{result['command']}`. Each row plays the "
        "standard evaluation set of its board count (`wordle_gym.harness.play.standard_games`: "
        "seeded K-tuples of distinct answers, the same for every agent; `wordle-gym eval --boards "
        "K` plays it), the real lists (2315 answers, 12972 guesses), K + 5 guesses.",
        "",
        "| game | boards | agent | games | win % | mean guesses (wins) | boards solved | max | "
        "eval time |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in result["rows"]:
        worst = (
            "X"
            if r["histogram"][-1]
            else max(k for k, c in enumerate(r["histogram"], start=1) if c)
        )
        lines.append(
            f"| {r['name']} | {r['boards']} | {r['agent']} | {r['games']:,} | "
            f"{100 * r['win_rate']:.2f} | {r['mean_guesses_wins']:.4f} | {r['boards_solved']:.4f} "
            f"| {worst} | {r['eval_s']:.0f} s |"
        )
    lines += _bound_lines(result["rows"])
    lines += [
        "",
        "| vector env, mask `all`, random actions | games | game-steps/s | board-steps/s "
        "| ms a step |",
    ]
    lines.append("| --- | ---: | ---: | ---: | ---: |")
    for t in result["throughput"]:
        game = (
            "Wordle" if t["boards"] == 1 else BOARD_NAMES.get(t["boards"], f"{t['boards']} boards")
        )
        lines.append(
            f"| {game} | {t['num_envs']:,} | {t['env_steps_per_s']:,.0f} | "
            f"{t['env_steps_per_s'] * t['boards']:,.0f} | {t['ms_per_step']:.2f} |"
        )
    return [*lines, ""]


def _bound_lines(rows: list[dict]) -> list[str]:
    """The proven lower bound on each board count's optimum beside the best mean measured above (a
    loss counted as K + 6), from the shipped ranking with losses and maxima over every Dordle opener
    (:mod:`research.boards_bound`)."""
    from research.boards_bound import shipped_bounds

    bounds = {b["boards"]: b for b in shipped_bounds(sorted({r["boards"] for r in rows}))}
    if not bounds:
        return []
    single = next(iter(bounds.values()))["single_board"]
    lines = [
        "",
        "Proven lower bounds on the optimal mean (`python -m research.boards_bound`; the proofs "
        "are in its docstring), the better of two: from one board's optimum with losses counted "
        f"({single['total']} guesses over {single['answers']} answers, {single['max_guesses']} "
        f"guesses, a loss costing {single['max_guesses'] + 1}: every opener ranked, `python -m "
        "wordle_agents.commands.optimal --all-openers --losses --top 1`) and the boards finishing "
        "at different guesses; and from the order the boards are solved in (the j-th solved board "
        "leaves K - j more guesses, and few boards can be solved by the second and third guess: "
        "the most any opener allows, from the count of every Dordle opener, `--all-openers`). The "
        "optimum is over the game's distribution; the measured means are over the evaluation set.",
        "",
        "| game | boards | from one board's optimum | from the order of the solves | proven lower "
        "bound | best mean measured (loss = K + 6) | gap at most |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    # every opener bounded by the pair search, if run
    dordle = HERE / "results" / "dordle_bound_cpu.json"
    every = json.loads(dordle.read_text()).get("every_opener") if dordle.is_file() else None
    for k, bound in sorted(bounds.items()):
        best = min(r["mean_guesses_all"] for r in rows if r["boards"] == k)
        value, how = bound["lower_bound"], ""
        if k == 2 and every and every["lower_bound"] > value:
            value, how = every["lower_bound"], " (every opener bounded by the pair search, below)"
        order = f"{bound['order_bound']['lower_bound']:.4f}" if "order_bound" in bound else "-"
        lines.append(
            f"| {BOARD_NAMES.get(k, f'{k} boards')} | {k} | {bound['one_board_bound']:.4f} | "
            f"{order} | {value:.4f}{how} | {best:.4f} | {best - value:.4f} |"
        )
    return lines


def dordle_bound_section(result: dict) -> list[str]:
    lines = [
        "### Dordle from a fixed opener: a proven lower bound beside the best policy measured "
        f"({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `{result['command']}`. Lists: {result['lists']}; "
        "2 boards, 7 guesses. The bound holds for every policy that opens with the word (`python "
        "-m research.boards_bound --opener WORD`; the proof is in its docstring): the exact "
        "search finds the most games any such policy finishes by the second, third and fourth "
        "guess, over every pair of distinct answers, and the mean count is at least 5 minus those "
        "three shares. The solver plays the first games of the standard Dordle set from the same "
        "opener (its mean with a 95 % interval; a loss counts 8).",
        "",
        "| opener | bound | search time | second guesses counted exactly | solver | games | "
        "solver's mean | gap at most | finished by guess 3: most possible / solver | by guess 4: "
        "most possible / solver |",
        "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in result["rows"]:
        s, pairs = r["solver"], r["pairs"]
        lines.append(
            f"| {r['opener'].upper()} | {r['lower_bound']:.4f} | {r['bound_s'] / 60:.1f} min | "
            f"{r['second_guesses_counted_exactly']:,} | {s['agent']} | {s['games']:,} | "
            f"{s['mean_guesses_all']:.4f} ± {1.96 * s['standard_error']:.4f} | "
            f"{s['mean_guesses_all'] - r['lower_bound']:.4f} | "
            f"{100 * r['finished_by']['3'] / pairs:.2f} % / {100 * s['finished_by']['3']:.2f} % | "
            f"{100 * r['finished_by']['4'] / pairs:.2f} % / {100 * s['finished_by']['4']:.2f} % |"
        )
    every = result.get("every_opener")
    if every:
        from research.boards_bound import shipped_bounds

        single = shipped_bounds([2])
        before = (
            f" The bound from one board's optimum: {single[0]['one_board_bound']:.4f}; from the "
            f"order of the solves: {single[0]['order_bound']['lower_bound']:.4f}."
            if single and "order_bound" in single[0]
            else ""
        )
        weakest = ", ".join(f"{w.upper()} {b:.4f}" for w, b in every["weakest"][:5])
        lines += [
            "",
            f"**Every policy, whatever its opener: at least {every['lower_bound']:.4f}.** Each of "
            f"the {every['openers']:,} allowed openers bounded the same way, the fourth guess's "
            "share bounded from the class counts alone (`python -m research.boards_bound "
            f"--all-openers --save JOURNAL`, {every['per_opener_s']:.2f} s an opener on "
            f"{every['threads']} threads, timed on 200 of them here)"
            + (
                f"; the {every['refined']:,} openers whose bound was below "
                f"{every['refined_below']} bounded again from the class sizes (`--refine-below`)"
                if every.get("refined")
                else ""
            )
            + (
                f"; the {every['searched']:,} still below {every['searched_below']} searched "
                "exactly as above "
                f"(`--search-below`; each now at least {every['searched_least']:.4f})"
                if every.get("searched")
                else ""
            )
            + f"; the least taken. The weakest openers: {weakest}.{before}",
        ]
    return [*lines, ""]


def text_env_section(result: dict) -> list[str]:
    before = {r["env"]: r for r in result.get("before", [])}
    lines = [
        f"### The text env for language-model agents ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `{result['command']}`. Whole games of replies "
        "written as a model writes them (a random answer in `<guess></guess>` or `[...]`, one "
        "reply in ten without a guess), one process"
        + (
            "; each row, then the same on the code before (`--before`, a fresh process)."
            if before
            else "."
        ),
        "",
        "| env | code | steps/s | us a step | games |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for r in result["rows"]:
        for code, row in (("this", r), ("before", before.get(r["env"]))):
            if row is None:
                continue
            if "error" in row:
                lines.append(f"| {r['env']} | {code} | cannot be built here: {row['error']} | | |")
            else:
                speed = f"{row['steps_per_s']:,.0f} | {row['us_per_step']:,.0f}"
                lines.append(f"| {r['env']} | {code} | {speed} | {row['games']:,} |")
    return [*lines, ""]


def openenv_flood_section(result: dict) -> list[str]:
    lines = [
        f"### The OpenEnv server under a flood of plain-HTTP resets ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `{result['command']}`. A WebSocket player's step "
        f"(its round trip, {result['this']['steps']} steps), quiet and while "
        f"{result['this']['flooders']} other processes send `/reset` as fast as they can; the "
        "server in its own process"
        + ("; this code, then the code before (`--before`)." if "before" in result else "."),
        "",
        "| code | quiet: median ms | quiet: p90 ms | flood: median ms | flood: p90 ms |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for code in ("this", "before"):
        if code in result:
            q, f = result[code]["quiet"], result[code]["flood"]
            lines.append(
                f"| {code} | {q['median_ms']:.1f} | {q['p90_ms']:.1f} | {f['median_ms']:.1f} | "
                f"{f['p90_ms']:.1f} |"
            )
    return [*lines, ""]


def _split_exact(row: dict) -> str:
    """The "(first move, later)" exact shares where the run measured them (older runs did not)."""
    if "exact_first_share" not in row:
        return ""
    return f" ({100 * row['exact_first_share']:.0f} %, {100 * row['exact_later_share']:.0f} %)"


def _budget(result: dict) -> str:
    """The regret benchmark's budget as its runs had it: work (and the older code's seconds)."""
    if "budget" not in result:
        return f"{result['budget_s']:g} s"
    before = result.get("before_budget_s")
    return f"{result['budget']:,} work" + ("" if before is None else f" (before: {before:g} s)")


def regret_reward_section(result: dict) -> list[str]:
    runs = result["runs"]
    makes = "; ".join(f"{code}: {run['make_s']:.2f} s" for code, run in runs.items())
    lines = [
        f"### The text env's regret reward on LLM-like and poor play ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `{result['command']}`. `WordleText-v0`, real "
        "lists, "
        f'`reward="regret"` with a budget of {_budget(result)} a move; each step timed as the '
        "caller sees it. Past the budget the reward is the proven upper bound of the move's cost "
        "(never the optimistic one); `same moves` says whether every move's reward, flag and "
        "bounds are those of `this, cold`. Each run a fresh "
        "process: `this, cold` with the position store (the oracle's disk cache) empty, `this, "
        "warm` a second "
        "process with the store the first filled (as a second rollout worker, or a training's next "
        "run, sees it), "
        "`before` the code before, its store empty too. The first make (the env built and reset, "
        "in a fresh process): "
        f"{makes}.",
        "",
        "| play | code | games | moves | p50 | p99 | max | exact within the budget (first move, "
        "later) | mean reward | same moves |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for i, first in enumerate(next(iter(runs.values()))["rows"]):
        for code, run in runs.items():
            row = run["rows"][i]
            same = (
                "-"
                if "moves_digest" not in row
                else "yes"
                if row["moves_digest"] == first["moves_digest"]
                else "no"
            )
            lines.append(
                f"| {first['play']} | {code} | {row['games']} | {row['moves']} | "
                f"{row['p50_s']:.3f} s | {row['p99_s']:.3f} s | {row['max_s']:.3f} s | "
                f"{100 * row['exact_share']:.1f} %{_split_exact(row)} | {row['mean_reward']:+.4f} "
                f"| {same} |"
            )
    first_move = result.get("first_move")
    if first_move:
        when = result.get("first_move_date", result["date"])
        lines += [
            "",
            f"The first move over every allowed opener ({when}, the same budget): exact where the "
            "tables hold the opener's value, else charged a proven upper bound; `inverted` counts "
            "openers charged less than one they are proven worse than; the published strategy's "
            "total (alex1770's `normal.n100`, charged where the value is not exact) against the "
            "exact value, where both are known:",
            "",
            "| game | openers | exact | an upper bound | charged less than CRANE | inverted | the "
            "bound within 0.002 of exact | its largest gap |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for game, r in first_move.items():
            within = (
                f"{r['published_gap_within_0002']:,} of {r['published_gap_known']:,}"
                if r["published_gap_known"]
                else "(none charged)"
            )
            lines.append(
                f"| {game} | {r['openers']:,} | {r['exact']:,} | {r['upper']:,} | "
                f"{r['charged_below_crane']} | "
                f"{r['inverted']} | {within} | {r['published_gap_max']:.4f} |"
            )
    history = result.get("first_move_history", [])
    if history:
        lines += [
            "",
            "The real game's first move over the runs (`python -m wordle_agents.commands.optimal "
            "--values allowed --first-move-only`, on this CPU and a GPU lease's spare cores), "
            "each time the table was merged:",
            "",
            "| date | openers in the project's table | exact | an upper bound |",
            "| --- | ---: | ---: | ---: |",
            *(
                f"| {h['date']} | {h['table']:,} | {h['exact']:,} | {h['upper']:,} |"
                for h in history
            ),
        ]
    return [*lines, ""]


def contention_section(result: dict) -> list[str]:
    counts = list(result["rows"][0]["seconds"])
    cores = result["cores"]
    lines = [
        f"### The hot paths on a busy machine ({result['date']})",
        "",
        f"Machine: {result['machine']}. Command: `{result['command']}`. Wall time of a fresh "
        "process (best of two) beside N other CPU-bound processes; in brackets, the slowdown "
        f"against N = 0 and the machine's fair share ((N + {cores}) / {cores} on {cores} cores). "
        "`import wordle_gym` sets `OMP_WAIT_POLICY=PASSIVE` unless it is set: OpenMP's threads "
        "then sleep while they wait instead of spinning on the cores others need.",
        "",
        "| path | code | " + " | ".join(f"N = {n}" for n in counts) + " |",
        "| --- | --- | " + " | ".join("---:" for _ in counts) + " |",
    ]
    for r in result["rows"]:
        idle = r["seconds"][counts[0]]
        cells = []
        for n in counts:
            t = r["seconds"][n]
            share = max(1.0, (int(n) + cores) / cores)
            cells.append(
                f"{t:.2f} s"
                if n == counts[0]
                else f"{t:.2f} s ({t / idle:.1f}x; fair {share:.1f}x)"
            )
        lines.append(f"| {r['path']} | {r['policy']} | " + " | ".join(cells) + " |")
    return [*lines, ""]


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
