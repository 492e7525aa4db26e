"""The network's own greedy play with forced first guesses, the rollouts policy iteration values
moves by: :class:`Forced` (a harness policy), :func:`rollouts` (games to their end), the positions
greedy play reaches (:class:`Reached`, grouped by observation), a game replayed to a turn, and a
critic fitted to the network's own games (:class:`Critic`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from wordle_agents.common.network import WordAgent
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.rules import num_patterns
from wordle_gym.envs.vector import WordleVectorEnv
from wordle_gym.harness.play import Played, play


@dataclass
class Reached:
    """One position reached by greedy play: the guesses that led to it, its observation, the answers
    still possible there, and the network's own guess."""

    prefix: list[int]
    observation: torch.Tensor
    answers: list[int]
    greedy: int
    played: int  # the guess played there: ``greedy``, or the one ``chosen`` for it


class Forced:
    """Game ``i``'s first ``lengths[i]`` guesses are ``forced[i]``; then the network's greedy guess
    (among those the position allows in hard mode). A harness policy:
    :func:`wordle_gym.harness.play.play` runs it."""

    def __init__(
        self, agent: WordAgent, forced: torch.Tensor, lengths: torch.Tensor, hard_mode: bool
    ) -> None:
        self.agent, self.forced, self.lengths, self.hard_mode = agent, forced, lengths, hard_mode

    def act(
        self, observations: torch.Tensor, action_masks: torch.Tensor, env: WordleVectorEnv
    ) -> torch.Tensor:
        turn = env.state.turn
        forced = self.forced.gather(1, turn.clamp(max=self.forced.shape[1] - 1)[:, None]).squeeze(1)
        actions = torch.where(turn < self.lengths, forced, 0)
        free = (~env.state.done & (turn >= self.lengths)).nonzero().flatten()
        if len(free):
            actions[free] = self.greedy(observations[free], action_masks[free], env)
        return actions

    def greedy(
        self, observations: torch.Tensor, action_masks: torch.Tensor, env: WordleVectorEnv
    ) -> torch.Tensor:
        """The network's greedy guess in the games past their forced guesses."""
        return self.agent.best_words(observations, action_masks if self.hard_mode else None)


@torch.no_grad()
def rollouts(
    agent: WordAgent,
    config: WordleConfig,
    answers: torch.Tensor,
    forced: torch.Tensor,
    lengths: torch.Tensor,
    chunk: int = 32768,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Play game ``i`` on answer ``answers[i]``: its first ``lengths[i]`` guesses are ``forced[i]``,
    the rest the network's greedy choice (:class:`Forced`), ``chunk`` games at a time.

    Returns:
        Each game's return (the sum of its rewards) and the guesses it used (``max_guesses + 1`` for
        a loss).
    """
    returns, used = [], []
    agent.net.eval()
    # None: on a terminal
    bar = tqdm(total=len(answers), desc="rollouts", unit="game", leave=False, disable=None)
    for start in range(0, len(answers), chunk):
        rows = slice(start, start + chunk)
        policy = Forced(
            agent, forced[rows].to(agent.device), lengths[rows].to(agent.device), config.hard_mode
        )
        games = play(policy, config, games=answers[rows], device=agent.device, check=False)
        returns.append(games.returns.cpu())
        used.append(games.guesses.cpu())
        bar.update(len(games.won))
    bar.close()
    return torch.cat(returns), torch.cat(used)


class _Grouping:
    """The network's greedy play, where games that reach the same observation are one position
    (their answers are exactly those consistent with it): each turn it records the positions of the
    games still on, plays ``chosen``'s guess where it has one for a position (by observation), and
    game ``i``'s ``prefixes[i]`` first."""

    def __init__(
        self,
        agent: WordAgent,
        config: WordleConfig,
        games: list[tuple[list[int], int]],
        chosen: dict[bytes, int] | None,
    ) -> None:
        self.agent, self.hard_mode, self.games, self.chosen = agent, config.hard_mode, games, chosen
        self.history = torch.zeros((len(games), config.max_guesses), dtype=torch.int64)
        self.found: list[Reached] = []
        self.turn = 0  # act is called once a turn

    def act(
        self, observations: torch.Tensor, action_masks: torch.Tensor, env: WordleVectorEnv
    ) -> torch.Tensor:
        turn, self.turn = self.turn, self.turn + 1
        actions = _best(self.agent, self.hard_mode, observations, action_masks)
        groups: dict[bytes, Reached] = {}
        rows = observations.cpu()
        for i in (~env.state.done).cpu().nonzero().flatten().tolist():
            prefix, answer = self.games[i]
            if turn < len(prefix):
                actions[i] = prefix[turn]
                continue
            key = rows[i].numpy().tobytes()
            if key not in groups:
                greedy = int(actions[i])
                played = greedy if self.chosen is None else self.chosen.get(key, greedy)
                groups[key] = Reached(self.history[i, :turn].tolist(), rows[i], [], greedy, played)
            groups[key].answers.append(answer)
            actions[i] = groups[key].played
        self.found.extend(groups.values())
        self.history[:, turn] = actions
        return actions.to(env.device)


def _replay(
    agent: WordAgent, config: WordleConfig, answers: list[int], prefixes: list[list[int]]
) -> Played:
    """Game ``i`` on ``answers[i]`` after the guesses ``prefixes[i]`` (all one length): the env to
    go on from, its last observations and infos, and the reward each game earned."""
    width = len(prefixes[0]) if prefixes else 0
    forced = torch.tensor(prefixes, dtype=torch.int64).reshape(len(answers), width).to(agent.device)
    lengths = torch.full((len(answers),), width, dtype=torch.int64, device=agent.device)
    policy = Forced(agent, forced, lengths, config.hard_mode)
    return play(policy, config, games=answers, device=agent.device, turns=width, check=False)


def _best(
    agent: WordAgent, hard_mode: bool, obs: torch.Tensor, action_masks: torch.Tensor
) -> torch.Tensor:
    """The network's greedy guess at each observation (among those the position allows in hard
    mode)."""
    return agent.best_words(obs, action_masks if hard_mode else None).cpu()


class Critic:
    """How many guesses the network's greedy play still needs at a position of ``k`` answers (its
    own guess there included), averaged over the positions of its own games: ``cost[k]``,
    interpolated (in log ``k``) between the sizes it met and made non-decreasing. One-step lookahead
    with it ranks every allowed guess cheaply, to bring guesses unlike the network's own (its scores
    are sums of letter scores, its top guesses near-copies of its own) before the rollouts, which
    alone decide."""

    def __init__(self, cost: torch.Tensor, patterns: int) -> None:
        self.cost = cost  # (num_answers + 1,), cost[0] = 0
        self.patterns = patterns  # the last one is every tile green

    @classmethod
    def fit(cls, found: list[Reached], used: torch.Tensor, config: WordleConfig) -> Critic:
        """From the positions of the network's greedy games and each answer's guesses
        (:func:`~wordle_agents.methods.policy_iteration.positions`)."""
        sums: dict[int, list[float]] = {}
        for p in found:
            needed = float((used[p.answers] - len(p.prefix)).double().mean())
            sums.setdefault(len(p.answers), []).append(needed)
        sizes = np.array(sorted(sums), dtype=np.float64)
        means = np.array([np.mean(sums[int(k)]) for k in sizes])
        every = np.arange(1, config.vocabulary.num_answers + 1, dtype=np.float64)
        cost = np.maximum.accumulate(np.interp(np.log(every), np.log(sizes), means))
        costs = torch.tensor(np.concatenate([[0.0], cost]), dtype=torch.float32)
        return cls(costs, num_patterns(config.vocabulary.length))

    def screen(
        self, table: torch.Tensor, answers: list[int], k: int, allowed: torch.Tensor | None
    ) -> list[int]:
        """The ``k`` guesses (rows of ``table``, the allowed x answers pattern ids) whose split of
        ``answers`` the critic expects to cost least: the sum over the split's groups, but the one
        the guess wins, of ``size * cost[size]`` (among ``allowed`` guesses where given)."""
        patterns = table[:, answers].long()  # (G, n)
        counts = torch.zeros(
            (table.shape[0], self.patterns), dtype=torch.int64, device=table.device
        )
        counts.scatter_add_(1, patterns, torch.ones_like(patterns))
        counts[:, -1] = 0  # the group of the answer guessed: won, nothing more to pay
        cost = self.cost.to(table.device)
        expected = (counts * cost[counts]).sum(1)
        if allowed is not None:
            expected = expected.masked_fill(~allowed.to(table.device), torch.inf)
        return expected.topk(min(k, len(expected)), largest=False).indices.tolist()
