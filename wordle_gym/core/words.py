"""Word lists as data: loading, validation, custom lists and encoding to letter codes.

A word of length ``L`` is encoded as ``L`` uint8 letter codes, ``a=0 .. z=25``. A
:class:`Vocabulary` holds the two lists a game needs: the *allowed* guesses (the action
space, in the order given) and the possible *answers* (a subset of the allowed words).
"""

from __future__ import annotations

import functools
import hashlib
import operator
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from wordle_gym.utils.commandline import choice
from wordle_gym.utils.files import quoted, read_text_bounded

MAX_WORDS_FILE = 16 << 20
"""The largest file of words read (about 2.7 million five-letter words; the real game's lists are 90
KB)."""

if TYPE_CHECKING:
    import torch

#: Names of the word lists shipped in ``wordle_gym/data``.
BUILTIN_LISTS: dict[str, str] = {
    "answers": "answers.txt",  # 2315 original Wordle answers
    "allowed": "allowed.txt",  # 12972 original allowed guesses (answers included)
    "answers_nyt": "answers_nyt.txt",  # 2309 answers after the NYT removed six
    "answers_today": "answers_today.txt",  # 3158 answers the NYT's WordleBot judges by today
    # 14855 guesses the NYT's game accepts today (answers included)
    "allowed_today": "allowed_today.txt",
}
#: Short aliases accepted wherever a list name is.
ALIASES: dict[str, str] = {
    "original": "answers",
    "nyt": "answers_nyt",
    "all": "allowed",
    "today": "answers_today",
}
#: The games a command's ``--game`` names: answer list and allowed list.
GAMES: dict[str, tuple[str, str]] = {
    # Wordle as it was first played (2315 answers, 12972 guesses)
    "original": ("answers", "allowed"),
    "nyt": ("answers_nyt", "allowed"),  # the NYT's list of 2022 (2309 answers)
    # the NYT's game today (3158 answers, 14855 guesses)
    "today": ("answers_today", "allowed_today"),
}

GAME_OPTION = {"parse": choice(tuple(GAMES)), "metavar": "{" + ",".join(GAMES) + "}"}
"""The metadata of a command's ``--game`` option (a field of its options dataclass)."""


def game_lists(game: str | None, answers: str | None, allowed: str | None) -> tuple[str, str]:
    """The answer and allowed lists a command's ``--game``, ``--answers`` and ``--allowed`` name:
    the game's two (ValueError if either list is given too), else each given or the real game's."""
    if game is None:
        return answers or "answers", allowed or "allowed"
    if answers is not None or allowed is not None:
        raise ValueError(f"--game {game} names the lists; give it or --answers/--allowed, not both")
    return GAMES[game]


MIN_LENGTH, MAX_LENGTH = 2, 10
_WORD = re.compile(r"^[a-z]+$")

WordSource = str | Sequence[str]
"""A built-in list name (``"answers"``, ``"allowed"``, ``"answers_nyt"``, ``"nyt"``,
``"answers_today"``, ``"allowed_today"``) or words."""


def load_word_list(name: str) -> list[str]:
    """Load a built-in word list by name (see :data:`BUILTIN_LISTS` and :data:`ALIASES`)."""
    key = ALIASES.get(name, name)
    if key not in BUILTIN_LISTS:
        known = sorted([*BUILTIN_LISTS, *ALIASES])
        raise ValueError(
            f"unknown word list {quoted(name)}; expected one of {known} or a list of words"
        )
    text = resources.files("wordle_gym.data").joinpath(BUILTIN_LISTS[key]).read_text("ascii")
    return text.split()


SPLITS = ("train", "eval")
EVAL_SIZE = 315
"""Answers held out for the ``eval`` split by default (the rest, 2000 of the 2315, are
``train``)."""


def split_answers(
    words: Sequence[str],
    split: str,
    eval_size: int = EVAL_SIZE,
    seed: int = 0,
    held_out: Sequence[str] | None = None,
) -> list[str]:
    """The answers of a seeded train/eval split: ``words`` shuffled once by ``seed``, the last
    ``eval_size`` held out as ``eval``, the rest ``train`` (in shuffled order). Disjoint, and the
    same on every machine: the envs' ``split=``, ``wordle-gym eval --split``, the TextArena ids and
    the verifiers module use it. With ``held_out`` (answers given outright,
    :func:`held_out_answers`), ``eval`` is those and ``train`` the rest, in list order."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {SPLITS}")
    if held_out is not None:
        held = set(held_out_answers(held_out, words))
        return [w for w in words if (w in held) == (split == "eval")]
    if (
        isinstance(eval_size, bool)
        or not isinstance(eval_size, int)
        or not 0 < eval_size < len(words)
    ):
        raise ValueError(
            f"eval_size must be an integer from 1 to {len(words) - 1}; got {eval_size!r}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"the split's seed must be an integer; got {seed!r}")
    order = list(words)
    random.Random(seed).shuffle(order)
    cut = len(order) - eval_size
    return order[:cut] if split == "train" else order[cut:]


def held_out_answers(held_out: Sequence[str] | str, words: Sequence[str]) -> tuple[str, ...]:
    """Held-out answers given outright: words, or the path of a file of them (one a line), each one
    of ``words``, and not all of them (a ValueError names the first that is not)."""
    if isinstance(held_out, str):
        source = word_source(held_out)
        held_out = load_word_list(source) if isinstance(source, str) else source
    if not isinstance(held_out, Sequence) or not all(isinstance(w, str) for w in held_out):
        raise ValueError(
            "the held-out answers must be words or a file of them; got "
            f"{quoted(repr(held_out), 80)}"
        )
    known = set(words)
    held = tuple(dict.fromkeys(w.strip().lower() for w in held_out))
    unknown = [w for w in held if w not in known]
    if unknown or not held or len(held) >= len(known):
        why = (
            f"{quoted(unknown[0], 40)} is not an answer"
            if unknown
            else (f"{len(held)} of {len(known)} answers")
        )
        raise ValueError(f"the held-out answers must be some of the answer list's words; {why}")
    return held


def word_source(value: str) -> WordSource:
    """A word list named on a command line: a built-in list's name (kept as the name), or the path
    of a UTF-8 text file with one word per line (read; a byte-order mark is skipped). Anything else,
    or a file that is not UTF-8 text, is a ValueError naming it."""
    if value in BUILTIN_LISTS or value in ALIASES:
        return value
    path = Path(value)
    try:
        is_file, exists = path.is_file(), path.exists()
    except OSError:  # e.g. a name too long to be a file
        is_file = exists = False
    # at most MAX_WORDS_FILE bytes: a huge file is refused, not read until memory runs out; a FIFO
    # or a device is refused as not a regular file (never waited on)
    if is_file or (exists and not path.is_dir()):
        # a byte-order mark is skipped
        text = read_text_bounded(path, MAX_WORDS_FILE, "file of words")
        return [line.strip() for line in text.splitlines() if line.strip()]
    names = ", ".join(sorted([*BUILTIN_LISTS, *ALIASES]))
    raise ValueError(
        f"unknown word list {quoted(value)}: expected one of {names} or the path of a file of words"
    )


def _as_words(source: WordSource, what: str) -> list[str]:
    if isinstance(source, str):
        # a game's name as the allowed list is that game's guesses ("today": its 14855, not its
        # answers)
        if what == "allowed" and source in GAMES:
            source = GAMES[source][1]
        return load_word_list(source)
    # word i is action i: an unordered list would change between runs
    if isinstance(source, set | frozenset):
        raise TypeError(
            f"the {what} list must be ordered (a list or tuple); got a {type(source).__name__}"
        )
    if not isinstance(source, Iterable):
        raise TypeError(
            f"the {what} list must be a list name, a file or a list of words; got {source!r}"
        )
    words = list(source)
    if not words:
        raise ValueError(f"the {what} list is empty; expected at least one word")
    bad_types = [w for w in words if not isinstance(w, str)]
    if bad_types:
        raise TypeError(f"the {what} list must hold strings; got {bad_types[:5]!r}")
    return [w.strip().lower() for w in words]


def _preview(words: Iterable[str], limit: int = 10) -> str:
    words = list(words)
    more = f" (+{len(words) - limit} more)" if len(words) > limit else ""
    return ", ".join(repr(w) for w in words[:limit]) + more


def validate_words(words: Sequence[str], what: str = "word", unique: bool = True) -> int:
    """Check a list of words and return their common length.

    Raises:
        ValueError: naming the offending words if any word has non-letters, the lengths
            differ, the length is outside 2..10, or (with ``unique``) a word appears twice.
    """
    not_letters = [w for w in words if not _WORD.match(w)]
    if not_letters:
        raise ValueError(
            f"{what} list has words that are not plain letters a-z: {_preview(not_letters)}"
        )
    length = len(words[0])
    wrong = [w for w in words if len(w) != length]
    if wrong:
        raise ValueError(
            f"{what} list mixes word lengths: the first word {words[0]!r} has {length} letters "
            f"but these do not: {_preview(wrong)}"
        )
    if not MIN_LENGTH <= length <= MAX_LENGTH:
        raise ValueError(
            f"word length {length} is not supported; expected {MIN_LENGTH} to {MAX_LENGTH} letters"
        )
    if not unique:
        return length
    seen: set[str] = set()
    dups = sorted({w for w in words if w in seen or seen.add(w)})
    if dups:
        raise ValueError(f"{what} list has duplicates: {_preview(dups)}")
    return length


def encode(words: Sequence[str] | str, device: torch.device | str | None = None) -> torch.Tensor:
    """Encode words to uint8 letter codes ``a=0..z=25``: shape ``(N, L)`` (or ``(L,)`` for one
    word)."""
    single = isinstance(words, str)
    batch = [words] if single else list(words)
    if not batch:
        raise ValueError("cannot encode an empty list of words")
    validate_words(batch, unique=False)
    # here, as in the functions below: the lists alone (the exact solver's command) need no torch
    import torch

    raw = torch.frombuffer(bytearray("".join(batch).encode("ascii")), dtype=torch.uint8)
    codes = (raw - ord("a")).view(len(batch), len(batch[0])).to(device)
    return codes[0] if single else codes


def letter_position_one_hot(words: Sequence[str]) -> torch.Tensor:
    """(W, 26 L) float32: entry ``c * L + i`` is 1 when word w has letter c at position i.

    A (B, 26 L) score over letters and positions times its transpose gives one value per word:
    the policies of the A2C and DQN agents use it so that their weights serve any vocabulary.
    """
    import torch

    codes = encode(list(words)).long()
    one_hot = torch.zeros(codes.shape[0], 26, codes.shape[1])
    one_hot.scatter_(1, codes[:, None, :], 1.0)
    return one_hot.view(codes.shape[0], -1)


def decode(codes: torch.Tensor) -> list[str] | str:
    """Inverse of :func:`encode`: ``(N, L)`` codes to a list of words, ``(L,)`` to one word."""
    import torch

    arr = codes.detach().to("cpu", torch.uint8)
    if arr.ndim == 1:
        return bytes((arr + ord("a")).tolist()).decode("ascii")
    return [bytes(row).decode("ascii") for row in (arr + ord("a")).tolist()]


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """The word lists of one game: allowed guesses (the actions) and possible answers.

    Args:
        answers: the possible answers, a built-in list name or a sequence of words.
        allowed: the allowed guesses, a name or words; ``None`` means "the answers".
            Every answer must be allowed. Action ``i`` guesses ``allowed[i]``.

    Example:
        >>> vocab = Vocabulary(["cigar", "rebut"], ["cigar", "rebut", "sissy"])
        >>> vocab.answer_actions.tolist()
        [0, 1]
    """

    answers: tuple[str, ...]
    allowed: tuple[str, ...]
    length: int = field(init=False)

    def __init__(
        self, answers: WordSource = "answers", allowed: WordSource | None = "allowed"
    ) -> None:
        answer_words = _as_words(answers, "answer")
        allowed_words = answer_words if allowed is None else _as_words(allowed, "allowed")
        length = validate_words(allowed_words, "allowed")
        validate_words(answer_words, "answer")
        if len(answer_words[0]) != length:
            raise ValueError(
                f"answers have {len(answer_words[0])} letters but allowed words have {length}"
            )
        allowed_set = set(allowed_words)
        missing = [w for w in answer_words if w not in allowed_set]
        if missing:
            raise ValueError(f"answers missing from the allowed list: {_preview(missing)}")
        object.__setattr__(self, "answers", tuple(answer_words))
        object.__setattr__(self, "allowed", tuple(allowed_words))
        object.__setattr__(self, "length", length)

    @property
    def num_answers(self) -> int:
        """How many possible answers."""
        return len(self.answers)

    @property
    def num_allowed(self) -> int:
        """How many allowed guesses (the size of the action space)."""
        return len(self.allowed)

    @cached_property
    def allowed_index(self) -> dict[str, int]:
        """Map word -> action index."""
        return {w: i for i, w in enumerate(self.allowed)}

    @cached_property
    def allowed_codes(self) -> torch.Tensor:
        """Letter codes of the allowed words, ``(num_allowed, L)`` uint8 on the CPU."""
        return encode(self.allowed)

    @cached_property
    def answer_actions(self) -> torch.Tensor:
        """Action index of each answer, ``(num_answers,)`` int64 on the CPU."""
        import torch

        index = self.allowed_index
        return torch.tensor([index[w] for w in self.answers], dtype=torch.int64)

    @property
    def answer_codes(self) -> torch.Tensor:
        """Letter codes of the answers, ``(num_answers, L)`` uint8 on the CPU."""
        return self.allowed_codes[self.answer_actions]

    @cached_property
    def key(self) -> tuple[int, int, int]:
        """A hashable identity of the lists' contents (used to cache pattern tables)."""
        return (hash(self.answers), hash(self.allowed), self.length)

    @cached_property
    def digest(self) -> str:
        """A stable identity of the lists' contents, the same in every process (16 hex digits): what
        names files made for these lists (solved trees, the pattern table on disk)."""
        text = "\n".join(self.answers) + "\n--\n" + "\n".join(self.allowed)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def action(self, word: str) -> int:
        """The action index that guesses ``word``."""
        try:
            return self.allowed_index[word.lower()]
        except KeyError:
            raise ValueError(
                f"{quoted(word, 60)} is not an allowed guess in this {self.length}-letter "
                "vocabulary"
            ) from None

    def answer_id(self, answer: str | int) -> int:
        """Index into :attr:`answers` of an answer given as a word or an index."""
        if isinstance(answer, str):
            try:
                return self.answers.index(answer.lower())
            except ValueError:
                raise ValueError(
                    f"{quoted(answer, 60)} is not one of the {self.num_answers} possible answers"
                ) from None
        try:
            if isinstance(answer, bool):  # an int to Python, but True is no answer index
                raise TypeError
            idx = operator.index(answer)
        except TypeError:
            raise TypeError(
                f"an answer must be a word or an index; got {repr(answer)[:80]}"
            ) from None
        if not 0 <= idx < self.num_answers:
            raise ValueError(
                f"answer index {idx} is out of range; expected 0 <= index < {self.num_answers}"
            )
        return idx

    def __repr__(self) -> str:
        return (
            f"Vocabulary({self.num_answers} answers, {self.num_allowed} allowed, {self.length} "
            "letters)"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and (self.answers, self.allowed) == (
            other.answers,
            other.allowed,
        )

    def __hash__(self) -> int:
        return hash(self.key)


def stage_words(stage: str, seed: int = 0) -> tuple[list[str], list[str] | None]:
    """(answers, allowed) of a training curriculum stage: "N" = N answers, also the guesses (nested
    samples: the 100 are among the 1000); "2315" = every answer; "full" = 2315 answers and
    12972 guesses; "today" = today's game (3158 answers, 14855 guesses)."""
    if stage == "today":
        return load_word_list("answers_today"), load_word_list("allowed_today")
    answers = load_word_list("answers")
    if stage == "full":
        return answers, load_word_list("allowed")
    try:
        size = int(stage)
    except ValueError:
        raise ValueError(
            f"unknown stage {stage!r}; expected a word count (e.g. 100), 'full' or 'today'"
        ) from None
    if not 2 <= size <= len(answers):
        raise ValueError(f"stage size {size} is out of range; expected 2 to {len(answers)} words")
    order = list(answers)
    # one fixed order: smaller stages are prefixes of larger ones
    random.Random(seed).shuffle(order)
    return sorted(order[:size]), None


@functools.lru_cache(maxsize=16)
def builtin_vocabulary(answers: str, allowed: str | None) -> Vocabulary:
    """The :class:`Vocabulary` of two built-in lists (by name), built once a process: every env of
    the real game shares it (an OpenEnv server builds one env a request)."""
    return Vocabulary(answers, allowed)
