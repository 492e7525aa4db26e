"""Independent scalar references for the tests: plain Python, one word at a time, no torch."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np


def few_letter_words(rng: random.Random, letters: str, length: int, count: int) -> list[str]:
    """Up to ``count`` distinct random words over a few ``letters``, sorted: repeated letters are
    common."""
    return sorted({"".join(rng.choice(letters) for _ in range(length)) for _ in range(count)})


def feedback_ref(guess: str, answer: str) -> tuple[int, ...]:
    """The rule as a person states it: greens first; then, left to right, a letter is yellow
    while the answer has copies left that are neither green nor already used for a yellow."""
    tiles = [0] * len(guess)
    unused = Counter(a for g, a in zip(guess, answer, strict=True) if g != a)
    for i, (g, a) in enumerate(zip(guess, answer, strict=True)):
        if g == a:
            tiles[i] = 2
    for i, g in enumerate(guess):
        if tiles[i] == 0 and unused[g] > 0:
            tiles[i] = 1
            unused[g] -= 1
    return tuple(tiles)


def consistent(word: str, history: list[tuple[str, tuple[int, ...]]]) -> bool:
    """Could ``word`` be the answer given every (guess, tiles) seen?"""
    return all(feedback_ref(guess, word) == tuple(tiles) for guess, tiles in history)


def hard_valid(word: str, history: list[tuple[str, tuple[int, ...]]]) -> bool:
    """The game's hard-mode rule: revealed greens stay in place; each revealed letter is reused
    at least as many times as it was revealed (green or yellow) in any one guess."""
    for guess, tiles in history:
        for i, t in enumerate(tiles):
            if t == 2 and word[i] != guess[i]:
                return False
        shown = Counter(g for g, t in zip(guess, tiles, strict=True) if t > 0)
        have = Counter(word)
        if any(have[c] < k for c, k in shown.items()):
            return False
    return True


def decode_knowledge(obs: np.ndarray, length: int, max_guesses: int) -> dict[str, np.ndarray]:
    """Split a flat "knowledge" observation into its documented blocks."""
    obs = np.asarray(obs).astype(np.int64)
    block = 26 * length
    return {
        "green": obs[:block].reshape(length, 26),
        "excluded": obs[block : 2 * block].reshape(length, 26),
        "min": obs[2 * block : 2 * block + 26],
        "max": obs[2 * block + 26 : 2 * block + 52],
        "turn": obs[2 * block + 52 :],
    }


def satisfies_knowledge(word: str, know: dict[str, np.ndarray]) -> bool:
    """Does ``word`` meet every constraint an observation states?"""
    codes = [ord(c) - 97 for c in word]
    for i, c in enumerate(codes):
        if know["excluded"][i, c]:
            return False
        if know["green"][i].any() and not know["green"][i, c]:
            return False
    counts = Counter(codes)
    return all(know["min"][c] <= counts[c] <= know["max"][c] for c in range(26))
