"""Reliability 6, findings 1-3, 6 and 7: a table of opener values is checked before it is written,
its lock lives beside it, and a writer that cannot take it keeps what it valued."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.lists import small_lists
from tests.helpers.processes import ROOT
from wordle_gym.core.config import WordleConfig
from wordle_gym.solver import opener_tables as tables_module
from wordle_gym.solver import oracle as oracle_module
from wordle_gym.solver import store as store_module
from wordle_gym.solver.opener_tables import read_opener_values
from wordle_gym.solver.oracle import Oracle
from wordle_gym.solver.tasks import merge_opener_values, opener_values
from wordle_gym.utils.files import LockBusy, atomic_write_text, read_text_bounded


def _table(config: WordleConfig, **parts: dict) -> dict:
    vocab = config.vocabulary
    head = {"format": tables_module.VALUES_FORMAT, "lists": vocab.digest}
    head |= {"hard_mode": config.hard_mode, "max_guesses": config.max_guesses}
    return {**head, "values": {}, "one_fewer": {}, "timed_out": {}, "children": {}, **parts}


def _groups(oracle: Oracle, word: str) -> list[tuple[int, int]]:
    members = np.arange(oracle.vocab.num_answers, dtype=np.int32)
    found = oracle.search.buckets(oracle.vocab.action(word), members)
    return [(p, len(g)) for p, g in found if p != oracle.solved]


@pytest.mark.slow  # the real lists' oracle, built six times: about 10 s
def test_merge__a_forged_table_is_refused_before_the_write_and_the_target_is_kept(
    tmp_path: Path,
) -> None:
    """Findings 1 and 2: ``--merge`` wrote children for CARTE (its total published) that made V*
    after CARTE against CIGAR 1.0 (2.3077 proven), an impossible total for QAJAQ, and children that
    do not sum to the total; each made the oracle (the regret env) fail afterwards. Every check the
    oracle makes on a table now runs before the write, and a refused merge leaves the target byte
    for byte."""
    config = WordleConfig()
    oracle = Oracle(config, root_opener=None)
    n = oracle.vocab.num_answers
    target = tmp_path / "values.json"
    atomic_write_text(target, json.dumps(_table(config, values={"salet": 7920})))
    before = target.read_bytes()
    groups = _groups(oracle, "carte")
    forged = {
        # every answer after CARTE found at once: below what any position allows
        "children": {"carte": [[p, c, c] for p, c in groups]},
    }
    # possible each, but one guess more in total than CARTE's published total
    least = [[p, 2 * c - 1, 2 * c - 1] for p, c in groups]
    cases = {
        "outside what is possible": forged,
        "totals 2315, outside what is proven": {"values": {"qajaq": n}},
        "is not one guess an answer plus its children": {"children": {"carte": least}},
        "positions it leads to": {"children": {"carte": least[1:]}},
        "one guess fewer totals": {"one_fewer": {"salet": n}},
    }
    for i, (message, parts) in enumerate(cases.items()):
        other = tmp_path / f"forged{i}.json"
        other.write_text(json.dumps(_table(config, **parts)))
        with pytest.raises(ValueError, match=message):
            merge_opener_values(config, target, [other])
        assert target.read_bytes() == before, message
    # the target still loads, and what is right merges
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_table(config, values={"salet": 7920})))
    assert merge_opener_values(config, target, [good]).values == {"salet": 7920}
    assert (
        Oracle(config, root_opener=None, opener_table=target).root_exact[
            oracle.vocab.action("salet")
        ]
        == 7920
    )


def _hold(table: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """A process that takes the table's lock, says so, and stops itself (SIGSTOP) while holding
    it."""
    code = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from wordle_gym.solver.opener_tables import table_lock\n"
        "with table_lock(Path(sys.argv[1])):\n"
        "    print('held', flush=True)\n"
        "    os.kill(os.getpid(), signal.SIGSTOP)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(table)],
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_table_lock__beside_the_table_for_writers_of_any_cache_and_a_stopped_holder_named_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Finding 3: the lock lived in each process's cache folder, so writers with different caches
    locked different files and lost each other's openers. Finding 7: a stopped holder blocked a run
    for 10 minutes without a word, and the run then discarded what it had valued. The lock is the
    file beside the table; a writer says at once who holds it (stopped, and how to resume it), and
    one that cannot take it keeps what it valued in a table beside, to --merge."""
    answers, allowed = small_lists(4, 30, 90)
    config = WordleConfig(answers=answers, allowed=allowed)
    table, words = tmp_path / "values.json", allowed[:4]
    monkeypatch.setenv("WORDLE_GYM_CACHE", str(tmp_path / "cache-here"))
    monkeypatch.setattr(tables_module, "TABLE_WAIT_S", 1.0)
    holder: list[subprocess.Popen[str]] = []
    search = Oracle._q_total

    def first_then_locked(oracle: Oracle, position, action: int) -> int:
        if not holder:  # the other writer (another cache) takes the table while this one searches
            holder.append(_hold(table, {**os.environ, "WORDLE_GYM_CACHE": str(tmp_path / "o")}))
        return search(oracle, position, action)

    monkeypatch.setattr(Oracle, "_q_total", first_then_locked)
    try:
        with pytest.raises(LockBusy, match="stopped: `kill -CONT .*--merge it") as refused:
            opener_values(config, words, table, children=False)
        err = capfd.readouterr().err
        assert f"pid {holder[0].pid}, stopped" in err and "waiting up to 1 s" in err
    finally:
        for process in holder:
            process.send_signal(signal.SIGCONT)
            assert process.wait(timeout=60) == 0
    assert not table.exists()  # the holder wrote nothing; this run's work is beside it
    kept = Path(str(refused.value).split("kept in '")[1].split("'")[0])
    assert kept.parent == tmp_path
    searched = Oracle(config, root_opener=None)
    want = {w: searched._q_total(searched.start(), searched.vocab.action(w)) for w in words}
    assert read_opener_values(kept, config.vocabulary, False, 6).values == want
    assert merge_opener_values(config, table, [kept]).values == want
    assert (tmp_path / "values.json.lock").exists()  # the lock is the table's, not a cache's


def test_table_lock__a_lock_that_cannot_be_made_fails_before_any_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 7: a lock path that is a folder failed only after the first opener's search."""
    answers, allowed = small_lists(4, 30, 90)
    config = WordleConfig(answers=answers, allowed=allowed)
    (tmp_path / "values.json.lock").mkdir()
    monkeypatch.setattr(Oracle, "_q_total", lambda *_: pytest.fail("searched"))
    with pytest.raises(ValueError, match=r"cannot lock .*values.json.lock': Is a directory"):
        opener_values(config, allowed[:2], tmp_path / "values.json", children=False)


def _returns_within(seconds: float, call) -> BaseException | None:
    """What ``call()`` raised (None if it returned), asserting that it ended within ``seconds``."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as exc:  # handed back to the test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "still waiting"
    return outcome[0]


def test_fifos__readers_and_writers_of_user_paths_refuse_a_fifo_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 6: a FIFO as the table of --values --save, --merge, the ranking's journal, the
    optimal agent's tree and a run folder's recipe.json each blocked for ever (a reader waits for
    a writer), and a write into a FIFO with no reader too. Each now says "not a regular file" (or
    that nothing read it) in one line."""
    from wordle_agents.commands.recipe import _check_same, load_recipe, recipe_names
    from wordle_gym.solver.openers import rank_openers
    from wordle_gym.solver.search import OptimalTree

    answers, allowed = small_lists(4, 30, 90)
    config = WordleConfig(answers=answers, allowed=allowed)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    monkeypatch.setattr("wordle_gym.utils.files.FIFO_WAIT_S", 0.2)
    cases = {
        "table": lambda: opener_values(config, allowed[:1], fifo, children=False),
        "merge": lambda: merge_opener_values(config, tmp_path / "t.json", [fifo]),
        "journal": lambda: rank_openers(config.vocabulary, journal=fifo, progress=False),
        "tree": lambda: OptimalTree.load(fifo),
        "recipe": lambda: _check_same(load_recipe(recipe_names()[0]), fifo),
        "text": lambda: read_text_bounded(fifo),
    }
    for name, call in cases.items():
        raised = _returns_within(30, call)
        assert isinstance(raised, ValueError) and "not a regular file" in str(raised), name
    raised = _returns_within(30, lambda: atomic_write_text(fifo, "x"))
    assert isinstance(raised, ValueError) and "nothing read within 0.2 s" in str(raised)


def test_deep_or_empty_files__one_line_not_a_traceback(tmp_path: Path) -> None:
    """Findings 11 and 16: JSON nested 100,000 deep read by --merge, --values, the journal or
    recipe.json raised RecursionError; an empty journal "belongs to another run (None)"."""
    from wordle_agents.commands.recipe import _check_same, load_recipe, recipe_names
    from wordle_gym.solver.openers import rank_openers

    answers, allowed = small_lists(4, 30, 90)
    config = WordleConfig(answers=answers, allowed=allowed)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="is not a table of opener values"):
        merge_opener_values(config, tmp_path / "t.json", [deep])
    with pytest.raises(ValueError, match="is not a table of opener values"):
        opener_values(config, allowed[:1], deep, children=False)
    with pytest.raises(ValueError, match="belongs to another run \\(not JSON\\)"):
        rank_openers(config.vocabulary, journal=deep, progress=False)
    with pytest.raises(ValueError, match="is no recipe run's record"):
        _check_same(load_recipe(recipe_names()[0]), deep)
    empty = tmp_path / "empty.journal"
    empty.write_text("")
    with pytest.raises(ValueError, match="journal .* is empty"):
        rank_openers(config.vocabulary, journal=empty, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep.json", "empty.journal"]


def test_values__a_published_opener_is_reported_as_proven_not_as_past_a_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reliability 6, finding 16: with --first-move-only an opener a published table proves (not
    searched again) was listed as "not valued (past --time-limit or --max-minutes ...)"."""
    import shutil

    from wordle_agents.commands.optimal import main as optimal_main
    from wordle_gym.solver import solver_data

    table = tmp_path / "values.json"
    shutil.copy(solver_data() / "opener_values_normal.json", table)
    monkeypatch.setattr(Oracle, "_q_total", lambda *_: pytest.fail("searched"))
    argv = ["--values", "salet,carte", "--first-move-only", "--save", str(table), "--quiet"]
    assert optimal_main(argv) == 0
    out = capsys.readouterr().out
    assert "1/2 openers valued" in out and "1 more proven by the published tables" in out
    assert "not valued" not in out
    # each total: the table's, and alex1770's proven list as the shipped file cites it
    values = json.loads(table.read_text())["values"]
    cited = json.loads((solver_data() / "opener_totals_normal.json").read_text())["sources"][0]
    assert "proven" in cited["name"] and "carte" not in values
    for word, total in (("salet", values["salet"]), ("carte", cited["totals"]["carte"])):
        assert f"  {word.upper()} {total} ({total / 2315:.4f})" in out.splitlines()


def test_opener_values__solved_first_move_groups_are_kept_for_every_run_and_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 85, goal 3: each process searched every opener's groups afresh (the search's cache is
    its own, and emptied past 5 M entries), though openers share groups (the same letters give the
    same all-grey group). The positions a first guess leads to are kept in the machine's position
    store once solved, checked before use, and a later run (or another worker) reads them there."""
    from wordle_gym.solver.search import _Search
    from wordle_gym.solver.store import PositionStore

    answers, allowed = small_lists(4, 30, 90)
    config = WordleConfig(answers=answers, allowed=allowed)
    words = allowed[:3]
    monkeypatch.setattr(oracle_module, "STORE_S", 0.0)  # every group kept, however fast
    store = PositionStore(tmp_path / "positions.sqlite")
    first = opener_values(config, words, tmp_path / "a.json", store=store)
    search = _Search.value

    def stored_groups_only(self, members, left, *args, **kwargs):  # type: ignore[no-untyped-def]
        if len(members) >= oracle_module.STORE_MIN and left >= config.max_guesses - 2:
            pytest.fail(f"a group of {len(members)} searched again")
        return search(self, members, left, *args, **kwargs)

    monkeypatch.setattr(_Search, "value", stored_groups_only)
    again = opener_values(config, words, tmp_path / "b.json", store=store)
    assert again == first
    monkeypatch.setattr(_Search, "value", search)
    # the machine's store by default: the cache folder's, shared with the regret reward's oracle
    assert store_module.machine_store(config) is not None
    assert opener_values(config, words[:1], tmp_path / "c.json") == {words[0]: first[words[0]]}


def test_opener_tasks__batches_of_twenty_the_costliest_first() -> None:
    """Issue 85, goal 4: the Ray tasks' batches (``opener_tasks.plan``): what the table lacks, in
    batches of 20, the costliest first by the published strategy's total (alex1770's, on the real
    lists), SALET (valued with a guess fewer too) at the head of the first."""
    from wordle_gym.solver.tasks import BATCH, plan

    config = WordleConfig()
    checker = Oracle(config, root_opener=None, opener_table="/nonexistent.json")
    table = tables_module.OpenerValues({"crane": 7930}, {}, {}, {})
    words = ["salet", "crane", *checker.vocab.allowed[:200]]
    batches = plan(checker, table, words, None, children=False)
    flat = [w for b in batches for w in b]
    assert BATCH == 20 and all(len(b) == 20 for b in batches[:-1]) and flat[0] == "salet"
    assert "crane" not in flat  # in the table
    published = {checker.vocab.allowed[a] for a in checker.root_exact}
    assert not published & set(flat[1:])  # first move only: a published exact total is not searched
    costs = [checker.root_upper[checker.vocab.action(w)] for w in flat[1:]]
    assert costs == sorted(costs, reverse=True) and len(flat) > 100
    # the guess fewer wanted: SALET first even with children; a table that has it, no SALET
    assert plan(checker, table, words, None, children=True)[0][0] == "salet"
    held = tables_module.OpenerValues({"salet": 7920}, {"salet": 9000}, {}, {})
    assert "salet" not in [w for b in plan(checker, held, words, None, False) for w in b]


def test_read_opener_values__a_table_rewritten_in_place_is_read_anew_and_a_read_shares_nothing(
    tmp_path: Path,
) -> None:
    """Each oracle read every shipped table again (50 ms an oracle); a table's parse is now kept
    for its content: one rewritten on disk is read as it is now, and what a read returns is the
    reader's own (changing it changes no later read)."""
    config = WordleConfig(*small_lists(1, 10, 20))
    words = config.vocabulary.allowed
    game = (config.vocabulary, config.hard_mode, config.max_guesses)
    path = tmp_path / "values.json"
    atomic_write_text(path, json.dumps(_table(config, values={words[0]: 25})))
    first = read_opener_values(path, *game)
    assert first.values == {words[0]: 25}
    first.values[words[1]] = 30
    assert read_opener_values(path, *game).values == {words[0]: 25}
    atomic_write_text(path, json.dumps(_table(config, values={words[0]: 26})))
    assert read_opener_values(path, *game).values == {words[0]: 26}
