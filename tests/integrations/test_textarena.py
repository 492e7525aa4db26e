"""The real game as TextArena envs (wordle_gym.integrations.textarena): TextArena's interface and text
conventions, the real lists, a reward that counts guesses, and no NLTK data."""

from __future__ import annotations

import pytest
import textarena as ta

from wordle_gym.core.rules import feedback_one
from wordle_gym.core.words import encode, load_word_list
from wordle_gym.integrations.textarena import IDS, RealWordleEnv, register


@pytest.fixture(autouse=True)
def _no_nltk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing here may reach NLTK's data (TextArena's own Wordle downloads it at import)."""
    import nltk

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("NLTK data was asked for")

    monkeypatch.setattr(nltk, "download", refuse)
    monkeypatch.setattr(nltk.data, "find", refuse)


def _base(env: ta.Env) -> RealWordleEnv:
    while not isinstance(env, RealWordleEnv):
        env = env.env
    return env


def _tiles(guess: str, answer: str) -> str:
    codes = feedback_one(tuple(encode(guess).tolist()), tuple(encode(answer).tolist()))
    return " ".join({2: "G", 1: "Y", 0: "X"}[c] for c in codes)


def test_textarena__registered_ids_play_real_wordle_with_textarenas_conventions() -> None:
    names = register()
    assert register() == names  # again: nothing new, no error
    assert set(IDS) <= set(names) and {f"{name}-train" for name in IDS} <= set(names)
    env = ta.make("WordleReal-v0")
    env.reset(num_players=1, seed=3)
    answer = _base(env).game.answer
    player, observation = env.get_observation()
    assert player == 0 and "wrap your word in square brackets" in observation
    done, _ = env.step("[salet]")  # TextArena's Wordle refuses SALET, SOARE and ROATE: real Wordle takes them
    assert not done
    _, observation = env.get_observation()
    assert (
        f"You submitted [salet].\nFeedback:\nS A L E T\n{_tiles('salet', answer)}\nYou have 5 guesses left."
        in observation
    )
    done, _ = env.step("I will say [qzjkv]")  # not a word: refused, and the turn is spent
    _, observation = env.get_observation()
    assert not done and "QZJKV is not in the word list. That used an attempt.\nYou have 4 guesses left." in observation
    done, _ = env.step(answer)  # a bare word: TextArena's action wrapper puts it in brackets
    assert done
    rewards, game_info = env.close()
    assert rewards == {0: pytest.approx(4 / 6)} and game_info[0]["guesses"] == 3 and game_info[0]["won"]


def test_textarena__a_loss_scores_nothing_and_the_history_is_cleared_on_reset() -> None:
    register()
    env = ta.make("WordleReal-v0-hard")
    assert _base(env).game.config.hard_mode
    for seed in (1, 2):
        env.reset(num_players=1, seed=seed)
        answer = _base(env).game.answer
        wrong = next(w for w in load_word_list("answers") if w != answer and w[0] != answer[0])
        _, first = env.get_observation()
        assert first.count("You are playing Wordle") == 1  # the last game's messages are gone
        done = False
        for _ in range(6):
            assert not done
            done, _ = env.step(f"[{wrong}]")  # the same guess again: hard mode allows it; it never wins
        rewards, game_info = env.close()
        assert done and rewards == {0: 0.0} and not game_info[0]["won"]
        assert f"the word was {answer}" in game_info[0]["reason"]


def test_textarena__the_answer_is_one_of_the_real_answers_and_the_seed_fixes_it() -> None:
    answers = set(load_word_list("answers"))
    env = RealWordleEnv()
    drawn = []
    for seed in range(20):
        env.reset(num_players=1, seed=seed)
        drawn.append(env.game.answer)
    assert set(drawn) <= answers and len(set(drawn)) > 10
    env.reset(num_players=1, seed=7)
    first = env.game.answer
    env.reset(num_players=1, seed=7)
    assert env.game.answer == first
    nyt = RealWordleEnv(answers="nyt")
    nyt.reset(num_players=1, seed=0)
    assert nyt.game.answer in set(load_word_list("nyt"))
