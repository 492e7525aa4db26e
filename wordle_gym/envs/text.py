"""WordleText: Wordle for language-model agents, text in and text out, on the same engine and the
real lists."""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces

from wordle_gym.core.config import WordleConfig
from wordle_gym.core.engines import make_game
from wordle_gym.core.game import NO_TILE, GameState
from wordle_gym.core.rewards import (
    REGRET,
    TILES,
    FormatBonus,
    Outcome,
    RewardFn,
    RewardSum,
    reward_for,
    scalar_reward,
    with_presets,
)
from wordle_gym.core.rules import GREEN, YELLOW
from wordle_gym.core.words import Vocabulary
from wordle_gym.envs.base import reset_answer
from wordle_gym.envs.render import RENDER_MODES
from wordle_gym.envs.replies import GUESS_TOOL, mixed_script, parse_guess, resolve_parser
from wordle_gym.envs.scalar import ScalarGame
from wordle_gym.solver.regret import (
    REGRET_BUDGET,
    check_budget,
    load_oracle,
    regret_info,
)

# characters of a reply or an observation (a bound the spaces state; replies are not cut)
MAX_TEXT = 1 << 20
GUESS_CHARS = 64
"""The most of the word read from a reply that ``info["guess"]`` holds (a 1 MB run of letters is
not echoed back)."""
TILE_LETTERS = {GREEN: "G", YELLOW: "Y", 0: "X"}

DEFAULT_PROMPT = (
    "You are playing Wordle. Find the secret {length}-letter English word in at most {max_guesses} "
    "guesses.{hard}\nAfter each guess you get one letter per position: G (green) = right letter, "
    "right place; Y (yellow) = the letter is in the word elsewhere; X (grey) = not in the word (or "
    "no more copies of it).\nOnly real words from the game's list are accepted; a reply without "
    "one still spends a guess.\nAnswer with your guess inside <guess></guess>, for example "
    "<guess>{example}</guess>."
)
TOOL_PROMPT = "\n\nYou may also submit each guess by calling the guess tool with the word."
"""What the opening text adds where the model is offered the ``guess`` tool."""
HARD_RULE = (
    " Hard mode: every revealed green must stay in place and every revealed letter must "
    "be used again."
)


class ReplyText(spaces.Text):
    """A text space that holds any string up to ``max_length`` characters (a model's reply may hold
    any character); samples are drawn from ``charset`` as :class:`gymnasium.spaces.Text` draws
    them."""

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"ReplyText({self.min_length}, {self.max_length})"


def intro_text(
    config: WordleConfig, prompt: str | Callable[[WordleConfig], str] = DEFAULT_PROMPT
) -> str:
    """The rules and how to answer: ``prompt`` formatted with the game's fields (``length``,
    ``max_guesses``, ``hard``, ``example``), or called with the config."""
    vocabulary = config.vocabulary
    if callable(prompt):
        text = prompt(config)
    elif isinstance(prompt, str):
        fields = {
            "length": vocabulary.length,
            "max_guesses": config.max_guesses,
            "hard": HARD_RULE if config.hard_mode else "",
            "example": vocabulary.allowed[0],
        }
        try:
            # a field's width is bounded before it is built ("{length:>999999999}" is 1 GB)
            for _, _, spec, _ in string.Formatter().parse(prompt):
                widest = max((int(n) for n in re.findall(r"\d+", spec or "")), default=0)
                if widest > MAX_TEXT:
                    raise ValueError(f"a field's width {widest:,} is over {MAX_TEXT:,} characters")
            text = prompt.format(**fields)
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                f"prompt must be a format string of the fields {sorted(fields)}; {exc!r}"
            ) from None
    else:
        raise TypeError(
            f"prompt must be a format string or a callable of the config; got {prompt!r}"
        )
    if not isinstance(text, str) or not text:
        raise TypeError(f"the prompt must give non-empty text; got {text!r}")
    if len(text) > MAX_TEXT:
        raise ValueError(f"the prompt gives {len(text):,} characters, over {MAX_TEXT:,}")
    return text


def example_word(
    config: WordleConfig, prompt: str | Callable[[WordleConfig], str] = DEFAULT_PROMPT
) -> str | None:
    """The word the prompt gives as its example (a reply that only repeats it, naming another word
    too, plays the other: :func:`~wordle_gym.envs.replies.parse_guess`); None when the prompt gives
    none."""
    return (
        config.vocabulary.allowed[0] if isinstance(prompt, str) and "{example}" in prompt else None
    )


def opening_text(intro: str, max_guesses: int) -> str:
    """The first observation: the rules, then the call for a first guess."""
    return f"{intro}\n\nYou have {max_guesses} guesses. Your first guess?"


def refusal(vocabulary: Vocabulary, word: str | None) -> str:
    """Why a reply whose guess is ``word`` (:func:`parse_guess`'s result) is refused; "" when it is
    allowed."""
    length = vocabulary.length
    if word is None:
        return f"no guess found; answer with one {length}-letter word inside <guess></guess>"
    if word not in vocabulary.allowed_index:
        shown = word[:40].upper()
        if len(word) != length or not word.isalpha():
            return f"{shown!r} is not a {length}-letter word"
        return f"{shown} is not in the word list"
    return ""


HARD_REFUSAL = "{word} breaks hard mode: keep every green in place and reuse every revealed letter"


def board_line(turn: int, word: str | None, tiles: Any, reason: str = "") -> str:
    """One line of the board: the turn, then ``CRANE -> X Y X G X`` or ``(refused)`` and why."""
    if reason:
        return f"{turn}. (refused) {reason}"
    assert word is not None
    return f"{turn}. {word.upper()} -> {' '.join(TILE_LETTERS[int(t)] for t in tiles)}"


def status_text(
    lines: list[str], max_guesses: int, won: bool, terminated: bool, reason: str, answer: str
) -> str:
    """The observation after a step: the last feedback (or why the reply was refused), the board,
    what is left."""
    turn = len(lines)
    left = max_guesses - turn
    board = "\n".join(lines)
    last = lines[-1].split(". ", 1)[1]
    if won:
        end = f"Solved in {turn} guesses."
    elif terminated:
        end = f"Out of guesses: the word was {answer.upper()}."
    else:
        end = f"{left} guess{'es' if left != 1 else ''} left. Your next guess?"
    head = f"Your reply was refused: {reason}." if reason else f"Feedback: {last}"
    return f"{head}\n\nBoard so far:\n{board}\n\n{end}"


class WordleTextEnv(gym.Env[str, str]):
    """Wordle for language-model agents: the observation and the action are text.

    ## Description

    The game of :class:`~wordle_gym.envs.wordle.WordleEnv` (the real lists by default: 2315 answers,
    12972 allowed guesses; every Wordle option: hard mode, the NYT list, custom lists, the reward
    presets), played as ``Wordle-v0`` plays it, by the one-game copy of the rules
    (:mod:`wordle_gym.envs.scalar`, held to the batched engine :class:`~wordle_gym.core.game.Game`
    step by step by the tests), with a text interface: the agent's reply is parsed for a guess, and
    the env answers with the feedback written out.

    ## Action Space

    :class:`ReplyText`: any string (a reply may hold any character, so the space accepts every
    string up to ``MAX_TEXT`` characters; it samples ASCII letters, for ``check_env``). ``step``
    also takes an assistant message (``{"content": ..., "tool_calls": [...]}``) or one call of the
    ``guess`` tool (:data:`~wordle_gym.envs.replies.GUESS_TOOL`, also ``env.unwrapped.tools``). The
    guess is read by ``parser`` (:mod:`wordle_gym.envs.replies`, one rule on every text surface): by
    default the reasoning (``<think>...</think>``, a reply cut off inside it) is skipped and the
    decision taken as a careful reader takes it: a ``guess`` tool call in any major model family's
    syntax, else, after the reply's last change of mind ("Actually, ...", "Correction: ..."), the
    first ``<guess>...</guess>``, ``\\boxed{}``, ``Answer:`` line or sentence that says the guess,
    ``[...]``, word in bold or capitals, or a one-word reply; a reply cut off before it decides
    plays nothing; ``parser="strict"`` takes only a tool call or ``<guess>``; a callable
    ``parser(reply) -> word | None`` replaces both. A reply with no guess, or with a word
    the game does not allow, is refused: ``info["invalid"]`` is True, the turn is spent (as a
    refused hard-mode guess in Wordle-v0), nothing is revealed, and the next observation says why.

    ## Observation Space

    :class:`ReplyText` of ASCII text. On reset: the rules and how to answer (``prompt``: a format
    string with the fields ``length``, ``max_guesses``, ``hard`` and ``example``, or a callable of
    the config that returns the text). After each step: the feedback of the last guess
    (``CRANE -> X Y X G X``) or why the reply was refused, the board so far, and the guesses left.

    ## Rewards

    Any :class:`~wordle_gym.core.rewards.RewardFn` that reads the outcome's tiles and regret:
    a preset of :data:`~wordle_gym.core.rewards.PRESETS` (<the presets>; a reply is a guess, and a
    refused reply earns a scheme's ``step + invalid``), a
    :class:`~wordle_gym.core.rewards.RewardScheme`, or a
    :class:`~wordle_gym.core.rewards.RewardSum` of them.
    ``format_reward`` adds a :class:`~wordle_gym.core.rewards.FormatBonus`.

    ``reward="regret"``: the exact cost of each move, ``-(Q*(s, a) - V*(s))`` in expected guesses,
    from the exact solver's oracle (:mod:`wordle_gym.solver.oracle`): 0 for an optimal guess,
    -10/2315 for CRANE as the first guess of the real game (its optimal tree totals 7930 against
    SALET's 7920); a refused reply costs what spending the turn costs. Over a game the rewards sum
    to ``V*(start)`` minus the guesses used, minus the luck of the feedback (which averages to zero
    over the answers): their mean is the optimum minus the agent's mean, and no letter-counting
    trick raises it. Each move's searches get
    ``regret_budget`` work (the exact search's count, for ``V*`` and again for ``Q*``; default
    :data:`~wordle_gym.solver.regret.REGRET_BUDGET`, about a second each on one core; None: no
    limit), counted as if from an empty cache, so the reward, its flag and its bounds are a pure
    function of the position, the move and the settings: the same in any process, order, load and
    state of the caches. Past the budget the reward is the proven upper bound of the cost (a real
    strategy's exact total: never the optimistic bound, so a move is never rewarded above one it is
    proven worse than, and a search that runs out of work never pays; BENCHMARKS.md has the time a
    move takes and the share valued exactly). The first move is valued from shipped tables (exact
    for the openers the project and alex1770 proved, a published strategy's total for the rest of
    the real game's; exact for every opener of ``WordleNYT``'s lists), the second after the openers
    models favour too, and solved positions are kept on disk, with the work each took, for every
    process on the machine (the position store, in the cache folder: ``WORDLE_GYM_CACHE``).
    ``info`` then has ``regret`` (float64), ``regret_exact`` (bool), ``regret_bounds`` ((2,)
    float64, proven low and high) and ``regret_basis`` (str: "exact", or which upper bound was
    used).

    ## Starting State

    A uniformly random answer, or ``reset(options={"answer": "cigar"})``.

    ## Episode End

    Terminated on a correct guess or after ``max_guesses`` replies; never truncated.

    ## Info

    Wordle's keys: ``turn`` (int64), ``tiles`` (uint8, 3 for a refused reply), ``invalid``, ``won``
    and ``is_success`` (bool), plus ``guess`` (the word read from the reply, "" if none) and
    ``reason`` (why a reply was refused, "" otherwise).

    ## Arguments

    ``prompt``, ``parser`` (``"lenient"``, ``"strict"`` or a callable:
    :mod:`wordle_gym.envs.replies`, whose documented table says what each reply plays),
    ``think_open`` (the chat template writes ``<think>`` before each reply, as Qwen3's and
    DeepSeek-R1's thinking templates do: a reply that never closes it is all reasoning, no guess),
    ``format_reward`` (added to the reward of every reply the game takes: a shaping term for the
    first steps of training a model to answer in form; default 0), ``regret_budget`` and every
    :class:`~wordle_gym.core.config.WordleConfig` field as in Wordle (``observation``,
    ``action_mask``, ``obs_dtype``, ``mask_dtype`` and ``boards`` are not used: the observation is
    text).

    ## Version History

    * v0: the first release.
    """

    metadata = {"render_modes": [m for m in RENDER_MODES if m != "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        config: WordleConfig | None = None,
        *,
        prompt: str | Callable[[WordleConfig], str] = DEFAULT_PROMPT,
        render_mode: str | None = None,
        regret_budget: int | None = REGRET_BUDGET,
        parser: str | Callable[[Any], str | None] = "lenient",
        think_open: bool = False,
        format_reward: float = 0.0,
        **options: Any,
    ) -> None:
        # the reward of the options, else the config's (a preset it was built with)
        chosen = options.get("reward", "default" if config is None else config.reward)
        reward = reward_for(chosen, "WordleText", frozenset({TILES, REGRET}))
        self.regret = REGRET in reward.needs
        if self.regret:  # the engine keeps its default scheme; the move is valued by the oracle
            del options["reward"]
        if "regret_budget_s" in options:
            raise ValueError(
                "regret_budget_s (seconds) was replaced by regret_budget, an amount of work (the "
                f"exact search's count, default {REGRET_BUDGET:_}: about a second of one core): a "
                "budget in seconds made the reward depend on the machine's load"
            )
        self.regret_budget = check_budget(regret_budget)
        if not isinstance(think_open, bool):
            raise ValueError(f"think_open must be True or False; got {think_open!r}")
        self.parser, self.think_open = resolve_parser(parser, think_open), think_open
        if (
            isinstance(format_reward, bool)
            or not isinstance(format_reward, int | float)
            or not abs(format_reward) < 1e9
        ):
            raise ValueError(f"format_reward must be a number; got {format_reward!r}")
        self.format_reward = float(format_reward)
        self.reward: RewardFn = (
            RewardSum(reward, FormatBonus(self.format_reward)) if self.format_reward else reward
        )
        """The reward of a reply, over its outcome (the regret filled in when it needs it)."""
        self.tools = [GUESS_TOOL]
        """The tools a chat model may be offered (OpenAI's format): the ``guess`` tool."""
        self.config = WordleConfig.build(config, **options)
        if self.config.boards != 1:
            raise ValueError(f"WordleText plays one board; got boards={self.config.boards}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"unknown render_mode {render_mode!r}; expected one of "
                f"{self.metadata['render_modes']}"
            )
        self.render_mode = render_mode
        self.game = make_game(self.config, torch.device("cpu"))
        self.vocabulary = self.config.vocabulary
        self.words = self.vocabulary.allowed
        self.intro = intro_text(self.config, prompt)
        self.example = example_word(self.config, prompt)
        self.observation_space = ReplyText(MAX_TEXT, min_length=1, charset=string.printable)
        self.action_space = ReplyText(MAX_TEXT, charset=string.ascii_lowercase)
        # one game in plain Python, held to `game` by the tests
        self._scalar = ScalarGame(self.game, "text", count_tiles=TILES in self.reward.needs)
        # its own search: no waiting
        self._oracle = load_oracle(self.config).fork() if self.regret else None
        self._lines: list[str] = []
        self._text = ""
        self._needs_reset = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start a game; ``options={"answer": word_or_index}`` fixes the answer."""
        super().reset(seed=seed)
        self._scalar.new(
            reset_answer(options, self.vocabulary, self.np_random, self.config.answer_pool)
        )
        self._lines = []
        self._needs_reset = False
        self._text = opening_text(self.intro, self.config.max_guesses)
        if self.render_mode == "human":
            self.render()
        info = self._info(np.full(self.vocabulary.length, NO_TILE, np.uint8), False, False, "", "")
        if self._oracle is not None:
            info.update(
                regret_info(
                    {"regret": 0.0, "exact": True, "low": 0.0, "high": 0.0, "basis": "exact"}
                )
            )
        return self._text, info

    def step(self, action: str | dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play the guess in reply ``action``: text, an assistant message or a ``guess`` tool
        call."""
        if self._needs_reset:
            raise RuntimeError("the episode is over (or never started): call reset() before step()")
        if not isinstance(action, str | dict):
            raise TypeError(
                "the action is the agent's reply: a str, an assistant message or a tool call "
                f"(dict); got {type(action).__name__}"
            )
        mixed = mixed_script(action, self.think_open)
        word = (
            None
            if mixed
            else parse_guess(
                action, self.parser, allowed=self.vocabulary.allowed_index, example=self.example
            )
        )
        reason = mixed or refusal(self.vocabulary, word)
        judged = None
        if self._oracle is not None:  # valued before the move, from what the player knows
            move = None if reason else self.vocabulary.action(word)
            position = self._oracle.positions(self.game, self.state)[0]
            judged = self._oracle.move_regret(position, move, self.regret_budget)
        one = self._scalar
        if reason:
            _, terminated = one.skip_turn()
            played, won = None, False
        else:
            assert word is not None
            played, _, terminated, won = one.step(self.vocabulary.action(word))
            if played is None:
                reason = HARD_REFUSAL.format(word=word.upper())
        tiles = np.array(
            played if played is not None else [NO_TILE] * self.vocabulary.length, np.uint8
        )
        turn = one.turn
        self._lines.append(board_line(turn, word, tiles, reason))
        self._text = status_text(
            self._lines, self.config.max_guesses, won, terminated, reason, self.answer
        )
        self._needs_reset = terminated
        if self.render_mode == "human":
            self.render()
        info = self._info(tiles, bool(reason), won, word or "", reason)
        if judged is not None:
            info.update(regret_info(judged))
        outcome = Outcome(*one.last, regret=None if judged is None else judged["regret"])
        return self._text, scalar_reward(self.reward, outcome), terminated, False, info

    def _info(
        self, tiles: np.ndarray, invalid: bool, won: bool, guess: str, reason: str
    ) -> dict[str, Any]:
        return {
            "turn": np.array(self._scalar.turn, np.int64),
            "tiles": tiles.astype(np.uint8),
            "invalid": np.array(invalid),
            "won": np.array(won),
            "is_success": np.array(won),
            "guess": guess[:GUESS_CHARS],
            "reason": reason,
        }

    def __getstate__(self) -> dict[str, Any]:
        """A copy (deepcopy, pickle) leaves the shared oracle out and finds it again when
        restored."""
        state = dict(self.__dict__)
        state["_oracle"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.regret:
            self._oracle = load_oracle(self.config).fork()

    @property
    def state(self) -> GameState:
        """The game as a one-row :class:`~wordle_gym.core.game.GameState` (a snapshot, as
        ``WordleEnv.state``)."""
        return self._scalar.state()

    @property
    def answer(self) -> str:
        """The current answer (for tests and debugging; an agent should not peek)."""
        return self.vocabulary.answers[self._scalar.answer]

    def render(self) -> str | None:
        """The last observation: returned (``ansi``) or printed (``human``)."""
        if self.render_mode is None:
            gym.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi' or 'human'"
            )
            return None
        if self.render_mode == "human":
            print(self._text, flush=True)
            return None
        return self._text + "\n"


WordleTextEnv.__doc__ = with_presets(WordleTextEnv.__doc__)
