"""Agents that search instead of learning: the greedy solver family, the optimal agent (a policy
over the exact solver of :mod:`wordle_gym.solver`) and the random floors.

``max_entropy`` (greedy: entropy, expected size, minimax, splits), ``optimal_agent`` (plays the
optimal tree from an opener, or the best of K greedy openers) and ``baselines`` (random play). The
solver's modules that lived here (``oracle``, ``optimal_search``, ``_optimal_kernel``, ``store``,
``openers``, ``opener_tasks``) are the new ones under their old names until their removal
(:data:`wordle_gym.utils.moved.MOVED`).

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.solver, wordle_gym.envs,
wordle_gym.harness, wordle_agents.common, wordle_agents.solvers; numpy, torch, numba, tqdm.
"""
