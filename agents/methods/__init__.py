"""Methods applied to a trained network: teaching it by the exact solver, and improving it by its
own rollouts.

``dagger`` (behaviour cloning and DAgger from the oracle), ``policy_iteration`` (by the network's
own rollouts, the game's reward only: exploring starts, a critic of answers left; ``rollouts``: the
greedy play with forced first guesses it values moves by) and ``policy_iteration_boards`` (the same
on several boards, for a network played as a mixture or one that sees every board).

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.solver, wordle_gym.envs,
wordle_gym.harness, wordle_agents.common, wordle_agents.solvers, wordle_agents.rl,
wordle_agents.methods; numpy, torch, tqdm.
"""
