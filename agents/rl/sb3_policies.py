"""Stable-Baselines3 / sb3-contrib models as harness policies (the ``sb3`` agent).

Needs the ``sb3`` extra (``pip install '.[sb3]'``). The env side of SB3 (a
``VecEnv`` over the torch vector env) is :mod:`wordle_gym.integrations.sb3`.
"""

from __future__ import annotations

import collections
import inspect
import io
import json
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from gymnasium.error import DependencyNotInstalled

from wordle_agents.common.checkpoint import CheckpointInfo, shipped_dir
from wordle_gym.core.words import stage_words
from wordle_gym.harness.evaluation import bool_mask, evaluate, word_actions
from wordle_gym.utils.files import atomic_write

ALGORITHMS = ("ppo", "dqn", "maskable_ppo")
# Where each algorithm's MlpPolicy class lives, and its name (as recorded, readable, in the zip's
# "data").
POLICIES = {
    "maskable_ppo": ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"),
    "ppo": ("stable_baselines3.common.policies", "ActorCriticPolicy"),
    "dqn": ("stable_baselines3.dqn.policies", "DQNPolicy"),
}
METADATA = "wordle_gym.json"  # what this project adds to the zips it writes: the lists trained on


def _constant(value: float) -> Any:
    return lambda _progress: value


class SB3Policy:
    """Any Stable-Baselines3 / sb3-contrib model as a harness policy (greedy actions).

    Models with action-mask support (sb3-contrib ``MaskablePPO``) get the env's masks, and the mask
    they were trained with (``trained_mask``, recorded in the zips this project writes) where the
    env's is wider: a model trained among the candidates still plays among them in an env whose mask
    is "all". Others get no mask, and may pick a masked word (the env decides what that means, e.g.
    refusal in hard mode).
    """

    def __init__(
        self,
        model: Any,
        name: str | None = None,
        checkpoint: CheckpointInfo | None = None,
        trained_mask: str | None = None,
    ) -> None:
        self.model = model
        self.name = name or f"SB3 {type(model).__name__}"
        self.masked = "action_masks" in inspect.signature(model.predict).parameters
        self.checkpoint = checkpoint
        """The zip the model came from, with the lists it was trained on when the zip records
        them."""
        if trained_mask not in (None, "all", "hard", "candidates"):
            raise ValueError(
                f"unknown action mask {trained_mask!r}; expected all, hard or candidates"
            )
        self.trained_mask = trained_mask
        """The env's action mask when the model was trained (None: not recorded)."""

    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        """Greedy actions. A model that records its words (zips this project writes) plays any env
        whose allowed guesses include them: its action i is mapped to that word's index in the
        env."""
        words = self._action_words(env)
        mask = bool_mask(action_masks)
        wider = (
            self.masked
            and self.trained_mask in ("candidates", "hard")
            and env.game.mask_mode != self.trained_mask
        )
        # the answers the feedback allows, as actions
        if wider and self.trained_mask == "candidates":
            allowed = torch.zeros_like(mask).index_copy_(
                1, env.game.answer_actions, env.game.consistent(env.state)
            )
            mask = mask & allowed
        elif wider:  # hard mode's words, where the env's mask is not already its
            mask = mask & env.game.hard_mask(env.state)
        if words is not None:
            mask = mask[:, words]  # the env's mask, read in the model's action order
        kwargs = {"action_masks": mask.cpu().numpy()} if self.masked else {}
        actions, _ = self.model.predict(observations.cpu().numpy(), deterministic=True, **kwargs)
        actions = np.asarray(actions)
        if not np.issubdtype(actions.dtype, np.integer):
            raise TypeError(
                f"the model predicted {actions.dtype} actions; expected integer word indices"
            )
        chosen = torch.as_tensor(actions, dtype=torch.int64, device=env.device)
        return chosen if words is None else words[chosen]

    def _action_words(self, env: Any) -> torch.Tensor | None:
        """The env index of each model action (None when they are the same, or the model records no
        words)."""
        info = self.checkpoint
        if info is None or info.answers is None:
            size = getattr(self.model.action_space, "n", None)
            if size is not None and int(size) != len(env.words):
                raise ValueError(
                    f"the model has {int(size)} actions but the env has "
                    f"{len(env.words)} allowed words"
                )
            return None
        trained = tuple(info.guesses)
        if trained == tuple(env.words):
            return None
        hint = "; evaluate it on the lists it records or lists that include its words"
        return word_actions(env, trained, Path(info.path).name, hint)

    @classmethod
    def load(cls, path: str | Path, algorithm: str | None = None, device: str = "cpu") -> SB3Policy:
        """Load a saved model without unpickling anything the file holds.

        SB3 stores some entries of a zip's ``data`` as cloudpickle; loading them would run code
        from the file. Every such entry is replaced here (SB3's ``custom_objects``): the policy by
        the algorithm's own MlpPolicy, the spaces rebuilt from their readable fields, schedules by
        constants (only training uses them). A zip whose pickled entries cannot be replaced so
        (custom policies, pickled ``policy_kwargs``) is refused. Weights are read by SB3 with
        ``torch.load(weights_only=True)``. ``algorithm`` (ppo, dqn, maskable_ppo) is read from the
        file when None, and must match it when given.
        """
        try:
            from sb3_contrib import MaskablePPO
            from stable_baselines3 import DQN, PPO
        except ImportError as exc:
            raise DependencyNotInstalled(
                f"{exc}. The sb3 agent needs: pip install '.[sb3]'"
            ) from exc

        classes = {"ppo": PPO, "dqn": DQN, "maskable_ppo": MaskablePPO}
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"model {str(path)!r} does not exist")
        if not path.is_file():  # a FIFO or a device: never opened
            raise ValueError(f"model {str(path)!r} is not a regular file (a saved model is one)")
        data, meta = _read_zip(path)
        saved = _saved_algorithm(path, data)
        if algorithm is not None and algorithm not in classes:
            raise ValueError(f"unknown SB3 algorithm {algorithm!r}; expected one of {ALGORITHMS}")
        if algorithm is not None and algorithm != saved:
            raise ValueError(
                f"{str(path)!r} holds a {saved} model; --sb3-algo {algorithm} does not match it"
            )
        algo = classes[saved]
        custom = _replacements(path, data, algo)
        try:
            model = algo.load(str(path), device=device, custom_objects=custom)
        except Exception as exc:  # a damaged zip or weights raise many types
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise ValueError(
                f"{str(path)!r} could not be loaded as a {saved} model ({first})"
            ) from None
        for name, weight in model.policy.state_dict().items():
            if weight.is_floating_point() and not bool(torch.isfinite(weight).all()):
                raise ValueError(f"{str(path)!r}: {name!r} holds NaN or infinite weights")
        info = CheckpointInfo(
            path=str(path),
            kind="sb3",
            stage=meta.get("stage"),
            answers=meta.get("answers"),
            allowed=meta.get("allowed"),
        )
        mask = meta.get("action_mask")
        if mask not in (None, "all", "hard", "candidates"):
            raise ValueError(f"{str(path)!r} records an unknown action mask {mask!r}")
        return cls(
            model,
            name=f"SB3 {type(model).__name__} ({path.name})",
            checkpoint=info,
            trained_mask=mask,
        )


def _read_zip(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The zip's ``data`` (JSON, read as text: nothing is unpickled) and this project's metadata."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
            names = archive.namelist()
            meta = json.loads(archive.read(METADATA)) if METADATA in names else {}
    except (zipfile.BadZipFile, KeyError, UnicodeDecodeError, json.JSONDecodeError, OSError) as exc:
        raise ValueError(f"{str(path)!r} is not a Stable-Baselines3 model file ({exc})") from None
    if not isinstance(data, dict) or not isinstance(meta, dict):
        raise ValueError(f"{str(path)!r} is not a Stable-Baselines3 model file")
    return data, meta


def _saved_algorithm(path: Path, data: dict[str, Any]) -> str:
    """Which algorithm saved a model zip, from the readable module and class of its policy."""
    policy = data.get("policy_class")
    module = str(policy.get("__module__", "")) if isinstance(policy, dict) else ""
    init = str(policy.get("__init__", "")) if isinstance(policy, dict) else ""
    for algorithm, (where, name) in POLICIES.items():
        if module == where and init.startswith(f"<function {name}.__init__"):
            return algorithm
    raise ValueError(
        f"{str(path)!r} holds a policy {module or '?'} that is not the MlpPolicy of PPO, DQN or "
        "MaskablePPO; only those can be loaded without running code from the file"
    )


def _space(path: Path, key: str, item: dict[str, Any]) -> Any:
    """A Box or Discrete rebuilt from the readable fields SB3 writes beside the pickle."""
    from gymnasium import spaces

    kind = str(item.get(":type:", ""))
    try:
        if kind.endswith("spaces.discrete.Discrete'>"):
            return spaces.Discrete(int(item["n"]), start=int(item.get("start", 0)))
        if kind.endswith("spaces.box.Box'>"):
            dtype = np.dtype(str(item["dtype"]))
            shape = tuple(int(n) for n in item["_shape"])
            if np.issubdtype(dtype, np.integer):
                return spaces.Box(
                    np.iinfo(dtype).min, np.iinfo(dtype).max, shape=shape, dtype=dtype
                )
            return spaces.Box(-np.inf, np.inf, shape=shape, dtype=dtype)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{str(path)!r}: unreadable {key} ({exc})") from None
    raise ValueError(
        f"{str(path)!r}: {key} is a {kind or '?'}; only Box and Discrete can be loaded safely"
    )


def _replacements(path: Path, data: dict[str, Any], algo: Any) -> dict[str, Any]:
    """A plain replacement for every pickled entry of ``data`` (SB3's ``custom_objects``)."""
    custom: dict[str, Any] = {"policy_class": algo.policy_aliases["MlpPolicy"]}
    if "buffer_size" in data:
        custom["buffer_size"] = 1  # inference only: no replay memory to allocate
    known: dict[str, Any] = {
        "lr_schedule": _constant(0.0),
        "clip_range": _constant(0.2),
        "exploration_schedule": _constant(0.0),
        "train_freq": 1,
        "rollout_buffer_class": None,
        "replay_buffer_class": None,
        # training state that prediction never reads
        "_last_obs": None,
        "_last_episode_starts": None,
        "_last_original_obs": None,
        "ep_info_buffer": None,
        "ep_success_buffer": None,
        "action_noise": None,
    }
    for key, item in data.items():
        if key in custom or not (isinstance(item, dict) and ":serialized:" in item):
            continue
        if key in ("observation_space", "action_space"):
            custom[key] = _space(path, key, item)
        elif key in known:
            custom[key] = known[key]
        else:
            raise ValueError(
                f"{str(path)!r} holds a pickled {key!r}, which could run code when loaded; "
                f"wordle-gym loads only models whose pickled entries it can rebuild"
            )
    return custom


def save_model(model: Any, path: str | Path, **meta: Any) -> None:
    """``model.save`` plus this project's metadata (the lists trained on), written atomically.

    The optimizer's moment estimates are left out (its state is saved empty): shipped models carry
    weights, not training state. The live model keeps its optimizer state."""
    optimizers = [o for o in (getattr(model.policy, "optimizer", None),) if o is not None]
    kept = [o.state for o in optimizers]
    buffer = io.BytesIO()
    try:
        for optimizer in optimizers:
            optimizer.state = collections.defaultdict(dict)
        model.save(buffer)
    finally:
        for optimizer, state in zip(optimizers, kept, strict=True):
            optimizer.state = state
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr(METADATA, json.dumps(meta))
    atomic_write(path, lambda handle: handle.write(buffer.getvalue()))


def load(
    checkpoint: str | None = None, algorithm: str | None = None, device: str = "cpu"
) -> SB3Policy:
    """The ``sb3`` agent entry point: a saved model zip (default: the one shipped with the
    package)."""
    if checkpoint is None:
        shipped = sorted(shipped_dir().glob("*.zip"))
        if not shipped:
            raise FileNotFoundError(
                "no SB3 model ships with wordle_agents; pass a model zip as the checkpoint"
            )
        checkpoint = str(shipped[-1])
    return SB3Policy.load(checkpoint, algorithm=algorithm, device=str(device))


@dataclass(frozen=True)
class SB3Run:
    """A Stable-Baselines3 training run on Wordle (the three ``examples/sb3_*.py`` scripts)."""

    stage: str = "100"
    """Words: N (the first N answers, also the only guesses) or full (the real game)."""
    timesteps: int = 200_000
    """Environment steps."""
    num_envs: int = 64
    """Games stepped together."""
    single: bool = False
    """gym.make single envs in a DummyVecEnv instead of the torch vector env."""
    mask: Literal["all", "hard", "candidates"] = "all"
    """The action mask."""
    device: str = "cpu"
    """Device of the model and of the vector env."""
    tensorboard: str | None = None
    """SB3's TensorBoard log folder."""
    save: str = "runs/sb3/model.zip"
    """Where to save the model."""
    seed: int = 0
    """Seed of the envs and the model."""

    def __post_init__(self) -> None:
        stage_words(self.stage)  # a ValueError names a bad stage
        if isinstance(self.timesteps, bool) or self.timesteps < 1 or self.num_envs < 1:
            raise ValueError(
                f"timesteps and num-envs must be >= 1; got {self.timesteps} and {self.num_envs}"
            )


def train_and_report(run: SB3Run, build: Any) -> Any:
    """Build the model (``build(env)``) on the run's env, learn with SB3's progress bar, save it
    (with the lists it was trained on, which eval plays by default) and print its greedy evaluation;
    returns the model."""
    import gymnasium as gym
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from wordle_gym.integrations.sb3 import make_sb3_vec_env

    answers, allowed = stage_words(run.stage)
    kwargs: dict[str, Any] = {"answers": answers, "allowed": allowed, "action_mask": run.mask}
    if run.single:
        env = DummyVecEnv([lambda: Monitor(gym.make("Wordle-v0", **kwargs))] * run.num_envs)
    else:
        env = make_sb3_vec_env(num_envs=run.num_envs, device=run.device, **kwargs)
    env.seed(run.seed)
    model = build(env)
    if not run.tensorboard:  # SB3's default logger makes an empty /tmp/SB3-<date> folder per run
        model.set_logger(Logger(folder=None, output_formats=[]))
    game = {
        "answers": answers,
        "allowed": allowed,
        "action_mask": run.mask,
        "device": "cpu",
        "progress": False,
    }
    # what the mask alone plays, beside what training added
    untrained = evaluate(SB3Policy(model), **game)
    start = time.perf_counter()
    model.learn(run.timesteps, progress_bar=True)
    seconds = time.perf_counter() - start
    save_model(
        model,
        run.save,
        stage=run.stage,
        answers=list(answers),
        allowed=allowed,
        action_mask=run.mask,
    )
    result = evaluate(SB3Policy(model), **game)
    # SB3 plays whole rollouts: at least one, even past --timesteps
    played = int(model.num_timesteps)
    more = f" (whole rollouts: asked {run.timesteps:,})" if played != run.timesteps else ""
    print(f"trained {played:,} steps{more} in {seconds:.1f} s; saved {run.save}")
    print(f"untrained, with mask {run.mask!r}: {untrained.summary()}")
    print(f"trained: {result.summary()}")
    return model
