"""Replay buffers on preallocated tensors: uniform, and proportional prioritized on a sum tree.

Both add and sample whole batches with tensor ops: no Python loop over items. The prioritized
buffer keeps ``p_i ** alpha`` in a wide sum tree (sampling by descent, O(k log_k n) per item) and a
min tree (for the importance-weight normaliser), updated level by level for a whole batch at once.

Sampling probability: ``P(i) = p_i^alpha / sum_k p_k^alpha``. Importance weights (Schaul et al.
2016): ``w_i = (n P(i))^-beta / max_k (n P(k))^-beta``, the maximum taken over the whole buffer
(it is the item of smallest priority), so weights lie in (0, 1]. New items get the largest
priority seen so far. ``beta`` is annealed to 1 by the caller (:meth:`set_beta`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import torch


class ReplaySample(NamedTuple):
    """A minibatch; ``indices`` and ``weights`` serve prioritized replay (uniform: weights are
    1)."""

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
            raise ValueError(
                f"cannot add {n} transitions at once to a buffer of capacity {self.capacity}"
            )
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
        state: dict[str, Any] = {
            name: getattr(self, name)[: self.size].cpu() for name in self._STATE
        }
        state.update(position=self.position, size=self.size)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        size = int(state["size"])
        if size > self.capacity:
            raise ValueError(
                f"saved buffer holds {size} items; this one has capacity {self.capacity}"
            )
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
        # index_select: several times faster than advanced indexing for row gathers on a CPU.
        return ReplaySample(
            self.observations.index_select(0, slots),
            self.actions.index_select(0, slots),
            self.rewards.index_select(0, slots),
            self.next_observations.index_select(0, slots),
            self.dones.index_select(0, slots),
            slots,
            weights.to(torch.float32),
        )


class PrioritizedReplay(UniformReplay):
    """Proportional prioritized replay (Schaul et al. 2016) on a wide sum tree (and min tree).

    Each node has ``branching`` children (32 by default), so a million items need 4 levels: a
    level costs one (B, branching) gather and prefix sum for a whole batch. With two children,
    20 levels of small ops per round made the tree slower than a flat O(n) cumulative sum on a
    CPU (measured in benchmarks/replay.py); the wide tree keeps O(k log_k n) work and few ops.
    """

    def __init__(
        self,
        capacity: int,
        obs_shape: tuple[int, ...],
        obs_dtype: torch.dtype = torch.int8,
        device: torch.device | str = "cpu",
        alpha: float = 0.6,
        beta: float = 0.4,
        eps: float = 1e-6,
        branching: int = 32,
    ) -> None:
        super().__init__(capacity, obs_shape, obs_dtype, device)
        if alpha < 0:
            raise ValueError(f"alpha must be >= 0; got {alpha}")
        if branching < 2:
            raise ValueError(f"branching must be >= 2; got {branching}")
        self.alpha, self.eps, self.branching = alpha, eps, branching
        self.set_beta(beta)
        self.depth = 1
        while branching**self.depth < capacity:
            self.depth += 1
        # Level 0 holds the leaves (p^alpha per slot, 0 / inf when empty); level d holds the root.
        sizes = [branching ** (self.depth - level) for level in range(self.depth + 1)]
        self.sum_levels = [torch.zeros(n, dtype=torch.float64, device=self.device) for n in sizes]
        self.min_levels = [
            torch.full((n,), torch.inf, dtype=torch.float64, device=self.device) for n in sizes
        ]
        self._children = torch.arange(branching, device=self.device)
        # on the device: no host read
        self._max_priority = torch.ones((), dtype=torch.float64, device=self.device)

    def set_beta(self, beta: float) -> None:
        if not 0.0 <= beta <= 1.0:
            raise ValueError(f"beta must be in [0, 1]; got {beta}")
        self.beta = beta

    @property
    def max_priority(self) -> float:
        """The largest priority seen so far (given to new items)."""
        return float(self._max_priority)

    @property
    def total(self) -> float:
        """Sum of ``p^alpha`` over stored items."""
        return float(self.sum_levels[-1][0])

    def priorities_alpha(self) -> torch.Tensor:
        """``p_i^alpha`` of the stored items, in slot order (for inspection and tests)."""
        return self.sum_levels[0][: self.size].clone()

    def _added(self, slots: torch.Tensor) -> None:
        self._set(slots, self._max_priority.expand(slots.shape))

    def update_priorities(self, indices: torch.Tensor, priorities: torch.Tensor) -> None:
        """Set the priorities of sampled items, e.g. to ``|TD error|`` (``eps`` is added)."""
        priorities = priorities.detach().to(self.device, torch.float64).abs() + self.eps
        torch.maximum(self._max_priority, priorities.max(), out=self._max_priority)
        self._set(indices.to(self.device), priorities)

    def _set(self, slots: torch.Tensor, priorities: torch.Tensor) -> None:
        # Duplicate slots in one batch: every copy writes the value of the last one. (Sizes stay
        # fixed: no unique(), whose output size would have to be read back from the device.)
        ordered, order = torch.sort(slots, stable=True)
        # last copy of each sorted slot
        last = order[torch.searchsorted(ordered, ordered, right=True) - 1]
        values = priorities[last] ** self.alpha
        self.sum_levels[0][ordered] = values
        self.min_levels[0][ordered] = values
        nodes = ordered
        for level in range(1, self.depth + 1):  # one level at a time, the whole batch at once
            nodes = nodes // self.branching  # duplicates only rewrite the same value
            # children of each node
            block = (nodes[:, None] * self.branching + self._children).flatten()
            shape = (nodes.shape[0], self.branching)
            self.sum_levels[level].index_copy_(
                0, nodes, self.sum_levels[level - 1].index_select(0, block).view(shape).sum(1)
            )
            self.min_levels[level].index_copy_(
                0, nodes, self.min_levels[level - 1].index_select(0, block).view(shape).amin(1)
            )

    def sample(self, batch_size: int, generator: torch.Generator | None = None) -> ReplaySample:
        """Stratified proportional sampling: one draw in each of ``batch_size`` equal slices of the
        total."""
        if self.size == 0:
            raise RuntimeError("cannot sample from an empty replay buffer")
        total = self.sum_levels[-1][0]
        offsets = torch.rand(
            batch_size, dtype=torch.float64, device=self.device, generator=generator
        )
        target = (torch.arange(batch_size, device=self.device) + offsets) * (total / batch_size)
        nodes = torch.zeros(batch_size, dtype=torch.int64, device=self.device)
        for level in range(self.depth - 1, -1, -1):  # root to leaves
            block = (nodes[:, None] * self.branching + self._children).flatten()
            cumulative = (
                self.sum_levels[level].index_select(0, block).view(batch_size, -1).cumsum(1)
            )  # (B, k)
            choice = (cumulative <= target[:, None]).sum(1).clamp(max=self.branching - 1)
            before = torch.where(
                choice > 0, cumulative.gather(1, (choice - 1).clamp(min=0)[:, None]).squeeze(1), 0.0
            )
            target = target - before
            nodes = nodes * self.branching + choice
        slots = nodes.clamp(max=self.size - 1)  # rounding can step past the last item
        probs = self.sum_levels[0].index_select(0, slots) / total
        min_prob = self.min_levels[-1][0] / total
        weights = (probs / min_prob) ** (-self.beta)  # (n P(i))^-beta / (n min P)^-beta
        return self._gather(slots, weights)

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state.update(
            priorities_alpha=self.priorities_alpha().cpu(),
            max_priority=self.max_priority,
            beta=self.beta,
        )
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        for level in range(self.depth + 1):
            self.sum_levels[level].zero_()
            self.min_levels[level].fill_(torch.inf)
        if self.size:
            slots = torch.arange(self.size, device=self.device)
            # Rebuild the tree from the saved leaves (set takes priorities, so undo the exponent).
            saved = state["priorities_alpha"].to(self.device, torch.float64)
            alpha, self.alpha = self.alpha, 1.0
            self._set(slots, saved)
            self.alpha = alpha
        self._max_priority.fill_(float(state["max_priority"]))
        self.beta = float(state["beta"])
