"""Real Wordle as an `OpenEnv <https://github.com/meta-pytorch/OpenEnv>`_ environment: its
HTTP/WebSocket server, its client and its action and observation types, written as OpenEnv's own
envs are.

The wire format is OpenEnv's ``textarena_env``'s (an action ``{"message": reply}``; an observation
with ``prompt``, ``messages``, ``current_player_id``, ``legal_players`` and ``info``; a state with
``env_id``, ``turn``, ``last_reward``, ...), and so is the layout TRL's Wordle example reads:
``messages[0].content`` is the game's whole transcript, each step's feedback appended at its end
(the player's reply echoed, cut to :data:`ECHO_CHARS`), and a refused reply says "You attempted an
invalid move". Code written for ``TextArenaEnv(base_url=...)`` plays real Wordle pointed at this
server, with :class:`WordleEnvClient` as its client. The game is
:class:`~wordle_gym.envs.text.WordleTextEnv`'s: the real lists, the exact feedback, the reply read
by :func:`~wordle_gym.envs.replies.parse_guess` (docs/guides/replies.md), and the env's reward, per
move (the observation's ``reward``; ``reward="regret"``: minus the move's exact regret) and for the
game so far (``info["game_reward"]``, their sum). Serve it::

    python -m wordle_gym.integrations.openenv --port 8001 [--reward regret] [--split train] [--hard]

and play it::

    from wordle_gym.integrations.openenv import WordleAction, WordleEnvClient

    with WordleEnvClient(base_url="http://127.0.0.1:8001").sync() as env:
        result = env.reset(seed=0)
        result = env.step(WordleAction(message="<guess>salet</guess>"))
        print(result.observation.messages[0].content[-120:], result.reward, result.done)

TRL's OpenEnv Wordle example keeps the last step's ``reward`` (0.0 after an invalid move): serve it
with ``--step-reward game`` (each step's reward 0.0 until the game ends, then :func:`game_score`, so
a win in fewer guesses ranks above a win in more, above a loss, above an invalid or abandoned
ending), and make its client with ``.sync()`` (openenv-core 0.3's clients are async; this module's
``WordleEnvClient`` and ``WordleAction`` stand in for ``textarena_env``'s ``TextArenaEnv`` and
``TextArenaAction``, which are not on the package index).

``reset`` takes ``seed``, ``episode_id`` and ``answer`` (a word to play, for tests and evaluation).
Each WebSocket session (the client's connection) has its own game and its own search for the regret
(``SUPPORTS_CONCURRENT_SESSIONS``). Limits, each a command-line option: ``--sessions`` games at once
(64 by default; past it a new client is refused, naming the option), a session idle for
``--idle-timeout`` seconds is closed (300 by default: a client that left without closing, or one
that only holds a place, frees it), a request or WebSocket message of more than 1.5 MiB is refused
(413 or close code 1009), and ``--token`` (or ``$WORDLE_GYM_TOKEN``) requires
``Authorization: Bearer TOKEN`` of every client but ``/health`` (:class:`WordleEnvClient` takes
``token=``). OpenEnv's plain HTTP routes are stateless (each request a new game):
``/reset`` shows the opening, and ``/step`` answers 409, pointing to a session. Needs the
``openenv`` extra (``openenv-core``); ``import wordle_gym`` never imports it. A Dockerfile that
serves it is ``deploy/openenv/Dockerfile`` in the repository.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

try:
    from fastapi import FastAPI, HTTPException
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient
    from openenv.core.env_server import ConcurrencyConfig, Environment, HTTPEnvServer
    from openenv.core.env_server.exceptions import SessionCapacityError
    from openenv.core.env_server.types import Action, Observation, State
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise ImportError(
        "wordle_gym.integrations.openenv needs OpenEnv: pip install '.[openenv]'"
    ) from exc
from pydantic import BaseModel, Field

from wordle_gym.core.words import GAME_OPTION, GAMES
from wordle_gym.envs.text import MAX_TEXT, WordleTextEnv
from wordle_gym.utils.moved import renamed

ENV_NAME = "wordle_gym"
GAME = -1  # the sender id of the game's messages (the player is 0), as TextArena numbers them
ECHO_CHARS = 200
"""How much of a reply the transcript repeats (the rest is cut: a long reply is not sent back every
step)."""
MAX_BODY = MAX_TEXT + MAX_TEXT // 2
"""The largest request body or WebSocket message the server reads, in bytes (a reply of up to the
text env's ``MAX_TEXT`` characters, with its JSON around it)."""
IDLE_S = 300.0
"""Seconds a session may sit idle before the server closes it (``--idle-timeout``)."""
INVALID = "You attempted an invalid move"
"""How the transcript starts a refused reply's feedback: TextArena's words, which TRL's example
looks for."""
STEP_REWARDS = ("move", "game")
"""What a step's ``reward`` is (``--step-reward``): ``move``, that move's reward (the text env's);
``game``, 0.0 until the game ends, then :func:`game_score`."""


def game_score(won: bool, guesses: int, max_guesses: int, game_reward: float) -> float:
    """The whole game's score that ``--step-reward game`` gives at its last step: its tier (a win
    in k guesses ``max_guesses + 2 - k``, so 7 for one guess and 2 for six; a loss 1) plus, within
    the tier, ``0.5 * exp(min(0, game_reward))`` (with ``--reward regret``, 0.5 for optimal play,
    less as the game's summed regret grows). Always above 1: 0.0, which TRL's example gives an
    invalid move and a game it stopped playing (the last reward it read), is the worst."""
    tier = max_guesses + 2 - guesses if won else 1
    return tier + 0.5 * math.exp(min(0.0, game_reward))


LOG = logging.getLogger("wordle_gym.openenv")


class WordleMessage(BaseModel):
    """One message of the game (TextArena's layout: the first holds the whole transcript)."""

    sender_id: int
    content: str
    category: str


class WordleAction(Action):
    """The player's reply: any text (reasoning is not read), or just the word."""

    message: str = Field(description="the model's reply, from which the guess is read")


class WordleObservation(Observation):
    """What the player sees: the game's opening text, and its transcript so far as the first
    message."""

    prompt: str = Field(default="", description="the game's opening text (the rules)")
    messages: list[WordleMessage] = Field(
        default_factory=list, description="[the transcript so far]"
    )
    current_player_id: int = 0
    legal_players: list[int] = Field(default_factory=lambda: [0])
    info: dict[str, Any] = Field(
        default_factory=dict, description="the last step's info, JSON-safe"
    )


class WordleServerState(State):
    """The server's state of one game."""

    env_id: str = "WordleText-v0"
    num_players: int = 1
    max_turns: int | None = None
    turn: int = 0
    last_reward: float = 0.0
    last_info: dict[str, Any] = Field(default_factory=dict)
    raw_state: dict[str, Any] = Field(default_factory=dict)


def _plain(info: dict[str, Any]) -> dict[str, Any]:
    """A step's info with numpy values as JSON numbers and lists."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        if hasattr(value, "tolist"):
            value = value.tolist()
        if isinstance(value, str | int | float | bool | list) or value is None:
            out[key] = value
    return out


def _text(message: str) -> str:
    """``message`` as text that can be sent back (a lone surrogate, which JSON cannot encode, as
    "?")."""
    return message.encode("utf-8", "replace").decode("utf-8")


def _echo(reply: str) -> str:
    """A reply as the transcript repeats it: cut to :data:`ECHO_CHARS` characters."""
    return (
        reply
        if len(reply) <= ECHO_CHARS
        else (f"{reply[:ECHO_CHARS]}... ({len(reply):,} characters)")
    )


class WordleEnvironment(Environment[WordleAction, WordleObservation, WordleServerState]):
    """The server side: one :class:`~wordle_gym.envs.text.WordleTextEnv` game per session.

    Args:
        step_reward: what a step's ``reward`` is (:data:`STEP_REWARDS`).
        game: the text env's options (``reward``, ``split``, ``hard_mode``, ``answers``, ``parser``,
            ...).
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, step_reward: str = "move", **game: Any) -> None:
        super().__init__()
        if step_reward not in STEP_REWARDS:
            raise ValueError(f"step_reward must be one of {STEP_REWARDS}; got {step_reward!r}")
        self.step_reward = step_reward
        self.game = WordleTextEnv(**game)
        self._transcript = ""
        self._guesses: list[str] = []
        self._game_reward = 0.0
        self._playing = False
        self._closed = False
        self._state = WordleServerState(max_turns=self.game.config.max_guesses)

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> WordleObservation:
        """A new game: the answer drawn from ``seed`` (or the game's running generator), or
        ``answer``."""
        self._check_open()
        answer = kwargs.pop("answer", None)
        if kwargs:
            raise ValueError(
                f"unknown reset options {sorted(kwargs)}; expected seed, episode_id or answer"
            )
        text, info = self.game.reset(
            seed=seed, options=None if answer is None else {"answer": answer}
        )
        self._transcript = text
        self._guesses, self._game_reward, self._playing = [], 0.0, True
        self._state = WordleServerState(
            episode_id=episode_id or str(uuid.uuid4()),
            max_turns=self.game.config.max_guesses,
            last_info=_plain(info),
        )
        return self._observation(None, False, info)

    def step(
        self, action: WordleAction, timeout_s: float | None = None, **kwargs: Any
    ) -> WordleObservation:
        """Play the guess in ``action.message``."""
        self._check_open()
        if not isinstance(action, WordleAction):
            raise TypeError(f"the action is a WordleAction; got {type(action).__name__}")
        if not self._playing:
            raise HTTPException(
                409,
                "no game to play: call reset first; plain HTTP is stateless (each request a new "
                "game), so play through a WebSocket session (/ws: OpenEnv's clients, such as "
                "WordleEnvClient(base_url=...).sync())",
            )
        reply = _text(action.message)
        text, reward, terminated, truncated, info = self.game.step(reply)
        said = f"{INVALID}: {text}" if info["reason"] else text
        self._transcript += f"\n\n[Player 0] {_echo(reply)}\n[GAME] {said}"
        if info["guess"] and not info["reason"]:
            self._guesses.append(str(info["guess"]))
        self._game_reward += float(reward)
        done = bool(terminated or truncated)
        self._playing = not done
        if self.step_reward == "game":
            reward = 0.0
            if done:
                info = {**info, "game_score": game_score(
                    bool(info["won"]), int(info["turn"]), self.game.config.max_guesses,
                    self._game_reward,
                )}  # fmt: skip
                reward = info["game_score"]
        state = self._state
        state.step_count += 1
        state.turn, state.last_reward, state.last_info = (
            int(info["turn"]),
            float(reward),
            _plain(info),
        )
        return self._observation(float(reward), done, info)

    def close(self) -> None:
        """The session is over (its client left, or it sat idle past the server's timeout)."""
        self._closed = True
        self.game.close()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(
                "this session was closed (idle past the server's --idle-timeout): connect again"
            )

    @property
    def state(self) -> WordleServerState:
        """The game's state (``raw_state`` has the guesses so far)."""
        won = bool(self._state.last_info.get("won", False))
        self._state.raw_state = {"guesses": list(self._guesses), "won": won}
        return self._state

    def _observation(
        self, reward: float | None, done: bool, info: dict[str, Any]
    ) -> WordleObservation:
        transcript = WordleMessage(sender_id=GAME, content=self._transcript, category="MESSAGE")
        info = {**_plain(info), "game_reward": self._game_reward}
        return WordleObservation(
            prompt=self.game.intro, messages=[transcript], info=info, reward=reward, done=done
        )


class WordleEnvClient(EnvClient[WordleAction, WordleObservation, WordleServerState]):
    """The client: ``WordleEnvClient(base_url=...)`` (async; ``.sync()`` for plain calls), as
    OpenEnv's clients are. ``token``: the server's ``--token`` (default ``$WORDLE_GYM_TOKEN``). A
    refusal the server sends as it closes the connection (all ``--sessions`` taken, a wrong token)
    is raised with the server's words."""

    def __init__(self, base_url: str, *args: Any, token: str | None = None, **kwargs: Any) -> None:
        super().__init__(base_url, *args, **kwargs)
        self._token = token if token is not None else os.environ.get("WORDLE_GYM_TOKEN")

    async def connect(self) -> WordleEnvClient:
        if self._ws is not None or not self._token:
            await super().connect()
            return self
        from websockets.asyncio.client import connect

        headers = {"Authorization": f"Bearer {self._token}"}
        try:
            self._ws = await connect(
                self._ws_url, open_timeout=self._connect_timeout, max_size=self._max_message_size,
                additional_headers=headers,
            )  # fmt: skip
        except Exception as exc:
            raise ConnectionError(f"Failed to connect to {self._ws_url}: {exc}") from exc
        return self

    async def _send_and_receive(self, message: dict[str, Any]) -> dict[str, Any]:
        from websockets.exceptions import ConnectionClosed

        try:
            return await super()._send_and_receive(message)
        except ConnectionClosed as closed:
            raise ConnectionError(await self._last_words(closed)) from None
        # the refusal read before the connection closed: the same error
        except RuntimeError as refused:
            if "CAPACITY_REACHED" not in str(refused):
                raise
            self._ws = None
            raise ConnectionError(f"the server closed the session: {refused}") from None

    async def _last_words(self, closed: Exception) -> str:
        """What the server said before it closed the connection (its refusal), else why it
        closed."""
        try:
            # a message sent before closing
            said = json.loads(await self._ws.recv()) if self._ws is not None else {}
        except Exception:
            said = {}
        self._ws = None
        message = said.get("data", {}).get("message") if isinstance(said, dict) else None
        reason = getattr(getattr(closed, "rcvd", None), "reason", "")
        return f"the server closed the session: {message or reason or closed}"

    def _step_payload(self, action: WordleAction) -> dict[str, Any]:
        return {"message": action.message}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[WordleObservation]:
        data = dict(payload.get("observation", {}))
        data.update(reward=payload.get("reward"), done=payload.get("done", False))
        observation = WordleObservation.model_validate(data)
        return StepResult(
            observation=observation, reward=payload.get("reward"), done=payload.get("done", False)
        )

    def _parse_state(self, payload: dict[str, Any]) -> WordleServerState:
        return WordleServerState.model_validate(payload)


class _Server(HTTPEnvServer):
    """OpenEnv's server, its refusal of a session past the limit naming the option that sets it."""

    async def _create_session(self) -> Any:
        try:
            return await super()._create_session()
        except SessionCapacityError as full:
            raise SessionCapacityError(
                full.active_sessions,
                full.max_sessions,
                f"the server plays {full.max_sessions} games at once (its --sessions) and all are "
                "in play; close "
                "finished clients, retry later, or start it with a larger --sessions",
            ) from None


STATELESS = ("/reset", "/step")
"""OpenEnv's plain-HTTP routes that build a game for each request."""
STATELESS_AT_ONCE = 1
"""How many of them the server answers at once (the rest wait their turn, costing nothing)."""


def _too_deep(text: str | None) -> bool:
    """Whether ``text`` is JSON nested deeper than Python's parser can read (a RecursionError).
    Parsed only where it could be: nesting is at most the count of its brackets, and a message of
    fewer than a few hundred (every step's) is never parsed twice."""
    if not text or text.count("[") + text.count("{") < 256:
        return False
    try:
        json.loads(text)
    except RecursionError:
        return True
    except ValueError:
        return False
    return False


class _Guard:
    """ASGI middleware: the token (when the server has one), the size of what is read, and one log
    line (not a traceback) for a WebSocket client that left mid-message."""

    def __init__(self, app: Any, token: str | None, max_body: int) -> None:
        self.app, self.token, self.max_body = app, token, max_body
        # plain-HTTP /reset and /step build a game each (OpenEnv's stateless routes): one at a time,
        # so that a flood of them queues here instead of taking turns with the sessions' steps
        self.stateless = asyncio.Semaphore(STATELESS_AT_ONCE)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if self.token and scope.get("path") != "/health" and not self._authorised(scope):
            await self._refuse(
                scope, receive, send, 401, "a token is required: Authorization: Bearer TOKEN"
            )
            return
        if scope["type"] == "http":
            length = dict(scope.get("headers", [])).get(b"content-length", b"0")
            if not length.isdigit() or int(length) > self.max_body:
                await self._refuse(
                    scope, receive, send, 413, f"the body is over {self.max_body:,} bytes"
                )
                return
            if scope.get("path") in STATELESS:
                async with self.stateless:
                    await self.app(scope, self._counted(receive), send)
                return
            await self.app(scope, self._counted(receive), send)
            return
        try:
            await self.app(scope, self._sized(receive, send), send)
        except Exception as error:  # the client went away while the server answered
            LOG.info("WebSocket client %s went away: %s", scope.get("client"), type(error).__name__)

    def _authorised(self, scope: dict[str, Any]) -> bool:
        header = dict(scope.get("headers", [])).get(b"authorization", b"").decode("latin-1")
        return header == f"Bearer {self.token}"

    def _counted(self, receive: Any) -> Any:
        """``receive`` for an HTTP body sent without a length: more than the limit ends the
        request."""
        seen = 0

        async def counted() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_body:
                raise HTTPException(413, f"the body is over {self.max_body:,} bytes")
            return message

        return counted

    def _sized(self, receive: Any, send: Any) -> Any:
        """``receive`` for a WebSocket: a message over the limit closes the session (code 1009); one
        nested deeper than JSON can be read is answered with an error and the session goes on."""

        async def sized() -> dict[str, Any]:
            while True:
                message = await receive()
                size = len(message.get("text") or "") + len(message.get("bytes") or b"")
                if message["type"] == "websocket.receive" and size > self.max_body:
                    LOG.info(
                        "WebSocket message of %s bytes refused (over %s)",
                        f"{size:,}",
                        f"{self.max_body:,}",
                    )
                    return {"type": "websocket.disconnect", "code": 1009}
                if message["type"] != "websocket.receive" or not _too_deep(message.get("text")):
                    return message
                error = {"message": "the message is JSON nested too deep", "code": "INVALID_JSON"}
                text = json.dumps({"type": "error", "data": error})
                await send({"type": "websocket.send", "text": text})

        return sized

    async def _refuse(
        self, scope: dict[str, Any], receive: Any, send: Any, status: int, why: str
    ) -> None:
        if scope["type"] == "websocket":
            await receive()  # the connect
            await send({"type": "websocket.close", "code": 1008, "reason": why[:120]})
            return
        body = json.dumps({"detail": why}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def make_app(
    sessions: int = 64,
    idle_s: float | None = IDLE_S,
    token: str | None = None,
    max_body: int = MAX_BODY,
    step_reward: str = "move",
    **game: Any,
) -> Any:
    """The FastAPI app that serves :class:`WordleEnvironment` with ``game``: up to ``sessions``
    sessions at once (a GRPO batch plays many games together), each closed after ``idle_s`` seconds
    idle (None: never), ``token`` required of every client but ``/health`` when given, nothing over
    ``max_body`` bytes read, each step's reward as ``step_reward`` says (:data:`STEP_REWARDS`)."""
    for name, value in (("sessions", sessions), ("max_body", max_body)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    if idle_s is not None and (
        isinstance(idle_s, bool) or not isinstance(idle_s, int | float) or not idle_s > 0
    ):
        raise ValueError(f"idle_s must be a number of seconds > 0, or None; got {idle_s!r}")
    if token is not None and (not isinstance(token, str) or not token.strip()):
        raise ValueError("token must be a non-empty string")
    WordleEnvironment(step_reward, **game).close()  # bad options fail here, not in every session
    factory = lambda: WordleEnvironment(step_reward, **game)  # noqa: E731
    app = FastAPI(title="wordle_gym: real Wordle as an OpenEnv environment")
    limits = ConcurrencyConfig(max_concurrent_envs=sessions, session_timeout=idle_s)
    app.state.server = _Server(factory, WordleAction, WordleObservation, concurrency_config=limits)
    app.state.server.register_routes(app)
    app.add_middleware(_Guard, token=token, max_body=max_body)
    return app


def _game_from_environ() -> dict[str, Any]:
    """The game a container serves: ``WORDLE_GYM_REWARD``, ``WORDLE_GYM_SPLIT``,
    ``WORDLE_GYM_HARD``."""
    game: dict[str, Any] = {}
    if reward := os.environ.get("WORDLE_GYM_REWARD"):
        game["reward"] = reward
    if split := os.environ.get("WORDLE_GYM_SPLIT"):
        game["split"] = split
    if os.environ.get("WORDLE_GYM_HARD", "").lower() in ("1", "true", "yes"):
        game["hard_mode"] = True
    return game


@dataclass(kw_only=True)
class ServeOptions:
    """The options of ``python -m wordle_gym.integrations.openenv``."""

    host: str = "127.0.0.1"
    """Address to listen on."""
    port: int = 8001
    """Port."""
    reward: str | None = None
    """The text env's reward preset (default: the env's; 'regret': exact)."""
    split: Literal["train", "eval"] | None = None
    """Draw answers from this part of the split."""
    held_out: str | None = None
    """A file of the eval answers (e.g. NeMo Gym's 315) instead of the seeded."""
    game: str | None = field(default=None, metadata=GAME_OPTION)
    """The lists of a game: original (the default), nyt (its 2309 answers of 2022) or today (the
    NYT's game today: 3158 answers, 14855 guesses)."""
    hard: bool = False
    """Hard mode."""
    think_open: bool = False
    """The chat template opens <think> before replies."""
    step_reward: Literal["move", "game"] = "move"
    """A step's reward: its move's, or 0 until the game ends and then the whole game's score (what
    TRL's example code, which keeps the last step's reward, needs)."""
    sessions: int = 64
    """Games played at once."""
    idle_timeout: float = IDLE_S
    """Close a session idle this many seconds."""
    token: str | None = None
    """Require 'Authorization: Bearer TOKEN' (default $WORDLE_GYM_TOKEN; none)."""


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m wordle_gym.integrations.openenv``: serve the game over HTTP and WebSocket
    (uvicorn)."""
    import uvicorn

    from wordle_gym.utils.commandline import OneLineParser, add_options, options_from

    parser = OneLineParser(
        prog="python -m wordle_gym.integrations.openenv", description=main.__doc__
    )
    add_options(parser, ServeOptions)
    args = options_from(ServeOptions, parser.parse_args(argv))
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be a port number from 0 to 65535; got {args.port}")
    game = _game_from_environ()
    game.update({k: v for k, v in (("reward", args.reward), ("split", args.split)) if v})
    if args.game is not None:
        game["answers"], game["allowed"] = GAMES[args.game]
    if args.hard:
        game["hard_mode"] = True
    if args.think_open:
        game["think_open"] = True
    if args.held_out:
        game["split_held_out"] = args.held_out
    token = args.token if args.token is not None else os.environ.get("WORDLE_GYM_TOKEN") or None
    try:
        app = make_app(
            args.sessions, args.idle_timeout, token, step_reward=args.step_reward, **game
        )
    except (ValueError, TypeError) as exc:
        parser.error(str(exc))
    logging.basicConfig(level=logging.INFO, format="%(levelname)s:     %(message)s")
    uvicorn.run(app, host=args.host, port=args.port, ws_max_size=MAX_BODY)
    return 0


def __getattr__(name: str) -> Any:
    return renamed(__name__, name)  # the old names, for one release


__all__ = [
    "WordleAction",
    "WordleEnvClient",
    "WordleEnvironment",
    "WordleMessage",
    "WordleObservation",
    "WordleServerState",
    "game_score",
]

if __name__ == "__main__":
    raise SystemExit(main())
