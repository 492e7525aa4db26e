"""The arithmetic of the multi-board lower bounds (:mod:`research.boards_bound` proves and prints
them): the bound from one board's optimum, the order bound from the most answer pairs any policy
finishes by each guess, and their certificates (the shipped ranking with losses and the maxima over
every Dordle opener), each checked as it is read."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from wordle_gym.core.tables import pattern_array
from wordle_gym.core.words import Vocabulary
from wordle_gym.solver import openers as ranking
from wordle_gym.solver import solver_data
from wordle_gym.utils.files import quoted

SHIPPED = "openers_normal_losses.json"
"""The real lists' ranking with losses counted, six guesses (the certificate of ``V``)."""


SHIPPED_MOST = "dordle_openers_most.json"
"""The real lists' maxima over every opener (:func:`dordle_most`; the certificate of ``q2``, ``d2``,
``d3``)."""


MOST_FORMAT = "wordle-gym Dordle opener maxima 1"


def loss_cap(boards: int, max_guesses: int) -> float:
    """``u_K`` of Claim 1: the most a board left unsolved may count for ``T >= mean(c) + (K - 1)/2``
    to hold."""
    k, limit = boards, max_guesses
    return min(
        (k * (limit + 1) - k * (k - 1) / 2 - (j * limit - j * (j - 1) / 2)) / (k - j)
        for j in range(k)
    )


def lower_bound(
    single_total: int, num_answers: int, single_guesses: int, boards: int, max_guesses: int
) -> float:
    """The bound on the optimal mean count of ``boards``-board games with ``max_guesses`` guesses,
    from ``single_total``: the optimal total over the ``num_answers`` answers of one-board games
    with ``single_guesses`` guesses, a loss costing ``single_guesses + 1`` (see the module
    docstring)."""
    n, k, m, limit = num_answers, boards, single_guesses, max_guesses
    if not 1 <= k <= n:
        raise ValueError(f"boards must be from 1 to the {n} answers; got {k}")
    if limit < m:
        raise ValueError(f"the games need at least the one-board game's {m} guesses; got {limit}")
    cap = loss_cap(k, limit)
    if cap < m + 1:
        raise ValueError(
            f"{k} boards with {limit} guesses: an unsolved board may count only {cap:.4g} < {m + 1}"
        )
    return (single_total - (k - 1) * max(limit, cap)) / (n - k + 1) + (k - 1) / 2


def solved_by(boards: int, most: dict[str, Any]) -> Callable[[int, int], float]:
    """Claim 3's ``u(j, t)``: at least the probability that ``j`` boards or more are solved by guess
    ``t``, for every ``boards``-board policy, from ``most`` (:func:`dordle_most`)."""
    k, n = boards, int(most["answers"])
    if not 1 <= k <= n:
        raise ValueError(f"boards must be from 1 to the {n} answers; got {k}")

    def kept(s: int) -> float:  # the K - s simulated answers miss the s real ones
        return math.prod((n - s - i) / (n - i) for i in range(k - s))

    cells, by = most["most_cells"][0], most["most_finished_by"]
    pairs = math.comb(k, 2) / (n * (n - 1)) / kept(2) if k >= 2 else 0.0
    known = {  # by j, then t: the expectations bounded directly
        1: {1: k / n, 2: k * cells / n / kept(1)},
        2: {int(t): pairs * c for t, (c, _) in by.items()},
    }

    @functools.cache
    def u(j: int, t: int) -> float:
        if t < j:
            return 0.0
        return min(1.0, known.get(j, {}).get(t, 1.0), u(j - 1, t - 1) if j > 1 else 1.0)

    return u


def order_bound(boards: int, max_guesses: int, most: dict[str, Any]) -> dict[str, Any]:
    """Claim 3's bound for ``boards`` boards and ``max_guesses`` guesses, from ``most``
    (:func:`dordle_most`):
    the best over ``j`` of ``B_j``, each listed (``by_order``)."""
    k, limit, u = boards, max_guesses, solved_by(boards, most)
    if limit < k:
        raise ValueError(f"{k} boards need {k} guesses at least; got {limit}")
    terms = [k - j + sum(1 - u(j, t) for t in range(limit + 1 - (k - j))) for j in range(1, k + 1)]
    best = max(range(k), key=terms.__getitem__)
    return {"lower_bound": terms[best], "order": best + 1, "by_order": terms}


def dordle_most(vocab: Vocabulary, journal: dict[str, Any]) -> dict[str, Any]:
    """What Claim 3 reads, from a journal of :func:`dordle_openers` with every opener counted: the
    most answers one board finishes by the second guess (the most classes an opener makes, ``q2 N``)
    and the most ordered answer pairs two boards finish by the second and third guess (``d2``,
    ``d3`` times the pairs; the count pass's by2 and by3 are the exact search's), each with an
    opener that reaches it."""
    counts = journal.get("counts") if isinstance(journal, dict) else None
    if (
        not isinstance(counts, dict)
        or journal.get("lists") != vocab.digest
        or len(counts) != vocab.num_allowed
    ):
        raise ValueError(
            "the maxima need a journal of --all-openers on these lists with every opener counted"
        )
    table = pattern_array(vocab)
    classes = np.array([np.unique(row).size for row in table])
    first = int(classes.argmax())
    most = {}
    for t, i in (("2", 0), ("3", 1)):
        word = min(counts, key=lambda w: (-counts[w][i], w))
        most[t] = [int(counts[word][i]), word]
    return {
        "format": MOST_FORMAT,
        "lists": vocab.digest,
        "answers": vocab.num_answers,
        "allowed": vocab.num_allowed,
        "most_cells": [int(classes[first]), vocab.allowed[first]],
        "most_finished_by": most,
    }


MAX_JOURNAL = 256 << 20
"""The largest journal or summary read (the real lists' journal is under 1 MB)."""


def load_most(path: str | Path, vocab: Vocabulary | None = None) -> dict[str, Any]:
    """A summary written by :func:`dordle_most`, or a journal of ``--all-openers`` on ``vocab``'s
    lists (default the real ones) made into one (plain JSON: nothing in it runs)."""
    if not Path(path).is_file() or Path(path).stat().st_size > MAX_JOURNAL:
        raise ValueError(
            f"{quoted(str(path))} is not a file of maxima or a journal (a regular "
            "file of at most 256 MB)"
        )
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        data = None
    if isinstance(data, dict) and data.get("format") == MOST_FORMAT:
        return _checked_most(data, path)
    vocab = vocab or Vocabulary()
    if (
        isinstance(data, dict)
        and isinstance(data.get("counts"), dict)
        and data.get("lists") == vocab.digest
    ):
        return dordle_most(vocab, data)
    raise ValueError(
        f"{quoted(str(path))} is neither a summary of Dordle openers ({MOST_FORMAT!r}) nor a "
        "journal of --all-openers on the lists"
    )


def _whole(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def _checked_most(data: dict[str, Any], path: str | Path) -> dict[str, Any]:
    """A summary of maxima whose numbers can be what they claim (a bound is only as sound as them):
    counts in range, the pair maxima growing with the guess, an opener named for each."""
    n = data.get("answers")
    ok = _whole(n, 2, 10**6) and _whole(data.get("allowed"), 1, 10**7)
    cells, finished = data.get("most_cells"), data.get("most_finished_by")
    ok = (
        ok
        and isinstance(cells, list)
        and len(cells) == 2
        and _whole(cells[0], 1, n)
        and isinstance(cells[1], str)
    )
    ok = ok and isinstance(finished, dict) and set(finished) == {"2", "3"}
    if ok:
        pairs = n * (n - 1)
        rows = [finished["2"], finished["3"]]
        ok = all(
            isinstance(r, list) and len(r) == 2 and _whole(r[0], 0, pairs) and isinstance(r[1], str)
            for r in rows
        )
        ok = ok and rows[0][0] <= rows[1][0]
    if not ok:
        raise ValueError(
            f"{quoted(str(path))} holds maxima that cannot be right (counts out of range); not used"
        )
    return data


def from_ranking(
    data: dict[str, Any],
    boards: int,
    max_guesses: int | None = None,
    most: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The bound for ``boards`` boards (``max_guesses`` default ``boards + 5``) from a finished
    ranking of every opener with losses counted (Claims 1 and 2), and where ``most``
    (:func:`dordle_most`) is of the same lists, Claim 3's; ``lower_bound`` is the better."""
    if (
        not data.get("losses")
        or data.get("hard_mode")
        or not data.get("finished")
        or not data.get("ranking")
    ):
        raise ValueError(
            "the bound needs a finished normal-mode ranking of every opener with losses counted"
        )
    best = data["ranking"][0]
    n, m = data.get("num_answers"), data.get("max_guesses")
    valid = _whole(n, 1, 10**6) and _whole(m, 1, 100) and isinstance(best, list) and len(best) == 2
    if not (valid and isinstance(best[0], str) and _whole(best[1], n, (m + 1) * n)):
        raise ValueError(
            "the ranking's best opener and total cannot be right (a total is between "
            "N and (limit + 1) N)"
        )
    word, total = best
    limit = boards + 5 if max_guesses is None else max_guesses
    one = lower_bound(int(total), n, m, boards, limit)
    row = {
        "boards": boards,
        "max_guesses": limit,
        "lower_bound": one,
        "one_board_bound": one,
        "single_board": {"opener": word, "total": int(total), "answers": n, "max_guesses": m},
    }
    if most is not None and most.get("lists") == data.get("lists"):
        row["order_bound"] = order_bound(boards, limit, most)
        row["lower_bound"] = max(one, row["order_bound"]["lower_bound"])
    return row


def bounds(
    boards: list[int], path: str | Path | None = None, most: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """:func:`from_ranking` for each board count, from the ranking at ``path`` (default: the shipped
    one) and the maxima ``most`` (:func:`load_most`; default: the shipped maxima, used where their
    lists are the ranking's; given ones must be)."""
    data = ranking.load(path or solver_data() / SHIPPED)
    shipped = solver_data() / SHIPPED_MOST
    if most is None:
        most = load_most(shipped) if shipped.is_file() else None
    elif most.get("lists") != data.get("lists"):
        raise ValueError("the maxima (--most) are of other lists than the ranking's")
    return [from_ranking(data, k, most=most) for k in boards]


def shipped_bounds(boards: list[int]) -> list[dict[str, Any]]:
    """The bounds on the real lists from the shipped ranking and maxima; empty where they do not
    ship."""
    return bounds(boards) if (solver_data() / SHIPPED).is_file() else []
