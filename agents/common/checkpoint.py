"""Checkpoints of the trained agents: one format, written atomically, read without running code.

A checkpoint is a ``torch.save`` of a plain dict: ``kind`` ("a2c", "dqn", or "<kind>-run" for a run
folder's ``last.pt``), ``config`` (the agent's config dataclass as a dict), ``length`` (word
length), ``model`` (a state dict) and metadata (``stage``, ``answers``, ``allowed``, ``figures``,
``training_s``). A word list that is the built-in list of its name is stored as that name
(``"answers"``, ``"allowed"``): the real game's lists would take a few hundred KB of every file. It
is read with ``torch.load(weights_only=True)``, so a file from elsewhere can hold tensors and plain
data but never code; the config is validated (bounds included) before any network is built from it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any

from wordle_gym.core.words import load_word_list
from wordle_gym.utils.files import atomic_torch_save

RETIRED_FIELDS: dict[str, dict[str, tuple[Any, ...] | None]] = {
    "A2CConfig": {
        **dict.fromkeys(("gae_lambda", "info_gain", "entropy_coef", "clip_range"), (0.0,)),
        "temperature": (1.0,),
        **dict.fromkeys(("ppo_epochs", "minibatches"), None),
        "boards": (1,),
        "critic_warmup": (0,),
        "freeze_board": (False,),
    },
}
"""The checkpoint migrations, in one table: by config class, the fields earlier versions saved that
it no longer has, each with the values that meant "not used" (None: any). Such a field is dropped on
loading where it holds one of them; any other value means another trainer's network (an
experiment's), and is refused."""


def config_from_dict(cls: type, data: Any, source: str = "checkpoint") -> Any:
    """Rebuild a config dataclass saved with ``asdict``; unknown fields and bad values are errors. A
    field the class has retired (:data:`RETIRED_FIELDS`) and does not have is dropped when it holds
    a value that meant "not used", and refused when it holds another."""
    if not isinstance(data, dict):
        raise ValueError(
            f"{source}: config must be a dict of {cls.__name__} fields; got {type(data).__name__}"
        )
    names = {f.name for f in fields(cls)}
    retired = _retired(cls, data, names, source)
    data = {name: value for name, value in data.items() if name not in retired}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"{source}: unknown {cls.__name__} fields {unknown}")
    try:
        return cls(**data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{source}: invalid {cls.__name__}: {exc}") from None


def _retired(cls: type, data: dict, names: set[str], source: str) -> set[str]:
    """The fields of ``data`` that ``cls`` (or a base) has retired, each checked to hold a value
    that meant "not used" (another is a ValueError: an experiment's network)."""
    table = {
        k: v
        for base in reversed(cls.__mro__)
        for k, v in RETIRED_FIELDS.get(base.__name__, {}).items()
    }
    retired = {name: unused for name, unused in table.items() if name in data and name not in names}
    for name, unused in retired.items():
        value = data[name]
        if value is not None and unused is not None and value not in unused:
            raise ValueError(
                f"{source}: trained with {name}={value!r}, an option {cls.__name__} no longer has: "
                "another trainer's network (an experiment's); load it with the class that saved it"
            )
    return set(retired)


def read_checkpoint(path: str | Path, kind: str | None) -> dict[str, Any]:
    """``torch.load(weights_only=True)`` with clear errors for missing, corrupt or foreign files (a
    ``kind`` other than the one asked for, unless that is None)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(
            f"checkpoint {str(path)!r} is a folder; give the checkpoint file in it (a .pt)"
        )
    if not path.exists():
        raise FileNotFoundError(f"checkpoint {str(path)!r} does not exist")
    if not path.is_file():  # a FIFO or a device: never opened (a FIFO would wait for a writer)
        raise ValueError(f"checkpoint {str(path)!r} is not a regular file (a checkpoint is one)")
    # here: what only finds shipped files (the exact solver's command) runs without torch
    import torch

    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a damaged file
        raise ValueError(
            f"checkpoint {str(path)!r} is corrupt or not a wordle_gym checkpoint "
            f"({_why(path, exc)})"
        ) from None
    if not isinstance(data, dict) or (kind is not None and data.get("kind") != kind):
        found = data.get("kind") if isinstance(data, dict) else type(data).__name__
        expected = f"an {kind!r} checkpoint" if kind is not None else "a checkpoint dict"
        raise ValueError(f"checkpoint {str(path)!r} holds {found!r}, expected {expected}")
    return data


def _why(path: Path, exc: Exception) -> str:
    """Why torch could not read ``path``, in our words: never torch's advice to load it unsafely."""
    with open(path, "rb") as handle:
        head = handle.read(4)
    if head[:2] != b"PK":
        return "not a torch.save file" if head else "the file is empty"
    if "weights_only" in str(exc) or "Unpickl" in type(exc).__name__:
        return (
            "it holds objects that are not plain data; they are refused, since loading them "
            "could run code"
        )
    return "damaged or not written by torch.save"


def save_checkpoint(
    path: str | Path, kind: str, config: Any, length: int, model: dict, **meta: Any
) -> None:
    """Write an agent checkpoint atomically (see the module docstring for the format)."""
    atomic_torch_save(
        path, {"kind": kind, "config": asdict(config), "length": length, "model": model, **meta}
    )


def network_checkpoint(
    agent: Any, vocabulary: Any, hard_mode: bool, real: bool, **meta: Any
) -> dict[str, Any]:
    """The checkpoint dict of a network agent trained on ``vocabulary``'s lists (``real``: the real
    game's, stage "full"), with ``meta`` (figures, training time, provenance) added. The weights are
    a copy on the CPU (a file written on a GPU loads anywhere)."""
    return {
        "kind": agent.kind,
        "config": asdict(agent.config),
        "length": agent.length,
        "model": {k: v.detach().to("cpu", copy=True) for k, v in agent.net.state_dict().items()},
        "stage": "full" if real else "custom",
        "hard_mode": hard_mode,
        "answers": stored_list(vocabulary.answers, "answers"),
        "allowed": stored_list(vocabulary.allowed, "allowed"),
        **meta,
    }


def half_weights(data: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint dict whose floating-point weights are stored as float16 (half the file).

    Loading copies them into the float32 network, so nothing else changes; greedy play can differ
    only where two words' values were within float16 rounding of each other. A network that sees
    every board (no ``model``: a ``board`` checkpoint and a ``context``) has both halved."""

    def half(weights: dict[str, Any]) -> dict[str, Any]:
        return {k: v.half() if v.is_floating_point() else v for k, v in weights.items()}

    if (
        "model" not in data
        and isinstance(data.get("board"), dict)
        and isinstance(data.get("context"), dict)
    ):
        return {**data, "board": half_weights(data["board"]), "context": half(data["context"])}
    return {**data, "model": half(data["model"])}


@dataclass(frozen=True)
class CheckpointInfo:
    """Where a loaded agent's weights came from, and what they were trained on."""

    path: str
    kind: str
    stage: str | None = None
    """Curriculum stage ("100", "1000", "2315", "full"), if recorded."""
    answers: list[str] | None = None
    """Answers of the training stage (None: the default lists)."""
    allowed: list[str] | None = None
    """Guesses of the training stage (None: the answers, when ``answers`` is set)."""
    figures: dict[str, Any] | None = None
    """The best greedy evaluation during training (win_rate, mean_guesses, iteration)."""
    training_s: float | None = None
    teacher: str | None = None
    """What the agent imitated (None: it learned from the game's reward alone)."""
    machine: str | None = None
    """Where it trained (a GPU's name, or the CPU's cores and threads)."""
    curriculum: str | None = None
    """How it got there (its stages, or a note), if recorded."""
    hard_mode: bool = False
    """Trained for hard mode (evaluated in hard mode)."""
    method: str | None = None
    """How the weights were improved after their reward training, if they were
    (``"own-policy rollouts"``:
    :mod:`wordle_agents.methods.policy_iteration`), and with which reward (``method_reward``)."""
    method_reward: str | None = None

    @classmethod
    def of(cls, path: str | Path, data: dict[str, Any]) -> CheckpointInfo:
        """The metadata of a checkpoint dict; its word lists are checked (a crafted file's lists
        could otherwise make every later evaluation build a table of ``answers x allowed``
        feedback)."""
        answers, allowed = (_word_list(data.get(key), key, path) for key in ("answers", "allowed"))
        if len(answers or ()) * len(allowed or answers or ()) > MAX_LIST_PAIRS:
            raise ValueError(
                f"checkpoint {str(path)!r}: its word lists ({len(answers or ())} answers x "
                f"{len(allowed or answers or ())} guesses) exceed {MAX_LIST_PAIRS:,} pairs"
            )
        text = {k: str(data[k]) if data.get(k) is not None else None for k in TEXT_FIELDS}
        return cls(
            path=str(path),
            kind=str(data.get("kind")),
            stage=data.get("stage"),
            answers=answers,
            allowed=allowed,
            figures=data.get("figures"),
            training_s=data.get("training_s"),
            hard_mode=data.get("hard_mode") is True,
            **text,
        )

    @property
    def guesses(self) -> list[str] | None:
        """The guesses of the training stage (its answers when ``allowed`` is None); None if not
        recorded."""
        return self.allowed if self.allowed is not None else self.answers

    @property
    def lists(self) -> dict[str, Any]:
        """``answers=`` / ``allowed=`` keywords for the lists the weights were trained on."""
        if self.answers is None:
            return {"answers": "answers", "allowed": "allowed"}
        return {"answers": self.answers, "allowed": self.allowed}


TEXT_FIELDS = ("teacher", "machine", "curriculum", "method", "method_reward")
"""The checkpoint's metadata read as text (None where absent)."""

MAX_LIST_PAIRS = 10 * 2315 * 12972
"""Bound on answers x guesses of the word lists a checkpoint records (ten times the real game)."""


def stored_list(words: Any, name: str) -> list[str] | str | None:
    """A word list as a checkpoint stores it: ``name`` when the words are the built-in list of that
    name (``"answers"`` or ``"allowed"``), else the words (None stays None)."""
    if words is None:
        return None
    words = list(words)
    return name if words == load_word_list(name) else words


def _word_list(words: Any, key: str, path: str | Path) -> list[str] | None:
    if words is None:
        return None
    if words == key:  # the built-in list of that name (stored_list)
        return load_word_list(key)
    if not isinstance(words, list | tuple) or not all(isinstance(w, str) for w in words):
        raise ValueError(
            f"checkpoint {str(path)!r}: {key!r} must be a list of words; got {type(words).__name__}"
        )
    return list(words)


def shipped_dir() -> Path:
    """The folder of weights that ship with the package (works from a wheel or a checkout)."""
    return Path(str(resources.files("wordle_agents").joinpath("checkpoints")))
