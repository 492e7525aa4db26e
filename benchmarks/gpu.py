"""Everything ``../shared/GPU.md`` asks of a GPU, in order, in one command: the first GPU minutes go
to GPU work.

    python -m benchmarks.gpu --out gpu-run [--device cuda] [--train-minutes 0] [--improve-minutes 0]
    [--quick]
        [--dry-run]

Steps (each a fresh process with its own time limit; its output goes to ``<out>/<step>.log``, and
``<out>/summary.json`` records every step's command, exit status and seconds as soon as it ends):

1. ``cuda-tests``: ``pytest -m cuda`` over the modules that hold CUDA tests (the CPU-vs-CUDA
   equality tests, the hot loops with CUDA's sync check);
2. ``env-throughput``: ``python -m benchmarks.env_throughput --device cuda`` (1 to 2^20 games, every
   mask, torch's profile of a step at 2^20); ``cuda-graph``: ``python -m benchmarks.cuda_graph``
   (the step eager and captured as a CUDA graph);
3. ``training``: ``python -m benchmarks.training --device cuda`` (A2C and DQN updates per second,
   fresh and from the shipped weights, each in a fresh process; every shipped network through the
   harness on CUDA);
4. ``multi-board``: ``python -m benchmarks.multi_board --device cuda --boards 2,4`` (Quordle
   game-steps per second beside Wordle's; the greedy solver on the standard Dordle and Quordle
   sets);
5. ``bench``: ``wordle-gym bench --device cuda --optimal-agent none --out <out>/bench`` (every
   agent's row), then ``bench-device``: ``python -m benchmarks.bench_device`` (those rows beside the
   CPU rows);
6. with ``--train-minutes M``: ``train-a2c`` and ``train-dqn``, the examples' training scripts from
   the shipped full-game weights, ``--max-minutes M`` each, resumable from ``<out>/runs/<agent>``;
7. with ``--improve-minutes M``: ``improve``, ``improve-hard`` and ``improve-root``, own-policy
   rollouts (``python -m wordle_agents.commands.improve``) from the shipped ``dqn_explored.pt``, in
   hard mode with the reward ``win-first`` from ``dqn_explored_hard.pt``, and with exploring starts
   at the root from the repository's ``training/dqn_root.pt`` (no opener fixed by hand), and
   ``improve-boards``, the network that sees every board (``python -m
   wordle_agents.commands.improve_boards --see-all --train-board``) from the shipped
   ``dqn_boards.pt``, ``--max-minutes M`` each; the best networks go to ``<out>/<the same file
   name>``, the runs (resumable by the same command) to ``<out>/runs/improve*`` (``--only
   improve-root`` runs one). On an H100 an iteration took 25-35 s (35-100 min on this 2-core CPU);
   with the root explored about 55 s on an H200 (2-4 h here); on several boards 21-33 s on an H200;
8. ``benchmarks``: ``python -m benchmarks.make_table`` (BENCHMARKS.md, CUDA rows included).

With ``--opener-minutes M``, all the while: ``opener-values-<k>``, the exact first-move totals of
the openers no table holds, on the machine's spare CPU cores (``--opener-cores``, default all but
two): a process a core, each its own share (``python -m wordle_agents.commands.optimal --values
allowed --first-move-only --part k/K``), into one copy of the shipped table,
``<out>/opener_values_normal.json``, merged back here by ``python -m wordle_agents.commands.optimal
--merge <out>/opener_values_normal.json --save wordle_gym/data/solver/opener_values_normal.json``.

Steps 1-5 and 8 took 4.5 minutes on an H200 (2026-11-26): they fit a 15-minute device lease, with
room for ``--improve-minutes 2`` (each run ends its last iteration after the minutes: about a minute
more). Each benchmark writes ``benchmarks/results/<name>_cuda.json``; copied back into a checkout,
``python -m benchmarks.make_table`` renders them. A failing step is recorded and the next one runs.
``--quick`` passes ``--quick`` to the benchmarks (a rehearsal on the CPU: ``--device cpu --quick``).
``--dry-run`` runs every step on the CPU with tiny sizes (the test suite does, so that the script
works the first time a GPU is at hand); it writes nothing outside ``--out``.

On a lent machine with torch but not this project's other dependencies and no package index: bring
the wheels it lacks (``pip download --no-deps --only-binary=:all: -d .whl gymnasium
farama-notifications``, and stable-baselines3 with sb3-contrib for the bench's SB3 rows), then ``pip
install --no-index --no-deps .whl/*.whl && pip install --no-index --no-deps --no-build-isolation -e
.`` there (the agents' entry points need the install). The tracked tree is about 60 MiB of a 64 MiB
transfer: carry little beside it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from wordle_gym.core.words import load_word_list
from wordle_gym.utils.files import atomic_write_json

ROOT = Path(__file__).resolve().parent.parent


OPENER_TABLE = "opener_values_normal.json"  # the shipped table the opener values continue
ROWS = Path("benchmarks") / "results" / "agents"  # where a bench run's rows go under its --out
# The own-policy rollout runs (``--improve-minutes``): step name, the weights under
# agents/checkpoints it improves.
IMPROVE = {
    "improve": "dqn_explored.pt",
    "improve-hard": "dqn_explored_hard.pt",
    # no opener fixed by hand: exploring starts at the root (issue 64)
    "improve-root": "training/dqn_root.pt",
}
# The test modules that hold tests marked ``cuda`` (the others need no GPU and would only be
# collected).
CUDA_TEST_MODULES = [
    "tests/envs/test_vector.py",
    "tests/agents/rl/test_hot_loops.py",
    "tests/agents/common/test_checkpoint.py",
]


def steps(
    out: Path,
    device: str,
    train_minutes: float,
    dry: bool,
    quick_run: bool = False,
    improve_minutes: float = 0.0,
) -> list[tuple[str, list[str], float]]:
    """(name, command, time limit in seconds) of every step, in order."""
    python = sys.executable
    checkpoints = ROOT / "agents" / "checkpoints"
    runs = out / "runs"
    best20 = str(runs / "a2c" / "best_20.pt")
    if dry:  # the same commands, on the CPU, with tiny sizes
        tiny = [
            "--stages",
            "20",
            "--iterations",
            "3",
            "--eval-every",
            "2",
            "--checkpoint-every",
            "1",
        ]
        return [
            (
                "cuda-tests",
                [
                    python,
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "-m",
                    "cuda",
                    *CUDA_TEST_MODULES,
                ],
                600,
            ),
            (
                "env-throughput",
                [
                    python,
                    "-c",
                    "import wordle_gym.harness.throughput as t, torch, benchmarks.env_throughput "
                    "as e; d = torch.device('cpu'); print(t.table(t.measure(d, [8], 0.05, "
                    "progress=False))); print(e.profile_step(8, d, steps=2))",
                ],
                300,
            ),
            # needs CUDA: imports, parses
            ("cuda-graph", [python, "-m", "benchmarks.cuda_graph", "--help"], 60),
            (
                "training",
                [
                    python,
                    "-c",
                    "import benchmarks.training as t; from benchmarks.common import run_fresh; "
                    "agents = str(t.Path(t.wordle_agents.__file__).parent); "
                    "print(run_fresh(t.TIMING, [agents, 'dqn', '20', 'cpu', '1', '-'])[0])",
                ],
                300,
            ),
            (
                "multi-board",
                [
                    python,
                    "-c",
                    "import torch; from wordle_gym.harness.throughput import time_vector; "
                    "print([time_vector(8, torch.device('cpu'), 'all', 0.05, boards=k) for k in "
                    "(1, 4)])",
                ],
                300,
            ),
            (
                "bench",
                [
                    python,
                    "-m",
                    "wordle_gym",
                    "bench",
                    "--device",
                    "cpu",
                    "--only",
                    "random",
                    "--out",
                    str(out / "bench"),
                ],
                600,
            ),
            # it writes to the repository
            ("bench-device", [python, "-m", "benchmarks.bench_device", "--help"], 60),
            (
                "train-a2c",
                [
                    python,
                    "examples/train_a2c.py",
                    *tiny,
                    "--hidden",
                    "16",
                    "--batch-games",
                    "16",
                    "--device",
                    "cpu",
                    "--run-dir",
                    str(runs / "a2c"),
                    "--max-minutes",
                    "1",
                ],
                300,
            ),
            (
                "train-dqn",
                [
                    python,
                    "examples/train_dqn.py",
                    *tiny,
                    "--device",
                    "cpu",
                    "--run-dir",
                    str(runs / "dqn"),
                    "--max-minutes",
                    "1",
                ],
                300,
            ),
            *[
                (
                    name,
                    [
                        python,
                        "-c",
                        "import sys, torch; from wordle_agents.commands.improve import main; "
                        f"words = torch.load({best20!r}, weights_only=True)['answers']; "
                        f"open({str(out / 'words20.txt')!r}, 'w').write(chr(10).join(words)); "
                        f"sys.exit(main({_improve_args(out, name, best20, 'cpu', 1)!r} + "
                        f"['--answers', {str(out / 'words20.txt')!r}, '--allowed', "
                        f"{str(out / 'words20.txt')!r}, '--top', '2', '--screen', '2', "
                        "'--explore', '1', '--epochs', '1', '--iterations', '1']))",
                    ],
                    300,
                )
                for name in IMPROVE
            ],
            (
                "improve-boards",
                [
                    python,
                    "-m",
                    "wordle_agents.commands.improve_boards",
                    *_boards_args(out, str(runs / "a2c" / "best_20.pt"), "cpu", 1),
                    *[
                        "--answers",
                        str(out / "words20.txt"),
                        "--allowed",
                        str(out / "words20.txt"),
                        "--boards",
                        "2",
                    ],
                    *[
                        "--games",
                        "2",
                        "--top",
                        "2",
                        "--samples",
                        "2",
                        "--epochs",
                        "1",
                        "--anchors",
                        "0",
                    ],
                    *["--validation", "10", "--iterations", "1", "--context", "16"],
                ],
                300,
            ),
            (
                "benchmarks",
                [python, "-c", "import benchmarks.report as r; print(len(r.RENDERERS))"],
                120,
            ),
        ]
    quick = ["--quick"] if quick_run else []
    plan = [
        (
            "cuda-tests",
            [
                python,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-m",
                "cuda",
                *CUDA_TEST_MODULES,
            ],
            90,
        ),
        (
            "env-throughput",
            [python, "-m", "benchmarks.env_throughput", "--device", device, *quick],
            150,
        ),
        ("cuda-graph", [python, "-m", "benchmarks.cuda_graph", "--device", device, *quick], 60),
        ("training", [python, "-m", "benchmarks.training", "--device", device, *quick], 120),
        (
            "multi-board",
            [python, "-m", "benchmarks.multi_board", "--device", device, "--boards", "2,4", *quick],
            75,
        ),
        (
            "bench",
            [
                python,
                "-m",
                "wordle_gym",
                "bench",
                "--device",
                device,
                "--optimal-agent",
                "none",
                "--out",
                str(out / "bench"),
            ],
            90,
        ),
        (
            "bench-device",
            [python, "-m", "benchmarks.bench_device", "--rows", str(out / "bench" / ROWS)],
            30,
        ),
    ]
    if train_minutes > 0:
        minutes, limit = str(train_minutes), 60 * train_minutes + 120
        for kind in ("a2c", "dqn"):
            plan.append(
                (
                    f"train-{kind}",
                    [
                        python,
                        f"examples/train_{kind}.py",
                        "--stages",
                        "full",
                        "--iterations",
                        "1000000",
                        "--init",
                        str(checkpoints / f"{kind}_full.pt"),
                        "--device",
                        device,
                        "--run-dir",
                        str(runs / kind),
                        "--max-minutes",
                        minutes,
                        "--tensorboard",
                    ],
                    limit,
                )
            )
    # the language-model loop (the "trl" extra): the tiny model
    if importlib.util.find_spec("trl") is not None:
        grpo = ["examples/train_grpo.py", "--tiny", "--steps", "4", "--device", device]
        grpo += ["--output-dir", str(runs / "grpo")]
        plan.append(("grpo-tiny", [python, *grpo], 600))
    if improve_minutes > 0:
        for name, weights in IMPROVE.items():
            command = _improve_args(out, name, str(checkpoints / weights), device, improve_minutes)
            plan.append(
                (
                    name,
                    [python, "-m", "wordle_agents.commands.improve", *command],
                    60 * improve_minutes + 240,
                )
            )
        boards = _boards_args(out, str(checkpoints / "dqn_boards.pt"), device, improve_minutes)
        plan.append(
            (
                "improve-boards",
                [python, "-m", "wordle_agents.commands.improve_boards", *boards],
                60 * improve_minutes + 240,
            )
        )
    return [*plan, ("benchmarks", [python, "-m", "benchmarks.make_table"], 30)]


def opener_runs(out: Path, minutes: float, cores: int, dry: bool) -> list[tuple[str, list[str]]]:
    """(name, command) of each process of the opener values (``--opener-minutes``): ``cores``
    shares of the openers into one table under ``out`` (a copy of the shipped one; with ``dry``, a
    fresh table of a 20-word game)."""
    python, table, lists = sys.executable, out / OPENER_TABLE, []
    if dry:
        words = out / "opener_words.txt"
        words.write_text("\n".join(load_word_list("answers")[:20]) + "\n")
        table, lists = (
            out / "opener_values_dry.json",
            ["--answers", str(words), "--allowed", str(words)],
        )
    elif not table.exists():
        shutil.copyfile(ROOT / "agents" / "checkpoints" / OPENER_TABLE, table)
    command = [python, "-m", "wordle_agents.commands.optimal", "--values", "allowed"]
    command += ["--first-move-only", "--save", str(table), "--time-limit", "120", "--quiet"]
    command += ["--max-minutes", str(minutes), *lists]
    return [
        (f"opener-values-{k}", [*command, "--part", f"{k}/{cores}"]) for k in range(1, cores + 1)
    ]


def _improve_args(out: Path, name: str, init: str, device: str, minutes: float) -> list[str]:
    """``python -m wordle_agents.commands.improve``'s options of step ``name`` (a key of
    :data:`IMPROVE`): the recipe's options of dqn-explored's last stages (with exploring starts at
    the root too for "improve-root"), as many iterations as ``minutes`` allow."""
    hard = ["--hard", "--reward", "win-first"] if name == "improve-hard" else []
    root = ["--explore-root", "16"] if name == "improve-root" else []
    return [
        "--init", init, "--out", str(out / Path(IMPROVE[name]).name),
        "--run-dir", str(out / "runs" / name), *hard, *root,
        "--top", "24", "--screen", "24", "--explore", "4", "--epochs", "40", "--iterations", "1000",
        "--max-minutes", str(minutes), "--device", device,
    ]  # fmt: skip


def _boards_args(out: Path, init: str, device: str, minutes: float) -> list[str]:
    """``python -m wordle_agents.commands.improve_boards``'s options of step ``improve-boards``: a
    new run of the recipe ``dqn-boards``'s stage from ``init`` (the shipped network that sees every
    board), as many iterations as ``minutes`` allow; the best network goes to
    ``<out>/dqn_boards.pt``."""
    return [
        "--init", init, "--out", str(out / "dqn_boards.pt"),
        "--run-dir", str(out / "runs" / "improve-boards"),
        "--see-all", "--train-board", "--boards", "2,4", "--games", "200", "--lr", "1e-4",
        "--epochs", "8", "--anchors", "1500", "--iterations", "1000", "--max-minutes", str(minutes),
        "--device", device,
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    for option in ("train_minutes", "improve_minutes", "opener_minutes"):
        if not getattr(args, option) >= 0:
            parser.error(f"--{option.replace('_', '-')} must be >= 0; got {getattr(args, option)}")
    if args.opener_cores < 1:
        parser.error(f"--opener-cores must be >= 1; got {args.opener_cores}")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    summary: dict = {
        "device": "cpu" if args.dry_run else args.device,
        "dry_run": args.dry_run,
        "steps": [],
    }
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(":"),
    }
    plan = steps(
        out, args.device, args.train_minutes, args.dry_run, args.quick, args.improve_minutes
    )

    def chosen(name: str) -> bool:
        return not args.only or any(part in name for part in args.only.split(","))

    def ended(name: str, command: list[str], code: int, start: float) -> None:
        """A step's exit status and seconds, in the summary (written at once) and printed."""
        seconds = time.perf_counter() - start
        summary["steps"].append(
            {"name": name, "command": command, "exit": code, "seconds": round(seconds, 1)}
        )
        atomic_write_json(out / "summary.json", summary)
        print(f"[{name}] exit {code} in {seconds:.0f} s; log {out / (name + '.log')}", flush=True)

    beside = []  # the opener values, on the CPU cores the steps leave
    if args.opener_minutes > 0 and chosen("opener-values"):
        beside = _start_beside(out, env, args)
    for name, command, limit in plan:
        if chosen(name):
            print(f"[{name}] {shlex.join(command)} (limit {limit / 60:.0f} min)", flush=True)
            start = time.perf_counter()
            ended(name, command, _run_step(out / f"{name}.log", command, env, limit), start)
    for name, command, process, log, start in beside:
        # each stops itself after its minutes, finishing the opener it is on (up to --time-limit)
        end = start + 60 * args.opener_minutes + 180
        try:
            code = process.wait(timeout=max(1.0, end - time.perf_counter()))
        except subprocess.TimeoutExpired:
            process.kill()  # the table is written whole, one opener at a time
            process.wait()
            code = 124
        log.close()
        ended(name, command, code, start)
    failed = [s["name"] for s in summary["steps"] if s["exit"]]
    print(
        f"done: {len(summary['steps'])} steps, "
        f"{'failed: ' + ', '.join(failed) if failed else 'all passed'}"
    )
    return 1 if failed else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out", required=True, help="folder of the logs, results and training runs"
    )
    parser.add_argument("--device", default="cuda", help="the GPU (default: cuda)")
    parser.add_argument(
        "--train-minutes",
        type=float,
        default=0.0,
        help="minutes of each training run; 0, the default, runs none",
    )
    parser.add_argument(
        "--improve-minutes",
        type=float,
        default=0.0,
        help="minutes of each own-policy rollout run; 0 runs none",
    )
    parser.add_argument(
        "--opener-minutes",
        type=float,
        default=0.0,
        help="minutes of the opener values on the spare CPU cores, beside the steps; 0 runs none",
    )
    parser.add_argument(
        "--opener-cores",
        type=int,
        default=max(1, (os.cpu_count() or 1) - 2),
        help="processes of the opener values (default: all cores but two)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="pass --quick to the benchmarks (a rehearsal)"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="every step on the CPU with tiny sizes"
    )
    parser.add_argument(
        "--only", help="run only the steps whose name holds one of these comma-separated texts"
    )
    return parser


def _start_beside(out: Path, env: dict[str, str], args: argparse.Namespace) -> list[tuple]:
    """The opener values' processes, started on the CPU cores the steps leave (one thread each):
    (name, command, process, its log, its start)."""
    one_thread = {**env, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    beside = []
    for name, command in opener_runs(out, args.opener_minutes, args.opener_cores, args.dry_run):
        print(f"[{name}] {shlex.join(command)} (beside the steps)", flush=True)
        log = open(out / f"{name}.log", "w")  # noqa: SIM115 (closed once the process ends)
        process = subprocess.Popen(
            command, cwd=ROOT, env=one_thread, stdout=log, stderr=subprocess.STDOUT
        )
        beside.append((name, command, process, log, time.perf_counter()))
    return beside


def _run_step(log_path: Path, command: list[str], env: dict[str, str], limit: float) -> int:
    """One step run to its end or its ``limit`` in seconds (then exit status 124), logged."""
    with open(log_path, "w") as log:
        try:
            status = subprocess.run(
                command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=limit
            )
        except subprocess.TimeoutExpired:
            return 124
    return status.returncode


if __name__ == "__main__":
    sys.exit(main())
