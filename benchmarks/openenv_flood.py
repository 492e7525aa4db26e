"""The OpenEnv server under a flood of plain-HTTP ``/reset`` requests: how long a WebSocket
player's step takes, quiet and while 16 other processes send ``/reset`` as fast as they can.

    python -m benchmarks.openenv_flood [--before PATH] [--quick]

The server (``python -m wordle_gym.integrations.openenv``, the default game) runs in its own
process on the loopback address; the player resets a game every six steps and times each step's
round trip. Needs the ``openenv`` extra. ``--before PATH`` (a checkout of an older commit): the same
with that code's server, side by side. Writes ``benchmarks/results/openenv_flood_cpu.json`` and
regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from typing import Any

from benchmarks.common import parse_args, save

FLOODERS = 16

_FLOOD = """
import sys, urllib.request
url = sys.argv[1]
while True:
    request = urllib.request.Request(
        url, data=b"{}", headers={"content-type": "application/json"}
    )
    try:
        urllib.request.urlopen(request, timeout=60).read()
    except Exception:
        pass
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _steps(port: int, steps: int) -> list[float]:
    """Seconds of each of ``steps`` WebSocket steps' round trips."""
    from websockets.sync.client import connect

    times = []
    with connect(f"ws://127.0.0.1:{port}/ws") as ws:
        for i in range(steps):
            if i % 6 == 0:
                ws.send(json.dumps({"type": "reset", "data": {}}))
                ws.recv()
            began = time.perf_counter()
            ws.send(json.dumps({"type": "step", "data": {"message": "[crane]"}}))
            ws.recv()
            times.append(time.perf_counter() - began)
    return times


def _figures(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median_ms": 1000 * statistics.median(ordered),
        "p90_ms": 1000 * ordered[int(0.9 * (len(ordered) - 1))],
    }


def measure(steps: int) -> dict[str, Any]:
    """A player's step times, quiet and under the flood, on the code this process imports."""
    port = _free_port()
    command = [sys.executable, "-m", "wordle_gym.integrations.openenv", "--port", str(port)]
    server = subprocess.Popen(
        [*command, "--sessions", "80"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    flood: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        quiet = _figures(_steps(port, steps))
        url = f"http://127.0.0.1:{port}/reset"
        env = {**os.environ, "PYTHONPATH": ""}
        flood = [
            subprocess.Popen([sys.executable, "-c", _FLOOD, url], env=env) for _ in range(FLOODERS)
        ]
        time.sleep(2.0)  # the flood under way
        busy = _figures(_steps(port, steps))
    finally:
        for process in [*flood, server]:
            process.kill()
            process.wait()
    return {"quiet": quiet, "flood": busy, "steps": steps, "flooders": FLOODERS}


def main() -> None:
    # here, not at the top: this file also runs against older checkouts' common (measure_fresh)
    from benchmarks.common import before_option

    args, _, result = parse_args(__doc__, "30 steps a measurement", before_option)
    steps = 30 if args.quick else 120
    result["command"] = " ".join(["python -m benchmarks.openenv_flood", *sys.argv[1:]])
    if args.before:
        from benchmarks.common import measure_fresh

        result["before"] = measure_fresh(__file__, f"measure({steps})", args.before)
    result["this"] = measure(steps)
    save("openenv_flood", result)


if __name__ == "__main__":
    main()
