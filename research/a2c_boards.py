"""``python -m research.a2c_boards``: A2C on several boards (Dordle, Quordle, ...) with one board
network.

    python -m research.a2c_boards --boards 2 --stages full --iterations 3000 \\
        --init agents/checkpoints/a2c_full.pt \\
        --reward default --batch-games 512 --lr 3e-4 --gamma 0.95 --critic-warmup 50 \\
        --freeze-board --eval-every 50 \\
        --run-dir runs/a2c-dordle

``python -m wordle_agents.commands.train_a2c``'s options and these: ``--boards K`` trains K-board
games (``--max-guesses`` defaults to K + 5) with :class:`MultiBoardA2CNet`: one board network scores
each unsolved board as it would alone, the policy is the mixture of those boards' word softmaxes
weighted by a learned priority of each board, and a critic of the boards' pooled features values the
game. ``--init`` takes one-board weights (each board starts from them). No shipped network came from
it: the multi-board rows are the one-board networks played as a mixture
(:class:`~wordle_agents.rl.networks.BoardMixture`).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from wordle_agents.common.network import WordScorer, check_width, inverse_cdf
from wordle_agents.common.training import RunConfig, TrainingSpec
from wordle_agents.common.training import main as train
from wordle_agents.rl.a2c import (
    A2CAgent,
    A2CConfig,
    A2CNet,
    A2CTrainer,
    board_state,
    input_size,
    per_game,
)
from wordle_agents.rl.networks import pool_boards
from wordle_gym.core.boards import distinct_answers
from wordle_gym.envs.multi import MultiWordleVectorEnv
from wordle_gym.envs.observation import MultiKnowledgeLayout
from wordle_gym.envs.vector import WordleVectorEnv
from wordle_gym.harness.evaluation import bool_mask

PROG = "python -m research.a2c_boards"


@dataclass
class A2CBoardsConfig(A2CConfig):
    """:class:`A2CConfig` for K-board games (one board: the shipped trainer)."""

    boards: int = 1
    """Boards per game (2 Dordle, 4 Quordle, ...); ``max_guesses`` 0 is the game's default, boards +
    5."""
    critic_warmup: int = 0
    """Several boards: the first N updates train the game's critic alone (the board network and the
    board priority frozen). A critic new to a trained board network (``--init`` with one-board
    weights) values every position alike at first, so every guess played gets the same negative
    advantage and the policy flattens."""
    freeze_board: bool = False
    """Several boards: train the board priority and the critic only; the board network keeps the
    weights it started from (``--init``: what it learned on one board), so the update learns which
    board to play for."""

    def __post_init__(self) -> None:
        check_width("boards", self.boards, 32)
        if self.max_guesses == 0 and self.boards > 1:
            self.max_guesses = self.boards + 5
        super().__post_init__()
        if self.critic_warmup < 0:
            raise ValueError(f"critic_warmup must be >= 0; got {self.critic_warmup}")
        if self.critic_warmup and self.boards == 1:
            raise ValueError(
                "critic_warmup is for several boards (one board's critic also gates its policy); "
                f"got critic_warmup={self.critic_warmup} with 1 board"
            )
        if self.freeze_board and self.boards == 1:
            raise ValueError(
                "freeze_board is for several boards (one board has no priority to "
                "train); got 1 board"
            )


def encode_boards(
    obs: torch.Tensor, encoding: str, layout: MultiKnowledgeLayout
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(each board's state (B, K, S) as :func:`encode_observations` gives it, turn one-hot (B, T),
    unsolved boards (B, K) bool) from multi-board "knowledge" observations (B, D)."""
    f = layout.fields(obs.float())
    batch, boards = obs.shape[0], layout.boards
    cells = (
        f.green.flatten(0, 1),
        f.excluded.flatten(0, 1),
        f.min_count.flatten(0, 1),
        f.max_count.flatten(0, 1),
    )
    state = board_state(*cells, encoding).view(batch, boards, -1)
    return state, f.turn[:, : layout.max_guesses], f.solved < 0.5


class MultiBoardA2CNet(nn.Module):
    """K boards: one :class:`A2CNet` (``board``) scores each board's letters as it would alone,
    giving each unsolved board a softmax over the words; the policy is their mixture, weighted by a
    learned priority of each unsolved board (a softmax over them: a word good for one board is
    played as that board's guess), and the game's value is a critic over the unsolved boards' trunk
    features (mean and max), their share and the turn. A one-board network's weights start ``board``
    (:meth:`adopt`); the priority starts uniform."""

    def __init__(
        self, inputs: int, length: int, max_guesses: int, hidden: int = 512, dropout: float = 0.05
    ) -> None:
        super().__init__()
        self.board = A2CNet(inputs, length, max_guesses, hidden, dropout)
        self.priority = nn.Linear(hidden, 1)
        nn.init.zeros_(self.priority.weight)
        nn.init.zeros_(self.priority.bias)
        layers: list[nn.Module] = [
            nn.Linear(2 * hidden + max_guesses + 1, 128),
            nn.ReLU(),
            nn.Dropout(dropout),
        ]
        self.critic = nn.Sequential(
            *layers, nn.Linear(128, 32), nn.ReLU(), nn.Dropout(dropout), nn.Linear(32, 1)
        )

    @property
    def words(self) -> WordScorer:
        return self.board.words

    def board_scores(
        self, state: torch.Tensor, turn: torch.Tensor, unsolved: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Each board's letter-position scores (B, K, 26 L), the log mixture weights of the boards
        (B, K; -inf on a solved board) and the game values (B,), from each board's state (B, K, S),
        the turn (B, T) and the unsolved boards (B, K) bool (a finished game weighs every board)."""
        batch, boards, _ = state.shape
        board = self.board
        features = board.trunk(state.reshape(batch * boards, -1))  # (B K, H), >= 0 (ReLU)
        turns = turn[:, None, :].expand(batch, boards, -1).reshape(batch * boards, -1)
        maps = board.policy(features).view(batch, boards, 2, -1)
        gate = board.value(torch.cat([features, turns], dim=1)).view(batch, boards, 1)
        scores = gate * maps[:, :, 0] + maps[:, :, 1]  # p = V * p0 + p1, as for one board
        seen, _, (mean, top, share) = pool_boards(features.view(batch, boards, -1), unsolved)
        priority = self.priority(features).view(batch, boards).masked_fill(~seen, -math.inf)
        return (
            scores,
            priority.log_softmax(1),
            self.critic(torch.cat([mean, top, turn, share], dim=1)).squeeze(1),
        )

    def sample(
        self, inputs: tuple[torch.Tensor, ...], u_word: torch.Tensor, u_board: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(words drawn from the mixture with the uniform numbers ``u_board`` (the board) and
        ``u_word`` (its word), their log-probabilities under the mixture (differentiable), the game
        values), all (B,)."""
        scores, log_alpha, value = self.board_scores(*inputs)
        batch, boards = log_alpha.shape
        flat = scores.reshape(batch * boards, -1)
        log_z, drawn = self.words.log_partition(flat, u_word.repeat_interleave(boards))
        board = inverse_cdf(log_alpha.exp().cumsum(1), u_board)
        actions = drawn.view(batch, boards).gather(1, board[:, None]).squeeze(1)
        each = self.words.pick(flat, actions.repeat_interleave(boards)).view(
            batch, boards
        ) - log_z.view(batch, boards)
        return actions, torch.logsumexp(log_alpha + each, dim=1), value

    @torch.no_grad()
    def log_policy(self, inputs: tuple[torch.Tensor, ...], block: int = 256) -> torch.Tensor:
        """log pi(word) of the mixture, (B, W), ``block`` games at a time."""
        out = []
        for start in range(0, inputs[0].shape[0], block):
            scores, log_alpha, _ = self.board_scores(*(x[start : start + block] for x in inputs))
            each = self.words(scores).log_softmax(-1)  # (b, K, W)
            out.append(torch.logsumexp(log_alpha[..., None] + each, dim=1))
        return torch.cat(out)

    def adopt(self, single: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """This network's weights with ``board`` taken from a one-board :class:`A2CNet`'s
        (``single``), whose turn input may be shorter (the later turns read its last one); the
        critic keeps its own."""
        state = self.state_dict()
        for name, tensor in single.items():
            key = f"board.{name}"
            if key not in state:
                raise ValueError(
                    f"the one-board weights have {name!r}, which the board network lacks"
                )
            mine = state[key]
            if (
                tensor.shape != mine.shape
                and name == "value.0.weight"
                and tensor.shape[0] == mine.shape[0]
            ):
                # more turns: they read the last one's weights
                extra = mine.shape[1] - tensor.shape[1]
                if extra > 0:
                    tensor = torch.cat([tensor, tensor[:, -1:].expand(-1, extra)], dim=1)
            if tensor.shape != mine.shape:
                raise ValueError(
                    f"the one-board weights' {name!r} has shape {tuple(tensor.shape)}; the board "
                    f"network's is {tuple(mine.shape)}"
                )
            state[key] = tensor.to(mine.dtype)
        return state


class A2CBoardsAgent(A2CAgent):
    """:class:`A2CAgent` on K boards: the greedy move is the mixture's most likely allowed word."""

    config_class = A2CBoardsConfig

    def build_net(self) -> nn.Module:
        cfg = self.config
        net = A2CNet if cfg.boards == 1 else MultiBoardA2CNet
        return net(
            input_size(cfg.encoding, self.length),
            self.length,
            cfg.max_guesses,
            cfg.hidden,
            cfg.dropout,
        )

    @property
    def name(self) -> str:
        return f"A2C ({self.config.encoding} encoding, {self.config.boards} boards)"

    def letter_scores_values(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.config.boards > 1:
            raise ValueError(
                "a multi-board network's policy is a mixture of its boards' scores: "
                "use board_inputs"
            )
        return super().letter_scores_values(observations)

    def board_inputs(
        self, observations: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The multi-board network's inputs (:func:`encode_boards`)."""
        return encode_boards(observations, self.config.encoding, self.layout)

    def scores(self, observations: torch.Tensor) -> torch.Tensor:
        """One score per allowed word (B, W): the word logits, or with several boards the mixture's
        log pi."""
        if self.config.boards > 1:
            return self.net.log_policy(self.board_inputs(observations))
        return super().scores(observations)

    @torch.no_grad()
    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        """Greedy: the best-scoring allowed word of each game (several boards: the mixture's most
        likely)."""
        if self.config.boards == 1:
            return super().act(observations, action_masks, env)
        self.check_env(env)
        self.use_words(env.words)
        self.net.eval()
        log_pi = self.scores(observations.to(self.device))
        return (
            log_pi.masked_fill_(~bool_mask(action_masks).to(self.device), -math.inf)
            .argmax(1)
            .to(env.device)
        )


class A2CBoardsTrainer(A2CTrainer):
    """:class:`A2CTrainer` on K-board games: each game's K answers distinct, none from the recent
    losses (the FIFO holds one board's answers), no forced guesses; the critic may warm up alone and
    the board network stay frozen (:class:`A2CBoardsConfig`)."""

    config: A2CBoardsConfig

    def make_env(
        self,
        answers: list[str],
        allowed: list[str] | None,
        env_class: type = WordleVectorEnv,
        **options: Any,
    ):
        if self.config.boards > 1:
            env_class, options = MultiWordleVectorEnv, {**options, "boards": self.config.boards}
        return super().make_env(answers, allowed, env_class, **options)

    def draw_answers(self) -> tuple[torch.Tensor, torch.Tensor]:
        n, boards = self.config.batch_games, self.config.boards
        if boards == 1:
            return super().draw_answers()
        answers = distinct_answers(
            n, boards, self.env.vocabulary.num_answers, self.draws, torch.device("cpu")
        )
        return answers.to(self.device), torch.zeros(n, dtype=torch.bool, device=self.device)

    def queue_losses(self, answers: torch.Tensor, wins: torch.Tensor) -> None:
        if self.config.boards == 1:
            super().queue_losses(answers, wins)

    def choose_guesses(
        self,
        live: torch.Tensor,
        u: torch.Tensor,
        rows: torch.Tensor | None,
        last: bool,
        queued: torch.Tensor,
        answers: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Several boards: a guess drawn from the mixture of the boards' policies (a second uniform
        number picks the board)."""
        n = self.config.batch_games
        if self.config.boards == 1:
            return super().choose_guesses(live, u, rows, last, queued, answers)
        pick = torch.rand(n, generator=self.sampler, device=self.device)
        live_u = (u, pick) if rows is None else (u[rows], pick[rows])
        drawn, logp, value = self.agent.net.sample(self.agent.board_inputs(live), *live_u)
        return per_game(drawn, rows, n), per_game(logp, rows, n), per_game(value, rows, n)

    def freeze_gradients(self) -> None:
        """The critic alone while it warms up; no board network when frozen (Adam skips what has no
        gradient)."""
        warming = self.iteration < self.config.critic_warmup
        if warming or self.config.freeze_board:
            for name, weight in self.agent.net.named_parameters():
                if name.startswith("board.") or (warming and not name.startswith("critic.")):
                    weight.grad = None


TRAINING = TrainingSpec(
    agent_class=A2CBoardsAgent,
    make_trainer=lambda agent, answers, allowed, device, _updates, _warm: A2CBoardsTrainer(
        agent, answers, allowed, device
    ),
    defaults=RunConfig(run_dir="runs/a2c-boards", stages=("full",), iterations=(3000,)),
)
"""How this command trains."""


def main(argv: Sequence[str] | None = None) -> int:
    """Train from the command line's options; the exit status."""
    return train(TRAINING, argv, doc=__doc__, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
