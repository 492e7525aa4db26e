"""The hot paths on a busy machine: each one's wall time beside N other CPU-bound processes (N = 0,
1, 2, 4).

Each path runs as a user runs it (a fresh ``wordle-gym`` or ``python -m`` process) while N busy
loops hold the cores, twice: with this code's OpenMP wait policy (``OMP_WAIT_POLICY=PASSIVE``, set
by ``import wordle_gym`` unless already set) and with OpenMP's default (the code before it: spinning
waits). The machine's fair share is about (N + cores) / cores times the idle time; a slowdown far
above it is threads waiting on each other.

    python -m benchmarks.contention            # every path, N = 0, 1, 2, 4 (15 min on 2 cores)
    python -m benchmarks.contention --quick    # one path, N = 0 and 1
    python -m benchmarks.contention --library --before PATH  # the README's Python snippet

``--library``: the README's third snippet (``evaluate(MaxEntropySolver(opener="salet"))``, which
imports ``wordle_agents`` first) as a user runs it, with no ``OMP_WAIT_POLICY`` in the environment,
beside N = 0 and 2 busy processes, on this code and on the checkout at ``--before`` (written to
``results/library_contention_cpu.json``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.common import parse_args, save

COMMAND = "python -m benchmarks.contention"
PATHS = {
    "eval, one board (max-entropy from SALET, 2315 games)": [
        "eval", "--agent", "max-entropy", "--opener", "salet",
    ],
    "eval, Dordle (max-entropy from SALET, 300 games)": [
        "eval", "--agent", "max-entropy", "--opener", "salet", "--boards", "2", "--games", "300",
    ],
    "eval, the vector env (random, 2315 games)": ["eval", "--agent", "random"],
    "the exact solver (optimal tree from SALET)": ["-m", "wordle_agents.commands.optimal", "salet"],
}  # fmt: skip
# "" is no policy to OpenMP
POLICIES = {"this code (PASSIVE)": "PASSIVE", "before (OpenMP's default)": ""}


@contextmanager
def busy(count: int) -> Iterator[None]:
    """``count`` processes that each keep a core busy."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        time.sleep(0.5 if count else 0)
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def timed(args: list[str], policy: str) -> float:
    """Wall time of one fresh process (``wordle-gym ARGS``, or ``python ARGS`` for a module)."""
    command = (
        [sys.executable, *args]
        if args[0] == "-m"
        else [shutil.which("wordle-gym") or "wordle-gym", *args]
    )
    env = {**os.environ, "OMP_WAIT_POLICY": policy}
    start = time.perf_counter()
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600)
    if out.returncode:
        raise RuntimeError(f"{' '.join(args)} failed: {out.stderr[-500:]}")
    return time.perf_counter() - start


SNIPPET = (
    "from wordle_agents import MaxEntropySolver\n"
    "from wordle_gym.harness.evaluation import evaluate\n"
    "print(evaluate(MaxEntropySolver(opener='salet'), device='cpu').summary())\n"
)


def snippet_time(checkout: str | None) -> float:
    """Wall time of the README's snippet in a fresh process, with no OpenMP wait policy set, on
    this code or on ``checkout``'s (its agents as ``wordle_agents``)."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if checkout is not None:
        root = Path(checkout).resolve()
        folder = root / ".fresh_measure"
        folder.mkdir(exist_ok=True)
        if not (folder / "wordle_agents").exists():
            (folder / "wordle_agents").symlink_to(root / "agents")
        env["PYTHONPATH"] = os.pathsep.join([str(folder), str(root)])
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", SNIPPET], env=env, capture_output=True, text=True, timeout=3600
    )
    if out.returncode or "2315/2315" not in out.stdout:
        raise RuntimeError(f"the snippet failed: {out.stderr[-500:]}")
    return time.perf_counter() - start


def library(result: dict, before: str | None) -> None:
    """``--library``: the README's snippet beside 0 and 2 busy processes, this code and before."""
    rows = []
    for name, checkout in (("this code", None), ("before", before)):
        if name == "before" and before is None:
            continue
        times = {}
        for n in (0, 2):
            with busy(n):
                times[str(n)] = min(snippet_time(checkout) for _ in range(2))  # best of two
            print(f"{name} | {n} busy: {times[str(n)]:.2f} s", flush=True)
        rows.append(
            {
                "path": "the README's Python snippet (max-entropy from SALET)",
                "policy": name,
                "seconds": times,
            }
        )
    command = f"{COMMAND} --library" + (" --before PATH" if before else "")
    result.update({"command": command, "cores": os.cpu_count(), "rows": rows})
    save("library_contention", result)


def main() -> None:
    def extra(parser) -> None:
        parser.add_argument("--library", action="store_true", help="the README's Python snippet")
        parser.add_argument("--before", help="with --library: a checkout of an older commit")

    args, _, result = parse_args(__doc__, "one path, N = 0 and 1", extra)
    if args.library:
        library(result, args.before)
        return
    counts = (0, 1) if args.quick else (0, 1, 2, 4)
    paths = dict(list(PATHS.items())[:1]) if args.quick else PATHS
    rows = []
    for name, command in paths.items():
        for policy_name, policy in POLICIES.items():
            times = {}
            for n in counts:
                with busy(n):
                    times[str(n)] = min(timed(command, policy) for _ in range(2))  # best of two
                print(f"{name} | {policy_name} | {n} busy: {times[str(n)]:.2f} s", flush=True)
            rows.append({"path": name, "policy": policy_name, "seconds": times})
    result.update(
        {
            "command": COMMAND + (" --quick" if args.quick else ""),
            "cores": os.cpu_count(),
            "rows": rows,
        }
    )
    save("contention", result)


if __name__ == "__main__":
    main()
