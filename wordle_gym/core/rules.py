"""THE game rules: tile feedback, base-3 pattern ids and the pattern table.

Everything here is pure, batched torch and works on any device. The single env, the
vector env, the observation encoder and the solvers all call :func:`feedback`; nothing
else in the package computes colours.

Tiles are uint8: ``GREY = 0``, ``YELLOW = 1``, ``GREEN = 2``. A pattern id reads the
tiles left to right as base-3 digits, so the tiles ``2 1 0 0 2`` have id
``int("21002", 3) == 191``; all-green is ``3**L - 1``.

Repeated letters (the spec): greens are taken first; then, left to right, a non-green
guess letter is yellow while the answer still has copies of that letter that are neither
green nor already claimed by an earlier yellow, and grey after that.
"""

from __future__ import annotations

import re
from functools import lru_cache

import torch

from wordle_gym.core.patterns import (
    ALPHABET,
    GREEN,
    GREY,
    YELLOW,
    feedback_one,
    id_dtype,
    num_patterns,
)
from wordle_gym.utils.files import quoted

# the constants and the plain Python copy live in patterns (no torch there)
__all__ = [
    "ALPHABET",
    "GREEN",
    "GREY",
    "YELLOW",
    "build_pattern_table",
    "feedback",
    "feedback_one",
    "num_patterns",
    "parse_tiles",
    "pattern_dtype",
    "pattern_ids",
    "tiles_from_ids",
    "tiles_string",
]

_TILE_LETTERS = {
    **dict.fromkeys("b.-x0", GREY),
    **dict.fromkeys("y1", YELLOW),
    **dict.fromkeys("g2", GREEN),
}
_TILE_STRING = re.compile(r"^[bgyx.\-012]+$")


def feedback(guesses: torch.Tensor, answers: torch.Tensor) -> torch.Tensor:
    """Colour every tile of ``guesses`` against ``answers``.

    Args:
        guesses: letter codes ``(..., L)``, integer dtype (uint8 from
            :func:`wordle_gym.core.words.encode`).
        answers: letter codes ``(..., L)``; the leading dims broadcast against ``guesses``.

    Returns:
        uint8 tiles ``(*broadcast, L)``: 0 grey, 1 yellow, 2 green.

    How: tile ``i`` is yellow iff it is not green and the answer holds more copies of
    ``g[i]`` than are needed by (a) the ``rank[i]`` earlier copies of ``g[i]`` in the guess
    and (b) the green copies of ``g[i]`` later in the guess. (Earlier green copies are in
    both the answer's count and the rank, so they cancel.) Only (a) and (b) involve pairs of
    positions, and (a) depends on the guess alone, so the cost per pair is O(L) plus a
    small O(L^2) loop of cheap boolean ops. Small batches, where the number of torch calls
    is what costs, use the same rule in fewer, (L, L)-shaped ops (:func:`_needs_small`).
    """
    if guesses.shape[-1] != answers.shape[-1]:
        raise ValueError(
            f"guesses have {guesses.shape[-1]} letters but answers have {answers.shape[-1]}; "
            "expected equal lengths"
        )
    if guesses.is_floating_point() or answers.is_floating_point():
        raise TypeError(f"letter codes must be integers; got {guesses.dtype} and {answers.dtype}")
    g = guesses.to(torch.uint8)
    a = answers.to(torch.uint8)
    green = g == a  # (*batch, L)
    if green.numel() <= _SMALL_BATCH:
        return _tiles(green, *_needs_small(g, a, green))
    return _tiles(green, *_needs_large(g, a, green))


# Below this many tiles, a few (L, L)-shaped ops beat the O(L^2) loop of tiny ops (measured).
_SMALL_BATCH = 1 << 14


def _tiles(green: torch.Tensor, have: torch.Tensor, need: torch.Tensor) -> torch.Tensor:
    """Green where ``green``, else yellow where ``have > need``, else grey (uint8).
    ``(have, need)``:
    :func:`_needs_small`'s (spare, used) or :func:`_needs_large`'s (in_answer, needed)."""
    return torch.where(green, GREEN, (have > need).to(torch.uint8))


def _needs_small(
    g: torch.Tensor, a: torch.Tensor, green: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(spare, used) with (L, L)-shaped ops, few calls and L^2 work per pair: ``spare[i]``, the
    answer's copies of ``g[i]`` not matched green; ``used[i]``, the guess's earlier non-green
    copies of ``g[i]`` (each took a spare copy while one was left, so ``g[i]`` is yellow iff
    ``spare[i] > used[i]``)."""
    letter = g[..., :, None]  # (.., L, 1)
    open_ = ~green[..., None, :]  # (.., 1, L): position j is not green
    spare = ((letter == a[..., None, :]) & open_).sum(-1, dtype=torch.uint8)
    used = ((letter == g[..., None, :]) & open_ & _before(g.shape[-1], g.device)).sum(
        -1, dtype=torch.uint8
    )
    return spare, used


@lru_cache(maxsize=32)
def _before(length: int, device: torch.device) -> torch.Tensor:
    """(L, L) bool: ``[i, j]`` is True where j < i."""
    return torch.ones(length, length, dtype=torch.bool, device=device).tril(-1)


def _needs_large(
    g: torch.Tensor, a: torch.Tensor, green: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(in_answer, needed) with O(L) work per pair: letter counts gathered through expanded
    (stride-0) views, and a loop over position pairs whose letter tests are guess-shaped."""
    length, batch = g.shape[-1], green.shape[:-1]
    counts = torch.zeros((*a.shape[:-1], ALPHABET), dtype=torch.uint8, device=a.device)
    counts.scatter_add_(-1, a.long(), torch.ones_like(a))
    in_answer = torch.gather(counts.expand(*batch, ALPHABET), -1, g.long().expand(*batch, length))
    pairs = [(i, j) for i in range(length - 1) for j in range(i + 1, length)]
    same = {(i, j): g[..., i] == g[..., j] for i, j in pairs}
    rank = torch.zeros_like(g)
    for i, j in pairs:
        rank[..., j] += same[i, j]
    needed = rank.expand(*batch, length).clone()
    for i, j in pairs:
        needed[..., i] += same[i, j] & green[..., j]
    return in_answer, needed


def pattern_dtype(length: int) -> torch.dtype:
    """The smallest dtype that holds every pattern id: uint8 up to 5 letters, else int32
    (``patterns.id_dtype``)."""
    return getattr(torch, id_dtype(length).name)


def pattern_ids(tiles: torch.Tensor) -> torch.Tensor:
    """Base-3 id of tiles ``(..., L)``, first tile most significant, dtype :func:`pattern_dtype`."""
    dtype = pattern_dtype(tiles.shape[-1])
    ids = tiles[..., 0].to(dtype)
    for i in range(1, tiles.shape[-1]):
        ids = ids * 3 + tiles[..., i].to(dtype)  # Horner: stays below 3**L, no overflow
    return ids


def tiles_from_ids(ids: torch.Tensor, length: int) -> torch.Tensor:
    """Inverse of :func:`pattern_ids`: uint8 tiles ``(..., length)``."""
    rest = ids.long()
    out = torch.empty((*ids.shape, length), dtype=torch.uint8, device=ids.device)
    for i in range(length - 1, -1, -1):
        out[..., i] = rest % 3
        rest = rest // 3
    return out


def parse_tiles(text: str, length: int | None = None) -> tuple[int, ...]:
    """Parse feedback typed by a person: ``"gy..g"``, ``"GYBBG"``, ``"21002"``, ``"gyxxg"``.

    Letters: ``g`` green, ``y`` yellow, ``b``/``x``/``.``/``-`` grey; digits 2/1/0.

    Raises:
        ValueError: naming the text if it has other characters or the wrong length.
    """
    cleaned = text.strip().lower().replace(" ", "")
    shown = quoted(text)
    if not cleaned or not _TILE_STRING.match(cleaned):
        raise ValueError(
            f"feedback {shown} is malformed; expected one tile per letter as g/y/b (or . - x for "
            "grey) or digits 2/1/0, e.g. 'gy..g' or '21002'"
        )
    if length is not None and len(cleaned) != length:
        raise ValueError(f"feedback {shown} has {len(cleaned)} tiles; expected {length}")
    return tuple(_TILE_LETTERS[ch] for ch in cleaned)


def tiles_string(tiles: torch.Tensor | tuple[int, ...] | list[int]) -> str:
    """Tiles as digits, e.g. ``"21002"`` (the inverse of :func:`parse_tiles`)."""
    values = tiles.tolist() if isinstance(tiles, torch.Tensor) else list(tiles)
    return "".join(str(int(t)) for t in values)


def build_pattern_table(
    guesses: torch.Tensor, answers: torch.Tensor, chunk_pairs: int | None = None
) -> torch.Tensor:
    """Pattern id of every guess against every answer: ``(len(guesses), len(answers))``.

    Built by :func:`feedback` on blocks of guesses of about ``chunk_pairs`` pairs each, so
    the working set stays in cache on a CPU (2**18 pairs measured fastest on 2 cores) and
    bounded on a GPU (2**24). Device: that of ``answers``.
    """
    if guesses.ndim != 2 or answers.ndim != 2:
        raise ValueError(
            f"expected 2-D letter codes; got shapes {tuple(guesses.shape)} and "
            f"{tuple(answers.shape)}"
        )
    device = answers.device
    guesses = guesses.to(device)
    num_guesses, num_answers = guesses.shape[0], answers.shape[0]
    table = torch.empty(
        (num_guesses, num_answers), dtype=pattern_dtype(answers.shape[1]), device=device
    )
    if chunk_pairs is None:
        chunk_pairs = 1 << 24 if device.type == "cuda" else 1 << 18
    step = max(1, chunk_pairs // max(1, num_answers))
    for start in range(0, num_guesses, step):
        block = guesses[start : start + step]
        table[start : start + step] = pattern_ids(feedback(block[:, None, :], answers[None, :, :]))
    return table
