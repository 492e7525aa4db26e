"""``wordle-gym bench``: evaluate every available agent through the harness and rewrite the table.

Agents: the solver family (SALET with each scoring rule, and the solver's own opener), the random
floor (uniform over all words, and over the remaining candidates), every shipped checkpoint in
``agents/checkpoints`` (A2C ``a2c*.pt``, DQN ``dqn*.pt``, SB3 ``*.zip``) and any extra models given.
One JSON per agent goes to ``benchmarks/results/agents/`` (atomically), then BENCHMARKS.md and the
plots (``benchmarks/plots/``, with matplotlib installed) are regenerated under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import agents as agents_package
from wordle_gym.config import resolve_device
from wordle_gym.evaluation import evaluate
from wordle_gym.report import render

CHECKPOINTS = Path(agents_package.__file__).resolve().parent / "checkpoints"


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass
class Job:
    """One agent to evaluate."""

    name: str
    make: Callable[[Any], Any]  # device -> policy
    kwargs: dict[str, Any] = field(default_factory=dict)  # for evaluate(): word lists, mask
    training_s: float | None = None


def jobs(extra_models: list[str]) -> list[Job]:
    """Every agent to evaluate: solvers, random floors, shipped checkpoints, extra SB3 models."""
    from agents import A2CAgent, DQNAgent, MaxEntropySolver, RandomPolicy
    from agents.training import load_checkpoint
    from wordle_gym.sb3 import SB3Policy

    found = [
        Job("max-entropy (entropy, SALET)", lambda d: MaxEntropySolver(opener="salet")),
        Job("max-entropy (entropy, own opener)", lambda d: MaxEntropySolver()),
        *(
            Job(f"max-entropy ({s}, SALET)", lambda d, s=s: MaxEntropySolver(score=s, opener="salet"))
            for s in ("expected", "minimax", "splits")
        ),
        Job("random (all words)", lambda d: RandomPolicy(seed=0)),
        Job("random (remaining candidates)", lambda d: RandomPolicy(seed=0), {"action_mask": "candidates"}),
    ]
    for path in sorted(CHECKPOINTS.glob("a2c*.pt")) + sorted(CHECKPOINTS.glob("dqn*.pt")):
        loader = A2CAgent if path.name.startswith("a2c") else DQNAgent
        data = load_checkpoint(path, "a2c" if loader is A2CAgent else "dqn")  # metadata only
        lists = {"answers": data.get("answers", "answers"), "allowed": data.get("allowed", "allowed")}
        kind = "A2C" if loader is A2CAgent else "DQN"
        found.append(Job(f"{kind} `{path.name}` (stage {data.get('stage', '?')})",
                         lambda d, path=path, loader=loader: loader.load(path, device=d), lists,
                         data.get("training_s")))  # fmt: skip
    for model in [*sorted(str(p) for p in CHECKPOINTS.glob("*.zip")), *extra_models]:
        found.append(Job(f"SB3 `{Path(model).name}`", lambda d, model=model: SB3Policy.load(model, device=str(d))))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wordle-gym bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--device", default="cpu", help="cpu (default), cuda or auto")
    parser.add_argument("--out", default=".", help="folder that receives BENCHMARKS.md and benchmarks/ (default .)")
    parser.add_argument("--model", action="append", default=[], help="also evaluate this SB3 model zip (repeatable)")
    parser.add_argument("--only", default=None, help="evaluate only agents whose name contains this text")
    args = parser.parse_args(argv)
    device = resolve_device(args.device)
    root = Path(args.out)
    results = root / "benchmarks" / "results" / "agents"
    start = time.perf_counter()
    for job in jobs(args.model):
        if args.only and args.only.lower() not in job.name.lower():
            continue
        result = evaluate(job.make(device), agent=job.name, device=device, progress=None, **job.kwargs)
        if job.training_s:
            result.extra["training_s"] = job.training_s
        result.save(results / f"{_slug(job.name)}.json")
        print(result.markdown_row(), flush=True)
    plot(root)
    print(f"wrote {render(root)} in {time.perf_counter() - start:.1f} s")
    return 0


def plot(root: Path) -> None:
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
        fig.savefig(out / "guess_distribution.png", dpi=110)
        plt.close(fig)
    logs = sorted(CHECKPOINTS.glob("*.metrics.jsonl"))
    if logs:
        fig, (ax_win, ax_mean) = plt.subplots(1, 2, figsize=(11, 4))
        for log in logs:
            rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
            for stage in dict.fromkeys(r["stage"] for r in rows):
                part = [r for r in rows if r["stage"] == stage]
                label = f"{log.name.split('.')[0]} stage {stage}"
                ax_win.plot([r["step"] for r in part], [100 * r["win_rate"] for r in part], label=label)
                ax_mean.plot([r["step"] for r in part], [r["mean_guesses"] for r in part], label=label)
        ax_win.set(xlabel="update", ylabel="greedy win % on the stage's answers", title="win rate")
        ax_mean.set(xlabel="update", ylabel="mean guesses (wins)", title="guesses")
        ax_win.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "learning_curves.png", dpi=110)
        plt.close(fig)
