"""Policy iteration by own rollouts on several boards: a one-board network learns to play Dordle and
Quordle.

    python -m wordle_agents.commands.improve_boards --init agents/checkpoints/dqn_explored.pt \\
        --out dqn_boards.pt [--boards 2,4] [--games 400] [--top 8] [--samples 8] \\
        [--iterations 10] [--max-minutes 60]

A one-board network plays K boards as :class:`~wordle_agents.rl.networks.BoardMixture` plays it:
each guess the likeliest word of the unsolved boards' softmaxes mixed. What it learned on one board
serves it poorly there (it plays for one board at a time, and believes a game has six guesses). Each
iteration, for each board count:

1. **Play.** The network plays ``--games`` fresh training games (K-tuples of distinct answers drawn
   with a training seed; never the standard evaluation set), and every turn after the first of every
   game still on is a position.
2. **Improve.** At each position, each of the network's ``--top`` likeliest guesses (and with
   ``--possible P`` every answer still possible on a board with at most P left) is played, then the
   game is finished by the network's own greedy play, on answer tuples the position allows: the
   game's own, and ``--samples`` - 1 more, each board's answer drawn uniformly from the answers its
   feedback allows (given the guesses so far, every tuple of distinct answers they allow is equally
   likely); every tuple when there are no more than ``--samples``. Every guess plays the same
   tuples. The guess whose games earn the most reward (the env's ``--reward``: "default" is -1 a
   guess and -5 for a loss) is the position's label, or the network's own guess where none earns
   more (by a significant margin where the tuples were drawn). Positions where each unsolved board
   has one answer left are valued too: the one-board network, shown a board at a turn it rarely
   reached alone, can replay a guess that its feedback has ruled out.
3. **Distil.** The network is trained on every label so far (the latest at each observation): the
   cross-entropy of the label under the mixture, so the label becomes the likeliest word of the
   mixture. ``--anchors N`` adds the positions of N more greedy games a board count, labelled with
   the network's own guess: a few hundred games' labels say nothing of the rest of the game, which
   the network should keep.

Reward only: the rollouts are the network's own games, scored by the env's reward; no solver, no
teacher, no hand rule. The best network (by wins on fixed validation games of each board count,
drawn with another training seed; then mean guesses) is kept. The run folder's ``last.pt`` holds
everything: the same command continues the run.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from wordle_agents.common.network import WordAgent
from wordle_agents.methods.rollouts import Forced
from wordle_agents.rl.networks import AllBoardsNetwork, BoardMixture, one_board_observations
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.tables import pattern_array
from wordle_gym.envs.observation import MultiKnowledgeLayout
from wordle_gym.harness.play import Played, Step, play

METHOD = "own-policy rollouts on several boards"
POSSIBLE = "; guesses also from the answers left on a board"
SEEING = "a network that sees every board"
TRAINING_SEED = 20261127
"""The seed of the training and validation games (the standard evaluation sets use another)."""
VALIDATION_STREAM = 2**31
"""The validation games' stream of that seed (iteration ``i``'s training games are stream ``i``)."""
ANCHOR_STREAM = 2**30
"""Iteration ``i``'s anchor games are stream ``ANCHOR_STREAM + i``."""


@dataclass(frozen=True)
class BoardsOptions:
    """How each iteration plays, improves and distils; any of them may change from one command to
    the next."""

    games: int = 200
    """Training games per board count and iteration (fresh each iteration)."""
    top: int = 8
    """The network's likeliest guesses tried at each position."""
    samples: int = 16
    """Answer tuples each guess is played on at a position (the game's own among them)."""
    epochs: int = 4
    """Epochs over all labels per iteration."""
    lr: float = 1e-4
    """Adam learning rate of the distillation."""
    validation: int = 1000
    """Validation games per board count (the same every iteration): the best network is chosen on
    them."""
    possible: int = 0
    """Also try, at each position, every answer still possible on an unsolved board that has at most
    this many left (the network's likeliest guesses may hold none of them: it can replay a guess
    ruled out)."""
    anchors: int = 0
    """More games a board count each iteration whose positions are labelled with the network's own
    guess (no rollouts): they hold its play where the rollouts' few games say nothing (a label there
    wins over them)."""

    def __post_init__(self) -> None:
        least = {
            "games": 1,
            "top": 1,
            "samples": 1,
            "epochs": 1,
            "validation": 1,
            "possible": 0,
            "anchors": 0,
        }
        for name, low in least.items():
            value, high = getattr(self, name), 1_000 if name == "epochs" else 1_000_000
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an integer from {low} to {high:,}; got {value!r}")
        if not (isinstance(self.lr, float | int) and math.isfinite(self.lr) and 0 < self.lr <= 1):
            raise ValueError(f"lr must be a number in (0, 1]; got {self.lr!r}")


def training_games(num_answers: int, boards: int, games: int, stream: int) -> torch.Tensor:
    """``games`` K-tuples of distinct answers (games, K), drawn from the training seed's stream
    ``stream``."""
    rng = np.random.default_rng([TRAINING_SEED, boards, stream])
    keys = rng.random((games, num_answers))
    return torch.from_numpy(np.argpartition(keys, boards, axis=1)[:, :boards].astype(np.int64))


def as_policy(agent: WordAgent | AllBoardsNetwork) -> BoardMixture | AllBoardsNetwork:
    """How the run's network plays several boards: itself when it sees every board, else as a
    mixture."""
    return agent if isinstance(agent, AllBoardsNetwork) else BoardMixture(agent)


def mixture_log_pi(
    agent: WordAgent | AllBoardsNetwork, observations: torch.Tensor, layout: MultiKnowledgeLayout
) -> torch.Tensor:
    """The log-probability of every word under the mixture of the unsolved boards' softmaxes (B, W),
    as :class:`BoardMixture` plays it (its argmax), or :class:`AllBoardsNetwork`'s; differentiable
    in the network's weights."""
    if isinstance(agent, AllBoardsNetwork):
        return agent.log_pi(observations, layout)
    boards, unsolved = one_board_observations(observations, layout, agent.layout.max_guesses)
    log_pi = agent.scores(boards.flatten(0, 1)).log_softmax(1).view(*unsolved.shape, -1)
    log_pi = log_pi.masked_fill(~unsolved[..., None], -torch.inf).logsumexp(1)
    return log_pi - unsolved.sum(1, keepdim=True).clamp(min=1).log()


class _Forced(Forced):
    """Game ``i`` plays ``forced[i, :lengths[i]]`` first, then the mixture's greedy guess (a harness
    policy)."""

    def __init__(
        self, mixture: BoardMixture | AllBoardsNetwork, forced: torch.Tensor, lengths: torch.Tensor
    ) -> None:
        super().__init__(mixture.agent, forced, lengths, hard_mode=False)
        self.mixture = mixture

    def greedy(
        self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any
    ) -> torch.Tensor:
        return self.mixture.act(observations, action_masks, env)


@dataclass
class BoardsTurn:
    """A turn of a training game: the guesses before it, what the network saw, the game's answers,
    the network's own guess and the answer tuples its guesses are valued on."""

    prefix: list[int]
    observation: torch.Tensor
    answers: list[int]
    greedy: int
    tuples: list[list[int]]
    exact: bool  # the tuples are every one the position allows (else drawn)
    # guesses also tried: the answers left on boards of few (``BoardsOptions.possible``)
    possible: list[int]


def _sets(table: np.ndarray, prefix: list[int], answers: list[int]) -> list[np.ndarray]:
    """Each board's answers that the feedback of ``prefix`` allows (a solved board's: its answer
    alone, the only one its winning guess shows all green)."""
    rows = table[prefix]  # (t, answers)
    return [np.flatnonzero((rows == rows[:, answer : answer + 1]).all(0)) for answer in answers]


def _tuples(
    sets: list[np.ndarray], answers: list[int], samples: int, rng: Any
) -> tuple[list[list[int]], bool]:
    """The answer tuples a position is valued on: the game's own first, then ``samples`` - 1 drawn
    (each board's answer uniform among ``sets``, its answers allowed, tuples of distinct answers),
    or every allowed tuple when there are no more than ``samples`` (then True: exact)."""
    total = math.prod(len(s) for s in sets)
    if total <= samples:
        every = np.stack(np.meshgrid(*sets, indexing="ij"), -1).reshape(-1, len(sets))
        distinct = [list(map(int, t)) for t in every if len(set(t.tolist())) == len(sets)]
        own = list(answers)
        return [own] + [t for t in distinct if t != own], True
    found = [list(answers)]
    for _ in range(samples - 1):
        for _try in range(20):
            pick = [int(s[rng.integers(len(s))]) for s in sets]
            if len(set(pick)) == len(pick):
                found.append(pick)
                break
    return found, False


def _turns(played: Played) -> Iterator[tuple[int, int, Step]]:
    """``(turn, game, that turn's step)`` for every turn after the first of every game still on then
    (the games of ``play(..., record=True)``)."""
    for turn, step in enumerate(played.steps[1:], start=1):
        for g in step.playing.cpu().nonzero().flatten().tolist():
            yield turn, g, step


@torch.no_grad()
def positions(
    agent: WordAgent,
    config: WordleConfig,
    games: torch.Tensor,
    samples: int,
    seed: int,
    possible: int = 0,
) -> tuple[list[BoardsTurn], Played]:
    """The positions of the network's greedy games on ``games`` (every turn after the first of a
    game still on), each with the tuples it is valued on and, as guesses to try, the answers still
    possible on each unsolved board that has at most ``possible`` left; and the games."""
    played = play(
        as_policy(agent), config, games=games, device=agent.device, check=False, record=True
    )
    vocabulary = config.vocabulary
    table = pattern_array(vocabulary)
    as_guess = [vocabulary.allowed_index[w] for w in vocabulary.answers]
    rng = np.random.default_rng([TRAINING_SEED, seed])
    actions, found = played.actions.cpu(), []
    for turn, g, step in _turns(played):
        prefix, answers = actions[g, :turn].tolist(), games[g].tolist()
        sets = _sets(table, prefix, answers)
        tuples, exact = _tuples(sets, answers, samples, rng)
        few = [
            as_guess[a] for s in sets if len(s) <= possible for a in s if as_guess[a] not in prefix
        ]
        row = step.observations[g].cpu()
        found.append(BoardsTurn(prefix, row, answers, int(step.actions[g]), tuples, exact, few))
    return found, played


@torch.no_grad()
def values(
    agent: WordAgent, config: WordleConfig, found: list[BoardsTurn], top: int, chunk: int = 8192
) -> list[dict[int, np.ndarray]]:
    """For each position, ``{guess: reward of each of its tuples' games}`` for its ``top`` likeliest
    guesses (its own among them): the guess played, then the network's greedy play."""
    if not found:
        return []
    layout = MultiKnowledgeLayout(config.vocabulary.length, config.max_guesses, config.boards)
    agent.use_words(list(config.vocabulary.allowed))
    candidates = []
    for start in range(0, len(found), 256):
        block = torch.stack([p.observation for p in found[start : start + 256]]).to(agent.device)
        candidates += mixture_log_pi(agent, block, layout).topk(top, dim=1).indices.cpu().tolist()
    width = config.max_guesses
    rows, forced, lengths, owner = [], [], [], []
    for index, (position, guesses) in enumerate(zip(found, candidates, strict=True)):
        if position.greedy not in guesses:
            guesses[-1] = position.greedy
        guesses += [g for g in dict.fromkeys(position.possible) if g not in guesses]
        for guess in guesses:
            prefix = position.prefix + [guess] + [0] * (width - len(position.prefix) - 1)
            for answers in position.tuples:
                rows.append(answers)
                forced.append(prefix)
                lengths.append(len(position.prefix) + 1)
                owner.append((index, guess))
    mixture = as_policy(agent)
    returns = []
    games, forced_t, lengths_t = torch.tensor(rows), torch.tensor(forced), torch.tensor(lengths)
    bar = tqdm(total=len(rows), desc="rollouts", unit="game", leave=False, disable=None)
    for start in range(0, len(rows), chunk):
        part = slice(start, start + chunk)
        policy = _Forced(mixture, forced_t[part].to(agent.device), lengths_t[part].to(agent.device))
        returns.append(
            play(policy, config, games=games[part], device=agent.device, check=False).returns.cpu()
        )
        bar.update(len(games[part]))
    bar.close()
    earned: list[dict[int, list[float]]] = [{} for _ in found]
    for (index, guess), reward in zip(owner, torch.cat(returns).tolist(), strict=True):
        earned[index].setdefault(guess, []).append(reward)
    return [{g: np.array(r) for g, r in e.items()} for e in earned]


def label(valued: dict[int, np.ndarray], own: int, exact: bool, z: float = 2.0) -> int:
    """The guess whose games earn the most on average; ``own`` unless another earns strictly more,
    and, where the tuples were drawn (not ``exact``), more by ``z`` standard errors of the paired
    difference (every guess plays the same tuples): a guess that only won the draw is not
    learned."""
    best = max(valued, key=lambda guess: (valued[guess].mean(), guess == own))
    gain = valued[best] - valued[own]
    if gain.mean() <= 1e-9:
        return own
    if exact:
        return best
    return best if gain.mean() > z * gain.std(ddof=1) / math.sqrt(len(gain)) else own


def distil(
    agent: WordAgent,
    data: dict[int, tuple[torch.Tensor, torch.Tensor]],
    configs: dict[int, WordleConfig],
    epochs: int,
    lr: float,
    seed: int,
    batch: int = 256,
) -> float:
    """Train the network on every board count's labels (observations, labels): the mean
    cross-entropy of each label under the mixture (:func:`mixture_log_pi`); the last epoch's mean
    loss."""
    net = agent.net
    net.train()
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, foreach=True)
    generator = torch.Generator().manual_seed(seed)
    layouts = {
        k: MultiKnowledgeLayout(c.vocabulary.length, c.max_guesses, c.boards)
        for k, c in configs.items()
        if k in data
    }
    loss_sum, count = 0.0, 0
    for _ in range(epochs):
        batches = []
        for k, (_, labels) in data.items():
            order = torch.randperm(len(labels), generator=generator)
            batches += [(k, order[s : s + batch]) for s in range(0, len(labels), batch)]
        loss_sum, count = 0.0, 0
        for i in torch.randperm(len(batches), generator=generator).tolist():
            k, rows = batches[i]
            observations, labels = data[k]
            log_pi = mixture_log_pi(agent, observations[rows].to(agent.device), layouts[k])
            loss = -log_pi.gather(1, labels[rows].to(agent.device)[:, None]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_sum, count = loss_sum + float(loss.detach()) * len(rows), count + len(rows)
    net.eval()
    return loss_sum / max(count, 1)


@dataclass
class BoardsIteration:
    """What one iteration did, per board count: the network's figures on the validation games before
    its training, positions valued and improved, labels so far."""

    iteration: int
    boards: list[int]
    win_rate: list[float]
    mean_guesses: list[float]  # on wins
    positions: list[int]
    changed: list[int]
    labels: int
    loss: float
    seconds: float
    possible: int = 0  # the answers left tried where a board had at most this many
    anchors: int = 0  # games of the network's own guesses among the labels


class BoardsRunState:
    """A run's whole state: the network, the labels of each board count, the best weights and their
    figures, each iteration's figures and the time spent."""

    def __init__(self, agent: WordAgent) -> None:
        self.agent = agent
        self.data: dict[int, dict[bytes, tuple[torch.Tensor, int]]] = {}
        self.history: list[BoardsIteration] = []
        self.best_state: dict[str, torch.Tensor] | None = None
        self.best_key: tuple[float, float] | None = None
        self.best_figures: dict[int, tuple[float, float, float]] = {}
        self.seconds = 0.0

    def tensors(
        self, anchors: dict[int, dict[bytes, tuple[torch.Tensor, int]]] | None = None
    ) -> dict[int, tuple[torch.Tensor, torch.Tensor]]:
        """Each board count's labelled observations and labels; ``anchors`` add positions no label
        holds."""
        found = {}
        for k in sorted({*self.data, *(anchors or {})}):
            rows = {**(anchors or {}).get(k, {}), **self.data.get(k, {})}
            if rows:
                found[k] = (
                    torch.stack([r for r, _ in rows.values()]),
                    torch.tensor([a for _, a in rows.values()]),
                )
        return found

    def state_dict(self) -> dict[str, Any]:
        return {
            "model": self.agent.net.state_dict(),
            "best": self.best_state,
            "best_key": list(self.best_key or ()),
            "best_figures": {k: list(v) for k, v in self.best_figures.items()},
            "data": {k: {"observations": o, "labels": a} for k, (o, a) in self.tensors().items()},
            "history": [asdict(h) for h in self.history],
            "seconds": self.seconds,
            "rng": torch.get_rng_state(),
        }

    def load_state_dict(self, state: Any) -> None:
        needed = ("model", "best", "best_key", "best_figures", "data", "history", "seconds")
        if not isinstance(state, dict) or any(key not in state for key in needed):
            raise ValueError("not a several-board improvement run's state")
        try:
            self.agent.net.load_state_dict(state["model"])
            self.best_state, self.best_key = state["best"], tuple(state["best_key"]) or None
            figures = state["best_figures"].items()
            self.best_figures = {
                int(k): (float(v[0]), float(v[1]), float(v[2])) for k, v in figures
            }
            self.data = {
                int(k): {
                    o.numpy().tobytes(): (o, int(a))
                    for o, a in zip(d["observations"], d["labels"], strict=True)
                }
                for k, d in state["data"].items()
            }
            self.history = [BoardsIteration(**h) for h in state["history"]]
            self.seconds = float(state["seconds"])
        except (RuntimeError, TypeError, ValueError, KeyError, AttributeError) as exc:
            raise ValueError(f"its state does not fit this network ({exc})") from None
        if "rng" in state:
            torch.set_rng_state(state["rng"])


@torch.no_grad()
def own_guesses(
    agent: WordAgent, config: WordleConfig, games: int, stream: int
) -> dict[bytes, tuple[torch.Tensor, int]]:
    """The network's own guess at every position after the first of ``games`` greedy games (by
    observation)."""
    if not games:
        return {}
    answers = training_games(config.vocabulary.num_answers, config.boards, games, stream)
    played = play(
        as_policy(agent), config, games=answers, device=agent.device, check=False, record=True
    )
    found = {}
    for _, g, step in _turns(played):
        row = step.observations[g].cpu()
        found[row.numpy().tobytes()] = (row, int(step.actions[g]))
    return found


def method(history: list[BoardsIteration], boards: list[int], see_all: bool = False) -> str:
    """What a run learned from, for its checkpoint's ``method``: :data:`METHOD` on its board counts,
    and the guesses the rules proposed (the answers left on a board), where a run tried them; with
    ``see_all``, that a context network seeing every board learned them."""
    counts = ", ".join(str(k) for k in boards)
    seeing = f"; {SEEING}" if see_all else ""
    return (
        f"{METHOD} ({counts} boards{POSSIBLE if any(h.possible for h in history) else ''}{seeing})"
    )


def validate(
    agent: WordAgent, configs: dict[int, WordleConfig], games: int
) -> dict[int, tuple[float, float, float]]:
    """The mixture's win rate, mean guesses on wins and mean guesses of all games (a loss as
    ``max_guesses + 1``) on each board count's validation games."""
    found = {}
    for k, config in configs.items():
        answers = training_games(config.vocabulary.num_answers, k, games, stream=VALIDATION_STREAM)
        played = play(as_policy(agent), config, games=answers, device=agent.device, check=False)
        found[k] = (played.win_rate, played.mean_guesses_wins, played.mean_guesses_all)
    return found


def _key(figures: dict[int, tuple[float, float, float]]) -> tuple[float, float]:
    """Better networks first: the mean win rate over the board counts, then fewer mean guesses (a
    loss as ``max_guesses + 1``)."""
    return (
        float(np.mean([f[0] for f in figures.values()])),
        -float(np.mean([f[2] for f in figures.values()])),
    )


def _keep_best(run: BoardsRunState, figures: dict[int, tuple[float, float, float]]) -> None:
    """The network's weights kept as the run's best where its validation ``figures`` beat the
    best so far (:func:`_key`)."""
    key = _key(figures)
    if run.best_key is None or key > run.best_key:
        run.best_key, run.best_figures = key, figures
        run.best_state = {
            k: v.detach().clone().cpu() for k, v in run.agent.net.state_dict().items()
        }


def _label_positions(
    run: BoardsRunState, configs: dict[int, WordleConfig], options: BoardsOptions, it: int
) -> tuple[list[int], list[int]]:
    """Iteration ``it``'s positions of each board count, met in its training games, labelled with
    their best guess found (into ``run.data``); how many there were and how many changed, by
    board count."""
    counts, changes = [], []
    for k, config in configs.items():
        games = training_games(config.vocabulary.num_answers, k, options.games, stream=it)
        found, _ = positions(
            run.agent, config, games, options.samples, it * 64 + k, options.possible
        )
        valued = values(run.agent, config, found, options.top)
        rows = run.data.setdefault(k, {})
        changed = 0
        for position, v in zip(found, valued, strict=True):
            best = label(v, position.greedy, position.exact)
            changed += best != position.greedy
            rows[position.observation.numpy().tobytes()] = (position.observation, best)
        counts.append(len(found))
        changes.append(changed)
    return counts, changes


def iterate(
    run: BoardsRunState,
    configs: dict[int, WordleConfig],
    iterations: int,
    options: BoardsOptions,
    deadline: float = math.inf,
    log: Any = print,
    save: Any = None,
) -> None:
    """Play, improve, distil until ``run`` has ``iterations`` iterations, then validate once more;
    the best network (by :func:`_key` on the validation games) is ``run.best_state``. No new
    iteration starts after ``deadline`` (at least one is done); ``save(run)`` after each."""
    agent = run.agent
    start, before, done = time.perf_counter(), run.seconds, len(run.history)
    while True:
        it = len(run.history)
        figures = validate(agent, configs, options.validation)
        _keep_best(run, figures)
        said = f"iteration {it}: " + ", ".join(
            f"{k} boards {100 * w:.2f} % / {m:.4f} ({a:.4f})" for k, (w, m, a) in figures.items()
        )
        if it >= iterations or (time.perf_counter() > deadline and len(run.history) > done):
            log(said)
            break
        counts, changes = _label_positions(run, configs, options, it)
        anchors = {
            k: own_guesses(agent, config, options.anchors, stream=ANCHOR_STREAM + it)
            for k, config in configs.items()
        }
        loss = distil(agent, run.tensors(anchors), configs, options.epochs, options.lr, seed=it)
        if not math.isfinite(loss):
            raise ValueError(
                f"the distillation diverged at iteration {it} (loss {loss}); lower "
                f"--lr ({options.lr:g})"
            )
        run.seconds = before + time.perf_counter() - start
        labels = sum(len(rows) for rows in run.data.values())
        run.history.append(
            BoardsIteration(
                it,
                list(configs),
                [f[0] for f in figures.values()],
                [f[1] for f in figures.values()],
                counts,
                changes,
                labels,
                loss,
                run.seconds,
                options.possible,
                options.anchors,
            )
        )
        improved = ", ".join(
            f"{k} boards {c} of {n} improved"
            for k, n, c in zip(configs, counts, changes, strict=True)
        )
        log(f"{said}; {improved}; {labels} labels; loss {loss:.4f}; {run.seconds:.0f} s")
        if save is not None:
            save(run)
    run.seconds = before + time.perf_counter() - start
