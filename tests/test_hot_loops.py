"""The training hot loops never wait on the device: no host synchronisation per turn or per step.

On a GPU, ``.item()``, ``bool(tensor)``, ``.tolist()`` and friends stall the Python thread until
the device has caught up, once per call. A CPU has no such stall, so on a CPU the test catches
the calls themselves: every way of turning a tensor into a Python value raises while a turn or a
step runs. On CUDA, ``torch.cuda.set_sync_debug_mode("error")`` checks the same from the device side.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
import torch

from wordle_agents.a2c import A2CAgent, A2CConfig, A2CTrainer
from wordle_agents.dqn import DQNAgent, DQNConfig, DQNTrainer
from wordle_gym.words import stage_words

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)]
TO_PYTHON = ("__bool__", "__float__", "__int__", "__index__", "item", "tolist", "numpy", "cpu")


class HostSync(AssertionError):
    pass


@contextlib.contextmanager
def no_host_sync(device: str, exempt: set[int] = frozenset()) -> Iterator[None]:
    """Raise on any tensor -> Python conversion (CPU) or any synchronising op (CUDA) inside.

    ``exempt``: ids of tensors that may be read (the optimizer's CPU step counters: Adam reads
    them on the host by design, with no device involved)."""
    if device == "cuda":
        torch.cuda.set_sync_debug_mode("error")
        try:
            yield
        finally:
            torch.cuda.set_sync_debug_mode("default")
        return
    originals = {name: getattr(torch.Tensor, name) for name in TO_PYTHON}

    def guard(name: str):
        def raising(self, *args, **kwargs):
            if id(self) in exempt:
                return originals[name](self, *args, **kwargs)
            raise HostSync(f"Tensor.{name} called in the hot loop")

        return raising

    for name in TO_PYTHON:
        setattr(torch.Tensor, name, guard(name))
    try:
        yield
    finally:
        for name, method in originals.items():
            setattr(torch.Tensor, name, method)


def _optimizer_steps(optimizer: torch.optim.Optimizer) -> set[int]:
    return {id(state["step"]) for state in optimizer.state.values() if "step" in state}


def test_guard__catches_what_it_is_meant_to_catch() -> None:
    x = torch.ones(3)
    for read in (lambda: bool(x.any()), lambda: x.sum().item(), lambda: x.tolist(), lambda: float(x[0])):
        with pytest.raises(HostSync), no_host_sync("cpu"):
            read()
    assert bool(x.any())  # restored afterwards


@pytest.mark.parametrize("device", DEVICES)
def test_dqn_step__no_host_sync(device: str) -> None:
    answers, allowed = stage_words("40")
    config = DQNConfig(num_games=32, hidden=64, layers=2, batch_size=64, buffer_size=2_000, learning_starts=64,
                       target_update=3, total_updates=100)  # fmt: skip
    trainer = DQNTrainer(DQNAgent(config, device=device), answers, allowed)
    for _ in range(3):  # warm: the buffer fills, Adam creates its state
        trainer.step()
    steps = _optimizer_steps(trainer.optimizer)
    with no_host_sync(device, steps):
        for _ in range(20):  # games end, answers are re-weighted, the target network is copied
            stats = trainer.step()
    assert trainer.iteration > 3 and set(stats) >= {"loss", "epsilon"}
    assert float(trainer.answer_weights.max()) > 1.0  # lost games were re-weighted in the guarded steps


@pytest.mark.parametrize("device", DEVICES)
def test_a2c_turns__no_host_sync(device: str) -> None:
    answers, allowed = stage_words("40")
    config = A2CConfig(hidden=64, batch_games=64, seed=0)
    trainer = A2CTrainer(A2CAgent(config, device=device), answers, allowed)
    trainer.step()
    answers, queued = trainer._draw_answers()  # once per update, on the host: the FIFO of recent losses
    obs, _ = trainer.env.reset(options={"answers": answers})
    with no_host_sync(device, _optimizer_steps(trainer.optimizer)):
        batch = trainer.rollout(obs, answers, queued)
        loss, wins, guesses = trainer.update(trainer.loss(batch)), batch.wins, batch.guesses
    assert trainer.iteration == 2 and loss.isfinite() and wins.shape == guesses.shape == (64,)
