"""Policy iteration by a network's own rollouts (``python -m wordle_agents.commands.improve``), from
the shipped runs.

The runs take hours on this CPU, so this script does not improve anything: it reads each shipped
improved checkpoint's own record (``improving.history``: every iteration's greedy play on all 2315
answers, the positions changed, the guesses tried, the time) and writes its table. It also measures
how each network plays off its own path (:func:`off_path`, with the exact oracle: about a minute).

    python -m benchmarks.improve

Writes ``benchmarks/results/improve_cpu.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

from pathlib import Path

import torch

from benchmarks.common import parse_args, save
from wordle_agents.common.checkpoint import read_checkpoint, shipped_dir
from wordle_agents.methods.policy_iteration import positions
from wordle_agents.methods.rollouts import rollouts
from wordle_agents.rl.networks import load_network
from wordle_gym.core.config import WordleConfig
from wordle_gym.solver.oracle import Oracle

# the shipped improved checkpoint: the command that made it (the same command continues its run
# folder)
RUNS = {
    "a2c_improved.pt": "python -m wordle_agents.commands.improve --init "
    "agents/checkpoints/a2c_full.pt "
    "--out a2c_improved.pt --run-dir runs/improve_a2c --top 64 --iterations 3; then --top 64 "
    "--deep-top 8 "
    "--deep-random 64 --iterations 4",
    "dqn_improved.pt": "python -m wordle_agents.commands.improve --init "
    "agents/checkpoints/dqn_full.pt "
    "--out dqn_improved.pt --run-dir runs/improve_dqn --top 64 --iterations 5; then --top 128 "
    "--deep-top 4 --deep-answers 30 "
    "--deep-random 128 --iterations 8",
    "dqn_explored.pt": "python -m wordle_agents.commands.improve --init "
    "agents/checkpoints/dqn_improved.pt --out "
    "dqn_explored.pt --run-dir runs/explore1 --top 32 --screen 32 --explore 4 --epochs 150 "
    "--path-copies 0 "
    "--iterations 1; then --top 24 --screen 24 --explore 4 --epochs 50 --path-copies 3 "
    "--iterations 2; then "
    "--top 24 --screen 24 --explore 4 --epochs 40 --path-copies 8 --iterations 5 (the best "
    "network, after 4: "
    "3.5197); then from those weights (the iterations below): python -m "
    "wordle_agents.commands.improve --init "
    "agents/checkpoints/dqn_explored.pt --out dqn_explored2.pt --run-dir runs/explore2 --top 24 "
    "--screen 24 "
    "--explore 4 --epochs 40 --iterations 12 --max-minutes 400 (stopped after 3 for time: 3.4968); "
    "then from those "
    "weights (the iterations below): python -m wordle_agents.commands.improve --init "
    "agents/checkpoints/dqn_explored.pt --out dqn_explored3.pt --run-dir runs/explore3 --top 24 "
    "--screen 24 "
    "--explore 4 --epochs 40 --iterations 12 "
    "--max-minutes 110 (stopped after 2 for time, written with --iterations 2; shipped)",
    "dqn_explored_hard.pt": "hard mode, from dqn_explored.pt: recipe stages explore-hard, "
    "explore-hard-2 (this "
    "CPU) and explore-hard-3 (15 iterations on an NVIDIA H100: 99.96 % / 3.5169; "
    "agents/checkpoints/README.md), "
    "then from those weights (the iteration below): python -m wordle_agents.commands.improve "
    "--init "
    "agents/checkpoints/dqn_explored_hard.pt --out dqn_explored_hard.pt --run-dir runs/hard-wf "
    "--hard --reward "
    "win-first --top 24 --screen 24 --explore 4 --epochs 40 --iterations 1",
    "training/dqn_root.pt": "from git show c60a893:agents/checkpoints/dqn_explored.pt (100 % / "
    "3.4898, opener "
    "LEARN, nothing fixed by hand): python -m wordle_agents.commands.improve --init dqn_learn.pt "
    "--out dqn_root3.pt "
    "--run-dir runs/root --top 24 --screen 24 --explore 4 --explore-root 16 --epochs 40 "
    "--iterations 3 (this "
    "CPU); then from those weights (the iterations below, on an NVIDIA H200): the same options "
    "with --init "
    "dqn_root3.pt --run-dir runs/rootgpu --iterations 1000 --max-minutes 5.5 --device cuda, run "
    "twice (the second "
    "--max-minutes 4.3; the best network, iteration 10, kept)",
}


def off_path(path: Path, config: WordleConfig, oracle: Oracle) -> dict[str, float | str]:
    """How the network plays off its own path: its opener, then at each position it leads to the
    optimum's guess, then its own greedy play, against its own greedy play (mean guesses, every
    answer) and the optimum after its opener. The oracle measures; nothing is trained on it."""
    agent = load_network(str(path))
    found, games = positions(agent, config)
    used = games.guesses
    opener, start, width = found[0].greedy, oracle.start(), config.max_guesses
    answers, forced, optimum = [], [], 0.0
    for p in found:
        if len(p.prefix) == 1:
            after = oracle.after(start, opener, p.answers[0])
            optimum += len(p.answers) * oracle.value(after)
            answers += p.answers
            forced += [[opener, oracle.best_action(after)] + [0] * (width - 2)] * len(p.answers)
    num = config.vocabulary.num_answers
    _, then = rollouts(
        agent, config, torch.tensor(answers), torch.tensor(forced), torch.full((len(answers),), 2)
    )
    won_first = num - len(answers)  # answers the opener itself guessed
    return {
        "file": str(path.relative_to(shipped_dir())),
        "opener": config.vocabulary.allowed[opener],
        "own": float(used.double().mean()),
        "off_path": (won_first + float(then.double().sum())) / num,
        "optimum_after_opener": (num + optimum) / num,
    }


def main() -> None:
    _, _, result = parse_args(__doc__, "(no effect: nothing is trained)")
    runs = []
    for name, command in RUNS.items():
        path = shipped_dir() / name
        if not path.is_file():
            continue
        data = read_checkpoint(path, None)
        runs.append(
            {
                "file": name,
                "kind": data["kind"],
                "command": command,
                "curriculum": data["curriculum"],
                "figures": data["figures"],
                "history": data["improving"]["history"],
                "training_s": data["training_s"],
                "machine": data.get("machine"),
            }
        )
    config = WordleConfig(answers="answers", allowed="allowed")
    oracle = Oracle(config, root_opener=None)
    names = ["dqn_full.pt", "dqn_improved.pt", "dqn_explored.pt", "training/dqn_root.pt"]
    paths = [shipped_dir() / name for name in names if (shipped_dir() / name).is_file()]
    result.update(
        {"device": "cpu", "runs": runs, "off_path": [off_path(p, config, oracle) for p in paths]}
    )
    save("improve", result)


if __name__ == "__main__":
    main()
