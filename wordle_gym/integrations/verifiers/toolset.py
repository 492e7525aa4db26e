"""The ``guess`` tool of the verifiers environment: one MCP server for a whole evaluation
(verifiers' shared toolset), each call a move of the calling rollout's game (its answer and the
moves so far in the rollout's state, which verifiers carries to the server; the environment scores
the same moves).

verifiers starts it as ``python -m wordle_gym_verifiers.toolset``; it never imports the regret
oracle (the environment values the moves).
"""

from __future__ import annotations

from typing import Any

import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.mcp import SharedToolsetConfig, Toolset
from verifiers.v1.utils.decorators import tool

from wordle_gym.envs.text import WordleTextEnv

OVER = "The game is over."


class WordleRolloutState(vf.State):
    """A rollout's game, shared by the environment and the tool server: the task, and each word the
    ``guess`` tool received, in order (every one a move of the game)."""

    answer: str = ""
    answers: str = "answers"
    hard: bool = False
    moves: list[str] = Field(default_factory=list)


def replay(state: WordleRolloutState, game: WordleTextEnv) -> tuple[str, bool]:
    """``game`` reset to the state's answer and stepped through its moves: the last text, and
    whether it ended."""
    text, _ = game.reset(options={"answer": state.answer})
    over = False
    for word in state.moves:
        if over:
            break
        text, _, terminated, truncated, _ = game.step(call(word))
        over = terminated or truncated
    return text, over


def call(word: str) -> dict[str, Any]:
    """A move made through the tool, as the text env takes it."""
    return {"name": "guess", "arguments": {"word": word}}


class WordleToolset(Toolset[SharedToolsetConfig, WordleRolloutState]):
    """The ``guess`` tool, named bare (no server prefix): what the text env's ``GUESS_TOOL``
    describes."""

    TOOL_PREFIX = None

    def __init__(self, config: SharedToolsetConfig) -> None:
        super().__init__(config)
        self._games: dict[tuple[str, bool], WordleTextEnv] = {}

    @tool
    async def guess(self, word: str) -> str:
        """Submit one guess in the game of Wordle: a word of the game's length from the allowed
        list. Returns the feedback (G: right letter, right place; Y: in the word elsewhere; X: not
        in the word) and the board."""
        state = self.state
        if not state.answer:
            return "No game is being played in this conversation."
        key = (state.answers, state.hard)
        if key not in self._games:
            self._games[key] = WordleTextEnv(answers=state.answers, hard_mode=state.hard)
        game = self._games[key]
        _, over = replay(state, game)
        if over:
            return OVER
        text, *_ = game.step(call(word))
        state.moves.append(str(word))
        return text


if __name__ == "__main__":
    WordleToolset.run()
