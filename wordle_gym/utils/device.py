"""The devices the envs and agents run on, resolved once."""

from __future__ import annotations

import torch

DEVICE_TYPES = ("cpu", "cuda")
"""The devices the envs and agents run on (the tests add "meta" to check that no tensor is made on
the wrong device and that no hot loop reads a value back to the host, without a GPU)."""


def resolve_device(device: torch.device | str | None) -> torch.device:
    """``"auto"`` or None -> cuda when available, else cpu; anything else as torch understands
    it."""
    if device is None or device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    expected = "expected 'cpu', 'cuda', 'cuda:N' or 'auto'"
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise ValueError(f"unknown device {device!r}; {expected}") from None
    if resolved.type not in DEVICE_TYPES:
        raise ValueError(f"device {device!r} is not supported; {expected}")
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device {device!r} was asked for but CUDA is not available; use 'cpu' or 'auto'"
        )
    if (
        resolved.type == "cuda"
        and resolved.index is not None
        and resolved.index >= torch.cuda.device_count()
    ):
        count = torch.cuda.device_count()
        raise ValueError(
            f"device {device!r} does not exist; this machine has {count} CUDA device(s)"
        )
    return resolved


def device_generator(device: torch.device) -> torch.Generator:
    """A random-number generator for draws on ``device`` (the "meta" device of the tests has none of
    its own and takes a CPU one: its tensors hold no values)."""
    return torch.Generator(device="cpu" if device.type == "meta" else device)
