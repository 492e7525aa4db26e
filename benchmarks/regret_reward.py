"""The time ``reward="regret"`` takes per move on LLM-like and poor play, the positions language models reach.

    python -m benchmarks.regret_reward [--games 20] [--budget 2.0] [--quick]

``WordleText-v0`` on the real lists with ``reward="regret"`` and a per-move budget (``regret_budget_s``), played
by LLM-like play (a first guess among the openers language models favour, then 80 % a random candidate, 12 % a
random word, 8 % a reply cut off inside its reasoning) and three kinds of poor play: random words (any of the
12972), random candidates (a word still possible, as a weak model that follows the feedback plays), and a mix
(60 % a random candidate, 25 % a random word, 15 % a reply with no guess). Each step is timed as a caller sees
it (the env's step, the oracle's searches included): p50, p99 and max, the share of moves valued exactly within
the budget, and the mean reward. The oracle keeps its cache across games, as a long training run's env would.
``--before PATH`` (a checkout of an older commit) plays the same games on that code too, first. Writes
``benchmarks/results/regret_reward_cpu.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from benchmarks.common import parse_args, run_fresh, save
from wordle_gym import WordleTextEnv

POLICIES = ("LLM-like", "random words", "random candidates", "mixed")
FAVOURITES = ("crane", "slate", "adieu", "audio", "raise", "arise", "stare", "crate", "trace", "salet", "roate")
"""The first guesses LLM-like play draws from (those models play most)."""


def _reply(env: WordleTextEnv, policy: str, rng: random.Random) -> str:
    words = env.vocabulary.allowed
    candidates = env.game.consistent(env.state)[0].nonzero().flatten().tolist()
    roll = rng.random()
    if policy == "LLM-like":
        if int(env.state.turn[0]) == 0:
            return f"<think>A common opener.</think><guess>{rng.choice(FAVOURITES)}</guess>"
        if roll >= 0.92:
            return "<think>Letters so far: the second position is"  # cut off at max tokens
        if roll >= 0.8:
            return f"<guess>{rng.choice(words)}</guess>"
    if policy == "random words" or (policy == "mixed" and 0.6 <= roll < 0.85):
        return f"<guess>{rng.choice(words)}</guess>"
    if policy == "mixed" and roll >= 0.85:
        return "I am not sure yet."
    return f"<guess>{env.vocabulary.answers[rng.choice(candidates)]}</guess>"


def measure(games: int, budget: float) -> list[dict]:
    """Every kind of play's row: ``games`` seeded games each, ``budget`` seconds a move."""
    env = WordleTextEnv(reward="regret", regret_budget_s=budget)
    rows = []
    for policy in tqdm(POLICIES, desc="kinds of play", unit="kind"):
        rng = random.Random(20261125)
        times, rewards, exact = [], [], []
        for game in range(games):
            env.reset(seed=game)
            done = False
            while not done:
                reply = _reply(env, policy, rng)
                start = time.perf_counter()
                _, reward, done, _, info = env.step(reply)
                times.append(time.perf_counter() - start)
                rewards.append(reward)
                exact.append(bool(info["regret_exact"]))
        seconds = np.array(times)
        rows.append(
            {
                "play": policy,
                "games": games,
                "moves": len(times),
                "p50_s": float(np.percentile(seconds, 50)),
                "p99_s": float(np.percentile(seconds, 99)),
                "max_s": float(seconds.max()),
                "exact_share": float(np.mean(exact)),
                "mean_reward": float(np.mean(rewards)),
            }
        )
    return rows


def _before(path: str, games: int, budget: float) -> list[dict]:
    """:func:`measure` of this script on the code of the checkout at ``path`` (its agents as wordle_agents)."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(__file__, Path(folder) / "regret_measure.py")
        (Path(folder) / "wordle_agents").symlink_to(Path(path).resolve() / "agents")
        code = f"import json, regret_measure; print(json.dumps(regret_measure.measure({games}, {budget})))"
        rows, _ = run_fresh(code, path=os.pathsep.join([folder, str(Path(path).resolve())]))
    return rows


def main() -> None:
    def extra(parser) -> None:
        parser.add_argument("--games", type=int, default=20, help="games per kind of play (default 20)")
        parser.add_argument("--budget", type=float, default=2.0, help="regret_budget_s, seconds (default 2.0)")
        parser.add_argument("--before", help="a checkout of an older commit: the same games on its code first")

    args, _, result = parse_args(__doc__, "2 games per kind, a 0.2 s budget", extra)
    games, budget = (2, 0.2) if args.quick else (args.games, args.budget)
    result["command"] = " ".join(["python -m benchmarks.regret_reward", *sys.argv[1:]])
    if args.before:
        result["before"] = _before(args.before, games, budget)
    result.update(budget_s=budget, rows=measure(games, budget))
    save("regret_reward", result)


if __name__ == "__main__":
    main()
