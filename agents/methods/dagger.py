"""A network taught by the exact oracle: behaviour cloning on the positions of optimal play, then
DAgger (the student plays every answer, the oracle labels every position it reaches, the student
trains on all labels so far) until a round brings nothing better.

    python -m wordle_agents.commands.teach --init agents/checkpoints/a2c_full.pt \\
        --out a2c_taught.pt [--rounds 8] [--epochs 40] [--hard] [--max-minutes 60]

The student is the project's A2C word-scoring network (a sum of letter-position scores per word; any
single word can be made the argmax, so optimal play is within its reach); the teacher is
:class:`wordle_gym.solver.oracle.Oracle` (``best_action``: the exact search's own optimal guess,
SALET first on the real lists). Each round's student is evaluated greedily on every answer (the same
games that give the next labels); the best round's weights are written to ``--out`` (float16, with
``teacher: "optimal"``). Learning here is imitation, not reward: the checkpoint says so, and the
tables keep it apart from the reward-only agents.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import torch

from wordle_agents.common.network import WordAgent
from wordle_agents.rl.a2c import A2CAgent
from wordle_gym.harness.play import play as play_games
from wordle_gym.solver.oracle import Oracle


@dataclass
class Round:
    """What one round of teaching did."""

    round: int
    positions: int  # labelled positions so far
    win_rate: float  # the student's greedy play on every answer, before this round's training
    mean_guesses: float  # on wins
    mean_all: float  # losses counted as max_guesses + 1
    seconds: float


@dataclass(frozen=True)
class TeachOptions:
    """How the student is taught."""

    rounds: int = 8
    """DAgger rounds."""
    epochs: int = 40
    """Epochs over all labels per round."""
    lr: float = 3e-4
    """Adam learning rate."""

    def __post_init__(self) -> None:
        for name in ("rounds", "epochs"):
            if isinstance(getattr(self, name), bool) or not getattr(self, name) >= 1:
                raise ValueError(f"{name} must be >= 1; got {getattr(self, name)!r}")
        if not (math.isfinite(self.lr) and 0 < self.lr <= 1):
            raise ValueError(f"lr must be a number in (0, 1]; got {self.lr!r}")


class OraclePolicy:
    """The oracle as a harness policy (the teacher's own play)."""

    def __init__(self, oracle: Oracle) -> None:
        self.oracle = oracle

    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        positions = self.oracle.positions(env.game, env.state)
        done = env.state.done.tolist()
        actions = [0 if done[i] else self.oracle.best_action(p) for i, p in enumerate(positions)]
        return torch.tensor(actions, dtype=torch.int64, device=env.device)


class _Recorder:
    """``policy``, recording each position its games meet (keyed by the observation, which
    determines it, with the oracle's position) before it acts."""

    def __init__(self, policy: Any, oracle: Oracle) -> None:
        self.policy, self.oracle = policy, oracle
        self.seen: dict[bytes, tuple[torch.Tensor, Any]] = {}

    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        positions = self.oracle.positions(env.game, env.state)
        rows = observations.cpu()
        for i in (~env.state.done).nonzero().flatten().tolist():
            self.seen.setdefault(rows[i].numpy().tobytes(), (rows[i], positions[i]))
        return self.policy.act(observations, action_masks, env)


@torch.no_grad()
def play(
    policy: Any, oracle: Oracle, device: torch.device
) -> tuple[dict[bytes, tuple[torch.Tensor, Any]], dict]:
    """Every answer once with ``policy``: each position reached (keyed by its observation, which
    determines it) with its observation, and the greedy figures (as the harness computes them)."""
    recorder = _Recorder(policy, oracle)
    games = play_games(recorder, oracle.config, device=device, check=False)
    figures = {
        "win_rate": games.win_rate,
        "mean_guesses": games.mean_guesses_wins,
        "mean_all": games.mean_guesses_all,
    }
    return recorder.seen, figures


def train(
    agent: WordAgent,
    observations: torch.Tensor,
    labels: torch.Tensor,
    epochs: int,
    lr: float,
    batch: int = 512,
    seed: int = 0,
) -> float:
    """Cross-entropy of each label (a guess) under the student's softmax over every word (its word
    scores as logits: an A2C's policy, or a DQN's action values); the last epoch's loss."""
    net = agent.net
    net.train()
    # one call per step, not per tensor
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, foreach=True)
    generator = torch.Generator().manual_seed(seed)
    observations, labels = observations.to(agent.device), labels.to(agent.device)
    loss = torch.zeros(())
    for _ in range(epochs):
        order = torch.randperm(len(labels), generator=generator)
        total = 0.0
        for start in range(0, len(labels), batch):
            rows = order[start : start + batch].to(agent.device)
            scores = agent.letter_scores(observations[rows])
            log_z, _ = net.words.log_partition(scores, torch.zeros(len(rows), device=agent.device))
            loss = (log_z - net.words.pick(scores, labels[rows])).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(rows)
        loss = torch.tensor(total / len(labels))
    net.eval()
    return float(loss)


def teach(
    agent: A2CAgent,
    oracle: Oracle,
    options: TeachOptions = TeachOptions(),
    deadline: float = math.inf,
    log: Any = print,
) -> tuple[dict[str, torch.Tensor], list[Round]]:
    """Behaviour cloning on the teacher's positions, then DAgger rounds; the best student's weights
    (by wins, then mean guesses) and each round's figures. No new round starts after ``deadline``
    (at least one is done); a round whose training diverges (a loss that is not finite) raises
    ``ValueError``."""
    device = agent.device
    agent.use_words(list(oracle.vocab.allowed))
    data: dict[bytes, tuple[torch.Tensor, int]] = {}

    def label(seen: dict[bytes, tuple[torch.Tensor, Any]]) -> None:
        for key, (row, position) in seen.items():
            if key not in data:
                data[key] = (row, oracle.best_action(position))

    start = time.perf_counter()
    # round 0: the teacher's own positions
    seen, figures = play(OraclePolicy(oracle), oracle, device)
    label(seen)
    log(
        f"the teacher: {len(data)} positions, {100 * figures['win_rate']:.2f} % wins, mean "
        f"{figures['mean_guesses']:.4f}; {time.perf_counter() - start:.0f} s"
    )
    best_state, best_key, history = None, None, []
    for r in range(1, options.rounds + 1):
        observations = torch.stack([row for row, _ in data.values()])
        labels = torch.tensor([a for _, a in data.values()], dtype=torch.int64)
        loss = train(agent, observations, labels, options.epochs, options.lr, seed=r)
        if not math.isfinite(loss):
            raise ValueError(
                f"the training diverged in round {r} (loss {loss}); lower --lr ({options.lr:g})"
            )
        seen, figures = play(agent, oracle, device)
        history.append(
            Round(
                r,
                len(data),
                figures["win_rate"],
                figures["mean_guesses"],
                figures["mean_all"],
                time.perf_counter() - start,
            )
        )
        log(
            f"round {r}: {len(data)} positions, loss {loss:.4f}; the student wins "
            f"{100 * figures['win_rate']:.2f} %, "
            f"mean {figures['mean_guesses']:.4f} ({figures['mean_all']:.4f} with losses as "
            f"{oracle.max_guesses + 1}); {time.perf_counter() - start:.0f} s"
        )
        key = (figures["win_rate"], -figures["mean_guesses"])
        if best_key is None or key > best_key:
            best_key = key
            best_state = {k: v.detach().clone().cpu() for k, v in agent.net.state_dict().items()}
        if time.perf_counter() > deadline:
            log("stopped: --max-minutes reached")
            break
        label(seen)  # DAgger: the oracle labels where the student went
    assert best_state is not None
    return best_state, history
