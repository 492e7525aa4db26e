"""Word lists: shipped data, validation of custom lists, encoding."""

from __future__ import annotations

import hashlib
from importlib import resources

import pytest
import torch

from wordle_gym.core.words import Vocabulary, decode, encode, load_word_list

SHA256 = {
    "answers.txt": "f40e47975cf360ff9febe7d49c8e285054d8fa3fb9644cea575922060951d6ee",
    "allowed.txt": "feacc549249b5dcb43e2799fbbcda14ebc33d55904fb15d043779104e60c1579",
    "answers_nyt.txt": "c495f6cbc36475358a89e30ac16bd5c0c05073c8c7647bb6c35dd01f7bae6e32",
    "answers_today.txt": "3e443482b78dee0f6f8de4f74dbb67537db781524279b1d40ca3353c592b03ce",
    "allowed_today.txt": "ba86911aea83d038d53c0999fe6cbe310c8f59d2b79626c73bd0cd0773adc320",
}


@pytest.mark.parametrize(("name", "digest"), SHA256.items())
def test_data__shipped_lists_are_the_verified_ones(name: str, digest: str) -> None:
    data = resources.files("wordle_gym.data").joinpath(name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == digest


def test_load_word_list__sizes_and_aliases() -> None:
    answers, allowed, nyt = (
        load_word_list("answers"),
        load_word_list("allowed"),
        load_word_list("nyt"),
    )
    assert (len(answers), len(allowed), len(nyt)) == (2315, 12972, 2309)
    assert set(answers) <= set(allowed) and set(nyt) <= set(answers)
    assert sorted(set(answers) - set(nyt)) == ["agora", "fibre", "lynch", "pupal", "slave", "wench"]
    with pytest.raises(ValueError, match="unknown word list 'klingon'"):
        load_word_list("klingon")


def test_load_word_list__todays_game_counted_against_the_original_lists() -> None:
    """Issue 78: the game as the NYT plays it today, its lists as wordle_gym/data/SOURCES.md counts
    them."""
    today, every = load_word_list("answers_today"), load_word_list("allowed_today")
    answers, allowed = load_word_list("answers"), load_word_list("allowed")
    assert (
        (len(today), len(every)) == (3158, 14855)
        and set(today) <= set(every)
        and set(allowed) <= set(every)
    )
    assert (len(set(today) - set(answers)), len(set(every) - set(allowed))) == (856, 1883)
    assert sorted(set(answers) - set(today)) == [
        "fanny", "fibre", "gipsy", "gypsy", "lynch", "mammy", "pansy", "pupal", "semen", "slave",
        "welch", "welsh", "wench",
    ]  # fmt: skip


def test_vocabulary__default_and_indexing() -> None:
    vocab = Vocabulary()
    assert (vocab.num_answers, vocab.num_allowed, vocab.length) == (2315, 12972, 5)
    assert vocab.allowed[vocab.action("crane")] == "crane"
    assert vocab.allowed[int(vocab.answer_actions[vocab.answer_id("cigar")])] == "cigar"
    assert vocab.answer_id(3) == 3
    assert vocab.answer_codes.shape == (2315, 5) and vocab.answer_codes.dtype == torch.uint8


@pytest.mark.parametrize(
    ("answers", "allowed", "message"),
    [
        (["cigar", "rebut"], ["cigar"], "answers missing from the allowed list: 'rebut'"),
        (["cigar", "reb0t"], None, "not plain letters a-z: 'reb0t'"),
        (["cigar", "rebuts"], None, "mixes word lengths: .* 'rebuts'"),
        (["cigar", "cigar"], None, "duplicates: 'cigar'"),
        (["a", "b"], None, "word length 1 is not supported"),
        (["abcdefghijk"], None, "word length 11 is not supported"),
        ([], None, "answer list is empty"),
        (["cigar"], ["cigars", "rebuts"], "answers have 5 letters but allowed words have 6"),
    ],
)
def test_vocabulary__bad_lists_name_the_offenders(
    answers: list[str], allowed: list[str] | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Vocabulary(answers, allowed)


@pytest.mark.parametrize("answers", [None, 5])
def test_vocabulary__answers_that_are_no_list_get_a_one_line_error(answers: object) -> None:
    """Regression: ``gym.make("Wordle-v0", answers=None)`` raised "'NoneType' object is not
    iterable"."""
    with pytest.raises(
        TypeError,
        match=f"the answer list must be a list name, a file or a list of words; got {answers}",
    ):
        Vocabulary(answers, None)  # type: ignore[arg-type]


def test_vocabulary__custom_lengths_and_case() -> None:
    vocab = Vocabulary(["Cat", "dog"], ["cat", "dog", "eel", "fox"])
    assert vocab.length == 3 and vocab.answers == ("cat", "dog")
    assert vocab.answer_actions.tolist() == [0, 1]
    with pytest.raises(ValueError, match="'emu' is not an allowed guess"):
        vocab.action("emu")
    with pytest.raises(ValueError, match="'eel' is not one of the 2 possible answers"):
        vocab.answer_id("eel")
    with pytest.raises(ValueError, match="answer index 2 is out of range"):
        vocab.answer_id(2)
    with pytest.raises(TypeError, match="a word or an index"):
        vocab.answer_id(1.5)  # type: ignore[arg-type]


def test_encode__roundtrip() -> None:
    codes = encode(["abc", "zzz", "abc"])
    assert codes.dtype == torch.uint8 and codes.tolist() == [[0, 1, 2], [25, 25, 25], [0, 1, 2]]
    assert decode(codes) == ["abc", "zzz", "abc"]
    assert decode(encode("crane")) == "crane"


def test_word_source__a_fifo_is_not_a_regular_file_not_an_unknown_list(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Reliability 6, finding 16: a FIFO word list was "an unknown word list" (a file of words is
    read only from a regular file; a FIFO is never waited on)."""
    import os

    from wordle_gym.core.words import word_source

    os.mkfifo(tmp_path / "words")
    with pytest.raises(ValueError, match="is not a regular file"):
        word_source(str(tmp_path / "words"))
