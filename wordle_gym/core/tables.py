"""The pattern tables, cached: the allowed x answers pattern ids of a vocabulary, as numpy without
torch (:func:`pattern_array`, what the exact solver reads) and as a tensor on a device
(:func:`pattern_table`). On the CPU both come from one file of the disk cache, checked on 4096
sampled pairs against the rule's plain copy on every read; only a missing or damaged file is
rebuilt, by the torch reference :func:`wordle_gym.core.rules.build_pattern_table`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from wordle_gym.core.patterns import feedback_one, id_dtype, letter_codes
from wordle_gym.core.words import Vocabulary
from wordle_gym.utils.files import disk_cached_array

if TYPE_CHECKING:
    import torch

# part of the disk cache file's name: a change to the ids or their layout gets new files
_FORMAT = 1


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


@lru_cache(maxsize=8)
def _cached_table(vocab: Vocabulary, device: torch.device) -> torch.Tensor:
    import torch

    from wordle_gym.core.rules import build_pattern_table

    if device.type != "cpu":  # built on the device, where it is fast
        return build_pattern_table(vocab.allowed_codes, vocab.answer_codes.to(device))
    # the disk cache (a build takes about 1 s for the real lists)
    return torch.from_numpy(pattern_array(vocab))


def pattern_table(vocab: Vocabulary, device: torch.device | str = "cpu") -> torch.Tensor:
    """The cached allowed x answers pattern table of ``vocab`` on ``device`` (read-only by
    contract).

    Row ``i`` holds the pattern id of guessing ``vocab.allowed[i]`` against every answer.
    Cached per (word lists, device); the first call builds it.
    """
    import torch

    device = torch.device(device)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    return _cached_table(vocab, device)
