"""The real game as TextArena envs (wordle_gym.integrations.textarena): TextArena's interface and
text conventions, the real lists, a reward that counts guesses, and no NLTK data."""

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
    # TextArena's Wordle refuses SALET, SOARE and ROATE: real Wordle takes them
    done, _ = env.step("[salet]")
    assert not done
    _, observation = env.get_observation()
    assert (
        f"You submitted [salet].\nFeedback:\nS A L E T\n{_tiles('salet', answer)}\nYou have 5 "
        "guesses left." in observation
    )
    # not a word: an invalid move, forgiven once (no attempt used)
    done, _ = env.step("I will say [qzjkv]")
    _, observation = env.get_observation()
    assert (
        not done
        and ("invalid move. Reason: 'qzjkv' is not in the game's word list.") in observation
    )
    done, _ = env.step(answer)  # a bare word: TextArena's action wrapper puts it in brackets
    assert done
    rewards, game_info = env.close()
    assert (
        rewards == {0: pytest.approx(5 / 6)}
        and game_info[0]["guesses"] == 2
        and game_info[0]["won"]
    )


def test_textarena__a_loss_scores_nothing_and_the_history_is_cleared_on_reset() -> None:
    register()
    assert _base(ta.make("WordleReal-v0-hard")).game.config.hard_mode
    today = _base(ta.make("WordleReal-v0-today-hard")).game.config  # issue 78: today's game
    assert (today.vocabulary.num_answers, today.vocabulary.num_allowed, today.hard_mode) == (
        3158,
        14855,
        True,
    )
    env = ta.make("WordleReal-v0")
    for seed in (1, 2):
        env.reset(num_players=1, seed=seed)
        answer = _base(env).game.answer
        wrong = [w for w in load_word_list("answers") if w != answer][:6]
        _, first = env.get_observation()
        assert first.count("You are playing Wordle") == 1  # the last game's messages are gone
        done = False
        for word in wrong:
            assert not done
            done, _ = env.step(f"[{word}]")
        rewards, game_info = env.close()
        assert done and rewards == {0: 0.0} and not game_info[0]["won"]
        assert f"the word was {answer}" in game_info[0]["reason"]


def _textarena_wordle(monkeypatch: pytest.MonkeyPatch, answer: str, allowed: set[str]) -> ta.Env:
    """TextArena's own Wordle-v0 game, its answer and dictionary given (its module asks NLTK for
    data at import:
    refused quietly here, and its constructor, which reads that data, is not run)."""
    import nltk

    def missing(*args: object, **kwargs: object) -> None:
        raise LookupError("no NLTK data here")

    monkeypatch.setattr(nltk, "download", lambda *args, **kwargs: False)
    monkeypatch.setattr(nltk, "pos_tag", missing)
    monkeypatch.setattr(nltk.data, "find", missing)
    from textarena.envs.Wordle.env import WordleEnv

    env = WordleEnv.__new__(WordleEnv)
    ta.Env.__init__(env)
    env.word_length, env.num_guesses, env.word_list = 5, 6, [answer]
    env._check_word = allowed.__contains__
    return env


@pytest.mark.parametrize(
    "replies",
    [
        # the first bracket; a repeat is invalid
        ["I pick [crane] not [about]", "[crane]", "[about]", "[CIGAR]"],
        # forgiven once, then again after a move
        ["no brackets at all", "[crane]", "[cranes]", "[qzjkv]", "[slate]"],
        ["[crane]", "[crane]", "[crane]"],  # two invalid moves in a row end the game
        ["<guess>crane</guess>", "[x</guess><guess>salet]"],  # TextArena reads no <guess> tag
        ["[slate]", "[crane]", "[about]", "[pious]", "[rebus]", "[mound]"],  # six attempts, a loss
    ],
)
def test_textarena__the_same_replies_play_the_same_through_textarenas_wordle(
    monkeypatch: pytest.MonkeyPatch, replies: list[str]
) -> None:
    allowed = set(load_word_list("allowed"))
    theirs, ours = _textarena_wordle(monkeypatch, "cigar", allowed), RealWordleEnv()
    theirs.reset(num_players=1, seed=0)
    ours.reset(num_players=1, seed=0)
    ours.game.reset(options={"answer": "cigar"})
    for reply in replies:
        done_theirs, _ = theirs.step(reply)
        done_ours, _ = ours.step(reply)
        assert done_ours == done_theirs, reply
        assert (
            ours.state.turn == theirs.state.turn
            and ours.state.error_count == theirs.state.error_count
        )
        assert ours.state.game_state["guess_history"] == theirs.state.game_state["guess_history"]
        ours_invalid = ours.state.game_info[0].get("invalid_move", False)
        assert ours_invalid == theirs.state.game_info[0].get("invalid_move", False)
        if done_ours:
            break
    # each script ends its game: a win, two invalid moves in a row, or six attempts
    assert done_ours


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


@pytest.mark.parametrize("split", ["train", "eval"])
def test_textarena__the_split_ids_draw_their_secrets_from_the_shared_split(split: str) -> None:
    from wordle_gym.core.words import split_answers

    register()
    part = set(split_answers(load_word_list("answers"), split))
    env = ta.make(f"WordleReal-v0-split-{split}")
    drawn = set()
    for seed in range(60):
        env.reset(num_players=1, seed=seed)
        drawn.add(_base(env).game.answer)
    assert drawn <= part and len(drawn) > 30
