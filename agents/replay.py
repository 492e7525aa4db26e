"""Replay buffers on preallocated tensors: uniform, and proportional prioritized on a sum tree.

Both add and sample whole batches with tensor ops: no Python loop over items. The prioritized
buffer keeps ``p_i ** alpha`` in a sum tree (sampling by descent, O(log n) per item) and a min
tree (for the importance-weight normaliser), updated level by level for a whole batch at once.

Sampling probability: ``P(i) = p_i^alpha / sum_k p_k^alpha``. Importance weights (Schaul et al.
2016): ``w_i = (n P(i))^-beta / max_k (n P(k))^-beta``, the maximum taken over the whole buffer
(it is the item of smallest priority), so weights lie in (0, 1]. New items get the largest
priority seen so far. ``beta`` is annealed to 1 by the caller (:meth:`set_beta`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import torch


class ReplaySample(NamedTuple):
    """A minibatch; ``indices`` and ``weights`` serve prioritized replay (uniform: weights are 1)."""

    observations: torch.Tensor  # (B, *obs_shape) obs dtype
    actions: torch.Tensor  # (B,) int64
    rewards: torch.Tensor  # (B,) float32
    next_observations: torch.Tensor  # (B, *obs_shape) obs dtype
    dones: torch.Tensor  # (B,) bool: the episode ended (no bootstrap)
    indices: torch.Tensor  # (B,) int64: buffer slots, for update_priorities
    weights: torch.Tensor  # (B,) float32: importance weights


class UniformReplay:
    """A ring buffer of transitions on ``device``, sampled uniformly."""

    def __init__(
        self,
        capacity: int,
        obs_shape: tuple[int, ...],
        obs_dtype: torch.dtype = torch.int8,
        device: torch.device | str = "cpu",
    ) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1; got {capacity}")
        self.capacity = capacity
        self.device = torch.device(device)
        self.observations = torch.zeros((capacity, *obs_shape), dtype=obs_dtype, device=self.device)
        self.next_observations = torch.zeros_like(self.observations)
        self.actions = torch.zeros(capacity, dtype=torch.int64, device=self.device)
        self.rewards = torch.zeros(capacity, dtype=torch.float32, device=self.device)
        self.dones = torch.zeros(capacity, dtype=torch.bool, device=self.device)
        self.position = 0  # next slot to write
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def add(
        self,
        observations: torch.Tensor,
        actions: torch.Tensor,
        rewards: torch.Tensor,
        next_observations: torch.Tensor,
        dones: torch.Tensor,
    ) -> torch.Tensor:
        """Store a batch of transitions (oldest overwritten first); returns their slots (B,)."""
        n = actions.shape[0]
        if n > self.capacity:
            raise ValueError(f"cannot add {n} transitions at once to a buffer of capacity {self.capacity}")
        slots = (self.position + torch.arange(n, device=self.device)) % self.capacity
        self.observations[slots] = observations.to(self.device, self.observations.dtype)
        self.next_observations[slots] = next_observations.to(self.device, self.observations.dtype)
        self.actions[slots] = actions.to(self.device, torch.int64)
        self.rewards[slots] = rewards.to(self.device, torch.float32)
        self.dones[slots] = dones.to(self.device, torch.bool)
        self.position = (self.position + n) % self.capacity
        self.size = min(self.size + n, self.capacity)
        self._added(slots)
        return slots

    def _added(self, slots: torch.Tensor) -> None:
        """Hook for subclasses."""

    _STATE = ("observations", "next_observations", "actions", "rewards", "dones")

    def state_dict(self) -> dict[str, Any]:
        """The stored transitions and counters (weights_only-loadable)."""
        state: dict[str, Any] = {name: getattr(self, name)[: self.size].cpu() for name in self._STATE}
        state.update(position=self.position, size=self.size)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        size = int(state["size"])
        if size > self.capacity:
            raise ValueError(f"saved buffer holds {size} items; this one has capacity {self.capacity}")
        for name in self._STATE:
            getattr(self, name)[:size] = state[name].to(self.device)
        self.position, self.size = int(state["position"]), size

    def sample(self, batch_size: int, generator: torch.Generator | None = None) -> ReplaySample:
        if self.size == 0:
            raise RuntimeError("cannot sample from an empty replay buffer")
        slots = torch.randint(self.size, (batch_size,), device=self.device, generator=generator)
        return self._gather(slots, torch.ones(batch_size, device=self.device))

    def update_priorities(self, indices: torch.Tensor, priorities: torch.Tensor) -> None:
        """Uniform replay ignores priorities (same interface as the prioritized buffer)."""

    def _gather(self, slots: torch.Tensor, weights: torch.Tensor) -> ReplaySample:
        return ReplaySample(
            self.observations[slots],
            self.actions[slots],
            self.rewards[slots],
            self.next_observations[slots],
            self.dones[slots],
            slots,
            weights.to(torch.float32),
        )


class PrioritizedReplay(UniformReplay):
    """Proportional prioritized replay (Schaul et al. 2016) on sum and min trees."""

    def __init__(
        self,
        capacity: int,
        obs_shape: tuple[int, ...],
        obs_dtype: torch.dtype = torch.int8,
        device: torch.device | str = "cpu",
        alpha: float = 0.6,
        beta: float = 0.4,
        eps: float = 1e-6,
    ) -> None:
        super().__init__(capacity, obs_shape, obs_dtype, device)
        if alpha < 0:
            raise ValueError(f"alpha must be >= 0; got {alpha}")
        self.alpha, self.eps = alpha, eps
        self.set_beta(beta)
        self.leaves = 1 << max(0, (capacity - 1).bit_length())  # a power of two >= capacity
        self.depth = self.leaves.bit_length() - 1
        # Node k has children 2k and 2k+1; the root is 1; leaf i sits at leaves + i.
        self.sums = torch.zeros(2 * self.leaves, dtype=torch.float64, device=self.device)
        self.mins = torch.full((2 * self.leaves,), torch.inf, dtype=torch.float64, device=self.device)
        self.max_priority = 1.0

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state.update(sums=self.sums.cpu(), mins=self.mins.cpu(), max_priority=self.max_priority, beta=self.beta)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        if state["sums"].shape != self.sums.shape:
            raise ValueError("saved priority tree does not match this buffer's capacity")
        self.sums.copy_(state["sums"])
        self.mins.copy_(state["mins"])
        self.max_priority, self.beta = float(state["max_priority"]), float(state["beta"])

    def set_beta(self, beta: float) -> None:
        if not 0.0 <= beta <= 1.0:
            raise ValueError(f"beta must be in [0, 1]; got {beta}")
        self.beta = beta

    @property
    def total(self) -> float:
        """Sum of ``p^alpha`` over stored items."""
        return float(self.sums[1])

    def priorities_alpha(self) -> torch.Tensor:
        """``p_i^alpha`` of the stored items, in slot order (for inspection and tests)."""
        return self.sums[self.leaves : self.leaves + self.size].clone()

    def _added(self, slots: torch.Tensor) -> None:
        self._set(slots, torch.full(slots.shape, self.max_priority, dtype=torch.float64, device=self.device))

    def update_priorities(self, indices: torch.Tensor, priorities: torch.Tensor) -> None:
        """Set the priorities of sampled items, e.g. to ``|TD error|`` (``eps`` is added)."""
        priorities = priorities.detach().to(self.device, torch.float64).abs() + self.eps
        self.max_priority = max(self.max_priority, float(priorities.max()))
        self._set(indices.to(self.device), priorities)

    def _set(self, slots: torch.Tensor, priorities: torch.Tensor) -> None:
        # Duplicate slots in one batch: keep the last value written for each.
        slots, order = slots.flip(0), priorities.flip(0)
        unique, first = _first_occurrence(slots)
        nodes = unique + self.leaves
        values = order[first] ** self.alpha
        self.sums[nodes] = values
        self.mins[nodes] = values
        for _ in range(self.depth):  # one level at a time, the whole batch at once
            nodes = torch.unique(nodes // 2)
            self.sums[nodes] = self.sums[2 * nodes] + self.sums[2 * nodes + 1]
            self.mins[nodes] = torch.minimum(self.mins[2 * nodes], self.mins[2 * nodes + 1])

    def sample(self, batch_size: int, generator: torch.Generator | None = None) -> ReplaySample:
        """Stratified proportional sampling: one draw in each of ``batch_size`` equal slices of the total."""
        if self.size == 0:
            raise RuntimeError("cannot sample from an empty replay buffer")
        total = self.sums[1]
        offsets = torch.rand(batch_size, dtype=torch.float64, device=self.device, generator=generator)
        target = (torch.arange(batch_size, device=self.device) + offsets) * (total / batch_size)
        nodes = torch.ones(batch_size, dtype=torch.int64, device=self.device)
        for _ in range(self.depth):
            left = 2 * nodes
            left_sum = self.sums[left]
            right = target >= left_sum
            target = torch.where(right, target - left_sum, target)
            nodes = torch.where(right, left + 1, left)
        slots = (nodes - self.leaves).clamp(max=self.size - 1)  # rounding can step past the last item
        probs = self.sums[slots + self.leaves] / total
        min_prob = self.mins[1] / total
        weights = (probs / min_prob) ** (-self.beta)  # (n P(i))^-beta / (n min P)^-beta
        return self._gather(slots, weights)


def _first_occurrence(values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Unique values and the index of each one's first occurrence."""
    unique, inverse = torch.unique(values, return_inverse=True)
    first = torch.full((unique.shape[0],), values.shape[0], dtype=torch.int64, device=values.device)
    first.scatter_reduce_(0, inverse, torch.arange(values.shape[0], device=values.device), reduce="amin")
    return unique, first
