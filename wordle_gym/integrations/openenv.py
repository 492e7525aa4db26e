"""Real Wordle as an `OpenEnv <https://github.com/meta-pytorch/OpenEnv>`_ environment: its HTTP/WebSocket server,
its client and its action and observation types, written as OpenEnv's own envs are.

The wire format is OpenEnv's ``textarena_env``'s (an action ``{"message": reply}``; an observation with
``prompt``, ``messages`` of ``{sender_id, content, category}``, ``current_player_id``, ``legal_players`` and
``info``; a state with ``env_id``, ``turn``, ``last_reward``, ...), so code written for
``TextArenaEnv(base_url=...)``, as TRL's GRPO Wordle example is, plays real Wordle by pointing it at this
server instead. The game is :class:`~wordle_gym.envs.text.WordleTextEnv`'s: the real lists, the exact feedback,
the reply read by :func:`~wordle_gym.envs.replies.parse_guess` (reasoning never read; ``<guess>``, ``[word]``,
``\\boxed{}``, ``Answer:`` lines, a bare word), and the env's reward (``reward="regret"``: minus the move's exact
regret). Serve it::

    python -m wordle_gym.integrations.openenv --port 8001 [--reward regret] [--split train] [--hard]

and play it::

    from wordle_gym.integrations.openenv import WordleAction, WordleEnv

    with WordleEnv(base_url="http://127.0.0.1:8001").sync() as env:
        result = env.reset(seed=0)
        result = env.step(WordleAction(message="<guess>salet</guess>"))
        print(result.observation.messages[-1].content, result.reward, result.done)

``reset`` takes ``seed``, ``episode_id`` and ``answer`` (a word to play, for tests and evaluation). Each
WebSocket session (the client's connection) has its own game (``SUPPORTS_CONCURRENT_SESSIONS``; ``--sessions``
at once, 64 by default); the regret oracle is shared by the process. OpenEnv's plain HTTP routes are stateless
(each request a new game): ``/reset`` shows the opening, and play goes through a session. Needs the ``openenv``
extra (``openenv-core``); ``import wordle_gym`` never imports it. A Dockerfile that serves it is
``deploy/openenv/Dockerfile`` in the repository.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from typing import Any

try:
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient
    from openenv.core.env_server import Environment, create_app
    from openenv.core.env_server.types import Action, Observation, State
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise ImportError("wordle_gym.integrations.openenv needs OpenEnv: pip install '.[openenv]'") from exc
from pydantic import BaseModel, Field

from wordle_gym.envs.text import WordleTextEnv

ENV_NAME = "wordle_gym"
GAME = -1  # the sender id of the game's messages (the player is 0), as TextArena numbers them


class WordleMessage(BaseModel):
    """One message of the game: the prompt, the player's reply or the game's answer to it."""

    sender_id: int
    content: str
    category: str


class WordleAction(Action):
    """The player's reply: any text (reasoning is not read), or just the word."""

    message: str = Field(description="the model's reply, from which the guess is read")


class WordleObservation(Observation):
    """What the player sees: the game's opening text and every message of the game so far."""

    prompt: str = Field(default="", description="the game's opening text (the rules)")
    messages: list[WordleMessage] = Field(default_factory=list, description="the game so far, oldest first")
    current_player_id: int = 0
    legal_players: list[int] = Field(default_factory=lambda: [0])
    info: dict[str, Any] = Field(default_factory=dict, description="the last step's info, JSON-safe")


class WordleState(State):
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


class WordleEnvironment(Environment[WordleAction, WordleObservation, WordleState]):
    """The server side: one :class:`~wordle_gym.envs.text.WordleTextEnv` game per session.

    Args:
        game: the text env's options (``reward``, ``split``, ``hard_mode``, ``answers``, ``parser``, ...).
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, **game: Any) -> None:
        super().__init__()
        self.game = WordleTextEnv(**game)
        self._messages: list[WordleMessage] = []
        self._guesses: list[str] = []
        self._state = WordleState(max_turns=self.game.config.max_guesses)

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> WordleObservation:
        """A new game: the answer drawn from ``seed`` (or the game's running generator), or ``answer``."""
        answer = kwargs.pop("answer", None)
        if kwargs:
            raise ValueError(f"unknown reset options {sorted(kwargs)}; expected seed, episode_id or answer")
        text, info = self.game.reset(seed=seed, options=None if answer is None else {"answer": answer})
        self._messages = [WordleMessage(sender_id=GAME, content=text, category="PROMPT")]
        self._guesses = []
        self._state = WordleState(
            episode_id=episode_id or str(uuid.uuid4()), max_turns=self.game.config.max_guesses, last_info=_plain(info)
        )
        return self._observation(None, False, info)

    def step(self, action: WordleAction, timeout_s: float | None = None, **kwargs: Any) -> WordleObservation:
        """Play the guess in ``action.message``."""
        if not isinstance(action, WordleAction):
            raise TypeError(f"the action is a WordleAction; got {type(action).__name__}")
        text, reward, terminated, truncated, info = self.game.step(action.message)
        self._messages.append(WordleMessage(sender_id=0, content=action.message, category="PLAYER_ACTION"))
        self._messages.append(WordleMessage(sender_id=GAME, content=text, category="GAME"))
        if info["guess"] and not info["reason"]:
            self._guesses.append(str(info["guess"]))
        state = self._state
        state.step_count += 1
        state.turn, state.last_reward, state.last_info = int(info["turn"]), float(reward), _plain(info)
        return self._observation(float(reward), bool(terminated or truncated), info)

    @property
    def state(self) -> WordleState:
        """The game's state (``raw_state`` has the guesses so far)."""
        won = bool(self._state.last_info.get("won", False))
        self._state.raw_state = {"guesses": list(self._guesses), "won": won}
        return self._state

    def _observation(self, reward: float | None, done: bool, info: dict[str, Any]) -> WordleObservation:
        return WordleObservation(
            prompt=self.game.intro, messages=list(self._messages), info=_plain(info), reward=reward, done=done
        )


class WordleEnv(EnvClient[WordleAction, WordleObservation, WordleState]):
    """The client: ``WordleEnv(base_url=...)`` (async; ``.sync()`` for plain calls), as OpenEnv's clients are."""

    def _step_payload(self, action: WordleAction) -> dict[str, Any]:
        return {"message": action.message}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[WordleObservation]:
        data = dict(payload.get("observation", {}))
        data.update(reward=payload.get("reward"), done=payload.get("done", False))
        observation = WordleObservation.model_validate(data)
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> WordleState:
        return WordleState.model_validate(payload)


def make_app(sessions: int = 64, **game: Any) -> Any:
    """The FastAPI app that serves :class:`WordleEnvironment` with ``game`` (OpenEnv's ``create_app``), up to
    ``sessions`` WebSocket sessions at once (a GRPO batch plays many games together)."""
    if isinstance(sessions, bool) or not isinstance(sessions, int) or sessions < 1:
        raise ValueError(f"sessions must be a positive integer; got {sessions!r}")
    WordleTextEnv(**game).close()  # bad options fail here, once, not in every session
    factory = lambda: WordleEnvironment(**game)  # noqa: E731
    return create_app(factory, WordleAction, WordleObservation, env_name=ENV_NAME, max_concurrent_envs=sessions)


def _game_from_environ() -> dict[str, Any]:
    """The game a container serves: ``WORDLE_GYM_REWARD``, ``WORDLE_GYM_SPLIT``, ``WORDLE_GYM_HARD``."""
    game: dict[str, Any] = {}
    if reward := os.environ.get("WORDLE_GYM_REWARD"):
        game["reward"] = reward
    if split := os.environ.get("WORDLE_GYM_SPLIT"):
        game["split"] = split
    if os.environ.get("WORDLE_GYM_HARD", "").lower() in ("1", "true", "yes"):
        game["hard_mode"] = True
    return game


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m wordle_gym.integrations.openenv``: serve the game over HTTP and WebSocket (uvicorn)."""
    import uvicorn

    from wordle_gym.utils.commandline import OneLineParser

    parser = OneLineParser(prog="python -m wordle_gym.integrations.openenv", description=main.__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8001, help="port (default 8001)")
    parser.add_argument("--reward", help="the text env's reward preset (default: the env's; 'regret': exact)")
    parser.add_argument("--split", choices=("train", "eval"), help="draw answers from this part of the split")
    parser.add_argument("--hard", action="store_true", help="hard mode")
    parser.add_argument("--sessions", type=int, default=64, help="games played at once (default 64)")
    args = parser.parse_args(argv)
    game = _game_from_environ()
    game.update({k: v for k, v in (("reward", args.reward), ("split", args.split)) if v})
    if args.hard:
        game["hard_mode"] = True
    try:
        app = make_app(args.sessions, **game)
    except (ValueError, TypeError) as exc:
        parser.error(str(exc))
    uvicorn.run(app, host=args.host, port=args.port)
    return 0


__all__ = ["WordleAction", "WordleEnv", "WordleEnvironment", "WordleMessage", "WordleObservation", "WordleState"]

if __name__ == "__main__":
    raise SystemExit(main())
