"""Training throughput of A2C and DQN (side by side with an older checkout), and the harness rows
of the shipped A2C and DQN checkpoints.

    python -m benchmarks.training [--device cpu|cuda|auto] [--quick] [--before PATH]

Throughput: each trainer with its default settings (A2C: seed 000's, 1024 games per update; DQN:
256 games per env step, 2 updates of 512 transitions each) on the 100-word stage and on the full
vocabulary (2315 answers, 12972 guesses), timed after a warm-up in a fresh process per row; A2C on
the full vocabulary also from the shipped ``a2c_2315.pt`` (where its full stage starts). With
``--before PATH`` (a checkout of an older commit: ``git worktree add PATH COMMIT``) the same
measurement runs on that code too, alternating with this checkout, with the same settings.
Checkpoints: every shipped ``a2c*.pt`` and ``dqn*.pt``, evaluated greedily through the harness on
the word lists it was trained on (``--checkpoints-only``: those alone, the last run's throughput
kept, after a shipped file changed). Writes ``benchmarks/results/training_<device>.json`` and
regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import wordle_agents
import wordle_gym
from benchmarks.common import RESULTS, parse_args, run_fresh, save
from wordle_agents.common.checkpoint import read_checkpoint, shipped_dir
from wordle_agents.rl.networks import NETWORKS, load_network
from wordle_gym.harness.evaluation import evaluate

# Runs in a fresh process with the code's wordle_gym first on PYTHONPATH; its agents folder is
# imported as wordle_agents (an installed wordle_agents would otherwise be the one found).
TIMING = r"""
import importlib.util, json, sys, time
agents, kind, stage, device, repeats, init = sys.argv[1:7]
repeats = int(repeats)
spec = importlib.util.spec_from_file_location("wordle_agents", f"{agents}/__init__.py",
                                              submodule_search_locations=[agents])
package = importlib.util.module_from_spec(spec)
sys.modules["wordle_agents"] = package
spec.loader.exec_module(package)
import torch
from wordle_gym.core.words import stage_words
answers, allowed = stage_words(stage)
device = torch.device(device)
if kind == "a2c":
    from wordle_agents.rl.a2c import A2CAgent, A2CConfig, A2CTrainer
    config = A2CConfig()
    agent = A2CAgent(config, device=device) if init == "-" else A2CAgent.load(init, device=device)
    trainer, per_step = A2CTrainer(agent, answers, allowed), config.batch_games
else:
    from wordle_agents.rl.dqn import DQNAgent, DQNConfig, DQNTrainer
    config = DQNConfig(hidden=1024, reward="default", learning_starts=512, total_updates=10**6)
    agent = DQNAgent(config, device=device)
    trainer, per_step = DQNTrainer(agent, answers, allowed), config.num_games
while trainer.iteration < 2:  # warm-up: the replay buffer fills, learning starts
    trainer.step()
if device.type == "cuda":
    torch.cuda.synchronize(device)
first, start = trainer.iteration, time.perf_counter()
for _ in range(repeats):
    trainer.step()
if device.type == "cuda":
    torch.cuda.synchronize(device)
seconds = time.perf_counter() - start
print(json.dumps({"updates_per_s": (trainer.iteration - first) / seconds,
                  "items_per_s": repeats * per_step / seconds, "file": package.__file__}))
"""
UNITS = {"a2c": "games", "dqn": "transitions"}
# (agent, stage, starting weights: None = fresh, or a shipped file): timed updates. Fresh weights
# lose nearly every full-vocabulary game in 6 turns; from the 2315-stage weights, where a full-stage
# run starts, many games end sooner, and the trainer's work follows the games still playing.
REPEATS = {
    ("a2c", "100", None): 10,
    ("a2c", "full", None): 5,
    ("a2c", "full", "training/a2c_2315.pt"): 5,
    ("dqn", "100", None): 40,
    ("dqn", "full", None): 20,
}


def throughput(args, device) -> list[dict]:
    # (the folder holding wordle_gym, the agents folder): the code imported here, and the older
    # checkout
    this = (Path(wordle_gym.__file__).parent.parent, Path(wordle_agents.__file__).parent)
    contenders = {"this checkout": this}
    if args.before:
        before = Path(args.before).resolve()
        contenders["before"] = (before, before / "agents")
    rows = []
    for (kind, stage, init), repeats in REPEATS.items():
        label = stage if init is None else f"{stage}, from `{Path(init).name}`"
        row = {"agent": kind, "stage": label, "unit": UNITS[kind]}
        weights = "-" if init is None else str(shipped_dir() / init)
        for name, (root, agents) in contenders.items():  # alternating, row by row
            argv = [
                str(agents),
                kind,
                stage,
                str(device),
                str(2 if args.quick else repeats),
                weights,
            ]
            measured, _ = run_fresh(TIMING, argv, path=str(root))
            # that code's own agents
            assert measured["file"].startswith(str(agents)), measured["file"]
            row[name] = {
                "updates_per_s": measured["updates_per_s"],
                "per_s": measured["items_per_s"],
            }
        rows.append(row)
        print(row, flush=True)
    return rows


def main() -> None:
    args, device, result = parse_args(__doc__, "two steps per row (a smoke run)", extra=_flags)
    if args.checkpoints_only and args.before:
        raise SystemExit(
            "--before times the throughput; --checkpoints-only keeps the last run's: give one"
        )
    # the throughput of the last run, its date named; the checkpoints again
    if args.checkpoints_only:
        last = json.loads((RESULTS / f"training_{device.type}.json").read_text())
        result = {**last, "checkpoints_date": result["date"]}
    else:
        result["throughput"] = throughput(args, device)
    if args.before:
        commit = subprocess.run(
            ["git", "-C", args.before, "log", "-1", "--format=%h"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        result["before"] = commit or args.before
    result["checkpoints"] = []
    for path in network_files():
        agent = load_network(path, device=device)
        info = agent.checkpoint
        r = evaluate(agent, **info.lists, hard_mode=info.hard_mode, device=device, progress=False)
        r.agent = (
            f"{agent.kind.upper()} `{path.name}` (stage "
            f"{info.stage}{', hard mode' * info.hard_mode})"
        )
        r.extra = {"training_s": info.training_s, "stage": info.stage}
        result["checkpoints"].append(r.to_dict())
    save("training", result)


def network_files() -> list[Path]:
    """Every A2C and DQN weights file the table of shipped agents names (training stages included),
    by name (not a network that sees every board: its rows are the multi-board benchmark's)."""
    from wordle_agents.zoo import AGENTS

    files = {
        shipped_dir() / file
        for agent in AGENTS.values()
        for file in agent.weights
        if file.endswith(".pt")
    }
    networks = [
        path
        for path in files
        if path.is_file() and read_checkpoint(path, None).get("kind") in NETWORKS
    ]
    return sorted(networks, key=lambda path: path.name)


def _flags(parser) -> None:
    parser.add_argument("--before", help="an older checkout of this repository, timed side by side")
    parser.add_argument(
        "--checkpoints-only",
        action="store_true",
        help="evaluate the checkpoints again; keep the last throughput",
    )


if __name__ == "__main__":
    main()
