"""``wordle-gym analyze``: the exact skill (regret) and luck of each guess of a game you played."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from wordle_gym.cli.shared import (
    Lists,
    UsageError,
    _game_config,
    _hard_mode_problem,
    _oracle,
)
from wordle_gym.core.words import (
    word_source,
)


def _check_hard_mode(args: Lists, guesses: list[str]) -> None:
    """Refuse a game whose guess breaks hard mode (the game would have refused it), naming the rule
    it breaks."""
    import torch

    from wordle_gym.envs.vector import WordleVectorEnv

    env = WordleVectorEnv(
        1,
        device="cpu",
        answers=word_source(args.answers),
        allowed=word_source(args.allowed),
        hard_mode=True,
        max_guesses=args.max_guesses,
    )
    try:
        env.reset(options={"answers": [args.answer.lower()]})
    except ValueError:  # not an answer of the list: the oracle says so
        return
    for number, word in enumerate(guesses, 1):
        if word not in env.vocabulary.allowed_index or bool(env.state.done[0]):
            return  # a word the list lacks, or a guess after the game ended: the oracle says so
        problem = _hard_mode_problem(env, word)
        if problem is not None:
            raise UsageError(
                f"guess {number}, {word.upper()}, breaks {problem} (the game refuses it: leave it "
                "out, or drop --hard)"
            )
        env.step(torch.tensor([env.vocabulary.action(word)]))


def _luck(luck: float) -> str:
    """The game's luck in words: the guesses the feedback saved, or cost, against the expected."""
    return f"luck saved {luck:.4f}" if luck >= 0 else f"luck cost {-luck:.4f}"


def cmd_analyze(args: AnalyzeOptions) -> int:
    """The exact skill (regret) and luck of each guess of one game, by the optimal agent's
    oracle."""
    from wordle_gym.utils.files import atomic_write_json, check_writable

    config = _game_config(args, word_source(args.answers), word_source(args.allowed))
    vocab = config.vocabulary
    for guess in args.guesses:  # before the search's minute, not after it
        vocab.action(guess)
    vocab.answer_id(args.answer)
    guesses = [g.lower() for g in args.guesses]
    if args.answer.lower() in guesses[:-1]:  # refused here, before the search's minute
        raise UsageError(
            f"the game was already won by guess {guesses.index(args.answer.lower()) + 1}, "
            f"{args.answer.upper()}: leave out the guesses after it"
        )
    if len(guesses) > config.max_guesses:
        raise UsageError(f"{len(guesses)} guesses: more than the game's {config.max_guesses}")
    if args.hard:
        _check_hard_mode(args, guesses)
    if args.json:  # once the game is sound (a refused command leaves no folder behind)
        check_writable(args.json)
    print(
        "valuing each position exactly (the optimal agent's search; a minute or so on a CPU)...",
        file=sys.stderr,
    )
    report = _oracle().analyze([g.lower() for g in args.guesses], args.answer, config)
    print("| guess | regret | luck | candidates | optimal |\n| --- | ---: | ---: | --- | --- |")
    for row in report["guesses"]:
        left, best = (
            (f"{row['candidates_before']} -> {row['candidates_after']}"),
            row["optimal"].upper(),
        )
        print(
            f"| {row['guess'].upper()} | {row['regret']:+.4f} | {row['luck']:+.4f} | {left} | "
            f"{best} |"
        )
    if not report["finished"]:
        print(
            f"{report['answer'].upper()}: not over after {report['guesses_used']} guesses; so far "
            f"skill cost {report['regret']:+.4f} guesses and {_luck(report['luck'])}"
        )
    else:
        result = (
            f"won in {report['guesses_used']}"
            if report["won"]
            else (f"lost (counted as {report['guesses_used']})")
        )
        print(
            f"{report['answer'].upper()}: {result}; the optimum expects "
            f"{report['start_value']:.4f} from the start: skill cost {report['regret']:+.4f} "
            f"guesses, {_luck(report['luck'])} ({report['guesses_used']} - "
            f"{report['start_value']:.4f} = {report['regret']:.4f} - ({report['luck']:.4f}))"
        )
    if args.json:
        atomic_write_json(args.json, report)
        print(f"wrote {args.json}")
    return 0


@dataclass(kw_only=True)
class AnalyzeOptions(Lists):
    command = "analyze"
    guesses: tuple[str, ...] = field(
        metadata={"positional": True, "nargs": "+", "metavar": "GUESS"}
    )
    """The guesses, in order."""
    answer: str
    """The game's answer."""
    json: str | None = field(default=None, metadata={"metavar": "FILE"})
    """Write the analysis as JSON."""
