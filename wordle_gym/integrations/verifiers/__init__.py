"""Real Wordle as a `verifiers <https://github.com/PrimeIntellect-ai/verifiers>`_ environment (its
``v1`` API).

Installed as the top-level package ``wordle_gym_verifiers``, because verifiers finds an environment
by importing the module its id names (``wordle-gym-verifiers`` -> ``wordle_gym_verifiers``) and
taking the ``Taskset`` and ``Env`` its ``__all__`` exports; ``import wordle_gym`` never imports
verifiers::

    vf-eval wordle-gym-verifiers --env.taskset.split eval -m MODEL  # verifiers' own command line
    # in Python: verifiers.v1.utils.loaders.load_environment(WordleVerifiersEnvConfig(taskset=...))

The game is :class:`~wordle_gym.envs.text.WordleTextEnv`'s: the real lists (2315 answers, 12972
allowed guesses; ``answers="nyt"`` for the NYT's 2309), the exact feedback rule, the guess read from
the reply by :func:`~wordle_gym.envs.replies.parse_guess` (reasoning never read), a reply without an
allowed word refused and its turn spent. Each task is one answer; the task's prompt is the env's
opening text and every later user turn is the env's observation (the feedback, the board so far, the
guesses left, why a reply was refused).

Splits: the answers are shuffled once by ``seed`` and the last ``eval_size`` are the ``eval`` split,
the rest ``train``: disjoint, and the same on every machine (``all`` is every answer, in list
order).

Rewards (each recorded on the trace, weighted by the env's config): ``win`` (1 for a solved game,
else 0; weight ``win_weight``), ``regret`` (minus the game's summed exact regret,
``sum(Q*(s, a) - V*(s))`` over its moves, in expected guesses: 0 for optimal play, whatever the
luck; weight ``regret_weight``; from the exact solver of ``wordle_gym.solver``, each move within
``regret_budget`` work or else its proven upper bound) and ``guesses`` (minus the guesses used, a
loss counting ``max_guesses + 1``; weight ``guesses_weight``, 0 by default). Metrics:
``guesses``, ``refused`` (replies without an allowed word), ``regret_exact`` (1 when every move's
regret was exact). No letter-counting partial credit: a lost game's letters earn nothing.

The player is verifiers' plain chat program (its ``null`` harness) run by :class:`LocalChatHarness`
with this interpreter, whose packages (verifiers' own) are all the program needs: nothing is fetched
at run time, no ``uv``, no network but the model's endpoint. ``--env.player.harness.id null`` runs
verifiers' own way instead (``uv`` prepares the program's environment from the package index first).

Needs the ``verifiers`` extra (Python 3.11 or newer); ``regret=True`` (the default) needs
``wordle_agents``, which this distribution installs.
"""

from __future__ import annotations

import asyncio
import hashlib
import sys
from collections.abc import Iterator
from typing import Any, Literal

try:
    import verifiers.v1 as vf
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise ImportError("wordle_gym_verifiers needs verifiers: pip install '.[verifiers]'") from exc
from verifiers.v1.harnesses.null.harness import NullHarness
from verifiers.v1.mcp import SharedToolsetConfig
from verifiers.v1.runtimes.subprocess import SubprocessRuntime

from wordle_gym.core.words import load_word_list
from wordle_gym.core.words import split_answers as split_answers_of
from wordle_gym.envs.text import TOOL_PROMPT, WordleTextEnv, opening_text
from wordle_gym.solver.regret import REGRET_BUDGET

from .toolset import WordleRolloutState, WordleToolset, call

__all__ = ["LocalChatHarness", "WordleVerifiersEnv", "WordleVerifiersTaskset"]


class _ThisInterpreter:
    """A subprocess runtime whose PEP 723 programs run with this Python (their packages are
    verifiers' own)."""

    def __init__(self, runtime: Any) -> None:
        self._runtime = runtime

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runtime, name)

    async def prepare_uv_script(
        self, script: str | bytes, env: Any = None, *, activate: bool = True
    ) -> list[str]:
        data = script.encode() if isinstance(script, str) else script
        name = f".vf-chat-{hashlib.sha256(data).hexdigest()[:16]}.py"
        await self._runtime.write(name, data)
        return [sys.executable, name]


class LocalChatHarness(NullHarness):
    """verifiers' ``null`` harness (a plain chat) with its program run by this interpreter on a
    subprocess runtime, instead of in an environment ``uv`` prepares from the package index (other
    runtimes: as ``null``)."""

    async def setup(self, runtime: Any) -> None:
        if not isinstance(runtime, SubprocessRuntime):
            await super().setup(runtime)

    async def launch(self, ctx: Any, trace: Any, runtime: Any, *args: Any, **kwargs: Any) -> Any:
        local = _ThisInterpreter(runtime) if isinstance(runtime, SubprocessRuntime) else runtime
        return await super().launch(ctx, trace, local, *args, **kwargs)


class WordleTasksetConfig(vf.TasksetConfig):
    """Which answers the tasks are (``--env.taskset.*``)."""

    split: Literal["train", "eval", "all"] = "train"
    """``train`` or ``eval`` (disjoint, see ``eval_size`` and ``seed``), or ``all`` answers in list
    order."""
    eval_size: int = 315
    """Answers held out for the ``eval`` split (the rest are ``train``)."""
    seed: int = 0
    """Seed of the one shuffle that splits the answers."""
    answers: Literal["answers", "nyt"] = "answers"
    """The answer list: Wordle's original 2315, or the NYT's 2309."""
    hard: bool = False
    """Hard mode: every guess must use what the feedback revealed."""
    held_out: list[str] | str | None = None
    """The ``eval`` answers given outright (words, or a file of them, e.g. NeMo Gym's 315) instead
    of the seeded shuffle's; ``train`` is then every other answer."""
    tools: SharedToolsetConfig = SharedToolsetConfig()
    """The ``guess`` tool's server (one for the whole evaluation): a model may move by calling
    it."""


class WordleData(vf.TaskData):
    """One game: its answer and rules (the env rebuilds the game from them)."""

    answer: str
    """The secret word (never shown to the model)."""
    answers: str = "answers"
    """The answer list's name."""
    hard: bool = False
    """Hard mode."""


class WordleTask(vf.Task[WordleData, WordleRolloutState, vf.TaskConfig]):
    """A game of Wordle (its answer and rules go to the rollout's state, where the ``guess`` tool
    reads them)."""

    async def setup(self, trace: Any, runtime: Any) -> None:
        state = trace.state
        state.answer, state.answers, state.hard = (
            self.data.answer,
            self.data.answers,
            self.data.hard,
        )


def split_answers(config: WordleTasksetConfig) -> list[str]:
    """The answers of ``config.split``: one seeded shuffle, the last ``eval_size`` held out."""
    words = load_word_list(config.answers)
    if config.split == "all":
        return list(words)
    held = config.held_out
    # the envs' split=, the same
    return split_answers_of(words, config.split, config.eval_size, config.seed, held)


def _game(data: WordleData, regret: bool, budget: int | None) -> WordleTextEnv:
    options: dict[str, Any] = {"reward": "regret"} if regret else {}
    return WordleTextEnv(answers=data.answers, hard_mode=data.hard, regret_budget=budget, **options)


class WordleVerifiersTaskset(vf.Taskset[WordleTask, WordleTasksetConfig]):
    """One task per answer of the split, its prompt the text env's opening text (and how to use the
    ``guess`` tool); a task's id and name never hold its answer (a trainer that logs them into a
    prompt would leak it)."""

    @classmethod
    def toolsets(cls, config: WordleTasksetConfig) -> list[Any]:
        return [WordleToolset(config.tools)]

    def load(self) -> Iterator[WordleTask]:
        config = self.config
        game = _game(WordleData(answer="", answers=config.answers, hard=config.hard), False, None)
        # what reset() shows
        prompt = opening_text(game.intro + TOOL_PROMPT, game.config.max_guesses)
        for answer in split_answers(config):
            tag = hashlib.sha256(f"{config.answers}:{config.hard}:{answer}".encode()).hexdigest()[
                :12
            ]
            data = WordleData(
                id=f"{config.answers}:{tag}", name=f"wordle-{tag}", prompt=prompt, answer=answer,
                answers=config.answers, hard=config.hard,
            )  # fmt: skip
            yield WordleTask(data, config.task)


class WordleVerifiersEnvConfig(vf.EnvConfig):
    """The player and how a game is scored (``--env.*``)."""

    player: vf.AgentConfig = vf.AgentConfig(
        harness=vf.HarnessConfig(id="wordle-gym-verifiers"), runtime=vf.SubprocessConfig()
    )
    """The model that plays: a plain chat (:class:`LocalChatHarness`) on this machine (no sandbox:
    the game runs in this process)."""
    regret: bool = True
    """Measure each move's exact regret (the ``regret`` reward and metric); False skips the
    oracle."""
    regret_budget: int | None = REGRET_BUDGET
    """Work of exact search per move (the text env's ``regret_budget``: the search's count, the
    same on any machine and load); past it the move's regret is its proven upper bound, never the
    optimistic one (None: no limit)."""
    win_weight: float = 1.0
    """Weight of the ``win`` reward."""
    regret_weight: float = 1.0
    """Weight of the ``regret`` reward (minus the summed regret)."""
    guesses_weight: float = 0.0
    """Weight of the ``guesses`` reward (minus the guesses used; a loss counts max_guesses + 1)."""


class WordleVerifiersEnv(vf.Env[WordleVerifiersEnvConfig]):
    """The text env plays the user: each reply is a move, each observation the next user turn."""

    async def run(self, task: WordleTask, agents: Any) -> None:
        config = self.config
        game = _game(task.data, config.regret, config.regret_budget)
        game.reset(options={"answer": task.data.answer})
        regret, exact, refused, turns, won, over = 0.0, True, 0, 0, False, False
        interaction = None

        async def move(reply: Any) -> str:
            nonlocal regret, exact, refused, turns, won, over
            # an exact search can take its budget: off the event loop (the env's own search)
            if config.regret:
                step = await asyncio.to_thread(game.step, reply)
            else:
                step = game.step(reply)
            observation, reward, terminated, truncated, info = step
            turns, won, over = int(info["turn"]), bool(info["won"]), bool(terminated or truncated)
            refused += bool(info["invalid"])
            if config.regret:
                regret += -float(reward)
                exact = exact and bool(info["regret_exact"])
            return observation

        try:
            async with agents.player.interaction(task) as interaction:
                # the prompt is the game's opening text: the model moves first
                segment = await interaction.turn()
                played = 0  # the tool's moves already played here
                while not segment.terminated and not over:
                    moves = list(getattr(interaction.trace.state, "moves", []))
                    observation = None
                    for word in moves[played:]:  # the moves made through the guess tool, in order
                        if over:
                            break
                        observation = await move(call(word))
                    if len(moves) == played:  # no tool move: the reply is the move
                        observation = await move(segment.last_reply)
                    played = len(moves)
                    if over:
                        break
                    segment = await interaction.turn(observation)
        finally:
            # A rollout that ended before the game (an error, a model that stopped answering, a
            # limit) is played to the end as replies without a guess: it never scores like a game
            # played well.
            while not over:
                await move("")
            self._score(task, interaction, game, regret, exact, refused, turns, won)

    def _score(
        self,
        task: WordleTask,
        interaction: Any,
        game: Any,
        regret: float,
        exact: bool,
        refused: int,
        turns: int,
        won: bool,
    ) -> None:
        config = self.config
        if interaction is None:
            return
        limit = game.config.max_guesses
        guesses = turns if won else limit + 1
        trace = interaction.trace
        trace.record_reward("win", float(won), config.win_weight)
        trace.record_reward("guesses", -float(guesses), config.guesses_weight)
        if config.regret:
            trace.record_reward("regret", -regret, config.regret_weight)
            trace.record_metric("regret_exact", float(exact))
        trace.record_metric("guesses", float(guesses))
        trace.record_metric("refused", float(refused))
        trace.info["answer"] = task.data.answer
        trace.info["won"] = won
