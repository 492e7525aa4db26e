"""``wordle-gym eval``: an agent on every answer (``--regret``: every decision against the
optimum)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

from wordle_gym.cli.shared import (
    MAX_GAMES,
    AgentChoice,
    Lists,
    _game_config,
    _oracle,
    _policy,
)
from wordle_gym.core.words import (
    SPLITS,
    Vocabulary,
    WordSource,
)
from wordle_gym.harness.registry import (
    playing,
)
from wordle_gym.utils.commandline import (
    choice,
    integer,
)

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

    _check_boards_options(args)
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
        _print_regret(regret)
        result.extra["regret"] = regret
    _print_lost(result.lost_answers, bool(args.json))
    if args.json:
        result.save(args.json)
        print(f"wrote {args.json}")
    return 0


def _check_boards_options(args: EvalOptions) -> None:
    """The options one board or several take (a ValueError naming the one given in vain)."""
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


def _print_regret(regret: dict[str, Any]) -> None:
    """``eval --regret``'s account: the regret per game by turn, and the costliest moves."""
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


def _print_lost(lost: list[str], json: bool) -> None:
    """The answers lost, the first LOST_SHOWN of them named (``json``: the file lists all)."""
    if not lost:
        return
    more = (
        f" (+{len(lost) - LOST_SHOWN} more{'' if json else '; --json lists all'})"
        if len(lost) > LOST_SHOWN
        else ""
    )
    print(f"lost {len(lost)}: " + ", ".join(lost[:LOST_SHOWN]) + more)


def agent_label(agent: str, policy: Any, hard_mode: bool = False, boards: int = 1) -> str:
    """The row label of an installed agent's policy: its name, with the weights file it plays in
    this game where it has one (``dqn-explored (dqn_explored.pt)``; in hard mode its hard-mode
    weights', :func:`playing`), else its own name where that names the agent."""
    path = getattr(getattr(playing(policy, hard_mode, boards), "checkpoint", None), "path", None)
    if path:
        return f"{agent} ({os.path.basename(str(path))})"
    name = str(getattr(policy, "name", "") or "")
    return name if name.startswith(agent) else f"{agent} ({name})" if name else agent


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


ONE_BOARD_AGENTS = ("optimal", "sb3", "llm")


SEVERAL_BOARDS = "dqn-boards, dqn-explored, a2c-boards, max-entropy or random"
"""The installed agents that play several boards, as a refusal names them."""
"""Installed agents that play one board only (their trees, models and chats are of one game)."""
