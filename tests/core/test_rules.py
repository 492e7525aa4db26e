"""Layer (a): the rules core against an independent scalar reference."""

from __future__ import annotations

import random
from collections import Counter

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.reference import feedback_ref, few_letter_words
from wordle_gym.core import patterns, tables
from wordle_gym.core import rules as core
from wordle_gym.core.rules import (
    build_pattern_table,
    feedback,
    num_patterns,
    parse_tiles,
    pattern_ids,
    tiles_from_ids,
    tiles_string,
)
from wordle_gym.core.tables import pattern_table
from wordle_gym.core.words import Vocabulary, encode, load_word_list

PINNED = [
    # (guess, answer, tiles): worked by hand from the rule, the repeated-letter cases first.
    ("error", "parry", (0, 1, 2, 0, 0)),  # one R green, one R yellow, the third R grey
    ("truth", "asset", (1, 0, 0, 0, 0)),  # T yellow once; the second T grey (ASSET has one T)
    ("sasse", "asset", (1, 1, 2, 0, 1)),  # middle S green, first S yellow, last S grey
    ("speed", "abide", (0, 0, 1, 0, 1)),  # first E yellow, second E grey, D yellow
    ("eerie", "there", (1, 0, 1, 0, 2)),  # last E green first, then one E left for a yellow
    ("asset", "asset", (2, 2, 2, 2, 2)),
    ("abbey", "babes", (1, 1, 2, 2, 0)),
    ("llama", "hello", (1, 1, 0, 0, 0)),
    ("geese", "eerie", (0, 2, 1, 0, 2)),
]


def both_strategies(guesses: torch.Tensor, answers: torch.Tensor) -> list[torch.Tensor]:
    """Tiles from each of feedback()'s two evaluation strategies (small and large batches)."""
    g, a = guesses.to(torch.uint8), answers.to(torch.uint8)
    green = g == a
    return [core._tiles(green, *f(g, a, green)) for f in (core._needs_small, core._needs_large)]


@pytest.mark.parametrize(("guess", "answer", "tiles"), PINNED)
def test_feedback__pinned_cases(guess: str, answer: str, tiles: tuple[int, ...]) -> None:
    assert feedback_ref(guess, answer) == tiles  # the reference agrees with the hand-worked case
    assert tuple(feedback(encode(guess), encode(answer)).tolist()) == tiles
    for out in both_strategies(encode(guess)[None], encode(answer)[None]):
        assert tuple(out[0].tolist()) == tiles


def _repeat_heavy_list(size: int, rng: random.Random) -> list[str]:
    """Half words with a repeated letter (where implementations go wrong), half any words."""
    allowed = load_word_list("allowed")
    repeats = [w for w in allowed if len(set(w)) < 5]
    return rng.sample(repeats, size // 2) + rng.sample(
        [w for w in allowed if len(set(w)) == 5], size // 2
    )


def test_feedback__exhaustive_small_vocabulary(rng: random.Random) -> None:
    words = _repeat_heavy_list(300, rng)
    codes = encode(words)
    expected = torch.tensor([[feedback_ref(g, a) for a in words] for g in words], dtype=torch.uint8)
    assert torch.equal(feedback(codes[:, None], codes[None, :]), expected)
    for out in both_strategies(
        codes[:, None].expand(300, 300, 5), codes[None, :].expand(300, 300, 5)
    ):
        assert torch.equal(out, expected)


def test_feedback__random_pairs_of_full_lists(rng: random.Random) -> None:
    allowed, answers = load_word_list("allowed"), load_word_list("answers")
    pairs = [(rng.choice(allowed), rng.choice(answers)) for _ in range(100_000)]
    guesses = encode([g for g, _ in pairs])
    targets = encode([a for _, a in pairs])
    expected = torch.tensor([feedback_ref(g, a) for g, a in pairs], dtype=torch.uint8)
    assert torch.equal(feedback(guesses, targets), expected)
    for out in both_strategies(guesses, targets):
        assert torch.equal(out, expected)


@pytest.mark.parametrize("length", [2, 3, 4, 6, 7, 10])
def test_feedback__other_lengths(length: int, rng: random.Random) -> None:
    # A 4-letter alphabet forces many repeated letters.
    words = few_letter_words(rng, "abcd", length, 120)
    codes = encode(words)
    expected = torch.tensor([[feedback_ref(g, a) for a in words] for g in words], dtype=torch.uint8)
    assert torch.equal(feedback(codes[:, None], codes[None, :]), expected)
    for out in both_strategies(
        codes[:, None].expand(-1, len(words), -1), codes[None, :].expand(len(words), -1, -1)
    ):
        assert torch.equal(out, expected)


def test_feedback__broadcasts_and_checks_inputs() -> None:
    guesses = encode(["error", "speed", "crane"])
    answer = encode("parry")
    out = feedback(guesses, answer)
    assert out.shape == (3, 5) and out.dtype == torch.uint8
    assert out[0].tolist() == [0, 1, 2, 0, 0]
    assert feedback(guesses[:, None, None], encode(["parry", "abide"])[None, :, None]).shape == (
        3,
        2,
        1,
        5,
    )
    with pytest.raises(ValueError, match="5 letters but answers have 4"):
        feedback(guesses, encode("park"))
    with pytest.raises(TypeError, match="integers"):
        feedback(guesses.float(), answer)


letters = st.text(alphabet="abcde", min_size=5, max_size=5)


@given(letters, letters)
def test_feedback__property_counts_per_letter(guess: str, answer: str) -> None:
    tiles = feedback(encode(guess), encode(answer)).tolist()
    for c in set(guess):
        non_grey = sum(1 for g, t in zip(guess, tiles, strict=True) if g == c and t > 0)
        assert non_grey == min(guess.count(c), answer.count(c))
    assert [t == 2 for t in tiles] == [g == a for g, a in zip(guess, answer, strict=True)]
    # Yellows of a letter sit on its leftmost non-green copies.
    for c in set(guess):
        flags = [t for g, t in zip(guess, tiles, strict=True) if g == c and t != 2]
        assert flags == sorted(flags, reverse=True)


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=10))
def test_feedback__property_self_is_all_green(word: str) -> None:
    assert feedback(encode(word), encode(word)).tolist() == [2] * len(word)


def test_pattern_ids__roundtrip_and_order() -> None:
    assert int(pattern_ids(torch.tensor([2, 1, 0, 0, 2]))) == int("21002", 3) == 191
    all_ids = torch.arange(num_patterns(5))
    assert torch.equal(pattern_ids(tiles_from_ids(all_ids, 5)).long(), all_ids)
    assert pattern_ids(torch.zeros(3, 5, dtype=torch.uint8)).dtype == torch.uint8
    assert pattern_ids(torch.zeros(3, 7, dtype=torch.uint8)).dtype == torch.int32
    seven = torch.full((7,), 2, dtype=torch.uint8)
    assert int(pattern_ids(seven)) == 3**7 - 1


def test_parse_tiles__formats_and_errors() -> None:
    assert parse_tiles("gy..g") == (2, 1, 0, 0, 2)
    assert parse_tiles("GYBBG") == (2, 1, 0, 0, 2)
    assert parse_tiles("21002", length=5) == (2, 1, 0, 0, 2)
    assert parse_tiles("g y x - g") == (2, 1, 0, 0, 2)
    assert tiles_string((2, 1, 0, 0, 2)) == "21002"
    with pytest.raises(ValueError, match="'gyq.g' is malformed"):
        parse_tiles("gyq.g")
    with pytest.raises(ValueError, match="has 4 tiles; expected 5"):
        parse_tiles("gyyg", length=5)
    with pytest.raises(ValueError, match="malformed"):
        parse_tiles("")


def test_pattern_table__entries_match_reference(rng: random.Random) -> None:
    vocab = Vocabulary()
    table = pattern_table(vocab)
    assert table.shape == (12972, 2315) and table.dtype == torch.uint8
    assert pattern_table(vocab) is table  # cached per (lists, device)
    for _ in range(20_000):
        i, j = rng.randrange(12972), rng.randrange(2315)
        expected = int("".join(map(str, feedback_ref(vocab.allowed[i], vocab.answers[j]))), 3)
        assert int(table[i, j]) == expected
    # The diagonal of answers against themselves is all green.
    assert bool((table[vocab.answer_actions, torch.arange(2315)] == 242).all())


def _forget_tables() -> None:
    """The in-memory caches of the pattern table emptied, as in a new process."""
    tables._cached_table.cache_clear()
    tables.pattern_array.cache_clear()


def test_pattern_table__disk_cache_is_reused_and_refused_when_wrong(tmp_path, monkeypatch) -> None:
    """The CPU table is kept under $WORDLE_GYM_CACHE: a second process loads it instead of building;
    a truncated file, one of another shape or one whose entries disagree with feedback() is
    rebuilt."""
    import numpy as np

    monkeypatch.setenv("WORDLE_GYM_CACHE", str(tmp_path / "cache"))
    words = _repeat_heavy_list(300, random.Random(7))
    vocab = Vocabulary(words[:120], words)
    expected = build_pattern_table(vocab.allowed_codes, vocab.answer_codes)

    def fresh() -> torch.Tensor:  # as a new process would: the in-memory cache emptied
        _forget_tables()
        return pattern_table(vocab)

    assert torch.equal(fresh(), expected)
    (saved,) = (tmp_path / "cache").glob("patterns-*.npy")
    built = []
    monkeypatch.setattr(core, "build_pattern_table", lambda *a: built.append(1) or expected)
    assert torch.equal(fresh(), expected) and not built  # loaded, not built
    wrong = expected.numpy().copy()
    wrong[:, ::2] = 0  # half the entries wrong: the sample of 4096 checked on load finds them
    for bad in (
        b"\x93NUMPY truncated",
        wrong,
        expected.numpy()[:, :-1],
        expected.numpy().astype(np.int32),
    ):
        if isinstance(bad, bytes):
            saved.write_bytes(bad)
        else:
            np.save(saved, bad)
        assert torch.equal(fresh(), expected) and len(built) == 1
        built.clear()
        assert np.array_equal(np.load(saved), expected.numpy())  # written again, right
    # a file where the folder should be: no cache, no error
    monkeypatch.setenv("WORDLE_GYM_CACHE", str(saved))
    assert torch.equal(fresh(), expected) and len(built) == 1
    monkeypatch.setenv("WORDLE_GYM_CACHE", "")  # set empty: no disk cache at all
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert torch.equal(fresh(), expected) and len(built) == 2
    assert not (tmp_path / "xdg").exists() and not (tmp_path / "home").exists()
    _forget_tables()


def test_pattern_table__chunking_does_not_change_it() -> None:
    words = encode(_repeat_heavy_list(200, random.Random(5)))
    full = build_pattern_table(words, words, chunk_pairs=1 << 30)
    assert torch.equal(build_pattern_table(words, words, chunk_pairs=300), full)
    assert torch.equal(full, pattern_ids(feedback(words[:, None], words[None, :])))


def test_reference__counts_tiles_like_the_rule() -> None:
    # Sanity of the reference itself on a case where a yellow is used up by an earlier copy.
    assert feedback_ref("aabbb", "ababa") == (2, 1, 1, 2, 0)
    assert Counter(feedback_ref("speed", "abide")) == Counter({0: 3, 1: 2})


def test_hard_mode__the_reference_and_its_copies_agree_with_the_game_rule(
    rng: random.Random,
) -> None:
    """``game.hard_breaches`` (the reference) against the history-based rule of
    tests/helpers/reference.py, and each copy against the reference: ``Game.hard_mask``,
    ``ScalarGame.hard_valid`` and the exact solver's kernel (with its own constraint, built turn by
    turn as the search builds it)."""
    import numpy as np

    from tests.helpers.reference import hard_valid
    from wordle_gym.core.game import GameState, hard_breaches
    from wordle_gym.envs.scalar import ScalarGame
    from wordle_gym.envs.vector import WordleVectorEnv
    from wordle_gym.solver import _kernel as kernel

    words = sorted(set(load_word_list("answers")[:150] + _repeat_heavy_list(150, rng)))
    env = WordleVectorEnv(32, answers=words, allowed=words, device="cpu")
    game, vocab = env.game, env.vocabulary
    one = ScalarGame(game, "none")
    codes = vocab.allowed_codes.numpy().astype(np.int64)
    counts = np.zeros((len(words), 26), dtype=np.int64)
    np.add.at(counts, (np.arange(len(words))[:, None], codes), 1)
    tiles_of = tiles_from_ids(torch.arange(num_patterns(5)), 5).numpy().astype(np.int64)
    every = vocab.allowed_codes.long()
    env.reset(seed=0)
    for _turn in range(3):  # normal play (every guess scored), so the knowledge covers any history
        env.step(torch.randint(len(words), (32,), generator=torch.Generator().manual_seed(_turn)))
        state = env.state
        masks = game.hard_mask(state)
        for n in range(32):
            turns = int(state.turn[n])
            history = [
                (words[int(g)], tuple(state.tiles[n, t].tolist()))
                for t, g in enumerate(state.guesses[n, :turns])
            ]
            moved, short = hard_breaches(
                state.green[n : n + 1].expand(len(words), -1),
                state.min_count[n : n + 1].expand(len(words), -1),
                every,
            )
            valid = ~(moved.any(-1) | (short > 0).any(-1))
            assert valid.tolist() == [hard_valid(w, history) for w in words], history
            assert torch.equal(masks[n], valid)
            one.load(
                GameState(
                    **{f: None if v is None else v[n : n + 1] for f, v in vars(state).items()}
                ),
                None,
            )
            assert [one.hard_valid(tuple(c)) for c in codes.tolist()] == valid.tolist()
            green, need = np.full(5, -1, dtype=np.int64), np.zeros(26, dtype=np.int64)
            for guess, tiles in history:
                pattern = int(pattern_ids(torch.tensor([tiles])))
                out_green, out_need = green.copy(), need.copy()
                kernel.advance_constraint(
                    vocab.action(guess), pattern, codes, tiles_of, green, need, out_green, out_need
                )
                green, need = out_green, out_need
            assert [
                bool(kernel.valid(g, codes, counts, green, need)) for g in range(len(words))
            ] == valid.tolist()


def test_pattern_table__a_damaged_row_or_a_fifo_in_the_cache(tmp_path, monkeypatch) -> None:
    """Regression (issue 42): the cache check sampled 4096 entries, so a zeroed row passed and the
    error came later ("history is inconsistent"); a FIFO in place of the file blocked eval for ever.
    The file's checksum catches any damage; a name taken by something that is not a file leaves the
    disk alone."""
    import os

    import numpy as np

    monkeypatch.setenv("WORDLE_GYM_CACHE", str(tmp_path / "cache"))
    words = _repeat_heavy_list(300, random.Random(7))
    vocab = Vocabulary(words[:120], words)
    expected = build_pattern_table(vocab.allowed_codes, vocab.answer_codes)

    def fresh() -> torch.Tensor:
        _forget_tables()
        return pattern_table(vocab)

    fresh()
    (saved,) = (tmp_path / "cache").glob("patterns-*.npy")
    damaged = expected.numpy().copy()
    damaged[17] = 0  # one row: the 4096 sampled entries miss it
    np.save(saved, damaged)
    assert torch.equal(fresh(), expected)
    assert np.array_equal(np.load(saved), expected.numpy())  # rebuilt and written again
    saved.unlink()
    os.mkfifo(saved)
    # returns (a read of the FIFO would wait for a writer for ever)
    assert torch.equal(fresh(), expected)
    assert saved.is_fifo()


@pytest.mark.parametrize("length", [2, 3, 5, 6])
def test_patterns__the_numpy_forms_equal_the_torch_reference(length: int) -> None:
    """What the exact solver uses without torch (patterns.py) is the reference's: every pattern's
    tiles, the id dtype, the letter codes and the table itself."""
    ids = torch.arange(num_patterns(length))
    assert torch.equal(
        torch.from_numpy(patterns.pattern_tiles(length)), tiles_from_ids(ids, length)
    )
    assert (
        patterns.id_dtype(length) == torch.empty(0, dtype=core.pattern_dtype(length)).numpy().dtype
    )
    words = few_letter_words(random.Random(length), "abcdeor", length, 60)
    assert torch.equal(torch.from_numpy(patterns.letter_codes(words)), encode(words))
    vocab = Vocabulary(words[:20], words)
    _forget_tables()
    table = tables.pattern_array(vocab)
    assert torch.equal(
        torch.from_numpy(table), build_pattern_table(vocab.allowed_codes, vocab.answer_codes)
    )
