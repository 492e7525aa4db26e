"""The exact solver (wordle_agents.solvers.optimal) against a plain exhaustive search, and its shipped trees."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from reference import feedback_ref, few_letter_words

from wordle_agents.optimal import main
from wordle_agents.solvers.optimal import OptimalSolver, OptimalTree, shipped_tree, solve
from wordle_gym.core.words import Vocabulary, load_word_list
from wordle_gym.harness.evaluation import evaluate

INF = 10**9


def _small_lists(seed: int, answers: int, guesses: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    pool = load_word_list("answers")
    chosen = rng.sample(pool, answers)
    extra = rng.sample([w for w in load_word_list("allowed") if w not in chosen], guesses - answers)
    return sorted(chosen), sorted(chosen + extra)


def _hard_ok(word: str, known: tuple) -> bool:
    """The game's hard-mode rule: greens in place, revealed letters used as often as revealed."""
    greens, need = known
    return all(word[i] == letter for i, letter in greens) and all(word.count(c) >= n for c, n in need)


def _reveal(known: tuple, guess: str, tiles: tuple[int, ...]) -> tuple:
    """What hard mode must respect after ``guess`` got ``tiles`` (sorted tuples, a cache key)."""
    greens, need = dict(known[0]), dict(known[1])
    for i, t in enumerate(tiles):
        if t == 2:
            greens[i] = guess[i]
    for letter in set(guess):
        shown = sum(1 for g, t in zip(guess, tiles, strict=True) if g == letter and t)
        need[letter] = max(need.get(letter, 0), shown)
    return tuple(sorted(greens.items())), tuple(sorted((c, n) for c, n in need.items() if n))


def brute_force(
    answers: list[str], allowed: list[str], opener: str, hard: bool, max_guesses: int, known: tuple = ((), ())
) -> int:
    """Least total guesses over ``answers`` starting with ``opener``: every guess tried at every node
    (``known``: what hard mode must respect already)."""

    @cache
    def best(candidates: frozenset[str], left: int, known: tuple) -> int:
        if left <= 0:
            return INF
        if len(candidates) == 1:
            return 1
        if left <= 1:
            return INF
        return min(after(g, candidates, left, known) for g in allowed if not hard or _hard_ok(g, known))

    def after(guess: str, candidates: frozenset[str], left: int, known: tuple) -> int:
        parts: dict[tuple[int, ...], set[str]] = {}
        for answer in candidates:
            parts.setdefault(feedback_ref(guess, answer), set()).add(answer)
        if len(parts) == 1 and guess not in candidates:
            return INF
        cost = len(candidates)
        for tiles, part in parts.items():
            if all(t == 2 for t in tiles):
                continue
            cost += best(frozenset(part), left - 1, _reveal(known, guess, tiles) if hard else ())
        return cost

    if hard and not _hard_ok(opener, known):
        return INF
    return after(opener, frozenset(answers), max_guesses, known)


def _trap_lists(seed: int) -> tuple[list[str], list[str]]:
    """36 answers of the hard-mode traps (-ATCH, -IGHT, -OUND, -ILL ...) and 60 other guesses:
    lists where hard mode costs guesses and can make the limit unreachable."""
    rng = random.Random(seed)
    traps = [w for w in load_word_list("answers") if re.fullmatch(r".(atch|ight|ound|aste|ower|ill.|ake.)|..ill", w)]
    chosen = sorted(rng.sample(traps, 36))
    extra = rng.sample([w for w in load_word_list("allowed") if w not in chosen], 60)
    return chosen, sorted(chosen + extra)


@pytest.mark.parametrize(
    ("lists", "seed", "opener", "hard", "max_guesses"),
    [
        ("random", 1, None, False, 6),
        ("random", 5, None, False, 3),  # some openers cannot make it in 3
        ("traps", 0, "catch", True, 6),  # hard mode costs 4 guesses more than normal here
        ("traps", 0, "catch", False, 6),
        ("traps", 1, "catch", True, 6),  # impossible in hard mode
        ("traps", 1, "schwa", True, 5),
        ("traps", 2, "mebos", False, 4),
    ],
)
def test_solver__equals_exhaustive_search(
    lists: str, seed: int, opener: str | None, hard: bool, max_guesses: int
) -> None:
    answers, allowed = _small_lists(seed, 40, 160) if lists == "random" else _trap_lists(seed)
    vocab = Vocabulary(answers, allowed)
    for first in [opener] if opener else random.Random(seed).sample(allowed, 3):
        want = brute_force(answers, allowed, first, hard, max_guesses)
        if want >= INF:
            with pytest.raises(ValueError, match="solves every answer"):
                solve(vocab, first, hard, max_guesses, progress=False)
            continue
        tree = solve(vocab, first, hard, max_guesses, progress=False)
        assert tree.total == want, (first, hard, max_guesses)
        used = tree.play(vocab)
        assert used.min() >= 1 and used.max() <= max_guesses and used.sum() == want


def test_solver__with_one_guess_only_the_opener_can_win() -> None:
    """Regression: with no guess left after the opener, a bucket of one answer was counted as solved (here a
    total of 4 for two answers the opener is not)."""
    vocab = Vocabulary(["crane", "month"], ["crane", "month", "salet"])
    assert brute_force(vocab.answers, vocab.allowed, "salet", False, 1) >= INF
    with pytest.raises(ValueError, match="within 1 guesses"):
        solve(vocab, "salet", False, 1, progress=False)
    assert solve(vocab, "salet", False, 2, progress=False).total == 4
    assert solve(Vocabulary(["crane"], ["crane", "salet"]), "crane", False, 1, progress=False).total == 1


@pytest.mark.parametrize(("length", "hard"), [(4, False), (4, True), (6, False), (3, True)])
def test_solver__other_word_lengths(length: int, hard: bool) -> None:
    """Other lengths (3**6 patterns no longer fit a byte) against the same exhaustive search."""
    rng = random.Random(length)
    words = few_letter_words(rng, "abcdeor", length, 120)
    answers, allowed = sorted(rng.sample(words, 30)), words
    vocab = Vocabulary(answers, allowed)
    for first in rng.sample(allowed, 2):
        want = brute_force(answers, allowed, first, hard, 6)
        tree = solve(vocab, first, hard, 6, progress=False)
        assert tree.total == want and tree.play(vocab).sum() == want, (first, length, hard)


def test_solver__hard_trees_use_only_hard_valid_guesses() -> None:
    answers, allowed = _trap_lists(0)
    vocab = Vocabulary(answers, allowed)
    tree = solve(vocab, "catch", True, 6, progress=False)
    for answer in answers:
        node, known = 0, ((), ())
        while True:
            guess = vocab.allowed[tree.guesses[node]]
            assert _hard_ok(guess, known), (answer, guess, known)
            tiles = feedback_ref(guess, answer)
            if guess == answer:
                break
            known = _reveal(known, guess, tiles)
            node = tree.child(node, int("".join(map(str, tiles)), 3))
    solver = OptimalSolver("catch")
    solver.tree, solver._context = tree, (vocab, True, 6)
    result = evaluate(solver, answers=answers, allowed=allowed, hard_mode=True, progress=False)
    assert result.win_rate == 1.0 and round(result.mean_guesses_wins * len(answers)) == tree.total


@pytest.mark.parametrize(("hard", "total", "worst"), [(False, 7920, 5), (True, 8122, 6)])
def test_shipped_salet_trees_reproduce_the_optimum(hard: bool, total: int, worst: int) -> None:
    tree = OptimalTree.load(shipped_tree("salet", hard))
    assert (tree.total, tree.hard_mode, tree.opener) == (total, hard, "salet")
    used = tree.play(Vocabulary())
    assert used.min() >= 1 and used.sum() == total and used.max() == worst
    result = evaluate(OptimalSolver("salet"), hard_mode=hard, progress=False)
    assert result.win_rate == 1.0 and round(result.mean_guesses_wins * 2315) == total


def test_tree__saves_loads_and_refuses_other_files(tmp_path: Path) -> None:
    answers, allowed = _small_lists(8, 30, 90)
    vocab = Vocabulary(answers, allowed)
    tree = solve(vocab, allowed[3], False, 6, progress=False)
    assert set(tree.seconds) == {"setup", "search", "extract"} and min(tree.seconds.values()) >= 0
    path = tree.save(tmp_path / "tree.npz")
    again = OptimalTree.load(path)
    assert again.total == tree.total and np.array_equal(again.child_node, tree.child_node)
    assert np.array_equal(again.play(vocab), tree.play(vocab))
    (tmp_path / "junk.npz").write_bytes(b"not a tree")
    with pytest.raises(ValueError, match="not an optimal-play tree"):
        OptimalTree.load(tmp_path / "junk.npz")
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, meta=np.array([{"format": "x"}], dtype=object))
    with pytest.raises(ValueError, match="not an optimal-play tree"):
        OptimalTree.load(pickled)  # allow_pickle=False: an object array is refused, never unpickled
    with pytest.raises(ValueError, match="does not fit: lists"):
        evaluate(OptimalSolver(checkpoint=str(path)), progress=False)  # a tree of other lists
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.npz", "pickled.npz", "tree.npz"]


def list_files(folder: Path, seed: int) -> tuple[list[str], list[str], list[str]]:
    """Small lists written to ``folder``: the answers, the guesses, and the command-line options naming them."""
    answers, allowed = _small_lists(seed, 30, 90)
    (folder / "a.txt").write_text("\n".join(answers))
    (folder / "g.txt").write_text("\n".join(allowed))
    return answers, allowed, ["--answers", str(folder / "a.txt"), "--allowed", str(folder / "g.txt"), "--quiet"]


def test_command__solves_saves_and_reports_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers, allowed, lists = list_files(tmp_path, 9)
    out = tmp_path / "tree.npz"
    assert main([allowed[0], *lists, "--save", str(out)]) == 0
    want = brute_force(answers, allowed, allowed[0], False, 6)
    printed = capsys.readouterr().out
    assert f"{want} guesses" in printed and OptimalTree.load(out).total == want
    assert printed.count(f"{want} guesses") == 1  # regression (issue 41): the result was printed twice
    assert main(["best-of-2", *lists, "--quiet"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3 and printed[-1].startswith("optimal from")  # each opener tried, then the best
    assert main(["zzzzz", *lists]) == 2
    assert "not an allowed guess" in capsys.readouterr().err
    assert main([allowed[0], *lists, "--max-guesses", "2"]) == 2
    assert "within 2 guesses" in capsys.readouterr().err


def test_without_numba__one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.delitem(sys.modules, "wordle_agents.solvers._optimal_kernel", raising=False)
    with pytest.raises(ImportError, match="pip install numba"):
        answers, allowed = _small_lists(10, 10, 20)
        solve(Vocabulary(answers, allowed), allowed[0], progress=False)


def test_assist__exact_values_agree_with_the_solver(tmp_path: Path) -> None:
    """``assist --optimal``: after a guess, each suggestion's exact figure is the optimal tree's mean
    over the candidates left when that suggestion is played next (solved here independently)."""
    import os
    import subprocess
    import sys

    answers, allowed = _trap_lists(0)
    (tmp_path / "a.txt").write_text("\n".join(answers))
    (tmp_path / "g.txt").write_text("\n".join(allowed))
    tiles = feedback_ref("catch", answers[0])
    typed = "catch " + "".join(map(str, tiles))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), "NO_COLOR": "1"}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "wordle_gym",
            "assist",
            "--optimal",
            "--hard",
            "--answers",
            str(tmp_path / "a.txt"),
            "--allowed",
            str(tmp_path / "g.txt"),
            "--top",
            "3",
        ],
        input=typed + "\nquit\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    after = out.stdout.split("> ", 1)[1]
    left = sorted(a for a in answers if feedback_ref("catch", a) == tiles)
    rows = [line.split() for line in after.splitlines() if "exact" in line and line.startswith("  ")]
    assert rows, out.stdout
    for row in rows:
        word, figure = row[0], row[row.index("exact") + 1]
        if figure == "cannot":
            continue
        # The same position as a fresh game: the candidates left, 5 guesses, hard mode after CATCH.
        want = brute_force(left, allowed, word, True, 5, known=_reveal(((), ()), "catch", tiles))
        assert float(figure) == pytest.approx(want / len(left), abs=5e-5), (word, figure)
