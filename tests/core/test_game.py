"""The batched engine's helpers, against their plain definitions (the engine itself is held to the
reference rules and to the single-game engine in tests/envs)."""

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
        want = torch.where(
            row.view(n, t, *[1] * (len(values_shape) - 1)), values.unsqueeze(1), history
        )
        got = write_turn(history, turn, active, values)
        assert torch.equal(got, want) and got.dtype == dtype
        # a new tensor: a reference to the old history reads the old one
        assert torch.equal(history, before)
        assert not torch.equal(got, history)  # (the comparison can fail: something was written)


def test_make_game__the_compiled_copy_on_a_cpu_with_numba_the_reference_elsewhere(
    monkeypatch,
) -> None:
    """``Game`` is the rules in torch; ``make_game`` picks its compiled copy only on a CPU where
    numba imports."""
    import pytest

    from wordle_gym.core import _kernels
    from wordle_gym.core.compiled import CompiledGame
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.core.engines import make_game
    from wordle_gym.core.game import Game

    config = WordleConfig(action_mask="candidates")
    assert type(make_game(config, torch.device("meta"))) is Game
    reference = Game(config, torch.device("cpu"))
    assert not reference.compiled and not reference.compiled_rows(10**9)
    if _kernels.available():
        game = make_game(config, torch.device("cpu"))
        assert (
            type(game) is CompiledGame and game.compiled and game.compiled_rows(game.compiled_from)
        )
    monkeypatch.setattr(_kernels, "available", lambda: False)
    assert type(make_game(config, torch.device("cpu"))) is Game
    with pytest.raises(ValueError, match="CompiledGame runs on a CPU with numba; got device cpu"):
        CompiledGame(config, torch.device("cpu"))


def test_game_state_row__one_game_copied_that_steps_as_it_did_in_the_batch() -> None:
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.core.game import Game

    game = Game(WordleConfig(action_mask="candidates"), torch.device("cpu"))
    state = game.new_state(3)
    game.reset(state, None, torch.tensor([5, 17, 40]))
    actions = torch.tensor([100, 200, 300])
    one = state.row(1)
    game.step(state, actions, torch.ones(3, dtype=torch.bool))
    game.step(one, actions[1:2], torch.ones(1, dtype=torch.bool))
    for name, value in vars(one).items():
        assert torch.equal(value, getattr(state, name)[1:2]), name
    assert one.guesses.data_ptr() != state.guesses.data_ptr()  # a copy, not a view of the batch
