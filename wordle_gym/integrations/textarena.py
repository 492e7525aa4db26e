"""Real Wordle as a TextArena env: the game's own lists and rules behind TextArena's interface.

TextArena's ``Wordle-v0`` (which OpenEnv, TRL's GRPO example and verifiers' TextArena adapter reuse)
draws its secrets from 156 Basic-English nouns, refuses thousands of real guesses and needs NLTK
data. This module registers the real game under new ids, with TextArena's conventions kept (a guess
in ``[brackets]``, feedback as ``G``/``Y``/``X`` letters, one player,
``reset(num_players=1, seed=...)``), so code written for ``ta.make("Wordle-v0")`` plays real Wordle
with the id changed::

    import textarena as ta
    from wordle_gym.integrations.textarena import register

    register()  # WordleReal-v0, -hard, -nyt, -today, -split-train, -split-eval (also -train, -raw)
    env = ta.make("WordleReal-v0")
    env.reset(num_players=1, seed=0)
    player, observation = env.get_observation()
    done, info = env.step("[salet]")

The game is :class:`~wordle_gym.envs.text.WordleTextEnv`'s (the same engine and lists); a reply is
read as TextArena's ``Wordle-v0`` reads it (:func:`~wordle_gym.envs.replies.textarena_guess`: the
**first** ``[word]``, after the reply's last change of mind that has one, as every surface reads a
decision) and refused as it refuses: no bracketed word, a word of another length, a word
guessed before or one not on the list is an invalid move, which TextArena's error allowance forgives
once (the player resubmits; no attempt is used) and a second in a row ends the game
(``invalid_move`` in its info). A word that breaks hard mode spends its attempt, as in
``WordleHard-v1``. The reward counts guesses: a win in ``g`` of ``max_guesses`` guesses scores
``(max_guesses + 1 - g) / max_guesses`` (1 for one guess, 1/6 for six), a loss 0 (TextArena's share
of green letters is not paid: no partial credit); the game info has ``guesses`` and ``won``. The
default wrappers are TextArena's, except that the observation history is cleared on reset
(TextArena's ``LLMObservationWrapper`` keeps every game's messages).

Needs the ``textarena`` extra; importing :mod:`wordle_gym` does not import it, and no NLTK data is
used.
"""

from __future__ import annotations

from typing import Any

try:
    import textarena as ta
    from textarena.envs.registration import ENV_REGISTRY
    from textarena.envs.registration import register as ta_register
    from textarena.wrappers import (
        ActionFormattingWrapper,
        GameMessagesObservationWrapper,
        LLMObservationWrapper,
    )
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise ImportError(
        "wordle_gym.integrations.textarena needs TextArena: pip install '.[textarena]'"
    ) from exc

from wordle_gym.envs.replies import textarena_guess
from wordle_gym.envs.text import WordleTextEnv

PROMPT = (
    "You are playing Wordle. A secret {length}-letter word has been chosen. You have {max_guesses} "
    "attempts to guess it.{hard}\nFor each guess, wrap your word in square brackets (e.g., "
    "'[{example}]'). Only words of the game's list are accepted.\nFeedback for each letter will be "
    "given as follows:\n  - G (green): correct letter in the correct position\n  - Y (yellow): "
    "letter exists in the word but in the wrong position\n  - X (wrong): letter is not in the word "
    "(or no more copies of it)\nEnter your guess to begin.\n"
)
IDS = {
    "WordleReal-v0": {},
    "WordleReal-v0-hard": {"hard_mode": True},
    "WordleReal-v0-nyt": {"answers": "nyt"},
    "WordleReal-v0-today": {"answers": "answers_today", "allowed": "allowed_today"},
    "WordleReal-v0-today-hard": {
        "answers": "answers_today",
        "allowed": "allowed_today",
        "hard_mode": True,
    },
    "WordleReal-v0-split-train": {"split": "train"},
    "WordleReal-v0-split-eval": {"split": "eval"},
}
"""The ids :func:`register` adds (each also with ``-train`` and ``-raw`` wrapper sets, as
TextArena's own: those suffixes name TextArena's observation wrappers, not answers).
``-split-train`` and ``-split-eval`` draw their secrets from the seeded train/eval split of the
answers that the envs' ``split=``, ``wordle-gym eval --split`` and the verifiers module share
(:func:`~wordle_gym.core.words.split_answers`: 2000 and 315 answers)."""


class _ClearOnReset:
    """A history-keeping TextArena wrapper whose history starts again at each reset."""

    full_observations: dict[int, Any]
    env: Any

    def reset(self, num_players: int, seed: int | None = None) -> Any:
        self.full_observations = {}
        return self.env.reset(num_players=num_players, seed=seed)


class ClearingLLMObservationWrapper(_ClearOnReset, LLMObservationWrapper):
    """TextArena's ``LLMObservationWrapper`` whose history starts again at each reset."""


class ClearingGameMessagesObservationWrapper(_ClearOnReset, GameMessagesObservationWrapper):
    """TextArena's ``GameMessagesObservationWrapper`` whose history starts again at each reset."""


class RealWordleEnv(ta.Env):
    """Real Wordle (:class:`~wordle_gym.envs.text.WordleTextEnv`'s game) as a one-player TextArena
    env.

    Args:
        options: the game, as :class:`~wordle_gym.core.config.WordleConfig` takes it (``hard_mode``,
            ``answers``, ``allowed``, ``max_guesses``, ...).
    """

    def __init__(self, **options: Any) -> None:
        super().__init__()
        self.game = WordleTextEnv(prompt=PROMPT, **options)
        self.max_guesses = self.game.config.max_guesses

    def reset(self, num_players: int = 1, seed: int | None = None) -> None:
        """A new game: the answer drawn from ``seed`` (None: from the game's running generator)."""
        self.state = ta.SinglePlayerState(
            num_players=num_players, seed=seed, max_turns=self.max_guesses
        )
        self.game.reset(seed=seed)
        game_state = {
            "guess_history": [],
            "word_length": self.game.vocabulary.length,
            "num_guesses": self.max_guesses,
        }
        self.state.reset(
            game_state=game_state,
            player_prompt_function=lambda player_id, game_state: self.game.intro,
        )

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        """Play the guess in ``action`` (the agent's reply), by TextArena's rules."""
        if not isinstance(action, str):
            raise TypeError(f"the action is the agent's reply, a str; got {type(action).__name__}")
        player = self.state.current_player_id
        self.state.add_observation(
            message=action, observation_type=ta.ObservationType.PLAYER_ACTION, from_id=player
        )
        word = textarena_guess(action)
        history = self.state.game_state["guess_history"]
        length = self.game.vocabulary.length
        if word is None:
            invalid = (
                "You tried submitting a word in the wrong format. Please make sure to use "
                "squared brackets."
            )
        elif len(word) != length:
            invalid = f"Your word must be exactly {length} letters."
        elif word in (guessed for guessed, _ in history):
            invalid = f"You have already guessed '{word}' before. Please try a different word."
        elif word not in self.game.vocabulary.allowed_index:
            invalid = f"'{word}' is not in the game's word list."
        else:
            invalid = ""
        if invalid:
            self.state.set_invalid_move(reason=invalid, reward=0.0)
            if self.state.done:
                self.state.game_info[0].update(guesses=int(self.game.state.turn[0]), won=False)
            return self.state.step()
        _, _, terminated, _, info = self.game.step(f"<guess>{word}</guess>")
        turn = int(info["turn"])
        if info["reason"]:
            reason = info["reason"].replace("inside <guess></guess>", "in square brackets")
            message = f"Your reply was refused: {reason}. That used an attempt."
        else:
            feedback = [{2: "G", 1: "Y", 0: "X"}[int(t)] for t in info["tiles"]]
            history.append((info["guess"], feedback))
            letters = " ".join(info["guess"].upper())
            message = (
                f"You submitted [{info['guess']}].\nFeedback:\n{letters}\n{' '.join(feedback)}"
            )
        self.state.game_state["guesses"] = turn
        if bool(info["won"]):
            score = (self.max_guesses + 1 - turn) / self.max_guesses
            self.state.set_outcome(
                reward=score, reason=f"Congratulations! You guessed the word in {turn} guesses."
            )
        elif terminated:
            self.state.set_outcome(
                reward=0.0, reason=f"{message}\nOut of guesses: the word was {self.game.answer}."
            )
        else:
            left = self.max_guesses - turn
            self.state.add_observation(
                message=f"{message}\nYou have {left} guess{'es' if left != 1 else ''} left.",
                observation_type=ta.ObservationType.GAME_MESSAGE,
            )
        if self.state.done:
            self.state.game_info[0].update(guesses=turn, won=bool(info["won"]))
        return self.state.step()

    def get_board_str(self) -> str:
        """The board so far, one ``WORD  G Y X G X`` line per guess."""
        lines = [
            f"{word.upper()}  {' '.join(tiles)}"
            for word, tiles in self.state.game_state["guess_history"]
        ]
        return "\n".join(lines) or "No guesses yet."


def register() -> list[str]:
    """Add the ids of :data:`IDS` to TextArena's registry (again: nothing); returns every id it
    holds for them."""
    sets = {
        "": [ClearingLLMObservationWrapper, ActionFormattingWrapper],
        "-train": [ClearingGameMessagesObservationWrapper, ActionFormattingWrapper],
        "-raw": None,
    }
    added = []
    for base, options in IDS.items():
        for suffix, wrappers in sets.items():
            name = base + suffix
            if name not in ENV_REGISTRY:
                ta_register(name, entry_point=RealWordleEnv, default_wrappers=wrappers, **options)
            added.append(name)
    return added


__all__ = ["IDS", "PROMPT", "RealWordleEnv", "register"]
