"""``wordle-gym solve``: an agent's game for one answer."""

from __future__ import annotations

from dataclasses import dataclass, field

from wordle_gym.cli.shared import (
    AgentChoice,
    Lists,
    agent_options,
    candidates,
)
from wordle_gym.core.words import (
    word_source,
)
from wordle_gym.harness.registry import (
    make_agent,
)


def cmd_solve(args: SolveOptions) -> int:
    import torch

    from wordle_gym.envs.render import ansi_row
    from wordle_gym.envs.vector import WordleVectorEnv

    env = WordleVectorEnv(
        1,
        device=args.device,
        answers=word_source(args.answers),
        allowed=word_source(args.allowed),
        hard_mode=args.hard,
        max_guesses=args.max_guesses,
    )
    observations, infos = env.reset(options={"answers": [args.word.lower()]})
    solver = make_agent(args.agent, agent_options(args), device=str(env.device))
    while True:
        action = solver.act(observations, infos["action_mask"].view(torch.bool), env)
        observations, _, terminated, _, infos = env.step(action)
        word = env.words[int(action[0])]
        row = ansi_row(word, infos["tiles"][0].tolist())
        left = "" if terminated[0] else f"  {len(candidates(env))} left"
        print(row + left)
        if bool(terminated[0]):
            turns = int(env.state.turn[0])
            won = bool(infos["won"][0])
            print(f"Solved in {turns}." if won else f"Not solved in {turns}.")
            return 0 if won else 1


@dataclass(kw_only=True)
class SolveOptions(AgentChoice, Lists):
    command = "solve"
    word: str = field(metadata={"positional": True})
    """The answer to solve."""
    checkpoint: str | None = field(default=None, metadata={"metavar": "PATH"})
    """Weights of a trained agent."""
    device: str = "cpu"
    """cpu, cuda or auto."""
