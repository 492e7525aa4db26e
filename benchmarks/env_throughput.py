"""Environment throughput: pattern table, single env, vector env (with and without masks),
against a plain-Python single-game env written here as the baseline.

    python benchmarks/env_throughput.py [--device cpu|cuda|auto] [--quick]

Writes ``benchmarks/results/env_throughput_<device>.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import parse_args, save

from wordle_gym import WordleEnv, WordleVectorEnv
from wordle_gym.rules import build_pattern_table
from wordle_gym.words import Vocabulary, load_word_list


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


def time_vector(num_envs: int, device: torch.device, mask: str, budget_s: float) -> dict[str, float]:
    env = WordleVectorEnv(num_envs, device=device, action_mask=mask)
    env.reset(seed=0)
    gen = torch.Generator(device=device).manual_seed(0)
    actions = [torch.randint(12972, (num_envs,), device=device, generator=gen) for _ in range(8)]

    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    for a in actions[:3]:  # warm-up (allocator, kernels)
        env.step(a)
    sync()
    steps, start = 0, time.perf_counter()
    while True:
        env.step(actions[steps % len(actions)])
        steps += 1
        if steps % 4 == 0:
            sync()
            if time.perf_counter() - start > budget_s:
                break
    elapsed = time.perf_counter() - start
    return {"num_envs": num_envs, "mask": mask, "env_steps_per_s": steps * num_envs / elapsed,
            "ms_per_step": 1e3 * elapsed / steps}  # fmt: skip


def main() -> None:
    args, device, result = parse_args(__doc__, "short timings (a smoke run)")
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

    steps = 500 if args.quick else 5000
    answers, allowed = load_word_list("answers"), load_word_list("allowed")
    result["single_env_steps_per_s"] = time_single(WordleEnv, steps)
    result["plain_python_steps_per_s"] = time_single(lambda: PlainPythonWordle(answers, allowed), steps)

    sizes = [1, 64, 1024, 16384] + ([1 << 20] if device.type == "cuda" else [])
    runs = [(n, mask) for n in sizes for mask in ("all", "candidates", "hard")]
    result["vector"] = []
    for n, mask in tqdm(runs, desc="vector env", unit="config"):
        if mask != "all" and n * vocab.num_allowed > (1 << 31):
            continue  # a (num_envs x 12972) mask per step is beyond memory at this size
        result["vector"].append(time_vector(n, device, mask, budget))
    save("env_throughput", result)


if __name__ == "__main__":
    main()
