"""Every allowed first guess ranked by its exact optimum:
``python -m wordle_agents.commands.optimal --all-openers``.

Proving the best opener means, for each of the 12972 allowed guesses, either its exact optimal total
or a proof that it cannot be among the ``top`` best. The cutoff is one more than the ``top``-th best
exact total found so far (ties stay in), and each opener faces three tests, cheapest first:

1. **Root bound.** After the opener, a bucket of ``c`` answers needs at least ``2c - 1`` more
   guesses, so the opener costs at least ``3n - hit - buckets``. On the real lists it rules out
   none.
2. **Second-level bound.** Each bucket is searched with a budget one over its bound; the kernel then
   returns the least bound over its guesses (fail-soft), a much tighter bound for the whole opener.
3. **Search.** Rounds that raise every unsolved bucket's bound by 2, 4, 8, ..., largest bucket
   first, each search held to what the other buckets' bounds leave under the cutoff; the opener is
   ruled out when the bounds reach the cutoff, and exact when every bucket is.

Openers go in order of the root bound (good ones first, so the cutoff tightens early), on every
core, each worker with its own cache of the search (nodes and bounds carry over between openers).
With a ``journal`` each finished opener is appended to it: a stopped run (Ctrl-C, ``max_minutes``)
continues from there when run again, and the journal is removed once the ranking is written.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from wordle_gym.core.words import Vocabulary
from wordle_gym.solver import solver_data
from wordle_gym.solver.search import _Search, check_limits
from wordle_gym.utils.files import (
    atomic_write_text,
    check_writable,
    file_lock,
    one_line,
    quoted,
    read_text_bounded,
)

FORMAT = "wordle-gym opener ranking 1"
STAGES = ("root bound", "second-level bound", "search", "exact")
"""How an opener's figure was settled: ruled out by one of the first three, or solved exactly."""
MAX_TOP = 1000


def bucket_sizes(patterns: torch.Tensor, num_patterns: int) -> torch.Tensor:
    """Bucket sizes of each column of pattern ids (m candidates, P guesses): (B, P) counts, zeros
    padding (B is ``num_patterns`` when m exceeds it, else m)."""
    m, p = patterns.shape
    if m > num_patterns:  # count into one bin per (guess, pattern)
        offsets = torch.arange(p, device=patterns.device) * num_patterns
        flat = torch.bincount((patterns.long() + offsets).flatten(), minlength=p * num_patterns)
        return flat.view(p, num_patterns).T
    # Few candidates: sort each column (the pattern ids as stored) and count the runs.
    ordered = patterns.sort(dim=0).values
    starts = torch.ones_like(ordered, dtype=torch.bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    runs = starts.cumsum(0) - 1
    ones = torch.ones_like(runs)
    return torch.zeros_like(runs).scatter_add_(0, runs, ones)


def root_bounds(search: _Search) -> np.ndarray:
    """Test 1 for every allowed guess: ``3n - hit - buckets`` (int64, one per guess; a guess hits
    when it is an answer, since every answer is still possible)."""
    vocab, table = search.vocab, torch.from_numpy(search.table)
    # 1024 guesses at a time
    blocks = (table[start : start + 1024].T for start in range(0, vocab.num_allowed, 1024))
    buckets = torch.cat([(bucket_sizes(block, search.solved + 1) > 0).sum(0) for block in blocks])
    hit = np.zeros(vocab.num_allowed, dtype=np.int64)
    hit[vocab.answer_actions.numpy()] = 1
    return 3 * vocab.num_answers - hit - buckets.numpy()


def opener_value(
    search: _Search, guess: int, cutoff: int, cache: Any, counter: np.ndarray
) -> tuple[int, bool, str]:
    """``(value, exact, stage)`` of first guess ``guess`` (an action): its exact optimal total when
    that is below ``cutoff`` (``exact`` true), else a lower bound of at least ``cutoff``; ``value``
    is None (exact) when no tree from ``guess`` solves every answer within the limit. A search
    stopped by ``search.stop`` raises InterruptedError."""
    kernel, n = search.kernel, search.vocab.num_answers
    members = np.arange(n, dtype=np.int32)
    root_green, root_need = search.root()
    buckets = [
        (p, group.astype(np.int32))
        for p, group in search.buckets(guess, members)
        if p != search.solved
    ]
    bounds = [2 * len(group) - 1 for _, group in buckets]
    exact = [False] * len(buckets)
    total = n + sum(bounds)
    if total >= cutoff:
        return total, False, STAGES[0]
    constraints = [search.child_constraint(guess, p, root_green, root_need) for p, _ in buckets]
    step, stage = 1, 1
    while not all(exact):
        for i, (_, group) in enumerate(buckets):  # largest first
            if exact[i]:
                continue
            others = total - bounds[i]
            beta = min(bounds[i] + step, cutoff - others)
            value = search.value(
                group, search.max_guesses - 1, *constraints[i], cache, counter, beta
            )
            if search.stop[0] != 0:
                raise InterruptedError("stopped")
            if value >= kernel.INF:  # only an unsolvable bucket is worth INF, whatever the budget
                return None, True, STAGES[3]
            exact[i], bounds[i] = value < beta, value
            total = others + value
            if total >= cutoff:
                return total, False, STAGES[stage]
        step, stage = step * 2, 2
    return total, True, STAGES[3]


class _Board:
    """The results so far and the cutoff they give (thread-safe)."""

    def __init__(self, top: int) -> None:
        self.top, self.results, self._exact, self._lock = top, {}, [], threading.Lock()

    def cutoff(self) -> int:
        with self._lock:
            return self._exact[self.top - 1] + 1 if len(self._exact) >= self.top else math.inf

    def add(self, word: str, record: dict[str, Any]) -> None:
        """An opener's result; a word already on the board is counted once (its latest result)."""
        with self._lock:
            old = self.results.get(word)
            if old is not None and old["exact"] and old["value"] is not None:
                self._exact.remove(old["value"])
            self.results[word] = record
            if record["exact"] and record["value"] is not None:
                self._exact.append(record["value"])
                self._exact.sort()


def _header(
    vocab: Vocabulary, hard_mode: bool, max_guesses: int, top: int, lose: bool = False
) -> dict[str, Any]:
    header = {
        "format": FORMAT,
        "lists": vocab.digest,
        "hard_mode": hard_mode,
        "max_guesses": max_guesses,
        "top": top,
    }
    # The shipped rankings (no losses) keep their header; one with losses names its answers (the
    # multi-board bound).
    return {**header, "losses": True, "num_answers": vocab.num_answers} if lose else header


def _journal_text(path: Path, header: dict[str, Any]) -> str:
    """The text of the journal at ``path``, refused (ValueError naming it) unless it is a regular
    file of at most ``MAX_READ`` bytes (a FIFO or a device at once) that begins with ``header``."""
    text = read_text_bounded(path, what="journal of an opener ranking")
    lines = text.splitlines()
    if not lines:
        raise ValueError(
            f"journal {quoted(str(path))} is empty: remove it or use another --save path"
        )
    try:
        first = json.loads(lines[0])
    except (json.JSONDecodeError, RecursionError):
        first = "not JSON"
    if first != header:
        raise ValueError(
            f"journal {quoted(str(path))} belongs to another run ({one_line(str(first), 200)}); "
            f"expected {header}: remove it or use another --save path"
        )
    return text


def _read_journal(
    path: Path, header: dict[str, Any], words: set[str]
) -> tuple[list[dict[str, Any]], float, int]:
    """The openers a journal holds, and the wall time and count of its sessions; a journal of other
    settings is refused. A last line cut short by a crash is dropped, and the file rewritten to its
    complete lines (each ending in a newline) before anything is appended. A session killed before
    it wrote its time counts to its last opener's (each record's ``at``)."""
    text = _journal_text(path, header)
    lines = text.splitlines()
    records, wall, sessions = [], 0.0, 0
    # the clock of a session that has not written its session_s (yet, or ever: killed)
    running: float | None = None
    for number, line in enumerate(lines[1:], start=2):
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            if number == len(lines):  # cut short mid-write
                lines.pop()
                break
            raise ValueError(f"journal {quoted(str(path))} line {number} is not JSON") from None
        if isinstance(item, dict) and isinstance(item.get("session_s"), int | float):
            wall, sessions, running = wall + float(item["session_s"]), sessions + 1, None
        elif _is_opener_record(item, words):
            records.append(item)
            at = item.get("at")
            if isinstance(at, int | float) and not isinstance(at, bool):
                if running is not None and at < running:  # a new session after a killed one
                    wall, sessions = wall + running, sessions + 1
                running = float(at)
        else:
            raise ValueError(
                f"journal {quoted(str(path))} line {number} is not an opener's result: {line[:80]}"
            )
    complete = "".join(f"{line}\n" for line in lines)
    if text != complete:
        atomic_write_text(path, complete)
    if running is not None:
        wall, sessions = wall + running, sessions + 1
    return records, wall, sessions


def _is_opener_record(item: Any, words: set[str]) -> bool:
    """Whether a journal line's JSON is one opener's result (a word of the lists, its value or
    None, whether exact, the stage that settled it)."""
    return (
        isinstance(item, dict)
        and item.get("word") in words
        and isinstance(item.get("value"), int | None)
        and not isinstance(item.get("value"), bool)
        and isinstance(item.get("exact"), bool)
        and item.get("stage") in STAGES
    )


def rank_openers(
    vocab: Vocabulary | None = None,
    hard_mode: bool = False,
    max_guesses: int = 6,
    top: int = 10,
    journal: str | Path | None = None,
    max_minutes: float | None = None,
    max_cache_entries: int = 5_000_000,
    progress: bool = True,
    lose: bool = False,
) -> dict[str, Any]:
    """Rank every allowed first guess (see the module docstring). Returns the ranking's data (see
    :func:`summary`); ``"finished"`` is false when ``max_minutes`` or Ctrl-C stopped it first (the
    journal, if any, keeps what was done). ``lose``: an answer not found within ``max_guesses``
    costs ``max_guesses + 1`` instead of ruling the tree out (the oracle's values; what the
    multi-board lower bound starts from)."""
    vocab = vocab or Vocabulary()
    check_limits(max_guesses, None, max_cache_entries)
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_TOP:
        raise ValueError(f"top must be an integer from 1 to {MAX_TOP}; got {quoted(str(top))}")
    if max_minutes is not None and not (
        isinstance(max_minutes, int | float) and 0 < max_minutes < math.inf
    ):
        raise ValueError(f"max_minutes must be a positive number; got {quoted(str(max_minutes))}")
    search = _Search(vocab, hard_mode, max_guesses, lose=lose)
    header = _header(vocab, hard_mode, max_guesses, top, lose)
    path = Path(journal) if journal is not None else None
    if path is not None:
        check_writable(path)
        if path.exists():  # a journal of another run is refused before its lock is made
            _journal_text(path, header)
        # one run per journal at a time
        with file_lock(f"{path}.lock", "opener ranking", quoted(str(path))):
            return _rank(vocab, search, header, top, path, max_minutes, max_cache_entries, progress)
    return _rank(vocab, search, header, top, None, max_minutes, max_cache_entries, progress)


def _rank(
    vocab: Vocabulary,
    search: _Search,
    header: dict[str, Any],
    top: int,
    path: Path | None,
    max_minutes: float | None,
    max_cache_entries: int,
    progress: bool,
) -> dict[str, Any]:
    """:func:`rank_openers`, its journal (if any) locked."""
    board, wall_before, sessions = _Board(top), 0.0, 0
    if path is not None and path.exists():
        records, wall_before, sessions = _read_journal(path, header, set(vocab.allowed))
        for record in records:
            board.add(record["word"], record)
    elif path is not None:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(header) + "\n")
    start = time.perf_counter()
    deadline = math.inf if max_minutes is None else start + 60 * max_minutes
    bounds = root_bounds(search)
    order = [
        int(g) for g in np.argsort(bounds, kind="stable") if vocab.allowed[g] not in board.results
    ]
    workers, spare, stats = search.worker_caches()

    def work(guess: int) -> tuple[str, dict[str, Any]]:
        with search.borrow(spare, max_cache_entries) as (cache, counter):
            began, nodes = time.perf_counter(), int(counter[0])
            value, exact, stage = opener_value(search, guess, board.cutoff(), cache, counter)
            record = {
                "word": vocab.allowed[guess],
                "value": value,
                "exact": exact,
                "stage": stage,
                "nodes": int(counter[0]) - nodes,
                "s": round(time.perf_counter() - began, 4),
            }
            return record["word"], record

    bar = tqdm(
        total=vocab.num_allowed,
        initial=len(board.results),
        desc="openers ranked",
        unit="opener",
        disable=not progress,
    )
    finished = True
    handle = open(path, "a", encoding="utf-8") if path is not None else None  # noqa: SIM115 (closed below)
    try:
        with ThreadPoolExecutor(workers) as pool:
            futures: dict[Future, int] = {}
            try:
                # submitted inside the try: a Ctrl-C among the submissions stops and cancels what
                # was queued (the pool's shutdown would otherwise run every queued opener first)
                for guess in order:
                    futures[pool.submit(work, guess)] = guess
                for word, record in search.gather(futures, deadline, bar, stats):
                    board.add(word, record)
                    if handle is not None:
                        at = round(time.perf_counter() - start, 2)
                        handle.write(json.dumps({**record, "at": at}) + "\n")
                        handle.flush()
                    bar.update(1)
                    bar.set_postfix_str(f"cutoff {board.cutoff()}", refresh=False)
            except (TimeoutError, InterruptedError):
                finished = False
            finally:
                search.stop[0] = 1  # the workers unwind at their next node
                for future in futures:
                    future.cancel()
    finally:
        bar.close()
        if handle is not None:
            handle.write(json.dumps({"session_s": round(time.perf_counter() - start, 2)}) + "\n")
            handle.close()
    return summary(
        vocab,
        header,
        board,
        wall_before + time.perf_counter() - start,
        sessions + 1,
        workers,
        finished,
    )


def summary(
    vocab: Vocabulary,
    header: dict[str, Any],
    board: _Board,
    wall_s: float,
    sessions: int,
    workers: int,
    finished: bool,
) -> dict[str, Any]:
    """The ranking's data: the proven ``ranking`` (every opener below the cutoff, best first, with
    its exact total), how many openers each test ruled out, and every opener's figure in the lists'
    order."""
    results = board.results
    cutoff = board.cutoff()
    proven = {w: r["value"] for w, r in results.items() if r["exact"] and r["value"] is not None}
    ranking = sorted((value, w) for w, value in proven.items() if value < cutoff)
    missing = [w for w in vocab.allowed if w not in results]
    return {
        **header,
        "finished": finished and not missing,
        "openers_done": len(results),
        "cutoff": None if cutoff == math.inf else int(cutoff),
        "ranking": [[word, value] for value, word in ranking],
        "ruled_out": {stage: _ruled_out(results, stage) for stage in STAGES[:3]},
        "exact": len(proven),
        **_totals(results.values()),
        "wall_s": round(wall_s, 2),
        "sessions": sessions,
        "workers": workers,
        **_columns(vocab.allowed, results),
    }


def _totals(results: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The openers no tree solves, and the nodes and thread seconds all the searches took."""
    results = list(results)
    return {
        "unsolvable": sum(1 for r in results if r["value"] is None),
        "nodes": sum(int(r.get("nodes", 0)) for r in results),
        "thread_s": round(sum(float(r.get("s", 0.0)) for r in results), 2),
    }


def _ruled_out(results: dict[str, dict[str, Any]], stage: str) -> int:
    """How many openers ``stage``'s test ruled out (not exact, settled there)."""
    return sum(1 for r in results.values() if not r["exact"] and r["stage"] == stage)


def _columns(words: list[str], results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Every opener's figure in the lists' order: its value (-1 not yet tried), whether exact
    ("1"/"0") and the stage that settled it (its index; "-" not yet tried)."""
    tried = [results.get(w) for w in words]
    return {
        "words": list(words),
        "values": [-1 if r is None else r["value"] for r in tried],
        "exact_flags": "".join("1" if r is not None and r["exact"] else "0" for r in tried),
        "stages": "".join("-" if r is None else str(STAGES.index(r["stage"])) for r in tried),
    }


def save(data: dict[str, Any], path: str | Path) -> Path:
    """Write a ranking atomically as JSON, one key to a line (the per-opener lists stay on one line
    each)."""
    lines = ",\n".join(f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in data.items())
    return atomic_write_text(path, "{\n" + lines + "\n}\n")


def load(path: str | Path) -> dict[str, Any]:
    """A ranking written by :func:`save` (plain JSON: nothing in it runs)."""
    try:
        data = json.loads(read_text_bounded(path, what="opener ranking"))
    except (json.JSONDecodeError, RecursionError):
        data = None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{quoted(str(path))} is not an opener ranking (expected {FORMAT!r})")
    return data


def shipped_ranking(hard_mode: bool) -> Path:
    """Where the ranking of the real lists ships."""
    return solver_data() / f"openers_{'hard' if hard_mode else 'normal'}.json"
