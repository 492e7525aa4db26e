"""Rendering a game: ``ansi`` text (coloured, and readable without colour), ``rgb_array`` images.

Text tiles: ``[A]`` green, ``(A)`` yellow, `` a `` grey, `` _ `` not played yet. Colour
codes are added when stdout is a terminal (``FORCE_COLOR`` forces them, ``NO_COLOR`` turns them
off, ``color=`` decides outright).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from wordle_gym.core.game import NO_TILE, Game, GameState
from wordle_gym.core.rules import GREEN, YELLOW

RENDER_MODES = ("ansi", "human", "rgb_array")


def check_render_mode(render_mode: str | None) -> str | None:
    """``render_mode`` itself if it is one of :data:`RENDER_MODES` or None; else a ValueError."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(
            f"unknown render_mode {render_mode!r}; expected one of {RENDER_MODES} or None"
        )
    return render_mode


_ANSI = {GREEN: "\x1b[1;97;42m", YELLOW: "\x1b[1;30;43m", 0: "\x1b[97;100m"}
_RESET = "\x1b[0m"

# 5x7 glyphs, one 5-bit row each, for A..Z (so rgb_array needs no font library).
_FONT = [
    (14, 17, 17, 31, 17, 17, 17),
    (30, 17, 17, 30, 17, 17, 30),
    (14, 17, 16, 16, 16, 17, 14),
    (30, 17, 17, 17, 17, 17, 30),
    (31, 16, 16, 30, 16, 16, 31),
    (31, 16, 16, 30, 16, 16, 16),
    (14, 17, 16, 23, 17, 17, 15),
    (17, 17, 17, 31, 17, 17, 17),
    (14, 4, 4, 4, 4, 4, 14),
    (7, 2, 2, 2, 2, 18, 12),
    (17, 18, 20, 24, 20, 18, 17),
    (16, 16, 16, 16, 16, 16, 31),
    (17, 27, 21, 21, 17, 17, 17),
    (17, 17, 25, 21, 19, 17, 17),
    (14, 17, 17, 17, 17, 17, 14),
    (30, 17, 17, 30, 16, 16, 16),
    (14, 17, 17, 17, 21, 18, 13),
    (30, 17, 17, 30, 20, 18, 17),
    (15, 16, 16, 14, 1, 1, 30),
    (31, 4, 4, 4, 4, 4, 4),
    (17, 17, 17, 17, 17, 17, 14),
    (17, 17, 17, 17, 17, 10, 4),
    (17, 17, 17, 21, 21, 21, 10),
    (17, 17, 10, 4, 10, 17, 17),
    (17, 17, 17, 10, 4, 4, 4),
    (31, 1, 2, 4, 8, 16, 31),
]
_GLYPHS = np.array(
    [[[(row >> (4 - x)) & 1 for x in range(5)] for row in g] for g in _FONT], dtype=bool
)
_RGB = {GREEN: (106, 170, 100), YELLOW: (201, 180, 88), 0: (120, 124, 126)}
_EMPTY, _BORDER, _INK = (255, 255, 255), (211, 214, 218), (26, 26, 27)


@dataclass(frozen=True)
class Row:
    """One turn of one game, ready to draw."""

    word: str | None  # None: not played yet
    tiles: tuple[int, ...] | None  # None: not played, or refused
    invalid: bool = False  # a refused hard-mode guess


def game_rows(game: Game, state: GameState, index: int) -> list[Row]:
    """The ``max_guesses`` rows of game ``index``."""
    guesses = state.guesses[index].tolist()
    tiles = state.tiles[index].tolist()
    rows = []
    for action, row in zip(guesses, tiles, strict=True):
        if action < 0:
            rows.append(Row(None, None))
        elif row[0] == NO_TILE:
            rows.append(Row(game.vocabulary.allowed[action], None, invalid=True))
        else:
            rows.append(Row(game.vocabulary.allowed[action], tuple(row)))
    return rows


def _use_color(color: bool | None, stream: Any = None) -> bool:
    """Colour codes: as asked, else when ``FORCE_COLOR`` is set, else never with ``NO_COLOR``, else
    only when the output stream (stdout by default) is a terminal."""
    if color is not None:
        return color
    if os.environ.get("FORCE_COLOR"):
        return True
    if "NO_COLOR" in os.environ:
        return False
    stream = sys.stdout if stream is None else stream
    return bool(getattr(stream, "isatty", lambda: False)())


def ansi_row(word: str, tiles: tuple[int, ...] | list[int], color: bool | None = None) -> str:
    """One scored guess as text tiles."""
    paint = _use_color(color)
    cells = []
    for letter, tile in zip(word, tiles, strict=True):
        text = (
            f"[{letter.upper()}]"
            if tile == GREEN
            else f"({letter.upper()})"
            if tile == YELLOW
            else f" {letter} "
        )
        cells.append(f"{_ANSI[tile]}{text}{_RESET}" if paint else text)
    return "".join(cells)


def render_ansi(rows: list[Row], length: int, color: bool | None = None) -> str:
    """A whole board as text, one line per turn."""
    lines = []
    for row in rows:
        if row.word is None:
            lines.append(" _ " * length)
        elif row.tiles is None:
            lines.append(" ? " * length + f"  {row.word} refused (hard mode)")
        else:
            lines.append(ansi_row(row.word, row.tiles, color))
    return "\n".join(lines) + "\n"


def render_rgb(rows: list[Row], length: int, tile: int = 40, gap: int = 4) -> np.ndarray:
    """A whole board as an RGB image, uint8 ``(H, W, 3)``."""
    scale = max(1, (tile - 12) // 7)
    height, width = len(rows) * (tile + gap) + gap, length * (tile + gap) + gap
    image = np.full((height, width, 3), 255, dtype=np.uint8)
    for r, row in enumerate(rows):
        for c in range(length):
            y, x = gap + r * (tile + gap), gap + c * (tile + gap)
            if row.tiles is None:
                image[y : y + tile, x : x + tile] = _BORDER
                image[y + 2 : y + tile - 2, x + 2 : x + tile - 2] = _EMPTY
                ink = _INK
            else:
                image[y : y + tile, x : x + tile] = _RGB[row.tiles[c]]
                ink = (255, 255, 255)
            if row.word is not None:
                glyph = _GLYPHS[ord(row.word[c]) - ord("a")].repeat(scale, 0).repeat(scale, 1)
                gy, gx = y + (tile - glyph.shape[0]) // 2, x + (tile - glyph.shape[1]) // 2
                image[gy : gy + glyph.shape[0], gx : gx + glyph.shape[1]][glyph] = ink
    return image
