"""The proven lower bound on the multi-board optimum (issue 44): each claim checked, and the bound
held against the exact optimum of small games searched here by brute force."""

from __future__ import annotations

import functools
import itertools
import json
import random
from collections import defaultdict
from pathlib import Path

import pytest

from research.boards_bound import main
from research.dordle_search import dordle_finish, dordle_openers
from research.order_bound import (
    dordle_most,
    from_ranking,
    load_most,
    loss_cap,
    lower_bound,
    order_bound,
    solved_by,
)
from tests.helpers.reference import feedback_ref, few_letter_words
from wordle_agents.commands.optimal import main as optimal_main
from wordle_gym.core.words import Vocabulary
from wordle_gym.solver import openers as ranking
from wordle_gym.solver import solver_data
from wordle_gym.solver.oracle import Oracle

# The lab's tests run with the slow suite (CI runs both): the product's suite stays fast.
pytestmark = pytest.mark.slow


def _finish_bound_holds(boards: int, limit: int, cap: float) -> bool:
    """Claim 1 over every outcome: each board solved at a distinct guess 1..limit, or unsolved (then
    the game is lost and counts limit + 1)."""
    for outcome in itertools.product([None, *range(1, limit + 1)], repeat=boards):
        solved = [t for t in outcome if t is not None]
        if len(set(solved)) < len(solved):
            continue  # one guess solves one board
        count = max(solved) if len(solved) == boards else limit + 1
        costs = [cap if t is None else t for t in outcome]
        if count < sum(costs) / boards + (boards - 1) / 2 - 1e-12:
            return False
    return True


@pytest.mark.parametrize("boards", [1, 2, 3, 4, 5])
def test_loss_cap__claim_one_holds_and_the_cap_is_the_largest_that_does(boards: int) -> None:
    for limit in range(boards, boards + 6):
        cap = loss_cap(boards, limit)
        assert _finish_bound_holds(boards, limit, cap), (boards, limit)
        assert not _finish_bound_holds(boards, limit, cap + 1e-6), (boards, limit)


def _multi_optimum(
    answers: list[str], guesses: list[str], boards: int, limit: int, opener: str | None = None
) -> float:
    """The exact optimal mean count of ``boards``-board games (distinct answers, each tuple equally
    likely, a loss counting limit + 1), by exhaustive search over every guess at every position (the
    first guess ``opener`` where given)."""
    solved_tiles = (2,) * len(answers[0])
    tuples = frozenset(itertools.permutations(range(len(answers)), boards))

    @functools.cache
    def total(members: frozenset, solved: tuple, turn: int) -> int:
        if all(solved):
            return turn * len(members)
        if turn == limit:
            return (limit + 1) * len(members)
        best = None
        for g in [opener] if opener and turn == 0 else guesses:
            groups = defaultdict(set)
            for tup in members:
                groups[
                    tuple(
                        None if solved[k] else feedback_ref(g, answers[tup[k]])
                        for k in range(boards)
                    )
                ].add(tup)
            if (
                len(groups) == 1
                and g != opener
                and all(t is None or t != solved_tiles for t in next(iter(groups)))
            ):
                continue  # learns nothing and solves nothing: never better than a guess that does
            cost = 0
            for key, group in groups.items():
                after = tuple(s or key[k] == solved_tiles for k, s in enumerate(solved))
                cost += total(frozenset(group), after, turn + 1)
            best = cost if best is None else min(best, cost)
        return best if best is not None else (limit + 1) * len(members)

    return total(tuples, (False,) * boards, 0) / len(tuples)


@pytest.mark.parametrize(("seed", "boards", "count"), [(0, 2, 7), (1, 2, 8), (2, 3, 6)])
def test_lower_bound__below_the_exact_optimum_of_small_games(
    seed: int, boards: int, count: int
) -> None:
    words = few_letter_words(random.Random(seed), "abcde", 3, count)
    limit = boards + 2
    # one board with one guess fewer: an unsolved board may count the single game's loss
    single = limit - 1
    oracle = Oracle(answers=words, allowed=None, max_guesses=single, root_opener=None)
    v = oracle.value(oracle.start())
    bound = lower_bound(round(v * len(words)), len(words), single, boards, limit)
    optimum = _multi_optimum(words, words, boards, limit)
    assert bound <= optimum + 1e-9, (bound, optimum)
    # on so few answers the collision term is large; with 2 boards it still says more than 1
    if boards == 2:
        assert bound > v


@pytest.mark.parametrize(
    ("seed", "boards", "count", "letters", "length"),
    [
        (0, 2, 7, "abcde", 3),
        (1, 3, 6, "abcde", 3),
        (3, 4, 6, "abcde", 3),
        (0, 3, 10, "abcdef", 2),
        (1, 3, 12, "abcdef", 2),
    ],
)
def test_order_bound__each_order_is_below_the_exact_optimum_of_small_games(
    seed: int, boards: int, count: int, letters: str, length: int
) -> None:
    """Claim 3 for every ``j``, from the maxima of every opener: at most the exact optimum (equal to
    it on the three-letter games, where one guess tells every answer apart; below it on the
    two-letter ones)."""
    words = few_letter_words(random.Random(seed), letters, length, count)
    vocab = Vocabulary(words, None)
    limit = boards + 2
    got = order_bound(boards, limit, dordle_most(vocab, dordle_openers(vocab)))
    optimum = _multi_optimum(words, words, boards, limit)
    assert len(got["by_order"]) == boards and got["lower_bound"] == max(got["by_order"])
    assert all(b <= optimum + 1e-9 for b in got["by_order"]), (got, optimum)
    assert got["lower_bound"] > boards  # it says more than "one guess a board"
    with pytest.raises(
        ValueError, match=f"{boards} boards need {boards} guesses at least; got {boards - 1}"
    ):
        order_bound(boards, boards - 1, dordle_most(vocab, dordle_openers(vocab)))


def _most_solved(
    answers: list[str], guesses: list[str], boards: int, at_least: int, by: int
) -> float:
    """The largest share of answer tuples any ``boards``-board policy solves ``at_least`` boards of
    by guess ``by``, by exhaustive search over every guess at every position."""
    solved_tiles = (2,) * len(answers[0])

    @functools.cache
    def most(members: frozenset, solved: tuple, turn: int) -> int:
        if sum(solved) >= at_least:
            return len(members)
        if turn == by:
            return 0
        best = 0
        for g in guesses:
            groups = defaultdict(set)
            for tup in members:
                groups[
                    tuple(
                        None if solved[k] else feedback_ref(g, answers[tup[k]])
                        for k in range(boards)
                    )
                ].add(tup)
            after = {
                key: tuple(s or key[k] == solved_tiles for k, s in enumerate(solved))
                for key in groups
            }
            best = max(
                best,
                sum(most(frozenset(group), after[key], turn + 1) for key, group in groups.items()),
            )
        return best

    tuples = list(itertools.permutations(range(len(answers)), boards))
    return most(frozenset(tuples), (False,) * boards, 0) / len(tuples)


@pytest.mark.parametrize("seed", [0, 1])
def test_solved_by__each_bound_is_at_least_the_most_any_policy_solves(seed: int) -> None:
    """Claim 3's ingredients one by one: no policy solves a board by the second guess, or two by the
    second or the third, more often than ``u(j, t)`` says, on two boards and (fewer answers)
    three."""
    rng = random.Random(seed)
    words = few_letter_words(rng, "abcdef", 2, 26)
    extra = few_letter_words(rng, "abcdef", 2, 4)
    said = 0
    for boards, answers, cases in (
        (2, words, [(1, 2), (2, 2), (2, 3)]),
        (3, words[:10], [(2, 2), (2, 3)]),
    ):
        allowed = sorted({*answers, *extra})
        vocab = Vocabulary(answers, allowed)
        u = solved_by(boards, dordle_most(vocab, dordle_openers(vocab)))
        for j, t in cases:
            exact = _most_solved(answers, allowed, boards, j, t)
            assert exact <= u(j, t) + 1e-12, (boards, j, t, exact, u(j, t))
            said += u(j, t) < 1  # where the bound says something
    assert said >= 4


def test_dordle_most__the_maxima_are_the_exhaustive_searchs() -> None:
    words = few_letter_words(random.Random(2), "abcdef", 2, 9)
    allowed = sorted({*words, "fa", "ab"})
    vocab = Vocabulary(words, allowed)
    most = dordle_most(vocab, dordle_openers(vocab))
    classes = {g: len({feedback_ref(g, a) for a in words}) for g in allowed}
    assert most["most_cells"] == [
        max(classes.values()),
        min(g for g in allowed if classes[g] == max(classes.values())),
    ]
    for by in (2, 3):
        exact = {g: _most_finished(words, allowed, g, by) for g in allowed}
        assert most["most_finished_by"][str(by)][0] == max(exact.values()), by
        assert exact[most["most_finished_by"][str(by)][1]] == max(exact.values())
    with pytest.raises(ValueError, match="with every opener counted"):
        dordle_most(vocab, dordle_openers(vocab, openers=allowed[:3]))


def _most_finished(answers: list[str], guesses: list[str], opener: str, by: int) -> int:
    """The most ordered answer pairs a two-board policy opening with ``opener`` finishes within
    ``by`` guesses, by exhaustive search over every guess at every position."""
    solved_tiles = (2,) * len(answers[0])

    @functools.cache
    def most(members: frozenset, solved: tuple, turn: int) -> int:
        if all(solved):
            return len(members)
        if turn == by:
            return 0
        best = 0
        for g in [opener] if turn == 0 else guesses:
            groups = defaultdict(set)
            for tup in members:
                groups[
                    tuple(None if solved[k] else feedback_ref(g, answers[tup[k]]) for k in range(2))
                ].add(tup)
            after = {
                key: tuple(s or key[k] == solved_tiles for k, s in enumerate(solved))
                for key in groups
            }
            best = max(
                best,
                sum(most(frozenset(group), after[key], turn + 1) for key, group in groups.items()),
            )
        return best

    return most(frozenset(itertools.permutations(range(len(answers)), 2)), (False, False), 0)


def _small_game(seed: int) -> tuple[list[str], list[str]]:
    """Two-letter words over six letters: few patterns, so the opener's cells stay large and some
    pairs cannot be finished by the fourth guess; three allowed words that are no answer."""
    rng = random.Random(seed)
    words = few_letter_words(rng, "abcdef", 2, 18)
    extra = [w for w in few_letter_words(rng, "abcdef", 2, 40) if w not in words][:3]
    return words, sorted({*words, *extra})


@pytest.mark.parametrize("seed", [4, 11])
def test_dordle_finish__the_most_pairs_finished_are_the_exhaustive_searchs(seed: int) -> None:
    """The kernel's counts are the maxima over every policy: exact for an opener that is no answer;
    for an answer opener, exact by the second and third guess and an over-count by the fourth (as
    documented)."""
    words, allowed = _small_game(seed)
    vocab = Vocabulary(words, allowed)
    opener = next(w for w in allowed if w not in words)
    got = dordle_finish(vocab, opener)
    want = [_most_finished(words, allowed, opener, by) for by in (2, 3, 4)]
    assert [got["finished_by"][k] for k in "234"] == want
    # the case the fourth-guess search is for: not every pair finishes
    assert want[2] < got["pairs"]
    assert got["lower_bound"] == pytest.approx(5 - sum(want) / got["pairs"])
    hit = dordle_finish(vocab, words[1])
    want = [_most_finished(words, allowed, words[1], by) for by in (2, 3, 4)]
    assert [hit["finished_by"]["2"], hit["finished_by"]["3"]] == want[:2] and want[0] > 0
    assert hit["finished_by"]["4"] >= want[2]


@pytest.mark.parametrize("seed", [0, 2])
def test_dordle_finish__the_bound_is_below_the_exact_optimum_from_the_opener(seed: int) -> None:
    words, allowed = _small_game(seed)
    vocab = Vocabulary(words, allowed)
    for opener in (allowed[0], next(w for w in allowed if w not in words)):
        bound = dordle_finish(vocab, opener)["lower_bound"]
        optimum = _multi_optimum(words, allowed, 2, 5, opener=opener)
        assert bound <= optimum + 1e-9, (opener, bound, optimum)
        assert bound > 3  # it says more than "two boards, most finished by the third guess"


@pytest.mark.parametrize("seed", [0, 4])
def test_dordle_openers__every_openers_bound_holds_and_the_least_is_below_the_optimum(
    seed: int,
) -> None:
    """The count bound of each opener: exact by the second and third guess, at least the exact
    search's count by the fourth; the least over the openers lies below the exact optimum over every
    policy."""
    words, allowed = _small_game(seed)
    vocab = Vocabulary(words, allowed)
    got = dordle_openers(vocab)
    assert got["finished"] and sorted(got["counts"]) == allowed
    loose = 0
    for word in allowed:
        exact = dordle_finish(vocab, word)["finished_by"]
        by2, by3, by4 = got["counts"][word]
        assert [by2, by3] == [exact["2"], exact["3"]] and by4 >= exact["4"], word
        loose += by4 > exact["4"]
    assert loose > 0  # a bound, not the search
    assert got["lower_bound"] == min(5 - sum(c) / got["pairs"] for c in got["counts"].values())
    assert got["weakest"][0][1] == got["lower_bound"]
    assert 3 < got["lower_bound"] <= _multi_optimum(words, allowed, 2, 7) + 1e-9
    bounds = {w: 5 - sum(c) / got["pairs"] for w, c in got["counts"].items()}
    some = dordle_openers(vocab, refine_below=got["weakest"][3][1])  # the weakest refined
    assert some["finished"] and some["refined"] == sorted(
        w for w, b in bounds.items() if b < got["weakest"][3][1]
    )
    assert 0 < len(some["refined"]) < len(allowed)
    tighter = dordle_openers(vocab, refine_below=10)  # every opener refined
    assert tighter["refined"] == allowed
    for word in allowed:
        exact = dordle_finish(vocab, word)["finished_by"]["4"]
        mine, count = tighter["counts"][word], got["counts"][word]
        assert exact <= mine[2] <= count[2] and mine[:2] == count[:2]
        assert word in tighter["refined"] or mine == count
    # tighter somewhere
    assert any(tighter["counts"][w][2] < got["counts"][w][2] for w in tighter["refined"])
    assert (
        got["lower_bound"] <= tighter["lower_bound"] <= _multi_optimum(words, allowed, 2, 7) + 1e-9
    )
    cut = sorted(5 - sum(c) / got["pairs"] for c in tighter["counts"].values())[3]
    # the weakest refined, searched
    searched = dordle_openers(vocab, refine_below=cut - 0.5, search_below=cut)
    below = sorted(w for w, c in tighter["counts"].items() if 5 - sum(c) / got["pairs"] < cut)
    assert searched["finished"] and searched["searched"] == below and 0 < len(below) < len(allowed)
    # refined first, to the cut
    assert searched["refined"] == sorted(w for w, b in bounds.items() if b < cut)
    for word in allowed:
        exact = dordle_finish(vocab, word)["finished_by"]["4"]
        other = tighter if word in searched["refined"] else got
        assert searched["counts"][word][2] == (
            exact if word in below else other["counts"][word][2]
        ), word
    assert searched["lower_bound"] >= tighter["lower_bound"]
    assert searched["lower_bound"] <= _multi_optimum(words, allowed, 2, 7) + 1e-9
    sample = dordle_openers(vocab, openers=[allowed[3].upper(), allowed[1]])
    assert sample["finished"] and sample["counts"] == {
        w: got["counts"][w] for w in (allowed[3], allowed[1])
    }
    with pytest.raises(ValueError, match="openers must be allowed words; got 'zz'"):
        dordle_openers(vocab, openers=["zz"])


def test_dordle_openers__a_stopped_run_continues_from_its_journal(tmp_path: Path) -> None:
    words, allowed = _small_game(4)
    vocab = Vocabulary(words, allowed)
    journal = tmp_path / "journal.json"
    calls, row = 0, {"finished": False}
    while not row["finished"]:
        row = dordle_openers(vocab, journal, max_minutes=1e-9)  # one opener a call
        calls += 1
        assert (
            len(row["counts"]) == calls
            and json.loads(journal.read_text())["counts"] == row["counts"]
        )
    assert calls == len(allowed) and row == dordle_openers(vocab)
    calls, row = 0, {"finished": False}
    while not row["finished"]:  # then every opener refined, one a call, from the same journal
        assert row.get("refined_below") is None  # not until every opener below it is refined
        row = dordle_openers(vocab, journal, max_minutes=1e-9, refine_below=10)
        calls += 1
    assert calls == len(allowed) and row == dordle_openers(vocab, refine_below=10)
    calls, row = 0, {"finished": False}
    while not row["finished"]:  # then every opener searched, one a call
        row = dordle_openers(vocab, journal, max_minutes=1e-9, refine_below=10, search_below=10)
        calls += 1
        assert (
            len(row["searched"]) == calls
            and json.loads(journal.read_text())["searched"] == row["searched"]
        )
    assert calls == len(allowed) and row == dordle_openers(vocab, refine_below=10, search_below=10)
    assert (row["refined_below"], row["searched_below"]) == (10, 10)
    # the journal keeps the larger: done
    row = dordle_openers(vocab, journal, refine_below=3, search_below=3)
    assert (row["refined_below"], row["searched_below"]) == (10, 10) and row["finished"]
    with pytest.raises(ValueError, match="is no Dordle opener bound of these lists"):
        dordle_openers(Vocabulary(words[1:], allowed), journal)


def test_dordle_finish__command_prints_and_writes_the_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    words, allowed = _small_game(4)
    (tmp_path / "a.txt").write_text("\n".join(words) + "\n")
    (tmp_path / "g.txt").write_text("\n".join(allowed) + "\n")
    lists = ["--answers", str(tmp_path / "a.txt"), "--allowed", str(tmp_path / "g.txt")]
    out = tmp_path / "bound.json"
    assert main(["--opener", allowed[0].upper(), *lists, "--json", str(out), "--quiet"]) == 0
    row = json.loads(out.read_text())
    assert row == dordle_finish(Vocabulary(words, allowed), allowed[0])
    assert (
        f"proven lower bound on the mean count: {row['lower_bound']:.4f}"
    ) in capsys.readouterr().out
    journal = tmp_path / "journal.json"
    assert (
        main(["--all-openers", *lists, "--save", str(journal), "--max-minutes", "1e-9", "--quiet"])
        == 0
    )
    assert (
        f"1 of {len(allowed)} openers bounded; the same command continues"
    ) in capsys.readouterr().out
    # Regression (issue 62): without --save it said the same, though nothing was kept to continue.
    assert main(["--all-openers", *lists, "--max-minutes", "1e-9", "--quiet"]) == 0
    assert (
        "openers bounded; nothing was kept: --save FILE keeps a run to continue"
    ) in capsys.readouterr().out
    assert main(["--all-openers", *lists, "--save", str(journal), "--quiet"]) == 0
    least = dordle_openers(Vocabulary(words, allowed))["lower_bound"]
    assert f"proven lower bound on the optimal mean count: {least:.4f}" in capsys.readouterr().out
    assert main(["--all-openers", *lists, "--save", str(journal), "--refine-below", "10"]) == 0
    capsys.readouterr()
    search = [*lists, "--save", str(journal), "--search-below", "10", "--max-minutes", "1e-9"]
    # one opener searched: the bound so far, proven, and more to do
    assert main(["--all-openers", *search]) == 0
    out = capsys.readouterr().out
    row = json.loads(journal.read_text())
    assert (
        len(row["searched"]) == 1
        and (f"allowed, 1 searched); the weakest:\n  {row['weakest'][0][0].upper()}") in out
    )
    assert f"proven lower bound on the optimal mean count: {row['lower_bound']:.4f}" in out
    assert "the refinement or the search is not finished; the same command continues" in out
    assert main(["--all-openers", "--max-minutes", "0"]) == 2
    assert "--max-minutes must be a number of minutes > 0; got 0.0" in capsys.readouterr().err


def test_ranking_with_losses__its_best_is_the_oracles_optimum_and_gives_the_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--all-openers --losses``: the best opener's total is the oracle's value of the start
    (losses cost limit + 1), the ranking names its answers, and the bound follows from the saved
    file."""
    words = few_letter_words(random.Random(3), "abcdefg", 4, 30)
    vocab = Vocabulary(words, None)
    data = ranking.rank_openers(vocab, max_guesses=3, top=1, lose=True, progress=False)
    oracle = Oracle(answers=words, allowed=None, max_guesses=3, root_opener=None)
    assert data["losses"] and data["num_answers"] == 30
    assert data["ranking"][0][1] == round(oracle.value(oracle.start()) * 30)
    strict = ranking.rank_openers(vocab, max_guesses=3, top=1, progress=False)
    assert "losses" not in strict and (
        strict["ranking"] == [] or strict["ranking"][0][1] >= data["ranking"][0][1]
    )
    path, words_file = tmp_path / "losses.json", tmp_path / "w.txt"
    words_file.write_text("\n".join(words) + "\n")
    lists = [
        "--answers",
        str(words_file),
        "--allowed",
        str(words_file),
        "--max-guesses",
        "3",
        "--quiet",
    ]
    assert (
        optimal_main(["--all-openers", "--losses", "--top", "1", *lists, "--save", str(path)]) == 0
    )
    # the command's ranking: the same (how each opener was ruled out may vary)
    saved = ranking.load(path)
    assert [saved[k] for k in ("losses", "num_answers", "ranking", "cutoff")] == [
        True,
        30,
        data["ranking"],
        data["cutoff"],
    ]
    got = from_ranking(ranking.load(path), 2, max_guesses=4)
    assert got["lower_bound"] == pytest.approx(lower_bound(data["ranking"][0][1], 30, 3, 2, 4))
    with pytest.raises(ValueError, match="with losses counted"):
        from_ranking(strict, 2)
    out = tmp_path / "bounds.json"
    assert main(["--ranking", str(path), "--boards", "2,3", "--json", str(out)]) == 0
    assert [row["boards"] for row in json.loads(out.read_text())] == [2, 3]
    assert (
        "| 2 | 7 | " in capsys.readouterr().out
        and "order_bound" not in json.loads(out.read_text())[0]
    )
    # then Claim 3 from every opener
    journal, summary = tmp_path / "journal.json", tmp_path / "most.json"
    dordle_openers(vocab, journal)
    lists = ["--answers", str(words_file), "--allowed", str(words_file)]
    args = [
        "--ranking",
        str(path),
        "--boards",
        "2,3",
        "--most",
        str(journal),
        *lists,
        "--json",
        str(out),
    ]
    # regression (issue 62): "" was taken for "not given"
    assert main([*args, "--save-most", ""]) == 2
    assert "'' is an empty path; expected a file name" in capsys.readouterr().err
    assert main([*args, "--save-most", str(summary)]) == 0
    rows, most = json.loads(out.read_text()), json.loads(summary.read_text())
    assert most == dordle_most(vocab, json.loads(journal.read_text())) == load_most(summary)
    for row in rows:
        order = order_bound(row["boards"], row["max_guesses"], most)
        assert row["order_bound"] == order and row["lower_bound"] == max(
            row["one_board_bound"], order["lower_bound"]
        )
        assert (
            row["one_board_bound"] == from_ranking(ranking.load(path), row["boards"])["lower_bound"]
        )
    printed = capsys.readouterr().out
    assert (
        f"| 3 | 8 | {rows[1]['one_board_bound']:.4f} | "
        f"{rows[1]['order_bound']['lower_bound']:.4f} |"
    ) in printed
    assert (
        main(["--ranking", str(path), "--boards", "2", "--most", str(summary), "--json", str(out)])
        == 0
    )
    assert json.loads(out.read_text())[0] == rows[0]  # the summary gives what the journal gave
    from research.order_bound import SHIPPED_MOST
    from wordle_gym.solver import solver_data

    # the real lists'
    assert main(["--ranking", str(path), "--most", str(solver_data() / SHIPPED_MOST)]) == 2
    err = capsys.readouterr().err
    assert (
        "the maxima (--most) are of other lists than the ranking's" in err and err.count("\n") == 1
    )


def test_command__bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--boards", "2,x"]) == 2
    assert "--boards takes board counts from 1 to 32; got '2,x'" in capsys.readouterr().err
    (tmp_path / "r.json").write_text("{}")
    assert main(["--ranking", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert "is not an opener ranking" in err and err.count("\n") == 1
    assert main(["--opener", "xyzzq"]) == 2
    assert "the opener must be an allowed word; got 'xyzzq'" in capsys.readouterr().err
    assert main(["--opener", "salet", "--answers", str(tmp_path / "none.txt")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["--opener", "salet", "--ray"]) == 2
    assert "--ray is not used with --opener; it goes with --all-openers" in capsys.readouterr().err
    assert main(["--boards", "2", "--save-most", str(tmp_path / "m.json")]) == 2
    assert (
        "--save-most writes the maxima of --most: give it a journal of --all-openers"
    ) in capsys.readouterr().err
    assert main(["--boards", "2", "--most", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert "is neither a summary of Dordle openers" in err and err.count("\n") == 1
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--opener", "salet", "--save", "j.json"],
            "--save is not used with --opener; it goes with --all-openers",
        ),
        (
            ["--opener", "salet", "--all-openers"],
            "--opener and --all-openers are two modes; give one",
        ),
        (
            ["--all-openers", "--boards", "2"],
            "--boards is not used with --all-openers; it goes with the multi-board",
        ),
        (
            ["--boards", "2", "--max-minutes", "3"],
            "--max-minutes is not used by the multi-board bounds",
        ),
        (
            ["--answers", "a.txt"],
            "--answers is not used by the multi-board bounds (no --opener or --all-openers); ",
        ),
    ],
)
def test_command__an_option_the_mode_would_ignore_is_refused(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression (issue 62): each was ignored; --opener with --all-openers ran --all-openers."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_command__ray_without_ray_installed_is_one_line(
    monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    # as where Ray is not installed: importing it fails
    monkeypatch.setitem(sys.modules, "ray", None)
    assert main(["--all-openers", "--ray", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--ray needs Ray: pip install ray" in err and err.count("\n") == 1
    with pytest.raises(ValueError, match="an unsolved board may count only"):
        # with no guess more than one board's game, the bound does not apply
        lower_bound(100, 30, 6, 2, 6)


def test_shipped__the_real_lists_ranking_with_losses_gives_every_board_counts_bound(capsys) -> None:
    """The shipped certificate: every opener of the real lists ranked with losses counted; its best
    is no worse than the shipped ranking without losses (counting losses can only lower a tree's
    total)."""
    from research.order_bound import SHIPPED, shipped_bounds
    from wordle_gym.solver import solver_data

    data = ranking.load(solver_data() / SHIPPED)
    strict = ranking.load(ranking.shipped_ranking(False))
    assert (
        data["finished"] and data["losses"] and not data["hard_mode"] and data["max_guesses"] == 6
    )
    assert data["lists"] == Vocabulary().digest and data["num_answers"] == 2315
    assert data["ranking"][0][1] <= strict["ranking"][0][1]
    bounds = shipped_bounds([2, 4, 8, 16, 32])
    assert [b["boards"] for b in bounds] == [2, 4, 8, 16, 32]
    assert all(a["lower_bound"] < b["lower_bound"] for a, b in itertools.pairwise(bounds))
    assert all(
        b["lower_bound"] > b["boards"] and b["order_bound"]["lower_bound"] > b["one_board_bound"]
        for b in bounds
    )
    assert main(["--boards", "2"]) == 0
    assert (
        f"| 2 | 7 | {bounds[0]['one_board_bound']:.4f} | {bounds[0]['lower_bound']:.4f} |"
    ) in capsys.readouterr().out


def test_shipped__the_maxima_over_every_opener_are_reached_by_the_openers_named() -> None:
    """The shipped summary of every opener's Dordle counts (made by ``--most JOURNAL --save-most``
    from ``--all-openers``; the count pass over every opener takes half an hour): each maximum is
    the count of the opener it names, the most classes and the most pairs finished by the second
    guess (twice the classes of an answer opener but one) are the largest over every opener."""
    from research.dordle_search import _opener_counts, _tables
    from research.order_bound import SHIPPED_MOST
    from wordle_gym.core.tables import pattern_array
    from wordle_gym.solver import solver_data

    vocab = Vocabulary()
    most = load_most(solver_data() / SHIPPED_MOST)
    assert most["lists"] == vocab.digest and (most["answers"], most["allowed"]) == (2315, 12972)
    classes = [len(set(row.tolist())) for row in pattern_array(vocab)]
    cells, word = most["most_cells"]
    assert cells == max(classes) == classes[vocab.allowed_index[word]]
    answers = set(vocab.answers)
    assert most["most_finished_by"]["2"][0] == max(
        2 * (c - 1) for w, c in zip(vocab.allowed, classes, strict=True) if w in answers
    )
    tables = _tables(vocab)
    for t, (count, word) in most["most_finished_by"].items():
        assert _opener_counts(tables, vocab.length, vocab.allowed_index[word])[int(t) - 2] == count


def test_certificates__numbers_that_cannot_be_right_are_refused_before_a_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 62: negative maxima printed a 'proven' bound of 1050983.0159, a ranking total of
    99999999 one of 43215.7081, a journal of huge counts -902.4410; --most /dev/zero grew to 8.4
    GB."""
    shipped = json.loads((solver_data() / "dordle_openers_most.json").read_text())
    bad_most = [
        {**shipped, "most_cells": [-5, "trace"]},
        {**shipped, "most_cells": [0, "trace"]},
        {**shipped, "most_finished_by": {"2": [-1, "trace"], "3": [106552, "trace"]}},
        {**shipped, "most_finished_by": {"2": [10**12, "trace"], "3": [106552, "trace"]}},
        # fewer by 3 than by 2
        {**shipped, "most_finished_by": {"2": [500, "trace"], "3": [400, "trace"]}},
    ]
    for i, data in enumerate(bad_most):
        path = tmp_path / f"most{i}.json"
        path.write_text(json.dumps(data))
        assert main(["--boards", "4", "--most", str(path)]) == 2
        err = capsys.readouterr().err
        assert "maxima that cannot be right" in err and err.count("\n") == 1, err
    ranking_data = ranking.load(solver_data() / "openers_normal_losses.json")
    for best in (["salet", 99999999], ["salet", 5], ["salet", -1]):
        path = tmp_path / "ranking.json"
        path.write_text(json.dumps({**ranking_data, "ranking": [best]}))
        assert main(["--boards", "4", "--ranking", str(path)]) == 2
        assert "cannot be right" in capsys.readouterr().err
    assert main(["--boards", "4", "--most", "/dev/zero"]) == 2
    assert "not a file of maxima" in capsys.readouterr().err
    words, allowed = _small_game(4)
    vocab = Vocabulary(words, allowed)
    journal = tmp_path / "journal.json"
    dordle_openers(vocab, journal, max_minutes=1e-9)
    data = json.loads(journal.read_text())
    word = next(iter(data["counts"]))
    journal.write_text(json.dumps({**data, "counts": {word: [10**15, 0, 0]}}))
    with pytest.raises(ValueError, match="counts that cannot be right"):
        dordle_openers(vocab, journal)


def test_journal__a_second_run_on_one_journal_is_refused_and_outputs_are_checked_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 62: two runs on one --save kept the last writer's journal (hours of search lost);
    --json to a folder that cannot be written failed after the search."""
    from wordle_gym.utils.files import file_lock

    words, allowed = _small_game(4)
    vocab = Vocabulary(words, allowed)
    journal = tmp_path / "journal.json"
    with (
        file_lock(f"{journal}.lock", "test"),
        pytest.raises(ValueError, match="is in use by another"),
    ):
        dordle_openers(vocab, journal)
    assert not journal.exists()
    row = dordle_openers(vocab, journal)  # the lock is free again
    assert row["finished"]
    (tmp_path / "a-file").write_text("")
    # not a folder
    assert main(["--opener", "salet", "--json", str(tmp_path / "a-file" / "o.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_all_openers__ctrl_c_stops_after_the_opener_at_work_with_its_journal(
    tmp_path: Path,
) -> None:
    """Regression (issue 62): Ctrl-C during ``--all-openers`` came out of the compiled kernel as a
    traceback (``SystemError: CPUDispatcher(...) returned a result with an exception set``, rc 1),
    and the journal, written once a minute, kept nothing of the last minute. Now: one line, rc 130,
    every opener done is in the journal."""
    import subprocess
    import sys

    from tests.helpers.processes import ROOT, interrupt

    journal = tmp_path / "dordle.json"
    command = [
        sys.executable,
        "-m",
        "research.boards_bound",
        "--all-openers",
        "--save",
        str(journal),
    ]
    first = subprocess.run(
        [*command, "--max-minutes", "0.02"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert first.returncode == 0, first.stderr  # (the kernels compiled, a few openers done)
    before = len(json.loads(journal.read_text())["counts"])
    code, _, err = interrupt(command, "", delay=8.0)
    assert code == 130 and "Traceback" not in err and "SystemError" not in err, err[-2000:]
    assert f"interrupted; {journal} keeps the openers done: the same command continues" in err
    # the last seconds' openers were kept
    assert len(json.loads(journal.read_text())["counts"]) > before


def test_pair_search__ctrl_c_inside_the_kernel_stops_it_at_once() -> None:
    """Issue 62: ``--opener W``'s search ignored Ctrl-C for minutes (the kernel held the main
    thread). The kernel runs on a worker and polls ``stop``; a Ctrl-C on the main thread sets it and
    is raised once the call ends."""
    import _thread
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from research import _pair_kernel as kernel
    from research.dordle_search import _cells, _stoppable, _tables

    vocab = Vocabulary(few_letter_words(random.Random(3), "abcdefg", 3, 40), None)
    table, actions, answer_of = _tables(vocab)
    order, starts, guess_cell, cell_solved = _cells(table, answer_of, 0)
    sizes, nclass = kernel.class_sizes(table, answer_of, order, starts, 27)
    aa = np.ascontiguousarray(table[actions])
    arrays = (order, starts, guess_cell, cell_solved, sizes, nclass, table, aa, answer_of, 27)
    stopped = kernel.pair_counts(0, *arrays, True, np.ones(1, dtype=np.int64))
    # the kernel polls stop: nothing counted once it is set
    assert all(not part.any() for part in stopped)
    counted = kernel.pair_counts(0, *arrays, True, np.zeros(1, dtype=np.int64))
    assert counted[0].any()

    stop, ended = np.zeros(1, dtype=np.int64), []

    def long_call() -> str:  # as the kernel: runs until stop is set
        while not stop[0]:
            time.sleep(0.01)
        ended.append(True)
        return "half counted"

    threading.Timer(0.3, _thread.interrupt_main).start()
    with ThreadPoolExecutor(1) as pool, pytest.raises(KeyboardInterrupt):
        _stoppable(pool, stop, long_call)
    assert stop[0] == 1 and ended == [True]  # stopped and waited for, its result never used
