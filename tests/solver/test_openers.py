"""Every opener ranked (wordle_gym.solver.openers): each figure held to the exact solver, opener
by opener."""

from __future__ import annotations

import json
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.lists import list_files, small_lists, trap_lists
from tests.helpers.processes import interrupt
from wordle_agents.commands.optimal import main
from wordle_gym.core.words import Vocabulary
from wordle_gym.solver import openers
from wordle_gym.solver.openers import STAGES, load, rank_openers, root_bounds, shipped_ranking
from wordle_gym.solver.search import _Search, solve


def _truth(vocab: Vocabulary, hard: bool, max_guesses: int) -> dict[str, int | None]:
    """Each opener's exact optimum from the exact solver (itself held to an exhaustive search), None
    where no tree solves every answer."""
    out: dict[str, int | None] = {}
    for word in vocab.allowed:
        try:
            out[word] = solve(vocab, word, hard, max_guesses, progress=False).total
        except ValueError:
            out[word] = None
    return out


def _check(data: dict, truth: dict[str, int | None], top: int) -> None:
    cutoff = data["cutoff"]
    for word, value, exact in zip(data["words"], data["values"], data["exact_flags"], strict=True):
        if exact == "1":
            assert value == truth[word], word
        else:  # a proof that it is not among the best: a lower bound at the cutoff or above
            assert truth[word] is None or cutoff <= value <= truth[word], (word, value, truth[word])
    solvable = sorted((value, word) for word, value in truth.items() if value is not None)
    # ties stay in
    want = [[word, value] for value, word in solvable if value <= solvable[top - 1][0]]
    assert data["ranking"] == want
    assert data["finished"] and data["openers_done"] == len(truth)
    assert sum(data["ruled_out"].values()) + data["exact"] + data["unsolvable"] == len(truth)


@pytest.mark.parametrize(
    ("lists", "seed", "hard", "max_guesses", "top"),
    [
        ("random", 1, False, 6, 5),
        ("traps", 1, True, 6, 3),
        ("traps", 2, False, 4, 4),
        ("random", 3, True, 5, 1),
    ],
)
def test_ranking__every_figure_equals_the_exact_solver(
    lists: str, seed: int, hard: bool, max_guesses: int, top: int
) -> None:
    answers, allowed = small_lists(seed, 30, 90) if lists == "random" else trap_lists(seed)
    vocab = Vocabulary(answers, allowed)
    data = rank_openers(vocab, hard, max_guesses, top, progress=False)
    _check(data, _truth(vocab, hard, max_guesses), top)


def test_ranking__some_openers_cannot_solve_every_answer() -> None:
    """Hard mode on the trap lists within 5 guesses: openers that cannot are exact at None, never
    ranked."""
    vocab = Vocabulary(*trap_lists(1))
    truth = _truth(vocab, True, 5)
    assert None in truth.values() and any(v is not None for v in truth.values())
    data = rank_openers(vocab, True, 5, 3, progress=False)
    _check(data, truth, 3)
    # the rest fell to a bound first
    assert 0 < data["unsolvable"] <= sum(v is None for v in truth.values())


def test_root_bounds__equal_the_bound_counted_by_hand() -> None:
    vocab = Vocabulary(*small_lists(4, 30, 90))
    search = _Search(vocab, False, 6)
    bounds = root_bounds(search)
    for g in random.Random(0).sample(range(vocab.num_allowed), 10):
        row = search.table[g]
        hit = int((row == search.solved).any())
        assert bounds[g] == 3 * vocab.num_answers - hit - len(set(row.tolist()))


def test_kernel__fail_soft_values_are_exact_below_beta_and_bounds_above() -> None:
    """``solve(S, r, beta)``: the exact value when it is below ``beta``, else a lower bound of at
    least ``beta`` (the least bound over the guesses, not just ``beta``): with a fresh cache and
    with one shared by every call."""
    vocab = Vocabulary(*small_lists(6, 40, 120))
    search = _Search(vocab, False, 6)
    root_green, root_need = search.root()
    rng = np.random.default_rng(0)
    shared = search.new_cache()
    above = 0
    for _ in range(60):
        members = np.sort(
            rng.choice(vocab.num_answers, int(rng.integers(3, 25)), replace=False)
        ).astype(np.int32)
        left = int(rng.integers(2, 5))

        def value(beta: int, cache: object, members: np.ndarray = members, left: int = left) -> int:
            return search.value(
                members, left, root_green, root_need, cache, np.zeros(1, np.int64), beta
            )

        exact = value(search.kernel.INF, search.new_cache())
        for beta in {
            2 * len(members),
            exact,
            exact + 1,
            int(rng.integers(2 * len(members), 3 * len(members))),
        }:
            for cache in (search.new_cache(), shared):
                got = value(beta, cache)
                assert got == exact if exact < beta else beta <= got <= exact, (beta, got, exact)
                above += got > beta
    assert above > 0  # fail-soft: some bounds rise past beta


def test_ranking__a_killed_session_keeps_its_clock(tmp_path: Path) -> None:
    """Regression: a session killed before it wrote ``session_s`` dropped out of the run's wall time
    and session count (today's proof reported its last 4 minutes of nearly two hours)."""
    vocab = Vocabulary(*small_lists(2, 30, 90))
    journal = tmp_path / "ranking.json.journal"
    rank_openers(vocab, top=4, journal=journal, progress=False)
    lines = journal.read_text().splitlines()
    records = [json.loads(line) for line in lines[1:-1]]
    assert all(r["at"] >= 0 for r in records)
    # Two sessions killed one after the other (the second's clock starts again), then a third.
    for r, at in zip(records, [50.0, 900.0, 7.5, 20.0], strict=False):
        r["at"] = at
    killed = [lines[0], *(json.dumps(r) for r in records[:4])]
    journal.write_text("\n".join(killed) + "\n")
    again = rank_openers(vocab, top=4, journal=journal, progress=False)
    assert again["finished"] and again["sessions"] == 3
    assert (
        920.0
        <= again["wall_s"]
        < 920.0 + json.loads(journal.read_text().splitlines()[-1])["session_s"] + 1
    )


def test_ranking__resumes_from_its_journal(tmp_path: Path) -> None:
    vocab = Vocabulary(*small_lists(2, 30, 90))
    journal = tmp_path / "ranking.json.journal"
    first = rank_openers(vocab, top=4, journal=journal, progress=False)
    lines = journal.read_text().splitlines()
    assert json.loads(lines[-1]).keys() == {"session_s"} and len(lines) == 2 + vocab.num_allowed
    records = [json.loads(line) for line in lines[1:-1]]
    # Keep half, one of them doctored (a resumed run reads, never redoes, what is kept), and a line
    # cut short. Which openers a bound rules out depends on the order the threads finish them: keep
    # one of those, wherever it is (regression: the first half was all exact on a loaded machine),
    # or, where the threads solved every opener exactly (as they sometimes do), one outside the
    # ranking, whose doctored value leaves it unchanged.
    ranked = {word for word, _ in first["ranking"]}
    doctored = min(records, key=lambda r: (r["exact"], r["word"] in ranked))
    kept = [doctored, *(r for r in records[: len(records) // 2] if r is not doctored)]
    doctored["value"] += 1000
    journal.write_text(
        "\n".join([lines[0], *(json.dumps(r) for r in kept), lines[-1], lines[-2][:20]])
    )
    again = rank_openers(vocab, top=4, journal=journal, progress=False)
    assert again["ranking"] == first["ranking"] and again["finished"]
    assert again["values"][vocab.allowed.index(doctored["word"])] == doctored["value"]
    redone = [json.loads(line) for line in journal.read_text().splitlines()[1:]]
    # the cut line dropped, the rest done once
    assert sum("word" in r for r in redone) == vocab.num_allowed
    with pytest.raises(ValueError, match="belongs to another run"):
        rank_openers(vocab, top=5, journal=journal, progress=False)
    # A last line complete but for its newline is kept, and what is appended starts a line of its
    # own.
    journal.write_text("\n".join([lines[0], json.dumps(records[0])]))
    assert (
        rank_openers(vocab, top=4, journal=journal, progress=False)["ranking"] == first["ranking"]
    )
    assert [json.loads(line) for line in journal.read_text().splitlines()][1] == records[0]


def test_command__ranks_saves_and_reports_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers, allowed, lists = list_files(tmp_path, 9)
    out = tmp_path / "openers.json"
    assert main(["--all-openers", "--top", "3", "--save", str(out), *lists]) == 0
    printed = capsys.readouterr().out
    data = load(out)
    best, value = data["ranking"][0]
    assert (
        f"   1. {best.upper()}  {value} guesses" in printed
        and ("ruled out by the root bound") in printed
    )
    # journal removed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "g.txt", "openers.json"]
    assert value == solve(Vocabulary(answers, allowed), best, progress=False).total
    assert set(data["stages"]) <= set("0123") and STAGES[3] == "exact"
    for argv, message in [
        (["--all-openers", "--top", "0"], "top must be an integer from 1"),
        (["--all-openers", "--time-limit", "5"], "--max-minutes"),
        (["--all-openers", "--max-minutes", "-1"], "max_minutes must be a positive number"),
    ]:
        assert main([*argv, *lists]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    for argv, message in (
        (
            ["salet", "--all-openers"],
            "give an opener, --all-openers, --values or --merge (one of them)",
        ),
        ([], "give an opener, --all-openers, --values or --merge (one of them)"),
        (["salet", "--max-minutes", "3"], "--max-minutes goes with --all-openers"),
        # regression (issue 62): it was ignored
        (["salet", "--top", "3"], "--top goes with --all-openers"),
    ):
        assert main([*argv, *lists]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    (tmp_path / "bad.json").write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match="not an opener ranking"):
        load(tmp_path / "bad.json")


def test_shipped_ranking__matches_the_shipped_salet_tree() -> None:
    """The shipped ranking of the real lists: SALET first at 7920, the total of the shipped, proven
    tree."""
    data = load(shipped_ranking(False))
    assert data["finished"] and data["lists"] == Vocabulary().digest and not data["hard_mode"]
    assert data["ranking"][0] == ["salet", 7920] and len(data["ranking"]) >= data["top"]
    assert data["openers_done"] == len(data["values"]) == 12972
    assert sum(data["ruled_out"].values()) + data["exact"] + data["unsolvable"] == 12972


def test_ranking__a_second_run_on_the_same_journal_is_refused(tmp_path: Path) -> None:
    """Regression (issue 42): two --all-openers runs on one --save wrote one journal together (3692
    records for 1865 words, a wrong cutoff and a short proven top). The journal is locked: a second
    run is refused."""
    from wordle_gym.utils.files import file_lock

    vocab = Vocabulary(*small_lists(2, 30, 90))
    journal = tmp_path / "ranking.json.journal"
    with (
        file_lock(f"{journal}.lock", "opener ranking"),
        pytest.raises(ValueError, match="in use by another opener"),
    ):
        rank_openers(vocab, top=4, journal=journal, progress=False)
    assert not journal.exists()


def test_ranking__a_word_twice_in_the_journal_counts_once(tmp_path: Path) -> None:
    """Regression (issue 42): a word journaled twice (two runs, before the lock) was counted twice:
    its exact total took two places of the top and the cutoff came out lower than the proven
    ranking's."""
    vocab = Vocabulary(*small_lists(2, 30, 90))
    journal = tmp_path / "ranking.json.journal"
    first = rank_openers(vocab, top=4, journal=journal, progress=False)
    lines = journal.read_text().splitlines()
    exact = [line for line in lines[1:-1] if json.loads(line)["exact"]]
    journal.write_text("\n".join([*lines, *exact, *exact]) + "\n")  # every exact opener three times
    again = rank_openers(vocab, top=4, journal=journal, progress=False)
    assert again["ranking"] == first["ranking"] and again["cutoff"] == first["cutoff"]


def test_ranking__ctrl_c_among_the_submissions_cancels_what_was_queued(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression (CI, issue 42): a Ctrl-C while the openers were still being submitted to the pool
    came before the search's stop flag and cancellation were in place, so the pool's shutdown ran
    every opener queued so far (on the real lists: a hang of minutes). Interrupted at the 60th
    submission, at most the openers in flight run."""
    vocab = Vocabulary(*small_lists(2, 30, 90))
    ran, submitted = [], []
    real_value, real_submit = openers.opener_value, ThreadPoolExecutor.submit

    def slow_value(*args: object) -> object:
        ran.append(1)
        time.sleep(0.05)  # an opener takes a while, as on the real lists
        return real_value(*args)

    def submit(pool: ThreadPoolExecutor, *args: object) -> object:
        submitted.append(1)
        if len(submitted) == 60:
            raise KeyboardInterrupt
        return real_submit(pool, *args)

    monkeypatch.setattr(openers, "opener_value", slow_value)
    monkeypatch.setattr(ThreadPoolExecutor, "submit", submit)
    with pytest.raises(KeyboardInterrupt):
        rank_openers(vocab, top=4, progress=False)
    assert len(ran) < 30, len(ran)


@pytest.mark.parametrize(
    "line",
    ['["salet", 7920]', '{"word": "WORD", "value": 9, "stage": "exact"}', '{"session_s": "long"}'],
)
def test_ranking__a_malformed_journal_line_is_one_error_naming_it(
    tmp_path: Path, line: str
) -> None:
    """Regression (issue 42): a line that is a JSON list, or a record without "exact", was a
    traceback."""
    vocab = Vocabulary(*small_lists(2, 30, 90))
    journal = tmp_path / "ranking.json.journal"
    rank_openers(vocab, top=4, journal=journal, max_minutes=1e-9, progress=False)
    lines = journal.read_text().splitlines()
    journal.write_text(
        "\n".join([lines[0], line.replace("WORD", vocab.allowed[0]), lines[-1]]) + "\n"
    )
    with pytest.raises(ValueError, match="line 2 is not an opener's result"):
        rank_openers(vocab, top=4, journal=journal, progress=False)


@pytest.mark.slow
def test_command__ctrl_c_exits_at_once_every_time(tmp_path: Path) -> None:
    """Regression (issue 42): Ctrl-C could hang --all-openers for ever (2 of 7 tries on the real
    lists): a wait over 13k futures took their locks, and an interrupt left some held. Five tries on
    the real lists, each from its own start and interrupted at another moment: each exits with
    status 130 at once."""
    command = [sys.executable, "-m", "wordle_agents.commands.optimal", "--all-openers"]
    for attempt in range(5):
        save = ["--save", str(tmp_path / f"k{attempt}.json")]
        code, took, err = interrupt([*command, *save], "openers ranked", delay=0.5 + 0.5 * attempt)
        assert code == 130 and took < 15, (attempt, code, took, err[-500:])
