"""A position of the exact solver's oracle: the answers still possible, the guesses left and, in
hard mode, the constraint the feedback revealed."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Position(NamedTuple):
    """A position: candidate answers (sorted answer indices), guesses left, hard-mode constraint."""

    members: tuple[int, ...]
    left: int
    green: tuple[int, ...]  # letter required at each position (-1: none); all -1 outside hard mode
    need: tuple[int, ...]  # (26,) copies of each letter a guess must use (all 0 outside hard mode)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(members, green, need)`` as the search kernel takes them (int32, int64, int64)."""
        return (
            np.array(self.members, dtype=np.int32),
            np.array(self.green, dtype=np.int64),
            np.array(self.need, dtype=np.int64),
        )
