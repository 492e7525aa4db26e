"""A command refused for its inputs leaves nothing behind: no run folder, no output folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from wordle_agents.commands import improve, improve_boards, train_a2c, train_dqn
from wordle_gym.cli import main as wordle_gym


@pytest.mark.parametrize(
    ("run", "argv", "message"),
    [
        (improve.main, ["--init", "none.pt", "--out", "o/x.pt"], "'none.pt' does not exist"),
        (improve_boards.main, ["--init", "none.pt", "--out", "o/x.pt"], "does not exist"),
        (train_a2c.main, ["--init", "none.pt", "--run-dir", "r/a2c"], "'none.pt' does not exist"),
        (train_dqn.main, ["--init", "README.md"], "not a wordle_gym checkpoint"),
        (wordle_gym, ["eval", "--agent", "nope", "--json", "o/x.json"], "unknown agent 'nope'"),
        (
            wordle_gym,
            ["analyze", "--answer", "cigar", "xyzzy", "--hard", "--json", "o/x.json"],
            "xyzzy",
        ),
    ],
    ids=["improve", "improve_boards", "train_a2c", "train_dqn", "eval", "analyze"],
)
def test_refused__leaves_no_folder_behind(
    run, argv: list[str], message: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    """Regression: improve and improve_boards made their run folder (runs/improve, runs/boards)
    and the --out folder before reading --init, train-a2c made runs/a2c (and said "[Errno 2]"), and
    eval --json made the JSON's folder before the agent was found."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.md").write_text("not a checkpoint\n")
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"]
