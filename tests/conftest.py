from __future__ import annotations

import os
import random
import tempfile

import pytest
import torch
from hypothesis import settings

# The pattern table's disk cache (wordle_gym.core.files.cache_folder) goes to a folder of this run, not the
# user's ~/.cache; the test processes this session starts inherit it.
_CACHE = tempfile.TemporaryDirectory(prefix="wordle_gym_test_cache_")
os.environ.setdefault("WORDLE_GYM_CACHE", _CACHE.name)

settings.register_profile("ci", max_examples=200, deadline=None)
settings.load_profile("ci")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``cuda`` are skipped, with the reason, where no CUDA device is present."""
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="no CUDA device")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng() -> random.Random:
    return random.Random(1234)


# A tiny vocabulary used by learning and adapter tests: answers = guesses.
TINY = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade", "naval", "serve"]


@pytest.fixture
def tiny_words() -> list[str]:
    return list(TINY)
