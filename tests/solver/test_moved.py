"""The exact solver is the env package's own: the regret reward plays with ``wordle_agents`` absent,
and the solver's old import paths keep working for one release with a warning that says where each
went (``wordle_gym.utils.moved``)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import warnings

import pytest

from wordle_gym.utils.moved import MOVED, REMOVED_IN

WITHOUT_AGENTS = """
import importlib.abc, sys

class NoAgents(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "wordle_agents":
            raise ImportError(f"{name} is not installed here")
        return None

sys.meta_path.insert(0, NoAgents())
from wordle_gym import WordleTextEnv
words = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade", "naval", "serve"]
env = WordleTextEnv(answers=words, allowed=words, reward="regret")
env.reset(options={"answer": "cigar"})
_, reward, _, _, info = env.step("<guess>serve</guess>")
assert not [m for m in sys.modules if m.startswith("wordle_agents")]
print(float(reward), bool(info["regret_exact"]))
"""


def test_regret_reward__plays_without_the_agents_package(tmp_path) -> None:
    """Issue 87: the regret reward needed the exact solver of ``wordle_agents``, reached through an
    entry point; with the agents package unimportable it now values a move exactly."""
    out = subprocess.run(
        [sys.executable, "-c", WITHOUT_AGENTS],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        # a fresh list cache, but the session's compiled kernels (compiling them again took 20 s)
        env={
            "WORDLE_GYM_CACHE": str(tmp_path / "cache"),
            "NUMBA_CACHE_DIR": os.environ["NUMBA_CACHE_DIR"],
            "PATH": "/usr/bin:/bin",
        },
    )
    assert out.returncode == 0, out.stderr[-2000:]
    reward, exact = out.stdout.split()
    assert float(reward) <= 0 and exact == "True"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_moved__an_old_path_is_the_new_module_with_a_warning(old: str) -> None:
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert [str(w.message) for w in caught if w.category is DeprecationWarning] == [
        f"{old} moved to {MOVED[old]}; the old path goes in {REMOVED_IN}"
    ]
