"""``wordle-gym play``: a game in the terminal."""

from __future__ import annotations

from dataclasses import dataclass, field

from wordle_gym.cli.shared import (
    QUIT,
    Lists,
    _check_guess,
    _read,
)
from wordle_gym.core.words import (
    word_source,
)
from wordle_gym.utils.commandline import (
    integer,
)


def cmd_play(args: PlayOptions) -> int:
    from wordle_gym.envs.render import ansi_row
    from wordle_gym.envs.wordle import WordleEnv

    env = WordleEnv(
        answers=word_source(args.answers),
        allowed=word_source(args.allowed),
        hard_mode=args.hard,
        max_guesses=args.max_guesses,
    )
    options = {"answer": args.answer} if args.answer else None
    env.reset(seed=args.seed, options=options)
    length, turns = env.vocabulary.length, env.config.max_guesses
    mode = " (hard mode)" if args.hard else ""
    print(
        f"Guess the {length}-letter word in {turns} tries{mode}. [X] green, (X) yellow, x grey. "
        "'quit' to give up."
    )
    while True:
        try:
            line = _read(f"guess {int(env.state.turn[0]) + 1}/{turns}: ")
        except KeyboardInterrupt:  # Ctrl-C gives up as 'quit' does: the answer is shown
            print(f"\nThe answer was {env.answer.upper()}.")
            raise
        if line is None or line.strip().lower() in QUIT:
            print(f"The answer was {env.answer.upper()}.")
            return 1
        word = line.strip().lower()
        problem = _check_guess(env, word)
        if problem:
            print(f"{problem}; try again (no turn used).")
            continue
        _, _, terminated, _, info = env.step(env.vocabulary.action(word))
        print(ansi_row(word, info["tiles"].tolist()))
        if terminated:
            if info["won"]:
                print(f"Solved in {info['turn']}/{turns}!")
                return 0
            print(f"Out of guesses. The answer was {env.answer.upper()}.")
            return 1


@dataclass(kw_only=True)
class PlayOptions(Lists):
    command = "play"
    answer: str | None = None
    """Play this answer (default: random)."""
    seed: int | None = field(default=None, metadata={"parse": integer(0)})
    """Seed for the random answer."""
