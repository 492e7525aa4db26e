"""The pattern table as numpy, without torch: what the exact solver's command loads (importing torch
took longer than its whole search).

:func:`pattern_array` is the table :func:`wordle_gym.core.rules.pattern_table` gives on the CPU,
from the same file of the disk cache; only a missing or damaged file is rebuilt, by the torch
reference. The rule's plain Python copy :func:`feedback_one` (held to
:func:`wordle_gym.core.rules.feedback` by ``tests/core/test_rules.py``) checks every file it reads
on 4096 sampled pairs. :func:`pattern_tiles` and :func:`letter_codes` are the numpy forms of
:func:`wordle_gym.core.rules.tiles_from_ids` and :func:`wordle_gym.core.words.encode`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from wordle_gym.core.words import Vocabulary
from wordle_gym.utils.files import disk_cached_array

GREY, YELLOW, GREEN = 0, 1, 2
ALPHABET = 26
# part of the disk cache file's name: a change to the ids or their layout gets new files
_FORMAT = 1


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


@lru_cache(maxsize=8)
def pattern_array(vocab: Vocabulary) -> np.ndarray:
    """The (allowed, answers) pattern table of ``vocab`` (read-only by contract), from the disk
    cache under :func:`wordle_gym.utils.files.cache_folder` when a file there is sound (about 0.05 s
    for the real lists), else built by :func:`wordle_gym.core.rules.build_pattern_table` (about 1 s)
    and saved there."""
    shape = (vocab.num_allowed, vocab.num_answers)
    answers = letter_codes(vocab.answers)
    allowed = letter_codes(vocab.allowed)
    sample = np.random.default_rng(int(vocab.digest[:8], 16))
    rows, cols = sample.integers(shape[0], size=4096), sample.integers(shape[1], size=4096)

    def valid(table: np.ndarray) -> bool:  # the right file, and 4096 entries held to the rule
        if table.shape != shape or table.dtype != id_dtype(vocab.length):
            return False
        for row, col in zip(rows.tolist(), cols.tolist(), strict=True):
            pattern = 0
            for tile in feedback_one(tuple(allowed[row].tolist()), tuple(answers[col].tolist())):
                pattern = 3 * pattern + tile
            if table[row, col] != pattern:
                return False
        return True

    def build() -> np.ndarray:
        # torch: only when no sound file is at hand
        from wordle_gym.core.rules import build_pattern_table

        return build_pattern_table(vocab.allowed_codes, vocab.answer_codes).numpy()

    return disk_cached_array(f"patterns-v{_FORMAT}-{vocab.digest}.npy", build, valid)
