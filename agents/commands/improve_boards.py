"""``python -m wordle_agents.commands.improve_boards``: a network taught Dordle and Quordle by its
own rollouts.

    python -m wordle_agents.commands.improve_boards --init agents/checkpoints/dqn_explored.pt \\
        --out dqn_boards.pt [--boards 2,4] [--run-dir runs/boards] [--iterations 10] \\
        [--games 200] [--top 8] [--samples 16] [--max-minutes 60]

No solver and no teacher: only the game and its reward
(:mod:`wordle_agents.methods.policy_iteration_boards` says how). The best network (by wins on the
validation games, then mean guesses) is written to ``--out``, float16, with what it learned from and
its figures on the validation games. The run folder's ``last.pt`` holds everything: the same command
continues the run.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from wordle_agents.commands.improve import NetworkRun, _fingerprint, resume
from wordle_agents.common.checkpoint import half_weights, network_checkpoint, read_checkpoint
from wordle_agents.common.training import machine, machines
from wordle_agents.methods.policy_iteration_boards import (
    BoardsOptions,
    BoardsRunState,
    iterate,
    method,
    validate,
)
from wordle_agents.rl.networks import AllBoardsNetwork, load_network
from wordle_gym.core.config import MAX_BOARDS, WordleConfig
from wordle_gym.core.words import word_source
from wordle_gym.utils.commandline import OneLineParser, add_options, options_from
from wordle_gym.utils.device import resolve_device
from wordle_gym.utils.files import atomic_torch_save, check_writable, one_line, path_lock

PROG = "python -m wordle_agents.commands.improve_boards"


@dataclass(frozen=True)
class BoardsRun(NetworkRun):
    """What a run is (how each iteration works is :class:`BoardsOptions`)."""

    run_dir: str = "runs/boards"
    """Folder of last.pt: the same command continues the run."""
    boards: str = "2,4"
    """Board counts trained on, comma-separated (2 to 32)."""
    see_all: bool = False
    """Train a network that sees every board
    (:class:`~wordle_agents.rl.networks.AllBoardsNetwork`: a context network over the one-board
    network's scores of each board, starting as the mixture) instead of the mixture's one-board
    network."""
    context: int = 256
    """With ``--see-all``: the context network's width."""
    train_board: bool = False
    """With ``--see-all``: the one-board network learns too (by default it stays as it came)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.counts()
        if self.context < 1:
            raise ValueError(f"context must be >= 1; got {self.context}")
        if (self.train_board or self.context != 256) and not self.see_all:
            raise ValueError(
                "--context and --train-board shape the network of --see-all; add --see-all"
            )

    def counts(self) -> list[int]:
        """The board counts, checked."""
        parts = [p.strip() for p in self.boards.split(",")]
        if not all(p.isdigit() and 2 <= int(p) <= MAX_BOARDS for p in parts) or len(
            set(parts)
        ) < len(parts):
            expected = f"distinct board counts from 2 to {MAX_BOARDS}, e.g. 2,4"
            raise ValueError(f"boards must be {expected}; got {self.boards!r}")
        return [int(p) for p in parts]


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    parser = OneLineParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_options(parser, BoardsRun, title="the run")
    add_options(
        parser, BoardsOptions, title="each iteration (may change from one command to the next)"
    )
    args = parser.parse_args(argv)
    try:
        run_options = options_from(BoardsRun, args)
        options = options_from(BoardsOptions, args)
    except (ValueError, TypeError) as exc:
        print(f"{prog}: error: {one_line(exc)} (see {prog} --help)", file=sys.stderr)
        return 2
    try:
        run, configs = _teach(run_options, options, time.perf_counter())
        _write(run, configs, run_options, options)
    except (ValueError, OSError, ImportError) as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"\n{prog}: interrupted; the same command continues from the last iteration",
            file=sys.stderr,
        )
        return 130
    return 0


def _teach(
    args: BoardsRun, options: BoardsOptions, start: float
) -> tuple[BoardsRunState, dict[int, WordleConfig]]:
    run_dir = Path(args.run_dir)
    answers, allowed = word_source(args.answers), word_source(args.allowed)
    configs = {
        k: WordleConfig(answers=answers, allowed=allowed, boards=k, reward=args.reward)
        for k in args.counts()
    }
    vocabulary = next(iter(configs.values())).vocabulary
    longest = max(config.max_guesses for config in configs.values())
    agent = _start(args, longest)
    # the outputs, once the inputs are sound (a refused command leaves no folder behind)
    check_writable(args.out)
    check_writable(run_dir, folder=True)
    agent.use_words(list(vocabulary.allowed))
    run = BoardsRunState(agent)
    settings = {
        "init": args.init,
        "boards": args.counts(),
        # toggled on resume: refused
        "see_all": [args.context, args.train_board] if args.see_all else False,
        "reward": args.reward,
        "answers": list(vocabulary.answers),
        "allowed": list(vocabulary.allowed),
        "init_sha256": _fingerprint(args.init),
    }
    with path_lock(run_dir, "improving"):
        last = run_dir / "last.pt"
        if resume(run, last, settings) is not None:
            print(f"resuming {last}: {len(run.history)} iterations done")
        else:
            torch.manual_seed(0)
        deadline = start + 60 * args.max_minutes if args.max_minutes else math.inf

        def save(run: BoardsRunState) -> None:
            atomic_torch_save(last, {**run.state_dict(), "settings": settings})

        iterate(run, configs, args.iterations, options, deadline, save=save)
    return run, configs


def _start(args: BoardsRun, longest: int) -> Any:
    """The network a run starts from: ``--init``'s one-board network (with a new context over it,
    ``--see-all``), or, with ``--see-all``, a network that sees every board (a new run from its
    weights)."""
    device = resolve_device(args.device)
    # (clear errors for a file that is none)
    if read_checkpoint(args.init, None).get("kind") == AllBoardsNetwork.kind:
        if not args.see_all:
            raise ValueError(
                f"{args.init!r} is a network that sees every board; add --see-all to "
                "go on training it"
            )
        seeing = AllBoardsNetwork.load(args.init, device, freeze_board=not args.train_board)
        if seeing.hidden != args.context or seeing.max_guesses < longest:
            raise ValueError(
                f"{args.init!r} has a context {seeing.hidden} wide for games of up to "
                f"{seeing.max_guesses} guesses; "
                f"this run asks for --context {args.context} and {longest} guesses"
            )
        return seeing
    agent = load_network(args.init, device)
    if agent.boards != 1:
        raise ValueError(
            f"{args.init!r} is a network of {agent.boards} boards; this teaches a one-board network"
        )
    if not args.see_all:
        return agent
    torch.manual_seed(0)  # the context's first weights
    return AllBoardsNetwork(agent, longest, args.context, freeze_board=not args.train_board)


def _then(before: str | None, done: str) -> str:
    """A method's account: ``done`` after what the network's checkpoint says was done ``before``
    (said once where a run continues such a run's network)."""
    if before is None:
        return done
    return before if before.endswith(done) else f"{before}, then {done}"


def _seeing_checkpoint(seeing: AllBoardsNetwork, board: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint of the network that sees every board: the one-board network's ``board``
    checkpoint and the context's weights (float16, and loaded so, as played)."""
    context = {name: weight.half() for name, weight in seeing.context.state_dict().items()}
    seeing.context.load_state_dict(context)
    shape = {"max_guesses": seeing.max_guesses, "hidden": seeing.hidden}
    return {"kind": AllBoardsNetwork.kind, "board": board, "context": context, **shape}


def _write(
    run: BoardsRunState, configs: dict[int, WordleConfig], args: BoardsRun, options: BoardsOptions
) -> None:
    """The best network, float16, with its figures on the validation games (played by the float16
    weights)."""
    seeing = run.agent if isinstance(run.agent, AllBoardsNetwork) else None
    assert run.best_state is not None
    run.agent.net.load_state_dict(run.best_state)
    agent = run.agent.agent if seeing is not None else run.agent
    init = agent.checkpoint
    vocabulary = next(iter(configs.values())).vocabulary
    real = args.answers == "answers" and args.allowed == "allowed"
    before = getattr(init, "method", None) or None
    through = "the network that sees every board" if seeing is not None else "the mixture"
    # said once for a run from such a run's network
    done = method(run.history, list(configs), seeing is not None)
    data = network_checkpoint(
        agent,
        vocabulary,
        False,
        real,
        figures={},
        training_s=run.seconds + float(getattr(init, "training_s", None) or 0.0),
        teacher=getattr(init, "teacher", None),
        method=_then(before, done),
        method_reward=args.reward,
        boards_training={
            "boards": list(configs),
            "iterations": len(run.history),
            "options": asdict(options),
            "seconds": run.seconds,
            "history": [asdict(h) for h in run.history],
        },
        curriculum=(
            f"own-policy rollouts on {', '.join(str(k) for k in configs)} boards (the best of its "
            f"top {options.top} guesses at every position of {options.games} fresh games a board "
            f"count by reward {args.reward!r} over {options.samples} answer tuples, distilled "
            f"through {through}), {len(run.history)} iterations, from {args.init}"
        ),
        machine=machines(init, run.seconds, machine(agent.device)),
    )
    data = half_weights(data)
    agent.net.load_state_dict(data["model"])
    if seeing is not None:
        data = _seeing_checkpoint(seeing, data)
    figures = validate(run.agent, configs, options.validation)
    data["figures"] = {
        "validation_games": options.validation,
        **{f"boards{k}_win_rate": f[0] for k, f in figures.items()},
        **{f"boards{k}_mean_guesses": f[1] for k, f in figures.items()},
    }
    atomic_torch_save(args.out, data)
    said = ", ".join(f"{k} boards {100 * w:.2f} % / {m:.4f}" for k, (w, m, _) in figures.items())
    print(f"wrote {args.out}: on {options.validation} validation games, {said}")


if __name__ == "__main__":
    sys.exit(main())
