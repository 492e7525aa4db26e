"""The ``wordle-gym`` command: play, get hints, evaluate agents, watch an agent play::

    wordle-gym play [--hard] [--answer WORD] [--seed N]
    wordle-gym assist [--hard] [--score entropy|expected|minimax|splits]
    wordle-gym eval --agent NAME [--checkpoint PATH] [--opener salet] [--score ...] [-o KEY=VALUE]
                    [--device cuda] [--answers nyt] [--hard] [--json out.json]
    wordle-gym solve WORD [--agent NAME] [--opener salet] [--score ...] [--hard]
    wordle-gym agents

Agents are found through the ``wordle_gym.agents`` entry points
(:mod:`wordle_gym.harness.registry`):
the command knows no agent by name beyond its default, ``max-entropy``.

Word lists (``--answers``, ``--allowed``): ``answers`` (2315, the default), ``nyt`` (2309),
``allowed`` (12972), or the path of a text file with one word per line.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import math
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import torch
from gymnasium.error import DependencyNotInstalled

from wordle_gym.core.config import MAX_GUESSES, WordleConfig
from wordle_gym.core.game import hard_breaches
from wordle_gym.core.rules import GREEN, parse_tiles
from wordle_gym.core.words import (
    GAME_OPTION,
    SPLITS,
    Vocabulary,
    WordSource,
    game_lists,
    word_source,
)
from wordle_gym.envs.render import ansi_row
from wordle_gym.envs.vector import WordleVectorEnv
from wordle_gym.envs.wordle import WordleEnv
from wordle_gym.harness.registry import (
    agent_names,
    command_help,
    command_names,
    make_agent,
    playing,
)
from wordle_gym.utils.commandline import (
    OneLineParser,
    add_options,
    choice,
    integer,
    options_from,
)
from wordle_gym.utils.files import one_line, quoted

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


# ------------------------------------------------------------------------------- play
def cmd_play(args: PlayOptions) -> int:
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


# ----------------------------------------------------------------------------- assist
ASSIST_HELP = (
    "Type the guess you made and the colours you saw: 'salet gy..g' (g green, y yellow, . or b "
    "grey)\nor 'salet 21002' (2 green, 1 yellow, 0 grey). Commands: undo, new (another game), "
    "help, quit."
)


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


def _assistant(args: AssistOptions) -> tuple[WordleVectorEnv, Any]:
    if args.opener:
        raise UsageError(
            "assist suggests from the feedback you type; --opener is for eval and solve"
        )
    env = WordleVectorEnv(
        1,
        device="cpu",
        answers=word_source(args.answers),
        allowed=word_source(args.allowed),
        hard_mode=args.hard,
        max_guesses=args.max_guesses,
    )
    env.reset(options={"answers": [0]})  # the answer is unknown: observe() never reads it
    solver = make_agent(args.agent, agent_options(args), device="cpu")
    if not callable(getattr(solver, "best_guesses", None)):
        raise UsageError(
            f"agent {args.agent!r} cannot suggest guesses (it has no best_guesses method)"
        )
    return env, solver


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


def _print_status(env: WordleVectorEnv, solver: Any, top: int, exact: Any = None) -> None:
    left = candidates(env)
    if len(left) == 1:
        print(f"It must be {left[0].upper()}.")
        return
    listed = ": " + ", ".join(left) if len(left) <= 12 else ""
    print(f"{len(left)} candidates left{listed}")
    first = exact is not None and int(env.state.turn[0]) == 0
    proven = (
        exact.best_openers(env, top)
        if first and callable(getattr(exact, "best_openers", None))
        else None
    )
    if proven:  # the first guess, proven over every allowed word: shipped, no search
        print(
            "The best first guesses, proven over every allowed guess (expected guesses to solve, "
            "this one included):"
        )
        for word, value in proven:
            print(f"  {word}  {value:.4f}")
        return
    suggestions = solver.best_guesses(env, top=top)
    costs = None
    if first:
        print(
            "(Exact expected guesses appear from the second guess on: a first guess takes "
            "seconds per word.)"
        )
    elif exact is not None:
        with waiting("valuing the suggestions exactly"):
            best, costs = exact.expected_guesses(env, [word for word, _, _ in suggestions])
        print(
            f"Optimal play from here needs {best:.4f} guesses on average (the next one included)."
        )
    unit = getattr(solver, "score_unit", "score")
    print(
        f"Suggestions ({unit}"
        + ("; exact: expected guesses to solve, this one included" if costs else "")
        + "):"
    )
    # a word that cannot be the answer is shown only where it tells more than every candidate
    # (where it ties one, the candidate is the better guess: it may win), not as padding
    most = max((score for _, score, answer in suggestions if answer), default=None)
    for i, (word, score, is_candidate) in enumerate(suggestions):
        if most is not None and not is_candidate and score <= most and len(left) <= top:
            continue
        shown = ""
        if costs is not None:
            shown = (
                f"  exact {costs[i]:.4f}"
                if costs[i] is not None
                else ("  exact: refused in hard mode")
            )
        print(f"  {word}  {score:.3f}{shown}{'  (could be the answer)' if is_candidate else ''}")


def _print_judgement(judged: dict[str, Any], word: str) -> None:
    """One line: the exact skill cost and luck of the guess just entered (``assist --optimal``), or
    the proven bounds of its cost where the search ran past its time."""
    regret, luck = judged["regret"], judged["luck"]
    skill = "optimal" if abs(regret) < 5e-10 else f"cost {regret:+.4f} guesses"
    if not judged["exact"]:
        skill = (
            f"cost at most {judged['high']:+.4f} guesses (proven at least {judged['low']:+.4f}; "
            "the exact value takes longer to search)"
        )
    line = f"{word.upper()}: skill {skill}"
    if luck is not None:
        line += (
            f"; luck {luck:+.4f} ({'better' if luck >= 0 else 'worse'} feedback than this "
            "guess gets on average)"
        )
    print(line)


def cmd_assist(args: AssistOptions) -> int:
    env, solver = _assistant(args)
    exact = make_agent("optimal", {}, device="cpu") if args.optimal else None
    if exact is not None and not callable(getattr(exact, "expected_guesses", None)):
        raise UsageError(
            "the installed agent 'optimal' cannot value guesses (it has no expected_guesses method)"
        )
    history = []
    print(ASSIST_HELP)
    _print_status(env, solver, args.top, exact)
    while True:
        line = _read("> ")
        if line is None or line.strip().lower() in QUIT:
            return 0
        text = line.strip().lower()
        if not text:
            continue
        if text == "help":
            print(ASSIST_HELP)
            continue
        if text == "new":  # another game, from the start
            env.reset(options={"answers": [0]})
            history.clear()
            print("A new game.")
            _print_status(env, solver, args.top, exact)
            continue
        if text == "undo":
            if not history:
                print("Nothing to undo.")
                continue
            env.state = history.pop()
            made = int(env.state.turn[0])
            print(f"Undone; {made} guess{'' if made == 1 else 'es'} entered.")
            _print_status(env, solver, args.top, exact)
            continue
        if _enter(env, text, history, exact):
            _print_status(env, solver, args.top, exact)


def _enter(env: Any, text: str, history: list[Any], exact: Any) -> bool:
    """``assist``: one entry of a guess and its colours, checked, played and judged; whether the
    game goes on (the suggestions are shown again)."""
    parts = text.split()
    if len(parts) != 2:
        print("Expected a guess and its colours, e.g. 'salet gy..g' (or 'help').")
        return False
    word, colours = parts
    problem = _check_guess(env, word)
    if problem:
        print(f"{problem}; ignored.")
        return False
    try:
        tiles = parse_tiles(colours, env.vocabulary.length)
    except ValueError as exc:
        print(f"{exc}; ignored.")
        return False
    if bool(env.state.done[0]):
        print("This game is over; 'undo' to change it, 'new' for another game, or 'quit'.")
        return False
    snapshot = env.state.clone()
    env.game.observe(env.state, torch.tensor([env.vocabulary.action(word)]), torch.tensor([tiles]))
    if not candidates(env):
        env.state = snapshot
        print(f"No answer fits {word.upper()} {colours}: check the colours; ignored.")
        return False
    history.append(snapshot)
    print(ansi_row(word, tiles))
    if exact is not None and callable(getattr(exact, "judge", None)):
        with waiting("valuing the guess exactly"):
            judged = exact.judge(env, snapshot, word)
        _print_judgement(judged, word)
    if all(t == GREEN for t in tiles):
        print(f"Solved in {int(env.state.turn[0])}! 'new' for another game, or 'quit'.")
        return False
    if bool(env.state.done[0]):
        print("That was the last guess. 'undo' to change it, 'new' for another game, or 'quit'.")
        return False
    return True


# ------------------------------------------------------------------------------- eval
def _policy(
    args: EvalOptions | DatasetOptions | SolveOptions,
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


LOST_SHOWN = 10  # eval lists at most this many lost answers (all of them go to --json)


def _own_words_note(policy: Any, answers: WordSource) -> None:
    """One line where a trained agent plays answers it did not learn: it finds the answers of the
    game it was trained on (its checkpoint's lists) and guesses only that game's words, so it loses
    many games of another."""
    lists = getattr(getattr(policy, "checkpoint", None), "lists", None) or {}
    if not lists.get("answers") or not lists.get("allowed"):
        return
    learned, guessable = set(lists["answers"]), set(lists["allowed"])
    playing = Vocabulary(answers, None).answers
    new = [w for w in playing if w not in learned]
    if new:
        never = sum(w not in guessable for w in new)
        print(
            f"note: this agent learned the {len(learned):,} answers and {len(guessable):,} guesses "
            f"of the game it was trained on: {len(new):,} of these {len(playing):,} answers are "
            f"not among them ({never:,} it cannot even guess), and it loses many of those games",
            file=sys.stderr,
        )


def cmd_eval(args: EvalOptions) -> int:
    from wordle_gym.harness.evaluation import evaluate
    from wordle_gym.utils.files import check_writable

    if args.boards > 1 and (args.regret or args.hard):
        raise ValueError(
            f"--{'regret' if args.regret else 'hard'} is for one board; --boards "
            f"{args.boards} has none"
        )
    if args.games is not None and args.boards == 1:
        raise ValueError(
            "--games sizes the multi-board evaluation set (with --boards K); one "
            "board plays every answer"
        )
    if args.boards > 1 and args.agent in ONE_BOARD_AGENTS:
        raise ValueError(
            f"--agent {args.agent} plays one board; with --boards {args.boards} use "
            f"{SEVERAL_BOARDS}"
        )
    policy, answers, allowed = _policy(args)
    _own_words_note(policy, answers)
    if args.json:  # before the evaluation, not after it; once the agent loads (no stray folder)
        check_writable(args.json)
    # before the evaluation: an oracle that cannot load fails first
    oracle = _oracle() if args.regret else None
    try:
        result = evaluate(
            policy,
            answers=answers,
            allowed=allowed,
            device=args.device,
            hard_mode=args.hard,
            max_guesses=args.max_guesses,
            histories=args.regret,
            boards=args.boards,
            games=args.games,
            split=args.split,
            split_seed=args.split_seed,
            split_held_out=args.held_out,
        )
    except ValueError as exc:  # a network of one board: name the agents that play several
        if args.boards > 1 and "plays one board" in str(exc):
            raise ValueError(f"{exc}; with --boards {args.boards} use {SEVERAL_BOARDS}") from None
        raise
    # after play: an agent may pick its opener
    result.agent = agent_label(args.agent, policy, args.hard, args.boards)
    print(result.markdown_header())
    print(result.markdown_row())
    print(result.summary())
    if args.boards > 1:
        print(
            f"boards solved: {result.extra['boards_solved']:.4f} of {args.boards} a game, "
            f"{result.games} games"
        )
    if oracle is not None:
        regret = oracle.regret_report(result.histories, _game_config(args, answers, allowed))
        turns = "  ".join(f"{t}: {r:+.4f}" for t, r in regret["by_turn"].items())
        print(
            f"regret per game {regret['mean_regret']:+.4f} guesses beyond the optimum "
            f"{regret['root_value']:.4f} "
            f"(by turn  {turns}); each move valued in {regret['valued_in']}"
        )
        if not regret["identity_holds"] and "of which" not in regret["valued_in"]:
            gap = regret["mean_cost"] - regret["root_value"]
            print(
                f"  (they do not sum to the mean minus the optimum, {gap:+.4f}: the agent played "
                "differently where it knew the same, as a random one does)"
            )
        for c in regret["costliest"][:3]:
            after = ", ".join(c["history"]) or "nothing"
            print(
                f"  costliest: turn {c['turn']} after {after} ({c['candidates']} left, "
                f"{c['games']} games): "
                f"{c['guess']} costs {c['regret']:+.4f}; {c['optimal']} is optimal"
            )
        result.extra["regret"] = regret
    lost = result.lost_answers
    if lost:
        more = (
            f" (+{len(lost) - LOST_SHOWN} more{'' if args.json else '; --json lists all'})"
            if len(lost) > LOST_SHOWN
            else ""
        )
        print(f"lost {len(lost)}: " + ", ".join(lost[:LOST_SHOWN]) + more)
    if args.json:
        result.save(args.json)
        print(f"wrote {args.json}")
    return 0


def agent_label(agent: str, policy: Any, hard_mode: bool = False, boards: int = 1) -> str:
    """The row label of an installed agent's policy: its name, with the weights file it plays in
    this game where it has one (``dqn-explored (dqn_explored.pt)``; in hard mode its hard-mode
    weights', :func:`playing`), else its own name where that names the agent."""
    path = getattr(getattr(playing(policy, hard_mode, boards), "checkpoint", None), "path", None)
    if path:
        return f"{agent} ({os.path.basename(str(path))})"
    name = str(getattr(policy, "name", "") or "")
    return name if name.startswith(agent) else f"{agent} ({name})" if name else agent


def _oracle() -> Any:
    """The optimal agent, whose ``regret_report`` measures each decision (through the registry: the
    tools import no agent code)."""
    return make_agent("optimal", {})


def cmd_dataset(args: DatasetOptions) -> int:
    from wordle_gym.integrations.minari import dataset_path, write_dataset

    policy, answers, allowed = _policy(args)
    config = _game_config(args, answers, allowed)
    dataset = write_dataset(
        args.id, policy, config, epsilon=args.epsilon, seed=args.seed or 0, device=args.device
    )
    print(
        f"wrote Minari dataset {args.id}: {dataset.total_episodes} episodes, {dataset.total_steps} "
        "steps, in "
        f"{dataset_path(args.id)} (minari.load_dataset({args.id!r}); MINARI_DATASETS_PATH moves it)"
    )
    return 0


# ---------------------------------------------------------------------------- analyze
def _check_hard_mode(args: Lists, guesses: list[str]) -> None:
    """Refuse a game whose guess breaks hard mode (the game would have refused it), naming the rule
    it breaks."""
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


# ------------------------------------------------------------------------------ solve
def cmd_solve(args: SolveOptions) -> int:
    env = WordleVectorEnv(
        1,
        device=args.device,
        answers=word_source(args.answers),
        allowed=word_source(args.allowed),
        hard_mode=args.hard,
        max_guesses=args.max_guesses,
    )
    observations, infos = env.reset(options={"answers": [args.word.lower()]})
    solver = make_agent(args.agent, agent_options(args), device=str(env.device))
    while True:
        action = solver.act(observations, infos["action_mask"].view(torch.bool), env)
        observations, _, terminated, _, infos = env.step(action)
        word = env.words[int(action[0])]
        row = ansi_row(word, infos["tiles"][0].tolist())
        left = "" if terminated[0] else f"  {len(candidates(env))} left"
        print(row + left)
        if bool(terminated[0]):
            turns = int(env.state.turn[0])
            won = bool(infos["won"][0])
            print(f"Solved in {turns}." if won else f"Not solved in {turns}.")
            return 0 if won else 1


# ----------------------------------------------------------------------------- agents
def cmd_agents(args: argparse.Namespace) -> int:
    """Each installed agent: what it is (its ``description``) and the options it takes."""
    from wordle_gym.harness.registry import accepted_options, load_factory

    width = max([len(name) for name in agent_names()] + [12]) + 2
    for name in agent_names():
        try:
            factory = load_factory(name)
        except ValueError as exc:
            print(f"{name:{width}}unavailable: {exc}")
            continue
        accepted = accepted_options(factory)
        takes = "any" if accepted is None else ", ".join(sorted(accepted - {"device"})) or "none"
        print(f"{name:{width}}{getattr(factory, 'description', '') or '(no description)'}")
        print(f"{'':{width}}options: {takes}")
    return 0


# ------------------------------------------------------------------------------- main
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


@dataclass(kw_only=True)
class PlayOptions(Lists):
    command = "play"
    answer: str | None = None
    """Play this answer (default: random)."""
    seed: int | None = field(default=None, metadata={"parse": integer(0)})
    """Seed for the random answer."""


@dataclass(kw_only=True)
class AssistOptions(AgentChoice, Lists):
    command = "assist"
    top: int = field(default=5, metadata={"parse": integer(1)})
    """Suggestions to show."""
    optimal: bool = False
    """Show each suggestion's exact expected guesses (agent 'optimal')."""


@dataclass(kw_only=True)
class EvalOptions(AgentChoice, Lists):
    command = "eval"
    lists_from_agent = True
    checkpoint: str | None = field(default=None, metadata={"metavar": "PATH"})
    """Weights of a trained agent (a2c, dqn: default the best shipped), or an SB3 zip."""
    sb3_algo: str | None = None
    """sb3: ppo, dqn or maskable_ppo (default: read from the zip)."""
    candidates_only: bool = False
    """max-entropy: guess only possible answers."""
    device: str = "auto"
    """cpu, cuda or auto."""
    seed: int | None = field(default=None, metadata={"parse": integer(0)})
    """random: seed (default 0)."""
    split: str | None = field(
        default=None, metadata={"parse": choice(SPLITS), "metavar": "{" + ",".join(SPLITS) + "}"}
    )
    """Play only this part of the answers' seeded train/eval split (eval: 315 held out), in the
    whole game."""
    split_seed: int = field(default=0, metadata={"parse": integer(0)})
    """Seed of the split's shuffle."""
    held_out: str | None = None
    """With --split: a file of the eval answers (e.g. NeMo Gym's 315), not the seeded."""
    boards: int = field(default=1, metadata={"parse": integer(1, 32)})
    """Boards per game: 2 Dordle, 4 Quordle, ..., 32; plays the standard set of K-tuples."""
    games: int | None = field(default=None, metadata={"parse": integer(1, MAX_GAMES)})
    """With --boards K: games of the standard set (default 2000, at most 1,000,000)."""
    regret: bool = False
    """The exact regret of every decision (agent 'optimal'; the JSON keeps them all and the 20
    costliest positions)."""
    json: str | None = field(default=None, metadata={"metavar": "PATH"})
    """Also write the result as JSON."""


@dataclass(kw_only=True)
class DatasetOptions(AgentChoice, Lists):
    command = "dataset"
    lists_from_agent = True
    id: str
    """The dataset's id, e.g. wordle/optimal-v0 (Minari's NAMESPACE/NAME-vN)."""
    epsilon: float = field(default=0.0, metadata={"parse": _probability})
    """Chance of a random allowed guess instead of the agent's."""
    checkpoint: str | None = field(default=None, metadata={"metavar": "PATH"})
    """Weights of a trained agent."""
    device: str = "cpu"
    """cpu, cuda or auto."""
    seed: int | None = field(default=None, metadata={"parse": integer(0)})
    """Seed of the noise (and of the random agent; default 0)."""


@dataclass(kw_only=True)
class SolveOptions(AgentChoice, Lists):
    command = "solve"
    word: str = field(metadata={"positional": True})
    """The answer to solve."""
    checkpoint: str | None = field(default=None, metadata={"metavar": "PATH"})
    """Weights of a trained agent."""
    device: str = "cpu"
    """cpu, cuda or auto."""


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


@dataclass(frozen=True)
class Command:
    """A command of wordle-gym: what it does, its options and the function that runs them."""

    help: str
    options: type
    run: Callable[[Any], int]


COMMANDS = {
    "play": Command("play a game in the terminal", PlayOptions, cmd_play),
    "assist": Command("get suggestions while you play the real game", AssistOptions, cmd_assist),
    "eval": Command(
        "evaluate an agent on every answer (a trained one: of the game it learned, unless --game "
        "or --answers names another)",
        EvalOptions,
        cmd_eval,
    ),
    "solve": Command("show an agent's game for one answer", SolveOptions, cmd_solve),
    "dataset": Command(
        "play every answer with an agent and write a Minari dataset (offline RL)",
        DatasetOptions,
        cmd_dataset,
    ),
    "analyze": Command(
        "the exact skill (regret) and luck of each guess of a game you played",
        AnalyzeOptions,
        cmd_analyze,
    ),
}
"""The env's own commands (``bench`` and the agents' commands have tables of their own)."""
ONE_BOARD_AGENTS = ("optimal", "sb3", "llm")
SEVERAL_BOARDS = "dqn-boards, dqn-explored, a2c-boards, max-entropy or random"
"""The installed agents that play several boards, as a refusal names them."""
"""Installed agents that play one board only (their trees, models and chats are of one game)."""


def build_parser() -> argparse.ArgumentParser:
    from wordle_gym.core import __version__

    parser = OneLineParser(
        prog="wordle-gym", description="Wordle: play, get hints, evaluate agents."
    )
    parser.add_argument("--version", action="version", version=f"wordle-gym {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        add_options(
            sub.add_parser(name, help=command.help, description=command.help), command.options
        )
    sub.add_parser(
        "bench",
        help="evaluate every agent into wordle-gym-bench/BENCHMARKS.md (see wordle-gym bench -h)",
        add_help=False,
    )
    listing = "list the installed agents and their options"
    sub.add_parser("agents", help=listing, description=f"{listing[0].upper()}{listing[1:]}.")
    # run by wordle_gym.cli.main before this parser; listed here for --help
    for name in command_names():
        if name not in sub.choices:
            sub.add_parser(
                name, help=f"{command_help(name)} (wordle-gym {name} --help)", add_help=False
            )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # the benchmark table has its own options
        from wordle_gym.cli.bench import main as bench

        try:
            return bench(argv[1:])
        except (ValueError, OSError, DependencyNotInstalled) as exc:
            print(f"wordle-gym bench: error: {one_line(exc)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("\nwordle-gym bench: interrupted", file=sys.stderr)
            return 130
    parser = build_parser()
    parsed = parser.parse_args(argv)
    command = COMMANDS.get(parsed.command)
    args: Any = parsed
    if command is not None:
        try:
            args = options_from(command.options, parsed)
        except (ValueError, TypeError) as exc:
            parser.error(str(exc))
    try:
        return command.run(args) if command is not None else cmd_agents(args)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly, as other tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (UsageError, ValueError, TypeError, OSError, ImportError, DependencyNotInstalled) as exc:
        print(f"wordle-gym {parsed.command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
