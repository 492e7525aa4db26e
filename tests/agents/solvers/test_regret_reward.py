"""The text env's ``reward="regret"``: each move's exact cost from the oracle, within a time budget, and past it
proven bounds (agents/solvers/oracle.py ``move_regret``, reached through the ``wordle_gym.oracles`` entry point)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from tests.helpers.lists import small_lists
from wordle_agents.solvers.oracle import Oracle
from wordle_gym import WordleConfig, WordleTextEnv
from wordle_gym.envs.text import load_oracle

ANSWERS, ALLOWED = small_lists(2, 30, 90)


@pytest.mark.parametrize("hard", [False, True])
def test_regret_reward__each_move_costs_what_the_oracle_says(hard: bool) -> None:
    """Replies of every kind on small lists: a guess's reward is -(Q* - V*) of ``Oracle.analyze`` for the same
    game, a refused reply's is -(1 + V*(one guess fewer) - V*), and over a game the rewards sum to V*(start)
    minus the guesses used minus the luck."""
    env = WordleTextEnv(answers=ANSWERS, allowed=ALLOWED, hard_mode=hard, reward="regret", regret_budget_s=None)
    oracle = Oracle(WordleConfig(answers=ANSWERS, allowed=ALLOWED, hard_mode=hard), root_opener=None)
    rng = random.Random(4)
    for answer in ANSWERS[:8]:
        env.reset(options={"answer": answer})
        position, guesses, rewards, done = oracle.start(), [], [], False
        while not done:
            word = rng.choice(ALLOWED) if rng.random() < 0.85 else None
            _, reward, done, _, info = env.step(f"<guess>{word}</guess>" if word else "no idea")
            assert info["regret_exact"] and info["regret"] == pytest.approx(-reward, abs=1e-12)
            assert info["regret_bounds"][0] == info["regret_bounds"][1] == pytest.approx(-reward, abs=1e-12)
            if word is None:
                spent = position._replace(left=position.left - 1)
                later = 1 + (oracle.value(spent) if spent.left else 1)
                assert -reward == pytest.approx(later - oracle.value(position), abs=1e-12)
                position = spent
            else:
                action = ALLOWED.index(word)
                assert -reward == pytest.approx(oracle.q_value(position, action) - oracle.value(position), abs=1e-12)
                guesses.append(word)
                position = oracle.after(position, action, ANSWERS.index(answer))
            rewards.append(reward)
        if len(guesses) == len(rewards):  # no refused reply: analyze's identity holds for the same game
            report = oracle.analyze([ALLOWED.index(w) for w in guesses], ANSWERS.index(answer))
            assert sum(rewards) == pytest.approx(-report["regret"], abs=1e-9)
            assert sum(rewards) == pytest.approx(
                report["start_value"] - report["guesses_used"] - report["luck"], abs=1e-9
            )


def test_regret_reward__the_bounds_hold_wherever_the_exact_value_is_known() -> None:
    """Past the budget the reward is a proven bound: on small lists, for 300 positions of random play and a
    move at each (a guess, a candidate, or a turn spent), low <= exact regret <= high, and low >= 0."""
    for hard in (False, True):
        oracle = Oracle(WordleConfig(answers=ANSWERS, allowed=ALLOWED, hard_mode=hard), root_opener=None)
        rng = random.Random(7)
        for _ in range(150):
            answer, position = rng.randrange(len(ANSWERS)), oracle.start()
            for _ in range(rng.randrange(3)):
                position = oracle.after(position, rng.randrange(len(ALLOWED)), answer)
            if not position.members or position.left <= 0:
                continue
            move = rng.choice([None, rng.randrange(len(ALLOWED)), ALLOWED.index(ANSWERS[position.members[0]])])
            exact = oracle.move_regret(position, move)
            assert exact["exact"]
            v_low, v_high = oracle._value_floor(position), oracle._playout(position)
            _, green, need = position.arrays()
            valid = move if move is None or oracle.search.hard_valid(move, green, need) else None
            q_low, q_high = oracle._move_bounds(position, valid)
            n = len(position.members)
            assert v_low <= oracle._total(position) <= v_high
            assert q_low <= oracle._move_total(position, valid) <= q_high
            low, high = max(0, q_low - v_high) / n, (q_high - v_low) / n
            assert 0 <= low <= exact["regret"] + 1e-12 and exact["regret"] <= high + 1e-12


def test_regret_reward__a_budget_bounds_the_wait_on_the_real_lists() -> None:
    """Random play on the real lists reaches positions the exact search takes long on: with a 0.2 s budget
    each move returns within about the budget, exact or with bounds that bracket a non-negative cost."""
    oracle = load_oracle(WordleConfig())
    rng = random.Random(3)
    position = oracle.start()
    for move in (rng.randrange(12972), rng.randrange(12972)):
        position = oracle.after(position, move, 17)
    judged = oracle.move_regret(position, rng.randrange(12972), budget_s=0.2)
    assert judged["seconds"] < 3 and 0 <= judged["low"] <= judged["high"] and judged["regret"] == judged["low"]
    assert judged["exact"] == (judged["low"] == judged["high"]) or judged["exact"]


def test_regret_reward__env_passes_check_env_and_keeps_its_info_keys() -> None:
    env = WordleTextEnv(answers=ANSWERS, allowed=ALLOWED, reward="regret")
    check_env(env, skip_render_check=True)
    _, info = env.reset(seed=1)
    keys = set(info)
    assert {"regret", "regret_exact", "regret_bounds"} <= keys
    _, reward, _, _, info = env.step("<guess>" + ALLOWED[0] + "</guess>")
    assert set(info) == keys and reward <= 0 and info["regret_bounds"].dtype == np.float64
    with pytest.raises(ValueError, match="regret_budget_s must be a number of seconds > 0"):
        WordleTextEnv(answers=ANSWERS, allowed=ALLOWED, reward="regret", regret_budget_s=0)


@pytest.mark.slow
def test_regret_reward__crane_first_costs_ten_games_in_2315_on_the_real_game() -> None:
    """The issue's figure: CRANE's optimal tree totals 7930 against SALET's 7920."""
    env = WordleTextEnv(reward="regret", regret_budget_s=None)
    env.reset(options={"answer": "cigar"})
    _, reward, _, _, info = env.step("<guess>crane</guess>")
    assert info["regret_exact"] and math.isclose(-reward, 10 / 2315, abs_tol=1e-12)
    _, reward, _, _, _ = env.step("<guess>salet</guess>")
    assert reward <= 0


def test_oracle__a_stopped_search_keeps_no_value() -> None:
    """Regression: a search stopped by a budget (or Ctrl-C) returns a meaningless number, which the oracle's
    memo of values kept, so every later value built on that position was wrong. A stopped search now raises
    and keeps nothing; the next search gives the exact value."""
    config = WordleConfig(answers=ANSWERS, allowed=ALLOWED)
    oracle, fresh = Oracle(config, root_opener=None), Oracle(config, root_opener=None)
    position = oracle.after(oracle.start(), ALLOWED.index("salet") if "salet" in ALLOWED else 0, 3)
    oracle.search.stop[0] = 1
    with pytest.raises(TimeoutError):
        oracle.value(position)
    oracle.search.stop[0] = 0
    assert oracle.value(position) == fresh.value(position)
