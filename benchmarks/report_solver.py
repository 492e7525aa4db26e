"""The exact solver's sections of BENCHMARKS.md (the solvers side by side, the exact search, today's
game, the oracle, the openers, the published tables, the regret reward), rendered from their
JSON."""

from __future__ import annotations

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
        *(_exact_row(row, names) for row in result["modes"]),
    ]
    return [*lines, *_exact_phases(result["modes"]), *_exact_openers(result), ""]


def _exact_openers(result: dict) -> list[str]:
    """The table of the openers' first-move searches, this checkout beside the code before."""
    rows = result.get("openers") or []
    if not rows:
        return []
    names = [n for n in ("this checkout", "before") if n in rows[0]["by"]]
    shown = [f"before ({result['before']})" if n == "before" else n for n in names]
    paired = "before" in names
    head = "| opener | total | " + " | ".join(f"search, {n}" for n in shown)
    head += f" | nodes ({', '.join(names)}) |" + (" speed-up |" if paired else "")
    lines = [
        "",
        "The search of each opener's first-move total, as the table of opener values makes it "
        "(every first-move group on one thread, one cache, a loss counted as the limit + 1), in a "
        "fresh process of each checkout, alternating (the six openers issue 85 measured):",
        "",
        head,
        "| --- | ---: | " + " | ".join("---:" for _ in names) + " | ---: |" + " ---: |" * paired,
    ]
    for row in rows:
        seconds = {n: row["by"][n]["search_s"] for n in names}
        nodes = ", ".join(f"{row['by'][n]['nodes']:,}" for n in names)
        lines.append(f"| {row['opener'].upper()} | {row['total']:,} | " + _timed(seconds, nodes))
    sums = {n: sum(row["by"][n]["search_s"] for row in rows) for n in names}
    lines.append("| all | | " + _timed(sums, ""))
    return lines


def _timed(seconds: dict[str, float], nodes: str) -> str:
    """A row's cells from its search times on: each checkout's, the nodes, and the speed-up over
    the code before where it ran."""
    cells = " | ".join(f"{t:.1f} s" for t in seconds.values()) + f" | {nodes} |"
    if "before" in seconds:
        cells += f" {seconds['before'] / seconds['this checkout']:.2f}x |"
    return cells


def _exact_row(row: dict, names: list[str]) -> str:
    """One mode's row of the exact solver's table: each process's best time, ours over the C++'s,
    the nodes searched and the cold start."""
    best = row["best_s"]
    ratio = f"{best['this checkout'] / best['C++']:.2f}x" if "C++" in best else ""
    nodes = ", ".join(f"{row['nodes'][n]:,}" for n in names if n in row["nodes"])
    cells = " | ".join(f"{best[n]:.2f} s" for n in names)
    mode = "hard" if row["hard_mode"] else "normal"
    return f"| {mode} | {cells} | {ratio} | {nodes} | {row['cold_process_s']:.1f} s |"


def _exact_phases(modes: list[dict]) -> list[str]:
    """The table of where this checkout's process spends its time, by mode."""
    lines = [
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
    for row in modes:
        run = row["phased"]
        cells = [run["process_s"] - run["in_process_s"], *(run["phases_s"][k] for k in PHASES)]
        mode = "hard" if row["hard_mode"] else "normal"
        torch_in = "yes" if run["torch_imported"] else "no"
        lines.append(f"| {mode} | " + " | ".join(f"{c:.2f} s" for c in cells) + f" | {torch_in} |")
    return lines


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
