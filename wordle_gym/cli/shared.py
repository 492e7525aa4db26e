"""What the ``wordle-gym`` commands share: the word-list and agent options, reading a line, a
guess's checks, the agent and the game an option set names, and a wait that says what it is."""

from __future__ import annotations

import argparse
import ast
import contextlib
import math
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from wordle_gym.core.config import MAX_GUESSES, WordleConfig
from wordle_gym.core.words import (
    GAME_OPTION,
    WordSource,
    game_lists,
    word_source,
)
from wordle_gym.harness.registry import (
    make_agent,
)
from wordle_gym.utils.commandline import (
    integer,
)
from wordle_gym.utils.files import quoted

if TYPE_CHECKING:
    from wordle_gym.envs.vector import WordleVectorEnv

DEFAULT_AGENT = "max-entropy"


# Command-line flags that become agent options (the keyword the agent's callable takes).
AGENT_FLAGS = {
    "checkpoint": "checkpoint",
    "opener": "opener",
    "score": "score",
    "candidates_only": "candidates_only",
    "seed": "seed",
    "sb3_algo": "algorithm",
}


QUIT = {"quit", "exit", "q", ":q"}


# an -o value longer than this is a mistake (and would be echoed in errors)
MAX_OPTION_CHARS = 1_000


class UsageError(Exception):
    """A bad argument or input: reported in one line, exit status 2."""


def _read(prompt: str) -> str | None:
    """One line of input; None at end of input."""
    try:
        return input(prompt)
    except EOFError:  # Ctrl-D: what follows starts on a line of its own, not after the prompt
        print()
        return None


def _hard_mode_problem(env: Any, word: str) -> str | None:
    """Why ``word`` breaks hard mode in game 0 of ``env`` (None if it does not), by the rule's
    reference."""
    from wordle_gym.core.game import hard_breaches

    state = env.state
    codes = env.vocabulary.allowed_codes[env.vocabulary.action(word)][None]
    moved, short = hard_breaches(state.green[:1], state.min_count[:1], codes)
    if moved.any():
        i = int(moved[0].nonzero()[0, 0])
        return f"hard mode: letter {i + 1} must be {chr(int(state.green[0, i]) + 97).upper()}"
    if short.any():
        code = int(short[0].nonzero()[0, 0])
        need = int(state.min_count[0, code])
        times = "once" if need == 1 else "twice" if need == 2 else f"{need} times"
        return f"hard mode: the guess must use {chr(code + 97).upper()} {times}"
    return None


def _check_guess(env: Any, word: str) -> str | None:
    """Why ``word`` is not a valid guess now (None if it is)."""
    length = env.vocabulary.length
    if len(word) != length or not word.isalpha():
        return f"{quoted(word)} is not a {length}-letter word"
    if word not in env.vocabulary.allowed_index:
        return f"{quoted(word)} is not in the word list"
    if env.config.hard_mode:
        return _hard_mode_problem(env, word)
    return None


def agent_options(args: AgentChoice) -> dict[str, Any]:
    """The agent options the user gave: the flags in AGENT_FLAGS, then each ``-o KEY=VALUE``."""
    options = {
        key: value
        for flag, key in AGENT_FLAGS.items()
        if (value := getattr(args, flag, None)) not in (None, False)
    }
    # Options this command has a flag for (the flag checks its value and would win silently) or sets
    # itself.
    flagged = {
        key: flag
        for flag, key in {**AGENT_FLAGS, "device": "device"}.items()
        if hasattr(args, flag)
    }
    for item in getattr(args, "option", None) or []:
        key, sep, text = item.partition("=")
        if not sep or not key.isidentifier():
            raise UsageError(
                f"bad agent option {quoted(item)}: expected KEY=VALUE with KEY a Python name"
            )
        if key in flagged:
            raise UsageError(f"-o {key}=...: use --{flagged[key].replace('_', '-')} instead")
        if key == "device":
            raise UsageError(
                f"-o device=...: 'wordle-gym {args.command}' runs its agent on the CPU"
            )
        if len(text) > MAX_OPTION_CHARS:
            raise UsageError(
                f"agent option {key!r} is {len(text):,} characters long; at most "
                f"{MAX_OPTION_CHARS:,}"
            )
        if text.strip().lower() in ("true", "false"):  # -o tools=true as well as tools=True
            options[key] = text.strip().lower() == "true"
            continue
        try:
            # numbers, booleans, None, quoted strings; data only
            options[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            options[key] = text
        except (RecursionError, MemoryError):
            raise UsageError(f"agent option {key!r} is nested too deeply: {quoted(text)}") from None
    return options


def candidates(env: WordleVectorEnv) -> list[str]:
    """The answers still consistent with the feedback of game 0."""
    ids = env.game.consistent(env.state)[0].nonzero().flatten().tolist()
    return [env.vocabulary.answers[i] for i in ids]


@contextlib.contextmanager
def waiting(what: str, after_s: float = 1.0) -> Iterator[None]:
    """Say what the program is doing when the block takes more than ``after_s`` seconds (one line on
    stderr; the first exact search on a machine also compiles the search and builds its tables: up
    to half a minute)."""
    done = threading.Event()

    def say() -> None:
        if not done.wait(after_s):
            print(f"({what}; the first time on a machine this also builds the search: up to half a "
                  "minute...)",
                  file=sys.stderr, flush=True)  # fmt: skip

    speaker = threading.Thread(target=say, daemon=True)
    speaker.start()
    try:
        yield
    finally:
        done.set()
        speaker.join()


def _policy(
    args: Any,
) -> tuple[Any, WordSource, WordSource]:
    """The agent, and the answer and guess lists to evaluate it on."""
    policy = make_agent(args.agent, agent_options(args), device=args.device)
    # By default, a trained agent plays the lists its weights were trained on
    # (``checkpoint.lists``).
    lists = getattr(getattr(policy, "checkpoint", None), "lists", None) or {}
    answers = word_source(args.answers) if args.answers else lists.get("answers", "answers")
    allowed = word_source(args.allowed) if args.allowed else lists.get("allowed", "allowed")
    return policy, answers, allowed


def _game_config(args: Lists, answers: WordSource, allowed: WordSource) -> WordleConfig:
    """The game ``eval`` plays (answers None: the default list, as :func:`evaluate` takes it)."""
    game = {
        "answers": answers,
        "allowed": allowed,
        "hard_mode": args.hard,
        "max_guesses": args.max_guesses,
    }
    game |= {"split": getattr(args, "split", None), "split_seed": getattr(args, "split_seed", 0)}
    game |= {"split_held_out": getattr(args, "held_out", None)}
    return WordleConfig.build(**{k: v for k, v in game.items() if k != "answers" or v is not None})


def _oracle() -> Any:
    """The optimal agent, whose ``regret_report`` measures each decision (through the registry: the
    tools import no agent code)."""
    return make_agent("optimal", {})


MAX_GAMES = 1_000_000
"""The most games of a multi-board evaluation set (a billion built its list for hours)."""


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text[:40]!r}")
    return value


# The options of each command: documented dataclasses (wordle_gym.utils.commandline, as every
# command of the project takes its options); a command's function reads its instance.
@dataclass(kw_only=True)
class Lists:
    command: ClassVar[str]
    """The command's name."""
    lists_from_agent: ClassVar[bool] = False
    """The default lists are the agent's (a network's training lists; see _policy), not the real
    game's."""

    game: str | None = field(default=None, metadata=GAME_OPTION)
    """The lists of a game: original (2315 answers, 12972 guesses: the default), nyt (its 2309
    answers of 2022) or today (the NYT's game today: 3158 answers, 14855 guesses)."""
    answers: str | None = None
    """Answer list: answers (default), nyt, today, or a file."""
    allowed: str | None = None
    """Allowed guesses: allowed (default), today, or a file."""
    hard: bool = False
    """Hard mode."""
    max_guesses: int | None = field(default=None, metadata={"parse": integer(1, MAX_GUESSES)})
    """Guesses per game (default 6; boards + 5)."""

    def __post_init__(self) -> None:
        if self.game is not None or not self.lists_from_agent:  # --game names both lists
            self.answers, self.allowed = game_lists(self.game, self.answers, self.allowed)


@dataclass(kw_only=True)
class AgentChoice:
    agent: str = DEFAULT_AGENT
    """The agent: an installed one (wordle-gym agents lists them)."""
    score: str | None = None
    """max-entropy: entropy (default), expected, minimax or splits."""
    opener: str | None = None
    """max-entropy: fixed first guess (default: computed)."""
    option: tuple[str, ...] = field(
        default=(), metadata={"flags": ("-o",), "repeat": True, "metavar": "KEY=VALUE"}
    )
    """Any other option of the agent's constructor (repeatable)."""
