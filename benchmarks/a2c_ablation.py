"""A2C ablation on the real game: one change at a time, the same budget of games each, from the
logs.

Each row is a run of ``python -m research.a2c_variants`` (the A2C trainer with the ablations'
options) on the full game (2315 answers, 12972 allowed guesses) from the same weights, with one
setting changed; its greedy evaluations on all 2315 answers (every 250 updates, or 125) are its
learning curve. The runs train for hours on this CPU, so this script does not train: it reads their
``metrics.jsonl``, kept in ``benchmarks/results/a2c_ablation/`` (run folders do not outlive a
session), and writes the table and the plot of win rate and mean guesses against games played and
against wall time.

    python -m benchmarks.a2c_ablation                              # table + plot from the kept logs
    python -m benchmarks.a2c_ablation --collect NAME=runs/FOLDER   # keep (or refresh) one run's log

A from-scratch recipe run is kept under a name that starts with ``scratch-``::

    python -m benchmarks.a2c_ablation --collect scratch-NAME=runs/recipes/FOLDER

From scratch (``scratch-NAME``): the ``a2c`` recipe run whole with one change at every stage (its
run folder:
one log per recipe stage), beside the shipped run's own log
(``agents/checkpoints/training/a2c.metrics.jsonl``) at the same updates of the same stages.

Writes ``benchmarks/results/a2c_ablation_cpu.json``, ``benchmarks/plots/a2c_ablation.png`` and
regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

from benchmarks.common import HERE, RESULTS, parse_args, save
from wordle_agents.common.checkpoint import shipped_dir
from wordle_gym.utils.files import atomic_write, atomic_write_text

LOGS = RESULTS / "a2c_ablation"
RECIPE = "python -m research.a2c_variants recipe a2c"
A2C_STAGES = ("vocab-1000", "answers-2315", "answers-2315-lr3e-4", "full", "full-gamma0.8")
# name: (the change, the recipe's own options)
SCRATCH: dict[str, tuple[str, str]] = {
    "entropy0.01": (
        "entropy bonus 0.01 at every stage",
        " ".join(f"--set {stage}.entropy_coef=0.01" for stage in A2C_STAGES),
    ),
}
PREV = "`a2c_full.pt` after its lr 3e-4 stage (`git show 7a4b498^:agents/checkpoints/a2c_full.pt`)"
NOW = (
    "`a2c_full.pt` as shipped until 2026-11-27 (`git show 415acf6:agents/checkpoints/a2c_full.pt`)"
)
TRAIN = "python -m research.a2c_variants --stages full"
# run twice: 7 min, then 4.2 more (B, C)
H200 = "--iterations 1000000 --gamma 0.8 --device cuda --max-minutes 7"
THEN = (
    "`a2c_full.pt` as shipped 2026-11-27, fifth session (`git show "
    "2bcf7af:agents/checkpoints/a2c_full.pt`)"
)
CPU50 = "the run above on this CPU at its best, update 50 (99.78 % / 3.7550), rounded to float16"
# four runs at once on one NVIDIA H200, 7.6 min each (`.gpu`-style script; the sixth session's 15
# device-minutes)
H200B = (
    "--init runs/a2c-c-cpu/best_full.pt --iterations 1000000 --gamma 0.8 --eval-every 50 --device "
    "cuda --max-minutes 7.6"
)
# name: (the change, the weights it starts from, their (win rate, mean), the command's own options)
RUNS: dict[str, tuple[str, str, tuple[float, float], str]] = {
    "lr3e-4": (
        "lr 3e-4, gamma 0.9 (as the stage before)",
        PREV,
        (0.9970, 3.7812),
        "--batch-games 2048 --init runs/a2c_full_prev.pt --iterations 1000 --lr 0.0003 "
        "--eval-every 250",
    ),
    "lr1e-4": (
        "lr 1e-4",
        PREV,
        (0.9970, 3.7812),
        "--batch-games 2048 --init runs/a2c_full_prev.pt --iterations 1000 --lr 0.0001 "
        "--eval-every 250",
    ),
    "gamma0.8": (
        "lr 1e-4, gamma 0.8 (shipped)",
        PREV,
        (0.9970, 3.7812),
        "--batch-games 2048 --init runs/a2c_full_prev.pt --iterations 1000 --lr 0.0001 --gamma 0.8 "
        "--eval-every 250",
    ),
    "reward-default": (
        "lr 1e-4, reward -1 per guess (-5 more for a loss), gamma 1; stopped: it collapsed",
        NOW,
        (0.9974, 3.7739),
        "--batch-games 2048 --init agents/checkpoints/a2c_full.pt --iterations 6000 --lr 0.0001 "
        "--gamma 1.0 --reward default --eval-every 125",
    ),
    "continued": (
        "lr 1e-4, gamma 0.8, continued from the shipped weights; stopped at 500 updates",
        NOW,
        (0.9974, 3.7739),
        "--batch-games 2048 --init agents/checkpoints/a2c_full.pt --iterations 4000 --lr 0.0001 "
        "--gamma 0.8 --eval-every 250",
    ),
    "batch4096": (
        "lr 1e-4, 4096 games per update (500 updates)",
        PREV,
        (0.9970, 3.7812),
        "--batch-games 4096 --init runs/a2c_full_prev.pt --iterations 500 --lr 0.0001 "
        "--eval-every 125",
    ),
    "info-gain": (
        "lr 1e-4, gamma 0.8, + 0.05 x the bits of information of each guess (shaped reward)",
        PREV,
        (0.9970, 3.7812),
        "--batch-games 2048 --init runs/a2c_full_prev.pt --iterations 1000 --lr 0.0001 --gamma 0.8 "
        "--info-gain 0.05 --eval-every 250",
    ),
    "temp2": (
        "lr 1e-4, gamma 0.8, sampling temperature 2 (500 updates)",
        PREV,
        (0.9970, 3.7812),
        "--batch-games 2048 --init runs/a2c_full_prev.pt --iterations 500 --lr 0.0001 --gamma 0.8 "
        "--temperature 2 --eval-every 250",
    ),
    "temp2-shipped": (
        "lr 1e-4, gamma 0.8, temperature 2, from the shipped weights; stopped at 887 updates "
        "(paused and beside other work: its wall time is not comparable)",
        NOW,
        (0.9974, 3.7739),
        "--batch-games 2048 --init agents/checkpoints/a2c_full.pt --iterations 6000 --lr 0.0001 "
        "--gamma 0.8 --temperature 2 --eval-every 250",
    ),
    "gae0.9": (
        "lr 1e-4, gamma 0.8, GAE lambda 0.9 (500 updates)",
        PREV,
        (0.9970, 3.7812),
        "--batch-games 2048 --init runs/a2c_full_prev.pt --iterations 500 --lr 0.0001 --gamma 0.8 "
        "--gae-lambda 0.9 --eval-every 250",
    ),
    "entropy0.01-shipped": (
        "lr 1e-4, gamma 0.8, entropy bonus 0.01, from the shipped weights; stopped at 243 updates "
        "(beside another run: its wall time is not comparable)",
        NOW,
        (0.9974, 3.7739),
        "--batch-games 2048 --init agents/checkpoints/a2c_full.pt --iterations 5000 --lr 0.0001 "
        "--gamma 0.8 --entropy-coef 0.01 --eval-every 100",
    ),
    "ppo0.2-shipped": (
        "PPO (clip 0.2, 2 passes of 4 minibatches), lr 1e-4, gamma 0.8, from the shipped weights; "
        "stopped at "
        "650 updates (one thread, beside two other runs: its wall time is not comparable)",
        NOW,
        (0.9974, 3.7739),
        "--batch-games 2048 --init agents/checkpoints/a2c_full.pt --iterations 2000 --lr 0.0001 "
        "--gamma 0.8 --clip-range 0.2 --ppo-epochs 2 --minibatches 4 --eval-every 25",
    ),
    "h200-2048": (
        "lr 1e-4, gamma 0.8, continued on an NVIDIA H200 (7 min, beside the two runs below)",
        NOW,
        (0.9974, 3.7739),
        "--batch-games 2048 --init agents/checkpoints/a2c_full.pt --lr 0.0001 --eval-every 200 "
        f"{H200}",
    ),
    "h200-8192": (
        "lr 1e-4, gamma 0.8, 8192 games per update, on an NVIDIA H200 (11 min)",
        NOW,
        (0.9974, 3.7739),
        "--batch-games 8192 --init agents/checkpoints/a2c_full.pt --lr 0.0001 --eval-every 100 "
        f"{H200}",
    ),
    "h200-4096-lr2e-4": (
        "lr 2e-4, gamma 0.8, 4096 games per update, on an NVIDIA H200 (11 min): shipped 2026-11-27 "
        "(fifth session)",
        NOW,
        (0.9974, 3.7739),
        "--batch-games 4096 --init agents/checkpoints/a2c_full.pt --lr 0.0002 --eval-every 100 "
        f"{H200}",
    ),
    "cpu-4096-lr2e-4": (
        "the same, continued on this CPU (one thread, beside other work; 500 updates in 1.5 h)",
        THEN,
        (0.9978, 3.7554),
        "--batch-games 4096 --init agents/checkpoints/a2c_full.pt --lr 0.0002 --gamma 0.8 "
        "--eval-every 50 --iterations 1000000 --run-dir runs/a2c-c-cpu",
    ),
    "h200b-4096-lr2e-4": (
        "from that, lr 2e-4, 4096 games per update, on an NVIDIA H200 (7.6 min, beside the three "
        "runs below)",
        CPU50,
        (0.9978, 3.7550),
        f"--batch-games 4096 --lr 0.0002 {H200B}",
    ),
    "h200b-4096-lr1e-4": (
        "from that, lr 1e-4, 4096 games per update, on an NVIDIA H200 (7.6 min)",
        CPU50,
        (0.9978, 3.7550),
        f"--batch-games 4096 --lr 0.0001 {H200B}",
    ),
    "h200b-4096-lr3e-4": (
        "from that, lr 3e-4, 4096 games per update, on an NVIDIA H200 (7.6 min)",
        CPU50,
        (0.9978, 3.7550),
        f"--batch-games 4096 --lr 0.0003 {H200B}",
    ),
    "h200b-8192-lr2e-4": (
        "from that, lr 2e-4, 8192 games per update, on an NVIDIA H200 (7.6 min): shipped since "
        "2026-11-27 (sixth session), 99.78 % / 3.7481",
        CPU50,
        (0.9978, 3.7550),
        f"--batch-games 8192 --lr 0.0002 {H200B}",
    ),
}


def batch_games(options: str) -> int:
    """Games per update of a run, from its command's options."""
    words = options.split()
    return int(words[words.index("--batch-games") + 1])


def collect(spec: str) -> None:
    name, _, folder = spec.partition("=")
    known = [*RUNS, *(f"scratch-{key}" for key in SCRATCH)]
    if name not in known:
        raise SystemExit(f"--collect: unknown run {name!r}; expected one of {', '.join(known)}")
    LOGS.mkdir(parents=True, exist_ok=True)
    if name in RUNS:
        source = Path(folder) / "metrics.jsonl"
        if not source.is_file():
            raise SystemExit(f"--collect: {source} does not exist")
        shutil.copyfile(source, LOGS / f"{name}.jsonl")
        return
    # a recipe run: each stage's log, in the recipe's order, each row marked with its stage
    lines = []
    for stage in A2C_STAGES:
        source = Path(folder) / stage / "metrics.jsonl"
        if source.is_file():
            lines += [
                json.dumps({"recipe_stage": stage, **json.loads(line)})
                for line in source.read_text().splitlines()
            ]
    if not lines:
        raise SystemExit(
            f"--collect: {folder} holds no stage log of the a2c recipe ({', '.join(A2C_STAGES)})"
        )
    atomic_write_text(LOGS / f"{name}.jsonl", "".join(line + "\n" for line in lines))


def shipped_stage(row: dict) -> tuple[str, int]:
    """The ``a2c`` recipe stage and its own update count of a row of the shipped run's log, which
    names the curriculum's stages ("100", "1000", "2315", "2315 (lr 3e-4)") and counts the last two
    stages' updates on."""
    stage, update = row["stage"], row["iteration"]
    if stage in ("100", "1000"):
        return "vocab-1000", update
    if stage.startswith("2315"):
        return ("answers-2315" if stage == "2315" else "answers-2315-lr3e-4"), update
    return ("full", update) if update <= 3978 else ("full-gamma0.8", update - 3978)


def scratch(name: str) -> dict:
    """A from-scratch run beside the shipped run: one point per evaluation of the run, with the
    shipped run's evaluation at the same update of the same stage where its log has one."""
    change, options = SCRATCH[name]
    shipped = {}
    for line in (shipped_dir() / "training" / "a2c.metrics.jsonl").read_text().splitlines():
        row = json.loads(line)
        stage, update = shipped_stage(row)
        shipped[stage, row["stage"].split()[0], update] = row
    points = []
    for line in (LOGS / f"scratch-{name}.jsonl").read_text().splitlines():
        row = json.loads(line)
        if "train_win_rate" not in row:
            continue
        key = (row["recipe_stage"], row["stage"], row["iteration"])
        other = shipped.get(key, {})
        points.append(
            {
                "recipe_stage": key[0],
                "stage": key[1],
                "update": key[2],
                "run": {
                    k: row.get(k)
                    for k in ("win_rate", "mean_guesses", "train_win_rate", "elapsed_s")
                },
                "shipped": {
                    k: other.get(k) for k in ("win_rate", "mean_guesses", "train_win_rate")
                },
            }
        )
    command = f"{RECIPE} {options} --run-dir runs/recipes/a2c-{name}"
    return {"name": name, "change": change, "command": command, "points": points}


def curve(name: str) -> list[dict]:
    """The run's greedy evaluations, from update 0 (its starting weights)."""
    _, _, (win, mean), options = RUNS[name]
    batch = batch_games(options)
    points = [{"update": 0, "games": 0, "seconds": 0.0, "win_rate": win, "mean_guesses": mean}]
    for line in (LOGS / f"{name}.jsonl").read_text().splitlines():
        row = json.loads(line)
        if "win_rate" in row:
            points.append(
                {
                    "update": row["iteration"],
                    "games": row["iteration"] * batch,
                    "seconds": row["elapsed_s"],
                    "win_rate": row["win_rate"],
                    "mean_guesses": row["mean_guesses"],
                }
            )
    return points


def plot(runs: list[dict], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(7.2, 16))  # one column: the documentation's width
    for i, run in enumerate(runs):
        points = run["curve"]
        style = {
            "label": run["change"],
            "color": plt.cm.tab20(i % 20),
            "marker": "o",
            "markersize": 3,
        }
        axes[0].plot(
            [p["games"] / 1e6 for p in points], [p["mean_guesses"] for p in points], **style
        )
        axes[1].plot(
            [p["seconds"] / 3600 for p in points], [p["mean_guesses"] for p in points], **style
        )
        axes[2].plot(
            [p["games"] / 1e6 for p in points], [100 * p["win_rate"] for p in points], **style
        )
    axes[0].set(
        xlabel="games played (millions)",
        ylabel="mean guesses (wins), all 2315 answers",
        ylim=(3.74, 3.80),
    )
    axes[1].set(
        xlabel="training wall time (h; a shared CPU, or the H200)",
        ylabel="mean guesses (wins)",
        ylim=(3.74, 3.80),
    )
    axes[2].set(xlabel="games played (millions)", ylabel="win %", ylim=(99.5, 100.0))
    handles, labels = axes[0].get_legend_handles_labels()
    # one column that fits the figure's width
    labels = [textwrap.fill(label, 100) for label in labels]
    fig.legend(handles, labels, loc="lower center", ncol=1, fontsize=7.5, frameon=False)
    fig.suptitle("A2C on the real game, one change at a time (greedy evaluations)")
    fig.tight_layout(rect=(0, 0.27, 1, 1))
    atomic_write(out, lambda handle: fig.savefig(handle, format="png", dpi=100))
    plt.close(fig)


def main() -> None:
    def flags(parser) -> None:
        parser.add_argument(
            "--collect",
            action="append",
            default=[],
            metavar="NAME=RUN_DIR",
            help="copy a run folder's metrics.jsonl into the kept logs first",
        )

    args, _, result = parse_args(__doc__, "(no effect: nothing is trained)", extra=flags)
    for spec in args.collect:
        collect(spec)
    runs = []
    for name, (change, start, _, options) in RUNS.items():
        if not (LOGS / f"{name}.jsonl").is_file():
            continue
        runs.append(
            {
                "name": name,
                "change": change,
                "start": start,
                "curve": curve(name),
                "batch_games": batch_games(options),
                "command": f"{TRAIN} {options}{'' if '--device' in options else ' --device cpu'}"
                + ("" if "--run-dir" in options else f" --run-dir runs/a2c_abl_{name}"),
            }
        )
    scratches = [scratch(name) for name in SCRATCH if (LOGS / f"scratch-{name}.jsonl").is_file()]
    result.update({"device": "cpu", "runs": runs, "scratch": scratches})
    plot(runs, HERE / "plots" / "a2c_ablation.png")
    save("a2c_ablation", result)


if __name__ == "__main__":
    main()
