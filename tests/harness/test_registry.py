"""Agents as entry-point plugins, the package layout, and what ``import wordle_gym`` loads."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers.processes import ROOT, fake_distribution, run, wordle_gym_here
from wordle_gym.harness.registry import (
    AgentError,
    accepted_options,
    agent_names,
    bench_runs,
    load_factory,
    make_agent,
)

SMALL = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade", "naval", "serve"]

THIRD_PARTY = '''
class Oracle:
    """Peeks at the answer: wins every game in one guess (a no-argument constructor)."""

    def act(self, observations, action_masks, env):
        return env.game.answer_actions[env.state.answers]


class Slow:
    def __init__(self, wait: int = 0):
        self.wait = wait

    def act(self, observations, action_masks, env):
        late = env.state.turn >= self.wait
        first_allowed = action_masks.float().argmax(1)
        return env.game.answer_actions[env.state.answers].where(late, first_allowed)


def make_slow(wait: int = 0, device: str = "cpu"):
    return Slow(wait)


make_slow.bench_runs = lambda: []
'''


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A third-party distribution installed for this test (its folder on the import path, as an
    install puts it): agents ``oracle``, ``slow-oracle`` and ``broken``; returns a file of 10
    words."""
    fake_distribution(
        tmp_path,
        {
            "oracle": "fake_agents:Oracle",
            "slow-oracle": "fake_agents:make_slow",
            "broken": "fake_agents_missing_module:Agent",
        },
        THIRD_PARTY,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    words = tmp_path / "words.txt"
    words.write_text("\n".join(SMALL) + "\n")
    return words


def test_registry__own_agents_are_entry_points() -> None:
    assert {"max-entropy", "random", "a2c", "dqn", "sb3"} <= set(agent_names())
    assert accepted_options(load_factory("random")) == {"seed"}
    solver = make_agent("max-entropy", {"score": "minimax", "opener": "salet"}, device="cpu")
    assert solver.score == "minimax" and solver.opener == "salet"
    runs = bench_runs("max-entropy")
    labels = [run.label for run in runs]
    assert labels[0] == "max-entropy (entropy, SALET)" and len(labels) == 11
    assert (
        labels[1] == "max-entropy (entropy, SALET), today's game"
        and runs[1].env["answers"] == "answers_today"
    )
    assert sorted(run.env.get("boards", 1) for run in runs) == [1] * 6 + [2, 4, 8, 16, 32]
    assert load_factory("dqn-explored").description.startswith(
        "the dqn network improved by its own rollouts"
    )


def test_registry__refuses_options_an_agent_does_not_take() -> None:
    with pytest.raises(
        AgentError,
        match=r"agent 'random' does not take option\(s\) \['opener'\]; "
        r"it takes: seed",
    ):
        make_agent("random", {"opener": "salet"})
    with pytest.raises(AgentError, match="unknown agent 'nope'; installed agents: "):
        make_agent("nope")


def test_registry__trained_agents_default_to_shipped_weights() -> None:
    agent = make_agent("a2c", device="cpu")
    assert agent.checkpoint is not None and Path(agent.checkpoint.path).name.startswith("a2c")
    assert Path(agent.checkpoint.path).parent == ROOT / "agents" / "checkpoints"


def test_third_party_agent__evaluated_through_the_cli(third_party: Path) -> None:
    lists = ["--answers", str(third_party), "--allowed", str(third_party), "--device", "cpu"]
    out = wordle_gym_here("eval", "--agent", "oracle", *lists)
    assert out.returncode == 0, out.stderr
    assert "10/10 won (100.00 %), mean 1.0000 guesses" in out.stdout
    # Options reach a factory through its signature; -o carries ones the CLI has no flag for.
    out = wordle_gym_here("eval", "--agent", "slow-oracle", "-o", "wait=2", *lists)
    assert out.returncode == 0, out.stderr
    # Two turns of word 0 (AWAKE, which wins its own game at once), then the answer: (1 + 9 x 3)
    # / 10.
    assert "10/10 won (100.00 %), mean 2.8000 guesses" in out.stdout
    out = wordle_gym_here("eval", "--agent", "oracle", "--opener", "salet", *lists)
    assert out.returncode == 2
    assert "agent 'oracle' does not take option(s) ['opener']; it takes: no options" in out.stderr


def test_broken_agent__one_line_error_and_the_others_still_work(third_party: Path) -> None:
    out = wordle_gym_here("eval", "--agent", "broken", "--device", "cpu")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert (
        "agent 'broken' (entry point 'fake_agents_missing_module:Agent') failed to load"
    ) in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    listing = wordle_gym_here("agents")
    assert listing.returncode == 0, listing.stderr
    assert (
        "broken" in listing.stdout
        and "unavailable" in listing.stdout
        and "max-entropy" in listing.stdout
    )
    import gymnasium as gym

    gym.make("Wordle-v1").reset(seed=0)  # the env does not care


def test_bench__runs_a_third_party_agent(third_party: Path, tmp_path: Path) -> None:
    out = wordle_gym_here(
        "bench", "--only", "oracle", "--out", str(tmp_path / "out"), "--device", "cpu"
    )
    assert out.returncode == 0, out.stderr
    assert "| oracle |" in out.stdout and "skipped: agent 'broken'" in out.stdout
    assert (tmp_path / "out" / "benchmarks" / "results" / "agents" / "oracle.json").is_file()


def test_import_wordle_gym__loads_no_agent_code_and_sb3_only_when_asked() -> None:
    """``import wordle_gym``, the envs, the harness and the command load no agent code and no SB3;
    the SB3 adapter without SB3 names the extra to install (one fresh process for both)."""
    code = textwrap.dedent("""
        import sys, gymnasium as gym, wordle_gym
        gym.make("Wordle-v1").reset(seed=0)
        gym.make_vec("Wordle-v1", num_envs=2, device="cpu").reset(seed=0)
        import wordle_gym.harness.evaluation, wordle_gym.cli.commands, wordle_gym.cli.bench
        agents = ("wordle_agents", "stable_baselines3", "sb3_contrib")
        print(sorted(m for m in sys.modules if m.split(".")[0] in agents))
        sys.modules["stable_baselines3"] = None
        try:
            import wordle_gym.integrations.sb3
        except Exception as exc:
            print(type(exc).__name__, exc)
    """)
    out = run(["-c", code], {**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    loaded, refused = out.stdout.strip().splitlines()
    assert loaded == "[]"
    assert refused.startswith("DependencyNotInstalled") and "pip install '.[sb3]'" in refused


@pytest.mark.slow
def test_packaging__installs_wordle_agents_and_no_top_level_agents(tmp_path: Path) -> None:
    wheels, site, source = tmp_path / "wheels", tmp_path / "site", tmp_path / "source"
    skip = shutil.ignore_patterns(
        ".git", "build", "runs", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"
    )
    # setuptools writes build/ beside the sources: not in the checkout
    shutil.copytree(ROOT, source, ignore=skip)
    build = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        str(wheels),
    ]
    build.append(str(source))
    subprocess.run(build, check=True, capture_output=True, timeout=300, cwd=tmp_path)
    wheel = next(wheels.glob("wordle_gym-*.whl"))
    install = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-deps",
        "-q",
        "--target",
        str(site),
        str(wheel),
    ]
    subprocess.run(install, check=True, capture_output=True, timeout=300)
    assert not (site / "agents").exists() and (site / "wordle_agents" / "checkpoints").is_dir()
    assert (site / "wordle_gym" / "data" / "SOURCES.md").is_file()
    shipped = {p.name for p in (ROOT / "agents" / "checkpoints").iterdir() if p.is_file()}
    # every shipped file; the exact solver's data beside the word lists
    assert {p.name for p in (site / "wordle_agents" / "checkpoints").iterdir()} == shipped
    from wordle_gym.solver import DATA

    data = {p.name for p in (site / "wordle_gym" / "data" / "solver").iterdir()}
    assert data == set(DATA) | {"README.md"}
    recipes = {p.name for p in (ROOT / "agents" / "recipes").glob("*.toml")}
    assert {p.name for p in (site / "wordle_agents" / "recipes").iterdir()} == recipes
    # the name verifiers imports by id
    assert (site / "wordle_gym_verifiers" / "__init__.py").is_file()
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = run(["-c", "import agents"], env, cwd=tmp_path)
    assert out.returncode == 1 and "No module named 'agents'" in out.stderr
    code = (
        f"import wordle_agents.rl.a2c as m, wordle_gym; print(m.__file__.startswith({str(site)!r}))"
    )
    out = run(["-c", code], env, cwd=tmp_path)
    assert out.stdout.strip() == "True", out.stderr
    points = next(site.glob("wordle_gym-*.dist-info")) / "entry_points.txt"
    assert (
        "[wordle_gym.agents]" in points.read_text()
        and "a2c = wordle_agents.zoo:a2c" in points.read_text()
    )
    code = "from wordle_agents.commands.recipe import load_recipe\n"
    code += "print([s.ships for s in load_recipe('dqn-explored').stages])"
    out = run(["-c", code], env, cwd=tmp_path)  # the recipes are read from the installed package
    from wordle_agents.commands.recipe import load_recipe

    ships = [s.ships for s in load_recipe("dqn-explored").stages]
    assert out.stdout.strip() == str(ships) and "dqn_explored.pt" in ships, out.stderr
    # The main job from the wheel, in a folder of the user's: everything goes into
    # wordle-gym-bench/, the user's own BENCHMARKS.md is untouched, and no optimal tree is solved
    # (the agents' openers' trees ship).
    user = tmp_path / "user"
    user.mkdir()
    (user / "BENCHMARKS.md").write_text("my notes\n")
    bench = [
        "-m",
        "wordle_gym",
        "bench",
        "--device",
        "cpu",
        "--only",
        "optimal (SALET)",
        "--only",
        "a2c_full.pt",
    ]
    # every row: tests/cli; here the files they read from the wheel
    out = run(bench, env, cwd=user, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    assert sorted(p.name for p in user.iterdir()) == ["BENCHMARKS.md", "wordle-gym-bench"]
    assert (user / "BENCHMARKS.md").read_text() == "my notes\n"
    table = (user / "wordle-gym-bench" / "BENCHMARKS.md").read_text()
    assert (
        "| optimal (SALET) | 2315 x 12972 | 100.00 | 3.4212 |" in table
        and "A2C `a2c_full.pt`" in table
    )
    assert "optimal tree from" not in out.stderr + out.stdout


@pytest.mark.slow
def test_packaging__the_sdist_builds_and_tests_from_itself(tmp_path: Path) -> None:
    """Issue 75: the sdist held 3 test files and no docs/ or BENCHMARKS.md although its README links
    them. It is the whole project: it builds a wheel, and its own tests run from it."""
    import tarfile

    source = tmp_path / "source"
    skip = shutil.ignore_patterns(
        ".git", "build", "runs", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"
    )
    shutil.copytree(ROOT, source, ignore=skip)
    built = [
        sys.executable,
        "-m",
        "build",
        "--sdist",
        "--no-isolation",
        "-o",
        str(tmp_path / "dist"),
        str(source),
    ]
    out = subprocess.run(built, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert (
        "would be ignored" not in out.stdout + out.stderr
        and "no previously-included" not in out.stderr
    )
    (sdist,) = (tmp_path / "dist").glob("wordle_gym-*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (tree,) = (tmp_path / "unpacked").iterdir()
    for linked in (
        "BENCHMARKS.md",
        "docs/guides/replies.md",
        "tests/conftest.py",
        "agents/checkpoints/training",
    ):
        assert (tree / linked).exists(), linked
    assert not list(tree.rglob("*.pyc"))
    wheel = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        str(tmp_path),
    ]
    assert subprocess.run([*wheel, str(tree)], capture_output=True, timeout=600).returncode == 0
    tests = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "tests/test_layout.py"]
    tests.append("tests/envs/test_replies.py")
    out = run(tests, {**os.environ, "PYTHONPATH": str(tree)}, cwd=tree, timeout=600)
    assert out.returncode == 0 and " passed" in out.stdout, out.stdout[-2000:] + out.stderr[-2000:]
