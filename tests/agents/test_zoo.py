"""The table of shipped agents: every agent is a row, every shipped file is played by a row that
names it, and the entry points are exactly the table."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from tests.helpers.processes import ROOT
from wordle_agents.common.checkpoint import read_checkpoint, shipped_dir
from wordle_agents.zoo import AGENTS, TAUGHT
from wordle_gym.harness.registry import accepted_options, load_factory


def test_zoo__the_entry_points_are_the_table() -> None:
    points = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][
        "wordle_gym.agents"
    ]
    assert set(points) == set(AGENTS)
    for name, value in points.items():
        assert load_factory(name) is AGENTS[name], f"{name}: {value}"


def test_zoo__every_named_file_ships_and_every_shipped_file_is_named() -> None:
    named = {file for agent in AGENTS.values() for file in agent.weights}
    shipped = {
        p.relative_to(shipped_dir()).as_posix()
        for p in shipped_dir().rglob("*")
        # a merge into a shipped table leaves its lock beside it (not package data; gitignored)
        if p.is_file() and not p.name.endswith((".lock", ".lock.pid"))
    }
    assert named == shipped - {"README.md"}
    for agent in AGENTS.values():
        for run in agent.rows:
            checkpoint = run.options.get("checkpoint")
            assert (
                checkpoint is None
                or Path(checkpoint).relative_to(shipped_dir()).as_posix() in agent.weights
            )


@pytest.mark.parametrize("name", ["a2c", "a2c-improved", "dqn", "dqn-improved", "dqn-explored"])
def test_zoo__a_network_agent_plays_its_first_weights_by_default(name: str) -> None:
    agent = AGENTS[name]
    policy = agent(device="cpu")
    assert Path(policy.checkpoint.path) == shipped_dir() / agent.weights[0]
    assert accepted_options(agent) == {"checkpoint", "device"}  # the registry reads build's options


def test_zoo__descriptions_read_their_figures_from_the_shipped_weights(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 63: the descriptions held 16 figures that BENCHMARKS.md also held; now they say what
    the agent is and how it learned, and the figures are the ones each shipped checkpoint
    recorded."""
    import re

    import wordle_agents.zoo as zoo

    for agent in AGENTS.values():
        # no figure written by hand
        assert not re.search(r"\d %|\d\.\d{3}", agent.about), agent.name
    recorded = read_checkpoint(shipped_dir() / "dqn_explored.pt", None)["figures"]
    hard = read_checkpoint(shipped_dir() / "dqn_explored_hard.pt", None)["figures"]
    want = f"{100 * recorded['win_rate']:.2f} % / {recorded['mean_guesses']:.4f}, hard mode "
    assert AGENTS["dqn-explored"].description.endswith(
        want + f"{100 * hard['win_rate']:.2f} % / {hard['mean_guesses']:.4f}"
    )
    # no network, no recorded figures
    assert AGENTS["optimal"].description == AGENTS["optimal"].about
    fake = {"figures": {"win_rate": 0.5, "mean_guesses": 4.25}}
    monkeypatch.setattr(zoo, "read_checkpoint", lambda path, kind: fake)
    assert AGENTS["dqn"].description == AGENTS["dqn"].about + ": 50.00 % / 4.2500"
    several = {"validation_games": 1000, "boards2_win_rate": 0.953, "boards2_mean_guesses": 5.255}
    monkeypatch.setattr(
        zoo, "read_checkpoint", lambda path, kind: {"figures": {**several, "boards4_win_rate": 0.5}}
    )
    # Quordle's mean is missing: not said
    want = ": Dordle 95.30 % / 5.2550 (its 1000 validation games each)"
    assert AGENTS["dqn-boards"].description == AGENTS["dqn-boards"].about + want


def test_zoo__dqn_boards_is_a_network_that_sees_every_board_with_its_provenance() -> None:
    from wordle_agents.rl.networks import AllBoardsNetwork

    policy = AGENTS["dqn-boards"](device="cpu")
    assert (
        isinstance(policy, AllBoardsNetwork)
        and Path(policy.checkpoint.path) == shipped_dir() / "dqn_boards.pt"
    )
    assert "a network that sees every board" in policy.provenance["learned_from"]
    assert accepted_options(AGENTS["dqn-boards"]) == {"checkpoint", "device"}


def test_zoo__rows_and_descriptions() -> None:
    for agent in AGENTS.values():
        assert agent.description and "\n" not in agent.description
        assert agent.bench_runs() == list(agent.rows)
    labels = [run.label for agent in AGENTS.values() for run in agent.rows]
    assert len(labels) == len(set(labels))  # one result file per row
    taught = [run.label for run in AGENTS["a2c-taught"].rows]
    assert taught[:2] == [
        "A2C `a2c_taught.pt` (stage full)",
        "A2C `a2c_taught_hard.pt` (stage full)",
    ]
    assert all(run.section == TAUGHT for run in AGENTS["a2c-taught"].rows[:2])
    # issue 78: every shipped one-board agent also has a row on today's game (bench tables it apart)
    today = [
        name
        for name, agent in AGENTS.items()
        if any(run.env.get("answers") == "answers_today" for run in agent.rows)
    ]
    assert today == [
        "optimal",
        "max-entropy",
        "a2c",
        "a2c-improved",
        "a2c-taught",
        "dqn",
        "dqn-improved",
        "dqn-today",
        "dqn-explored",
    ]
    assert not any(
        run.section for name in ("a2c", "dqn", "dqn-explored") for run in AGENTS[name].rows
    )


@pytest.mark.parametrize(
    ("name", "normal", "hard"),
    [
        ("a2c-taught", "a2c_taught.pt", "a2c_taught_hard.pt"),
        ("dqn-explored", "dqn_explored.pt", "dqn_explored_hard.pt"),
    ],
)
def test_zoo__an_agent_with_hard_mode_weights_plays_them_in_hard_mode_only(
    name: str, normal: str, hard: str
) -> None:
    """Its hard-mode network plays every hard-mode game and its other network every other game (it
    played the normal weights in hard mode before, 96.67 % wins for dqn-explored against 100 % for
    its hard weights)."""
    import gymnasium as gym
    import torch

    from wordle_agents.rl.networks import load_network

    policy = AGENTS[name](device="cpu")
    assert (
        Path(policy.normal.checkpoint.path).name == normal
        and not policy.normal.checkpoint.hard_mode
    )
    assert Path(policy.hard.checkpoint.path).name == hard and policy.hard.checkpoint.hard_mode
    for hard_mode, weights in ((True, hard), (False, normal)):
        alone = load_network(shipped_dir() / weights)
        env = gym.make_vec("Wordle-v0", num_envs=8, device="cpu", hard_mode=hard_mode).unwrapped
        obs, info = env.reset(seed=3)
        for _ in range(3):
            action = policy.act(obs, info["action_mask"], env)
            assert torch.equal(action, alone.act(obs, info["action_mask"], env)), (name, hard_mode)
            obs, _, _, _, info = env.step(action)
    assert (
        AGENTS[name](checkpoint=str(shipped_dir() / normal)).hard.checkpoint.path
        == policy.normal.checkpoint.path
    )
