"""``wordle-gym bench``: evaluate every installed agent through the harness and rewrite the table.

Agents come from the ``wordle_gym.agents`` entry points (:mod:`wordle_gym.registry`); each agent
declares its rows (``bench_runs``): the solver family, the random floors, one row per shipped
checkpoint of the trained agents, and any third-party agent that is installed. ``--model ZIP``
adds SB3 models. One JSON per row goes to ``benchmarks/results/agents/`` (atomically), then
BENCHMARKS.md and the plots (``benchmarks/plots/``, with matplotlib installed) are regenerated
under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from wordle_gym.config import resolve_device
from wordle_gym.evaluation import EvalResult, GuessesFrom, evaluate
from wordle_gym.files import OneLineParser, atomic_write, check_writable
from wordle_gym.registry import AgentError, BenchRun, agent_names, bench_runs, make_agent
from wordle_gym.report import render
from wordle_gym.words import stage_words


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def jobs(extra_models: list[str]) -> list[tuple[str, BenchRun]]:
    """(agent name, row) for every installed agent's declared rows, then the extra SB3 models."""
    found: list[tuple[str, BenchRun]] = []
    for name in agent_names():
        try:
            found += [(name, run) for run in bench_runs(name)]
        except AgentError as exc:  # one broken agent does not stop the table
            print(f"skipped: {exc}")
    found += [("sb3", BenchRun(f"SB3 `{Path(model).name}`", {"checkpoint": model})) for model in extra_models]
    return found


def _settings(label: str, policy: Any, info: Any) -> list[tuple[str, Any, dict[str, Any]]]:
    """(row label, policy, word lists) to evaluate. An agent trained on other lists gets two rows, so
    that no stage figure passes for a Wordle result: its training lists, and the real game (2315
    answers, the 12972 allowed guesses) in which it guesses only words it was trained on. An agent
    trained on the real game gets the one row."""
    answers = getattr(info, "answers", None)
    if answers is None:
        return [(label, policy, {})]
    guesses = info.allowed if info.allowed is not None else answers
    if (list(answers), list(guesses)) == stage_words("full"):  # trained on the real game itself
        return [(f"{label}, real game", policy, {})]
    own = f"{label}, its training lists ({len(answers)} answers x {len(guesses)} guesses)"
    real = f"{label}, real game (guesses only its {len(guesses)} words)"
    return [(own, policy, {"answers": answers, "allowed": info.allowed}), (real, GuessesFrom(policy, guesses), {})]


def _provenance(policy: Any, info: Any) -> dict[str, str]:
    """What a trained agent learned from (a teacher, or its reward preset) and where it trained, as its
    checkpoint records them (empty for agents without one)."""
    if info is None:
        return {}
    teacher, reward = getattr(info, "teacher", None), getattr(getattr(policy, "config", None), "reward", None)
    found = {"learned_from": f"teacher: {teacher}" if teacher else f"reward {reward!r}" if reward else None,
             "machine": getattr(info, "machine", None)}  # fmt: skip
    return {k: str(v) for k, v in found.items() if v}


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="wordle-gym bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--device", default="cpu", help="cpu (default), cuda or auto")
    parser.add_argument("--out", default=".", help="folder that receives BENCHMARKS.md and benchmarks/ (default .)")
    parser.add_argument("--model", action="append", default=[], help="also evaluate this SB3 model zip (repeatable)")
    parser.add_argument("--only", default=None, help="evaluate only agents whose name contains this text")
    args = parser.parse_args(argv)
    device = resolve_device(args.device)
    root = Path(args.out)
    results = root / "benchmarks" / "results" / "agents"
    for folder in (root, results, root / "benchmarks" / "plots"):
        check_writable(folder, folder=True)  # before the work, not after it
    selected = [
        (name, run) for name, run in jobs(args.model) if not args.only or args.only.lower() in run.label.lower()
    ]
    if not selected:
        raise ValueError(f"--only {args.only!r} matches no agent; run without --only to see every row")
    start = time.perf_counter()
    written: dict[Path, EvalResult] = {}
    log_folders: set[Path] = set()  # training logs (*.metrics.jsonl) lie beside the evaluated weights
    for name, run in selected:
        try:
            policy = make_agent(name, run.options, device=str(device))
        except (AgentError, ImportError) as exc:  # a missing extra, a broken plugin: the rest of the table goes on
            print(f"skipped {run.label}: {exc}")
            continue
        info = getattr(policy, "checkpoint", None)
        if getattr(info, "path", None):
            log_folders.add(Path(info.path).parent)
        for label, play, lists in _settings(run.label, policy, info):
            try:
                result = evaluate(play, agent=label, device=device, progress=None, **{**lists, **run.env})
            except Exception as exc:  # one failing agent costs its row, not the table
                print(f"skipped {label}: {type(exc).__name__}: {exc}")
                continue
            if getattr(info, "training_s", None):
                result.extra["training_s"] = info.training_s
            result.extra.update(_provenance(policy, info))
            written[result.save(results / f"{_slug(label)}.json")] = result
            print(result.markdown_row(), flush=True)
    _optimal_gaps(written, device, root / "benchmarks" / "results" / "optimal")
    if not args.only:  # a full run: rows of agents that are gone (or renamed) leave the table
        for stale in set(results.glob("*.json")) - set(written):
            stale.unlink()
    plot(root, sorted(log for folder in log_folders for log in folder.glob("*.metrics.jsonl")))
    print(f"wrote {render(root)} in {time.perf_counter() - start:.1f} s")
    return 0


def _optimal_gaps(written: dict[Path, EvalResult], device: Any, trees: Path) -> None:
    """Split each real-game row's gap to perfect play (through the installed agent ``optimal``):
    the opener's cost (the optimum from the agent's first guess minus the optimum from SALET) and
    the play's cost (the agent's mean minus the optimum from its own first guess), and per answer
    the guesses it used beyond the optimal tree for its opener. Losses count as max_guesses + 1.
    Written into each result's ``extra["optimal_gap"]`` and its file again; trees solved for other openers are kept in
    ``trees`` for the next run."""
    optimum: dict[tuple[str, bool], EvalResult | None] = {}

    def optimal(opener: str, hard: bool) -> EvalResult | None:
        if (opener, hard) not in optimum:
            try:
                policy = make_agent("optimal", {"opener": opener, "cache_dir": str(trees), "time_limit": 600})
                optimum[opener, hard] = evaluate(policy, device=device, hard_mode=hard, progress=None)
            except (AgentError, ImportError, TimeoutError, ValueError) as exc:
                print(f"no optimal tree from {opener.upper()}{' (hard mode)' if hard else ''}: {exc}")
                optimum[opener, hard] = None
        return optimum[opener, hard]

    for path, result in sorted(written.items()):
        real = (result.games, result.num_allowed, result.answers) == (2315, 12972, "answers")
        if not real or len(result.openers) != 1 or result.guesses is None or result.max_guesses != 6:
            continue  # defined for one fixed first guess on the real game
        opener = next(iter(result.openers))
        own, best = optimal(opener, result.hard_mode), optimal("salet", result.hard_mode)
        if own is None or best is None or own.guesses is None:
            continue
        beyond = Counter(a - b for a, b in zip(result.guesses, own.guesses, strict=True))
        result.extra["optimal_gap"] = {
            "opener": opener,
            "optimum_from_opener": own.mean_guesses_all,
            "opener_cost": own.mean_guesses_all - best.mean_guesses_all,
            "play_cost": result.mean_guesses_all - own.mean_guesses_all,
            "beyond": {str(k): v for k, v in sorted(beyond.items())},
        }
        result.save(path)


def plot(root: Path, logs: list[Path]) -> None:
    """Guess-count distribution per agent, and learning curves from shipped training logs (PNG)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install 'wordle-gym[plot]'): no plots this time")
        return
    out = root / "benchmarks" / "plots"
    out.mkdir(parents=True, exist_ok=True)
    results = [json.loads(p.read_text()) for p in sorted((root / "benchmarks" / "results" / "agents").glob("*.json"))]
    if results:
        fig, ax = plt.subplots(figsize=(10, 0.45 * len(results) + 1.5))
        labels = [*(str(k) for k in range(1, len(results[0]["histogram"]))), "X"]
        left = [0.0] * len(results)
        colors = plt.get_cmap("viridis")
        for k, label in enumerate(labels):
            shares = [100 * r["histogram"][k] / r["games"] for r in results]
            color = "#b03a2e" if label == "X" else colors(k / max(1, len(labels) - 2))
            ax.barh([r["agent"] for r in results], shares, left=left, label=label, color=color)
            left = [a + b for a, b in zip(left, shares, strict=True)]
        ax.set_xlabel("% of games won in k guesses (X = lost)")
        ax.legend(ncol=len(labels), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
        fig.tight_layout()
        atomic_write(out / "guess_distribution.png", lambda handle: fig.savefig(handle, format="png", dpi=110))
        plt.close(fig)

    if logs:
        fig, (ax_win, ax_mean, ax_time) = plt.subplots(1, 3, figsize=(15, 4))
        for log in logs:
            rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
            for stage in dict.fromkeys(r["stage"] for r in rows):
                part = [r for r in rows if r["stage"] == stage]
                # Logs written before the greedy figures were kept apart hold only the training batch's.
                key, what = ("win_rate", "greedy") if "win_rate" in part[0] else ("train_win_rate", "sampled")
                label = f"{log.name.split('.')[0]} stage {stage} ({what})"
                wins = [100 * r[key] for r in part]
                ax_win.plot([r["step"] for r in part], wins, label=label)
                ax_mean.plot([r["step"] for r in part], [r[key.replace("win_rate", "mean_guesses")] for r in part],
                             label=label)  # fmt: skip
                ax_time.plot([r["elapsed_s"] / 3600 for r in part], wins, label=label)
        ax_win.set(xlabel="update", ylabel="win % on the stage's answers", title="win rate")
        ax_mean.set(xlabel="update", ylabel="mean guesses (wins)", title="guesses")
        ax_time.set(xlabel="training wall time (h)", ylabel="win % on the stage's answers", title="win rate")
        ax_win.legend(fontsize=8)
        fig.tight_layout()
        atomic_write(out / "learning_curves.png", lambda handle: fig.savefig(handle, format="png", dpi=110))
        plt.close(fig)
