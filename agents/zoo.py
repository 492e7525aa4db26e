"""The agents this package ships, in one explicit table.

Every agent of ``wordle_agents`` is a row of :data:`AGENTS`: its name (the entry point in
``pyproject.toml`` names the factory of the same name below), what builds it, a one-line description
(what it is and how it learned; ``wordle-gym agents`` shows it), the weights it plays by default and
the rows it gets in ``wordle-gym bench``. Nothing is found by matching file names or the text stored
in a checkpoint: a shipped file plays only where a row of this table names it, and
``tests/agents/test_zoo.py`` checks that each named file exists, that every shipped file is named,
and that the entry points are exactly these names.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wordle_agents.common.checkpoint import read_checkpoint, shipped_dir
from wordle_agents.llm.agent import LLMAgent
from wordle_agents.rl.networks import AllBoardsNetwork, BoardMixture, NormalHardPair, load_network
from wordle_agents.rl.sb3_policies import load as load_sb3
from wordle_agents.solvers.baselines import RandomPolicy
from wordle_agents.solvers.max_entropy import SCORES, MaxEntropySolver
from wordle_agents.solvers.optimal_agent import OptimalSolver
from wordle_gym.core.config import BOARD_NAMES
from wordle_gym.harness.registry import BenchRun

MULTI_BOARD_BENCH = {2: 2000, 4: 2000, 8: 500, 16: 200, 32: 100}
"""Games of each board count's standard set that ``wordle-gym bench`` plays (its first N: the whole
set of 2000 for Dordle and Quordle; ``python -m benchmarks.multi_board`` plays every set whole)."""

MIXTURE_BENCH = {2: 2000, 4: 500}
"""Games of the standard sets that one-board networks played on several boards
(:class:`BoardMixture`: a mixture of 12972-word softmaxes per board) play in ``wordle-gym bench``:
the whole Dordle set, a quarter of Quordle's."""


def _mixture_rows(label: str) -> tuple[BenchRun, ...]:
    """The multi-board bench rows of an agent that plays a one-board network as a
    :class:`BoardMixture`."""
    return tuple(
        BenchRun(
            f"{label}, a mixture over the boards, {BOARD_NAMES[k]}",
            {},
            {"boards": k, "games": games},
        )
        for k, games in MIXTURE_BENCH.items()
    )


TAUGHT = "Taught by a teacher (imitation, not reward)"
TODAY = {"answers": "answers_today", "allowed": "allowed_today"}
"""The lists of the game as the NYT plays it today (``--game today``): an agent's row on them (issue
78)."""


def _today(label: str, options: dict[str, Any] | None = None) -> BenchRun:
    """A row on today's game (3158 answers, 14855 guesses): the agent as shipped, whatever lists it
    learned on."""
    return BenchRun(f"{label}, today's game", options or {}, TODAY)


"""The bench section of networks that imitated a player instead of learning from the game's
reward."""


@dataclass(frozen=True)
class Agent:
    """One shipped agent: called with the agent's options, it builds the policy (what the entry
    point names)."""

    name: str
    """Its name: ``wordle-gym eval --agent NAME`` (and its entry point)."""
    build: Callable[..., Any]
    """Builds the policy from the agent's options (its signature is what ``wordle-gym agents``
    lists)."""
    about: str
    """One line: what it is and how it learned (its figures are read from its weights:
    :attr:`description`)."""
    rows: tuple[BenchRun, ...] = ()
    """Its rows in ``wordle-gym bench``."""
    weights: tuple[str, ...] = ()
    """Files under ``checkpoints/`` it plays, by default (the first) or in its bench rows, and its
    training logs (those under ``training/`` stay in the repository: they are not in the wheel)."""

    def __call__(self, **options: Any) -> Any:
        return self.build(**options)

    @property
    def description(self) -> str:
        """:attr:`about`, then the real-game figures its shipped networks recorded when they were
        made."""
        figures = self.figures()
        return f"{self.about}: {figures}" if figures else self.about

    def figures(self) -> str:
        """Win rate and mean guesses of each shipped network it plays by default (``win % / mean``;
        the hard-mode weights' marked; a network of several boards: each board count's, on its
        validation games), as the checkpoints record them; empty for an agent with no network."""
        found = []
        for file in self.weights:
            if not file.endswith(".pt") or file.startswith("training/"):
                continue
            recorded = read_checkpoint(shipped_dir() / file, None).get("figures") or {}
            if "win_rate" in recorded and "mean_guesses" in recorded:
                mode = "hard mode " if "_hard" in file else ""
                found.append(
                    f"{mode}{100 * recorded['win_rate']:.2f} % / {recorded['mean_guesses']:.4f}"
                )
            boards = [  # a network of several boards: its figures on its validation games
                f"{name} {100 * recorded[f'boards{k}_win_rate']:.2f} % / "
                f"{recorded[f'boards{k}_mean_guesses']:.4f}"
                for k, name in BOARD_NAMES.items()
                if f"boards{k}_win_rate" in recorded and f"boards{k}_mean_guesses" in recorded
            ]
            if boards:
                games = recorded.get("validation_games")
                found.append(
                    ", ".join(boards) + (f" (its {games} validation games each)" if games else "")
                )
        return ", ".join(found)

    @property
    def __signature__(self) -> inspect.Signature:
        """The options it takes are ``build``'s (the registry checks options against them)."""
        return inspect.signature(self.build)

    def bench_runs(self) -> list[BenchRun]:
        return list(self.rows)


def _in_this_install(path: Path) -> Path:
    """``path``, or where it is one of the repository's own weights (``checkpoints/training/``) that
    an install does not have, a FileNotFoundError that says so (``wordle-gym bench`` then names its
    row as skipped)."""
    if path.parent == shipped_dir() / "training" and not path.is_file():
        raise FileNotFoundError(
            f"{path.name} is not in this install: the repository keeps these weights "
            "(agents/checkpoints/training/: "
            "curriculum stages and a run's network); the wheel ships the final ones"
        )
    return path


def _network(default: str) -> Callable[..., Any]:
    """The factory of a shipped network: ``checkpoint`` or the shipped ``default``."""

    def build(checkpoint: str | None = None, device: Any = "cpu") -> Any:
        return load_network(
            _in_this_install(Path(checkpoint) if checkpoint else shipped_dir() / default), device
        )

    build.__doc__ = (
        f"The network of ``{default}``, or of ``checkpoint`` (any A2C or DQN checkpoint)."
    )
    return build


def _rows(*files: tuple[str, str], section: str | None = None) -> tuple[BenchRun, ...]:
    """One bench row per (weights file under ``checkpoints/``, its stage), labelled as the table has
    always labelled them. Files under ``training/`` (intermediate curriculum stages, kept in the
    repository for its tables, not in the wheel) keep their rows: where they are missing,
    ``wordle-gym bench`` names them as skipped."""
    return tuple(
        BenchRun(
            f"{Path(file).name.split('_')[0].upper()} `{Path(file).name}` (stage {stage})",
            {"checkpoint": str(shipped_dir() / file)},
            section=section,
        )
        for file, stage in files
    )


def _mixture(default: str) -> Callable[..., BoardMixture]:
    """The factory of a shipped one-board network played on any board count
    (:class:`BoardMixture`)."""

    def build(checkpoint: str | None = None, device: Any = "cpu") -> BoardMixture:
        return BoardMixture(load_network(checkpoint or shipped_dir() / default, device))

    build.__doc__ = (
        f"The one-board network of ``{default}`` (or of ``checkpoint``: any A2C or DQN one) on any "
        "board count."
    )
    return build


def _see_all(default: str) -> Callable[..., AllBoardsNetwork]:
    """The factory of a shipped network that sees every board (:class:`AllBoardsNetwork`)."""

    def build(checkpoint: str | None = None, device: Any = "cpu") -> AllBoardsNetwork:
        return AllBoardsNetwork.load(checkpoint or shipped_dir() / default, device)

    build.__doc__ = (
        f"The network of ``{default}`` (or of ``checkpoint``: one written by "
        "``improve_boards --see-all``)."
    )
    return build


def _by_mode(normal: str, hard: str, name: str | None = None) -> Callable[..., Any]:
    """The factory of two shipped networks as one policy (:class:`NormalHardPair`): ``hard``'s
    weights in a hard-mode game, ``normal``'s elsewhere; a ``checkpoint`` given plays
    everywhere."""

    def build(checkpoint: str | None = None, device: Any = "cpu") -> NormalHardPair:
        if checkpoint is not None:
            return NormalHardPair(_in_this_install(Path(checkpoint)), device=device, name=name)
        return NormalHardPair(shipped_dir() / normal, shipped_dir() / hard, device, name)

    build.__doc__ = (
        f"``{hard}``'s network in hard mode, ``{normal}``'s elsewhere, or "
        "``checkpoint``'s everywhere."
    )
    return build


AGENTS: dict[str, Agent] = {
    agent.name: agent
    for agent in (
        Agent(
            "optimal",
            OptimalSolver,
            "the exact solver: plays the optimal tree from its opener (by default the opener "
            "proven best on its lists: SALET on the real ones, TARSE on today's)",
            (
                BenchRun("optimal (SALET)", {"opener": "salet"}),
                BenchRun("optimal (SALET, hard mode)", {"opener": "salet"}, {"hard_mode": True}),
                _today("optimal (the opener proven best: TARSE)"),
            ),
        ),
        Agent(
            "max-entropy",
            MaxEntropySolver,
            "greedy solver: the guess of most information (or another --score) over all allowed "
            "words",
            (
                BenchRun("max-entropy (entropy, SALET)", {"opener": "salet"}),
                _today("max-entropy (entropy, SALET)", {"opener": "salet"}),
                BenchRun("max-entropy (entropy, own opener)", {}),
                *(
                    BenchRun(f"max-entropy ({s}, SALET)", {"score": s, "opener": "salet"})
                    for s in SCORES[1:]
                ),
                # Multi-board: every allowed word a guess up to 4 boards; from 8 on, the words still
                # possible on some board (scoring 12972 words for each of up to 32 boards costs
                # hours on a CPU).
                *(
                    BenchRun(
                        f"max-entropy, {BOARD_NAMES[k]} (from "
                        f"SALET{'; possible answers only' if k > 4 else ''})",
                        {"opener": "salet", "candidates_only": k > 4},
                        {"boards": k, "games": games},
                    )
                    for k, games in MULTI_BOARD_BENCH.items()
                ),
            ),
        ),
        Agent(
            "random",
            RandomPolicy,
            "uniform random guesses among those the mask allows (the table's floors)",
            (
                BenchRun("random (all words)", {"seed": 0}),
                BenchRun(
                    "random (remaining candidates)", {"seed": 0}, {"action_mask": "candidates"}
                ),
            ),
        ),
        Agent(
            "a2c",
            _network("a2c_full.pt"),
            "A2C, word one-hot policy (the A2C write-up's), reward only, curriculum 100 -> 1000 -> "
            "2315 -> full",
            (
                *_rows(
                    ("training/a2c_1000.pt", "1000"),
                    ("training/a2c_2315.pt", "2315"),
                    ("a2c_full.pt", "full"),
                ),
                _today("A2C `a2c_full.pt`"),
            ),
            (
                "a2c_full.pt",
                "training/a2c_1000.pt",
                "training/a2c_2315.pt",
                "training/a2c.metrics.jsonl",
            ),
        ),
        Agent(
            "a2c-boards",
            _mixture("a2c_full.pt"),
            "the a2c network on several boards: each guess the likeliest word of the mixture of "
            "the unsolved boards' policies (trained on one board only; its one-board figures)",
            _mixture_rows("A2C `a2c_full.pt`"),
            ("a2c_full.pt",),
        ),
        Agent(
            "a2c-improved",
            _network("a2c_improved.pt"),
            "the a2c network improved by its own rollouts (the game's reward only)",
            (*_rows(("a2c_improved.pt", "full")), _today("A2C `a2c_improved.pt`")),
            ("a2c_improved.pt",),
        ),
        Agent(
            "a2c-taught",
            _by_mode("a2c_taught.pt", "a2c_taught_hard.pt", "A2C taught by the exact solver"),
            "the a2c network taught by the exact solver (imitation; hard-mode weights in hard "
            "mode)",
            (
                *_rows(("a2c_taught.pt", "full"), ("a2c_taught_hard.pt", "full"), section=TAUGHT),
                _today("A2C `a2c_taught.pt`"),
            ),
            ("a2c_taught.pt", "a2c_taught_hard.pt"),
        ),
        Agent(
            "dqn",
            _network("dqn_full.pt"),
            "DQN, letter-decomposed Q, prioritized replay (the DQN write-up's), reward only",
            # its curriculum's stages 1000 and 2315 left the tree (the GPU transfer's 64 MiB); their
            # rows stay in the tables, their weights in the history (agents/checkpoints/README.md)
            (*_rows(("dqn_full.pt", "full")), _today("DQN `dqn_full.pt`")),
            ("dqn_full.pt", "training/dqn.metrics.jsonl"),
        ),
        Agent(
            "dqn-improved",
            _network("dqn_improved.pt"),
            "the dqn network improved by its own rollouts (the game's reward only)",
            (*_rows(("dqn_improved.pt", "full")), _today("DQN `dqn_improved.pt`")),
            ("dqn_improved.pt",),
        ),
        Agent(
            "dqn-today",
            _network("dqn_today.pt"),
            "the dqn-improved network improved on today's game (3158 answers, 14855 guesses) by "
            "its own rollouts (the game's reward only)",
            (_today("DQN `dqn_today.pt`"),),
            ("dqn_today.pt",),
        ),
        Agent(
            "dqn-explored",
            _by_mode("dqn_explored.pt", "dqn_explored_hard.pt"),
            "the dqn network improved by its own rollouts with exploring starts and a critic of "
            "answers left (the game's reward only, the first guess SALET fixed by hand in "
            "training; hard-mode weights in hard mode; on several boards a mixture of the boards' "
            "policies), the strongest reward-only agent",
            (
                *_rows(("dqn_explored.pt", "full"), ("dqn_explored_hard.pt", "full")),
                # the same method, its first guess found by exploring
                *_rows(("training/dqn_root.pt", "full")),
                *_mixture_rows("DQN `dqn_explored.pt`"),
                _today("DQN `dqn_explored.pt`"),
            ),
            ("dqn_explored.pt", "dqn_explored_hard.pt", "training/dqn_root.pt"),
        ),
        Agent(
            "dqn-boards",
            _see_all("dqn_boards.pt"),
            "the dqn-explored network taught Dordle and Quordle by its own rollouts on several "
            "boards, with a context network that sees every board (reward only; the first guess "
            "SALET fixed by hand in training)",
            tuple(
                BenchRun(
                    f"DQN `dqn_boards.pt`, seeing every board, {BOARD_NAMES[k]}",
                    {},
                    {"boards": k, "games": n},
                )
                for k, n in MIXTURE_BENCH.items()
            ),
            ("dqn_boards.pt",),
        ),
        Agent(
            "llm",
            LLMAgent,
            "a language model behind any OpenAI-compatible chat endpoint (-o base_url=URL -o "
            "model=NAME), each game one chat in the text env's words",
        ),
        Agent(
            "sb3",
            load_sb3,
            "a Stable-Baselines3 or sb3-contrib model zip (default: MaskablePPO on 100 words)",
            (
                BenchRun(
                    "SB3 `maskable_ppo_100.zip`",
                    {"checkpoint": str(shipped_dir() / "maskable_ppo_100.zip")},
                ),
            ),
            ("maskable_ppo_100.zip",),
        ),
    )
}


# The entry points (pyproject.toml) name these.
optimal = AGENTS["optimal"]
max_entropy = AGENTS["max-entropy"]
random = AGENTS["random"]
a2c = AGENTS["a2c"]
a2c_boards = AGENTS["a2c-boards"]
a2c_improved = AGENTS["a2c-improved"]
a2c_taught = AGENTS["a2c-taught"]
dqn = AGENTS["dqn"]
dqn_improved = AGENTS["dqn-improved"]
dqn_today = AGENTS["dqn-today"]
dqn_explored = AGENTS["dqn-explored"]
dqn_boards = AGENTS["dqn-boards"]
llm = AGENTS["llm"]
sb3 = AGENTS["sb3"]
