"""Agents that search instead of learning: the greedy solver family, the exact solver and its
oracle, the random floors.

``max_entropy`` (greedy: entropy, expected size, minimax, splits), ``optimal`` (the exact solver:
the optimal tree from an opener), ``_optimal_kernel`` (its numba search), ``openers`` (every first
guess ranked and the best proven), ``oracle`` (``V*``, ``Q*`` and the regret of any decision, on the
same search) and ``baselines`` (random play).

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.envs, wordle_gym.harness,
wordle_agents.common, wordle_agents.solvers; numpy, torch, numba, tqdm, ray.
"""
