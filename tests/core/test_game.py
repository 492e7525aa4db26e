"""The batched engine's helpers, against their plain definitions (the engine itself is held to the reference
rules and to the single-game engine in tests/envs)."""

from __future__ import annotations

import torch

from wordle_gym.core.game import write_turn


def test_write_turn__equals_a_select_over_every_turn_and_leaves_the_old_history() -> None:
    gen = torch.Generator().manual_seed(0)
    n, t, length = 500, 6, 5
    for values_shape, dtype in (((n,), torch.int64), ((n, length), torch.uint8)):
        history = torch.randint(0, 9, (n, t, *values_shape[1:]), generator=gen).to(dtype)
        before = history.clone()
        turn = torch.randint(0, t + 1, (n,), generator=gen)  # t: a finished game, past its last row
        active = (torch.rand(n, generator=gen) < 0.7) & (turn < t)
        values = torch.randint(0, 9, values_shape, generator=gen).to(dtype)
        row = (turn[:, None] == torch.arange(t)) & active[:, None]  # (N, T): the plain definition
        want = torch.where(row.view(n, t, *[1] * (len(values_shape) - 1)), values.unsqueeze(1), history)
        got = write_turn(history, turn, active, values)
        assert torch.equal(got, want) and got.dtype == dtype
        assert torch.equal(history, before)  # a new tensor: a reference to the old history reads the old one
        assert not torch.equal(got, history)  # (the comparison can fail: something was written)
