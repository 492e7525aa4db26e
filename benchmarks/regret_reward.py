"""The time ``reward="regret"`` takes per move on LLM-like and poor play, the positions language
models reach.

    python -m benchmarks.regret_reward [--games 20] [--llm-games 200] [--budget WORK]
    [--before PATH] [--before-budget-s 2.0] [--quick]

``WordleText-v0`` on the real lists with ``reward="regret"`` and a per-move budget
(``regret_budget``: work, the exact search's count; the code before took seconds,
``regret_budget_s``), played by LLM-like play (a first guess among the openers language models
favour, then 80 % a random candidate, 12 % a random word, 8 % a reply cut off inside its reasoning)
and three kinds of poor play: random words (any of the 12972), random candidates (a word still
possible, as a weak model that follows the feedback plays), and a mix (60 % a random candidate, 25 %
a random word, 15 % a reply with no guess). Each step is timed as a caller sees it (the env's step,
the oracle's searches included): p50, p99 and max, the share of moves valued exactly within the
budget, the mean reward and whether every move's reward and flag are those of the first run; and
the first ``make`` (the env built and reset once, in a fresh process).

Each run is a fresh process. ``this, cold``: the position store (the oracle's disk cache) empty;
``this, warm``: another process playing the same games with the store the cold run filled, as a
second rollout worker or the next run of a training would; ``before`` (``--before PATH``, a checkout
of an older commit): the same games on that code, its store empty too. Writes
``benchmarks/results/regret_reward_cpu.json`` and regenerates BENCHMARKS.md.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from benchmarks.common import RESULTS, parse_args, save
from wordle_gym import WordleTextEnv

POLICIES = ("LLM-like", "random words", "random candidates", "mixed")
FAVOURITES = (
    "crane",
    "slate",
    "adieu",
    "audio",
    "raise",
    "arise",
    "stare",
    "crate",
    "trace",
    "salet",
    "roate",
)
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


def measure(
    games: dict[str, int], budget: float, store: str | None = None, key: str = "regret_budget"
) -> dict:
    """Every kind of play's row (``games[kind]`` seeded games each, ``budget`` a move, given as the
    env's keyword ``key``), and the first make's seconds; ``store``: the position store's file
    (None: the code's default)."""
    start = time.perf_counter()
    env = WordleTextEnv(reward="regret", **{key: budget})
    env.reset(seed=0)
    make_s = time.perf_counter() - start
    # the env's own oracle (a fork of the process's) reads and fills this store
    if store is not None:
        from wordle_gym.solver.store import PositionStore

        env._oracle.store = PositionStore(store)
    rows = []
    for policy in tqdm(
        [p for p in POLICIES if games[p]], desc="kinds of play", unit="kind", disable=None
    ):
        rng = random.Random(20261125)
        times, rewards, exact, first, bounds = [], [], [], [], []
        for game in range(games[policy]):
            env.reset(seed=game)
            done = False
            while not done:
                reply = _reply(env, policy, rng)
                first.append(int(env.state.turn[0]) == 0)
                start = time.perf_counter()
                _, reward, done, _, info = env.step(reply)
                times.append(time.perf_counter() - start)
                rewards.append(reward)
                exact.append(bool(info["regret_exact"]))
                bounds.append(info["regret_bounds"].tolist())
        opening = np.array(first)
        valued = np.array(exact)
        seconds = np.array(times)
        rows.append(
            {
                "play": policy,
                "games": games[policy],
                "moves": len(times),
                "p50_s": float(np.percentile(seconds, 50)),
                "p99_s": float(np.percentile(seconds, 99)),
                "max_s": float(seconds.max()),
                "exact_share": float(np.mean(exact)),
                # the first move is exact where the opener tables hold the opener; later moves
                # where the searches finish within the budget
                "exact_first_share": float(valued[opening].mean()),
                "exact_later_share": float(valued[~opening].mean()) if (~opening).any() else 1.0,
                "mean_reward": float(np.mean(rewards)),
                # every move's reward, flag and bounds, to compare runs move by move
                "moves_digest": hashlib.sha256(
                    json.dumps([rewards, exact, bounds]).encode()
                ).hexdigest()[:16],
            }
        )
    return {"make_s": make_s, "rows": rows}


def first_moves(budget: int) -> dict:
    """Every opener's first-move charge on the real lists and on WordleNYT's: how many are exact,
    how many charged an upper bound, whether any is charged less than an opener proven better, and
    how far the published strategy's total (the bound charged where the value is not exact) lies
    from the exact value where both are known."""
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.solver import solver_data
    from wordle_gym.solver.opener_tables import read_opener_totals
    from wordle_gym.solver.regret import load_oracle

    out = {}
    for game, answers in (("real", "answers"), ("nyt", "answers_nyt")):
        config = WordleConfig(answers=answers)
        oracle = load_oracle(config)
        start, n = oracle.start(), config.vocabulary.num_answers
        judged = [
            oracle.move_regret(start, a, budget) for a in range(config.vocabulary.num_allowed)
        ]
        exact = [j for j in judged if j["exact"]]
        # an inversion: opener b charged less than an opener a it is proven worse than (a's upper
        # bound below b's lower bound); the openers by upper bound, each prefix's largest charge
        by_high = sorted(judged, key=lambda j: j["high"])
        highs = [j["high"] for j in by_high]
        most = list(itertools.accumulate((j["regret"] for j in by_high), max))
        inverted = 0
        for j in judged:
            below = bisect.bisect_left(highs, j["low"])  # the openers proven better than this one
            inverted += below > 0 and most[below - 1] > j["regret"]
        gaps = []
        totals = read_opener_totals(
            solver_data() / f"opener_totals_{'normal' if game == 'real' else 'nyt'}.json",
            config.vocabulary,
            False,
            6,
        )
        for word, upper in totals.upper.items():
            action = config.vocabulary.action(word)
            if action in oracle.root_exact:
                gaps.append((upper - oracle.root_exact[action]) / n)
        crane = judged[config.vocabulary.action("crane")]["regret"]
        out[game] = {
            "openers": len(judged),
            "exact": len(exact),
            "upper": len(judged) - len(exact),
            "charged_below_crane": sum(j["regret"] < crane for j in judged),
            "inverted": inverted,
            "published_gap_known": len(gaps),
            "published_gap_within_0002": sum(g <= 0.002 + 1e-12 for g in gaps),
            "published_gap_max": max(gaps, default=0.0),
        }
    return out


def _history(result: dict, date: str) -> list[dict]:
    """The real game's first move over the runs: the earlier entries and this one (the openers in
    the project's table, how many openers are exact), one a table."""
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.solver import solver_data
    from wordle_gym.solver.opener_tables import OPENER_VALUES, read_opener_values

    path = solver_data() / OPENER_VALUES.format(mode="normal")
    table = read_opener_values(path, WordleConfig().vocabulary, False, 6, strict=True).values
    now = {
        "date": date,
        "table": len(table),
        **{k: result["first_move"]["real"][k] for k in ("exact", "upper")},
    }
    history = [h for h in result.get("first_move_history", []) if h["table"] != now["table"]]
    return [*history, now]


def _fresh(
    games: dict[str, int],
    budget: float,
    store: str | None,
    checkout: str | None = None,
    key: str = "regret_budget",
) -> dict:
    """:func:`measure` in a fresh process, on this code or on the checkout at ``checkout``."""
    # here: this file also runs against older checkouts' common
    from benchmarks.common import measure_fresh

    return measure_fresh(__file__, f"measure({games!r}, {budget}, {store!r}, {key!r})", checkout)


def main() -> None:
    # here, not at the top: measure() also runs on older checkouts, which do not have it
    from wordle_gym.solver.regret import REGRET_BUDGET

    def extra(parser) -> None:
        parser.add_argument(
            "--games", type=int, default=20, help="games of each kind of poor play (default 20)"
        )
        parser.add_argument(
            "--llm-games", type=int, default=200, help="games of LLM-like play (default 200)"
        )
        parser.add_argument(
            "--budget",
            type=int,
            default=REGRET_BUDGET,
            help=f"regret_budget, work (default {REGRET_BUDGET})",
        )
        parser.add_argument(
            "--before", help="a checkout of an older commit: the same games on its code too"
        )
        parser.add_argument(
            "--before-budget-s",
            type=float,
            default=2.0,
            help="the older code's regret_budget_s, seconds (default 2.0, its default)",
        )
        parser.add_argument(
            "--first-move-only",
            action="store_true",
            help="only the first move over every opener (a new table's; the timed runs kept)",
        )

    args, _, result = parse_args(__doc__, "2 games of each kind, a tenth of the budget", extra)
    if args.first_move_only:  # the timed runs as they were; the first move from the tables now
        earlier = json.loads((RESULTS / f"regret_reward_{result['device']}.json").read_text())
        earlier["first_move"] = first_moves(earlier.get("budget", REGRET_BUDGET))
        earlier["first_move_date"] = result["date"]
        earlier["first_move_history"] = _history(earlier, result["date"])
        save("regret_reward", earlier)
        return
    poor, llm, budget = (
        (2, 2, args.budget // 10) if args.quick else (args.games, args.llm_games, args.budget)
    )
    games = {policy: llm if policy == "LLM-like" else poor for policy in POLICIES}
    result["command"] = " ".join(["python -m benchmarks.regret_reward", *sys.argv[1:]])
    runs = {}
    with tempfile.TemporaryDirectory() as folder:
        store = str(Path(folder) / "positions.sqlite")
        runs["this, cold"] = _fresh(games, budget, store)
        runs["this, warm"] = _fresh(games, budget, store)
        if args.before:
            # its kernels compiled once, not timed; then cold as this code's first run is (the
            # machine's own store would be warm from earlier runs)
            seconds, key = args.before_budget_s, "regret_budget_s"
            _fresh(dict.fromkeys(POLICIES, 0), seconds, None, args.before, key)
            store = str(Path(folder) / "positions-before.sqlite")
            runs["before"] = _fresh(games, seconds, store, args.before, key)
            result["before_budget_s"] = seconds
    result.update(budget=budget, runs=runs, first_move=first_moves(budget))
    earlier = RESULTS / f"regret_reward_{result['device']}.json"
    if earlier.exists():  # the first move's history is kept across timed runs
        result["first_move_history"] = json.loads(earlier.read_text()).get("first_move_history", [])
    result["first_move_history"] = _history(result, result["date"])
    save("regret_reward", result)


if __name__ == "__main__":
    main()
