"""WordleText-v0: replies parsed as documented, the real lists and rules (against the reference),
refused replies spend the turn, prompts, errors, and check_env."""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env

from tests.helpers.reference import feedback_ref
from wordle_gym import WordleConfig, WordleTextEnv
from wordle_gym.core.game import NO_TILE, Game
from wordle_gym.envs.text import ReplyText


@pytest.mark.parametrize(
    ("reply", "word"),
    [
        ("<guess>crane</guess>", "crane"),
        # the example
        ("Quoting the example <guess>aahed</guess>, my guess: <GUESS> Salet </GUESS>", "salet"),
        ("the format is [word]; I play [soare]", "soare"),  # [word] is no allowed guess: passed by
        ("<guess>roate</guess> and then [crane]", "roate"),  # a <guess> tag wins over brackets
        # one guess a reply: the first allowed
        ("guess [crane]. If that fails I'll try [slate] next", "crane"),
        ("CRANE", "crane"),
        ("  crane.  ", "crane"),
        ("I guess crane", "crane"),
        ("<guess>two words</guess>", None),
        ("[]", None),
        ("", None),
    ],
)
def test_text_env__reads_the_first_allowed_word_of_the_deciding_rule(
    reply: str, word: str | None
) -> None:
    """The env reads a reply as the parser's table says (docs/guides/replies.md), the first allowed
    word of the rule that decides, passing by a repeat of its prompt's example (AAHED) when the
    reply names another word."""
    env = WordleTextEnv()
    env.reset(seed=0)
    _, _, _, _, info = env.step(reply)
    assert info["guess"] == (word or "")


def test_check_env__passes_and_the_reply_space_holds_any_text(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = gym.make("WordleText-v0")
    check_env(env.unwrapped, skip_render_check=True)
    space = env.action_space
    assert isinstance(space, ReplyText) and space.contains(
        "Ünïcode, spaces [and] <guess>brackets</guess>!"
    )
    assert not space.contains(b"bytes") and space.contains(space.sample())


def test_a_game__real_lists_feedback_of_the_reference_and_refusals_that_spend_the_turn() -> None:
    env = gym.make("WordleText-v0")
    unwrapped = env.unwrapped
    assert unwrapped.vocabulary.num_answers == 2315 and unwrapped.vocabulary.num_allowed == 12972
    rng = random.Random(0)
    for game in range(30):
        obs, info = env.reset(seed=game)
        assert "<guess></guess>" in obs and int(info["turn"]) == 0
        answer = unwrapped.answer
        for turn in range(1, 7):
            roll = rng.random()
            if roll < 0.25:
                reply, word = rng.choice(["no idea", "[qzjkv]", "<guess>toolong</guess>"]), None
            else:
                word = answer if roll > 0.9 else rng.choice(unwrapped.words)
                reply = f"Thinking about [aahed]... <guess>{word.upper()}</guess>"
            obs, reward, terminated, truncated, info = env.step(reply)
            assert int(info["turn"]) == turn and not truncated
            if word is None:
                assert bool(info["invalid"]) and obs.startswith("Your reply was refused:")
                assert info["tiles"].tolist() == [NO_TILE] * 5
            else:
                tiles = feedback_ref(word, answer)
                assert (
                    info["tiles"].tolist() == list(tiles)
                    and not info["invalid"]
                    and info["guess"] == word
                )
                letters = " ".join("XYG"[t] for t in tiles)
                assert f"{word.upper()} -> {letters}" in obs
            won = word == answer
            assert bool(info["won"]) == won == bool(info["is_success"])
            assert terminated == (won or turn == 6)
            if not terminated:
                assert reward == (-2.0 if word is None else -1.0)
            else:
                assert reward == (-2.0 if word is None else -1.0) - (0 if won else 5)
                assert (f"Solved in {turn} guesses." in obs) if won else (answer.upper() in obs)
                break
            assert f"{6 - turn} guess" in obs
        with pytest.raises(RuntimeError, match="call reset"):
            env.step("<guess>crane</guess>")


def test_options__hard_mode_nyt_prompts_and_errors() -> None:
    hard = gym.make("WordleText-v0", hard_mode=True, answers="nyt")
    obs, _ = hard.reset(options={"answer": "cigar"})
    assert "Hard mode" in obs and hard.unwrapped.vocabulary.num_answers == 2309
    hard.step("<guess>crane</guess>")
    obs, _, _, _, info = hard.step("<guess>lotus</guess>")
    assert bool(info["invalid"]) and "LOTUS breaks hard mode" in obs and info["guess"] == "lotus"
    custom = WordleTextEnv(
        answers=["cat", "act"], allowed=None, max_guesses=2, prompt="Guess a {length}-letter word."
    )
    obs, _ = custom.reset(options={"answer": "act"})
    assert obs.startswith("Guess a 3-letter word.")
    obs, *_ = custom.step("<guess>dog</guess>")
    assert "DOG is not in the word list" in obs
    assert (
        WordleTextEnv(prompt=lambda config: f"{config.max_guesses} tries")
        .reset()[0]
        .startswith("6 tries")
    )
    with pytest.raises(ValueError, match="prompt must be a format string of the fields"):
        WordleTextEnv(prompt="{nope}")
    with pytest.raises(
        TypeError,
        match=r"a str, an assistant message or a tool call \(dict\); "
        r"got int",
    ):
        env = WordleTextEnv()
        env.reset()
        env.step(3)
    with pytest.raises(ValueError, match="WordleText plays one board"):
        WordleTextEnv(boards=2)
    with pytest.raises(TypeError, match="reset options must be a dict"):
        WordleTextEnv().reset(options="cigar")


def test_game_spend__a_turn_without_a_guess_in_the_batched_engine() -> None:
    game = Game(WordleConfig(max_guesses=2), torch.device("cpu"))
    state = game.new_state(3)
    game.reset(state, None, torch.tensor([0, 1, 2]))
    first = game.skip_turn(state, torch.tensor([True, False, True]))
    assert state.turn.tolist() == [1, 0, 1] and first.invalid.tolist() == [True, False, True]
    assert first.reward.tolist() == [-2.0, 0.0, -2.0] and not bool(first.terminated.any())
    # nothing recorded or learned
    assert (state.guesses == -1).all() and (state.tiles == NO_TILE).all()
    second = game.skip_turn(state)
    assert second.terminated.tolist() == [True, False, True] and second.reward.tolist() == [
        -7.0,
        -2.0,
        -7.0,
    ]
    assert state.done.tolist() == [True, False, True] and np.array_equal(
        state.turn.numpy(), [2, 1, 2]
    )


def test_state__a_snapshot_of_the_game_as_the_engine_holds_it() -> None:
    """``env.state`` (as ``WordleEnv.state``): the one-game engine's game as a GameState, which the
    batched engine's functions read (the answer stays among the candidates; a refused reply adds a
    turn, no guess)."""
    env = WordleTextEnv()
    env.reset(options={"answer": "cigar"})
    env.step("<guess>salet</guess>")
    env.step("no idea")
    state = env.state
    assert state.turn.tolist() == [2] and state.guesses[0, :2].tolist() == [
        env.vocabulary.action("salet"),
        -1,
    ]
    fits = env.game.consistent(state)[0]
    assert bool(fits[env.vocabulary.answer_id("cigar")]) and 1 < int(fits.sum()) < 2315


def test_replies__reasoning_tool_calls_parsers_and_the_format_reward() -> None:
    """Issue 61: a reasoning block is never read, a tool call is a move, ``parser`` picks the rules,
    and the optional format reward is added to every reply the game takes."""
    env = WordleTextEnv(format_reward=0.5)
    env.reset(seed=0, options={"answer": "cigar"})
    *_, info = env.step("<think>maybe <guess>shard</guess></think> Final answer: [crane]")
    assert info["guess"] == "crane" and not info["invalid"]
    call = {"type": "function", "function": {"name": "guess", "arguments": '{"word": "slate"}'}}
    _, reward, *_, info = env.step({"role": "assistant", "content": None, "tool_calls": [call]})
    assert info["guess"] == "slate" and reward == -1.0 + 0.5
    # cut off while reasoning
    _, reward, *_, info = env.step("<think>I would say <guess>cigar</guess> but")
    # step + invalid, no bonus
    assert info["invalid"] and reward == -2.0 and "no guess found" in info["reason"]
    assert env.tools[0]["function"]["name"] == "guess"
    strict = WordleTextEnv(parser="strict")
    strict.reset(seed=0, options={"answer": "cigar"})
    assert strict.step("Answer: crane")[-1]["invalid"] and strict.step(call)[-1]["guess"] == "slate"
    custom = WordleTextEnv(parser=lambda reply: "cigar")
    custom.reset(seed=0, options={"answer": "cigar"})
    assert custom.step("anything")[-1]["won"]
    with pytest.raises(ValueError, match="parser must be one of"):
        WordleTextEnv(parser="loose")
    with pytest.raises(ValueError, match="format_reward must be a number"):
        WordleTextEnv(format_reward=float("nan"))
    with pytest.raises(ValueError, match="regret_budget must be a positive whole amount"):
        WordleTextEnv(regret_budget=True)  # issue 62: a bool was taken for 1 second
    assert WordleConfig(boards=np.int64(4)).boards == 4  # issue 62: numpy's integers were refused


def test_regret__one_shared_oracle_copies_and_threads() -> None:
    """Issue 61/62: every env of one game shares what its oracle proved (it serves later games),
    each with a search of its own (reliability 5, finding 3: one lock made every env wait on the
    others' searches); a regret env deep-copies and pickles; envs stepped on threads at once get the
    rewards of the same moves stepped one at a time."""
    import copy
    import pickle
    from concurrent.futures import ThreadPoolExecutor

    from tests.helpers.lists import small_lists

    answers, allowed = small_lists(6, 40, 100)

    def make():
        return WordleTextEnv(answers=answers, allowed=allowed, reward="regret", regret_budget=None)

    first, second = make(), make()
    assert first._oracle is not second._oracle and first._oracle._totals is second._oracle._totals
    assert (
        first._oracle.search.stop is not second._oracle.search.stop
        and first._oracle.cache is not second._oracle.cache
    )
    games = [
        (answer, [allowed[(i * 7 + k) % len(allowed)] for k in range(3)])
        for i, answer in enumerate(answers)
    ]

    def play(game: tuple[str, list[str]]) -> list[float]:
        env = make()
        env.reset(options={"answer": game[0]})
        rewards = []
        for reply in [*(f"<guess>{word}</guess>" for word in game[1]), "no guess"]:
            _, reward, over, *_ = env.step(reply)
            rewards.append(reward)
            if over:
                break
        return rewards

    alone = [play(game) for game in games]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(play, games)) == alone
    first.reset(options={"answer": answers[0]})
    first.step(f"<guess>{next(w for w in allowed if w != answers[0])}</guess>")
    for clone in (copy.deepcopy(first), pickle.loads(pickle.dumps(first))):
        assert (
            clone._oracle._totals is first._oracle._totals  # a fork of the same process oracle
            and clone.step("<guess>zzzzz</guess>")[1] == first.step("<guess>zzzzz</guess>")[1]
        )
        first = clone


def test_text_env__plays_the_reward_of_the_config_it_is_given() -> None:
    """Reliability 6, finding 5: ``WordleTextEnv(config=WordleConfig(reward="tile-shaped"))`` played
    the default reward (a win -1.0 where tile-shaped gives 15.0). Its reward is now the one-board
    env's for the same config and move."""
    from wordle_gym import WordleEnv

    config = WordleConfig(reward="tile-shaped")
    env = WordleTextEnv(config=config)
    env.reset(options={"answer": "cigar"})
    _, reward, done, _, _ = env.step("<guess>cigar</guess>")
    board = WordleEnv(config=config)
    board.reset(options={"answer": "cigar"})
    _, expected, _, _, _ = board.step(board.vocabulary.action("cigar"))
    plain = WordleTextEnv()
    plain.reset(options={"answer": "cigar"})
    _, default_reward, _, _, _ = plain.step("<guess>cigar</guess>")
    assert done and reward == pytest.approx(float(expected)) and reward != default_reward


def test_lists__a_games_name_as_the_allowed_list_is_its_guesses() -> None:
    """Reliability 6, finding 4: ``allowed="today"`` was today's 3158 answers, not its 14855
    guesses, though ``--help`` offers ``today`` for ``--allowed`` ('tarse' is not allowed)."""
    from wordle_gym.core.words import Vocabulary

    today = Vocabulary(answers="today", allowed="today")
    assert (today.num_answers, today.num_allowed) == (3158, 14855)
    assert "tarse" in today.allowed_index
    assert Vocabulary(answers="original", allowed="original").num_allowed == 12972
    assert Vocabulary(answers="nyt", allowed="nyt").num_allowed == 12972


def test_text_env__a_huge_reply_or_prompt_is_bounded() -> None:
    """Reliability 6, findings 17 and 18: ``info["guess"]`` echoed a whole 1.4 MB reply, and
    ``prompt="{length:>999999999}"`` built a 1 GB opening text."""
    env = WordleTextEnv()
    env.reset(seed=0)
    _, _, _, _, info = env.step("a" * 1_400_000)
    assert info["invalid"] and len(info["guess"]) == 64 and len(info["reason"]) < 200
    with pytest.raises(ValueError, match="width 999,999,999 is over"):
        WordleTextEnv(prompt="{length:>999999999}")
    with pytest.raises(ValueError, match="over 1,048,576"):
        WordleTextEnv(prompt="x" * 2_000_000)


def test_rewards__a_reward_that_is_not_finite_numbers_is_refused_by_name() -> None:
    """Reliability 6, finding 9: a RewardFn returning NaN, inf, a (3, 7) tensor or a string was
    returned as the reward, and ``RewardScheme(loss=inf)`` gave -1.0 in the single env and
    ``tensor([nan, nan])`` in the vector env. A scheme's fields are finite; one move's reward is one
    finite number; a batch is one float per game."""
    from dataclasses import dataclass

    from wordle_gym import WordleEnv
    from wordle_gym.core.rewards import RewardScheme
    from wordle_gym.envs.vector import WordleVectorEnv

    with pytest.raises(ValueError, match="RewardScheme.loss must be finite"):
        RewardScheme(loss=float("inf"))
    for bad in (float("nan"), float("inf"), torch.zeros(3, 7), "ten"):

        @dataclass(frozen=True)
        class Bad:
            value: object
            needs: frozenset = frozenset()

            def __call__(self, outcome):
                n = outcome.turn.shape[0]
                return (
                    self.value
                    if not isinstance(self.value, float)
                    else torch.full((n,), self.value)
                )

            def scalar(self, outcome):
                return self.value

        env = WordleEnv(reward=Bad(bad))
        env.reset(seed=0)
        with pytest.raises(ValueError, match="the reward Bad gave") as refused:
            env.step(0)
        assert "\n" not in str(refused.value)
        if isinstance(bad, float):
            continue  # a batch's values are not read back each step (a host sync)
        vector = WordleVectorEnv(num_envs=2, reward=Bad(bad), device="cpu")
        vector.reset(seed=0)
        with pytest.raises(ValueError, match="the reward Bad gave"):
            vector.step(torch.zeros(2, dtype=torch.long))
