"""Replay buffers: the sum tree samples in proportion to p^alpha, updates, wrap-around, weights."""

from __future__ import annotations

import pytest
import torch

from wordle_agents.rl.replay import PrioritizedReplay, UniformReplay


def fill(buffer: UniformReplay, n: int, start: int = 0) -> torch.Tensor:
    obs = torch.arange(start, start + n).view(n, 1).to(torch.int8)
    return buffer.add(
        obs, torch.arange(start, start + n), torch.zeros(n), obs, torch.zeros(n, dtype=torch.bool)
    )


def frequencies(buffer: PrioritizedReplay, draws: int = 400, batch: int = 500) -> torch.Tensor:
    generator = torch.Generator().manual_seed(0)
    counts = torch.zeros(len(buffer))
    for _ in range(draws):
        counts += torch.bincount(buffer.sample(batch, generator).indices, minlength=len(buffer))
    return counts / counts.sum()


# deep trees, an odd one, and one level
BRANCHING = pytest.mark.parametrize("branching", [2, 3, 32])


@BRANCHING
def test_sum_tree__sampling_frequencies_match_p_alpha(branching: int) -> None:
    buffer = PrioritizedReplay(16, (1,), alpha=0.7, branching=branching)
    fill(buffer, 11)
    priorities = torch.tensor([1.0, 4, 9, 16, 0.5, 25, 36, 2, 3, 7, 11])
    buffer.update_priorities(torch.arange(11), priorities)
    expected = (priorities + buffer.eps) ** 0.7
    expected /= expected.sum()
    # 200,000 stratified draws: each frequency within 0.005 of p^alpha / sum(p^alpha).
    assert torch.allclose(frequencies(buffer), expected.float(), atol=0.005)
    assert buffer.total == pytest.approx(float(((priorities + buffer.eps) ** 0.7).sum()))


@BRANCHING
def test_sum_tree__updates_change_the_frequencies(branching: int) -> None:
    buffer = PrioritizedReplay(8, (1,), alpha=1.0, branching=branching)
    fill(buffer, 8)
    buffer.update_priorities(torch.arange(8), torch.ones(8))
    assert torch.allclose(frequencies(buffer), torch.full((8,), 1 / 8), atol=0.005)
    # the last 3 wins
    buffer.update_priorities(torch.tensor([3, 3, 5]), torch.tensor([100.0, 7.0, 3.0]))
    expected = torch.ones(8)
    expected[3], expected[5] = 7.0, 3.0
    assert torch.allclose(frequencies(buffer), expected / expected.sum(), atol=0.005)


@BRANCHING
def test_sum_tree__new_items_get_the_max_priority_and_wraparound_keeps_totals(
    branching: int,
) -> None:
    buffer = PrioritizedReplay(10, (1,), alpha=0.5, branching=branching)
    slots = fill(buffer, 6)
    buffer.update_priorities(slots, torch.tensor([1.0, 2, 3, 4, 5, 6]) ** 2)
    fill(buffer, 7, start=6)  # wraps: slots 6..9 then 0..2
    assert len(buffer) == 10 and buffer.position == 3
    assert buffer.observations.flatten().tolist() == [10, 11, 12, 3, 4, 5, 6, 7, 8, 9]
    leaves = buffer.priorities_alpha()
    max_priority = 36.0 + buffer.eps
    expected = (
        torch.tensor([max_priority] * 3 + [16, 25, 36] + [max_priority] * 4, dtype=torch.float64)
        + 0
    )
    expected[3:6] += buffer.eps
    assert torch.allclose(leaves, expected**0.5)
    assert buffer.total == pytest.approx(float(leaves.sum()))
    for _ in range(5):  # repeated overwrites keep the root equal to the sum of the leaves
        fill(buffer, 4, start=100)
        assert buffer.total == pytest.approx(float(buffer.priorities_alpha().sum()))


@BRANCHING
def test_importance_weights__match_their_formula(branching: int) -> None:
    buffer = PrioritizedReplay(8, (1,), alpha=0.6, beta=0.5, branching=branching)
    fill(buffer, 5)
    buffer.update_priorities(torch.arange(5), torch.tensor([1.0, 2, 4, 8, 16]))
    sample = buffer.sample(64, torch.Generator().manual_seed(1))
    p_alpha = (torch.tensor([1.0, 2, 4, 8, 16], dtype=torch.float64) + buffer.eps) ** 0.6
    probs = p_alpha / p_alpha.sum()
    n = len(buffer)
    expected = (n * probs[sample.indices]) ** -0.5 / (n * probs.min()) ** -0.5
    assert torch.allclose(sample.weights.double(), expected, rtol=1e-5)
    assert float(sample.weights.max()) <= 1.0
    buffer.set_beta(1.0)
    assert torch.allclose(
        buffer.sample(64).weights.double().min(),
        (probs.min() / probs.max()).float().double(),
        rtol=1e-4,
    )
    with pytest.raises(ValueError, match="beta must be in \\[0, 1\\]"):
        buffer.set_beta(1.5)


def test_uniform_replay__same_interface_and_state_roundtrip() -> None:
    for buffer in (
        UniformReplay(6, (1,)),
        PrioritizedReplay(6, (1,)),
        PrioritizedReplay(6, (1,), branching=2),
    ):
        fill(buffer, 4)
        fill(buffer, 5, start=4)  # wraps around
        sample = buffer.sample(32, torch.Generator().manual_seed(0))
        assert (
            sample.weights.shape == (32,) and ((sample.indices >= 0) & (sample.indices < 6)).all()
        )
        assert torch.equal(sample.actions, buffer.actions[sample.indices])
        buffer.update_priorities(sample.indices, torch.rand(32))
        clone = type(buffer)(
            6, (1,), **({"branching": buffer.branching} if hasattr(buffer, "branching") else {})
        )
        clone.load_state_dict(buffer.state_dict())
        again = clone.sample(32, torch.Generator().manual_seed(7))
        assert torch.equal(
            again.indices, buffer.sample(32, torch.Generator().manual_seed(7)).indices
        )
        assert sorted(buffer.actions.tolist()) == [3, 4, 5, 6, 7, 8]  # the six newest
    uniform = UniformReplay(6, (1,))
    fill(uniform, 6)
    assert (uniform.sample(16).weights == 1).all()
    with pytest.raises(RuntimeError, match="empty replay buffer"):
        UniformReplay(4, (1,)).sample(2)
    with pytest.raises(
        ValueError, match="cannot add 5 transitions at once to a buffer of capacity 4"
    ):
        fill(UniformReplay(4, (1,)), 5)
