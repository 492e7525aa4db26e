"""Small word lists the solver, oracle and command tests share."""

from __future__ import annotations

import random
import re
from pathlib import Path

from wordle_gym.core.words import load_word_list


def small_lists(seed: int, answers: int, guesses: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    pool = load_word_list("answers")
    chosen = rng.sample(pool, answers)
    extra = rng.sample([w for w in load_word_list("allowed") if w not in chosen], guesses - answers)
    return sorted(chosen), sorted(chosen + extra)


def trap_lists(seed: int) -> tuple[list[str], list[str]]:
    """36 answers of the hard-mode traps (-ATCH, -IGHT, -OUND, -ILL ...) and 60 other guesses:
    lists where hard mode costs guesses and can make the limit unreachable."""
    rng = random.Random(seed)
    traps = [
        w
        for w in load_word_list("answers")
        if re.fullmatch(r".(atch|ight|ound|aste|ower|ill.|ake.)|..ill", w)
    ]
    chosen = sorted(rng.sample(traps, 36))
    extra = rng.sample([w for w in load_word_list("allowed") if w not in chosen], 60)
    return chosen, sorted(chosen + extra)


def list_files(folder: Path, seed: int) -> tuple[list[str], list[str], list[str]]:
    """Small lists written to ``folder``: the answers, the guesses, and the command-line options
    naming them."""
    answers, allowed = small_lists(seed, 30, 90)
    (folder / "a.txt").write_text("\n".join(answers))
    (folder / "g.txt").write_text("\n".join(allowed))
    return (
        answers,
        allowed,
        ["--answers", str(folder / "a.txt"), "--allowed", str(folder / "g.txt"), "--quiet"],
    )


def list_pair(
    tmp_path: Path, seed: int = 9, answers: int = 30, guesses: int = 90
) -> tuple[list[str], list[str], list]:
    a, g = small_lists(seed, answers, guesses)
    (tmp_path / "a.txt").write_text("\n".join(a))
    (tmp_path / "g.txt").write_text("\n".join(g))
    return a, g, ["--answers", str(tmp_path / "a.txt"), "--allowed", str(tmp_path / "g.txt")]


SMALL = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade", "naval", "serve"]
