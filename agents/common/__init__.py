"""What every learned agent shares: the checkpoint format, the word-scoring network base and the
training runner.

``checkpoint`` (one format, written atomically, read without running code), ``network``
(``WordAgent``:
a network scoring each allowed word from the "knowledge" observation, greedy masked play, loading)
and ``training`` (``RunConfig`` and the resumable run folder: stages, evaluation, best weights,
logs).

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.envs, wordle_gym.harness,
wordle_agents.common; numpy, torch, tqdm.
"""
