"""Every Python block of the README and of the documentation runs as written and on its own: each
block in a fresh namespace of a process in which nothing of wordle_gym is imported or registered
before it (a block that forgets an import fails here as it would for a reader who pastes it alone),
one process per page, in the slow suite (CI runs it). RLlib's blocks (fenced ``python rllib``) run
in CI's RLlib venv, ``tests/integrations/test_rllib.py``, and verifiers' (``python verifiers``) in
its own venv, ``tests/integrations/test_verifiers.py``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.processes import ROOT

RUNNER = """
import json, sys, gymnasium as gym
blocks = json.load(open(sys.argv[1]))
for number, code in enumerate(blocks, start=1):
    for name in [m for m in sys.modules if m.split(".")[0] in ("wordle_gym", "wordle_agents")]:
        del sys.modules[name]  # each block imports what it uses
    ours = [i for i, spec in gym.registry.items() if str(spec.entry_point).startswith("wordle_gym")]
    for env_id in ours:
        del gym.registry[env_id]
    print(f"--- block {number}", flush=True)
    exec(compile(code, f"<block {number}>", "exec"), {"__name__": "__main__"})
"""
# written from the code and BENCHMARKS.md when the docs are built (not kept)
GENERATED = {"agents", "_build"}
PAGES = sorted(
    p
    for p in (ROOT / "docs").rglob("*.md")
    if not GENERATED & set(p.relative_to(ROOT / "docs").parts)
    and not (p.parent.name == "results" and p.name not in ("index.md", "weights.md"))
)


def blocks(page: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", page.read_text(), flags=re.S | re.M)


def run_blocks(page: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "blocks.json").write_text(json.dumps(blocks(page)))
    (tmp_path / "runner.py").write_text(RUNNER)
    env = {**os.environ, "TMPDIR": str(tmp_path), "MINARI_DATASETS_PATH": str(tmp_path / "minari")}
    return subprocess.run(
        [sys.executable, "runner.py", "blocks.json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.slow
def test_readme__each_python_block_runs_on_its_own(tmp_path: Path) -> None:
    assert len(blocks(ROOT / "README.md")) >= 3
    out = run_blocks(ROOT / "README.md", tmp_path)
    assert out.returncode == 0, out.stdout[-500:] + out.stderr[-3000:]
    assert "2315/2315 won (100.00 %), mean 3.4324" in out.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    "page", [p for p in PAGES if blocks(p)], ids=lambda p: str(p.relative_to(ROOT / "docs"))
)
def test_docs__each_python_block_runs_on_its_own(page: Path, tmp_path: Path) -> None:
    out = run_blocks(page, tmp_path)
    assert out.returncode == 0, out.stdout[-500:] + out.stderr[-3000:]


def test_docs__every_documented_env_id_makes_without_a_warning() -> None:
    """Regression (issue 41): the README's first example warned that Wordle-v0 was out of date. The
    ids the README and the docs make are the newest versions: making them warns about nothing."""
    import warnings

    import gymnasium as gym

    import wordle_gym  # noqa: F401

    texts = [(ROOT / "README.md").read_text(), *(p.read_text() for p in PAGES)]
    ids = {i for text in texts for i in re.findall(r"gym\.make(?:_vec)?\(\"([^\"]+)\"", text)}
    assert {"Wordle-v1"} <= ids
    for env_id in sorted(ids):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            gym.make(env_id).close()
            # the text env has none: it is a chat, not a batch
            if gym.spec(env_id).vector_entry_point:
                gym.make_vec(env_id, num_envs=2, device="cpu").close()


def test_docs__every_repository_path_a_module_names_exists() -> None:
    """Docstrings and comments point at files that exist (six pointed at test files that had
    moved)."""
    named = re.compile(
        r"\b(?:tests|benchmarks|wordle_gym|agents|research|examples|docs|deploy)/[\w/.-]+\.(?:py|md|toml)\b"
    )
    missing = []
    for folder in ("wordle_gym", "agents", "research", "benchmarks", "examples", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                missing += [
                    f"{path.relative_to(ROOT)}:{number} {m}"
                    for m in named.findall(line)
                    if not (ROOT / m).exists()
                ]
    assert not missing, missing


def test_docs__first_screens_show_something_to_use() -> None:
    """Issue 75: the results page opened with a table of links only, and the LLM tutorial with a
    20-line paragraph, its first code 1,100 px down. The results page opens with the headline
    figures; the tutorial's first code comes within its first dozen lines."""
    results = (ROOT / "docs" / "results" / "index.md").read_text().splitlines()
    first_table = next(i for i, line in enumerate(results) if line.startswith("|"))
    assert "3.4212" in "\n".join(results[first_table : first_table + 10])
    tutorial = (ROOT / "docs" / "tutorials" / "llm.md").read_text().splitlines()
    assert next(i for i, line in enumerate(tutorial) if line.startswith("```python")) < 12


def test_docs__every_table_line_belongs_to_a_table() -> None:
    """Regression (issue 86, item 5): the shipped weights' account had a blank line inside its
    table, so its last eleven rows had no header and rendered as a paragraph of pipes. Every run of
    lines starting with "|" in the Markdown a reader opens starts with a header and its delimiter
    row."""
    pages = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "agents").rglob("*.md"))]
    pages += [p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts]
    headless = []
    for page in pages:
        lines = page.read_text(encoding="utf-8").splitlines()
        fenced = False
        for number, line in enumerate(lines):
            if line.startswith("```"):
                fenced = not fenced
            starts = line.startswith("|") and (number == 0 or not lines[number - 1].startswith("|"))
            if starts and not fenced:
                below = lines[number + 1] if number + 1 < len(lines) else ""
                if not re.fullmatch(r"\|( *:?-+:? *\|)+", below):
                    headless.append(f"{page.relative_to(ROOT)}:{number + 1}")
    assert not headless, headless


def test_docs__the_reward_presets_listed_are_the_registrys() -> None:
    """House IV, goal 5: the presets' names were written out by hand beside ``PRESETS`` (the config,
    both envs, the env page). The envs' docstrings list the registry's (``with_presets``); the env
    page names every preset the single env plays and nothing the registry does not hold."""
    from wordle_gym import WordleEnv, WordleTextEnv
    from wordle_gym.core.rewards import ABOUT, ALIASES, PRESETS, PRESETS_MARK

    assert set(ABOUT) == set(PRESETS)
    for env, skip in ((WordleEnv, {"regret"}), (WordleTextEnv, set())):
        doc = env.__doc__ or ""
        assert PRESETS_MARK not in doc
        section = doc.split("## Rewards", 1)[1].split("##", 1)[0]
        listed = set(re.findall(r'``"([\w-]+)"``', section))
        assert set(PRESETS) - skip <= listed <= set(PRESETS) | set(ALIASES), env.__name__
    row = next(
        line
        for line in (ROOT / "docs" / "envs" / "wordle.md").read_text().splitlines()
        if line.startswith("| `reward` |")
    )
    named = set(re.findall(r'`"([\w-]+)"`', row))
    assert set(PRESETS) - {"regret"} <= named <= set(PRESETS) | set(ALIASES)


def test_docs__where_a_new_piece_goes_names_paths_and_registries_that_exist() -> None:
    """House IV, goal 5: ARCHITECTURE.md's table of where a new piece goes: every path it names
    exists, and every registry it names ("`NAME` in `path`") is assigned in that file."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    table = text.split("| to add | write | register it in |", 1)[1].split("\n\n", 1)[0]
    # a placeholder (a command module NAME) names its folder
    paths = [
        p.rsplit("/", 1)[0] if "NAME" in p else p
        for p in re.findall(r"`((?:wordle_gym|agents|tests|examples)/[\w/.]*)`", table)
    ]
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert len(paths) >= 10 and not missing, missing
    # the files a new rule touches, as the paragraph on the rules' copies names them
    touched = text.split("a new rule\ntouches nine files", 1)[1].split("): the", 1)[0]
    files = re.findall(r"`((?:core|envs|solver)/\w+\.py)`", touched)
    assert len(files) == 9 and all((ROOT / "wordle_gym" / f).is_file() for f in files), files
    registries = re.findall(r"`([A-Z_][A-Z_0-9]+)` in `([\w/.]+\.py)`", table)
    assert len(registries) >= 4
    # the two whose row names the file in its "write" column
    registries += [("PRESETS", "wordle_gym/core/rewards.py")]
    registries += [("OBSERVATIONS", "wordle_gym/envs/observation.py")]
    for name, path in registries:
        assert f"`{name}`" in table and f"`{path}`" in table, (name, path)
        source = (ROOT / path).read_text()
        assert re.search(rf"^{name}\b[^=\n]*=", source, flags=re.M), (name, path)
