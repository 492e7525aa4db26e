"""DQN ablation on the 100-word stage: one setting changed at a time against the seed-001 settings.

The base is what DQNConfig's defaults were before this ablation (width 512, the tile-shaped reward);
the defaults now are its winning row (width 1024, the "default" reward).

    python -m benchmarks.dqn_ablation [--device cpu|cuda] [--quick] [--only NAME,NAME]

``--only`` runs the settings whose names start with the given prefixes and keeps the other rows
of an earlier result (one run per session fits; the table grows across sessions).

Each run trains ``DQNTrainer`` on the 100-word stage (answers = guesses) for a fixed number of
updates, evaluates greedily through the harness every 250 updates, and records the first update
reaching 95 % wins and the final and best win rates. Writes
``benchmarks/results/dqn_ablation_<device>.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict

from benchmarks.common import RESULTS, parse_args, save
from wordle_agents.rl.dqn import DQNAgent, DQNConfig, DQNTrainer
from wordle_gym.core.words import stage_words
from wordle_gym.harness.evaluation import evaluate

# the first DQN write-up's settings
BASE = {"hidden": 512, "reward": "tile-shaped", "learning_starts": 2000}
# (name, changes to BASE)
SETTINGS: list[tuple[str, dict]] = [
    ("seed-001 settings (prioritized, dueling, double, lr 5e-4, width 512)", {}),
    ("uniform replay", {"prioritized": False}),
    ("no dueling head", {"dueling": False}),
    ("lr 1e-3", {"lr": 1e-3}),
    ("target update 100", {"target_update": 100}),
    ("gamma 0.9", {"gamma": 0.9}),
    ("reward default (-1 per guess, -5 loss)", {"reward": "default"}),
    ("1 update per env step", {"updates_per_step": 1}),
    ("4 updates per env step", {"updates_per_step": 4}),
    ("batch 128", {"batch_size": 128}),
    ("width 1024", {"hidden": 1024}),
    ("epsilon decays over 10 %", {"eps_fraction": 0.1}),
    (
        "combined: width 1024, reward default, lr 1e-3",
        {"hidden": 1024, "reward": "default", "lr": 1e-3},
    ),
    (
        "combined: width 1024, reward default (the defaults now)",
        {"hidden": 1024, "reward": "default"},
    ),
]


def run(changes: dict, updates: int, device) -> dict:
    answers, allowed = stage_words("100")
    config = DQNConfig(**{**BASE, "total_updates": updates, **changes})
    trainer = DQNTrainer(DQNAgent(config, device=device), answers, allowed, device, updates)
    curve, start, reached = [], time.perf_counter(), None
    while trainer.iteration < updates:
        before = trainer.iteration
        trainer.step()
        if trainer.iteration // 250 > before // 250 or trainer.iteration >= updates:
            result = evaluate(
                trainer.agent, answers=answers, allowed=allowed, device=device, progress=False
            )
            curve.append((trainer.iteration, result.win_rate, result.mean_guesses_wins))
            if reached is None and result.win_rate >= 0.95:
                reached = trainer.iteration
    return {
        "config": asdict(config),
        "curve": curve,
        "updates_to_95": reached,
        "final_win_rate": curve[-1][1],
        "best_win_rate": max(c[1] for c in curve),
        "seconds": time.perf_counter() - start,
    }


def main() -> None:
    args, device, result = parse_args(
        __doc__, "one setting, 250 updates (a smoke run)", extra=_only_flag
    )
    updates = 250 if args.quick else 3000
    settings = SETTINGS[:1] if args.quick else SETTINGS
    kept: dict[str, dict] = {}
    if args.only:
        prefixes = [p.strip() for p in args.only.split(",")]
        settings = [s for s in settings if s[0].startswith(tuple(prefixes))]
        if not settings:
            raise SystemExit(
                f"--only {args.only!r} matches no setting; expected prefixes of "
                f"{[s[0] for s in SETTINGS]}"
            )
        earlier = RESULTS / f"dqn_ablation_{device.type}.json"
        if earlier.exists():
            old = json.loads(earlier.read_text(encoding="utf-8"))
            if old.get("updates") == updates:
                kept = {r["setting"]: r for r in old["runs"]}
    result["updates"] = updates
    for name, changes in settings:
        outcome = run(changes, updates, device)
        print(
            f"{name}: best {100 * outcome['best_win_rate']:.1f} %, to 95 %: "
            f"{outcome['updates_to_95']}",
            flush=True,
        )
        kept[name] = {"setting": name, "changes": changes, **outcome, "date": result["date"]}
    order = [name for name, _ in SETTINGS]
    result["runs"] = sorted(
        kept.values(), key=lambda r: order.index(r["setting"]) if r["setting"] in order else 99
    )
    save("dqn_ablation", result)


def _only_flag(parser) -> None:
    parser.add_argument("--only", help="comma-separated name prefixes of the settings to run")


if __name__ == "__main__":
    main()
