"""Offline-RL datasets: every answer played once by an agent (optionally epsilon-noisy), written as
a Minari dataset (``pip install '.[minari]'``) whose env spec rebuilds the env it was played in.

    wordle-gym dataset --agent optimal --id wordle/optimal-v0 [--epsilon 0.1] [--hard] [--answers
    LIST]

or, from Python, ``write_dataset("wordle/optimal-v0", "optimal", epsilon=0.1)``. Then
``minari.load_dataset("wordle/optimal-v0")`` gives the episodes (observations are the env's, of the
game's ``obs_dtype``; actions are word indices) and ``.recover_environment()`` gives back the env.
Datasets go where Minari keeps them (``MINARI_DATASETS_PATH``, else ``~/.minari/datasets``).

The games are played by the batched harness (every answer at once, as ``wordle-gym eval``); with
``epsilon``, each decision is, with that chance, a uniformly random guess among those the env's mask
allows instead of the agent's. Each episode's options, in Minari's episode metadata
(``dataset.storage.get_episode_metadata([episode.id])``), hold its answer (``{"answer": index}``):
``env.reset(options=meta["options"])`` in the recovered env replays it exactly.
"""

from __future__ import annotations

import re
import shutil
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from wordle_gym.core.config import WordleConfig
from wordle_gym.harness.play import Step, play
from wordle_gym.harness.registry import make_agent
from wordle_gym.utils.device import resolve_device


def _minari() -> Any:
    try:
        import minari
        from minari.data_collector import EpisodeBuffer
    except ImportError as exc:
        raise ImportError(f"datasets need Minari ({exc}): pip install '.[minari]'") from None
    return minari, EpisodeBuffer


class EpsilonNoise:
    """``policy``'s guess, or with chance ``epsilon`` a uniformly random guess among those the mask
    allows."""

    def __init__(self, policy: Any, epsilon: float, seed: int, device: torch.device) -> None:
        self.policy, self.epsilon = policy, epsilon
        self.generator = torch.Generator(device=device).manual_seed(seed)

    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        actions = torch.as_tensor(
            self.policy.act(observations, action_masks, env), device=env.device
        ).long()
        if self.epsilon > 0:
            noisy = (
                torch.rand(len(actions), generator=self.generator, device=env.device) < self.epsilon
            )
            random = torch.multinomial(action_masks.float(), 1, generator=self.generator).squeeze(1)
            actions = torch.where(noisy, random, actions)
        return actions


def play_episodes(
    policy: Any, config: WordleConfig, epsilon: float = 0.0, seed: int = 0, device: str = "cpu"
) -> list[dict[str, Any]]:
    """Every answer once with ``policy`` (a harness policy; :class:`EpsilonNoise` with ``epsilon``):
    one dict per answer with ``observations`` (T + 1 rows), ``actions``, ``rewards``,
    ``terminations`` (T each) and ``answer``."""
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1]; got {epsilon}")
    noisy = EpsilonNoise(policy, epsilon, seed, resolve_device(device))
    games = play(noisy, config, device=device, seed=seed, check=False, record=True)
    steps = [Step(*(x.cpu() for x in step)) for step in games.steps]
    observations = [step.observations.numpy() for step in steps] + [
        games.observations.cpu().numpy()
    ]
    episodes = []
    for i in range(len(games.won)):
        played = [t for t, step in enumerate(steps) if bool(step.playing[i])]
        episodes.append(
            {
                "answer": i,
                "observations": np.stack([observations[t][i] for t in [*played, played[-1] + 1]]),
                "actions": np.array([int(steps[t].actions[i]) for t in played], dtype=np.int64),
                "rewards": np.array([float(steps[t].rewards[i]) for t in played], dtype=np.float64),
                "terminations": np.array([bool(steps[t].terminations[i]) for t in played]),
            }
        )
    return episodes


def dataset_path(dataset_id: str) -> str:
    """Where Minari keeps the dataset ``dataset_id`` (``MINARI_DATASETS_PATH``, else
    ``~/.minari/datasets``)."""
    from minari.storage import get_dataset_path

    return str(get_dataset_path(dataset_id))


def write_dataset(
    dataset_id: str,
    agent: Any,
    config: WordleConfig | None = None,
    *,
    options: dict | None = None,
    epsilon: float = 0.0,
    seed: int = 0,
    device: str = "cpu",
    **game: Any,
) -> Any:
    """Play every answer with ``agent`` (an installed agent's name, with ``options``, or a harness
    policy) and write the episodes as Minari dataset ``dataset_id``; returns it, loaded. ``config``
    or ``game`` keywords set the game (the real one by default)."""
    minari, episode_buffer = _minari()
    check_dataset_id(dataset_id)
    from minari.storage.datasets_root_dir import get_dataset_path

    if get_dataset_path(dataset_id).exists():
        raise ValueError(
            f"a Minari dataset {dataset_id!r} exists already; choose another id (or version)"
        )
    config = WordleConfig.build(config, **game)
    if isinstance(agent, str):
        policy = make_agent(agent, options or {}, device=device)
    else:
        policy, agent = agent, getattr(agent, "name", type(agent).__name__)
    episodes = play_episodes(policy, config, epsilon=epsilon, seed=seed, device=device)
    fields = {
        f: getattr(config, f)
        for f in (
            "answers",
            "allowed",
            "max_guesses",
            "hard_mode",
            "reward",
            "observation",
            "action_mask",
            "obs_dtype",
            "mask_dtype",
        )
    }
    # the fields make the env whatever the id's defaults (no "out of date")
    env = gym.make("Wordle-v1", **fields)
    buffers = [
        episode_buffer(
            id=k,
            seed=seed,
            options={"answer": e["answer"]},
            observations=list(e["observations"]),
            actions=list(e["actions"]),
            rewards=list(e["rewards"]),
            terminations=list(e["terminations"]),
            truncations=[False] * len(e["actions"]),
        )
        for k, e in enumerate(episodes)
    ]
    label = f"{agent}{' ' + str(options) if options else ''}" + (
        f", epsilon {epsilon}" if epsilon else ""
    )
    answers = (
        config.answers
        if isinstance(config.answers, str)
        else f"custom ({config.vocabulary.num_answers} words)"
    )
    mode = "hard" if config.hard_mode else "normal"
    description = f"Every answer once: {label}; answers {answers}, {mode} mode."
    from importlib.metadata import version

    try:
        with warnings.catch_warnings():
            # Minari recommends a contact address; the package publishes none, and says so in no
            # warning.
            warnings.filterwarnings(
                "ignore", message="`author_email` is set to None", category=UserWarning
            )
            return minari.create_dataset_from_buffers(
                dataset_id,
                buffers,
                env=env,
                eval_env=env,
                algorithm_name=label,
                author="wordle-gym",
                description=description,
                # the versioned code that wrote it
                code_permalink=f"wordle_gym {version('wordle-gym')}",
            )
    # Ctrl-C or a failure half-way: no partial dataset stays behind to claim the id
    except BaseException:
        shutil.rmtree(get_dataset_path(dataset_id), ignore_errors=True)
        raise


DATASET_ID = re.compile(r"(?:[A-Za-z0-9_][-\w]*/)*[A-Za-z0-9_][-\w]*-v[0-9]+")
"""Minari's ``(namespace/)name-vN``, a version required, each part a plain name (no ``..``, no
absolute path)."""


def check_dataset_id(dataset_id: str) -> None:
    """Refuse, before any game is played, an id Minari cannot keep or that would leave its datasets
    folder."""
    if not isinstance(dataset_id, str) or not DATASET_ID.fullmatch(dataset_id):
        raise ValueError(
            f"dataset id {dataset_id!r} is not of the form NAMESPACE/NAME-vN (letters, digits, _ "
            "and -, a version; e.g. wordle/optimal-v0)"
        )
