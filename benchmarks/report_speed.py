"""The speed sections of BENCHMARKS.md (the vector env, CUDA graphs, the text env, the OpenEnv
server, a busy machine), rendered from their JSON."""

from __future__ import annotations


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
        lines += _profile_table(result["profile"])
    if result.get("mask_breakdown"):
        lines += _mask_breakdown_table(result["mask_breakdown"])
    if result.get("sync_vector"):
        lines += _sync_vector_table(result["sync_vector"], by_size)
    return [*lines, ""]


def _profile_table(profile: dict) -> list[str]:
    """Where a step's time goes by torch's profiler: its top operators."""
    # older results list kernels too
    operators = [op for op in profile["ops"] if op["name"].startswith("aten::")]
    return [
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


def _mask_breakdown_table(rows: list[dict]) -> list[str]:
    """Where a CPU step's time goes by mask: each compiled kernel and the rest."""
    lines = [
        "",
        "Where a step's time goes on the CPU, 16384 games (ms per step; each compiled kernel "
        "of `wordle_gym/core/_kernels.py` timed around its call, the rest is the step's torch "
        "work):",
        "",
        "| mask | step | kernels | the rest |",
        "| --- | ---: | --- | ---: |",
    ]
    for row in rows:
        spent = row["kernels_ms"]
        named = ", ".join(f"`{name}` {ms:.1f}" for name, ms in spent.items())
        lines.append(
            f"| {row['mask']} | {row['ms_per_step']:.1f} | {named} | "
            f"{row['ms_per_step'] - sum(spent.values()):.1f} |"
        )
    return lines


def _sync_vector_table(runs: list[dict], by_size: dict[int, dict[str, dict]]) -> list[str]:
    """Gymnasium's SyncVectorEnv of the single env beside the torch vector env (``by_size``)."""
    lines = [
        "",
        "A few games on the CPU: Gymnasium's `SyncVectorEnv` of the single env "
        '(`gym.make_vec("Wordle-v0", num_envs=n, vectorization_mode="sync")`, numpy) beside '
        "the torch "
        "vector env above, mask `all`:",
        "",
        "| num_envs | `SyncVectorEnv` of `WordleEnv` | `WordleVectorEnv` |",
        "| ---: | ---: | ---: |",
    ]
    for run in runs:
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
    return lines


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
        lines += [
            _vector_row(key, now, vector, passive_name)
            for key, now in vector["this checkout"].items()
        ]
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


def _vector_row(key: str, now: float, vector: dict, passive_name: str) -> str:
    """One configuration's row of the vector env side by side: before, now, the speed-up, and
    where it ran, the passive wait's."""
    # older results: mask "all" only
    n, mask, *rest = key.split() if " " in key else (key, "all")
    old = vector["before"][key]
    rate = int(n) * 1e3
    boards = int(rest[0]) if rest else 1
    game = f", {boards} boards (game-steps)" if boards > 1 else ""
    game += ', `mask_dtype="packed"`' if rest[1:] == ["packed"] else ""
    row = (
        f"| {int(n):,} | `{mask}`{game} | {old:.3f} ms ({_si(rate / old)}/s) | {now:.3f} "
        f"ms ({_si(rate / now)}/s) | {old / now:.2f}x |"
    )
    if passive_name not in vector:
        return row
    quiet = vector[passive_name].get(key)
    return row + (" |" if quiet is None else f" {quiet:.3f} ms ({_si(rate / quiet)}/s) |")


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
