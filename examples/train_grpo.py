"""GRPO on real Wordle with TRL's ``GRPOTrainer``: a language model plays whole games through a
``guess`` tool.

Each rollout is one game of :class:`~wordle_gym.envs.text.WordleTextEnv` (the real lists, answers
from the ``train`` split): TRL's ``environment_factory`` gives every rollout its own
:class:`WordleGame`, whose ``guess`` method is the tool the model calls (its feedback goes back as
the tool's answer, turn after turn) and whose ``get_reward`` scores the finished game: 1 for a win,
plus the game's summed exact regret (``reward="regret"``:
minus the expected guesses each move lost against perfect play, 0 for optimal moves whatever the
luck). TRL fits this better than verifiers' trainer here: it trains a local ``transformers`` model
in one process, needs no inference server and runs on a CPU, so the same script is the test and the
real run.

A real model on a GPU (``pip install -e ".[trl]"``; the model is downloaded by transformers)::

    python examples/train_grpo.py --model Qwen/Qwen3-0.6B --steps 500 --num-generations 8 \\
        --batch-size 8 --max-completion-length 256 --output-dir runs/grpo-qwen3

Offline, a tiny model built here from a config (no download; it is first taught the tool-call
format, so its games are real games)::

    python examples/train_grpo.py --tiny --steps 2 --output-dir runs/grpo-tiny

Prints each step's mean reward and the games' guesses, and saves the trained model to
``--output-dir``; ``--split eval`` plays the held-out answers. ``--env-url URL`` plays every game on
an OpenEnv server instead (``python -m wordle_gym.integrations.openenv --reward regret --split
train``), through :class:`ServedWordleGame`, a class written as TRL's OpenEnv Wordle example writes
its own.
"""

from __future__ import annotations

import json
import math
import os
import sys
import warnings
from dataclasses import dataclass, fields
from typing import Any, Literal

from wordle_gym.envs.text import WordleTextEnv
from wordle_gym.utils.commandline import OneLineParser, add_options, options_from

PROMPT = (
    "Let's play Wordle. Find the secret 5-letter word in at most 6 guesses. Make each guess by "
    "calling the guess tool with one word; its answer is the feedback (G: right letter, right "
    "place; Y: in the word elsewhere; X: not in the word). Keep guessing until the game ends."
)
# the tiny model's first guesses
TINY_WORDS = ("salet", "crane", "trace", "slate", "crate", "carte")
# Qwen3's call of the tool, around the word; ``<tool_call>`` and ``</tool_call>`` are tokens of
# their own, as in Qwen3's tokenizer: transformers parses a fast tokenizer's output by token id,
# so a call whose delimiters are merged into a longer token is read as plain text
CALL_OPEN, CALL_CLOSE = (
    '<tool_call>\n{"name": "guess", "arguments": {"word": "',
    '"}}\n</tool_call>',
)


def _checkpointing(config_class: Any, on: bool) -> dict[str, bool]:
    """TRL's activation checkpointing (on by its default) set under the name the installed
    transformers knows: ``activation_checkpointing`` since 5.x, where the old
    ``gradient_checkpointing`` warns. Off for the tiny model: nothing to save memory on."""
    names = {f.name for f in fields(config_class)}
    key = (
        "activation_checkpointing"
        if "activation_checkpointing" in names
        else "gradient_checkpointing"
    )
    return {key: on}


def shown(word: str, read: str, refused: bool) -> str:
    """How the printout shows one call of the tool: the word played, or the argument refused,
    quoted in brackets (a refused "carte to" is not two guesses)."""
    return f"({word!r}: refused)" if refused else read or word


class WordleGame:
    """One rollout's game for TRL's ``environment_factory``: ``guess`` is the tool, ``get_reward``
    the score."""

    reward = "regret"
    split = "train"
    # every scored game: answer, guesses, won, reward (the class's record)
    finished: list[dict[str, Any]] = []

    def __init__(self) -> None:
        self.env = WordleTextEnv(reward=self.reward, split=self.split)
        self.total, self.done, self.won, self.guesses = 0.0, False, False, []

    def reset(self, **row: Any) -> str:
        """A new game, its answer drawn from the row's ``seed``; returns its opening text."""
        seed = row.get("seed")
        text, _ = self.env.reset(seed=None if seed is None else int(seed))
        self.total, self.done, self.won, self.guesses = 0.0, False, False, []
        return text

    def guess(self, word: str) -> str:
        """Guess a word in the game of Wordle.

        Args:
            word: a 5-letter English word.

        Returns:
            The feedback on the guess and the board so far.
        """
        if self.done:
            return "The game is over."
        text, reward, terminated, truncated, info = self.env.step(
            {"name": "guess", "arguments": {"word": word}}
        )
        self.total += float(reward)
        self.done, self.won = bool(terminated or truncated), bool(info["won"])
        self.guesses.append(shown(word, str(info["guess"]), bool(info["invalid"])))
        return text

    def get_reward(self) -> float:
        """1 for a win, plus the game's summed reward (with ``regret``: minus the regret of its
        moves). A game the model stopped playing (no more tool calls) is played to its end as
        replies without a guess, each spending a turn as the game's rules say: stopping never scores
        like playing well."""
        while not self.done:
            _, reward, terminated, truncated, _ = self.env.step("")
            self.total += float(reward)
            self.done = bool(terminated or truncated)
        score = float(self.won) + self.total
        record = {
            "answer": self.env.answer,
            "guesses": list(self.guesses),
            "won": self.won,
            "reward": score,
        }
        WordleGame.finished.append(record)
        return score


class ServedWordleGame:
    """One rollout's game played on a wordle_gym OpenEnv server, written as TRL's OpenEnv Wordle
    example writes its environment class (a client made once, ``.sync()``; the transcript in
    ``messages[0].content``, each tool answer the part a step appended; an invalid move told by
    TextArena's words), with the server's rewards: the game's (``info["game_reward"]``: with
    ``--reward regret``, minus the regret of its moves) and each move's (``reward``). Its one public
    method besides ``reset`` and ``get_reward`` is the tool: TRL offers every public method."""

    url = "http://127.0.0.1:8001"
    finished: list[dict[str, Any]] = []

    def __init__(self) -> None:
        from wordle_gym.integrations.openenv import WordleEnvClient

        self.client = WordleEnvClient(base_url=self.url).sync()
        self.reward, self.done, self.won, self.guesses, self.feedback = 0.0, False, False, [], []

    def reset(self, **row: Any) -> str:
        """A new game on the server, its answer drawn from the row's ``seed``; returns its opening
        text."""
        seed = row.get("seed")
        result = self.client.reset(seed=None if seed is None else int(seed))
        self._last_full_feedback = result.observation.messages[0].content
        self.reward, self.done, self.won, self.guesses, self.feedback = 0.0, False, False, [], []
        return self._last_full_feedback

    def guess(self, word: str) -> str:
        """Guess a word in the game of Wordle.

        Args:
            word: a 5-letter English word.

        Returns:
            The feedback on the guess and the board so far.
        """
        from wordle_gym.integrations.openenv import WordleAction

        if self.done:
            return "The game is over."
        result = self.client.step(WordleAction(message=word))
        full = result.observation.messages[0].content
        feedback = full[len(self._last_full_feedback) :]  # only what this step appended
        self._last_full_feedback = full
        info = result.observation.info
        self.reward, self.done, self.won = (
            float(info["game_reward"]),
            bool(result.done),
            bool(info["won"]),
        )
        self.guesses.append(
            shown(word, str(info["guess"]), "You attempted an invalid move" in feedback)
        )
        self.feedback.append(feedback)
        return feedback

    def get_reward(self) -> float:
        """1 for a win, plus the game's reward on the server (a game the model stopped playing is
        played to its end as replies without a guess, as :meth:`WordleGame.get_reward` does)."""
        from wordle_gym.integrations.openenv import WordleAction

        while not self.done:
            result = self.client.step(WordleAction(message=""))
            self.reward, self.done = (
                float(result.observation.info["game_reward"]),
                bool(result.done),
            )
        score = float(self.won) + self.reward
        record = {
            "guesses": list(self.guesses),
            "feedback": list(self.feedback),
            "won": self.won,
            "reward": score,
        }
        ServedWordleGame.finished.append(record)
        return score


def tiny_model(seed: int = 0, teach_steps: int = 40) -> tuple[Any, Any]:
    """A Qwen3-shaped model of a few hundred thousand weights and a byte-level tokenizer trained
    here on the game's words, with TRL's Qwen3 chat template (so TRL parses its tool calls); then
    taught, by a few steps of supervised learning, to answer with a ``guess`` tool call of one of
    :data:`TINY_WORDS`."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM
    from trl.chat_template_utils import qwen3_chat_template

    from wordle_gym.core.words import load_word_list

    torch.manual_seed(seed)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tool = json.dumps({"name": "guess", "arguments": {"word": "crane"}})
    corpus = [
        " ".join(load_word_list("answers")),
        PROMPT,
        f"system user assistant tool {tool} Feedback Board so far",
    ]
    words = Tokenizer(models.BPE())
    words.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    words.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    words.train_from_iterator(
        corpus,
        trainers.BpeTrainer(vocab_size=800, special_tokens=specials, initial_alphabet=alphabet),
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=words, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    tokenizer.add_tokens(
        [
            "<tool_call>",
            "</tool_call>",
            "<tool_response>",
            "</tool_response>",
            "<think>",
            "</think>",
        ]
    )
    # A guess call is then six tokens (``<tool_call>``, the JSON up to the word, the word, the
    # rest of the JSON, ``</tool_call>``, the end of the turn), a format a model this small learns
    # in a few dozen steps.
    json_open = CALL_OPEN.removeprefix("<tool_call>")
    json_close = CALL_CLOSE.removesuffix("</tool_call>")
    tokenizer.add_tokens([json_open, json_close, *TINY_WORDS])
    tokenizer.add_tokens(list(TINY_WORDS))
    tokenizer.chat_template = qwen3_chat_template
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    model = Qwen3ForCausalLM(config)
    # Teach it the format: after the generation prompt, a guess tool call (the first turn and a
    # later one).
    game = WordleGame()
    contexts = [[{"role": "user", "content": PROMPT + "\n\n" + game.reset(seed=0)}]]
    call = {"type": "function", "function": {"name": "guess", "arguments": {"word": "crane"}}}
    feedback = game.guess("crane")
    contexts.append(
        [
            *contexts[0],
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "content": feedback},
        ]
    )
    batches = []  # one batch per context: its prompt, then each word's call (padding not learned)
    for context in contexts:
        prompt = tokenizer.apply_chat_template(
            context,
            tools=[game.guess],
            add_generation_prompt=True,
            tokenize=False,
            enable_thinking=False,
        )
        prompt_ids = tokenizer(prompt, add_special_tokens=False).input_ids
        answers = [
            tokenizer(f"{CALL_OPEN}{w}{CALL_CLOSE}<|im_end|>", add_special_tokens=False).input_ids
            for w in TINY_WORDS
        ]  # fmt: skip
        width = max(map(len, answers))
        ids = torch.tensor(
            [prompt_ids + a + [tokenizer.pad_token_id] * (width - len(a)) for a in answers]
        )
        labels = ids.clone()
        labels[:, : len(prompt_ids)] = -100
        for row, a in enumerate(answers):
            labels[row, len(prompt_ids) + len(a) :] = -100
        batches.append((ids, labels))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for step in range(teach_steps):
        loss = sum(model(input_ids=ids, labels=labels).loss for ids, labels in batches) / len(
            batches
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0 or step == teach_steps - 1:
            print(f"teaching the tool-call format: step {step}, loss {loss.item():.3f}", flush=True)
    model.eval()
    return model, tokenizer


@dataclass(frozen=True)
class Args:
    """The run's settings (the examples' style: one documented dataclass, its fields the
    command's flags); every bad one fails in one line before any model loads."""

    model: str | None = None
    """A transformers model id or folder (downloaded by transformers)."""
    tiny: bool = False
    """A tiny model built here (no download)."""
    steps: int = 2
    """GRPO steps."""
    num_generations: int = 4
    """Games per prompt, GRPO's group."""
    batch_size: int = 4
    """Games per device and step."""
    max_completion_length: int = 256
    """Tokens of a whole game's replies."""
    max_tool_calls: int = 6
    """Tool calls a game may make."""
    lr: float = 1e-6
    """Learning rate."""
    reward: str = "regret"
    """The text env's reward."""
    split: Literal["train", "eval"] = "train"
    """The answers played."""
    output_dir: str = "runs/grpo"
    """TRL's output folder."""
    device: Literal["auto", "cpu", "cuda"] = "auto"
    """Where to train."""
    seed: int = 0
    """Seed of the games and the tiny model."""
    env_url: str | None = None
    """Play on this OpenEnv server (python -m wordle_gym.integrations.openenv --reward regret
    --split train) instead of in this process; --reward and --split are then the server's."""

    def __post_init__(self) -> None:
        if bool(self.model) == self.tiny:
            raise ValueError("give --model ID or --tiny")
        counts = ("steps", "num_generations", "batch_size", "max_completion_length")
        for name in (*counts, "max_tool_calls"):
            if getattr(self, name) < 1:
                raise ValueError(
                    f"--{name.replace('_', '-')} must be >= 1; got {getattr(self, name)}"
                )
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"--lr must be a positive number; got {self.lr}")
        if self.batch_size % self.num_generations:
            raise ValueError(
                f"--batch-size ({self.batch_size}) must be a multiple of --num-generations "
                f"({self.num_generations})"
            )
        WordleTextEnv(reward=self.reward, split=self.split).close()  # a bad reward fails here


def _game_class(args: Args, parser: OneLineParser) -> type:
    """The environment class TRL makes a game of: played here, or on the server at --env-url
    (reached once first: an unreachable one fails in one line)."""
    WordleGame.reward, WordleGame.split = args.reward, args.split
    if not args.env_url:
        return WordleGame
    ServedWordleGame.url = args.env_url
    try:
        probe = ServedWordleGame().client
    except ImportError as exc:
        parser.error(f"--env-url {args.env_url}: {exc} (pip install 'wordle-gym[trl]')")
    try:
        probe.connect()  # an unreachable server fails here, in one line
    except (ConnectionError, OSError) as exc:
        parser.error(f"--env-url {args.env_url}: {exc}")
    finally:
        probe.close()
    return ServedWordleGame


def _report(log: list[dict[str, Any]], games: list[dict[str, Any]]) -> None:
    """The run's account: each step's mean reward and tool calls, then the games played."""
    for row in log:
        if "reward" in row:
            calls = row.get("tools/call_frequency", 0.0)
            print(
                f"step {int(row['step'])}: mean reward {row['reward']:+.4f}, {calls:.2f} tool "
                "calls a game"
            )
    print(
        f"{len(games)} games: {sum(g['won'] for g in games)} won, "
        f"{sum(bool(g['guesses']) for g in games)} made guesses"
    )
    for g in games[-4:]:
        print(
            f"  {g.get('answer', 'a game')}: {' '.join(g['guesses']) or '(no guess)'} "
            f"({g['reward']:+.4f})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        prog="train_grpo.py", description=" ".join(__doc__.split("\n\n")[0].split())
    )
    add_options(parser, Args)
    try:
        args = options_from(Args, parser.parse_args(argv))
    except (ValueError, TypeError) as exc:
        parser.error(str(exc))
    game_class = _game_class(args, parser)
    try:
        from datasets import Dataset
        from trl import GRPOConfig, GRPOTrainer
    except ImportError as exc:
        parser.error(f"{exc}: the example needs TRL (pip install 'wordle-gym[trl]')")
    import torch

    on_cpu = args.device == "cpu" or (args.device == "auto" and not torch.cuda.is_available())
    if args.tiny:
        if on_cpu:
            torch.set_num_threads(1)  # a tiny model: more threads only wait on each other
        model, tokenizer = tiny_model(args.seed)
    else:
        model, tokenizer = args.model, None
    # environment_factory is TRL's experimental API (it says so on every run): this script is
    # written against it and tested with each TRL it allows
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    # TRL calls the model's checkpointing by its old names at each generation (trl/models/utils.py),
    # which transformers 5 warns of: nothing this script can change
    warnings.filterwarnings(
        "ignore", r"`\w*gradient_checkpointing\w*` is deprecated", FutureWarning
    )
    rows = args.steps * args.batch_size // args.num_generations
    data = Dataset.from_dict(
        {
            "prompt": [[{"role": "user", "content": PROMPT}]] * rows,
            "seed": [args.seed * 100_003 + i for i in range(rows)],
        }
    )
    config = GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.steps,
        per_device_train_batch_size=args.batch_size,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        max_tool_calling_iterations=args.max_tool_calls,
        learning_rate=args.lr,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=args.seed,
        use_cpu=on_cpu,
        bf16=False,
        chat_template_kwargs={"enable_thinking": False},
        temperature=1.0,
        **_checkpointing(GRPOConfig, not args.tiny),
    )
    trainer = GRPOTrainer(
        model=model,
        args=config,
        train_dataset=data,
        processing_class=tokenizer,
        environment_factory=game_class,
    )
    trainer.train()
    _report(trainer.state.log_history, game_class.finished)
    trainer.save_model(args.output_dir)  # the trained model (and its tokenizer), once, at the end
    print(f"saved the model to {args.output_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
