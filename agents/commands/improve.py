"""``python -m wordle_agents.commands.improve``: policy iteration of a network by its own rollouts.

    python -m wordle_agents.commands.improve --init agents/checkpoints/dqn_full.pt \\
        --out dqn_improved.pt [--run-dir runs/improve] [--iterations 10] [--top 32] \\
        [--screen 32] [--explore 4] [--epochs 150] [--hard] [--max-minutes 60]

No solver and no teacher: only the game and its reward. Each iteration plays every answer with the
network, values its best guesses at every position by finishing the games with its own play, and
distils the improved policy into it (:mod:`wordle_agents.methods.policy_iteration` says how). The
best network (by wins, then mean guesses) is written to ``--out``, float16, with the figures its
float16 weights play and what it learned from. The run folder's ``last.pt`` holds everything: the
same command continues the run exactly as if it had not stopped.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from wordle_agents.common.checkpoint import half_weights, network_checkpoint
from wordle_agents.common.training import machine, machines
from wordle_agents.methods.policy_iteration import (
    ImproveOptions,
    Iteration,
    Run,
    fixed_openers,
    iterate,
    method,
    positions,
)
from wordle_agents.rl.networks import load_network
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.words import GAME_OPTION, game_lists, word_source
from wordle_gym.utils.commandline import OneLineParser, add_options, options_from
from wordle_gym.utils.device import resolve_device
from wordle_gym.utils.files import atomic_torch_save, check_writable, one_line, path_lock

PROG = "python -m wordle_agents.commands.improve"


@dataclass(frozen=True)
class NetworkRun:
    """What a run of a command that improves a network is (``improve``'s, ``improve_boards``')."""

    init: str
    """The A2C or DQN weights to improve."""
    out: str
    """Write the best network here (.pt, float16)."""
    run_dir: str = "runs/improve"
    """Folder of last.pt: the same command continues the run."""
    iterations: int = 10
    """Iterations in all."""
    reward: str = "default"
    """The env's reward preset the rollouts earn ('default': -1 a guess, -5 for a loss)."""
    game: str | None = field(default=None, metadata=GAME_OPTION)
    """The lists of a game: original (the default), nyt (its 2309 answers of 2022) or today (the
    NYT's game today: 3158 answers, 14855 guesses)."""
    answers: str | None = None
    """Answer list: a name or a file (default: the game's)."""
    allowed: str | None = None
    """Allowed guesses: a name or a file (default: the game's)."""
    device: str = "cpu"
    """cpu, cuda or auto."""
    max_minutes: float | None = None
    """Start no new iteration after this many minutes (at least one is done); the same command
    continues."""

    def __post_init__(self) -> None:
        lists = game_lists(self.game, self.answers, self.allowed)  # --game names both lists
        object.__setattr__(self, "answers", lists[0])
        object.__setattr__(self, "allowed", lists[1])
        if isinstance(self.iterations, bool) or not self.iterations >= 1:
            raise ValueError(f"iterations must be >= 1; got {self.iterations!r}")
        if self.max_minutes is not None and not (
            math.isfinite(self.max_minutes) and self.max_minutes > 0
        ):
            raise ValueError(
                f"max-minutes must be a number of minutes > 0; got {self.max_minutes!r}"
            )


@dataclass(frozen=True)
class ImproveRun(NetworkRun):
    """What a run is (the improvement options are :class:`ImproveOptions`)."""

    hard: bool = False
    """Hard mode."""


def _parser(prog: str = PROG) -> OneLineParser:
    parser = OneLineParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_options(parser, ImproveRun, title="the run")
    add_options(
        parser, ImproveOptions, title="each iteration (may change from one command to the next)"
    )
    return parser


def _fingerprint(path: str) -> str:
    """The init weights' identity: a run continues only from the same file contents."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def _read_last(last: Path) -> Any:
    if not last.is_file():
        raise ValueError(f"{str(last)!r} is not a file; use another --run-dir")
    try:
        return torch.load(last, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a damaged file
        raise ValueError(
            f"{str(last)!r} is damaged ({type(exc).__name__}); delete it to start over"
        ) from None


def resume(run: Any, last: Path, settings: dict[str, Any]) -> Any:
    """Continue ``run`` (its ``load_state_dict``) from the run folder's ``last.pt`` when there is
    one, and return that state (None: a new run). A file of another run (other ``settings``) or of
    no run is a ``ValueError`` that says so in one line; a setting the file lacks (a run from before
    it was kept) is not checked."""
    if not last.exists():
        return None
    state = _read_last(last)
    theirs = state.get("settings") if isinstance(state, dict) else None
    if not isinstance(theirs, dict):
        raise ValueError(
            f"{str(last)!r} is not an improvement run's state; delete it to start over"
        )
    differ = sorted(k for k in settings if k in theirs and theirs[k] != settings[k])
    if differ:
        raise ValueError(
            f"{last} is a run with other settings ({', '.join(differ)}); use another --run-dir"
        )
    try:
        run.load_state_dict(state)
    # torch's own refusal is a RuntimeError listing every key
    except (ValueError, RuntimeError, KeyError) as exc:
        why = one_line(exc, 200)
        raise ValueError(
            f"{str(last)!r} holds another network ({why}); use the run's --init or another "
            "--run-dir"
        ) from None
    return state


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    parser = _parser(prog)
    args = parser.parse_args(argv)
    try:
        run_options = options_from(ImproveRun, args)
        options = options_from(ImproveOptions, args)
    except (ValueError, TypeError) as exc:
        print(f"{prog}: error: {one_line(exc)} (see {prog} --help)", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        run, config = _improve(run_options, options, start)
    except (ValueError, OSError, ImportError) as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"\n{prog}: interrupted; the same command continues from the last iteration",
            file=sys.stderr,
        )
        return 130
    return _write(run, config, run_options, options)


def _improve(args: ImproveRun, options: ImproveOptions, start: float) -> tuple[Run, WordleConfig]:
    run_dir = Path(args.run_dir)
    config = WordleConfig(
        answers=word_source(args.answers),
        allowed=word_source(args.allowed),
        hard_mode=args.hard,
        reward=args.reward,
    )
    # clear errors for a file that is no checkpoint
    agent = load_network(args.init, resolve_device(args.device))
    agent.check_game(config)
    # the outputs, once the inputs are sound (a refused command leaves no folder behind)
    check_writable(args.out)
    check_writable(run_dir, folder=True)
    agent.use_words(list(config.vocabulary.allowed))
    run = Run(agent)
    # What a run is; the options of ImproveOptions may change from one command to the next.
    settings = {
        "init": args.init,
        "reward": args.reward,
        "hard": args.hard,
        "answers": list(config.vocabulary.answers),
        "allowed": list(config.vocabulary.allowed),
        "init_sha256": _fingerprint(args.init),
    }
    with path_lock(run_dir, "improving"):
        last = run_dir / "last.pt"
        state = resume(run, last, settings)
        if state is not None:
            print(f"resuming {last}: {len(run.history)} iterations done, {len(run.data)} labels")
            if "rng" not in state:
                # dropout, as runs before its state was kept
                torch.manual_seed(options.seed + len(run.history))
        else:
            torch.manual_seed(options.seed)  # dropout
        deadline = start + 60 * args.max_minutes if args.max_minutes else math.inf

        def save(run: Run) -> None:
            atomic_torch_save(last, {**run.state_dict(), "settings": settings})

        iterate(run, config, args.iterations, options, deadline, save=save)
    return run, config


def _write(run: Run, config: WordleConfig, args: ImproveRun, options: ImproveOptions) -> int:
    """The best network, float16, with the figures its float16 weights play and what it learned
    from."""
    agent = run.agent
    assert run.best_state is not None and run.best_key is not None
    agent.net.load_state_dict(run.best_state)
    init = agent.checkpoint  # the weights improved: their provenance carries over
    real = args.answers == "answers" and args.allowed == "allowed"
    data = network_checkpoint(
        agent,
        config.vocabulary,
        args.hard,
        real,
        figures={"win_rate": run.best_key[0], "mean_guesses": -run.best_key[1]},
        training_s=run.seconds + float(getattr(init, "training_s", None) or 0.0),
        teacher=getattr(init, "teacher", None),
        method=method(run.history),
        method_reward=args.reward,
        improving={
            "iterations": len(run.history),
            "epochs": options.epochs,
            "lr": options.lr,
            "seconds": run.seconds,
            "history": [asdict(h) for h in run.history],
        },
        curriculum=_curriculum(run, args, options),
        machine=machines(init, run.seconds, machine(agent.device)),
    )
    data = half_weights(data)
    # the figures recorded are what the float16 weights play
    agent.net.load_state_dict(data["model"])
    games = positions(agent, config)[1]
    win_rate, mean = games.win_rate, games.mean_guesses_wins
    if (win_rate, mean) != (run.best_key[0], -run.best_key[1]):
        data["figures"].update(
            float32_win_rate=run.best_key[0], float32_mean_guesses=-run.best_key[1]
        )
    data["figures"].update(win_rate=win_rate, mean_guesses=mean)
    atomic_torch_save(args.out, data)
    print(f"wrote {args.out}: {100 * win_rate:.2f} % wins, mean {mean:.4f}")
    return 0


def _curriculum(run: Run, args: ImproveRun, options: ImproveOptions) -> str:
    """The checkpoint's one-paragraph account of how the run went."""
    history = run.history
    tops = "/".join(str(t) for t in sorted({h.top for h in history})) or str(options.top)
    deep = [h for h in history if h.deep_top]
    pairs = sorted({(h.deep_top, h.deep_random) for h in deep})
    looks = "; ".join(f"the best {t} and {r} random guesses" for t, r in pairs)
    more = (
        (
            f" ({len(deep)} of them one guess deeper: {looks}, where >= {options.deep_answers} "
            "answers)"
        )
        if deep
        else ""
    )
    more += "".join(f"; {clause}" for clause in _other_looks(history, options))
    return (
        f"policy iteration by its own rollouts (the best of its top {tops} guesses at every "
        "position by reward "
        f"{args.reward!r}, distilled), {len(history)} iterations{more}, from {args.init}"
    )


def _other_looks(history: list[Iteration], options: ImproveOptions) -> Iterator[str]:
    """The account's clauses for the iterations that looked further: with the critic's guesses,
    exploring starts, other first guesses, a first guess fixed by hand."""
    screened = sorted({h.screen for h in history if h.screen})
    if screened:
        yield (
            f"{sum(h.screen > 0 for h in history)} with the critic's best "
            f"{'/'.join(map(str, screened))}"
        )
    explored = [h for h in history if h.explore]
    if explored:
        others = "/".join(map(str, sorted({h.explore for h in explored})))
        yield (
            f"{len(explored)} with exploring starts ({others} other guesses where >= "
            f"{options.explore_answers})"
        )
    rooted = sorted({h.explore_root for h in history if h.explore_root})
    if rooted:
        yield (
            f"{sum(h.explore_root > 0 for h in history)} with {'/'.join(map(str, rooted))} "
            "other first guesses"
        )
    if fixed := fixed_openers(history):
        yield fixed


if __name__ == "__main__":
    sys.exit(main())
