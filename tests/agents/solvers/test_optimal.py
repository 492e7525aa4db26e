"""The exact solver (wordle_gym.solver.search) against a plain exhaustive search, and
its shipped trees."""

from __future__ import annotations

import io
import json
import math
import os
import random
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.lists import SMALL, list_files, list_pair, small_lists, trap_lists
from tests.helpers.processes import ROOT, interrupt, wordle_gym_here
from tests.helpers.reference import feedback_ref, few_letter_words
from wordle_agents.commands.optimal import main
from wordle_agents.commands.optimal import main as optimal_main
from wordle_agents.solvers.optimal_agent import OptimalSolver
from wordle_gym.core import tables
from wordle_gym.core.words import Vocabulary, word_source
from wordle_gym.envs.vector import WordleVectorEnv
from wordle_gym.harness.evaluation import evaluate
from wordle_gym.solver.search import (
    OptimalTree,
    _Search,
    best_of,
    check_limits,
    shipped_tree,
    solve,
)

INF = 10**9


def _hard_ok(word: str, known: tuple) -> bool:
    """The game's hard-mode rule: greens in place, revealed letters used as often as revealed."""
    greens, need = known
    return all(word[i] == letter for i, letter in greens) and all(
        word.count(c) >= n for c, n in need
    )


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
    answers: list[str],
    allowed: list[str],
    opener: str,
    hard: bool,
    max_guesses: int,
    known: tuple = ((), ()),
) -> int:
    """Least total guesses over ``answers`` starting with ``opener``: every guess tried at every
    node (``known``: what hard mode must respect already)."""

    @cache
    def best(candidates: frozenset[str], left: int, known: tuple) -> int:
        if left <= 0:
            return INF
        if len(candidates) == 1:
            return 1
        if left <= 1:
            return INF
        return min(
            after(g, candidates, left, known) for g in allowed if not hard or _hard_ok(g, known)
        )

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


@pytest.mark.parametrize(
    ("lists", "seed", "opener", "hard", "max_guesses"),
    [
        # normal mode, 6 guesses: below too
        pytest.param("random", 1, None, False, 6, marks=pytest.mark.slow),
        ("random", 5, None, False, 3),  # some openers cannot make it in 3
        ("traps", 0, "catch", True, 6),  # hard mode costs 4 guesses more than normal here
        ("traps", 0, "catch", False, 6),
        # impossible in hard mode
        pytest.param("traps", 1, "catch", True, 6, marks=pytest.mark.slow),
        ("traps", 1, "schwa", True, 5),
        ("traps", 2, "mebos", False, 4),
    ],
)
def test_solver__equals_exhaustive_search(
    lists: str, seed: int, opener: str | None, hard: bool, max_guesses: int
) -> None:
    answers, allowed = small_lists(seed, 40, 160) if lists == "random" else trap_lists(seed)
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
    """Regression: with no guess left after the opener, a bucket of one answer was counted as solved
    (here a total of 4 for two answers the opener is not)."""
    vocab = Vocabulary(["crane", "month"], ["crane", "month", "salet"])
    assert brute_force(vocab.answers, vocab.allowed, "salet", False, 1) >= INF
    with pytest.raises(ValueError, match="within 1 guesses"):
        solve(vocab, "salet", False, 1, progress=False)
    assert solve(vocab, "salet", False, 2, progress=False).total == 4
    assert (
        solve(Vocabulary(["crane"], ["crane", "salet"]), "crane", False, 1, progress=False).total
        == 1
    )


@pytest.mark.parametrize(
    ("length", "hard"),
    [(4, False), (4, True), pytest.param(6, False, marks=pytest.mark.slow), (3, True)],
)
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
    answers, allowed = trap_lists(0)
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


@pytest.mark.slow
@pytest.mark.parametrize("hard", [False, True])
def test_solver__the_real_lists_give_the_shipped_trees_node_for_node(hard: bool) -> None:
    """The search's shortcuts and pruning (a guess that told a node nothing is not tried below it)
    change no choice: solving from SALET gives the shipped tree array for array (where handing the
    children half of the useful guesses gave 7928 / 8169 and the small exhaustive cases did not
    notice)."""
    tree = solve(Vocabulary(), "salet", hard, progress=False)
    shipped = OptimalTree.load(shipped_tree("salet", hard))
    assert tree.total == shipped.total
    for name in ("guesses", "child_start", "child_pattern", "child_node"):
        assert np.array_equal(getattr(tree, name), getattr(shipped, name)), name


def test_tree__saves_loads_and_refuses_other_files(tmp_path: Path) -> None:
    answers, allowed = small_lists(8, 30, 90)
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


def test_command__solves_saves_and_reports_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers, allowed, lists = list_files(tmp_path, 9)
    out = tmp_path / "tree.npz"
    assert main([allowed[0], *lists, "--save", str(out)]) == 0
    want = brute_force(answers, allowed, allowed[0], False, 6)
    printed = capsys.readouterr().out
    assert f"{want} guesses" in printed and OptimalTree.load(out).total == want
    # regression (issue 41): the result was printed twice
    assert printed.count(f"{want} guesses") == 1
    assert main(["best-of-2", *lists, "--quiet"]) == 0
    printed = capsys.readouterr().out.splitlines()
    # each opener tried, then the best
    assert len(printed) == 3 and printed[-1].startswith("optimal from")
    assert main(["zzzzz", *lists]) == 2
    assert "not an allowed guess" in capsys.readouterr().err
    assert main([allowed[0], *lists, "--max-guesses", "2"]) == 2
    assert "within 2 guesses" in capsys.readouterr().err


def test_without_numba__one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.delitem(sys.modules, "wordle_gym.solver._kernel", raising=False)
    with pytest.raises(ImportError, match="pip install numba"):
        answers, allowed = small_lists(10, 10, 20)
        solve(Vocabulary(answers, allowed), allowed[0], progress=False)


def test_assist__exact_values_agree_with_the_solver(tmp_path: Path) -> None:
    """``assist --optimal``: after a guess, each suggestion's exact figure is the optimal tree's
    mean over the candidates left when that suggestion is played next (solved here
    independently)."""
    answers, allowed = trap_lists(0)
    (tmp_path / "a.txt").write_text("\n".join(answers))
    (tmp_path / "g.txt").write_text("\n".join(allowed))
    tiles = feedback_ref("catch", answers[0])
    typed = "catch " + "".join(map(str, tiles))
    lists = ["--answers", str(tmp_path / "a.txt"), "--allowed", str(tmp_path / "g.txt")]
    out = wordle_gym_here(
        "assist", "--optimal", "--hard", *lists, "--top", "3", stdin=typed + "\nquit\n"
    )
    assert out.returncode == 0, out.stderr
    after = out.stdout.split("> ", 1)[1]
    left = sorted(a for a in answers if feedback_ref("catch", a) == tiles)
    rows = [
        line.split() for line in after.splitlines() if "exact" in line and line.startswith("  ")
    ]
    assert rows, out.stdout
    for row in rows:
        word, figure = row[0], row[row.index("exact") + 1]
        if figure == "cannot":
            continue
        # The same position as a fresh game: the candidates left, 5 guesses, hard mode after CATCH.
        want = brute_force(left, allowed, word, True, 5, known=_reveal(((), ()), "catch", tiles))
        assert float(figure) == pytest.approx(want / len(left), abs=5e-5), (word, figure)


# ----------------------------------------------------------------------------- 2. trees are checked
def test_trees__a_cached_or_given_tree_must_fit_the_opener_mode_and_lists(tmp_path: Path) -> None:
    answers, allowed, _ = list_pair(tmp_path, seed=8)
    vocab = Vocabulary(answers, allowed)
    first, other = allowed[3], allowed[5]
    tree = solve(vocab, first, progress=False)
    # Planted under the cache name of another opener: refused, never played under that name.

    tree.save(tmp_path / "cache" / f"optimal_{other}_normal_6_{vocab.digest}.npz")
    solver = OptimalSolver(opener=other, cache_dir=str(tmp_path / "cache"))
    with pytest.raises(ValueError, match=rf"does not fit: opener '{first}' \(wanted '{other}'\)"):
        evaluate(solver, answers=answers, allowed=allowed, device="cpu", progress=False)
    given = tree.save(tmp_path / "given.npz")
    with pytest.raises(ValueError, match="does not fit: opener"):
        evaluate(
            OptimalSolver(opener=other, checkpoint=str(given)),
            answers=answers,
            allowed=allowed,
            progress=False,
        )
    with pytest.raises(ValueError, match="does not fit: hard_mode False"):
        evaluate(
            OptimalSolver(checkpoint=str(given)),
            answers=answers,
            allowed=allowed,
            hard_mode=True,
            progress=False,
        )
    # Without --opener a given tree plays its own first guess, under its own name.
    result = evaluate(
        OptimalSolver(checkpoint=str(given)), answers=answers, allowed=allowed, progress=False
    )
    assert result.openers == {first: len(answers)} and result.agent == f"optimal (opener {first})"
    # A header that lies about its contents.
    tree.total += 1
    with pytest.raises(ValueError, match="does not play as its header says"):
        evaluate(
            OptimalSolver(checkpoint=str(tree.save(tmp_path / "lie.npz"))),
            answers=answers,
            allowed=allowed,
            progress=False,
        )
    tree.total -= 1
    tree.opener = other
    with pytest.raises(
        ValueError,
        match=f"says it opens with {other.upper()} but its first guess is {first.upper()}",
    ):
        evaluate(
            OptimalSolver(checkpoint=str(tree.save(tmp_path / "lie2.npz"))),
            answers=answers,
            allowed=allowed,
            progress=False,
        )


# ----------------------------------------------------------------------------------- 3. cache bound
@pytest.mark.parametrize("hard", [False, True])
def test_solver__a_bounded_cache_still_gives_the_whole_tree(hard: bool) -> None:
    answers, allowed = small_lists(4, 60, 200)
    vocab = Vocabulary(answers, allowed)
    free = solve(vocab, allowed[0], hard, progress=False)
    bounded = solve(vocab, allowed[0], hard, max_cache_entries=1, progress=False)
    assert bounded.total == free.total and int(bounded.play(vocab).sum()) == free.total
    for bad in (0, -5, 1.5, True):
        with pytest.raises(ValueError, match="max_cache_entries must be an integer >= 1"):
            solve(vocab, allowed[0], hard, max_cache_entries=bad, progress=False)


# -------------------------------------------------------------------------------------- 5. stopping
def test_solver__the_time_limit_holds() -> None:
    start = time.perf_counter()
    with pytest.raises(TimeoutError, match="time limit of 1 s"):
        solve(Vocabulary(), "fuzzy", time_limit=1, progress=False)  # minutes without a limit
    assert time.perf_counter() - start < 60
    for bad in (math.nan, -1, 0, math.inf):
        with pytest.raises(ValueError, match="time_limit must be a positive number"):
            check_limits(6, bad)
    with pytest.raises(ValueError, match="max_guesses must be an integer from 1 to 1000"):
        check_limits(10**20)


@pytest.mark.slow
def test_solver__ctrl_c_stops_a_long_search_at_once() -> None:
    code, took, err = interrupt(
        [sys.executable, "-m", "wordle_agents.commands.optimal", "fuzzy"], "nodes]"
    )
    assert code == 130 and "interrupted" in err and "Traceback" not in err
    assert took < 30  # a search left alone runs for minutes


@pytest.mark.slow
def test_search__compiles_its_kernels_on_the_thread_that_builds_it() -> None:
    """Regression: Ctrl-C on a fresh checkout waited for numba to finish compiling the kernel on a
    worker thread (which nothing can stop: 11 s here, over 120 s in CI). A search, once built, has
    every kernel its workers call compiled (or loaded), so none compiles on a worker. A fresh
    process: numba's dispatchers live as long as it."""
    code = (
        "from tests.helpers.lists import small_lists\nfrom wordle_gym.core.words import "
        "Vocabulary\nfrom wordle_gym.solver import _kernel as k\nfrom "
        "wordle_gym.solver.search import _Search\nkernels = [k.solve, k.cache_size, "
        "k.clear_cache, k.new_cache, k.advance_constraint]\nbefore = [len(f.signatures) for f in "
        "kernels]\n_Search(Vocabulary(*small_lists(2, 20, 60)), True, 6)\nprint(before, "
        "[len(f.signatures) for f in kernels])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[-2] == "[0, 0, 0, 0, 0] [1, 1, 1, 1, 1]", out.stdout


# --------------------------------------------------------------------------- 6 and 7. crafted trees
def _npz(path: Path, **arrays: np.ndarray) -> Path:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    path.write_bytes(buffer.getvalue())
    return path


def _meta(**changes: object) -> np.ndarray:
    meta = {
        "format": "wordle-gym optimal tree 1",
        "opener": "salet",
        "hard_mode": False,
        "total": 1,
        "max_guesses": 6,
        "lists": "x",
        "num_answers": 1,
        **changes,
    }
    return np.array(json.dumps(meta))


def test_trees__crafted_files_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "empty.npz").write_bytes(b"")
    (tmp_path / "text.npz").write_text("guesses\n")
    crafted = [
        tmp_path / "empty.npz",
        tmp_path / "text.npz",
        _npz(tmp_path / "no_nodes.npz", meta=_meta(), **{k: np.zeros(0, np.int32) for k in ARRAYS}),
        _npz(tmp_path / "list_meta.npz", meta=np.array("[1, 2]"), **ARRAYS),
        _npz(tmp_path / "deep_meta.npz", meta=np.array("[" * 100_000 + "]" * 100_000), **ARRAYS),
        _npz(tmp_path / "bad_field.npz", meta=_meta(total="many"), **ARRAYS),
        _npz(
            tmp_path / "floats.npz", meta=_meta(), **{**ARRAYS, "guesses": np.zeros(1, np.float64)}
        ),
    ]
    assert OptimalTree.load(_npz(tmp_path / "good.npz", meta=_meta(), **ARRAYS)).total == 1
    for path in crafted:
        with pytest.raises(ValueError, match="not an optimal-play tree") as caught:
            OptimalTree.load(path)
        assert "\n" not in str(caught.value), path.name


def test_trees__declared_sizes_are_checked_before_reading(tmp_path: Path) -> None:
    """A header declaring 10^12 entries, and a zip bomb (100 MB of zeros in 100 kB): refused
    unread."""
    good = _npz(tmp_path / "good.npz", meta=_meta(), **ARRAYS)
    huge = tmp_path / "huge.npz"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(huge, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "guesses.npy":
                header = io.BytesIO()
                np.lib.format.write_array_header_1_0(
                    header, {"descr": "<i4", "fortran_order": False, "shape": (10**12,)}
                )
                data = header.getvalue() + b"\0" * 16
            out.writestr(info.filename, data)
    bomb = _npz(
        tmp_path / "bomb.npz", meta=_meta(), **{**ARRAYS, "guesses": np.zeros(25_000_000, np.int32)}
    )
    assert bomb.stat().st_size < 1_000_000
    for path in (huge, bomb):
        with pytest.raises(ValueError, match="declares"):
            OptimalTree.load(path)


def test_small__openers_lists_and_batches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert best_of("best-of-3") == 3
    for spec in ("best-of-٣", "best-of-100000", "best-of-0"):
        with pytest.raises(ValueError, match="malformed"):
            best_of(spec)
    with pytest.raises(TypeError, match="must be ordered"):
        Vocabulary(set(SMALL), None)
    bom = tmp_path / "bom.txt"
    bom.write_bytes("\ufeff".encode() + "\n".join(SMALL).encode())
    assert word_source(str(bom)) == SMALL
    start = time.perf_counter()
    with pytest.raises(
        ValueError,
        match=r"num_envs=1,000,000,000 needs about .* GiB at its steps' "
        r"peak",
    ):
        WordleVectorEnv(10**9, device="cpu")
    assert time.perf_counter() - start < 10  # refused before allocating, not after
    _, allowed, lists = list_pair(tmp_path)
    assert optimal_main([allowed[0], *lists, "--save", ""]) == 2
    assert "--save needs a file name" in capsys.readouterr().err
    for limit in ("nan", "-1"):
        assert optimal_main([allowed[0], *lists, "--time-limit", limit]) == 2
        assert "time_limit must be a positive number" in capsys.readouterr().err
    assert optimal_main([allowed[0], *lists, "--max-guesses", str(10**20)]) == 2
    assert "max_guesses must be an integer" in capsys.readouterr().err


ARRAYS = {
    "guesses": np.zeros(1, np.int32),
    "child_start": np.zeros(2, np.int32),
    "child_pattern": np.zeros(0, np.int32),
    "child_node": np.zeros(0, np.int32),
}


@pytest.fixture
def lists_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[list[str], list[str]]]:
    """A trap game's lists as answers.txt and allowed.txt in ``tmp_path``, its pattern table on disk
    in a cache of the test's own (only building it takes torch): (answers, allowed)."""
    answers, allowed = trap_lists(0)
    (tmp_path / "answers.txt").write_text("\n".join(answers))
    (tmp_path / "allowed.txt").write_text("\n".join(allowed))
    monkeypatch.setenv("WORDLE_GYM_CACHE", str(tmp_path / "cache"))
    tables.pattern_array.cache_clear()
    tables.pattern_array(Vocabulary(answers, allowed))  # built here and saved
    yield answers, allowed
    tables.pattern_array.cache_clear()


@pytest.mark.slow
def test_command__solves_and_saves_without_importing_torch(
    tmp_path: Path, lists_on_disk: tuple[list[str], list[str]]
) -> None:
    """``python -m wordle_agents.commands.optimal`` loads no torch (its import took longer than the
    search it runs): the package inits import lazily and the solver reads the numpy pattern table. A
    fresh process, as a user runs it, with the table on disk (only building it takes torch)."""
    answers, allowed = lists_on_disk
    code = (
        "import sys\nfrom wordle_agents.commands.optimal import main\ncode = main(['catch', "
        "'--answers', 'answers.txt', '--allowed', 'allowed.txt', '--save', 'tree.npz', "
        "'--quiet'])\nprint(code, 'torch' in sys.modules, 'wordle_gym.core.game' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[-2] == "0 False False", out.stdout
    tree = OptimalTree.load(tmp_path / "tree.npz")
    assert tree.total == brute_force(answers, allowed, "catch", False, 6)


@pytest.mark.slow
def test_command__as_its_own_process_imports_no_torch_nor_scipy_linalg(
    tmp_path: Path, lists_on_disk: tuple[list[str], list[str]]
) -> None:
    """Speed (issue 47): ``python -m wordle_agents.commands.optimal`` imports numba's array support
    with scipy's BLAS hidden (numba imported scipy.linalg to look for BLAS: 0.2 s of a 1.5 s solve)
    and exits without the interpreter's teardown; what it prints and saves is complete, and
    scipy.linalg still imports in a process that asks."""
    answers, allowed = lists_on_disk
    command = [sys.executable, "-X", "importtime", "-m", "wordle_agents.commands.optimal", "catch"]
    command += [
        "--answers",
        "answers.txt",
        "--allowed",
        "allowed.txt",
        "--save",
        "tree.npz",
        "--quiet",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, env=env, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    imported = {
        line.split("|")[-1].strip()
        for line in out.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert (
        "numba.np.arraymath" in imported
        and "scipy.linalg" not in imported
        and "torch" not in imported
    )
    total = brute_force(answers, allowed, "catch", False, 6)
    assert (
        OptimalTree.load(tmp_path / "tree.npz").total == total
        and (f": {total} guesses over") in out.stdout
    )
    # the library leaves it
    code = "import scipy.linalg, numba.np.arraymath; print(numba.np.arraymath._HAVE_BLAS)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip()
        == "True"
    )


def test_kernel__guesses_merged_as_alike_split_the_candidates_alike() -> None:
    """The search tries one guess of each class that letters no candidate has cannot tell apart:
    every guess it drops must get exactly the feedback of an earlier guess it keeps, from every
    candidate (else the search would miss a better guess). Real lists, candidate sets after SALET
    and after a second guess."""
    vocab = Vocabulary()
    search = _Search(vocab, False, 6)
    kernel, table = search.kernel, search.table
    rng = np.random.default_rng(0)
    everything = np.arange(vocab.num_allowed, dtype=np.int32)
    first = vocab.action("salet")
    for p, group in search.buckets(first, np.arange(vocab.num_answers, dtype=np.int32))[:3]:
        second = int(rng.integers(vocab.num_allowed))
        for S in [group, *(g for _, g in search.buckets(second, group)[:2])]:
            S = np.sort(S).astype(np.int32)
            kept = kernel.distinct_guesses(S, everything, search.codes, search.actions)
            assert kept[0] == 0 and np.all(np.diff(kept) > 0), p
            # each guess's feedback
            rows = [row.tobytes() for row in np.ascontiguousarray(table[:, S])]
            first_with: dict[bytes, int] = {}
            for g in kept.tolist():
                first_with.setdefault(rows[g], g)
            for g, row in enumerate(rows):
                h = first_with.get(row)
                assert h is not None and h <= g, (p, vocab.allowed[g], len(S))


def test_kernel__a_count_that_stops_early_stops_only_past_its_limit() -> None:
    """The perfect-guess check and the fail-soft bound's lone scans stop counting a guess's buckets
    once ``limit`` answers have shared a pattern (the guess can then neither tell every candidate
    apart nor lower the bound): the number of patterns below the limit, -1 from it on. Real
    lists, the candidates after SALET and after a second guess."""
    vocab = Vocabulary()
    search = _Search(vocab, False, 6)
    kernel, rng = search.kernel, np.random.default_rng(1)
    stamp, mark = np.full(search.solved + 1, -1, np.int64), 0
    everything = np.arange(vocab.num_answers, dtype=np.int32)
    stopped = counted = 0
    for _, group in search.buckets(vocab.action("salet"), everything)[:4]:
        second = int(rng.integers(vocab.num_allowed))
        for S in [group, *(g for _, g in search.buckets(second, group)[:3])]:
            S = S.astype(np.int32)
            for g in rng.integers(vocab.num_allowed, size=30).tolist():
                full = len(np.unique(search.table[g, S]))
                shared = len(S) - full
                for limit in (1, 2, max(1, shared), shared + 1, len(S) + 1):
                    mark += 1
                    within = kernel.buckets_within(search.by_answer, S, g, stamp, mark, limit)
                    assert within == (full if shared < limit else -1), (g, len(S), limit)
                    stopped += within < 0
                    counted += within >= 0
    assert stopped > 100 and counted > 100


@pytest.mark.parametrize("hard", [False, True])
def test_kernel__a_bucket_is_never_bounded_above_its_value(hard: bool) -> None:
    """Issue 85: each bucket of a guess is bounded before the search descends into any (its cached
    value or bound, a candidate that tells the others apart, the most buckets one guess makes), and
    a guess is cut on those bounds; a bound above the bucket's value would cut the best guess. On
    small lists and hard-mode traps, with an empty cache and one a search filled: never above."""
    for answers, allowed in (small_lists(8, 60, 150), trap_lists(2)):
        vocab = Vocabulary(answers=answers, allowed=allowed)
        search = _Search(vocab, hard, 6, lose=True)
        kernel, rng = search.kernel, random.Random(hard)
        filled = search.new_cache()
        stamp, marks = np.full(search.solved + 1, -1, np.int64), np.zeros(1, np.int64)
        members = np.arange(vocab.num_answers, dtype=np.int32)
        green, need = search.root()
        search.value(members, 4, green, need, filled, np.zeros(1, dtype=np.int64))
        checked = 0
        for g in rng.sample(range(vocab.num_allowed), 40):
            if not search.hard_valid(g, green, need):
                continue
            for p, group in search.buckets(g, members):
                if p == search.solved:
                    continue
                child_green, child_need = search.child_constraint(g, p, green, need)
                exact = search.value(
                    np.sort(group).astype(np.int32), 3, child_green, child_need,
                    search.new_cache(), np.zeros(1, dtype=np.int64),
                )  # fmt: skip
                for held in (search.new_cache(), filled):
                    floor = kernel.bucket_floor(
                        search.by_answer, np.sort(group).astype(np.int32), 3, g, p, held,
                        search.keys_a, search.keys_b, hard, search.codes, search.counts,
                        search.tiles, green, need, green.copy(), need.copy(), search.stop, True,
                        search.actions, search.most, stamp, marks,
                    )  # fmt: skip
                    assert floor <= exact, (vocab.allowed[g], p, len(group))
                    checked += 1
        assert checked > 100


@pytest.mark.parametrize("hard", [False, True])
def test_kernel__guesses_left_unscanned_by_their_caps_change_nothing_the_search_finds(
    hard: bool,
) -> None:
    """Issue 85: a guess whose cap (its buckets in the parent's candidates) bounds it at beta or
    more is not scanned, and its bound is found alone only where the fail-soft bound needs it. On
    lists where that happens, beside the same search with no caps (every guess scanned): the same
    values and nodes, and the cache the same entry for entry (exact values, best guesses and the
    fail-soft bounds learnt from cutoffs)."""
    vocab = Vocabulary(*small_lists(11, 300, 900))
    search = _Search(vocab, hard, 6, lose=True)
    kernel, rng = search.kernel, random.Random(hard)
    members = np.arange(vocab.num_answers, dtype=np.int32)
    uncapped = np.full(vocab.num_allowed, vocab.num_answers, np.int64)
    unscanned = 0
    for g in rng.sample(range(vocab.num_allowed), 12):
        for p, group in search.buckets(g, members)[:2]:
            green, need = search.child_constraint(g, p, *search.root())
            group = np.sort(group).astype(np.int32)
            for left, beta in ((4, kernel.INF), (3, 2 * len(group) + 3)):
                found = []
                for caps in (search.caps, uncapped):
                    cache, stats = search.new_cache(), np.zeros(2, np.int64)
                    value = kernel.solve(
                        search.by_answer, group, left, beta, cache, search.keys_a, search.keys_b,
                        hard, search.codes, search.counts, search.tiles, green, need, stats,
                        np.zeros(3, np.int64), True, search.actions, search.everything,
                        search.most, caps,
                    )  # fmt: skip
                    found.append((value, int(stats[0]), dict(cache.items())))
                    unscanned += int(stats[1]) * (caps is search.caps)
                assert found[0] == found[1], (vocab.allowed[g], p, left)
    assert unscanned > 1000


def test_command__a_part_in_other_digits_is_refused_in_its_own_words(capsys, tmp_path) -> None:
    """Reliability 6, finding 16: ``--part ²/3`` said "invalid literal for int()"."""
    save = str(tmp_path / "v.json")
    for part in ("²/3", "1/٣", "0/2", "3/2", "a/b"):
        argv = ["--values", "salet", "--first-move-only", "--part", part, "--save", save]
        assert optimal_main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert "--part must be K/N" in err and "invalid literal" not in err, err
