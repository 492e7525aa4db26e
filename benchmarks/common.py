"""What the benchmark scripts share: arguments, the machine's description (the package's), saving
results."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

from wordle_gym.harness.throughput import describe
from wordle_gym.utils.device import resolve_device
from wordle_gym.utils.files import atomic_write_json

HERE = Path(__file__).resolve().parent

RESULTS = HERE / "results"


def parse_args(
    doc: str | None, quick_help: str, extra: Callable[[argparse.ArgumentParser], None] | None = None
) -> tuple[argparse.Namespace, torch.device, dict[str, Any]]:
    """The common ``--device`` and ``--quick`` flags (``extra`` adds a script's own); returns the
    args, the device and a result dict already holding the device, machine and date."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto (default: cpu)")
    parser.add_argument("--quick", action="store_true", help=quick_help)
    if extra is not None:
        extra(parser)
    args = parser.parse_args()
    device = resolve_device(args.device)
    return (
        args,
        device,
        {"device": device.type, "machine": describe(device), "date": time.strftime("%Y-%m-%d")},
    )


def run_fresh(
    code: str,
    args: Sequence[str] = (),
    python: str = sys.executable,
    path: str | None = None,
    cwd: Path | None = None,
    extra_env: dict[str, str] | None = None,
) -> tuple[Any, float]:
    """``code`` in a fresh ``python`` process (``path`` first on PYTHONPATH, ``extra_env`` added to
    the environment): the JSON of its last printed line, and the process's wall time. By default it
    runs from a neutral folder, since ``python -c`` puts the working directory first on sys.path."""
    env = {**os.environ, **(extra_env or {})}
    if path:
        env["PYTHONPATH"] = os.pathsep.join([path, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    start = time.perf_counter()
    out = subprocess.run(
        [python, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=cwd or tempfile.gettempdir(),
    )
    seconds = time.perf_counter() - start
    if out.returncode:
        raise SystemExit(f"{python} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1]), seconds


def measure_fresh(script: str, call: str, checkout: str | None = None) -> Any:
    """What ``call`` (an expression on the module, e.g. ``"measure(10.0)"``) returns, run in a fresh
    process where the benchmark ``script`` imports as a module: on this code, or on the checkout at
    ``checkout`` (its agents as ``wordle_agents``, from a folder kept in it so that numba's cache of
    its kernels serves its next process)."""
    code = f"import json, fresh_measure; print(json.dumps(fresh_measure.{call}))"
    if checkout is None:
        with tempfile.TemporaryDirectory() as folder:
            shutil.copy(script, Path(folder) / "fresh_measure.py")
            return run_fresh(code, path=os.pathsep.join([folder, str(HERE.parent)]))[0]
    root = Path(checkout).resolve()
    folder = root / ".fresh_measure"
    folder.mkdir(exist_ok=True)
    shutil.copy(script, folder / "fresh_measure.py")
    if not (folder / "wordle_agents").exists():
        (folder / "wordle_agents").symlink_to(root / "agents")
    return run_fresh(code, path=os.pathsep.join([str(folder), str(root)]))[0]


def before_option(parser: argparse.ArgumentParser) -> None:
    """``--before PATH``: a benchmark's measurement on an older checkout, beside this code's."""
    parser.add_argument(
        "--before", help="a checkout of an older commit: the same on its code, side by side"
    )


def save(name: str, result: dict[str, Any]) -> None:
    """Write ``results/<name>_<device>.json`` atomically and regenerate BENCHMARKS.md."""
    from benchmarks import make_table

    path = RESULTS / f"{name}_{result['device']}.json"
    atomic_write_json(path, result)
    print(f"wrote {path}")
    make_table.main()
