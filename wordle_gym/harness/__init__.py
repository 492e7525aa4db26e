"""The evaluation harness and the agent registry: what every agent is measured through.

``evaluation`` (``evaluate``: every answer once, in one batched pass; ``EvalResult``; the ``Policy``
protocol) and ``registry`` (agents found through the entry-point group ``wordle_gym.agents``; no agent
code is imported until one is asked for).

May import: wordle_gym.core, wordle_gym.envs, wordle_gym.harness; numpy, torch, tqdm.
"""
