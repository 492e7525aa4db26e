"""The evaluation harness and the agent registry: what every agent is measured through.

``play`` (the one loop that plays games to the end), ``evaluation`` (``evaluate``: every answer
once, in one batched pass; ``EvalResult``; the ``Policy`` protocol), ``registry`` (agents found
through the entry-point group ``wordle_gym.agents``; no agent code is imported until one is asked
for), ``bench`` (the agents table: its rows and BENCHMARKS.md) and ``throughput`` (the vector env's
steps/s).

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.envs, wordle_gym.harness; numpy, torch,
tqdm.
"""
