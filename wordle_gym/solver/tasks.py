"""The table of opener values (:func:`~wordle_gym.solver.oracle.opener_values`) as Ray tasks:
batches of openers valued on the cores of a local Ray instance, or of the cluster at
``RAY_ADDRESS``, each task on its worker's machine (its position store shared by the tasks there),
each result merged into the table under the table's lock as it comes, the costliest openers first
(by the published upper bound, else the proven lower bound).

    python -m wordle_agents.commands.optimal --values allowed --first-move-only --ray --save v.json

Ray is not a dependency (``pip install ray``); without it ``--part K/N`` shares the openers between
processes instead. A stopped driver keeps every batch merged; the same command continues.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from wordle_gym.core.config import WordleConfig
from wordle_gym.solver.oracle import (
    OpenerValues,
    Oracle,
    _merge_locked,
    opener_values,
    read_opener_values,
)

BATCH = 20
"""Openers a task values (a task's start-up, a second or two, is then a small part of its work)."""


def value_batch(
    game: dict[str, Any],
    words: list[str],
    opener_s: float | None,
    children: bool,
    fewer_first: bool,
) -> OpenerValues:
    """A task: the exact first-move totals of ``words`` (and what :func:`opener_values` notes
    with them) for the game of ``game`` (a :class:`WordleConfig`'s fields), valued here into a table
    of the task's own, returned."""
    config = WordleConfig(**game)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "batch.json"
        opener_values(config, words, path, None, opener_s, False, children, fewer_first=fewer_first)
        return read_opener_values(path, config.vocabulary, config.hard_mode, config.max_guesses)


def plan(
    checker: Oracle,
    table: OpenerValues,
    words: list[str],
    opener_s: float | None,
    children: bool,
    batch: int = BATCH,
) -> list[list[str]]:
    """The batches of the openers of ``words`` that ``table`` lacks (as :func:`opener_values`
    passes by what it holds, or ran out of ``opener_s`` before), the costliest first: by the
    published strategy's total, else the proven lower bound; the first opener (valued with a guess
    fewer too) at the head of its batch."""
    vocab, first = checker.vocab, words[0]
    want_children = children and checker.max_guesses > 2

    def missing(w: str) -> bool:
        return checker.unvalued(w, table, first, opener_s, want_children)

    def cost(w: str) -> int:
        action = vocab.action(w)
        return checker.root_upper.get(action, int(checker.root_floor[action]))

    todo = sorted((w for w in dict.fromkeys(words) if missing(w)), key=lambda w: (-cost(w), w))
    if first in todo:
        todo.remove(first)
        todo.insert(0, first)
    return [todo[i : i + batch] for i in range(0, len(todo), batch)]


def opener_values_on_ray(
    config: WordleConfig,
    words: list[str],
    save: str | Path,
    max_minutes: float | None = None,
    opener_s: float | None = None,
    progress: bool | None = None,
    children: bool = True,
    batch: int = BATCH,
) -> dict[str, int]:
    """:func:`opener_values` of ``words`` into the table at ``save``, as Ray tasks of ``batch``
    openers each (on the cluster at ``RAY_ADDRESS``, else a local Ray instance; two tasks a CPU at a
    time), the costliest first; returns the whole table. Each task's result is held to every check
    of a table and merged under the table's lock as it comes. No task starts after ``max_minutes``;
    those started are waited for."""
    import ray

    config = WordleConfig.build(config)
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValueError(f"batch must be a positive integer; got {batch!r}")
    path, vocab = Path(save), config.vocabulary
    table = read_opener_values(path, vocab, config.hard_mode, config.max_guesses, strict=True)
    checker = Oracle(config, root_opener=None, opener_table=path)
    batches = plan(checker, table, words, opener_s, children, batch)
    todo = sum(len(b) for b in batches)
    if not batches:
        return table.values
    if not ray.is_initialized():
        ray.init(log_to_driver=False, include_dashboard=False)
    task = ray.remote(num_cpus=1)(value_batch)
    game = {
        "answers": list(vocab.answers),
        "allowed": list(vocab.allowed),
        "hard_mode": config.hard_mode,
        "max_guesses": config.max_guesses,
    }
    deadline = math.inf if max_minutes is None else time.monotonic() + 60 * max_minutes
    window = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    pending: dict[Any, int] = {}
    values = table.values
    shown = None if progress is None else not progress
    bar = tqdm(total=todo, desc="opener values (Ray)", unit="opener", disable=shown)
    while batches or pending:
        while batches and len(pending) < window and time.monotonic() <= deadline:
            words_of = batches.pop(0)
            fewer = words_of[0] == words[0] and words[0] not in table.one_fewer
            pending[task.remote(game, words_of, opener_s, children, fewer)] = len(words_of)
        if not pending:
            break
        done, _ = ray.wait(list(pending), num_returns=1)
        bar.update(pending.pop(done[0]))
        values = _merge_locked(path, config, [ray.get(done[0])], checker.check_values).values
    bar.close()
    return values
