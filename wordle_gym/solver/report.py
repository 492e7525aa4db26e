"""The regret of every decision of an agent's games against the exact oracle: the decisions, the
costliest positions, the check that a game's regrets sum to its guesses beyond the optimum, and one
game's skill and luck (:meth:`wordle_gym.solver.oracle.Oracle.regrets`, ``analyze``)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from tqdm.auto import tqdm

from wordle_gym.solver.position import Position


@dataclass
class Decision:
    """One decision of an agent: where, what it guessed, and what that cost beyond the optimum."""

    answer: int  # index into the answers: the game it was made in
    turn: int  # 1 = the opener
    position: Position
    action: int
    q: float  # Q*(s, a): expected further guesses after this guess, this one included
    v: float  # V*(s)

    @property
    def regret(self) -> float:
        return self.q - self.v


@dataclass
class RegretReport:
    """Every decision of an evaluation with its exact regret."""

    decisions: list[Decision]
    num_games: int
    root_value: float  # V* of the start
    mean_cost: float  # the agent's mean guesses, a loss counted as the limit + 1
    answers: list[int] | None = None  # the answer of each game (None: every answer, in order)

    @property
    def mean_regret(self) -> float:
        """Regret per game: the sum of a game's regrets, averaged over the answers."""
        return sum(d.regret for d in self.decisions) / self.num_games

    @property
    def by_turn(self) -> dict[int, float]:
        """Regret per game made at each turn (they sum to :attr:`mean_regret`)."""
        out: dict[int, float] = {}
        for d in self.decisions:
            out[d.turn] = out.get(d.turn, 0.0) + d.regret / self.num_games
        return dict(sorted(out.items()))

    def identity_holds(self, tolerance: float = 1e-9) -> bool:
        """Whether mean regret = mean cost - V*(start) (true for any agent that plays by what it
        knows alone)."""
        return abs(self.mean_regret - (self.mean_cost - self.root_value)) <= tolerance

    def check(self, tolerance: float = 1e-9) -> None:
        """The identity (:meth:`identity_holds`); raises AssertionError if it fails."""
        if not self.identity_holds(tolerance):
            gap = self.mean_cost - self.root_value
            raise AssertionError(
                f"regrets sum to {self.mean_regret:.6f} per game; mean - V* is {gap:.6f}"
            )

    def costliest(self, k: int = 20) -> list[Decision]:
        """The ``k`` positions whose decisions cost the most regret in all (a position shared by
        several games counts once, with its regret times its games), one decision each."""
        weight: dict[tuple[Position, int], float] = {}
        first: dict[tuple[Position, int], Decision] = {}
        for d in self.decisions:
            key = (d.position, d.action)
            weight[key] = weight.get(key, 0.0) + d.regret
            first.setdefault(key, d)
        return [
            first[key]
            for key in sorted(weight, key=lambda key: -weight[key])[:k]
            if weight[key] > 0
        ]

    def to_json(self, oracle: Any, k: int = 20) -> dict[str, Any]:
        """What ``wordle-gym eval --regret`` keeps: every decision's regret (per answer, per turn),
        the means, and the ``k`` costliest positions with the words so far, their feedback, the
        candidates left, the agent's guess and an optimal one."""
        per_answer: list[list[float]] = [[] for _ in range(self.num_games)]
        game_of = {answer: i for i, answer in enumerate(self.answers or range(self.num_games))}
        for d in self.decisions:
            per_answer[game_of[d.answer]].append(round(d.regret, 6))
        words, answers = oracle.vocab.allowed, oracle.vocab.answers
        games_at = Counter((d.position, d.action) for d in self.decisions)
        costly = []
        for d in self.costliest(k):
            games = games_at[d.position, d.action]
            history = _history(
                oracle, per_answer_actions=self._actions(d.answer)[: d.turn - 1], answer=d.answer
            )
            costly.append(
                {
                    "turn": d.turn,
                    "games": games,
                    "regret": round(d.regret, 6),
                    "history": history,
                    "candidates": len(d.position.members),
                    "some_candidates": [answers[m] for m in d.position.members[:10]],
                    "guess": words[d.action],
                    "optimal": words[oracle.best_action(d.position)],
                    "q": round(d.q, 6),
                    "v": round(d.v, 6),
                }
            )
        return {
            "mean_regret": self.mean_regret,
            "by_turn": self.by_turn,
            "root_value": self.root_value,
            "mean_cost": self.mean_cost,
            "per_answer": per_answer,
            "costliest": costly,
        }

    def _actions(self, answer: int) -> list[int]:
        return [d.action for d in self.decisions if d.answer == answer]


def _history(oracle: Any, per_answer_actions: list[int], answer: int) -> list[str]:
    """ "WORD tiles" for each guess played before a decision (tiles as 0/1/2; "-----" for a refused
    guess)."""
    out, position = [], oracle.start()
    for action in per_answer_actions:
        child = oracle.after(position, action, answer)
        _, green, need = position.arrays()
        refused = not oracle.search.hard_valid(action, green, need)
        pattern = (
            "-" * oracle.vocab.length
            if refused
            else "".join(str(t) for t in oracle.search.tiles[oracle.search.table[action, answer]])
        )
        out.append(f"{oracle.vocab.allowed[action]} {pattern}")
        position = child
    return out


def analyze(oracle: Any, actions: list[int], answer: int) -> dict[str, Any]:
    """The skill and the luck of one game: the guesses ``actions`` (word indices) played on
    answer ``answer`` (an answer index).

    For each guess: its ``regret`` ``Q*(s, a) - V*(s)`` (the expected guesses it cost), its
    ``luck`` ``E[V*(s')] - V*(s')`` (how many guesses the feedback it got saved against the
    feedback expected:
    ``E[V*(s')] = Q*(s, a) - 1``; a solved board is worth 0, a loss after the last guess 1), the
    candidates before and after it, and an optimal guess (``best_action``). Then, for any
    game, ``guesses - start_value = sum(regret) - sum(luck)``, where ``guesses`` counts a lost
    game as the limit + 1 (checked here). A game not finished is analysed as far as it went
    (``finished`` False)."""
    position, rows = oracle._start, []
    start_value = oracle.value(position)
    solved = False
    for action in actions:
        if solved:
            raise ValueError("the game was already won before its last guess")
        if position.left <= 0:
            raise ValueError(f"more guesses than the game's {oracle.max_guesses}")
        value, q = oracle.value(position), oracle.q_value(position, action)
        after = oracle.after(position, action, answer)
        solved = action == int(oracle.vocab.answer_actions[answer])
        later = 0.0 if solved else (1.0 if after.left == 0 else oracle.value(after))
        best = oracle.vocab.allowed[oracle.best_action(position)]
        rows.append(
            {
                "guess": oracle.vocab.allowed[action],
                "value": value,
                "q_value": q,
                "regret": q - value,
                "luck": (q - 1.0) - later,
                "candidates_before": len(position.members),
                "candidates_after": 0 if solved else len(after.members),
                "optimal": best,
            }
        )
        position = after
    finished = solved or position.left == 0
    used = len(actions) if solved or not finished else oracle.max_guesses + 1
    regret, luck = sum(r["regret"] for r in rows), sum(r["luck"] for r in rows)
    if finished and not math.isclose(used - start_value, regret - luck, abs_tol=1e-9):
        raise AssertionError(
            f"regret - luck = {regret - luck} is not guesses - start value {used - start_value}"
        )
    return {
        "answer": oracle.vocab.answers[answer],
        "won": solved,
        "finished": finished,
        "guesses_used": used,
        "start_value": start_value,
        "regret": regret,
        "luck": luck,
        "guesses": rows,
    }


def regrets(
    oracle: Any,
    histories: list[list[int]],
    progress: bool | None = None,
    answers: list[int] | None = None,
) -> RegretReport:
    """The regret of every decision of games played once per answer: ``histories[i]`` is the
    actions played on answer ``i`` (in the answer list's order), up to the win or the limit;
    with ``answers``, on answer ``answers[i]`` (some of the answers: a subset's games valued in
    this game). ``progress``: a bar of the games valued (None: on a terminal only)."""
    if answers is None and len(histories) != oracle.vocab.num_answers:
        raise ValueError(
            f"expected one history per answer ({oracle.vocab.num_answers}); got {len(histories)}"
        )
    if answers is not None and len(answers) != len(histories):
        raise ValueError(
            f"expected one history per answer given ({len(answers)}); got {len(histories)}"
        )
    played = list(range(len(histories))) if answers is None else answers
    answer_actions = oracle.vocab.answer_actions.tolist()
    decisions, cost = [], 0
    games = tqdm(
        zip(played, histories, strict=True),
        total=len(histories),
        desc="regret",
        unit="game",
        leave=False,
        disable=None if progress is None else not progress,
    )
    for answer, actions in games:
        position = oracle.start()
        won = False
        for turn, action in enumerate(actions, start=1):
            if won or position.left <= 0:
                raise ValueError(f"answer {answer}: actions after the game ended ({actions})")
            decisions.append(
                Decision(
                    answer,
                    turn,
                    position,
                    int(action),
                    oracle.q_value(position, int(action)),
                    oracle.value(position),
                )
            )
            won = int(action) == answer_actions[answer]
            position = oracle.after(position, int(action), answer)
        if not won and len(actions) < oracle.max_guesses:
            raise ValueError(
                f"answer {answer}: the game stops before its end ({len(actions)} guesses, not won)"
            )
        cost += len(actions) if won else oracle.max_guesses + 1
    return RegretReport(
        decisions, len(histories), oracle.value(oracle.start()), cost / len(histories), answers
    )
