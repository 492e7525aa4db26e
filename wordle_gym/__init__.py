"""wordle_gym: an exact, fast Wordle environment for Gymnasium, single and batched on torch.

``import wordle_gym`` registers:

* ``Wordle-v0``: the original game (2315 answers, 12972 allowed guesses);
* ``WordleHard-v0``: the same in hard mode;
* ``WordleNYT-v0``: the NYT answer list of 2022 (2309 answers), original allowed guesses;
* ``WordleToday-v0``, ``WordleTodayHard-v0``: the game as the NYT plays it today (the 3158 answers
  its WordleBot judges by, 14855 allowed guesses), normal and hard mode;
* ``Dordle-v0``, ``Quordle-v0``, ``Octordle-v0``, ``Sedecordle-v0``, ``Duotrigordle-v0``: 2, 4, 8,
  16 and 32 boards sharing every guess, with ``boards + 5`` guesses (:class:`MultiWordleEnv`);
* the ``-v1`` of each: the same games with float32 observations (both are current: a ``-v0`` is
  not out of date, and makes no warning) (the default networks of SB3, RLlib,
  TorchRL and CleanRL scripts take them unchanged) and, in the vector env, a bool
  ``info["action_mask"]`` (``obs_dtype="float32"``, ``mask_dtype="native"``);
* ``WordleText-v0``: the game as text for language-model agents (:class:`WordleTextEnv`: the reply
  is the action, the feedback written out is the observation), with every Wordle option;
  ``WordleTextToday-v0`` the same on today's lists.

Each id has both entry points: ``gym.make(id)`` gives a :class:`WordleEnv` (a
:class:`MultiWordleEnv` with ``boards=K > 1``, an option of every Wordle id),
``gym.make_vec(id, num_envs=N, device="cuda")`` a :class:`WordleVectorEnv` (a
:class:`MultiWordleVectorEnv`).
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import warnings
from typing import TYPE_CHECKING, Any

if "torch" not in sys.modules:
    # OpenMP's threads (torch's pool, numba's "omp" layer) wait for work by spinning under libgomp's
    # default, which stalls a busy machine: a two-board eval ran 2.3x slower beside one other
    # process on 2 cores (BENCHMARKS.md, contention). OpenMP reads this once, when torch loads it; a
    # value already set wins.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import gymnasium as gym  # after the wait policy: nothing above loads OpenMP

from wordle_gym.core.config import BOARD_NAMES

if TYPE_CHECKING:  # the names below are imported on first use (torch with them): see __getattr__
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.core.game import random_actions, unpack_mask
    from wordle_gym.core.rewards import PRESETS as REWARD_PRESETS
    from wordle_gym.core.rewards import (
        FormatBonus,
        InformationGain,
        Outcome,
        Regret,
        RewardFn,
        RewardScheme,
        RewardSum,
    )
    from wordle_gym.core.rules import GREEN, GREY, YELLOW, feedback, pattern_ids
    from wordle_gym.core.tables import pattern_table
    from wordle_gym.core.words import Vocabulary, decode, encode, load_word_list
    from wordle_gym.envs.multi import MultiWordleEnv, MultiWordleVectorEnv
    from wordle_gym.envs.text import WordleTextEnv
    from wordle_gym.envs.vector import WordleVectorEnv
    from wordle_gym.envs.wordle import WordleEnv

from wordle_gym.core import __version__ as __version__  # written once, there

__all__ = [
    "GREEN",
    "GREY",
    "REWARD_PRESETS",
    "YELLOW",
    "FormatBonus",
    "InformationGain",
    "MultiWordleEnv",
    "MultiWordleVectorEnv",
    "Outcome",
    "Regret",
    "RewardFn",
    "RewardScheme",
    "RewardSum",
    "Vocabulary",
    "WordleConfig",
    "WordleEnv",
    "WordleTextEnv",
    "WordleVectorEnv",
    "decode",
    "encode",
    "feedback",
    "load_word_list",
    "pattern_ids",
    "pattern_table",
    "random_actions",
    "unpack_mask",
]

_VARIANTS: dict[str, dict] = {
    "Wordle-v0": {},
    "WordleHard-v0": {"hard_mode": True},
    "WordleNYT-v0": {"answers": "answers_nyt"},
    "WordleToday-v0": {"answers": "answers_today", "allowed": "allowed_today"},
    "WordleTodayHard-v0": {
        "answers": "answers_today",
        "allowed": "allowed_today",
        "hard_mode": True,
    },
}
_VARIANTS.update({f"{name}-v0": {"boards": boards} for boards, name in BOARD_NAMES.items()})
_V1 = {"obs_dtype": "float32", "mask_dtype": "native"}
_VARIANTS.update(
    {name.replace("-v0", "-v1"): {**kwargs, **_V1} for name, kwargs in list(_VARIANTS.items())}
)
gym.register(
    id="WordleText-v0", entry_point="wordle_gym.envs.text:WordleTextEnv", order_enforce=False
)
gym.register(
    id="WordleTextToday-v0",
    entry_point="wordle_gym.envs.text:WordleTextEnv",
    order_enforce=False,
    kwargs={"answers": "answers_today", "allowed": "allowed_today"},
)
# Gymnasium calls an id "out of date" wherever a higher version of its name is registered; these
# -v0 are not (each is its game with int8 observations, kept beside the float32 -v1), so that one
# warning is off for them alone (set after gymnasium's import, whose own filter would come first).
warnings.filterwarnings(
    "ignore",
    message=r".*The environment (?:{})-v0 is out of date".format(
        "|".join(re.escape(name[: -len("-v0")]) for name in _VARIANTS if name.endswith("-v0"))
    ),
    category=DeprecationWarning,
)
for _id, _kwargs in _VARIANTS.items():
    if _id not in gym.registry:
        gym.register(
            id=_id,
            entry_point="wordle_gym.envs.multi:make_env",
            vector_entry_point="wordle_gym.envs.multi:make_vector_env",
            kwargs=_kwargs,
            # WordleEnv enforces reset-before-step itself (a clear RuntimeError)
            order_enforce=False,
        )


_LAZY = {
    "GREEN": "wordle_gym.core.rules",
    "GREY": "wordle_gym.core.rules",
    "YELLOW": "wordle_gym.core.rules",
    "feedback": "wordle_gym.core.rules",
    "pattern_ids": "wordle_gym.core.rules",
    "pattern_table": "wordle_gym.core.tables",
    "REWARD_PRESETS": "wordle_gym.core.rewards",
    "FormatBonus": "wordle_gym.core.rewards",
    "InformationGain": "wordle_gym.core.rewards",
    "Outcome": "wordle_gym.core.rewards",
    "Regret": "wordle_gym.core.rewards",
    "RewardFn": "wordle_gym.core.rewards",
    "RewardScheme": "wordle_gym.core.rewards",
    "RewardSum": "wordle_gym.core.rewards",
    "WordleConfig": "wordle_gym.core.config",
    "Vocabulary": "wordle_gym.core.words",
    "decode": "wordle_gym.core.words",
    "encode": "wordle_gym.core.words",
    "load_word_list": "wordle_gym.core.words",
    "MultiWordleEnv": "wordle_gym.envs.multi",
    "MultiWordleVectorEnv": "wordle_gym.envs.multi",
    "WordleTextEnv": "wordle_gym.envs.text",
    "WordleVectorEnv": "wordle_gym.envs.vector",
    "WordleEnv": "wordle_gym.envs.wordle",
    "unpack_mask": "wordle_gym.core.game",
    "random_actions": "wordle_gym.core.game",
}


def __getattr__(name: str) -> Any:
    """The public names, imported on first use: ``import wordle_gym`` registers the ids and loads no
    torch, so that what needs none (the exact solver's command, the word lists) starts fast."""
    if name not in _LAZY:
        raise AttributeError(f"module 'wordle_gym' has no attribute {name!r}")
    value = getattr(
        importlib.import_module(_LAZY[name]), "PRESETS" if name == "REWARD_PRESETS" else name
    )
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _one_thread_after_fork() -> None:
    """A forked child inherits torch's intra-op thread pool in a state it cannot use: its first
    parallel op waits forever (Gymnasium's AsyncVectorEnv forks workers after the parent built an
    env). One thread per forked worker is what torch's own DataLoader workers use. (Torch not yet
    imported: nothing to do.)"""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_one_thread_after_fork)
