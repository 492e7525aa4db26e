"""The rule's constants and its forms without torch (what the exact solver's command needs:
importing torch took longer than its whole search).

The rule's plain Python copy :func:`feedback_one` (held to :func:`wordle_gym.core.rules.feedback`
by ``tests/core/test_rules.py``); :func:`pattern_tiles` and :func:`letter_codes`, the numpy forms
of :func:`wordle_gym.core.rules.tiles_from_ids` and :func:`wordle_gym.core.words.encode`. The
tables themselves are :mod:`wordle_gym.core.tables`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

GREY, YELLOW, GREEN = 0, 1, 2
ALPHABET = 26


def num_patterns(length: int) -> int:
    """How many distinct tile patterns words of ``length`` letters have (``3**length``)."""
    return 3**length


def feedback_one(guess: tuple[int, ...], answer: tuple[int, ...]) -> list[int]:
    """The tiles of one guess against one answer (letter-code tuples), in plain Python.

    A copy of :func:`wordle_gym.core.rules.feedback` for where a torch call costs more than the work
    (the one-game engine, :mod:`wordle_gym.envs.scalar`) or torch is not loaded; held to it on every
    repeat structure and real words by ``tests/core/test_rules.py`` and
    ``tests/envs/test_scalar.py``.
    """
    # answer letters not matched green
    spare = [a for g, a in zip(guess, answer, strict=True) if g != a]
    if not spare:
        return [GREEN] * len(guess)
    tiles = []
    for g, a in zip(guess, answer, strict=True):
        if g == a:
            tiles.append(GREEN)
        elif g in spare:  # left to right, each unmatched copy colours one guess letter
            spare.remove(g)
            tiles.append(YELLOW)
        else:
            tiles.append(GREY)
    return tiles


def letter_codes(words: Sequence[str]) -> np.ndarray:
    """(N, L) uint8 letter codes (``a`` is 0, ``z`` 25) of validated words (see
    :class:`Vocabulary`)."""
    length = len(words[0])
    return np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8).reshape(
        len(words), length
    ) - ord("a")


def pattern_tiles(length: int) -> np.ndarray:
    """(3**length, length) uint8: row ``p`` holds the tiles of pattern id ``p`` (base 3, first tile
    first)."""
    ids = np.arange(num_patterns(length))
    return ((ids[:, None] // 3 ** np.arange(length - 1, -1, -1)) % 3).astype(np.uint8)


def id_dtype(length: int) -> np.dtype:
    """The smallest dtype that holds every pattern id: uint8 up to 5 letters, else int32."""
    return np.dtype(np.uint8 if num_patterns(length) <= 256 else np.int32)
