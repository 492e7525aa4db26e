"""Minari datasets of every answer played by an agent: written, loaded, replayed in the recovered env."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("minari")
pytest.importorskip("h5py")
pytest.importorskip("jax")  # Minari's episode buffers ("minari[create]")

import minari

from wordle_gym.cli.commands import main
from wordle_gym.integrations.minari import write_dataset

WORDS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade", "naval", "serve", "heath", "dwarf"]


@pytest.mark.parametrize(("hard", "epsilon"), [(False, 0.0), (True, 0.3)])
def test_dataset__every_answer_once_replays_in_the_recovered_env(tmp_path, monkeypatch, hard, epsilon) -> None:
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    dataset = write_dataset(
        "wordle/test-v0", "max-entropy", answers=WORDS, allowed=None, hard_mode=hard, epsilon=epsilon, seed=3
    )
    assert dataset.total_episodes == len(WORDS)
    loaded = minari.load_dataset("wordle/test-v0")
    env = loaded.recover_environment()
    assert env.unwrapped.config.hard_mode is hard and list(env.unwrapped.vocabulary.answers) == WORDS
    answers = set()
    for episode in loaded.iterate_episodes():
        assert len(episode.observations) == len(episode.actions) + 1 and episode.terminations[-1]
        (meta,) = loaded.storage.get_episode_metadata([episode.id])
        obs, _ = env.reset(options=meta["options"])
        answers.add(env.unwrapped.answer)
        assert np.array_equal(obs, episode.observations[0])
        for t, action in enumerate(episode.actions):  # the recovered env plays the episode back exactly
            obs, reward, terminated, _, _ = env.step(int(action))
            assert np.array_equal(obs, episode.observations[t + 1]) and reward == episode.rewards[t]
            assert terminated == episode.terminations[t]
    assert answers == set(WORDS)  # every answer once


def test_dataset__cli_writes_and_refuses_an_existing_id(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    words = tmp_path / "words.txt"
    words.write_text("\n".join(WORDS) + "\n")
    args = ["dataset", "--agent", "random", "--answers", str(words), "--allowed", str(words), "--id", "wordle/r-v0"]
    assert main([*args, "--epsilon", "0.5"]) == 0
    assert f"{len(WORDS)} episodes" in capsys.readouterr().out
    assert main(args) == 2
    assert "a Minari dataset 'wordle/r-v0' exists already" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main([*args[:-1], "wordle/x-v0", "--epsilon", "1.5"])
    assert exit_.value.code == 2
    assert "expected a number from 0 to 1, got '1.5'" in capsys.readouterr().err
