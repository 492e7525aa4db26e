"""What the trained agents share: the word-scoring head and the agent plumbing around a network.

A2C and DQN both score the 26 x L letter-position cells and give a word the sum of its
letters' scores, through a fixed (words x 26 L) one-hot matrix. The matrix is a buffer, not a
weight, so one set of weights serves any vocabulary of the same word length.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import torch
from torch import nn

from wordle_agents.common.checkpoint import (
    CheckpointInfo,
    config_from_dict,
    read_checkpoint,
    save_checkpoint,
)
from wordle_gym.core.rules import ALPHABET
from wordle_gym.core.words import MAX_LENGTH, MIN_LENGTH, letter_position_one_hot
from wordle_gym.envs.observation import KnowledgeLayout, MultiKnowledgeLayout
from wordle_gym.harness.evaluation import bool_mask
from wordle_gym.utils.device import resolve_device
from wordle_gym.utils.files import quoted

# bound on a network's width read from a file: checked before anything is allocated
MAX_WIDTH = 16_384


def check_width(name: str, value: Any, upper: int = MAX_WIDTH) -> None:
    """``value`` must be an int in [1, upper] (configs call this in ``__post_init__``)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= upper:
        raise ValueError(f"{name} must be an integer from 1 to {upper}; got {value!r}")


def check_finite(config: Any, positive: tuple[str, ...] = ("lr",)) -> None:
    """Every float field of the dataclass ``config`` (and each float of a tuple field) must be
    finite, and the fields named in ``positive`` above 0 (an ``lr`` of inf trained to NaN weights
    and exported them)."""
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        numbers = value if isinstance(value, tuple) else (value,)
        if any(isinstance(v, float) and not math.isfinite(v) for v in numbers):
            raise ValueError(f"{field.name} must be a finite number; got {value!r}")
        if field.name in positive and not value > 0:
            raise ValueError(f"{field.name} must be > 0; got {value!r}")


def sample_categorical(
    weights: torch.Tensor, generator: torch.Generator | None = None
) -> torch.Tensor:
    """One index per row of ``weights`` (B, W), drawn in proportion to the (non-negative) weights.

    Inverse-CDF sampling: a cumulative sum and one uniform number per row, then a binary search.
    The same distribution as ``torch.multinomial(weights, 1)``, which draws W exponential numbers
    per row: over 12972 words that was 55 % of an A2C update on a CPU
    (``benchmarks/profile_training.py``)."""
    u = torch.rand(
        weights.shape[0], generator=generator, device=weights.device, dtype=weights.dtype
    )
    return inverse_cdf(weights.cumsum(1), u)


def inverse_cdf(cdf: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """The index in each row of ``cdf`` (B, W; cumulative non-negative weights) that a uniform
    number ``u`` in [0, 1) (B,) falls on. ``1 - u`` in (0, 1] and the first entry reaching it: an
    entry is drawn only if it adds weight (``u = 0`` does not draw a zero or vanishing first
    weight)."""
    index = torch.searchsorted(cdf, (1 - u[:, None]) * cdf[:, -1:])
    return index.squeeze(1).clamp_(max=cdf.shape[1] - 1)


EXP_FLOOR = -80.0
"""Word logits more than this far under a row's best are raised to it before ``exp``: e^-80 is still
a normal float32 (e^-87.4 is not), such a word's chance stays below 1e-34, and ``exp`` of numbers
that underflow takes about 10x longer on an x86 CPU."""


def _word_blocks(
    scores: torch.Tensor, one_hot: torch.Tensor, block: int
) -> Iterator[tuple[slice, torch.Tensor]]:
    """(rows, their word scores ``scores[rows] @ one_hot.T``), ``block`` rows at a time."""
    for start in range(0, scores.shape[0], block):
        rows = slice(start, start + block)
        yield rows, scores[rows] @ one_hot.T


class _LogPartition(torch.autograd.Function):
    """``logsumexp(scores @ one_hot.T, 1)`` and one word drawn from its softmax per row, never
    keeping the (B, W) word logits: they are made and used a block of rows at a time (so a block
    stays in cache on a CPU), and the backward pass needs only the (B, 26 L) expected one-hot under
    the softmax, since d logZ / d scores = softmax(scores @ one_hot.T) @ one_hot.

    With ``entropy``, also the softmax's entropy ``H = logZ - E[s]`` (``s`` the word scores) from
    the same pass; its gradient needs no (B, W) tensor either:
    ``dH / d scores = -(E[s x] - E[s] E[x])`` (``x`` a word's one-hot: the covariance of one-hots
    and scores under the softmax), one more (B, 26 L) sum. Scores are measured from each row's best
    (the covariance does not change) and, like the softmax, raised to :data:`EXP_FLOOR` under it.
    Without it the entropy returned is empty; without uniform numbers ``u`` (None) nothing is drawn
    (no cumulative sum: the draws returned are empty)."""

    @staticmethod
    def forward(
        ctx: Any,
        scores: torch.Tensor,
        one_hot: torch.Tensor,
        u: torch.Tensor | None,
        block: int,
        entropy: bool,
    ) -> Any:
        rows_out = scores.shape[0] if entropy else 0
        log_z, entropies = scores.new_empty(scores.shape[0]), scores.new_empty(rows_out)
        expected, covariance = torch.empty_like(scores), scores.new_empty(rows_out, scores.shape[1])
        drawn = torch.empty(
            0 if u is None else scores.shape[0], dtype=torch.int64, device=scores.device
        )
        for rows, shifted in _word_blocks(scores, one_hot, block):
            top = shifted.amax(1, keepdim=True)
            shifted.sub_(top).clamp_(min=EXP_FLOOR)
            weights = shifted.exp() if entropy else shifted.exp_()  # unnormalised softmax
            if u is None:
                total = weights.sum(1, keepdim=True)
            else:
                cdf = weights.cumsum(1)
                total = cdf[:, -1:]
                drawn[rows] = inverse_cdf(cdf, u[rows])
            torch.mm(weights, one_hot, out=expected[rows]).div_(total)
            log_z[rows] = top.squeeze(1) + total.squeeze(1).log()
            if entropy:
                weights.div_(total)  # the softmax
                mean_shifted = (weights * shifted).sum(1, keepdim=True)  # E[s] - top
                torch.mm(weights.mul_(shifted), one_hot, out=covariance[rows])  # E[(s - top) x]
                covariance[rows] -= mean_shifted * expected[rows]
                entropies[rows] = (total.log() - mean_shifted).squeeze(1)
        ctx.save_for_backward(expected, covariance)
        ctx.entropy = entropy
        ctx.mark_non_differentiable(drawn)
        return log_z, drawn, entropies

    @staticmethod
    def backward(
        ctx: Any, grad_log_z: torch.Tensor, _grad_drawn: Any, grad_entropy: torch.Tensor
    ) -> Any:
        expected, covariance = ctx.saved_tensors
        grad = grad_log_z[:, None] * expected
        if ctx.entropy and grad_entropy is not None:
            grad = grad - grad_entropy[:, None] * covariance
        return grad, None, None, None, None


class WordScorer(nn.Module):
    """Letter-position scores ``(B, 26 L)`` -> word scores ``(B, W)``: each word's letters
    summed."""

    def __init__(self, length: int) -> None:
        super().__init__()
        self.length = length
        self.words: tuple[str, ...] = ()
        # Buffers, not saved with the weights: the (W, 26 L) one-hot of the words, the (W, L)
        # columns of each word's letters, and the (26 L,) mean one-hot row.
        self.register_buffer("one_hot", torch.zeros(0, ALPHABET * length), persistent=False)
        self.register_buffer("cells", torch.zeros(0, length, dtype=torch.int64), persistent=False)
        self.register_buffer("mean_one_hot", torch.zeros(ALPHABET * length), persistent=False)

    def set_words(self, words: Sequence[str]) -> None:
        """Score these words from now on (no-op if they are the current ones)."""
        words = tuple(words)
        if words != self.words:
            # built on the host, moved once
            one_hot, device = letter_position_one_hot(words), self.one_hot.device
            self.one_hot = one_hot.to(device)
            # L ones per row
            self.cells = one_hot.nonzero()[:, 1].view(len(words), self.length).to(device)
            self.mean_one_hot = one_hot.mean(0).to(device)
            self.words = words

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return scores @ self.one_hot.T

    def pick(self, scores: torch.Tensor, words: torch.Tensor) -> torch.Tensor:
        """``forward(scores)[b, words[b]]`` without scoring every word: (B,)."""
        return scores.gather(1, self.cells[words]).sum(1)

    def log_partition(
        self, scores: torch.Tensor, u: torch.Tensor | None, block: int | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logsumexp(forward(scores), 1), draws)``: the softmax's log normaliser (differentiable)
        and one word per row drawn from the softmax with the uniform numbers ``u`` (B,) in [0, 1),
        by :func:`inverse_cdf` as :func:`sample_categorical` (``u`` None: no draws, an empty
        tensor). ``pick(scores, a) - log_partition(...)[0]`` is ``log pi(a)``.

        ``block`` rows are scored at a time (:meth:`_block`)."""
        log_z, drawn, _ = _LogPartition.apply(
            scores, self.one_hot, u, self._block(scores, block), False
        )
        return log_z, drawn

    def log_partition_entropy(
        self, scores: torch.Tensor, u: torch.Tensor | None, block: int | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:meth:`log_partition` and the entropy of the softmax (B,), differentiable, in the same
        blocked pass."""
        return _LogPartition.apply(scores, self.one_hot, u, self._block(scores, block), True)

    @torch.no_grad()
    def best(
        self, scores: torch.Tensor, allowed: torch.Tensor | None = None, block: int | None = None
    ) -> torch.Tensor:
        """``forward(scores).masked_fill(~allowed, -inf).argmax(1)`` (B,), scoring ``block`` rows at
        a time (as :meth:`log_partition`) so that the (B, W) scores are never kept."""
        best = torch.empty(scores.shape[0], dtype=torch.int64, device=scores.device)
        for rows, values in _word_blocks(scores, self.one_hot, self._block(scores, block)):
            if allowed is not None:
                values.masked_fill_(~allowed[rows], -math.inf)
            best[rows] = values.argmax(1)
        return best

    def _block(self, scores: torch.Tensor, block: int | None) -> int:
        """Rows scored at a time: ``block``, or about 2 MB of word scores on a CPU and every row on
        a GPU."""
        if block is None:
            block = (
                len(scores) if scores.device.type != "cpu" else (1 << 19) // max(1, len(self.words))
            )
        return max(1, block)

    def mean(self, scores: torch.Tensor) -> torch.Tensor:
        """``forward(scores).mean(1)`` without scoring every word: (B,)."""
        return scores @ self.mean_one_hot


class WordAgent:
    """A network over the env's "knowledge" observation whose output ends in a :class:`WordScorer`.

    Subclasses set ``kind`` and ``config_class`` and implement ``build_net()`` and
    ``letter_scores()``. The agent plays greedily (masked argmax) through the harness, saves and
    loads checkpoints, and records where its weights came from in :attr:`checkpoint`.
    """

    kind: ClassVar[str]
    config_class: ClassVar[type]
    checkpoint: CheckpointInfo | None
    """The file the weights were loaded from, and what they were trained on (None if not loaded)."""

    def __init__(
        self, config: Any, length: int = 5, device: torch.device | str | None = "cpu"
    ) -> None:
        if (
            isinstance(length, bool)
            or not isinstance(length, int)
            or not MIN_LENGTH <= length <= MAX_LENGTH
        ):
            raise ValueError(
                f"word length must be an integer from {MIN_LENGTH} to {MAX_LENGTH}; got {length!r}"
            )
        self.config, self.length = config, length
        self.device = resolve_device(device)
        self.layout = self.make_layout(config, length)
        # initial weights from config.seed; the caller's RNG is untouched
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(config.seed)
            self.net = self.build_net()
        self.net.to(self.device)
        self.checkpoint = None

    @staticmethod
    def make_layout(config: Any, length: int) -> KnowledgeLayout | MultiKnowledgeLayout:
        """The observation layout the network reads: one board's, or ``config.boards`` boards' (when
        it has them)."""
        boards = getattr(config, "boards", 1)
        if boards == 1:
            return KnowledgeLayout(length, config.max_guesses)
        return MultiKnowledgeLayout(length, config.max_guesses, boards)

    @property
    def boards(self) -> int:
        """Boards per game the network plays."""
        return getattr(self.config, "boards", 1)

    def build_net(self) -> nn.Module:
        """The network (with a ``words`` :class:`WordScorer`), built from ``self.config`` and
        ``self.layout``."""
        raise NotImplementedError

    def letter_scores(self, observations: torch.Tensor) -> torch.Tensor:
        """Letter-position scores ``(B, 26 L)`` for observations ``(B, D)`` on the agent's device: a
        word's letters summed rank it (the agent plays the best allowed word)."""
        raise NotImplementedError

    def scores(self, observations: torch.Tensor) -> torch.Tensor:
        """One score per allowed word: ``(B, W)``, the word sums of :meth:`letter_scores`."""
        return self.net.words(self.letter_scores(observations))

    def use_words(self, words: Sequence[str]) -> None:
        """Point the network's word head at a vocabulary."""
        self.net.words.set_words(words)

    def check_env(self, env: Any) -> None:
        """Refuse an env whose observations this network cannot read."""
        self.check_game(env.config)

    def check_game(self, config: Any) -> None:
        """Refuse a game (a ``WordleConfig``) whose observations this network cannot read: another
        encoding, word length or guess limit."""
        if config.observation != "knowledge":
            raise ValueError(
                f"the {self.kind} agent reads the env's 'knowledge' observation; got "
                f"{config.observation!r}"
            )
        boards = getattr(config, "boards", 1)
        if boards != self.boards:
            plays = "one board" if self.boards == 1 else f"{self.boards} boards"
            raise ValueError(f"the {self.kind} agent plays {plays}; the game has {boards}")
        if (config.vocabulary.length, config.max_guesses) != (
            self.layout.length,
            self.layout.max_guesses,
        ):
            raise ValueError(
                f"the {self.kind} agent was built for {self.layout.length}-letter words and "
                f"{self.layout.max_guesses} guesses; the game has "
                f"{config.vocabulary.length}-letter words and {config.max_guesses} guesses"
            )

    @torch.no_grad()
    def best_words(
        self, observations: torch.Tensor, allowed: torch.Tensor | None = None
    ) -> torch.Tensor:
        """The best-scoring word at each observation (B,), among ``allowed`` (B, W) where given.
        Without ``allowed`` the network scores each distinct observation once: games at one position
        share theirs (a batch of own-policy rollouts holds about half as many distinct ones as
        games)."""
        if allowed is None:
            rows, inverse = torch.unique(observations, dim=0, return_inverse=True)
            if len(rows) < len(observations):
                return self.net.words.best(self.letter_scores(rows))[inverse]
        return self.net.words.best(self.letter_scores(observations), allowed)

    def act(self, observations: torch.Tensor, action_masks: torch.Tensor, env: Any) -> torch.Tensor:
        """Greedy: the best-scoring allowed word of each game."""
        self.check_env(env)
        self.use_words(env.words)
        self.net.eval()
        letters = self.letter_scores(observations.to(self.device))
        return self.net.words.best(letters, bool_mask(action_masks).to(self.device)).to(env.device)

    # ----------------------------------------------------------------------- checkpoints
    def save(self, path: str | Path, extra: dict[str, Any] | None = None) -> None:
        """Weights and config (plus ``extra`` metadata), written atomically; read back with
        :meth:`load`."""
        save_checkpoint(
            path, self.kind, self.config, self.length, self.net.state_dict(), **(extra or {})
        )

    @classmethod
    def load(
        cls,
        path: str | Path,
        device: torch.device | str | None = "cpu",
        data: dict[str, Any] | None = None,
    ) -> WordAgent:
        """An agent from a checkpoint (``data``: its dict, when already read from ``path``); the
        config is validated before any network is built."""
        where = f"checkpoint {quoted(str(path), 200)}"
        # a device this machine lacks is the device's error, not the file's
        device = resolve_device(device)
        if data is None:
            data = read_checkpoint(path, cls.kind)
        elif data.get("kind") != cls.kind:
            raise ValueError(
                f"{where} holds {data.get('kind')!r}, expected an {cls.kind!r} checkpoint"
            )
        config = config_from_dict(cls.config_class, data.get("config"), where)
        if "model" not in data or not isinstance(data["model"], dict):
            raise ValueError(f"{where} holds no model weights")
        length = data.get("length", 5)
        info = CheckpointInfo.of(path, data)  # its word lists checked
        # before the network is built for real
        cls._check_weights(config, length, data["model"], where)
        try:
            agent = cls(config, length, device)
            agent.net.load_state_dict(data["model"])
        except (RuntimeError, ValueError, TypeError) as exc:
            lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
            reason = quoted("; ".join(lines[1:] or lines), 300).strip("'\"")
            raise ValueError(
                f"{where}: the weights do not fit its {cls.kind} config ({reason})"
            ) from None
        agent.checkpoint = info
        return agent

    @classmethod
    def _check_weights(cls, config: Any, length: Any, model: dict[str, Any], where: str) -> None:
        """The file's tensors must be exactly the weights ``config`` declares (names, shapes),
        floating point and finite. The declared network is built on the meta device (nothing
        allocated), so a small file that declares a huge network is refused before it costs
        memory."""
        with torch.device("meta"):
            skeleton = cls.__new__(cls)
            skeleton.config, skeleton.length = config, length
            if (
                isinstance(length, bool)
                or not isinstance(length, int)
                or not MIN_LENGTH <= length <= MAX_LENGTH
            ):
                raise ValueError(
                    f"{where}: word length must be an integer from {MIN_LENGTH} to {MAX_LENGTH}; "
                    f"got {quoted(repr(length))}"
                )
            skeleton.layout = cls.make_layout(config, length)
            declared = skeleton.build_net().state_dict()
        for name, want in declared.items():
            have = model.get(name)
            if not isinstance(have, torch.Tensor):
                raise ValueError(
                    f"{where}: the weights do not fit its {cls.kind} config (no tensor {name!r})"
                )
            if tuple(have.shape) != tuple(want.shape):
                raise ValueError(
                    f"{where}: the weights do not fit its {cls.kind} config ({name!r} has shape "
                    f"{tuple(have.shape)}, the config declares {tuple(want.shape)})"
                )
            if have.is_floating_point() != want.is_floating_point() or have.is_complex():
                raise ValueError(
                    f"{where}: {name!r} holds {str(have.dtype).removeprefix('torch.')} weights; "
                    "expected floating-point numbers"
                )
            if have.is_floating_point() and not bool(torch.isfinite(have).all()):
                raise ValueError(f"{where}: {name!r} holds NaN or infinite weights")
        extra = sorted(set(model) - set(declared))
        if extra:
            raise ValueError(
                f"{where}: the weights do not fit its {cls.kind} config (unexpected "
                f"{quoted(str(extra), 80)})"
            )

    def reward_learned(self) -> str | None:
        """The reward the network learned from, as a bench row names it (None: no reward preset)."""
        reward = getattr(self.config, "reward", None)
        return repr(reward) if reward else None

    @property
    def provenance(self) -> dict[str, Any]:
        """What the weights learned from, where and how long they trained, as their checkpoint
        records it (the harness's optional ``provenance``, shown in a ``wordle-gym bench`` row);
        empty without one."""
        info = self.checkpoint
        if info is None:
            return {}
        reward = self.reward_learned()
        if reward and info.method:
            reward = f"{reward}, then {info.method}"
            if info.method_reward:
                reward += f" on reward {info.method_reward!r}"
        if info.teacher:
            learned = (
                "taught by the exact solver"
                if info.teacher == "optimal"
                else f"teacher: {info.teacher}"
            )
            if info.method:  # improved after it was taught: still imitation first
                learned += f", then {info.method}" + (
                    f" on reward {info.method_reward!r}" if info.method_reward else ""
                )
        else:
            learned = f"reward {reward}" if reward else None
        found = {"learned_from": learned, "machine": info.machine, "training_s": info.training_s}
        return {key: value for key, value in found.items() if value}
