from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Iterator

import pytest
import torch
from hypothesis import settings

# The pattern table's disk cache (wordle_gym.utils.files.cache_folder) goes to a folder of this run,
# not the user's ~/.cache; the test processes this session starts inherit it.
_CACHE = tempfile.TemporaryDirectory(prefix="wordle_gym_test_cache_")
# numba's compiled kernels depend on no list: they stay where a user's go (the default cache
# folder), so that a test session loads them instead of compiling every kernel again (minutes on 2
# cores).
if "NUMBA_CACHE_DIR" not in os.environ:
    from wordle_gym.utils.files import cache_folder

    _user = cache_folder()
    os.environ["NUMBA_CACHE_DIR"] = str(_user / "numba") if _user is not None else _CACHE.name
os.environ.setdefault("WORDLE_GYM_CACHE", _CACHE.name)
# Stable-Baselines3's default logger makes an empty /tmp/SB3-<date> folder for every model that
# learns without one (the examples learn as SB3's users write it): in this run's folder instead.
os.environ.setdefault("SB3_LOGDIR", os.path.join(_CACHE.name, "sb3"))

# pytest-xdist's workers (pyproject's addopts) share the cores: each worker's torch gets its share
# of the threads (two workers each running torch on both cores of a 2-core machine took longer than
# one process).
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _WORKERS > 1:
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // _WORKERS))

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
def two_torch_threads() -> Iterator[None]:
    """Two torch threads for one test (whatever the worker's share), restored after it: the CPU
    step's compiled kernels split a batch over torch's threads, and a test of that split needs
    two."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def rng() -> random.Random:
    return random.Random(1234)


# A tiny vocabulary used by learning and adapter tests: answers = guesses.
TINY = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade", "naval", "serve"]


@pytest.fixture
def tiny_words() -> list[str]:
    return list(TINY)
