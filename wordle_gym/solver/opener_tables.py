"""The shipped tables of first moves, as files: the project's exact opener values
(``opener_values_<mode>.json``, :data:`OPENER_VALUES`, made by
:func:`wordle_gym.solver.tasks.opener_values`, with the values of every position the openers lead
to: read, merged under the table's lock, written atomically), the published totals of every opener
(``opener_totals_<game>.json``, :data:`OPENER_TOTALS`: exact ones and real strategies' totals, each
source cited), the every-opener ranking with losses (``openers_<mode>_losses.json``: a proven lower
bound of every opener) and the openers language models favour (:data:`MODEL_OPENERS`)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from wordle_gym.core.config import WordleConfig
from wordle_gym.core.words import Vocabulary
from wordle_gym.solver import solver_data
from wordle_gym.utils.files import (
    LockBusy,
    atomic_write_text,
    file_lock,
    quoted,
    read_text_bounded,
)

VALUES_FORMAT = "wordle-gym opener values 1"


_PARSED: dict[str, tuple[bytes, Any]] = {}


def _parsed_json(path: Path, what: str) -> Any:
    """The JSON value of the table at ``path``, parsed once for each content the file has had in
    this process (each oracle reads every shipped table: parsing them took 50 ms an oracle). The
    value is shared: the readers build their tables from it and never change it."""
    text = read_text_bounded(path, what=what)
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
    key = os.fspath(path)
    known = _PARSED.get(key)
    if known is None or known[0] != digest:
        known = _PARSED[key] = (digest, json.loads(text))
    return known[1]


OPENER_VALUES = "opener_values_{mode}.json"
"""The shipped table of exact first-move totals (``Q*`` at the start times the answers), in
:func:`~wordle_gym.solver.solver_data`."""


MODEL_OPENERS = [
    "salet",
    "crane",
    "slate",
    "adieu",
    "audio",
    "raise",
    "arise",
    "stare",
    "crate",
    "trace",
    "roate",
    "soare",
    "irate",
    "tears",
    "later",
    "alert",
    "alter",
    "least",
    "steal",
    "aisle",
    "ouija",
    "house",
    "plant",
    "chair",
    "table",
    "apple",
    "sound",
    "heart",
    "earth",
    "beast",
    "ratio",
    "radio",
    "route",
    "cares",
    "snare",
    "saint",
    "stone",
    "tread",
    "react",
    "learn",
    "share",
    "spare",
    "train",
    "trice",
    "grape",
    "pride",
    "brave",
    "shine",
    "smart",
    "cloud",
    "light",
    "night",
    "world",
    "words",
    "guess",
    "about",
    "first",
    "great",
    "where",
    "think",
    "money",
    "music",
    "water",
    "happy",
    "party",
    "place",
    "point",
]
"""The openers language models favour (the first guesses they play most), valued exactly in the
shipped table."""


def _values_header(vocab: Vocabulary, hard_mode: bool, max_guesses: int) -> dict[str, Any]:
    return {
        "format": VALUES_FORMAT,
        "lists": vocab.digest,
        "hard_mode": hard_mode,
        "max_guesses": max_guesses,
    }


class OpenerValues(NamedTuple):
    """A table of :func:`opener_values` read for one game: exact first-move totals by opener, those
    with one guess fewer, the exact ``V*`` total of each position a first guess leads to (by opener,
    then feedback pattern: the total with the guesses left after it, and with one fewer, what a turn
    spent there leaves), and the openers whose search outlasted a limit (seconds)."""

    values: dict[str, int]
    one_fewer: dict[str, int]
    children: dict[str, dict[int, tuple[int, int]]]
    timed_out: dict[str, float]


def read_opener_values(
    path: Path,
    vocab: Vocabulary,
    hard_mode: bool,
    max_guesses: int,
    strict: bool = False,
    advice: str = "give another --save or the same settings",
) -> OpenerValues:
    """The table :func:`opener_values` wrote at ``path`` for these lists and rules (empty when the
    file is missing or of other lists and rules, or with ``strict`` a ValueError naming the setting
    that differs, then ``advice``; ValueError when it is not such a table)."""
    empty = OpenerValues({}, {}, {}, {})
    try:
        data = _parsed_json(path, "table of opener values")
    except FileNotFoundError:
        return empty
    except (json.JSONDecodeError, RecursionError):
        data = None
    if (
        not isinstance(data, dict)
        or data.get("format") != VALUES_FORMAT
        or not isinstance(data.get("values"), dict)
    ):
        raise ValueError(f"{path} is not a table of opener values (expected {VALUES_FORMAT!r})")
    wanted = _values_header(vocab, hard_mode, max_guesses)
    differ = [k for k in ("lists", "hard_mode", "max_guesses") if data.get(k) != wanted[k]]
    if differ and strict:
        what = {"lists": "word lists", "hard_mode": "hard mode", "max_guesses": "guess limit"}
        shown = "; ".join(
            f"{what[k]} {_shown(data.get(k))} there, {_shown(wanted[k])} here" for k in differ
        )
        raise ValueError(f"{path} is a table of another game ({shown}): {advice}")
    if differ:
        return empty
    n = vocab.num_answers

    def valid(table: Any) -> dict[str, int]:
        table = table if isinstance(table, dict) else {}
        return {
            word: total
            for word, total in table.items()
            if word in vocab.allowed_index
            and type(total) is int
            and n <= total <= (max_guesses + 1) * n
        }

    def rows(found: Any) -> dict[int, tuple[int, int]]:
        found = found if isinstance(found, list) else []
        fine = (
            r
            for r in found
            if isinstance(r, list) and len(r) == 3 and all(type(x) is int for x in r)
        )
        # one fewer can cost less: a loss is
        return {r[0]: (r[1], r[2]) for r in fine if r[1] > 0 and r[2] > 0}
        # the limit + 1 whatever the turn

    def limits(found: Any) -> dict[str, float]:
        found = found if isinstance(found, dict) else {}
        return {
            w: float(t)
            for w, t in found.items()
            # a limit read as Infinity or NaN is none: that opener is tried again
            if w in vocab.allowed_index and type(t) in (int, float) and 0 <= t < math.inf
        }

    children = data.get("children")
    children = (
        {w: rows(found) for w, found in children.items() if w in vocab.allowed_index}
        if isinstance(children, dict)
        else {}
    )
    return OpenerValues(
        valid(data["values"]), valid(data.get("one_fewer")), children, limits(data.get("timed_out"))
    )


def _shown(value: Any) -> str:
    """A table setting as the refusal shows it (a list digest shortened)."""
    return f"{value[:12]}..." if isinstance(value, str) and len(value) > 16 else repr(value)


def _merge_or_keep(
    path: Path, config: WordleConfig, found: OpenerValues, check: Callable[..., None]
) -> dict[str, int]:
    """``found`` merged into the table at ``path`` (waiting for its lock); where the lock stays
    taken, kept in a table beside it, named in the :class:`LockBusy` raised."""
    try:
        return _merge_locked(path, config, [found], check).values
    except LockBusy as busy:
        kept = path.with_name(f"{path.name}.{os.getpid()}.json")
        atomic_write_text(kept, _table_json(config, found))
        raise LockBusy(
            f"{busy}; what this run valued is kept in {quoted(str(kept), 400)}: --merge it"
        ) from None


TABLE_WAIT_S = 600.0
"""How long a writer of a table of opener values waits for another to release it."""


def table_lock(path: Path, wait_s: float | None = None) -> contextlib.AbstractContextManager[None]:
    """The lock of the table of opener values at ``path`` (waiting up to ``wait_s`` seconds, by
    default :data:`TABLE_WAIT_S`): the file ``<path>.lock`` beside it, so that every writer of the
    table takes the same lock whatever its cache folder."""
    wait = TABLE_WAIT_S if wait_s is None else wait_s
    return file_lock(f"{path}.lock", "run of opener values", quoted(str(path), 200), wait)


def _merge_locked(
    path: Path,
    config: WordleConfig,
    tables: list[OpenerValues],
    check: Callable[[OpenerValues, Path], None],
    wait_s: float | None = None,
) -> OpenerValues:
    """The table at ``path`` as it is on disk with ``tables`` merged in, held to ``check`` and
    written back under the table's lock, so that processes sharing the table never lose each
    other's openers."""
    with table_lock(path, wait_s):
        game = (config.vocabulary, config.hard_mode, config.max_guesses)
        merged = read_opener_values(path, *game, strict=True)
        for table in tables:
            merged = _merge_two(merged, table, path)
        check(merged, path)
        atomic_write_text(path, _table_json(config, merged))
    return merged


def _table_json(config: WordleConfig, table: OpenerValues) -> str:
    """The file of a table of opener values."""
    rows = {w: [[p, *t] for p, t in sorted(found.items())] for w, found in table.children.items()}
    data = {
        **_values_header(config.vocabulary, config.hard_mode, config.max_guesses),
        "values": table.values,
        "one_fewer": table.one_fewer,
        "timed_out": table.timed_out,
        "children": rows,
    }
    return _compact_json(data)


def _merge_two(a: OpenerValues, b: OpenerValues, where: Path) -> OpenerValues:
    """Two tables' union (ValueError on an exact total they give differently); an opener's time
    limit is the longest it ran out of, and none once it is valued."""

    def union(x: dict[Any, Any], y: dict[Any, Any], what: str) -> dict[Any, Any]:
        for key in x.keys() & y.keys():
            if x[key] != y[key]:
                raise ValueError(
                    f"{where}: two tables give {what} {key!r} differently ({x[key]} and "
                    f"{y[key]}); exact totals cannot differ, so one table is wrong"
                )
        return {**x, **y}

    values = union(a.values, b.values, "the total of")
    children = dict(a.children)
    for word, rows in b.children.items():
        children[word] = union(children.get(word, {}), rows, f"{word!r}'s position")
    timed_out = {
        w: max(a.timed_out.get(w, -1.0), b.timed_out.get(w, -1.0))
        for w in a.timed_out.keys() | b.timed_out.keys()
        if w not in values
    }
    return OpenerValues(
        values,
        union(a.one_fewer, b.one_fewer, "one guess fewer, the total of"),
        children,
        timed_out,
    )


def _compact_json(data: dict[str, Any]) -> str:
    """``data`` as JSON with one line for each opener's children (the table stays readable and
    small)."""
    rows = data["children"]
    head = json.dumps(
        {k: v for k, v in data.items() if k != "children"}, indent=1, allow_nan=False
    )[:-2]
    lines = ",\n".join(
        f"  {json.dumps(w)}: {json.dumps(r, separators=(',', ':'))}" for w, r in rows.items()
    )
    return head + ',\n "children": {\n' + lines + "\n }\n}\n"


TOTALS_FORMAT = "wordle-gym opener totals 1"


OPENER_TOTALS = "opener_totals_*.json"
"""Shipped tables of published first-move totals (a game each: exact ones and upper bounds, each
source cited), in :func:`~wordle_gym.solver.solver_data`; made by
``python -m benchmarks.opener_totals``."""


class OpenerTotals(NamedTuple):
    """A table of first-move totals for one game: exact ones and proven upper bounds (a real
    strategy's total) by opener, and each source's citation."""

    exact: dict[str, int]
    upper: dict[str, int]
    sources: dict[str, str]


def read_opener_totals(
    path: Path, vocab: Vocabulary, hard_mode: bool, max_guesses: int
) -> OpenerTotals | None:
    """The table at ``path`` when it is of this game (None when it is of another; ValueError naming
    the file when it is not such a table)."""
    try:
        data = _parsed_json(path, "table of opener totals")
    except (json.JSONDecodeError, RecursionError):
        data = None
    if (
        not isinstance(data, dict)
        or data.get("format") != TOTALS_FORMAT
        or not isinstance(data.get("sources"), list)
    ):
        raise ValueError(f"{path} is not a table of opener totals (expected {TOTALS_FORMAT!r})")
    if (data.get("lists"), data.get("hard_mode"), data.get("max_guesses")) != (
        vocab.digest,
        hard_mode,
        max_guesses,
    ):
        return None
    out = OpenerTotals({}, {}, {})
    for source in data["sources"]:
        totals = _source_totals(path, source, vocab)
        into = out.exact if source["kind"] == "exact" else out.upper
        for word, total in totals.items():
            into[word] = min(total, into.get(word, total))
        out.sources[str(source.get("name"))] = str(source.get("cite"))
    return out


def _source_totals(path: Path, source: Any, vocab: Vocabulary) -> dict[str, int]:
    """One source's totals by opener, checked: an object of a known kind whose totals are
    integers of allowed guesses (ValueError naming the file and the source)."""
    if not isinstance(source, dict) or source.get("kind") not in ("exact", "upper"):
        raise ValueError(
            f"{path}: a source is not {{'name', 'kind': 'exact' or 'upper', 'cite', 'totals'}}"
        )
    totals = source.get("totals") if isinstance(source.get("totals"), dict) else {}
    bad = [w for w, t in totals.items() if w not in vocab.allowed_index or type(t) is not int]
    if bad:
        raise ValueError(
            f"{path}: {source.get('name')}: {bad[0]!r} is not an allowed guess with a total"
        )
    return totals


def read_loss_ranking(
    vocab: Vocabulary, hard_mode: bool, max_guesses: int
) -> tuple[Path, np.ndarray, dict[int, int]] | None:
    """The shipped every-opener ranking with losses of this game (``openers_<mode>_losses.json``):
    its path, every opener's proven lower bound (or exact total) by action, and the exact ones; None
    where none ships."""
    found = None
    for path in sorted(solver_data().glob("openers_*losses.json")):
        data = _parsed_json(path, "ranking of openers")
        same = (
            data.get("lists"),
            data.get("hard_mode"),
            data.get("max_guesses"),
            data.get("losses"),
        )
        if same == (vocab.digest, hard_mode, max_guesses, True):
            n = vocab.num_answers
            values = np.array([n if v is None else v for v in data["values"]], np.int64)
            exact = {i: int(values[i]) for i, flag in enumerate(data["exact_flags"]) if flag == "1"}
            found = (path, values, exact)
    return found


def allowed_opener(vocab: Vocabulary, word: str) -> str | None:
    """``word`` where the lists allow it as a guess (the start's value is then taken from it), else
    None (the start is searched over every first guess: small lists only)."""
    try:
        vocab.action(word)
    except ValueError:
        return None
    return word
