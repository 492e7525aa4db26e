"""Test processes: the repository root, a fake third-party distribution, commands run as a user runs
them."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root folder."""


def fake_distribution(root: Path, entry_points: dict[str, str], module: str = "") -> dict[str, str]:
    """A third-party distribution on ``root``: a dist-info with entry points and a module
    ``fake_agents`` (its source: ``module``); returns the environment of a process that has it
    installed."""
    info = root / "fake_agents-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-agents\nVersion: 1.0\n")
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text("[wordle_gym.agents]\n" + lines)
    (root / "fake_agents.py").write_text(textwrap.dedent(module))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(ROOT)]), "NO_COLOR": "1"}


def run(
    args: list[str], env: dict[str, str], cwd: Path = ROOT, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def drain(fifo: Path) -> tuple[threading.Thread, list[bytes]]:
    """A reader on ``fifo`` (a writer blocks until one opens it); what it read lands in the list."""
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as handle:
            got.append(handle.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, got


def interrupt(
    args: list[str], ready: str, stdin: str | None = None, delay: float = 1.0
) -> tuple[int, float, str]:
    """Run ``args`` until its stderr shows ``ready`` (the long work has begun), then ``delay``
    seconds later send SIGINT: (exit status, seconds it took to stop, stderr)."""
    child = subprocess.Popen(
        args,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # a background job starts with it ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    err: list[str] = []
    reader = threading.Thread(
        target=lambda: err.extend(iter(lambda: child.stderr.read(1), "")), daemon=True
    )
    reader.start()
    if stdin:
        child.stdin.write(stdin)
        child.stdin.flush()
    try:
        deadline = time.perf_counter() + 240
        while ready not in "".join(err) and child.poll() is None and time.perf_counter() < deadline:
            time.sleep(0.2)
        time.sleep(delay)
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        child.wait(timeout=120)
        took = time.perf_counter() - sent
    finally:
        child.kill()
    reader.join(10)
    return child.returncode, took, "".join(err)


def wordle_gym_process(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``wordle-gym ARGS`` in a process of its own, as a user runs it (where the process matters:
    exit codes from the interpreter, terminals, signals)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "wordle_gym", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def wordle_gym_here(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``wordle-gym ARGS`` in this process (no interpreter start-up): the same main(), its input
    from ``stdin``, its output captured."""
    import contextlib

    from wordle_gym.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(stdin):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 1
    return subprocess.CompletedProcess(["wordle-gym", *args], code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved
