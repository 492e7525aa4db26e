"""The training hot loops never wait on the device: no host synchronisation per turn or per step;
and the env, an A2C update, a DQN update and greedy play run on the "meta" device (CUDA-ready by
test).

On a GPU, ``.item()``, ``bool(tensor)``, ``.tolist()`` and friends stall the Python thread until the
device has caught up, once per call. A CPU has no such stall, so on a CPU the test catches the calls
themselves: every way of turning a tensor into a Python value raises while a turn or a step runs. On
CUDA, ``torch.cuda.set_sync_debug_mode("error")`` checks the same from the device side.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
import torch

from wordle_agents.rl.a2c import A2CAgent, A2CConfig, A2CTrainer
from wordle_agents.rl.dqn import DQNAgent, DQNConfig, DQNTrainer
from wordle_gym.core.words import stage_words

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
    for read in (
        lambda: bool(x.any()),
        lambda: x.sum().item(),
        lambda: x.tolist(),
        lambda: float(x[0]),
    ):
        with pytest.raises(HostSync), no_host_sync("cpu"):
            read()
    assert bool(x.any())  # restored afterwards


@pytest.mark.parametrize("device", DEVICES)
def test_dqn_step__no_host_sync(device: str) -> None:
    answers, allowed = stage_words("40")
    config = DQNConfig(
        num_games=32,
        hidden=64,
        layers=2,
        batch_size=64,
        buffer_size=2_000,
        learning_starts=64,
        target_update=3,
        total_updates=100,
    )
    trainer = DQNTrainer(DQNAgent(config, device=device), answers, allowed)
    for _ in range(3):  # warm: the buffer fills, Adam creates its state
        trainer.step()
    steps = _optimizer_steps(trainer.optimizer)
    with no_host_sync(device, steps):
        for _ in range(20):  # games end, answers are re-weighted, the target network is copied
            stats = trainer.step()
    assert trainer.iteration > 3 and set(stats) >= {"loss", "epsilon"}
    # lost games were re-weighted in the guarded steps
    assert float(trainer.answer_weights.max()) > 1.0


@pytest.mark.parametrize("device", DEVICES)
def test_a2c_turns__no_host_sync(device: str) -> None:
    answers, allowed = stage_words("40")
    config = A2CConfig(hidden=64, batch_games=64, seed=0)
    trainer = A2CTrainer(A2CAgent(config, device=device), answers, allowed)
    trainer.step()
    # once per update, on the host: the FIFO of recent losses
    answers, queued = trainer.draw_answers()
    obs, _ = trainer.env.reset(options={"answers": answers})
    with no_host_sync(device, _optimizer_steps(trainer.optimizer)):
        batch = trainer.rollout(obs, answers, queued)
        loss, wins, guesses = trainer.update(trainer.loss(batch)), batch.wins, batch.guesses
    assert trainer.iteration == 2 and loss.isfinite() and wins.shape == guesses.shape == (64,)


# ----------------------------------------------------------------- CUDA-ready without a GPU: "meta"
# A meta tensor has a shape and a device but no values: torch refuses to mix it with a CPU tensor
# and to read it back to Python. Every step below that makes a tensor on the wrong device, or reads
# a value in the loop, fails here as it would fail (or stall) on a GPU.


@pytest.fixture
def meta(monkeypatch: pytest.MonkeyPatch) -> str:
    import wordle_gym.utils.device

    monkeypatch.setattr(wordle_gym.utils.device, "DEVICE_TYPES", ("cpu", "cuda", "meta"))
    return "meta"


def test_meta__the_guard_catches_a_cpu_tensor_and_a_host_read(meta: str) -> None:
    x = torch.ones(3, device=meta)
    with pytest.raises(RuntimeError, match="not on the expected device"):
        _ = x + torch.ones(3)
    with pytest.raises((RuntimeError, NotImplementedError)):
        bool(x.any())


@pytest.mark.parametrize("mask", ["all", "candidates", "hard"])
@pytest.mark.parametrize("autoreset", ["next_step", "same_step", "disabled"])
def test_meta__vector_env_resets_and_steps(meta: str, mask: str, autoreset: str) -> None:
    from wordle_gym.envs.vector import WordleVectorEnv

    answers, allowed = stage_words("40")
    env = WordleVectorEnv(
        16,
        device=meta,
        answers=answers,
        allowed=allowed,
        action_mask=mask,
        hard_mode=mask == "hard",
        autoreset_mode=autoreset,
        check_actions=False,
    )
    obs, infos = env.reset(seed=0)
    for _ in range(7):  # past the guess limit: games end and restart
        actions = torch.zeros(16, dtype=torch.int64, device=meta)
        obs, rewards, terminated, truncated, infos = env.step(actions)
    tensors = [
        obs,
        rewards,
        terminated,
        truncated,
        *(v for v in infos.values() if isinstance(v, torch.Tensor)),
    ]
    assert all(t.device.type == meta for t in tensors) and obs.shape == (
        16,
        env.observation.layout.size,
    )
    env.reset(options={"reset_mask": terminated})


def test_meta__an_a2c_update(meta: str) -> None:
    answers, allowed = stage_words("40")
    trainer = A2CTrainer(
        A2CAgent(A2CConfig(hidden=32, batch_games=16), device=meta), answers, allowed
    )
    drawn, queued = trainer.draw_answers()  # the FIFO of recent losses lives on the host, by design
    obs, _ = trainer.env.reset(options={"answers": drawn})
    loss = trainer.update(trainer.loss(trainer.rollout(obs, drawn, queued)))
    assert loss.device.type == meta and trainer.iteration == 1
    assert all(p.device.type == meta for p in trainer.agent.net.parameters())


def test_meta__dqn_updates_with_prioritized_replay(meta: str) -> None:
    answers, allowed = stage_words("40")
    config = DQNConfig(
        num_games=32,
        hidden=64,
        layers=2,
        batch_size=64,
        buffer_size=2_000,
        learning_starts=64,
        target_update=3,
        total_updates=100,
        prioritized=True,
    )
    trainer = DQNTrainer(DQNAgent(config, device=meta), answers, allowed)
    for _ in range(6):  # the buffer fills, updates start, the target network is copied
        stats = trainer.step()
    assert trainer.updates > 0 and stats["loss"].device.type == meta


def test_meta__greedy_act_of_each_trained_agent_and_the_random_floor(meta: str) -> None:
    from wordle_agents.solvers.baselines import RandomPolicy
    from wordle_gym.envs.vector import WordleVectorEnv

    answers, allowed = stage_words("40")
    env = WordleVectorEnv(8, device=meta, answers=answers, allowed=allowed, check_actions=False)
    obs, infos = env.reset(seed=0)
    agents = [
        A2CAgent(A2CConfig(hidden=32), device=meta),
        DQNAgent(DQNConfig(hidden=32, layers=1), device=meta),
        RandomPolicy(),
    ]
    for agent in agents:
        actions = agent.act(obs, infos["action_mask"].bool(), env)
        assert actions.device.type == meta and actions.shape == (8,), type(agent).__name__
