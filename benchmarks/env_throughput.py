"""Environment throughput: pattern table, single env, vector env (with and without masks),
against a plain-Python single-game env written here as the baseline and, side by side in the
same run, against other envs and older checkouts of this one.

    python -m benchmarks.env_throughput [--device cpu|cuda|auto] [--quick]
        [--before PATH]                      # a checkout of an older commit (git worktree add PATH
        COMMIT) [--peer-python PY --peer-path DIR]   # gym-wordle 0.1.3: its venv's python, gym
        0.19's source

The single-env rows run ``gym.make(...)`` with random actions, each in a fresh process (ours,
the older checkout's and the peer's alike), alternating, best of three rounds; the same for
Stable-Baselines3 PPO on ``DummyVecEnv`` of 8 such envs; with ``--before``, the torch vector env
at 1 to 1024 games (mask "all") the same way. Installing the peer, whose pinned
gym 0.19 sdist no longer builds: in a venv with ``setuptools<58`` and ``wheel``,
``pip download --no-deps --no-build-isolation --no-binary :all: gym==0.19.0`` and unpack it
(that folder is ``--peer-path``); in another venv ``pip install --no-deps gym-wordle==0.1.3``
and ``pip install numpy sty==1.0 cloudpickle`` (its python is ``--peer-python``).

Writes ``benchmarks/results/env_throughput_<device>.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections import Counter

import numpy as np
import torch
from tqdm import tqdm

from benchmarks.common import parse_args, run_fresh, save
from wordle_gym import WordleEnv
from wordle_gym.core.rules import build_pattern_table
from wordle_gym.core.words import Vocabulary, load_word_list
from wordle_gym.envs.multi import make_vector_env
from wordle_gym.harness import throughput


class PlainPythonWordle:
    """The baseline: one game in plain Python (strings, Counter, lists), with the same
    feedback rule and a comparable knowledge observation (greens, exclusions, counts, turn)."""

    def __init__(self, answers: list[str], allowed: list[str], seed: int = 0) -> None:
        self.answers, self.allowed, self.rng = answers, allowed, random.Random(seed)

    def reset(self) -> list[int]:
        self.answer, self.turn = self.rng.choice(self.answers), 0
        self.green = [None] * 5
        self.excluded = [set() for _ in range(5)]
        self.low, self.high = Counter(), {}
        return self._obs()

    # complexity: the plain-Python baseline as its authors write it, one method (timed as such)
    def step(self, action: int) -> tuple[list[int], float, bool]:
        guess = self.allowed[action]
        tiles = [2 if g == a else 0 for g, a in zip(guess, self.answer, strict=True)]
        left = Counter(a for g, a in zip(guess, self.answer, strict=True) if g != a)
        for i, g in enumerate(guess):
            if tiles[i] == 0 and left[g] > 0:
                tiles[i], left[g] = 1, left[g] - 1
        shown = Counter()
        for i, (g, t) in enumerate(zip(guess, tiles, strict=True)):
            if t == 2:
                self.green[i] = g
            else:
                self.excluded[i].add(g)
            if t:
                shown[g] += 1
        for g in set(guess):
            self.low[g] = max(self.low[g], shown[g])
            if any(t == 0 for c, t in zip(guess, tiles, strict=True) if c == g):
                self.high[g] = shown[g]
        self.turn += 1
        won = tiles == [2] * 5
        done = won or self.turn >= 6
        return self._obs(), -1.0 - (5.0 if done and not won else 0.0), done

    def _obs(self) -> list[int]:
        letters = "abcdefghijklmnopqrstuvwxyz"
        green = [int(self.green[i] == c) for i in range(5) for c in letters]
        excluded = [int(c in self.excluded[i]) for i in range(5) for c in letters]
        return (
            green
            + excluded
            + [self.low[c] for c in letters]
            + [self.high.get(c, 5) for c in letters]
            + [int(self.turn == t) for t in range(7)]
        )


# Run in a fresh process: argv = api ("gymnasium" or "gym" 0.19), env id, steps.
SINGLE_ENV = """
import json, sys, time
import numpy as np
api, env_id, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
if api == "gym":
    import gym, gym_wordle
else:
    import gymnasium as gym, wordle_gym
env = gym.make(env_id)
env.reset()
actions = np.random.default_rng(0).integers(env.action_space.n, size=steps).tolist()
start = time.perf_counter()
for a in actions:
    out = env.step(a)
    if out[2] or (api != "gym" and out[3]):  # gym 0.19: (obs, reward, done, info)
        env.reset()
print(json.dumps(steps / (time.perf_counter() - start)))
"""

# SB3 on DummyVecEnv(8) of gym.make("Wordle-v0"): stepping alone, then PPO learning. argv = steps.
SB3_PPO = """
import json, sys, time
import numpy as np, torch
import gymnasium as gym, wordle_gym
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv
torch.set_num_threads(1)
steps = int(sys.argv[1])
venv = DummyVecEnv([lambda: gym.make("Wordle-v0")] * 8)
venv.seed(0)
venv.reset()
actions = np.random.default_rng(0).integers(12972, size=(steps // 8, 8))
start = time.perf_counter()
for a in actions:
    venv.step(a)
stepping = steps / (time.perf_counter() - start)
model = PPO("MlpPolicy", venv, n_steps=128, batch_size=256, n_epochs=1, seed=0, device="cpu")
start = time.perf_counter()
model.learn(total_timesteps=steps)
ppo = steps / (time.perf_counter() - start)
print(json.dumps({"dummy_vec_env_steps_per_s": stepping, "ppo_steps_per_s": ppo}))
"""

# The torch vector env; argv = num_envs, seconds, mask mode, boards[, "packed"]. Prints ms per
# batched step.
VECTOR_STEP = """
import json, sys, time
import torch
from wordle_gym.envs.multi import make_vector_env
n, budget, mask, boards = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
# older checkouts have no such option
packed = {"mask_dtype": "packed"} if sys.argv[5:] == ["packed"] else {}
env = make_vector_env(n, device="cpu", action_mask=mask, boards=boards, **packed)
env.reset(seed=0)
gen = torch.Generator().manual_seed(0)
actions = [torch.randint(12972, (n,), generator=gen) for _ in range(8)]
for a in actions:
    env.step(a)
steps, start = 0, time.perf_counter()
while time.perf_counter() - start < budget:
    env.step(actions[steps % 8])
    steps += 1
print(json.dumps(1e3 * (time.perf_counter() - start) / steps))
"""
# (num_envs, mask, boards, mask dtype) timed side by side with --before: a few games (the fixed cost
# of a step's torch calls), the big batch with each mask, the packed masks (the older checkout: its
# int8 masks), and Quordle's.
SIDE_BY_SIDE_VECTOR = (
    (1, "all", 1, "int8"),
    (8, "all", 1, "int8"),
    (64, "all", 1, "int8"),
    (1024, "all", 1, "int8"),
    (16384, "all", 1, "int8"),
    (16384, "candidates", 1, "int8"),
    (16384, "candidates", 1, "packed"),
    (16384, "hard", 1, "int8"),
    (16384, "hard", 1, "packed"),
    (16384, "all", 4, "int8"),
)
QUICK_SIDE_BY_SIDE = (SIDE_BY_SIDE_VECTOR[2], SIDE_BY_SIDE_VECTOR[8], SIDE_BY_SIDE_VECTOR[9])
"""With ``--quick`` (a smoke run): a few games, a packed mask, Quordle (each row is a fresh process
per contender)."""


PASSIVE = "this checkout, OMP_WAIT_POLICY=PASSIVE"
"""The side-by-side vector rows of ``BIG`` games again with torch's OpenMP threads sleeping when
idle instead of spinning: a spinning thread takes the core that a big step's compiled kernels split
their rows onto (2 cores here)."""
BIG = 16384


def _config(n: int, mask: str, boards: int, dtype: str) -> str:
    """A side-by-side row's key: "16384 all", "16384 all 4" for 4 boards, "16384 hard 1 packed"."""
    if dtype == "packed":
        return f"{n} {mask} {boards} packed"
    return f"{n} {mask}" + (f" {boards}" if boards > 1 else "")


def side_by_side(args, quick: bool) -> dict[str, object]:
    """Single env and SB3 PPO rows for this checkout, ``--before`` and the peer, alternating."""
    steps = 5000 if quick else 50_000
    contenders = {"this checkout": (sys.executable, None, "gymnasium", "Wordle-v0")}
    if args.before:
        contenders["before"] = (sys.executable, args.before, "gymnasium", "Wordle-v0")
    if args.peer_python:
        contenders["gym-wordle 0.1.3"] = (args.peer_python, args.peer_path, "gym", "Wordle-v0")
    single = _single_side_by_side(contenders, steps, 1 if quick else 3)
    vector = _vector_side_by_side(contenders, quick) if args.before else {}
    sb3: dict[str, dict] = {}
    ppo_steps = 1024 if quick else 8192
    for name, (python, path, api, _) in contenders.items():
        if api == "gymnasium":
            sb3[name] = run_fresh(SB3_PPO, [str(ppo_steps)], python, path)[0]
    return {
        "steps": steps,
        "single_env": {name: max(values) for name, values in single.items()},
        "before": args.before and _commit_of(args.before),
        "sb3_ppo_steps": ppo_steps,
        "sb3_ppo": sb3,
        "vector_ms_per_step": {
            name: {str(n): min(v) for n, v in runs.items()} for name, runs in vector.items()
        },
    }


def _vector_side_by_side(
    contenders: dict[str, tuple], quick: bool
) -> dict[str, dict[str, list[float]]]:
    """The vector env's ms a step for this checkout, ``before`` and this checkout with OpenMP's
    passive wait (the big batches), each setting's rows alternating in rounds."""
    names = ("this checkout", "before", PASSIVE)
    configs = QUICK_SIDE_BY_SIDE if quick else SIDE_BY_SIDE_VECTOR
    vector: dict[str, dict[str, list[float]]] = {
        name: {_config(*c): [] for c in configs} for name in names
    }
    vector[PASSIVE] = {_config(*c): [] for c in configs if c[0] >= BIG}
    seconds = "0.3" if quick else "3"
    for _ in tqdm(range(1 if quick else 3), desc="vector env, side by side", unit="round"):
        for n, mask, boards, dtype in configs:
            key = _config(n, mask, boards, dtype)
            for name in (name for name in vector if key in vector[name]):
                argv = [str(n), seconds, mask, str(boards)] + ([dtype] if name != "before" else [])
                vector[name][key].append(_vector_ms(contenders, name, argv))
    return vector


def _vector_ms(contenders: dict[str, tuple], name: str, argv: list[str]) -> float:
    """One vector-env timing (``VECTOR_STEP`` with ``argv``) of a contender, in a fresh process
    (PASSIVE: this checkout with OpenMP's passive wait)."""
    python, path, _, _ = contenders["this checkout" if name == PASSIVE else name]
    extra = {"OMP_WAIT_POLICY": "PASSIVE"} if name == PASSIVE else None
    return run_fresh(VECTOR_STEP, argv, python, path, extra_env=extra)[0]


def _single_side_by_side(
    contenders: dict[str, tuple], steps: int, rounds: int
) -> dict[str, list[float]]:
    """The single env's steps a second for each contender, ``rounds`` times in turn."""
    single: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in tqdm(range(rounds), desc="single env, side by side", unit="round"):
        for name, (python, path, api, env_id) in contenders.items():
            single[name].append(run_fresh(SINGLE_ENV, [api, env_id, str(steps)], python, path)[0])
    return single


def _commit_of(checkout: str) -> str:
    """The short commit a checkout is at ("" where git cannot say)."""
    found = subprocess.run(
        ["git", "-C", checkout, "log", "-1", "--format=%h"],
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.strip()


def time_single(make, steps: int) -> float:
    env = make()
    actions = np.random.default_rng(0).integers(12972, size=steps)
    env.reset()
    start = time.perf_counter()
    for a in actions:
        out = env.step(int(a))
        if out[2]:
            env.reset()
    return steps / (time.perf_counter() - start)


def time_sync_vector(num_envs: int, budget_s: float) -> dict[str, float]:
    """Gymnasium's SyncVectorEnv of the single env (``vectorization_mode="sync"``), numpy
    actions."""
    import gymnasium as gym

    env = gym.make_vec("Wordle-v0", num_envs=num_envs, vectorization_mode="sync")
    env.reset(seed=0)
    actions = np.random.default_rng(0).integers(12972, size=(64, num_envs))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < budget_s:
        env.step(actions[steps % 64])
        steps += 1
    elapsed = time.perf_counter() - start
    return {
        "num_envs": num_envs,
        "env_steps_per_s": steps * num_envs / elapsed,
        "ms_per_step": 1e3 * elapsed / steps,
    }


def mask_breakdown(num_envs: int, budget_s: float) -> list[dict[str, object]]:
    """Where a step's time goes on the CPU, every mask: each compiled kernel of
    ``wordle_gym.core._kernels`` (timed around its ``run``) and the rest of the step, in ms per
    step."""
    from wordle_gym.core import _kernels

    rows = []
    for mask in ("all", "candidates", "hard"):
        # the kernels compiled (or loaded) first
        throughput.time_vector(num_envs, torch.device("cpu"), mask, 0.05)
        spent: dict[str, float] = {}
        plain = _kernels.run

        def timed(kernel, *args, plain=plain, spent=spent) -> None:
            start = time.perf_counter()
            plain(kernel, *args)
            spent[kernel.__name__] = spent.get(kernel.__name__, 0.0) + time.perf_counter() - start

        _kernels.run = timed
        try:
            run = throughput.time_vector(num_envs, torch.device("cpu"), mask, budget_s)
        finally:
            _kernels.run = plain
        # + 3 warm-up steps
        kernels = {name: 1e3 * seconds / (run["steps"] + 3) for name, seconds in spent.items()}
        rows.append(
            {
                "mask": mask,
                "num_envs": num_envs,
                "ms_per_step": run["ms_per_step"],
                "kernels_ms": kernels,
            }
        )
    return rows


def _side_by_side_flags(parser) -> None:
    parser.add_argument("--before", help="an older checkout of this repository, timed side by side")
    parser.add_argument(
        "--peer-python", help="the python of a venv with gym-wordle 0.1.3 installed"
    )
    parser.add_argument(
        "--peer-path", help="put on that python's PYTHONPATH (gym 0.19's unpacked source)"
    )


def profile_step(num_envs: int, device: torch.device, steps: int = 10) -> dict[str, object]:
    """Where a batched step's time goes, mask "all": torch's profiler over ``steps`` steps (after 3
    warm-up steps), the 15 operators with the most self time on the device (the CPU here), per step,
    and the number of operator calls per step (on CUDA, each is one or more kernel launches)."""
    from torch.profiler import ProfilerActivity, profile

    env = make_vector_env(num_envs, device=device, action_mask="all")
    env.reset(seed=0)
    action = torch.randint(env.vocabulary.num_allowed, (num_envs,), device=device)
    for _ in range(3):
        env.step(action)
    cuda = device.type == "cuda"
    activities = [ProfilerActivity.CPU, *([ProfilerActivity.CUDA] if cuda else [])]
    with profile(activities=activities) as prof:
        for _ in range(steps):
            env.step(action)
        if cuda:
            torch.cuda.synchronize(device)
    # operators, not kernels
    events = [e for e in prof.key_averages() if e.key.startswith("aten::")]
    key = "self_device_time_total" if cuda else "self_cpu_time_total"
    top = sorted(events, key=lambda e: getattr(e, key), reverse=True)[:15]
    return {
        "num_envs": num_envs,
        "steps": steps,
        "time": "device" if cuda else "cpu",
        "calls_per_step": sum(e.count for e in events) / steps,
        "ops": [
            {
                "name": e.key,
                "calls_per_step": e.count / steps,
                "self_ms_per_step": getattr(e, key) / 1e3 / steps,
            }
            for e in top
        ],
    }


def main() -> None:
    args, device, result = parse_args(
        __doc__, "short timings (a smoke run)", extra=_side_by_side_flags
    )
    budget = 0.3 if args.quick else 2.0
    vocab = Vocabulary()

    builds = []
    for _ in range(1 if args.quick else 3):
        start = time.perf_counter()
        build_pattern_table(vocab.allowed_codes.to(device), vocab.answer_codes.to(device))
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        builds.append(time.perf_counter() - start)
    result["pattern_table"] = {
        "shape": [vocab.num_allowed, vocab.num_answers],
        "first_s": builds[0],
        "best_s": min(builds),
    }

    steps = 500 if args.quick else 20_000
    answers, allowed = load_word_list("answers"), load_word_list("allowed")
    result["single_env_steps_per_s"] = time_single(WordleEnv, steps)
    result["plain_python_steps_per_s"] = time_single(
        lambda: PlainPythonWordle(answers, allowed), steps
    )
    if device.type == "cpu":
        result["side_by_side"] = side_by_side(args, args.quick)

    # what bench --env does
    result["vector"] = throughput.measure(device, throughput.default_sizes(device), budget)
    big = throughput.default_sizes(device)[-1]
    result["profile"] = profile_step(big, device)
    if device.type == "cpu":
        result["sync_vector"] = [time_sync_vector(n, budget) for n in (1, 8, 64)]
        result["mask_breakdown"] = mask_breakdown(16384, budget)
    result["command"] = " ".join(["python -m benchmarks.env_throughput", *sys.argv[1:]])
    save("env_throughput", result)


if __name__ == "__main__":
    main()
