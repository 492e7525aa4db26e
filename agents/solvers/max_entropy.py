"""Greedy one-step solvers: maximum entropy (seed 002) and other scoring rules (seed 004).

The candidates are the answers consistent with every (guess, feedback) so far. Each allowed
guess splits them into buckets by feedback pattern, with sizes ``c_1 .. c_k`` summing to
``m``. A scoring rule turns the bucket sizes into a number, higher is better:

==============  ==============================================  ===================
``score``       value                                            reference
==============  ==============================================  ===================
``entropy``     ``log2 m - sum(c log2 c) / m`` (bits)            seed 002 (3Blue1Brown)
``expected``    ``-sum(c^2) / m``: minus the expected number     seed 004
                of candidates left
``minimax``     ``-max(c)``: minus the worst-case bucket
``splits``      ``k``: how many distinct patterns
==============  ==============================================  ===================

The solver guesses the best-scoring allowed word, but prefers the best *candidate* when its
score is within ``tolerance`` of the best (0.001 bits, as in seed 002), since a candidate may
also win at once; with one candidate left it guesses it. Ties go to the lower word index.

Multi-board games (``boards=K``, :class:`~wordle_gym.envs.multi.MultiWordleVectorEnv`): a board with
one candidate left is played first (the lowest such word); otherwise a guess scores the sum of its
scores on the boards not yet solved, and the best candidate of any such board is preferred within
``tolerance``.

Speed: games whose histories agree get the same decision, so each distinct history is
decided once per solver (memoised), and the bucket counts of all 12972 guesses over a
node's candidates are computed in one batched pass on the env's device (``bincount`` for
big candidate sets, a row-wise sort for small ones) from the rules core's pattern table.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from wordle_gym.core.game import NO_TILE
from wordle_gym.core.rules import num_patterns, pattern_ids
from wordle_gym.core.tables import pattern_table
from wordle_gym.envs.vector import WordleVectorEnv
from wordle_gym.harness.evaluation import bool_mask
from wordle_gym.solver.openers import bucket_sizes

SCORES = ("entropy", "expected", "minimax", "splits")
SCORE_UNITS = {
    "entropy": "bits of information",
    "expected": "minus the expected answers left",
    "minimax": "minus the answers left at worst",
    "splits": "distinct feedbacks",
}
"""What a guess's score measures, by rule (higher is better for every rule)."""
_CHUNK_ELEMENTS = 1 << 22  # bound on the (guesses x candidates) block scored at once
_BOARD_MEMO = 2048  # boards' score vectors kept (about 100 KB each)


class MaxEntropySolver:
    """A harness policy; see the module docstring.

    Args:
        score: "entropy" (default), "expected", "minimax" or "splits".
        opener: a fixed first guess (e.g. "salet"); None computes the best one.
        candidates_only: guess only words that can still be the answer.
        tolerance: how close a candidate's score must be to the best to be preferred.
    """

    def __init__(
        self,
        score: str = "entropy",
        opener: str | None = None,
        candidates_only: bool = False,
        tolerance: float = 1e-3,
    ) -> None:
        if score not in SCORES:
            raise ValueError(f"unknown score {score!r}; expected one of {SCORES}")
        if tolerance < 0:
            raise ValueError(f"tolerance must be >= 0; got {tolerance}")
        self.score = score
        self.opener = opener.lower() if opener else None
        self.candidates_only = candidates_only
        self.tolerance = tolerance
        self._context: Any = None
        self._memo: dict[tuple[int, ...], int] = {}
        self._board_memo: dict[tuple[int, ...], torch.Tensor] = {}

    @property
    def name(self) -> str:
        parts = [self.score, f"opener {self.opener or 'computed'}"]
        if self.candidates_only:
            parts.append("candidates only")
        return f"max-entropy ({', '.join(parts)})"

    # ------------------------------------------------------------------------ policy
    def act(
        self, observations: torch.Tensor, action_masks: torch.Tensor, env: WordleVectorEnv
    ) -> torch.Tensor:
        """One action per game of ``env``, from its history."""
        action_masks = bool_mask(action_masks)
        self._bind(env)
        if getattr(env, "multi_board", False):
            return self._act_boards(action_masks, env)
        state = env.state
        tiles_known = state.tiles[:, :, 0] != NO_TILE  # (N, T): rows with feedback
        pids = torch.where(tiles_known, pattern_ids(state.tiles).long(), -1)
        keys = torch.cat([state.guesses, pids], dim=1)  # (N, 2T): the whole history
        unique, inverse = torch.unique(keys, dim=0, return_inverse=True)
        representative = torch.empty(unique.shape[0], dtype=torch.int64, device=keys.device)
        representative.scatter_(0, inverse, torch.arange(keys.shape[0], device=keys.device))
        decisions = []
        for row, game in zip(unique.tolist(), representative.tolist(), strict=True):
            key = tuple(row)
            if key not in self._memo:
                self._memo[key] = self._decide(env, row, action_masks[game])
            decisions.append(self._memo[key])
        return torch.tensor(decisions, dtype=torch.int64, device=keys.device)[inverse]

    def _act_boards(self, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        """:meth:`act` for multi-board games: each distinct game (every board's history) decided
        once."""
        state = env.state
        rows = state.boards
        pids = torch.where(rows.tiles[:, :, 0] != NO_TILE, pattern_ids(rows.tiles).long(), -1)
        keys = torch.cat([rows.guesses, pids, rows.won[:, None].long()], dim=1).view(
            state.num_games, -1
        )
        unique, inverse = torch.unique(keys, dim=0, return_inverse=True)
        representative = torch.empty(unique.shape[0], dtype=torch.int64, device=keys.device)
        representative.scatter_(0, inverse, torch.arange(keys.shape[0], device=keys.device))
        width = 2 * rows.guesses.shape[1] + 1
        decisions = []
        for row, game in zip(unique.tolist(), representative.tolist(), strict=True):
            key = ("boards", *row)
            if key not in self._memo:
                boards = [row[b : b + width] for b in range(0, len(row), width)]
                self._memo[key] = self._decide_boards(env, boards, action_masks[game])
            decisions.append(self._memo[key])
        return torch.tensor(decisions, dtype=torch.int64, device=keys.device)[inverse]

    def _decide_boards(self, env: Any, boards: list[list[int]], mask: torch.Tensor) -> int:
        """One multi-board decision from each board's history row (guesses, pattern ids, solved)."""
        turns = (len(boards[0]) - 1) // 2
        if self.opener is not None and all(g < 0 for g in boards[0][:turns]):
            if not bool(mask[self.opener_action]):
                raise ValueError(
                    f"the opener {self.opener!r} is not allowed by the env's action mask"
                )
            return self.opener_action
        histories = [tuple(board[:-1]) for board in boards if not board[-1]]
        open_boards = [self._candidates(env, list(history)) for history in histories]
        if not open_boards:  # a game that has ended (the harness still asks for its row): any guess
            return int(self.answer_actions[0])
        if any(c.numel() == 0 for c in open_boards):
            raise RuntimeError(
                "no answer fits a board's feedback so far: the history is inconsistent"
            )
        sure = [int(self.answer_actions[c[0]]) for c in open_boards if c.numel() == 1]
        if sure:
            return min(sure)
        return self._best_for_boards(env, mask, histories, open_boards)

    def _best_for_boards(
        self,
        env: Any,
        mask: torch.Tensor,
        histories: list[tuple[int, ...]],
        open_boards: list[torch.Tensor],
    ) -> int:
        """The guess of the best score summed over the open boards (their ``histories`` and
        candidates), a candidate of one of them where it scores within the tolerance."""
        union = torch.cat(open_boards).unique()
        pool = self._pool(env, mask, union)
        scores = sum(
            self._board_scores(h, c, pool) for h, c in zip(histories, open_boards, strict=True)
        )
        is_cand = self._is_candidate(union)[pool]
        cand_scores = torch.where(is_cand, scores, -math.inf)
        if bool(is_cand.any()) and bool(cand_scores.max() >= scores.max() - self.tolerance):
            return int(pool[int(cand_scores.argmax())])
        return int(pool[int(scores.argmax())])

    def _board_scores(
        self, history: tuple[int, ...], candidates: torch.Tensor, pool: torch.Tensor
    ) -> torch.Tensor:
        """:meth:`scores` of one board, kept for boards whose history recurs (after the opener,
        every game's boards share a few hundred histories) while every word is in the pool."""
        if pool.numel() != self.table.shape[0]:
            return self.scores(candidates, pool)
        cached = self._board_memo.get(history)
        if cached is None:
            if len(self._board_memo) >= _BOARD_MEMO:
                self._board_memo.clear()
            cached = self._board_memo[history] = self.scores(candidates, pool)
        return cached

    @property
    def score_unit(self) -> str:
        """What this solver's scores measure (``wordle-gym assist`` names it)."""
        return SCORE_UNITS[self.score]

    def best_guesses(
        self, env: WordleVectorEnv, game: int = 0, top: int = 5
    ) -> list[tuple[str, float, bool]]:
        """The ``top`` guesses for game ``game`` as (word, score, is_candidate), best first."""
        self._bind(env)
        row = torch.cat([env.state.guesses[game], self._row_pids(env, game)]).tolist()
        candidates = self._candidates(env, row)
        pool = self._pool(env, env.action_masks()[game], candidates)
        scores = self.scores(candidates, pool)
        is_cand = self._is_candidate(candidates)[pool]
        scores, is_cand, pool = scores.cpu().numpy(), is_cand.cpu().numpy(), pool.cpu().numpy()
        # best score, then candidates, then list order
        order = np.lexsort((pool, ~is_cand, -scores))[:top]
        return [(env.words[int(pool[i])], float(scores[i]), bool(is_cand[i])) for i in order]

    def candidates(self, env: WordleVectorEnv, game: int = 0) -> list[str]:
        """The answers still consistent with game ``game``'s feedback."""
        self._bind(env)
        row = torch.cat([env.state.guesses[game], self._row_pids(env, game)]).tolist()
        return [env.vocabulary.answers[i] for i in self._candidates(env, row).tolist()]

    # ------------------------------------------------------------------------ internals
    def _bind(self, env: WordleVectorEnv) -> None:
        """(Re)build per-vocabulary tensors when the env's lists, rules or device change."""
        cfg = env.config
        context = (
            env.vocabulary,
            env.device,
            cfg.hard_mode,
            cfg.max_guesses,
            cfg.mask_mode,
            cfg.boards,
        )
        if context == self._context:
            return
        self._context, self._memo, self._board_memo = context, {}, {}
        self.table = pattern_table(env.vocabulary, env.device)  # (A, K)
        # Answers x guesses: a node's candidates are then whole rows (a fast gather).
        self.by_answer = self.table.T.contiguous()  # (K, A)
        self.num_patterns = num_patterns(env.vocabulary.length)
        self.answer_actions = env.game.answer_actions  # (K,)
        if self.opener is not None:
            self.opener_action = env.vocabulary.action(self.opener)

    def _row_pids(self, env: WordleVectorEnv, game: int) -> torch.Tensor:
        tiles = env.state.tiles[game]
        return torch.where(tiles[:, 0] != NO_TILE, pattern_ids(tiles).long(), -1)

    def _candidates(self, env: WordleVectorEnv, row: list[int]) -> torch.Tensor:
        """Answer indices consistent with a history row (guesses then pattern ids)."""
        turns = len(row) // 2
        alive = torch.ones(self.table.shape[1], dtype=torch.bool, device=self.table.device)
        for guess, pid in zip(row[:turns], row[turns:], strict=True):
            if guess >= 0 and pid >= 0:
                alive &= self.table[guess].long() == pid
        return torch.nonzero(alive).flatten()

    def _is_candidate(self, candidates: torch.Tensor) -> torch.Tensor:
        flags = torch.zeros(self.table.shape[0], dtype=torch.bool, device=self.table.device)
        flags[self.answer_actions[candidates]] = True
        return flags

    def _pool(
        self, env: WordleVectorEnv, mask: torch.Tensor, candidates: torch.Tensor
    ) -> torch.Tensor:
        """Guess indices to choose among: the env's mask, hard mode, and candidates_only."""
        allowed = mask.clone()
        if env.config.hard_mode and env.config.mask_mode == "all":
            raise ValueError(
                "in hard mode the solver needs the env's 'hard' (or 'candidates') action mask"
            )
        if self.candidates_only:
            allowed &= self._is_candidate(candidates)
        pool = torch.nonzero(allowed).flatten()
        if pool.numel() == 0:
            raise RuntimeError("no allowed guess is left for this game")
        return pool

    def _decide(self, env: WordleVectorEnv, row: list[int], mask: torch.Tensor) -> int:
        turns = len(row) // 2
        if self.opener is not None and all(g < 0 for g in row[:turns]):
            if not bool(mask[self.opener_action]):
                raise ValueError(
                    f"the opener {self.opener!r} is not allowed by the env's action mask"
                )
            return self.opener_action
        candidates = self._candidates(env, row)
        if candidates.numel() == 0:
            raise RuntimeError("no answer fits the feedback so far: the history is inconsistent")
        if candidates.numel() <= 2:
            # One candidate: guess it. Two: guessing either already scores the best any guess
            # can (1 bit, 1 left on average, worst bucket 1, 2 splits), so the rule picks the
            # candidate with the lower index, without scoring all the words.
            return int(self.answer_actions[candidates].min())
        pool = self._pool(env, mask, candidates)
        scores = self.scores(candidates, pool)
        is_cand = self._is_candidate(candidates)[pool]
        best = scores.max()
        cand_scores = torch.where(is_cand, scores, -math.inf)
        if bool(is_cand.any()) and bool(cand_scores.max() >= best - self.tolerance):
            # argmax returns the first (lowest index) maximum
            return int(pool[int(cand_scores.argmax())])
        return int(pool[int(scores.argmax())])

    def scores(self, candidates: torch.Tensor, pool: torch.Tensor) -> torch.Tensor:
        """Score of every guess in ``pool`` (indices) over ``candidates`` (answer indices):
        float64."""
        m = candidates.numel()
        rows = self.by_answer.index_select(0, candidates)  # (m, A)
        if pool.numel() != rows.shape[1]:
            rows = rows.index_select(1, pool)  # (m, P)
        width = max(1, _CHUNK_ELEMENTS // max(m, self.num_patterns))
        out = []
        for start in range(0, rows.shape[1], width):
            counts = bucket_sizes(rows[:, start : start + width], self.num_patterns)
            out.append(self._score_counts(counts, m))
        return torch.cat(out)

    def _score_counts(self, counts: torch.Tensor, m: int) -> torch.Tensor:
        """Scores from bucket sizes (B, P), one per column."""
        c = counts.double()
        if self.score == "entropy":
            return math.log2(m) - torch.special.xlogy(c, c).sum(0) / (m * math.log(2))
        if self.score == "expected":
            return -(c * c).sum(0) / m
        if self.score == "minimax":
            return -c.max(0).values
        return (c > 0).sum(0).double()
