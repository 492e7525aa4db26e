"""The ``llm`` agent: a language model behind an OpenAI-compatible endpoint, playing through the
harness.

Each game is one chat, in the words of :class:`~wordle_gym.envs.text.WordleTextEnv`: an optional
system message, the env's opening text as the first user message, the model's replies as assistant
messages and, after each guess, the env's feedback text (``Feedback: CRANE -> X Y X G X``, the board
so far, the guesses left) as the next user message. Many games are played at once (``concurrency``
games in flight), each at its own pace: a game whose replies come fast goes on to its next turns
(and a new game starts when one ends) without waiting for the slowest reply of the turn. To run
ahead of the harness, which moves every game one turn at a time, the agent keeps its own copy of the
games and steps it with the env's own rules (the model never sees the answers).

A reply is read as the text env reads it (:func:`~wordle_gym.envs.replies.parse_guess`, with the
agent's ``parser``: the reasoning is never read). With ``tools=True`` the model is offered the
``guess`` tool (:data:`~wordle_gym.envs.replies.GUESS_TOOL`) and a move may come as a tool call,
answered by a ``tool`` message (the feedback); the result counts the moves that came as tool calls
and as text. One the game cannot take (no guess, a word not on the list) is answered with the text
env's refusal and asked again, up to ``invalid_retries`` times in a turn; after that the turn is
**forfeited**: the harness's games take a word each turn, so a forfeited turn plays the game's
previous guess again (on the first turn: the first allowed word that is not an answer), which
reveals nothing new, as a refused reply spends a turn in the text env, and the chat shows the turn
as refused. In hard mode a word that breaks the rule is the env's own refusal (the turn is spent,
and the next message says why), as in the text env. Refused replies and forfeited turns are counted
in the result (``extra["llm"]``), beside the requests, the retries and the tokens.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import torch
from tqdm import tqdm

from wordle_agents.llm.client import ChatClient, check_int
from wordle_gym.core.config import WordleConfig
from wordle_gym.core.game import NO_TILE, Game
from wordle_gym.envs.replies import GUESS_TOOL, parse_guess, resolve_parser
from wordle_gym.envs.text import (
    DEFAULT_PROMPT,
    HARD_REFUSAL,
    TOOL_PROMPT,
    board_line,
    example_word,
    intro_text,
    opening_text,
    refusal,
    status_text,
)

RETRY_TEXT = (
    "Your reply was refused: {reason}. Try again: answer with one allowed word inside "
    "<guess></guess>."
)


class LLMAgent:
    """A chat model playing Wordle: ``wordle-gym eval --agent llm -o base_url=URL -o model=NAME``.

    Args:
        base_url: the OpenAI-compatible API's root (``http://127.0.0.1:8000/v1``); default
            ``$OPENAI_BASE_URL``.
        model: the model's name on that server; default ``$OPENAI_MODEL``.
        api_key: default ``$OPENAI_API_KEY`` (none is sent if neither is set).
        concurrency: games in flight at once (each at its own pace).
        temperature: sampling temperature.
        max_tokens: the longest reply, in tokens.
        timeout: seconds a request may take before it is retried.
        retries: retries of a request that failed (timeouts, connection errors, HTTP 429 and 5xx,
            bodies that are no chat completion), with exponential backoff from ``backoff`` seconds.
        backoff: seconds before the first retry.
        seed: sent to servers that take one.
        system: a system message to open each chat with ("" for none).
        prompt: the opening text, as :class:`~wordle_gym.envs.text.WordleTextEnv` takes it.
        invalid_retries: replies the game cannot take that are asked again in one turn before it is
            forfeited.
        parser: how a reply is read: ``"lenient"`` (default), ``"strict"`` or a callable
            (:mod:`wordle_gym.envs.replies`).
        think_open: the server's chat template writes ``<think>`` before each reply (a reply that
            never closes it is all reasoning, no guess).
        tools: offer the ``guess`` tool; a move may then come as a tool call.
        transcripts: keep every chat, for the result's JSON (``extra["transcripts"]``, one per
            game).
        progress: a bar of replies per turn (None: on a terminal only).
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        concurrency: int = 8,
        temperature: float = 0.0,
        max_tokens: int = 256,
        timeout: float = 60.0,
        retries: int = 4,
        backoff: float = 1.0,
        seed: int | None = None,
        system: str = "",
        prompt: str | Callable[[WordleConfig], str] = DEFAULT_PROMPT,
        invalid_retries: int = 2,
        parser: str | Callable[[Any], str | None] = "lenient",
        think_open: bool = False,
        tools: bool = False,
        transcripts: bool = False,
        progress: bool | None = None,
    ) -> None:
        base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        model = model or os.environ.get("OPENAI_MODEL")
        if not base_url:
            raise ValueError(
                "the llm agent needs base_url=URL, an OpenAI-compatible API (-o "
                "base_url=http://127.0.0.1:8000/v1), or $OPENAI_BASE_URL"
            )
        if not model:
            raise ValueError("the llm agent needs model=NAME (-o model=...), or $OPENAI_MODEL")
        check_int("concurrency", concurrency, 1)
        check_int("invalid_retries", invalid_retries, 0)
        if not isinstance(system, str):
            raise ValueError(f"system must be text; got {system!r}")
        if not isinstance(tools, bool):
            raise ValueError(f"tools must be True or False; got {tools!r}")
        if not isinstance(think_open, bool):
            raise ValueError(f"think_open must be True or False; got {think_open!r}")
        self.parser = resolve_parser(parser, think_open)
        self.tools = [GUESS_TOOL] if tools else None
        self.client = ChatClient(
            base_url,
            model,
            api_key=api_key or os.environ.get("OPENAI_API_KEY"),
            temperature=temperature,
            max_tokens=max_tokens,
            timeout=timeout,
            retries=retries,
            backoff=backoff,
            seed=seed,
        )
        self.name = f"llm ({model})"
        self.concurrency = concurrency
        self.system = system
        self.prompt = prompt
        self.invalid_retries = invalid_retries
        self.keep_transcripts = transcripts
        self.progress = progress
        self.refused = 0
        self.forfeited = 0
        self.tool_moves = 0
        self.text_moves = 0
        self._lock = threading.Lock()
        self._ready = threading.Condition()
        self._pool: ThreadPoolExecutor | None = None
        self._env: Any = None
        self._chats: list[list[dict[str, str]]] = []
        self._lines: list[list[str]] = []
        self._forfeits: list[dict[int, str]] = []  # per game: turn -> the refusal that forfeited it

    # ------------------------------------------------------------------------ policy
    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        """One word per game: the model's, for each game still playing (games run ahead; this waits
        for the turn's moves only)."""
        if getattr(env, "multi_board", False):
            raise ValueError("the llm agent plays one board (the text env's game)")
        state = env.state
        turns, done = state.turn.tolist(), state.done.tolist()
        if env is not self._env or all(t == 0 for t in turns):
            self._start(env)
        # rows of ended games: ignored by the harness
        actions = state.guesses[:, 0].clamp(min=0).clone().cpu()
        rows = [row for row in range(len(turns)) if not done[row]]
        disable = None if self.progress is None else not self.progress
        bar = tqdm(
            total=len(rows),
            desc=f"llm turn {max(turns) + 1}",
            unit="reply",
            disable=disable,
            leave=False,
        )
        with bar, self._ready:
            while True:
                # a game that failed (its requests out of retries) fails the evaluation
                for row in rows:
                    if self._games[row].done() and self._games[row].exception() is not None:
                        raise self._games[row].exception()  # type: ignore[misc]
                ready = sum(len(self._moves[row]) > turns[row] for row in rows)
                bar.update(ready - bar.n)
                if ready == len(rows):
                    break
                self._ready.wait(0.5)
        for row in rows:
            actions[row] = self._moves[row][turns[row]]
        return actions.to(env.device)

    def _start(self, env: Any) -> None:
        """New games: one empty chat each, and every game started in the pool (``concurrency`` at a
        time)."""
        # an earlier batch's games: those not started dropped, the others stopped at
        if self._pool is not None:
            self._stop.set()  # their next turn (waited for: they write into the agent's lists)
            self._pool.shutdown(wait=True, cancel_futures=True)
        self._stop = threading.Event()
        count = env.num_envs
        self._env = env
        self._config, self._vocabulary = env.config, env.vocabulary
        # the rules, in torch: a copy of the env's
        self._game = Game(env.config, torch.device("cpu"))
        # the agent's own copy of each game, stepped as its moves come
        self._states = [env.state.row(row) for row in range(count)]
        intro = intro_text(env.config, self.prompt) + (TOOL_PROMPT if self.tools else "")
        self._example = example_word(env.config, self.prompt)
        self._intro = opening_text(intro, env.config.max_guesses)
        # per game: the tool calls to answer next
        self._pending: list[list[str]] = [[] for _ in range(count)]
        self._chats = [
            [{"role": "system", "content": self.system}] if self.system else []
            for _ in range(count)
        ]
        self._lines = [[] for _ in range(count)]
        self._forfeits = [{} for _ in range(count)]
        self._moves: list[list[int]] = [[] for _ in range(count)]
        # a forfeited first turn plays a word that cannot win (the first allowed word not an answer)
        vocabulary = env.vocabulary
        answers = set(vocabulary.answers)
        self._filler = next(
            (a for a, word in enumerate(vocabulary.allowed) if word not in answers), 0
        )
        self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="llm-game")
        turns, done = env.state.turn.tolist(), env.state.done.tolist()
        self._games = {
            row: self._pool.submit(self._play, row, turns[row], self._stop)
            for row in range(count)
            if not done[row]
        }

    def _play(self, row: int, turn: int, stop: threading.Event) -> None:
        """Game ``row`` from ``turn`` to its end (or until ``stop``): each move decided, then played
        on the agent's copy."""
        limit = self._config.max_guesses
        while turn < limit and not stop.is_set():
            action = self._decide(row, turn, self._message(row, turn))
            state = self._states[row]
            self._game.step(state, torch.tensor([action]), torch.ones(1, dtype=torch.bool))
            over = bool(state.done[0])
            with self._ready:
                self._moves[row].append(action)
                self._ready.notify_all()
            turn += 1
            if over:
                return

    def _message(self, row: int, turn: int) -> str:
        """The user message of game ``row`` at ``turn``: the opening text, or the feedback of the
        last turn."""
        if turn == 0:
            return self._intro
        last = turn - 1
        guess = int(self._states[row].guesses[0, last])
        tiles = self._states[row].tiles[0, last].tolist()
        word = self._vocabulary.allowed[guess] if guess >= 0 else None
        reason = self._forfeits[row].get(last, "")
        if not reason and (guess < 0 or tiles[0] == NO_TILE):  # the env refused it: hard mode
            reason = HARD_REFUSAL.format(word=(word or "?").upper())
        self._lines[row].append(board_line(turn, word, tiles, reason))
        return status_text(self._lines[row], self._config.max_guesses, False, False, reason, "")

    def _say(self, row: int, text: str) -> None:
        """The game's next message in chat ``row``: a ``tool`` message when it answers a tool
        call."""
        chat, calls = self._chats[row], self._pending[row]
        self._pending[row] = []
        if not calls:
            chat.append({"role": "user", "content": text})
        for call in calls:  # every call is answered; the first one's answer is the game's message
            said = (
                text
                if call == calls[0]
                else ("Not played: one guess a turn (the first guess call was taken).")
            )
            chat.append({"role": "tool", "tool_call_id": call, "content": said})

    def _decide(self, row: int, turn: int, message: str) -> int:
        """The model's guess in game ``row`` (asked again while the game cannot take its reply)."""
        chat = self._chats[row]
        self._say(row, message)
        vocabulary = self._vocabulary
        reason = ""
        for attempt in range(self.invalid_retries + 1):
            reply = self.client.complete(chat, tools=self.tools)
            said: dict[str, Any] = {"role": "assistant", "content": reply.text}
            if reply.tool_calls:
                calls = reply.tool_calls
                ids = [
                    call.id or f"call_{row}_{turn}_{attempt}_{i}" for i, call in enumerate(calls)
                ]
                said["tool_calls"] = [
                    {
                        "id": ident,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for ident, call in zip(ids, calls, strict=True)
                ]
                self._pending[row] = ids
            chat.append(said)
            word = parse_guess(
                reply, self.parser, allowed=vocabulary.allowed_index, example=self._example
            )
            reason = refusal(vocabulary, word)
            if not reason:
                assert word is not None
                with self._lock:
                    if reply.tool_calls:
                        self.tool_moves += 1
                    else:
                        self.text_moves += 1
                return vocabulary.action(word)
            with self._lock:
                self.refused += 1
            if attempt < self.invalid_retries:
                self._say(row, RETRY_TEXT.format(reason=reason))
        with self._lock:
            self.forfeited += 1
        self._forfeits[row][turn] = reason
        previous = int(self._states[row].guesses[0, turn - 1]) if turn > 0 else -1
        return previous if previous >= 0 else self._filler

    # ------------------------------------------------------------------------ results
    def stats(self) -> dict[str, Any]:
        """What the evaluation puts in its result's ``extra``: the model, requests, retries,
        failures, tokens, refused replies and forfeited turns, and (with ``transcripts=True``) every
        chat."""
        client = self.client.stats
        found: dict[str, Any] = {
            "llm": {
                "model": self.client.model,
                "requests": client.requests,
                "retries": client.retries,
                "failures": dict(client.failures),
                "prompt_tokens": client.prompt_tokens,
                "completion_tokens": client.completion_tokens,
                "refused_replies": self.refused,
                "forfeited_turns": self.forfeited,
                "tool_moves": self.tool_moves,
                "text_moves": self.text_moves,
            }
        }
        if self.keep_transcripts:
            found["transcripts"] = [list(chat) for chat in self._chats]
        return found
