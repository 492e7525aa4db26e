"""Checks shared by the trainers' tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch


def assert_resumes_exactly(make: Callable[[], Any], folder: Path) -> None:
    """Four updates straight, and two, saved, loaded into a new trainer (the global RNG moved) and
    two more, end with the same weights and the same recent-losses FIFO."""
    straight = make()
    for _ in range(4):
        straight.step()
    first = make()
    for _ in range(2):
        first.step()
    torch.save(first.state_dict(), folder / "state.pt")
    torch.manual_seed(999)  # a new process: the global RNG is elsewhere
    resumed = make()
    resumed.load_state_dict(torch.load(folder / "state.pt", weights_only=True))
    assert resumed.iteration == 2
    for _ in range(2):
        resumed.step()
    assert resumed.iteration == 4 and list(resumed.queue) == list(straight.queue)
    for a, b in zip(straight.agent.net.parameters(), resumed.agent.net.parameters(), strict=True):
        assert torch.equal(a, b)
