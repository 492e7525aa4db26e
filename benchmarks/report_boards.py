"""The multi-board sections of BENCHMARKS.md (the greedy solver on K boards, the Dordle bound),
rendered from their JSON."""

from __future__ import annotations

import json
from pathlib import Path

from wordle_gym.core.config import BOARD_NAMES

HERE = Path(__file__).resolve().parent


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
    from research.order_bound import shipped_bounds

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
        from research.order_bound import shipped_bounds

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
