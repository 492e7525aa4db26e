"""Small file helpers: results and checkpoints are written atomically (never half a file)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import torch


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and an atomic rename."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_json(path: str | os.PathLike[str], data: Any) -> None:
    """JSON version of :func:`atomic_write_text` (indented, trailing newline)."""
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def atomic_torch_save(path: str | os.PathLike[str], data: Any) -> None:
    """``torch.save`` to a temporary file in the same folder, then an atomic rename: a crash
    never leaves a half-written checkpoint."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        torch.save(data, tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
