"""``python -m wordle_agents.commands.teach``: a network taught by the exact solver.

    python -m wordle_agents.commands.teach --init agents/checkpoints/a2c_full.pt \\
        --out a2c_taught.pt [--rounds 8] [--epochs 40] [--hard] [--max-minutes 60]

Behaviour cloning on the positions of optimal play, then DAgger rounds
(:mod:`wordle_agents.methods.dagger` says how). The best round's weights are written to ``--out``
(float16, with ``teacher: "optimal"``): learning here is imitation, not reward, and the tables keep
it apart from the reward-only agents.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, field

import torch

from wordle_agents.common.checkpoint import half_weights, network_checkpoint, read_checkpoint
from wordle_agents.common.training import machine
from wordle_agents.methods.dagger import Round, TeachOptions, teach
from wordle_agents.rl.a2c import A2CAgent, A2CConfig
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.words import GAME_OPTION, game_lists, word_source
from wordle_gym.solver.opener_tables import allowed_opener
from wordle_gym.solver.oracle import Oracle
from wordle_gym.utils.commandline import OneLineParser, add_options, options_from
from wordle_gym.utils.device import resolve_device
from wordle_gym.utils.files import atomic_torch_save, check_writable, one_line

PROG = "python -m wordle_agents.commands.teach"


@dataclass(frozen=True)
class TeachRun:
    """What is taught, and where the student goes (how it is taught is :class:`TeachOptions`)."""

    out: str
    """Write the best student here (.pt, float16)."""
    init: str | None = None
    """Start from these A2C weights (default: a fresh network)."""
    hidden: int = 512
    """Width of a fresh network."""
    hard: bool = False
    """Hard mode."""
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
    """Start no new round after this many minutes (at least one is done)."""
    seed: int = 0
    """Seed of a fresh network's weights and of dropout (the same seed and thread count repeat a
    run)."""

    def __post_init__(self) -> None:
        lists = game_lists(self.game, self.answers, self.allowed)  # --game names both lists
        object.__setattr__(self, "answers", lists[0])
        object.__setattr__(self, "allowed", lists[1])
        if self.max_minutes is not None and not (
            math.isfinite(self.max_minutes) and self.max_minutes > 0
        ):
            raise ValueError(
                f"max-minutes must be a number of minutes > 0; got {self.max_minutes!r}"
            )
        if isinstance(self.seed, bool) or self.seed < 0:
            raise ValueError(f"seed must be >= 0; got {self.seed!r}")


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    parser = OneLineParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_options(parser, TeachRun, title="the student")
    add_options(parser, TeachOptions, title="the teaching")
    args = parser.parse_args(argv)
    try:
        run, options = options_from(TeachRun, args), options_from(TeachOptions, args)
    except (ValueError, TypeError) as exc:
        print(f"{prog}: error: {one_line(exc)} (see {prog} --help)", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        check_writable(run.out)
        config = WordleConfig(
            answers=word_source(run.answers), allowed=word_source(run.allowed), hard_mode=run.hard
        )
        device = resolve_device(run.device)
        if run.init:
            read_checkpoint(run.init, "a2c")  # a clear error for a file that is no A2C checkpoint
            agent = A2CAgent.load(run.init, device)
            agent.check_game(config)
        else:
            agent = A2CAgent(
                A2CConfig(hidden=run.hidden, seed=run.seed), config.vocabulary.length, device
            )
        # A teacher that wins every game it can; SALET first where the lists allow it.
        oracle = Oracle(
            config, root_opener=allowed_opener(config.vocabulary, "salet"), avoid_losses=True
        )
        torch.manual_seed(run.seed)  # dropout
        deadline = start + 60 * run.max_minutes if run.max_minutes else math.inf
        state, history = teach(agent, oracle, options, deadline)
    except (ValueError, OSError, ImportError) as exc:
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return 130
    agent.net.load_state_dict(state)
    return _write(agent, config, run, options, history, time.perf_counter() - start)


def _write(
    agent: A2CAgent,
    config: WordleConfig,
    run: TeachRun,
    options: TeachOptions,
    history: list[Round],
    seconds: float,
) -> int:
    """The best round's student, float16, with its figures and what it learned from."""
    best = max(history, key=lambda h: (h.win_rate, -h.mean_guesses))
    init_s = float(getattr(agent.checkpoint, "training_s", None) or 0.0) if run.init else 0.0
    real = run.answers == "answers" and run.allowed == "allowed"
    mode = " (hard mode)" if run.hard else ""
    data = network_checkpoint(
        agent,
        config.vocabulary,
        run.hard,
        real,
        figures={"win_rate": best.win_rate, "mean_guesses": best.mean_guesses, "round": best.round},
        training_s=seconds + init_s,
        teacher="optimal",
        teaching={
            "rounds": best.round,
            "epochs": options.epochs,
            "lr": options.lr,
            "positions": best.positions,
            "seconds": seconds,
        },
        curriculum=f"taught by the exact solver{mode}: behaviour cloning, then DAgger; best at "
        f"round {best.round}" + (f", from {run.init}" if run.init else ""),
        machine=machine(agent.device),
    )
    atomic_torch_save(run.out, half_weights(data))
    print(
        f"wrote {run.out}: round {best.round}, {100 * best.win_rate:.2f} % wins, mean "
        f"{best.mean_guesses:.4f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
