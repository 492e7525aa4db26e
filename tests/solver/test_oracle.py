"""The exact oracle against a brute-force reference (plain Python over the game's history), and the
regret identity: an agent's regrets, summed per game and averaged, are its mean minus the
optimum."""

from __future__ import annotations

import json
import random
import time
from functools import cache
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

from tests.helpers.reference import consistent, feedback_ref, few_letter_words, hard_valid
from wordle_gym.harness.evaluation import evaluate
from wordle_gym.solver.oracle import Oracle


def reference(words: list[str], max_guesses: int, hard: bool):
    """V and Q by exhaustive search over histories of (guess, tiles); a loss costs max_guesses +
    1."""

    @cache
    def value(history: tuple) -> float:
        return min(q(history, g) for g in words if not hard or hard_valid(g, _shown(history)))

    @cache
    def q(history: tuple, guess: str) -> float:
        left = max_guesses - len(history)
        cands = [w for w in words if consistent(w, _shown(history))]
        if hard and not hard_valid(guess, _shown(history)):  # refused: the turn is spent
            return 1 + (value((*history, (guess, None))) if left > 1 else 1)
        total = 0.0
        for answer in cands:
            if answer == guess:
                continue
            total += value((*history, (guess, feedback_ref(guess, answer)))) if left > 1 else 1
        return 1 + total / len(cands)

    return value, q


def _shown(history: tuple) -> list:
    return [(g, t) for g, t in history if t is not None]


def _position_of(oracle: Oracle, words: list[str], history: tuple, answer: str):
    position = oracle.start()
    for guess, _ in history:
        position = oracle.after(position, words.index(guess), words.index(answer))
    return position


@pytest.mark.parametrize(
    ("seed", "hard", "max_guesses"),
    [(0, False, 3), (1, True, 3), pytest.param(2, False, 4, marks=pytest.mark.slow), (3, True, 4)],
)
def test_oracle__values_equal_exhaustive_search(seed: int, hard: bool, max_guesses: int) -> None:
    rng = random.Random(seed)
    words = few_letter_words(rng, "abcd", 3, 9)
    value, q = reference(words, max_guesses, hard)
    oracle = Oracle(
        answers=words, allowed=None, hard_mode=hard, max_guesses=max_guesses, root_opener=None
    )
    start = oracle.start()
    assert oracle.value(start) == pytest.approx(value(()))
    for g, word in enumerate(words):
        assert oracle.q_value(start, g) == pytest.approx(q((), word)), word
    assert oracle.optimal_actions(start) == [
        g for g, w in enumerate(words) if q((), w) == pytest.approx(value(()))
    ]
    for _ in range(20):  # positions deeper in random games
        answer, history = rng.choice(words), ()
        for _ in range(rng.randrange(1, max_guesses)):
            guess = rng.choice(words)
            refused = hard and not hard_valid(guess, _shown(history))
            history += ((guess, None if refused else feedback_ref(guess, answer)),)
            if guess == answer:
                break
        if history[-1][0] == answer or len(history) >= max_guesses:
            continue
        position = _position_of(oracle, words, history, answer)
        assert oracle.value(position) == pytest.approx(value(history))
        guess = rng.choice(words)
        assert oracle.q_value(position, words.index(guess)) == pytest.approx(q(history, guess))


@pytest.mark.parametrize("hard", [False, True])
def test_regrets__sum_to_the_mean_minus_the_optimum(hard: bool) -> None:
    """On a small list, for the optimal agent (zero regret), a random-candidate agent and, in hard
    mode, an unmasked random agent whose refused guesses count: summed regret per game = mean (loss
    = limit + 1) - V*. The random agents draw from the position (a policy plays the same guess where
    it knows the same, as every agent of the harness does; one that peeked at the answer would break
    the identity)."""
    words = few_letter_words(random.Random(5), "abcde", 3, 14)
    oracle = Oracle(answers=words, allowed=None, hard_mode=hard, max_guesses=4, root_opener=None)
    for agent in ("optimal", "candidates", "any"):
        histories = []
        for answer in range(len(words)):
            position, actions = oracle.start(), []
            while position.left > 0:
                # no str: its hash changes per process
                rng = random.Random(hash((len(agent), position)))
                if agent == "optimal":
                    action = oracle.optimal_actions(position)[0]
                elif agent == "candidates":
                    action = rng.choice(position.members)  # answers are the guesses here
                else:
                    action = rng.randrange(len(words))
                actions.append(action)
                if action == answer:
                    break
                position = oracle.after(position, action, answer)
            histories.append(actions)
        report = oracle.regrets(histories)
        report.check()
        assert report.mean_regret == pytest.approx(sum(report.by_turn.values()))
        assert min(d.regret for d in report.decisions) >= -1e-12
        if agent == "optimal":
            assert report.mean_regret == pytest.approx(0.0)
        else:
            assert report.mean_regret > 0 and report.costliest(3)[0].regret > 0


def test_regrets__from_the_harness_match_its_mean() -> None:
    """Histories of a harness evaluation (the max-entropy solver) give back the harness's mean."""
    from wordle_agents.solvers.max_entropy import MaxEntropySolver

    words = few_letter_words(random.Random(11), "abcdef", 3, 30)
    result = evaluate(
        MaxEntropySolver(),
        device="cpu",
        answers=words,
        allowed=None,
        max_guesses=4,
        progress=False,
        histories=True,
    )
    oracle = Oracle(answers=words, allowed=None, max_guesses=4, root_opener=None)
    report = oracle.regrets(result.histories)
    report.check()
    assert report.mean_cost == pytest.approx(result.mean_guesses_all)


def test_oracle__refuses_what_has_no_value() -> None:
    oracle = Oracle(answers=["cat", "act", "tac"], allowed=None, root_opener=None)
    with pytest.raises(ValueError, match="one history per answer"):
        oracle.regrets([[0]])
    with pytest.raises(ValueError, match="after the game ended"):
        oracle.regrets([[0, 1], [1], [2]])
    with pytest.raises(ValueError, match="stops before its end"):
        oracle.regrets([[1], [1], [2]])


def test_eval_regret__cli_prints_and_keeps_every_decision(tmp_path) -> None:
    """``wordle-gym eval --regret``: the mean regret and the regret by turn are printed; the JSON
    keeps each answer's regrets (one per guess) and the costliest positions; the identity holds in
    what it keeps."""
    import contextlib
    import io
    import json

    from wordle_gym.cli.commands import main

    words = few_letter_words(random.Random(3), "abcdefg", 4, 60)
    (tmp_path / "words.txt").write_text("\n".join(words) + "\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(
            [
                "eval",
                "--agent",
                "max-entropy",
                "--answers",
                str(tmp_path / "words.txt"),
                "--allowed",
                str(tmp_path / "words.txt"),
                "--regret",
                "--device",
                "cpu",
                "--json",
                str(tmp_path / "r.json"),
            ]
        )
    assert code == 0
    assert "regret per game +" in out.getvalue() and "(by turn  1: +" in out.getvalue()
    result = json.loads((tmp_path / "r.json").read_text())
    regret = result["extra"]["regret"]
    assert [len(r) for r in regret["per_answer"]] == [min(g, 6) for g in result["guesses"]]
    assert sum(map(sum, regret["per_answer"])) / len(words) == pytest.approx(
        regret["mean_regret"], abs=1e-5
    )
    assert regret["mean_regret"] == pytest.approx(
        regret["mean_cost"] - regret["root_value"], abs=1e-9
    )
    assert regret["identity_holds"] is True
    for c in regret["costliest"]:
        assert (
            c["regret"] > 0
            and c["guess"] != c["optimal"]
            and c["candidates"] >= 1
            and len(c["history"]) == c["turn"] - 1
        )


@pytest.mark.parametrize("hard", [False, True])
def test_oracle__positions_of_vector_env_states(hard: bool) -> None:
    """Positions read from a batch of the vector env's games (``env.state``) have the values of the
    same positions reached move by move (``after``), and finished games have none."""
    import torch

    from wordle_gym import WordleVectorEnv

    words = few_letter_words(random.Random(9), "abcde", 3, 16)
    oracle = Oracle(answers=words, allowed=None, hard_mode=hard, max_guesses=4, root_opener=None)
    env = WordleVectorEnv(
        len(words),
        device="cpu",
        answers=words,
        allowed=None,
        hard_mode=hard,
        max_guesses=4,
        autoreset_mode="disabled",
        check_actions=False,
    )
    env.reset(options={"answers": torch.arange(len(words))})
    rng = random.Random(1)
    played: list[list[int]] = [[] for _ in words]
    for _ in range(2):
        actions = [rng.randrange(len(words)) for _ in words]
        done = env.state.done.clone()
        env.step(torch.tensor(actions))
        for i, a in enumerate(actions):
            if not done[i]:
                played[i].append(a)
        values = oracle.values(env.game, env.state)
        for i, history in enumerate(played):
            position = oracle.start()
            for a in history:
                position = oracle.after(position, a, i)
            if bool(env.state.done[i]):
                assert np.isnan(values[i])
            else:
                assert values[i] == pytest.approx(oracle.value(position)), (i, history)


def test_best_action__with_one_guess_left_is_a_candidate() -> None:
    """Regression: with one guess left and three or more candidates the search returns 2n - 1
    without caching the node, so reading its best guess from the cache failed ("not solved
    exactly")."""
    words = few_letter_words(random.Random(2), "abc", 3, 12)
    oracle = Oracle(answers=words, allowed=None, max_guesses=3, root_opener=None)
    position = oracle.start()._replace(left=1)
    best = oracle.best_action(position)
    assert best in position.members and oracle.q_value(position, best) == pytest.approx(
        oracle.value(position)
    )
    assert oracle.value(position) == pytest.approx((2 * len(words) - 1) / len(words))


def test_avoid_losses__the_teacher_wins_every_game_it_can() -> None:
    """Counting a loss as the limit + 1, an optimal tree may give a game up (here one that costs no
    more); ``avoid_losses`` plays the best tree that wins every answer, where one exists."""
    words = few_letter_words(random.Random(1), "abcdef", 3, 20)

    def play_all(oracle: Oracle) -> tuple[int, int]:
        lost = total = 0
        for answer in range(len(words)):
            position, won, used = oracle.start(), False, 0
            while position.left > 0 and not won:
                action = oracle.best_action(position)
                used, won = used + 1, action == answer
                position = oracle.after(position, action, answer)
            lost, total = lost + (not won), total + (used if won else oracle.max_guesses + 1)
        return lost, total

    options = {
        "answers": words,
        "allowed": None,
        "max_guesses": 3,
        "hard_mode": True,
        "root_opener": None,
    }
    plain, strict = Oracle(**options), Oracle(**options, avoid_losses=True)
    (plain_lost, plain_total), (strict_lost, strict_total) = play_all(plain), play_all(strict)
    assert plain_lost >= 1 and strict_lost == 0
    assert plain_total == round(plain.value(plain.start()) * len(words)) <= strict_total


@pytest.mark.parametrize("hard", [False, True])
def test_analyze__regret_minus_luck_is_guesses_minus_the_start_and_luck_averages_zero(
    hard: bool,
) -> None:
    words = few_letter_words(random.Random(21), "abcdefg", 4, 30)
    oracle = Oracle(answers=words, allowed=None, root_opener=None, hard_mode=hard)
    rng = random.Random(hard)
    first = 3
    lucks = []
    for answer in range(len(words)):
        actions = [first]
        while actions[-1] != answer and len(actions) < oracle.max_guesses:
            actions.append(rng.randrange(len(words)) if rng.random() < 0.6 else answer)
        report = oracle.analyze(actions, answer)
        used = report["guesses_used"]
        assert report["finished"] and used == (
            len(actions) if report["won"] else oracle.max_guesses + 1
        )
        assert used - report["start_value"] == pytest.approx(report["regret"] - report["luck"])
        assert all(r["regret"] >= -1e-12 for r in report["guesses"])  # no guess beats the optimum
        assert report["guesses"][0]["optimal"] in words
        lucks.append(report["guesses"][0]["luck"])
    # the first guess's luck, over every answer, averages to nothing: E[V*(s')] = Q*(s, a) - 1
    assert sum(lucks) / len(lucks) == pytest.approx(0.0, abs=1e-12)
    partial = oracle.analyze([first], next(a for a in range(len(words)) if a != first))
    assert not partial["finished"] and partial["guesses_used"] == 1
    with pytest.raises(ValueError, match="the game was already won before its last guess"):
        oracle.analyze([first, first], first)


def test_cli_analyze__a_table_the_identity_and_json(tmp_path) -> None:
    import json

    from tests.helpers.processes import wordle_gym_here

    words = few_letter_words(random.Random(22), "abcdefg", 4, 25)
    (tmp_path / "w.txt").write_text("\n".join(words) + "\n")
    lists = ["--answers", str(tmp_path / "w.txt"), "--allowed", str(tmp_path / "w.txt")]
    out = wordle_gym_here(
        "analyze",
        words[0],
        words[5],
        "--answer",
        words[5],
        *lists,
        "--json",
        str(tmp_path / "a.json"),
    )
    assert out.returncode == 0, out.stderr
    assert (
        f"| {words[0].upper()} | +" in out.stdout
        and (f"{words[5].upper()}: won in 2;") in out.stdout
    )
    report = json.loads((tmp_path / "a.json").read_text())
    assert [g["guess"] for g in report["guesses"]] == [words[0], words[5]]
    assert 2 - report["start_value"] == pytest.approx(report["regret"] - report["luck"])
    luck = report["luck"]
    said = f"luck saved {luck:.4f}" if luck >= 0 else f"luck cost {-luck:.4f}"
    assert said in out.stdout and "luck saved -" not in out.stdout  # first hour 4: no "saved -0.28"
    for args, message in [
        ([words[0]], "the following arguments are required: --answer"),
        (["zzzz", "--answer", words[0]], "'zzzz' is not"),
        # first hour 4, item 7: refused before "valuing each position exactly ... a minute or so"
        ([words[5], words[0], "--answer", words[5]], "already won by guess 1"),
        ([*words[6:13], "--answer", words[5]], "7 guesses: more than the game's 6"),
    ]:
        bad = wordle_gym_here("analyze", *args, *lists)
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr
        assert "valuing each position" not in bad.stderr, bad.stderr


def test_opener_values__the_table_is_the_search_and_makes_the_first_move_exact_at_once(
    tmp_path, monkeypatch
) -> None:
    """Issue 61: the first move of every game was bounded, not exact (CRANE earned 0.0 under the
    default budget). A table of exact first-move totals (made by the search, kept one opener at a
    time, continued) answers it without a search, and a turn spent without a guess at the start
    costs exactly one guess."""
    from tests.helpers.lists import small_lists
    from wordle_agents.commands.optimal import main as optimal_main
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.solver.opener_tables import MODEL_OPENERS, read_opener_values
    from wordle_gym.solver.tasks import opener_values

    answers, allowed = small_lists(4, 60, 150)
    config = WordleConfig(answers=answers, allowed=allowed)
    searched = Oracle(config, root_opener=None)
    root = answers[0]  # the oracle's root opener: first in the table
    words = [root, *allowed[:5]]
    table = tmp_path / "values.json"
    assert opener_values(config, words[:3], table) == {
        w: searched._q_total(searched.start(), searched.vocab.action(w)) for w in words[:3]
    }
    # stopped: kept
    assert opener_values(config, words, table, max_minutes=0).keys() == set(words[:3])
    values = opener_values(config, words, table)  # continued
    slow, search = words[2], Oracle._q_total

    def slowly(oracle: Oracle, position, action: int) -> int:
        if action == oracle.vocab.action(slow) and position.left == oracle.max_guesses:
            time.sleep(1.0)
        return search(oracle, position, action)

    with monkeypatch.context() as patch:
        patch.setattr(Oracle, "_q_total", slowly)
        assert opener_values(config, words, tmp_path / "limited.json", opener_s=0.5).keys() == set(
            words
        ) - {slow}
        assert json.loads((tmp_path / "limited.json").read_text())["timed_out"] == {slow: 0.5}
        # Regression: the same command searched it in vain again (each resumed run, first of all,
        # before the new).
        patch.setattr(Oracle, "_q_total", lambda *_: pytest.fail("searched again"))
        assert opener_values(config, words, tmp_path / "limited.json", opener_s=0.5).keys() == set(
            words
        ) - {slow}
    # longer: tried
    assert opener_values(config, words, tmp_path / "limited.json", opener_s=30).keys() == set(words)
    assert json.loads((tmp_path / "limited.json").read_text())["timed_out"] == {}
    assert values == {
        w: searched._q_total(searched.start(), searched.vocab.action(w)) for w in words
    }
    oracle = Oracle(config, root_opener=root, opener_table=table)
    start, n = oracle.start(), len(answers)
    v = values[root]
    for word in words:
        # no time to search
        judged = oracle.move_regret(start, oracle.vocab.action(word), budget=1)
        assert judged["exact"] and judged["regret"] == pytest.approx((values[word] - v) / n)
    spent = oracle.move_regret(start, None, budget=1)
    # one guess fewer, searched
    five = searched._q_total(start._replace(left=5), searched.vocab.action(root))
    assert spent["exact"] and spent["regret"] == pytest.approx(1.0 + (five - v) / n)
    # the second move: every position an opener leads to is valued from the table, as the search
    # values it
    second = 0
    for word in words:
        action = oracle.vocab.action(word)
        for pattern, group in oracle.search.buckets(action, np.arange(n, dtype=np.int32)):
            if pattern == oracle.solved:
                continue
            child = oracle.after(start, action, int(group[0]))
            for left in (5, 4):
                assert oracle._totals[child._replace(left=left)] == searched._total(
                    child._replace(left=left)
                )
            # a turn spent there: exact with no search
            spent = oracle.move_regret(child, None, budget=1)
            assert spent["exact"] and spent["regret"] == pytest.approx(
                1.0
                + (searched._total(child._replace(left=4)) - searched._total(child)) / len(group)
            )
            second += 1
    assert second > len(words)
    # the command: --values, continued, and its one-line errors
    files = tmp_path / "a.txt", tmp_path / "b.txt"
    files[0].write_text("\n".join(answers) + "\n")
    files[1].write_text("\n".join(allowed) + "\n")
    lists = ["--answers", str(files[0]), "--allowed", str(files[1])]
    out = tmp_path / "cmd.json"
    assert optimal_main(["--values", ",".join(words), "--save", str(out), "--quiet", *lists]) == 0
    assert opener_values(config, words, out) == values
    assert optimal_main(["--values", "qqqqq", "--save", str(out), *lists]) == 2
    # no guess to spare: no one-fewer value
    one = WordleConfig(answers=answers, allowed=allowed, max_guesses=1)
    assert opener_values(one, words[:2], tmp_path / "one.json") == {
        w: 2 * len(answers) - (w in answers) for w in words[:2]
    }
    few, more = small_lists(5, 20, 50)  # --values answers: every answer word as an opener
    (tmp_path / "c.txt").write_text("\n".join(few) + "\n")
    (tmp_path / "d.txt").write_text("\n".join(more) + "\n")
    every = tmp_path / "answers.json"
    small = ["--answers", str(tmp_path / "c.txt"), "--allowed", str(tmp_path / "d.txt")]
    assert optimal_main(["--values", "answers", "--save", str(every), "--quiet", *small]) == 0
    small_oracle = Oracle(
        WordleConfig(answers=few, allowed=more), root_opener=None, opener_table="/nonexistent.json"
    )
    table = read_opener_values(every, small_oracle.vocab, False, 6).values
    # the models' openers first
    assert set(few) <= table.keys() and table.keys() - set(few) <= set(MODEL_OPENERS)
    assert table[few[7]] == small_oracle._q_total(
        small_oracle.start(), small_oracle.vocab.action(few[7])
    )
    assert optimal_main(["--values", root, *lists]) == 2  # no --save


@pytest.mark.slow
def test_eval_regret__a_subset_of_the_real_answers_is_valued_in_the_real_game(tmp_path) -> None:
    """Issue 61: ``--answers SUBSET --regret`` valued each move in the subset's game (10 answers
    left), not in the real game the agent was told it plays; the JSON says which game valued
    them."""
    import json

    from wordle_gym.cli import main as cli_main

    subset = tmp_path / "some.txt"
    subset.write_text("cigar\nrebut\nsissy\n")
    out = tmp_path / "r.json"
    argv = [
        "eval",
        "--agent",
        "max-entropy",
        "--opener",
        "crane",
        "--answers",
        str(subset),
        "--regret",
    ]
    assert cli_main([*argv, "--json", str(out)]) == 0
    regret = json.loads(out.read_text())["extra"]["regret"]
    assert regret["valued_in"].startswith("the real lists (2315 answers, 12972 guesses)")
    # CRANE: 7930
    assert [game[0] for game in regret["per_answer"]] == [pytest.approx(10 / 2315, abs=1e-6)] * 3
    assert regret["root_value"] == pytest.approx(7920 / 2315)


def test_shipped_opener_values__the_first_move_of_the_real_game_is_exact_at_once() -> None:
    """Issue 61: CRANE as the first guess earned 0.0 under the default budget (regret_exact False);
    from the shipped table it is exact with no time to search, -10/2315, and a reply without a guess
    there costs 1."""
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.solver import solver_data
    from wordle_gym.solver.opener_tables import MODEL_OPENERS, read_opener_values

    config = WordleConfig()
    values, one_fewer, children, _ = read_opener_values(
        solver_data() / "opener_values_normal.json", config.vocabulary, False, 6
    )
    # every opener models favour; GUESS's total alone (its children outlast the table's 300 s)
    assert set(MODEL_OPENERS) <= set(values)
    assert set(MODEL_OPENERS) - set(children) == {"guess"}
    # then the answers, and other allowed guesses (the table grows towards every opener)
    assert len(values) >= 150 and set(values) <= set(config.vocabulary.allowed)
    assert one_fewer == {"salet": 7920}
    # the second moves valued too after most; the rest are first moves alone (--first-move-only)
    assert children.keys() <= values.keys() and len(children) >= 150
    # Q* = one guess for each answer + the V* of each position it leads to
    for word, total in children.items():
        assert 2315 + sum(t for t, _ in total.values()) == values[word], word
    # alex1770's proven list
    known = {"salet": 7920, "crate": 7926, "trace": 7926, "slate": 7928, "crane": 7930}
    assert {w: values[w] for w in known} == known
    oracle = Oracle(config)
    start = oracle.start()
    crane = oracle.move_regret(start, oracle.vocab.action("crane"), budget=1)
    assert crane["exact"] and crane["regret"] == pytest.approx(10 / 2315)
    spent = oracle.move_regret(start, None, budget=1)
    assert spent["exact"] and spent["regret"] == 1.0
    # an opener valued alone is exact on the first move too, at once
    alone = sorted(values.keys() - children.keys())
    for word in alone[:: max(1, len(alone) // 5)]:
        judged = oracle.move_regret(start, oracle.vocab.action(word), budget=1)
        assert judged["exact"] and judged["regret"] == pytest.approx((values[word] - 7920) / 2315)
    # an opener no table holds is bounded from the ranking at once: its search (minutes) is not
    # started in vain
    searched = []
    q_total = oracle._q_total
    oracle._q_total = lambda position, action: searched.append(action) or q_total(position, action)
    unknown = [a for a in range(oracle.vocab.num_allowed) if a not in oracle.root_exact]
    if not unknown:  # the table complete: every first move exact
        assert len(oracle.root_exact) == oracle.vocab.num_allowed
        return
    judged = oracle.move_regret(start, unknown[0], budget=10**10)
    assert (
        not judged["exact"]
        and searched == []
        and judged["low"] >= (oracle.root_floor[unknown[0]] - 7920) / 2315 > 0
    )


@pytest.mark.slow
@pytest.mark.parametrize("word", ["adieu", "audio"])
def test_shipped_opener_values__entries_equal_the_search(word: str) -> None:
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.solver import solver_data
    from wordle_gym.solver.opener_tables import read_opener_values

    config = WordleConfig()
    values = read_opener_values(
        solver_data() / "opener_values_normal.json", config.vocabulary, False, 6
    ).values
    searched = Oracle(config, opener_table="/nonexistent.json")
    searched.root_exact.clear()  # the ranking's exact entries too: search every value here
    assert searched._q_total(searched.start(), searched.vocab.action(word)) == values[word]


@pytest.mark.parametrize(
    ("option", "named"),
    [
        (["--hard"], "hard mode"),
        (["--max-guesses", "5"], "guess limit"),
        (["--answers", "other"], "word lists"),
    ],
)
def test_opener_values__a_table_of_other_settings_is_refused_and_kept(
    tmp_path, capsys, option, named
) -> None:
    """Reliability 5, finding 1: ``optimal --values ... --hard --save TABLE`` on a table made in
    normal mode rewrote it in hard mode (its openers, hours of CPU, gone) and ended in
    ``min() arg is an empty sequence``; another --answers, --allowed or --max-guesses did the same.
    It is refused, naming the setting, and the file is left byte for byte."""
    from tests.helpers.lists import small_lists
    from wordle_agents.commands.optimal import main as optimal_main

    answers, allowed = small_lists(4, 40, 100)
    files = {
        "answers": tmp_path / "a.txt",
        "other": tmp_path / "o.txt",
        "allowed": tmp_path / "b.txt",
    }
    files["answers"].write_text("\n".join(answers) + "\n")
    files["other"].write_text("\n".join(answers[:-1]) + "\n")
    files["allowed"].write_text("\n".join(allowed) + "\n")
    lists = ["--answers", str(files["answers"]), "--allowed", str(files["allowed"])]
    table = tmp_path / "t.json"
    assert (
        optimal_main(["--values", ",".join(answers[:2]), "--save", str(table), "--quiet", *lists])
        == 0
    )
    before = table.read_bytes()
    # argparse: the last --answers counts
    option = [str(files["other"]) if o == "other" else o for o in option]
    assert (
        optimal_main(["--values", answers[2], "--save", str(table), "--quiet", *lists, *option])
        == 1
    )
    err = capsys.readouterr().err
    assert named in err and str(table) in err and "Traceback" not in err
    assert table.read_bytes() == before


@pytest.mark.slow
@pytest.mark.parametrize(
    ("table", "source", "words"),
    [
        (
            "opener_totals_normal.json",
            "alex1770/wordle normal.some3593.proven",
            ["salet", "crane", "arose"],
        ),
        ("opener_totals_normal.json", "alex1770/wordle normal.n100", ["reast", "trace"]),
        ("opener_totals_nyt.json", "alex1770/wordle results_easy_nyt20220316", ["salet", "slate"]),
        ("opener_totals_hard.json", "alex1770/wordle hard.top101.proven", ["salet", "least"]),
        (
            "opener_totals_nyt_hard.json",
            "alex1770/wordle results_hard_nyt20220316",
            ["salet", "reast"],
        ),
    ],
)
def test_opener_totals__a_sample_of_every_published_source_holds_to_the_search(
    table, source, words
) -> None:
    """Issue 73: the published totals seed the first move's table as cited facts, held to the
    project's own search (which counts a loss as the limit + 1): an exact entry equals it, an upper
    bound is not below it. ``python -m benchmarks.opener_totals --alex PATH --check N`` samples each
    source at random."""
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.solver import solver_data
    from wordle_gym.solver.opener_tables import read_opener_totals

    data = json.loads((solver_data() / table).read_text())
    config = WordleConfig(
        answers="answers_nyt" if "nyt" in table else "answers", hard_mode=data["hard_mode"]
    )
    (entry,) = [s for s in data["sources"] if s["name"] == source]
    assert (
        source
        in read_opener_totals(solver_data() / table, config.vocabulary, config.hard_mode, 6).sources
    )
    searched = Oracle(config, root_opener=None, opener_table="/nonexistent.json")
    searched.root_exact.clear()  # every value searched here
    for word in words:
        total = searched._q_total(searched.start(), searched.vocab.action(word))
        cited = entry["totals"][word]
        assert total == cited if entry["kind"] == "exact" else total <= cited, (word, total, cited)


def test_optimal_values__bad_limits_quiet_and_ctrl_c_are_one_line(
    tmp_path, capsys, monkeypatch
) -> None:
    """Reliability 5, findings 9 and 11: ``optimal --values ... --max-minutes -1`` was a ValueError
    traceback, Ctrl-C during it a full traceback (the table survived), and ``--quiet`` still drew
    the progress bar."""
    from tests.helpers.lists import small_lists
    from wordle_agents.commands import optimal as command
    from wordle_gym.solver import oracle as oracle_module

    answers, allowed = small_lists(4, 40, 100)
    (tmp_path / "a.txt").write_text("\n".join(answers) + "\n")
    (tmp_path / "b.txt").write_text("\n".join(allowed) + "\n")
    lists = ["--answers", str(tmp_path / "a.txt"), "--allowed", str(tmp_path / "b.txt")]
    table = str(tmp_path / "t.json")
    for option in (["--max-minutes", "-1"], ["--time-limit", "0"], ["--max-minutes", "nan"]):
        assert command.main(["--values", answers[0], "--save", table, *lists, *option]) == 2
        err = capsys.readouterr().err
        assert "must be a positive number" in err and "Traceback" not in err
    assert (
        command.main(["--values", ",".join(answers[:2]), "--save", table, "--quiet", *lists]) == 0
    )
    assert "opener values" not in capsys.readouterr().err  # no bar
    valued = json.loads(Path(table).read_text())["values"]

    def interrupted(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(oracle_module.Oracle, "_q_total", interrupted)
    assert command.main(["--values", answers[2], "--save", table, "--quiet", *lists]) == 130
    err = capsys.readouterr().err
    assert (
        "interrupted" in err
        and "Traceback" not in err
        and json.loads(Path(table).read_text())["values"] == valued
    )


def test_opener_values__first_move_only_values_the_totals_alone(tmp_path, capsys) -> None:
    """``optimal --values ... --first-move-only``: each opener's exact total without the values of
    the positions it leads to (what makes the first move exact, a few times faster); the oracle
    reads such a table as well."""
    from tests.helpers.lists import small_lists
    from wordle_agents.commands.optimal import main as optimal_main
    from wordle_gym.core.config import WordleConfig

    answers, allowed = small_lists(4, 40, 100)
    (tmp_path / "a.txt").write_text("\n".join(answers) + "\n")
    (tmp_path / "b.txt").write_text("\n".join(allowed) + "\n")
    lists = ["--answers", str(tmp_path / "a.txt"), "--allowed", str(tmp_path / "b.txt")]
    table = tmp_path / "t.json"
    words = [answers[0], *allowed[:4]]
    assert (
        optimal_main(
            [
                "--values",
                ",".join(words),
                "--save",
                str(table),
                "--quiet",
                "--first-move-only",
                *lists,
            ]
        )
        == 0
    )
    data = json.loads(table.read_text())
    assert set(data["values"]) == set(words) and data["children"] == {}
    config = WordleConfig(answers=answers, allowed=allowed)
    searched = Oracle(config, root_opener=None, opener_table="/nonexistent.json")
    for word in words:
        assert data["values"][word] == searched._q_total(
            searched.start(), searched.vocab.action(word)
        )
    oracle = Oracle(config, root_opener=None, opener_table=table)
    judged = oracle.move_regret(oracle.start(), oracle.vocab.action(words[1]), budget=1)
    assert (
        judged["low"]
        <= (data["values"][words[1]] - min(data["values"].values())) / len(answers) + 1e-12
    )
    assert optimal_main(["salet", "--first-move-only"]) == 2
    assert "--first-move-only goes with --values" in capsys.readouterr().err


def test_opener_values__processes_share_one_table_and_tables_merge(tmp_path) -> None:
    """Two processes valuing interleaved shares (--part 1/2, 2/2) into one table at once lose
    none of each other's openers (each merges into the table as it is on disk, under a lock); a
    table made elsewhere merges in (--merge), and two tables giving an exact total differently are
    refused, the table left as it was."""
    import subprocess
    import sys

    from tests.helpers.lists import list_files
    from wordle_agents.commands.optimal import main as optimal_main
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.solver.opener_tables import read_opener_values
    from wordle_gym.solver.tasks import merge_opener_values, opener_values

    answers, allowed, lists = list_files(tmp_path, seed=8)
    config = WordleConfig(answers=answers, allowed=allowed)
    shared, words = tmp_path / "shared.json", allowed[:12]
    command = [sys.executable, "-m", "wordle_agents.commands.optimal", "--values"]
    command += [",".join(words), "--first-move-only", "--save", str(shared), "--quiet", *lists]
    runs = [subprocess.Popen([*command, "--part", f"{k}/2"]) for k in (1, 2)]
    assert [run.wait(timeout=300) for run in runs] == [0, 0]
    searched = Oracle(config, root_opener=None)
    want = {w: searched._q_total(searched.start(), searched.vocab.action(w)) for w in words}
    table = read_opener_values(shared, config.vocabulary, False, 6, strict=True)
    assert table.values == want
    # one share alone values every other opener
    alone = opener_values(config, words, tmp_path / "half.json", children=False, part=(1, 2))
    assert alone == {w: want[w] for w in words[1::2]}
    # merged: another table's openers and time limits (none kept for an opener valued)
    other = tmp_path / "other.json"
    opener_values(config, allowed[12:14], other, children=False)
    data = json.loads(other.read_text())
    data["timed_out"] = {words[0]: 60.0, allowed[20]: 30.0}
    other.write_text(json.dumps(data))
    assert optimal_main(["--merge", str(other), "--save", str(shared), "--quiet", *lists]) == 0
    merged = read_opener_values(shared, config.vocabulary, False, 6, strict=True)
    assert merged.values.keys() == set(words) | set(allowed[12:14])
    assert merged.timed_out == {allowed[20]: 30.0}
    data["values"][words[0]] = want[words[0]] + 1  # a wrong total: refused
    other.write_text(json.dumps(data))
    before = shared.read_bytes()
    with pytest.raises(ValueError, match=f"'{words[0]}' differently"):
        merge_opener_values(config, shared, [other])
    assert shared.read_bytes() == before
    assert optimal_main(["--merge", str(other), "--save", str(shared), *lists]) == 2
    hard = WordleConfig(answers=answers, allowed=allowed, hard_mode=True)
    with pytest.raises(ValueError, match="another game .*only tables of the same lists and rules"):
        merge_opener_values(hard, tmp_path / "hard.json", [shared])
    assert not (tmp_path / "hard.json").exists()
    with pytest.raises(ValueError, match="part must be"):
        opener_values(config, words, shared, part=(2, 2))


def test_opener_values__allowed_values_the_answers_first(tmp_path, monkeypatch) -> None:
    """``--values allowed`` values the answers (the common words players open with) before the
    other allowed guesses, each once."""
    import wordle_gym.solver.tasks as tasks_module
    from tests.helpers.lists import list_files
    from wordle_agents.commands.optimal import main as optimal_main

    answers, allowed, lists = list_files(tmp_path, seed=3)
    asked = []
    monkeypatch.setattr(
        tasks_module, "opener_values", lambda _, words, *a: asked.extend(words) or {}
    )
    assert optimal_main(["--values", "allowed", "--save", str(tmp_path / "v.json"), *lists]) == 0
    assert sorted(asked) == sorted(allowed)
    assert set(asked[: len(answers)]) == set(answers)


def test_opener_values__the_search_cache_stays_bounded(tmp_path, monkeypatch) -> None:
    """Regression: a long run of opener values kept every search's cache entry (hours of openers,
    gigabytes), and ``--max-cache-entries`` was ignored with --values; past the bound the cache is
    emptied between openers, the values unchanged."""
    from tests.helpers.lists import small_lists
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.solver.search import compiled_kernel
    from wordle_gym.solver.tasks import opener_values

    answers, allowed = small_lists(6, 40, 100)
    config = WordleConfig(answers=answers, allowed=allowed)
    kept = opener_values(config, allowed[:4], tmp_path / "kept.json", children=False)
    kernel, emptied = compiled_kernel(), []
    clear = kernel.clear_cache
    monkeypatch.setattr(kernel, "clear_cache", lambda cache: emptied.append(1) or clear(cache))
    bounded = tmp_path / "bounded.json"
    assert opener_values(config, allowed[:4], bounded, children=False, max_cache_entries=1) == kept
    assert len(emptied) >= 3  # between openers at least


def test_opener_values__first_move_only_passes_by_totals_a_shipped_table_proves(
    tmp_path, monkeypatch
) -> None:
    """Regression: ``--values allowed --first-move-only`` searched openers whose exact total a
    shipped (published) table already holds (on the real game about three in five of the answers:
    hours a run spent proving nothing new); it passes them by, and values the others as before."""
    import wordle_gym.solver.opener_tables as tables_module
    import wordle_gym.solver.oracle as oracle_module
    import wordle_gym.solver.start_tables as start_tables
    from tests.helpers.lists import small_lists
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.solver.tasks import opener_values

    answers, allowed = small_lists(6, 40, 100)
    config = WordleConfig(answers=answers, allowed=allowed)
    first, known = allowed[1], allowed[2]
    cold = opener_values(config, [first, known], tmp_path / "cold.json", children=False)
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    source = {"name": "a paper", "kind": "exact", "cite": "a paper", "totals": {known: cold[known]}}
    (shipped / "opener_totals_normal.json").write_text(
        json.dumps(
            {
                "format": tables_module.TOTALS_FORMAT,
                "lists": config.vocabulary.digest,
                "hard_mode": False,
                "max_guesses": 6,
                "sources": [source],
            }
        )
    )
    monkeypatch.setattr(start_tables, "solver_data", lambda: shipped)
    monkeypatch.setattr(tables_module, "solver_data", lambda: shipped)
    searched = []
    q_total = oracle_module.Oracle._q_total

    def counted(self, position, action):
        if position == self.start():
            searched.append(self.vocab.allowed[action])
        return q_total(self, position, action)

    monkeypatch.setattr(oracle_module.Oracle, "_q_total", counted)
    table = tmp_path / "t.json"
    values = opener_values(config, [first, known], table, children=False)
    assert values == {first: cold[first]} and known not in searched and first in searched
    # the positions an opener leads to are what a full table adds: the opener is searched for them
    searched.clear()
    assert opener_values(config, [first, known], table)[known] == cold[known]
    assert known in searched


def test_opener_values__a_limit_of_infinity_is_no_limit(tmp_path) -> None:
    """Reliability 6, finding 12: ``timed_out: Infinity`` was merged and written back as
    non-standard JSON, and that opener was then skipped for ever though the run says the same
    command tries again. A limit that is not a finite number is read as none."""
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.solver import solver_data
    from wordle_gym.solver.opener_tables import read_opener_values

    vocab = WordleConfig().vocabulary
    table = json.loads((solver_data() / "opener_values_normal.json").read_text())
    table["timed_out"] = {"woozy": float("inf"), "whoop": float("nan"), "weave": 120.0}
    path = tmp_path / "values.json"
    path.write_text(json.dumps(table))  # Python writes Infinity and NaN
    assert read_opener_values(path, vocab, False, 6).timed_out == {"weave": 120.0}


def test_read_opener_totals__checks_each_source_and_keeps_the_least_total(tmp_path) -> None:
    """A table of published totals: each source an object of a known kind whose totals are integers
    of allowed guesses (a one-line ValueError naming the file otherwise), another game's table is
    None, and where two sources give an opener's total the least is kept."""
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.solver.opener_tables import TOTALS_FORMAT, read_opener_totals

    vocab = WordleConfig().vocabulary
    path = tmp_path / "totals.json"

    def table(*sources: object, lists: str = vocab.digest) -> Path:
        header = {"format": TOTALS_FORMAT, "lists": lists, "hard_mode": False, "max_guesses": 6}
        path.write_text(json.dumps({**header, "sources": list(sources)}))
        return path

    def source(kind: str, **totals: object) -> dict:
        return {"name": kind + " paper", "kind": kind, "cite": "a cite", "totals": totals}

    read = lambda p: read_opener_totals(p, vocab, False, 6)  # noqa: E731
    got = read(table(source("exact", salet=7920), source("exact", salet=7925, crane=7950),
                     source("upper", trace=7930)))  # fmt: skip
    assert got.exact == {"salet": 7920, "crane": 7950} and got.upper == {"trace": 7930}
    assert got.sources == {"exact paper": "a cite", "upper paper": "a cite"}
    assert read(table(source("exact", salet=7920), lists="other")) is None
    for bad, says in (
        (["salet"], "a source is not"),
        ({"name": "x", "kind": "lower", "totals": {}}, "a source is not"),
        (source("exact", zzzzz=7920), "'zzzzz' is not an allowed guess"),
        (source("exact", salet=7920.0), "'salet' is not an allowed guess with a total"),
    ):
        with pytest.raises(ValueError, match=says) as info:
            read(table(bad))
        assert str(path) in str(info.value) and "\n" not in str(info.value)
