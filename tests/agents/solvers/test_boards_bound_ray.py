"""The every-opener Dordle bound on Ray (issue 44: a search that outgrows one machine runs on Ray's engine, not
on a hand-made pool): a local Ray instance gives the counts one machine gives. Ray is not a dependency: CI runs
this file in the Ray venv (``.ci/run``), where it is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from wordle_agents.solvers.boards_bound import dordle_openers, main
from wordle_gym.core.words import Vocabulary


@pytest.fixture(scope="module")
def ray():
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()  # another test of the session may have started one
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


def _lists() -> Vocabulary:
    answers = list(Vocabulary().answers[:80])
    return Vocabulary(answers, sorted({*answers, *Vocabulary().allowed[:150]}))


def _counting(ray, monkeypatch) -> list[str]:
    """The names of the functions made Ray tasks from here on."""
    made: list[str] = []
    remote = ray.remote

    def spy(*args, **kwargs):
        made.append("options")
        wrap = remote(*args, **kwargs)
        return lambda f: (made.append(f.__name__), wrap(f))[1]

    monkeypatch.setattr(ray, "remote", spy)
    return made


def test_dordle_openers__ray_tasks_give_one_machines_counts_and_resume(ray, tmp_path: Path, monkeypatch) -> None:
    vocab = _lists()
    made = _counting(ray, monkeypatch)
    counted = dordle_openers(vocab)
    cut = sorted(5 - sum(c) / counted["pairs"] for c in counted["counts"].values())[12]  # about a dozen openers refined
    here = dordle_openers(vocab, refine_below=cut)
    assert 0 < len(here["refined"]) < len(vocab.allowed) and here["finished"]
    assert not made
    there = dordle_openers(vocab, refine_below=cut, use_ray=True)
    assert there == here and made.count("bound_openers") == 2  # the count pass and the refinement, on Ray
    journal = tmp_path / "journal.json"  # stopped after the first task's openers, then continued
    row = dordle_openers(vocab, journal, max_minutes=1e-9, refine_below=cut, use_ray=True)
    assert not row["finished"] and 0 < len(row["counts"]) < len(vocab.allowed)
    while not row["finished"]:
        row = dordle_openers(vocab, journal, max_minutes=1e-9, refine_below=cut, use_ray=True)
    assert row == here


def test_command__all_openers_on_ray(ray, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    vocab = _lists()
    made = _counting(ray, monkeypatch)
    (tmp_path / "a.txt").write_text("\n".join(vocab.answers) + "\n")
    (tmp_path / "g.txt").write_text("\n".join(vocab.allowed) + "\n")
    lists = ["--answers", str(tmp_path / "a.txt"), "--allowed", str(tmp_path / "g.txt"), "--quiet"]
    assert main(["--all-openers", "--ray", *lists]) == 0
    said = capsys.readouterr().out
    assert made == ["options", "bound_openers"]
    assert f"proven lower bound on the optimal mean count: {dordle_openers(vocab)['lower_bound']:.4f}" in said
