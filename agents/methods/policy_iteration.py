"""Policy iteration by the network's own rollouts: no solver, no teacher, only the game and its
reward.

    python -m wordle_agents.commands.improve --init agents/checkpoints/dqn_full.pt \\
        --out dqn_improved.pt [--run-dir runs/improve] [--iterations 10] [--top 32] \\
        [--screen 32] [--explore 4] [--epochs 150] [--hard] [--max-minutes 60]

The network is an A2C's or a DQN's (by the checkpoint's kind; a DQN's word values serve as the
logits). Each iteration:

1. **Play.** The network plays every answer greedily. Games that reach the same observation are at
   the same position: their answers are exactly the answers consistent with it, so a position's
   answers come from playing, not from the rules.
2. **Improve.** At every position, each of the network's ``--top`` best-scored guesses is tried:
   played, then the game finished by the network's own greedy play, on every answer of the position.
   The guess whose games earn the most reward (the env's ``--reward``; "default" is -1 a guess and
   -5 for a loss) becomes the position's label, or the network's own guess where nothing earns more.
   Taking the best action of a policy's own Q at every position is one step of policy iteration: the
   improved policy earns at least as much as the network. ``--deep-top``/``--deep-random`` look one
   guess further, with random guesses too, where a position has many answers (:func:`improve`).
   ``--screen K`` also tries the K guesses that a critic fitted to the network's own games (guesses
   still needed, by answers left) ranks best by one-step lookahead over all allowed guesses
   (:class:`Critic`): guesses unlike the network's own, which the rollouts then value.
3. **Distil.** The improved policy is played, and the network is trained (cross-entropy, as
   :mod:`wordle_agents.methods.dagger` does) on its guess at every position it reaches (the labels
   of earlier iterations stay, the latest of each position): downstream of a changed guess that is
   the network's own old guess, which is what the rollouts measured, so the distilled network plays
   what they valued. ``--explore K`` (exploring starts) also plays, at each position of at least
   ``--explore-answers`` answers, its K best valued other guesses, and labels every position met
   after them with its best guess by rollouts (:func:`explore`). Without them the network plays well
   only on its own path (a better guess followed by its own play can lose), so one-guess
   improvements stop at a local optimum.

The best network (by wins, then mean guesses) is written to ``--out``, float16, with the figures its
float16 weights play. What it learned from is recorded as ``method: "own-policy rollouts"`` (with
exploring starts and the critic named where a run used them, :func:`method`) and ``method_reward``;
``teacher`` is None. Greedy play needs no search: the rollouts are training only. The run folder's
``last.pt`` holds everything: the same command continues it.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import torch

from wordle_agents.common.network import WordAgent
from wordle_agents.methods.dagger import train
from wordle_agents.methods.rollouts import Critic, Reached, _best, _Grouping, _replay, rollouts
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.tables import pattern_table
from wordle_gym.harness.play import Played, bool_mask, play
from wordle_gym.utils.files import one_line

METHOD = "own-policy rollouts"
EXPLORING, SCREENING = "exploring starts", "guesses also from a critic of answers left"
EXPLORED = f"{METHOD} ({EXPLORING}; {SCREENING})"  # the dqn-explored runs'


@dataclass
class Iteration:
    """What one iteration did."""

    iteration: int
    positions: int  # labelled positions so far
    changed: int  # this iteration's positions whose label is not the network's own guess
    top: int  # guesses tried at each position
    deep_top: int  # guesses valued one guess deeper at the positions of many answers
    deep_random: int  # random guesses tried there
    win_rate: float  # the network's greedy play on every answer, before this iteration's training
    mean_guesses: float  # on wins
    mean_all: float  # losses counted as max_guesses + 1
    seconds: float
    screen: int = 0  # guesses the critic brought to each position
    explore: int = 0  # other guesses played at the positions of many answers (exploring starts)
    explored: int = 0  # positions met after them, labelled
    epochs: int = 0  # of distillation (0: not recorded, runs before it was)
    path_copies: int = 0  # extra copies of the improved policy's path among the labels
    # the first guess fixed by hand ("": the network's own, improved as any position)
    opener: str = ""
    explore_root: int = 0  # other first guesses played (0: as many as ``explore``)


@dataclass(frozen=True)
class ImproveOptions:
    """How each iteration improves and distils; any of them may change from one command to the
    next."""

    top: int = 32
    """Guesses tried at each position (the network's best-scored)."""
    deep_top: int = 0
    """At positions of at least --deep-answers answers, value this many of the best guesses one
    guess deeper."""
    deep_answers: int = 100
    """See --deep-top."""
    deep_random: int = 0
    """At those positions, also try this many guesses drawn at random."""
    screen: int = 0
    """At positions of 3 answers or more, also try this many guesses that a critic fitted to the
    network's own games ranks best by one-step lookahead."""
    explore: int = 0
    """Exploring starts: at positions of at least --explore-answers answers, play this many other
    guesses (the best valued) and label the positions met after them too."""
    explore_answers: int = 10
    """See --explore."""
    explore_root: int = 0
    """Exploring starts at the first position: play this many other first guesses there (the best
    valued) and label the positions met after them (0: as many as --explore). Without a fixed
    opener, the network values other openers by its own play after them, which is poor where it
    never played: trained after many, it can find a better one."""
    path_copies: int = 8
    """With --explore, the improved policy's own positions count this many times more in
    distillation."""
    epochs: int = 150
    """Epochs over all labels per iteration."""
    lr: float = 1e-3
    """Adam learning rate of the distillation."""
    seed: int = 0
    """Seed of dropout and of the random guesses."""
    opener: str = ""
    """A first guess fixed by hand (an allowed word; empty: the network's own, improved as any
    position). The first position is then neither improved nor explored: the network learns to open
    with this word and, from its own rollouts, to play after it. A network plays well only after the
    opener it learned (the shipped DQN after LEARN: 3.49; after SALET: 4.31), so one-guess
    improvements never change an opener; the optimum after LEARN is 3.4704. Named in the
    checkpoint's method."""

    def __post_init__(self) -> None:
        at_least_one = ("top", "deep_answers", "explore_answers", "epochs")
        for name in at_least_one:
            if isinstance(getattr(self, name), bool) or not getattr(self, name) >= 1:
                raise ValueError(
                    f"{name.replace('_', '-')} must be >= 1; got {getattr(self, name)!r}"
                )
        for name in (
            "deep_top",
            "deep_random",
            "screen",
            "explore",
            "explore_root",
            "path_copies",
            "seed",
        ):
            if isinstance(getattr(self, name), bool) or not getattr(self, name) >= 0:
                raise ValueError(
                    f"{name.replace('_', '-')} must be >= 0; got {getattr(self, name)!r}"
                )
        if not (math.isfinite(self.lr) and 0 < self.lr <= 1):
            raise ValueError(f"lr must be a number in (0, 1]; got {self.lr!r}")


@torch.no_grad()
def positions(
    agent: WordAgent,
    config: WordleConfig,
    chosen: dict[bytes, int] | None = None,
    starts: list[tuple[list[int], list[int]]] | None = None,
) -> tuple[list[Reached], Played]:
    """Every position of the network's greedy games on all answers (answers grouped by observation,
    in turn order), and the games (``Played``: each answer's guesses, ``max_guesses + 1`` for a
    loss; the figures).

    Args:
        chosen: a guess to play instead of the network's at a position (by its observation's bytes).
        starts: play instead, for each ``(prefix, answers)``, a game on each of the answers that
            begins with the guesses ``prefix`` (the positions met from there on, and each game's
            guesses, in order).
    """
    num = config.vocabulary.num_answers
    games = [(prefix, a) for prefix, answers in starts or [([], list(range(num)))] for a in answers]
    agent.use_words(list(config.vocabulary.allowed))
    agent.net.eval()
    policy = _Grouping(agent, config, games, chosen)
    return policy.found, play(
        policy, config, games=[a for _, a in games], device=agent.device, check=False
    )


def _allowed(agent: WordAgent, config: WordleConfig, found: list[Reached]) -> torch.Tensor | None:
    """In hard mode, the guesses each position allows (its answers share the mask); else None."""
    if not config.hard_mode:
        return None
    allowed = torch.ones(
        (len(found), config.vocabulary.num_allowed), dtype=torch.bool, device=agent.device
    )
    for turn in sorted({len(position.prefix) for position in found}):
        rows = [index for index, position in enumerate(found) if len(position.prefix) == turn]
        first_answers = [found[index].answers[0] for index in rows]
        games = _replay(agent, config, first_answers, [found[index].prefix for index in rows])
        allowed[rows] = bool_mask(games.infos["action_mask"]).to(agent.device)
    return allowed


@torch.no_grad()
def candidate_values(
    agent: WordAgent,
    config: WordleConfig,
    found: list[Reached],
    top: int,
    chunk: int = 32768,
    extra: dict[int, list[int]] | None = None,
    screen: int = 0,
    screen_answers: int = 3,
    critic: Critic | None = None,
) -> list[dict[int, float]]:
    """What each guess tried at each position earns: the reward of the position's answers' games
    (summed over them) when the guess is played there, then the network's greedy play
    (:func:`rollouts`).

    Args:
        agent: the network.
        config: the game and its reward.
        found: the positions.
        top: the network's best-scored guesses tried at each position (its own greedy guess among
            them).
        chunk: games played at once.
        extra: more guesses to try at position ``i`` (``extra[i]``), where the position allows them.
        screen: at positions of at least ``screen_answers`` answers, also try the ``critic``'s
            ``screen`` best.
        screen_answers: see ``screen``.
        critic: see ``screen``.

    Returns:
        For each position, ``{guess: reward earned}``.
    """
    if not found:
        return []
    scores, allowed = _scores(agent, config, found)
    tops = scores.topk(min(top, scores.shape[1]), dim=1).indices.cpu()
    table = (
        pattern_table(config.vocabulary, agent.device) if screen and critic is not None else None
    )
    # one game per (position, candidate, answer): the position's guesses, the candidate, then greedy
    # play
    width = config.max_guesses
    answers, forced, lengths, owner = [], [], [], []
    for index, position in enumerate(found):
        more = list((extra or {}).get(index, ()))
        if table is not None and critic is not None and len(position.answers) >= screen_answers:
            more += critic.screen(
                table, position.answers, screen, None if allowed is None else allowed[index]
            )
        for guess in _candidates(tops[index].tolist(), position.greedy, more, scores[index]):
            prefix = position.prefix + [guess] + [0] * (width - len(position.prefix) - 1)
            for answer in position.answers:
                answers.append(answer)
                forced.append(prefix)
                lengths.append(len(position.prefix) + 1)
                owner.append((index, guess))
    returns, _ = rollouts(
        agent, config, torch.tensor(answers), torch.tensor(forced), torch.tensor(lengths), chunk
    )
    values: list[dict[int, float]] = [{} for _ in found]
    for (index, guess), earned in zip(owner, returns.tolist(), strict=True):
        values[index][guess] = values[index].get(guess, 0.0) + earned
    return values


def _scores(
    agent: WordAgent, config: WordleConfig, found: list[Reached]
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The network's score of every guess at each position (-inf where the position does not
    allow it), and the positions' allowed guesses (None: every guess)."""
    observations = torch.stack([p.observation for p in found]).to(agent.device)
    scores = agent.net.words(agent.letter_scores(observations))
    allowed = _allowed(agent, config, found)
    if allowed is not None:  # only guesses the position allows
        scores = scores.masked_fill(~allowed, -torch.inf)
    return scores, allowed


def _candidates(tops: list[int], greedy: int, more: list[int], scores: torch.Tensor) -> list[int]:
    """The guesses tried at a position: the network's ``tops`` (its ``greedy`` guess in the last
    place if not among them), then those of ``more`` the position allows (a finite score)."""
    if greedy not in tops:
        tops[-1] = greedy
    return tops + [g for g in dict.fromkeys(more) if g not in tops and scores[g] > -torch.inf]


@torch.no_grad()
def children(
    agent: WordAgent, config: WordleConfig, moves: list[tuple[Reached, int]]
) -> list[tuple[list[Reached], float]]:
    """Where each move leads.

    Args:
        moves: (position, guess) pairs.

    Returns:
        For each move, the positions the guess leads to (its answers grouped by what they show), and
        the reward earned by the games it ends (a win, or the last guess), summed over them.
    """
    found: list[tuple[list[Reached], float]] = [([], 0.0) for _ in moves]
    for turn in sorted({len(position.prefix) for position, _ in moves}):
        rows = [
            (move, answer)
            for move, (position, _) in enumerate(moves)
            if len(position.prefix) == turn
            for answer in position.answers
        ]
        prefixes = [[*moves[move][0].prefix, moves[move][1]] for move, _ in rows]
        games = _replay(agent, config, [answer for _, answer in rows], prefixes)
        greedy = _best(
            agent, config.hard_mode, games.observations, bool_mask(games.infos["action_mask"])
        )
        done, earned, observations = (
            games.env.state.done.cpu(),
            games.returns.cpu(),
            games.observations.cpu(),
        )
        groups: dict[tuple[int, bytes], Reached] = {}
        for row, (move, answer) in enumerate(rows):
            if bool(done[row]):
                after, ended = found[move]
                found[move] = (after, ended + float(earned[row]))
                continue
            key = (move, observations[row].numpy().tobytes())
            if key not in groups:
                guess = int(greedy[row])
                groups[key] = Reached(prefixes[row], observations[row], [], guess, guess)
                found[move][0].append(groups[key])
            groups[key].answers.append(answer)
    return found


def _argmax(values: dict[int, float], own: int) -> int:
    """The guess of the highest value; ``own`` among equals."""
    return max(values, key=lambda guess: (values[guess], guess == own))


class Improvement(NamedTuple):
    """What :func:`improve` found: each position's label, the reward the labels are sure to add over
    all answers, the deeper look's guesses after its labels (by observation) and every guess valued
    at each position (the reward its answers' games earn, summed)."""

    labels: list[int]
    gain: float
    deeper: dict[bytes, int]
    values: list[dict[int, float]]


@torch.no_grad()
def improve(
    agent: WordAgent,
    config: WordleConfig,
    found: list[Reached],
    top: int,
    deep_top: int = 0,
    deep_answers: int = 100,
    deep_random: int = 0,
    seed: int = 0,
    chunk: int = 32768,
    screen: int = 0,
    critic: Critic | None = None,
) -> Improvement:
    """The label of each position: its best guess among the network's ``top`` by its own rollouts
    (the network's own guess unless another earns strictly more).

    Args:
        agent: the network.
        config: the game and its reward.
        found: the positions of the network's greedy games (:func:`positions`).
        top: guesses tried at each position.
        deep_top: positions of at least ``deep_answers`` answers look one guess further: their
            ``deep_top`` best guesses (by the rollouts) are valued with the best of ``top`` guesses
            at each position they lead to, and those positions' best guesses are returned too (by
            observation), for the improved policy to play after the label.
        deep_answers: see ``deep_top``.
        deep_random: at those positions, this many guesses drawn uniformly also compete: the
            network's top guesses are words much like its own (its scores are sums of letter
            scores), these explore the rest of the list.
        seed: the draws' seed.
        chunk: games played at once.
        screen: every position of 3 answers or more (the deeper look's too) also tries the
            ``critic``'s ``screen`` best guesses.
        critic: see ``screen``.

    Returns:
        :class:`Improvement`, with the reward the labels are sure to add over all answers: the gains
        of the changed positions that no other changed position leads to (by the policy improvement
        theorem, playing every label earns at least that much more than the network).
    """
    deep = [
        index
        for index, position in enumerate(found)
        if deep_top and len(position.answers) >= deep_answers
    ]
    draws = torch.Generator().manual_seed(seed)
    num = config.vocabulary.num_allowed
    extra = {index: torch.randint(num, (deep_random,), generator=draws).tolist() for index in deep}
    screened = {"screen": screen, "critic": critic}
    values = candidate_values(agent, config, found, top, chunk, extra, **screened)
    labels = [
        _argmax(valued, position.greedy) for valued, position in zip(values, found, strict=True)
    ]
    moves, after = _look_deeper(agent, config, found, values, deep, deep_top, top, chunk, screened)
    for i in deep:  # now valued one guess deeper: only those guesses compete
        labels[i] = _argmax(
            {guess: values[i][guess] for mover, guess in moves if mover == i}, found[i].greedy
        )
    gain = _sure_gain(found, values, labels)
    deeper: dict[bytes, int] = {}
    for i in deep:  # the improved policy plays on as the deeper look valued its label
        deeper.update(
            (child.observation.numpy().tobytes(), best)
            for child, best in after[(i, labels[i])]
            if best != child.greedy
        )
    return Improvement(labels, gain, deeper, values)


def _look_deeper(
    agent: WordAgent,
    config: WordleConfig,
    found: list[Reached],
    values: list[dict[int, float]],
    deep: list[int],
    deep_top: int,
    top: int,
    chunk: int,
    screened: dict[str, Any],
) -> tuple[list[tuple[int, int]], dict[tuple[int, int], list[tuple[Reached, int]]]]:
    """:func:`improve`'s deeper look: at each position of ``deep``, its ``deep_top`` best guesses
    (and the network's own) revalued with the best of ``top`` guesses at each position they lead
    to (``values`` updated in place); the moves, and after each the positions it leads to with
    their best guesses."""
    moves = [
        (i, guess)
        for i in deep
        for guess in sorted(values[i], key=lambda g: -values[i][g])[:deep_top]
    ]
    moves += [(i, found[i].greedy) for i in deep if (i, found[i].greedy) not in moves]
    leads_to = children(agent, config, [(found[i], guess) for i, guess in moves])
    inner = candidate_values(
        agent, config, [child for group, _ in leads_to for child in group], top, chunk, **screened
    )
    # after[(i, guess)]: the best guess at each position that guess leads to from position i
    at, after = 0, {}
    for (i, guess), (group, ended) in zip(moves, leads_to, strict=True):
        group_values, at = inner[at : at + len(group)], at + len(group)
        after[(i, guess)] = [
            (child, _argmax(v, child.greedy)) for v, child in zip(group_values, group, strict=True)
        ]
        values[i][guess] = ended + sum(
            v[best] for v, (_, best) in zip(group_values, after[(i, guess)], strict=True)
        )
    return moves, after


def _sure_gain(found: list[Reached], values: list[dict[int, float]], labels: list[int]) -> float:
    """The reward the labels are sure to add: a label that does not earn strictly more than the
    network's own guess is put back to it (``labels`` in place), and the gains of the changed
    positions no other changed position leads to are summed (``found`` is in turn order)."""
    gain = 0.0
    upstream = set()  # answers whose games already met a changed position
    for i, position in enumerate(found):
        if values[i][labels[i]] <= values[i][position.greedy] + 1e-6:
            labels[i] = position.greedy
        elif position.answers[0] not in upstream:
            gain += values[i][labels[i]] - values[i][position.greedy]
            upstream.update(position.answers)
    return gain


@torch.no_grad()
def explore(
    agent: WordAgent,
    config: WordleConfig,
    found: list[Reached],
    values: list[dict[int, float]],
    alternatives: int,
    min_answers: int,
    top: int,
    screen: int = 0,
    critic: Critic | None = None,
    chunk: int = 32768,
    root: int = 0,
) -> tuple[list[Reached], list[int]]:
    """Exploring starts: the network also learns to play where other guesses lead.

    Args:
        found: the positions of the network's greedy games.
        values: each position's guesses valued (:func:`candidate_values`).
        alternatives: at each position of at least ``min_answers`` answers, play its
            ``alternatives`` best valued guesses that are not the network's own, then the network's
            greedy play.
        min_answers: see ``alternatives``.
        top: guesses tried at each position met there.
        screen: the ``critic``'s best guesses tried too.
        critic: see ``screen``.
        chunk: games played at once.
        root: at the first position, this many alternatives instead (0: ``alternatives``).

    Returns:
        The positions those games meet (off the network's path) and the best guess at each, by
        rollouts. Trained on them, the network also plays well where another guess leads, so the
        next iteration values those guesses by good play after them: without them a better guess
        whose games need other play after it never wins its position.
    """
    starts = []
    for position, valued in zip(found, values, strict=True):
        if len(position.answers) >= min_answers:
            count = root if root and not position.prefix else alternatives
            others = sorted((g for g in valued if g != position.greedy), key=lambda g: -valued[g])[
                :count
            ]
            starts += [([*position.prefix, guess], position.answers) for guess in others]
    if not starts:
        return [], []
    met, _ = positions(agent, config, starts=starts)
    inner = candidate_values(agent, config, met, top, chunk, screen=screen, critic=critic)
    return met, [_argmax(valued, child.greedy) for valued, child in zip(inner, met, strict=True)]


def method(history: list[Iteration]) -> str:
    """What a run learned from, for its checkpoint's ``method``: :data:`METHOD`, the critic's
    one-step lookahead (a value of the answers left, fitted to the network's games) where it brought
    guesses, and the first guess where it was fixed by hand."""
    explored, screened = (
        any(h.explore or h.explore_root for h in history),
        any(h.screen for h in history),
    )
    used = [name for name, on in ((EXPLORING, explored), (SCREENING, screened)) if on]
    used += [fixed] if (fixed := fixed_openers(history)) else []
    return f"{METHOD} ({'; '.join(used)})" if used else METHOD


def fixed_openers(history: list[Iteration]) -> str:
    """How a run's method and account name the first guesses it fixed by hand ("" for none)."""
    openers = sorted({h.opener.upper() for h in history if h.opener})
    return f"the first guess fixed by hand: {', '.join(openers)}" if openers else ""


def _fixed_first_guess(agent: WordAgent, config: WordleConfig, opener: str) -> dict[bytes, int]:
    """``{the first position's observation: opener}`` to play, or nothing for no opener."""
    if not opener:
        return {}
    action = config.vocabulary.action(opener)
    first = _replay(agent, config, [0], [[]]).observations[0].cpu()
    return {first.numpy().tobytes(): action}


class Run:
    """A run's whole state (``last.pt`` in its folder): the network, every label so far, the best
    weights, each iteration's figures and the time spent."""

    def __init__(self, agent: WordAgent) -> None:
        self.agent = agent
        self.data: dict[bytes, tuple[torch.Tensor, int]] = {}
        self.history: list[Iteration] = []
        self.best_state: dict[str, torch.Tensor] | None = None
        self.best_key: tuple[float, float] | None = None
        self.seconds = 0.0  # spent in earlier commands

    def labels(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Every labelled position's observation (N, D) and its label (N,)."""
        rows = list(self.data.values())
        observations = torch.stack([r for r, _ in rows]) if rows else torch.zeros(0)
        return observations, torch.tensor([a for _, a in rows], dtype=torch.int64)

    def state_dict(self) -> dict[str, Any]:
        """Everything a resumed run needs to go on exactly as one that never stopped (dropout's
        random state included)."""
        observations, labels = self.labels()
        state = {
            "model": self.agent.net.state_dict(),
            "best": self.best_state,
            "best_key": list(self.best_key or ()),
            "observations": observations,
            "labels": labels,
            "history": [asdict(h) for h in self.history],
            "seconds": self.seconds,
            "rng": torch.get_rng_state(),
        }
        if self.agent.device.type == "cuda":
            state["cuda_rng"] = torch.cuda.get_rng_state(self.agent.device)
        return state

    def load_state_dict(self, state: Any) -> None:
        """Continue from ``state`` (a ``last.pt``); a file that is not one, or another network's, is
        a ``ValueError`` that says so."""
        needed = ("model", "best", "best_key", "observations", "labels", "history", "seconds")
        if not isinstance(state, dict) or any(key not in state for key in needed):
            found = sorted(state) if isinstance(state, dict) else type(state).__name__
            raise ValueError(f"not an improvement run's state (it holds {found})")
        try:
            self.agent.net.load_state_dict(state["model"])
            if state["best"] is not None:
                # the same shapes: checked before it is kept
                self.agent.net.load_state_dict(state["best"])
                self.agent.net.load_state_dict(state["model"])
            self.best_state, self.best_key = state["best"], tuple(state["best_key"]) or None
            pairs = zip(state["observations"], state["labels"], strict=True)
            self.data = {row.numpy().tobytes(): (row, int(a)) for row, a in pairs}
            self.history = [Iteration(**h) for h in state["history"]]
            self.seconds = float(state["seconds"])
        except (RuntimeError, TypeError, ValueError, KeyError, AttributeError) as exc:
            raise ValueError(
                f"its state does not fit this network ({one_line(exc, 200)})"
            ) from None
        # runs written before it was kept start the command's dropout from the seed
        if "rng" in state:
            torch.set_rng_state(state["rng"])
        if "cuda_rng" in state and self.agent.device.type == "cuda":
            torch.cuda.set_rng_state(state["cuda_rng"], self.agent.device)


def _keep_best(run: Run, games: Played) -> tuple[float, float, float]:
    """The network's figures in ``games`` (wins, mean guesses on wins, mean with losses), its
    weights kept as the run's best where they beat the best so far (wins, then mean guesses)."""
    figures = (games.win_rate, games.mean_guesses_wins, games.mean_guesses_all)
    key = (figures[0], -figures[1])
    if run.best_key is None or key > run.best_key:
        run.best_key = key
        run.best_state = {
            k: v.detach().clone().cpu() for k, v in run.agent.net.state_dict().items()
        }
    return figures


def _improved(
    agent: WordAgent,
    config: WordleConfig,
    options: ImproveOptions,
    found: list[Reached],
    games: Played,
    fixed: dict[bytes, int],
    it: int,
) -> tuple[list[Reached], list[int], float, dict[bytes, int], list[Reached], list[int]]:
    """One iteration's improvement of the network's play at the positions ``found`` (its games
    ``games``), the first guess ``fixed`` where one is: the positions (after the opener where it
    is fixed), their labels, the gain proven, the labels chosen, and the positions explored with
    theirs."""
    # its own games
    critic = Critic.fit(found, games.guesses.cpu(), config) if options.screen else None
    # the positions the opener leads to, played by the network: the first one stays fixed
    if fixed:
        if found[0].greedy not in fixed.values():  # the network does not open with it (yet)
            found = positions(agent, config, fixed)[0]
        found = [p for p in found if p.prefix]
    labels, gain, chosen, values = improve(
        agent,
        config,
        found,
        options.top,
        options.deep_top,
        options.deep_answers,
        options.deep_random,
        options.seed * 100_003 + it,
        screen=options.screen,
        critic=critic,
    )
    met, met_labels = explore(
        agent,
        config,
        found,
        values,
        options.explore,
        options.explore_answers,
        options.top,
        options.screen,
        critic,
        root=options.explore_root,
    )
    return found, labels, gain, chosen, met, met_labels


def _distil(
    run: Run, options: ImproveOptions, played: list[Reached], copies: int, it: int
) -> float:
    """The network trained on every label, the improved policy's path ``played`` counted
    ``copies`` more times; its loss (a ValueError where it diverges)."""
    observations, targets = run.labels()
    path = (
        torch.stack([p.observation for p in played]),
        torch.tensor([p.played for p in played]),
    )
    observations = torch.cat([observations, *[path[0]] * copies])
    targets = torch.cat([targets, *[path[1]] * copies])
    loss = train(run.agent, observations, targets, options.epochs, options.lr, seed=it)
    if not math.isfinite(loss):
        raise ValueError(
            f"the distillation diverged at iteration {it} (loss {loss}); lower "
            f"--lr ({options.lr:g})"
        )
    return loss


def _record(
    run: Run,
    it: int,
    changed: int,
    figures: tuple[float, float, float],
    options: ImproveOptions,
    explored: int,
    copies: int,
) -> Iteration:
    """Iteration ``it``'s record: the network's figures before it, what it changed and with what
    options (``explored`` positions; the exploring options 0 where none was)."""
    o = options
    return Iteration(
        *(it, len(run.data), changed, o.top, o.deep_top, o.deep_random, *figures, run.seconds),
        screen=options.screen,
        explore=options.explore if explored else 0,
        explored=explored,
        epochs=options.epochs,
        path_copies=copies,
        opener=options.opener.lower(),
        explore_root=options.explore_root if explored else 0,
    )


def iterate(
    run: Run,
    config: WordleConfig,
    iterations: int,
    options: ImproveOptions,
    deadline: float = float("inf"),
    log: Any = print,
    save: Any = None,
) -> None:
    """Play, improve, distil until ``run`` has ``iterations`` iterations, then play once more.

    Args:
        run: the state, continued (``Run.load_state_dict`` after a stop).
        config: the game the rollouts play and the reward they earn.
        iterations: iterations in all (those ``run`` did before count).
        options: how each iteration improves and distils.
        deadline: a ``time.perf_counter()`` after which no new iteration starts; at least one is
            done.
        log: where each iteration's figures go.
        save: called with ``run`` after each iteration (the caller writes ``last.pt``).

    The best network (by wins, then mean guesses) is ``run.best_state``. With ``options.explore``,
    the positions :func:`explore` meets are labelled too, and the improved policy's path counts
    ``options.path_copies`` more times in distillation. A distillation that diverges (a loss that is
    not finite) raises ``ValueError``.
    """
    agent = run.agent
    start, before, done = time.perf_counter(), run.seconds, len(run.history)
    num = config.vocabulary.num_answers
    fixed = _fixed_first_guess(agent, config, options.opener)
    while True:
        it = len(run.history)
        found, games = positions(agent, config)
        figures = _keep_best(run, games)
        said = (
            f"iteration {it}: the network wins {100 * figures[0]:.2f} %, mean {figures[1]:.4f} "
            f"({figures[2]:.4f} with losses as {config.max_guesses + 1})"
        )
        if it >= iterations or (time.perf_counter() > deadline and len(run.history) > done):
            log(said)
            break
        found, labels, gain, chosen, met, met_labels = _improved(
            agent, config, options, found, games, fixed, it
        )
        # the network's own path's labels come after
        for q, label in zip(met, met_labels, strict=True):
            run.data[q.observation.numpy().tobytes()] = (q.observation, label)
        chosen.update(
            (p.observation.numpy().tobytes(), label)
            for p, label in zip(found, labels, strict=True)
            if label != p.greedy
        )
        chosen.update(fixed)
        # The improved policy itself: the labels where they differ, the network's own play
        # everywhere else (what the rollouts measured). The network learns its guess at every
        # position it reaches.
        played, games = positions(agent, config, chosen)
        better = (games.win_rate, games.mean_guesses_wins, games.mean_guesses_all)
        for p in played:
            run.data[p.observation.numpy().tobytes()] = (p.observation, p.played)
        changed = sum(label != p.greedy for p, label in zip(found, labels, strict=True))
        moved = sum(label != q.greedy for q, label in zip(met, met_labels, strict=True))
        explored = f"; {len(met)} positions explored, {moved} improved" if met else ""
        log(
            f"{said}; {len(found)} positions, {changed} improved (at least {gain / num:+.4f} "
            f"reward a game): the improved policy wins {100 * better[0]:.2f} %, mean "
            f"{better[1]:.4f} ({better[2]:.4f}){explored}; {len(run.data)} labels"
        )
        # the improved policy's own path among the many explored labels
        copies = options.path_copies if met else 0
        loss = _distil(run, options, played, copies, it)
        run.seconds = before + time.perf_counter() - start
        run.history.append(_record(run, it, changed, figures, options, len(met), copies))
        log(f"  distilled: loss {loss:.4f}; {run.seconds:.0f} s")
        if save is not None:
            save(run)
    run.seconds = before + time.perf_counter() - start
