"""``wordle-gym assist``: suggestions while you play the real game (``--optimal``: each guess
valued exactly)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wordle_gym.cli.shared import (
    QUIT,
    AgentChoice,
    Lists,
    UsageError,
    _check_guess,
    _read,
    agent_options,
    candidates,
    waiting,
)
from wordle_gym.core.words import (
    word_source,
)
from wordle_gym.harness.registry import (
    make_agent,
)
from wordle_gym.utils.commandline import (
    integer,
)

if TYPE_CHECKING:
    from wordle_gym.envs.vector import WordleVectorEnv

ASSIST_HELP = (
    "Type the guess you made and the colours you saw: 'salet gy..g' (g green, y yellow, . or b "
    "grey)\nor 'salet 21002' (2 green, 1 yellow, 0 grey). Commands: undo, new (another game), "
    "help, quit."
)


def _assistant(args: AssistOptions) -> tuple[WordleVectorEnv, Any]:
    from wordle_gym.envs.vector import WordleVectorEnv

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
    _print_suggestions(suggestions, costs, getattr(solver, "score_unit", "score"), len(left), top)


def _print_suggestions(
    suggestions: list[tuple[str, float, bool]],
    costs: list[float | None] | None,
    unit: str,
    left: int,
    top: int,
) -> None:
    """The suggested guesses with their scores (in ``unit``) and, where valued, exact costs."""
    print(
        f"Suggestions ({unit}"
        + ("; exact: expected guesses to solve, this one included" if costs else "")
        + "):"
    )
    # a word that cannot be the answer is shown only where it tells more than every candidate
    # (where it ties one, the candidate is the better guess: it may win), not as padding
    most = max((score for _, score, answer in suggestions if answer), default=None)
    for i, (word, score, is_candidate) in enumerate(suggestions):
        if most is not None and not is_candidate and score <= most and left <= top:
            continue
        shown = ""
        if costs is not None:
            shown = (
                "  exact: refused in hard mode" if costs[i] is None else f"  exact {costs[i]:.4f}"
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
    import torch

    from wordle_gym.core.rules import GREEN, parse_tiles
    from wordle_gym.envs.render import ansi_row

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


@dataclass(kw_only=True)
class AssistOptions(AgentChoice, Lists):
    command = "assist"
    top: int = field(default=5, metadata={"parse": integer(1)})
    """Suggestions to show."""
    optimal: bool = False
    """Show each suggestion's exact expected guesses (agent 'optimal')."""
