"""The exact solver as an agent: :class:`OptimalSolver` plays the optimal tree (of
:mod:`wordle_gym.solver.search`) for the env's lists and mode through the harness, and
values moves with the exact oracle (``assist --optimal``, ``analyze``, the bench's regret
columns)."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from wordle_gym.core.patterns import num_patterns
from wordle_gym.core.words import Vocabulary
from wordle_gym.solver import openers as ranking
from wordle_gym.solver import solver_data
from wordle_gym.solver.opener_tables import OPENER_TOTALS, allowed_opener, read_opener_totals
from wordle_gym.solver.oracle import Oracle
from wordle_gym.solver.search import (
    FIRST_GUESS_BUDGET,
    OptimalTree,
    best_of,
    check_limits,
    shipped_trees,
    solve,
)
from wordle_gym.utils.files import quoted

if TYPE_CHECKING:
    import torch


def greedy_openers(vocab: Vocabulary, k: int) -> list[str]:
    """The ``k`` best first guesses of the greedy max-entropy solver on these lists."""
    from wordle_agents.solvers.max_entropy import MaxEntropySolver
    from wordle_gym.envs.vector import WordleVectorEnv

    env = WordleVectorEnv(1, device="cpu", answers=list(vocab.answers), allowed=list(vocab.allowed))
    return [word for word, _, _ in MaxEntropySolver().best_guesses(env, top=k)]


def openers(vocab: Vocabulary, spec: str) -> list[str]:
    """The first guesses an opener ``spec`` stands for: itself, or for "best-of-K" the K best greedy
    ones."""
    k = best_of(spec)
    return greedy_openers(vocab, k) if k else [spec]


def proven_openers(
    vocab: Vocabulary, hard_mode: bool, max_guesses: int
) -> list[tuple[str, int]] | None:
    """The openers proven best on these lists and rules, best first, with their exact totals: the
    shipped ranking of every opener (its 10 best, where both a ranking without and one with losses
    ship), else a shipped table with every opener's exact total (all of them); None where neither
    ships."""
    found = []
    for path in sorted(solver_data().glob("openers_*.json")):
        data = ranking.load(path)
        if (data["lists"], data["hard_mode"], data["max_guesses"]) == (
            vocab.digest,
            hard_mode,
            max_guesses,
        ):
            found.append(data)
    data = min(found, key=lambda d: bool(d.get("losses")), default=None)
    if data is not None and data["ranking"]:
        return [(str(word), int(total)) for word, total in data["ranking"]]
    for path in sorted(solver_data().glob(OPENER_TOTALS)):
        table = read_opener_totals(path, vocab, hard_mode, max_guesses)
        if table is not None and len(table.exact) == vocab.num_allowed:
            return sorted(table.exact.items(), key=lambda item: (item[1], item[0]))
    return None


class OptimalSolver:
    """A harness policy that plays the optimal tree for the env's lists and mode.

    Args:
        opener: the first guess (default SALET, or the checkpoint's), or "best-of-K": solve from
            each of the K best greedy openers and keep the best tree.
        checkpoint: a tree file saved by :meth:`OptimalTree.save` (else the shipped one when it fits
            the env, else one is solved on first use).
        time_limit: seconds allowed for a search.
        cache_dir: a folder where solved trees are kept and looked up (``wordle-gym bench`` keeps
            the trees of the agents' openers there, so that a rerun does not solve them again).
    """

    def __init__(
        self,
        opener: str | None = None,
        checkpoint: str | None = None,
        time_limit: float | None = None,
        cache_dir: str | None = None,
    ) -> None:
        if opener is not None and not isinstance(opener, str):
            raise ValueError(f"opener must be a word or best-of-K; got {quoted(repr(opener))}")
        self.asked = opener is not None  # else SALET, or the checkpoint's own first guess
        self.opener = (opener or "salet").lower()
        self.best_of = best_of(self.opener)
        if time_limit is not None:
            check_limits(1, time_limit)
        self.tree_path = checkpoint
        self.time_limit = time_limit
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.tree: OptimalTree | None = None
        self._context: Any = None
        self._oracle: Any = None  # for expected_guesses, with its cache
        # optimal_gap's evaluations, by (opener, hard mode)
        self._optima: dict[tuple[str, bool], Any] = {}

    @property
    def name(self) -> str:
        return f"optimal (opener {self.opener})"

    def tree_for(self, vocab: Vocabulary, hard_mode: bool, max_guesses: int) -> OptimalTree:
        """The tree this solver plays on these lists and rules (loaded or solved once, then kept). A
        tree read from a file (given, shipped or cached) is checked first: see
        :meth:`OptimalTree.check`."""
        context = (vocab, hard_mode, max_guesses)
        if context == self._context and self.tree is not None:
            return self.tree
        opener = (
            None if self.best_of or (self.tree_path is not None and not self.asked) else self.opener
        )
        tree = None
        if self.tree_path is not None:
            tree = OptimalTree.load(self.tree_path)
            tree.check(vocab, hard_mode, max_guesses, opener, source=f"tree {self.tree_path}")
            self.opener = str(tree.opener).lower()
        elif not self.best_of:
            # the best opener of these lists where a ranking proves it, else SALET
            if not self.asked:
                self.opener = self.default_opener(vocab, hard_mode, max_guesses)
                opener = self.opener
            tree = self._shipped_tree(vocab, hard_mode, max_guesses, opener)
        kept = None
        if tree is None and self.cache_dir is not None:
            mode = "hard" if hard_mode else "normal"
            kept = self.cache_dir / f"optimal_{self.opener}_{mode}_{max_guesses}_{vocab.digest}.npz"
            if kept.exists():
                tree = OptimalTree.load(kept).check(
                    vocab, hard_mode, max_guesses, opener, source=f"cached tree {kept}"
                )
        if tree is None:
            tree = self._solved(vocab, hard_mode, max_guesses, kept)
        self.tree, self._context = tree, context
        return tree

    def _shipped_tree(
        self, vocab: Vocabulary, hard_mode: bool, max_guesses: int, opener: str | None
    ) -> OptimalTree | None:
        """The shipped tree of this solver's opener on these lists and rules, checked; None where
        none ships."""
        for path in shipped_trees(self.opener, hard_mode):
            shipped = OptimalTree.load(path)
            if (shipped.lists, shipped.hard_mode, shipped.max_guesses) == (
                vocab.digest,
                hard_mode,
                max_guesses,
            ):
                return shipped.check(
                    vocab, hard_mode, max_guesses, opener, source=f"shipped tree {path.name}"
                )
        return None

    def _solved(
        self, vocab: Vocabulary, hard_mode: bool, max_guesses: int, kept: Path | None
    ) -> OptimalTree:
        """The tree solved here (the best of its openers), written to ``kept`` where given."""
        trees = [
            solve(vocab, o, hard_mode, max_guesses, self.time_limit)
            for o in openers(vocab, self.opener)
        ]
        tree = min(trees, key=lambda t: t.total)
        if kept is not None:
            kept.parent.mkdir(parents=True, exist_ok=True)
            tree.save(kept)
        return tree

    @staticmethod
    def default_opener(vocab: Vocabulary, hard_mode: bool, max_guesses: int) -> str:
        """The opener a solver not told one plays: the best one proven on these lists (SALET on the
        real ones, TARSE on today's; :func:`proven_openers`), else SALET."""
        best = proven_openers(vocab, hard_mode, max_guesses)
        return best[0][0] if best else "salet"

    def best_openers(self, env: Any, top: int = 5) -> list[tuple[str, float]] | None:
        """The ``top`` best first guesses of ``env``'s game with their exact expected guesses, from
        the shipped ranking or table that proves them best (:func:`proven_openers`); None where none
        ships for its lists."""
        best = proven_openers(env.vocabulary, env.config.hard_mode, env.config.max_guesses)
        return (
            None
            if best is None
            else [(word, total / env.vocabulary.num_answers) for word, total in best[:top]]
        )

    def _exact_oracle(self, env: Any) -> Any:
        """The exact oracle of ``env``'s game, kept across calls (``assist --optimal`` asks after
        every guess)."""

        if self._oracle is None or self._oracle.config != env.config:
            # the start from the tables, where they prove it
            self._oracle = Oracle(env.config, root_opener="proven")
        return self._oracle

    def expected_guesses(self, env: Any, words: list[str]) -> tuple[float, list[float | None]]:
        """From game 0's position in ``env``: the least expected number of guesses still needed (the
        next one included, each candidate answer equally likely), and that number after each of
        ``words`` (None where hard mode forbids the word). Exact, by
        :class:`wordle_gym.solver.oracle.Oracle` (kept across calls: ``assist --optimal`` asks
        after every guess)."""
        oracle = self._exact_oracle(env)
        position = oracle.positions(env.game, env.state)[0]
        if not position.members or position.left <= 0:
            return math.nan, [None] * len(words)
        _, green, need = position.arrays()
        # Each search runs on a worker thread: Ctrl-C stops it at once, and a bar shows a long one
        # (after 1 s).
        with tqdm(
            total=len(words) + 1, desc="exact values", unit="word", delay=1.0, leave=False
        ) as bar:
            best = oracle.search.run(lambda: oracle.value(position), bar=bar, stats=oracle.stats)
            bar.update()
            costs: list[float | None] = []
            for w in words:
                action = env.vocabulary.action(w)
                valid = oracle.search.hard_valid(action, green, need)
                costs.append(
                    oracle.search.run(
                        lambda a=action: oracle.q_value(position, a), bar=bar, stats=oracle.stats
                    )
                    if valid
                    else None
                )
                bar.update()
        return best, costs

    def judge(
        self, env: Any, before: Any, word: str, budget: int = FIRST_GUESS_BUDGET
    ) -> dict[str, Any]:
        """The exact skill and luck of ``word``, guessed in game 0 of ``env`` from state ``before``
        (``env.state`` is the state after its feedback), as ``wordle-gym analyze`` measures them:
        ``regret`` = Q*(s, word) - V*(s) (the expected guesses it cost) and ``luck`` = Q*(s, word) -
        1 - V*(s') (how many fewer guesses the feedback left than the guess leaves on average). The
        first guess is valued from the opener tables, or searched within ``budget`` work; past
        that ``exact`` is False, ``regret`` is the proven upper bound (between ``low`` and ``high``,
        never the optimistic end) and ``luck`` None."""
        oracle, vocab = self._exact_oracle(env), env.vocabulary
        start = oracle.positions(env.game, before)[0]
        after = oracle.positions(env.game, env.state)[0]
        action = vocab.action(word)
        solved = bool(env.state.won[0])
        if int(before.turn[0]) == 0:
            judged = oracle.move_regret(start, action, budget)
        else:
            v = oracle.search.run(lambda: oracle.value(start), stats=oracle.stats)
            q = oracle.search.run(lambda: oracle.q_value(start, action), stats=oracle.stats)
            judged = {"regret": q - v, "exact": True, "low": q - v, "high": q - v, "basis": "exact"}
        judged["luck"] = None
        # Q* is known now (tables or a finished search), and so cheap to read again
        if judged["exact"]:
            q = oracle.search.run(lambda: oracle.q_value(start, action), stats=oracle.stats)
            rest = (
                0.0
                if solved or not after.members
                else oracle.search.run(lambda: oracle.value(after), stats=oracle.stats)
            )
            judged["luck"] = q - 1 - rest
        return judged

    def optimal_gap(self, result: Any, reference: str = "salet") -> dict[str, Any] | None:
        """How far a real-game evaluation (``EvalResult`` with per-answer ``guesses``, one first
        guess for every game) is from perfect play, split in two: the opener's cost (the optimum
        from the agent's first guess minus the optimum from ``reference``) and the play's cost (the
        agent's mean minus the optimum from its first guess); and per answer the guesses used beyond
        the optimal tree for that first guess. Losses count as ``max_guesses + 1``. None where it is
        not defined (other lists, several first guesses). Trees are solved with this solver's
        ``time_limit`` and kept in its ``cache_dir``; a tree that cannot be had raises
        ``ValueError``, ``TimeoutError`` or ``ImportError``. ``wordle-gym bench`` fills its gap
        table with it."""
        from wordle_gym.harness.evaluation import evaluate

        real = (result.games, result.num_allowed, result.answers) == (2315, 12972, "answers")
        if (
            not real
            or len(result.openers) != 1
            or result.guesses is None
            or result.max_guesses != 6
        ):
            return None

        def optimum(opener: str) -> Any:
            key = (opener, result.hard_mode)
            # a failure is kept too: a tree that could not be had is not tried again
            if key not in self._optima:
                cache = str(self.cache_dir) if self.cache_dir else None
                solver = OptimalSolver(opener, time_limit=self.time_limit, cache_dir=cache)
                try:
                    self._optima[key] = evaluate(
                        solver, device="cpu", hard_mode=result.hard_mode, progress=None
                    )
                except (ImportError, TimeoutError, ValueError) as exc:
                    self._optima[key] = exc
            if isinstance(self._optima[key], Exception):
                raise self._optima[key]
            return self._optima[key]

        opener = next(iter(result.openers))
        own, best = optimum(opener), optimum(reference)
        beyond = Counter(a - b for a, b in zip(result.guesses, own.guesses, strict=True))
        return {
            "opener": opener,
            "optimum_from_opener": own.mean_guesses_all,
            "opener_cost": own.mean_guesses_all - best.mean_guesses_all,
            "reference": reference,
            "reference_optimum": best.mean_guesses_all,
            "play_cost": result.mean_guesses_all - own.mean_guesses_all,
            "beyond": {str(k): v for k, v in sorted(beyond.items())},
        }

    def regret_report(
        self, histories: list[list[int]], config: Any, costliest: int = 20
    ) -> dict[str, Any]:
        """The exact regret of every decision of an evaluation (``evaluate(..., histories=True)``),
        as :meth:`wordle_gym.solver.report.RegretReport.to_json` gives it, with
        ``identity_holds``: whether the regrets sum to the mean minus the optimum (they do for any
        agent that plays by what it knows alone). The start's value is the optimum from the opener
        asked for, else from the one the opener tables prove best, else found by searching every
        first guess (small lists only). ``wordle-gym eval --regret``."""
        from wordle_gym.core.config import WordleConfig

        vocab, answers = config.vocabulary, None
        real = WordleConfig(hard_mode=config.hard_mode, max_guesses=config.max_guesses)
        subset = (
            set(vocab.answers) < set(real.vocabulary.answers)
            and vocab.allowed == real.vocabulary.allowed
        )
        # some of the real answers with the real guesses: the game the agent was told it plays
        if subset:
            answers = [real.vocabulary.answer_id(word) for word in vocab.answers]
            config, vocab = real, real.vocabulary
        # a split's answers (eval --split), in its game
        elif getattr(config, "answer_pool", None) is not None:
            subset, answers = True, list(config.answer_pool)
        oracle = Oracle(config, root_opener=self._start_opener(vocab))
        report = oracle.regrets(histories, answers=answers)
        game = (
            f"{'the real' if vocab == real.vocabulary else 'these'} lists ({vocab.num_answers} "
            f"answers, {vocab.num_allowed} guesses), of which {len(histories)} answers were played"
            if subset
            else f"these lists ({vocab.num_answers} answers, {vocab.num_allowed} guesses)"
        )
        # The identity needs a policy that plays the same guess wherever it knows the same (not a
        # random agent), and every answer: over some of them the luck of the feedback does not
        # average out.
        identity = not subset and report.identity_holds(1e-6)
        return {**report.to_json(oracle, costliest), "identity_holds": identity, "valued_in": game}

    def _start_opener(self, vocab: Vocabulary) -> str | None:
        """How the oracle values the start: from the opener asked for, else from the one the tables
        prove best (SALET on the real lists, TARSE on today's), else by searching every first guess
        (small lists only)."""

        return allowed_opener(vocab, self.opener) if self.asked else "proven"

    def analyze(self, guesses: list[str], answer: str, config: Any) -> dict[str, Any]:
        """The exact skill (regret) and luck of each guess of one game
        (:meth:`wordle_gym.solver.oracle.Oracle.analyze`); ``wordle-gym analyze``."""

        vocab = config.vocabulary
        actions, answer_id = [vocab.action(g) for g in guesses], vocab.answer_id(answer)
        oracle = Oracle(config, root_opener=self._start_opener(vocab))
        return oracle.analyze(actions, answer_id)

    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        """Follow each game's history down the tree."""
        import torch

        from wordle_gym.core.game import NO_TILE
        from wordle_gym.core.rules import pattern_ids
        from wordle_gym.harness.evaluation import bool_mask

        bool_mask(action_masks)
        tree = self.tree_for(env.vocabulary, env.config.hard_mode, env.config.max_guesses)
        state = env.state
        played = (state.tiles[:, :, 0] != NO_TILE).tolist()
        pids = pattern_ids(state.tiles).long().tolist()
        guesses = state.guesses.tolist()
        solved = num_patterns(env.vocabulary.length) - 1
        actions = []
        for game in range(state.num_games):
            node: int | None = 0
            for turn, was_played in enumerate(played[game]):
                if not was_played or node is None:
                    break
                on_path = guesses[game][turn] == tree.guesses[node]
                # a finished game (the harness masks it out)
                if on_path and pids[game][turn] == solved:
                    break
                node = tree.child(node, pids[game][turn]) if on_path else None
            if node is None:
                raise ValueError(
                    f"game {game} left the optimal tree (a guess or feedback the tree "
                    "does not have)"
                )
            actions.append(int(tree.guesses[node]))
        return torch.tensor(actions, dtype=torch.int64, device=state.guesses.device)
