"""Minari datasets of every answer played by an agent: written, loaded, replayed in the recovered
env."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("minari")
pytest.importorskip("h5py")

import minari

from wordle_gym.cli.commands import main
from wordle_gym.integrations.minari import write_dataset

WORDS = [
    "cigar",
    "rebut",
    "sissy",
    "humph",
    "awake",
    "blush",
    "focal",
    "evade",
    "naval",
    "serve",
    "heath",
    "dwarf",
]


@pytest.mark.parametrize(("hard", "epsilon"), [(False, 0.0), (True, 0.3)])
def test_dataset__every_answer_once_replays_in_the_recovered_env(
    tmp_path, monkeypatch, hard, epsilon
) -> None:
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    dataset = write_dataset(
        "wordle/test-v0",
        "max-entropy",
        answers=WORDS,
        allowed=None,
        hard_mode=hard,
        epsilon=epsilon,
        seed=3,
    )
    assert dataset.total_episodes == len(WORDS)
    loaded = minari.load_dataset("wordle/test-v0")
    env = loaded.recover_environment()
    assert (
        env.unwrapped.config.hard_mode is hard and list(env.unwrapped.vocabulary.answers) == WORDS
    )
    answers = set()
    for episode in loaded.iterate_episodes():
        assert len(episode.observations) == len(episode.actions) + 1 and episode.terminations[-1]
        (meta,) = loaded.storage.get_episode_metadata([episode.id])
        obs, _ = env.reset(options=meta["options"])
        answers.add(env.unwrapped.answer)
        assert np.array_equal(obs, episode.observations[0])
        # the recovered env plays the episode back exactly
        for t, action in enumerate(episode.actions):
            obs, reward, terminated, _, _ = env.step(int(action))
            assert np.array_equal(obs, episode.observations[t + 1]) and reward == episode.rewards[t]
            assert terminated == episode.terminations[t]
    assert answers == set(WORDS)  # every answer once


def test_dataset__cli_writes_and_refuses_an_existing_id(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    words = tmp_path / "words.txt"
    words.write_text("\n".join(WORDS) + "\n")
    args = [
        "dataset",
        "--agent",
        "random",
        "--answers",
        str(words),
        "--allowed",
        str(words),
        "--id",
        "wordle/r-v0",
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main([*args, "--epsilon", "0.5"]) == 0
    out = capsys.readouterr()
    assert f"{len(WORDS)} episodes" in out.out
    # Issue 75: it warned "The environment Wordle-v0 is out of date" (the user never chose v0) and
    # did not say where
    assert str(tmp_path / "wordle" / "r-v0") in out.out and not [
        w for w in caught if "out of date" in str(w.message)
    ]
    assert main(args) == 2
    assert "a Minari dataset 'wordle/r-v0' exists already" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main([*args[:-1], "wordle/x-v0", "--epsilon", "1.5"])
    assert exit_.value.code == 2
    assert "expected a number from 0 to 1, got '1.5'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "bad", ["foo", "../evil-v0", "/tmp/abs-v0", "wordle/../../evil-v0", "wordle/x-v", " x-v0"]
)
def test_dataset__a_malformed_id_is_refused_before_any_game(tmp_path, monkeypatch, bad) -> None:
    """Regression (issue 42): --id foo played every game, then failed and left a folder that broke
    every later call (and minari.list_local_datasets()); ../evil-v0 and absolute paths made folders
    outside the store."""
    store = tmp_path / "store"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(store))
    played = []
    monkeypatch.setattr(
        "wordle_gym.integrations.minari.play_episodes", lambda *a, **k: played.append(1)
    )
    with pytest.raises(ValueError, match="is not of the form NAMESPACE/NAME-vN"):
        write_dataset(bad, "random", answers=WORDS, allowed=None)
    assert not played and not any(tmp_path.rglob("*-v0")) and minari.list_local_datasets() == {}


def test_dataset__an_interrupted_write_leaves_no_dataset_behind(tmp_path, monkeypatch) -> None:
    """Regression (issue 42): Ctrl-C during a write left a dataset of 0 episodes that then "existed
    already"."""
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    create = minari.create_dataset_from_buffers

    def interrupted(dataset_id, *args, **kwargs):
        from minari.storage.datasets_root_dir import get_dataset_path

        (get_dataset_path(dataset_id) / "data").mkdir(parents=True)
        (get_dataset_path(dataset_id) / "data" / "main_data.hdf5").write_bytes(b"\0" * 1000)
        raise KeyboardInterrupt

    monkeypatch.setattr(minari, "create_dataset_from_buffers", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_dataset("wordle/cut-v0", "random", answers=WORDS, allowed=None)
    assert not (tmp_path / "wordle" / "cut-v0").exists()
    monkeypatch.setattr(minari, "create_dataset_from_buffers", create)
    assert write_dataset(
        "wordle/cut-v0", "random", answers=WORDS, allowed=None
    ).total_episodes == len(WORDS)
