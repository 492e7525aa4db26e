"""``wordle-gym dataset``: every answer played by an agent, written as a Minari dataset."""

from __future__ import annotations

from dataclasses import dataclass, field

from wordle_gym.cli.shared import (
    AgentChoice,
    Lists,
    _game_config,
    _policy,
    _probability,
)
from wordle_gym.utils.commandline import (
    integer,
)


def cmd_dataset(args: DatasetOptions) -> int:
    from wordle_gym.integrations.minari import dataset_path, write_dataset

    policy, answers, allowed = _policy(args)
    config = _game_config(args, answers, allowed)
    dataset = write_dataset(
        args.id, policy, config, epsilon=args.epsilon, seed=args.seed or 0, device=args.device
    )
    print(
        f"wrote Minari dataset {args.id}: {dataset.total_episodes} episodes, {dataset.total_steps} "
        "steps, in "
        f"{dataset_path(args.id)} (minari.load_dataset({args.id!r}); MINARI_DATASETS_PATH moves it)"
    )
    return 0


@dataclass(kw_only=True)
class DatasetOptions(AgentChoice, Lists):
    command = "dataset"
    lists_from_agent = True
    id: str
    """The dataset's id, e.g. wordle/optimal-v0 (Minari's NAMESPACE/NAME-vN)."""
    epsilon: float = field(default=0.0, metadata={"parse": _probability})
    """Chance of a random allowed guess instead of the agent's."""
    checkpoint: str | None = field(default=None, metadata={"metavar": "PATH"})
    """Weights of a trained agent."""
    device: str = "cpu"
    """cpu, cuda or auto."""
    seed: int | None = field(default=None, metadata={"parse": integer(0)})
    """Seed of the noise (and of the random agent; default 0)."""
