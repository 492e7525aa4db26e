"""The game itself, with no Gymnasium: word lists, THE feedback rule, rewards, the game's
configuration and the batched engine that steps a batch of games as tensors.

Modules, each importing only those before it (and :mod:`wordle_gym.utils`): ``words`` ->
``patterns`` (the pattern table as numpy and the rule's plain Python copy: what needs no torch; a
missing table is built by ``rules``, imported then) -> ``rules`` (the reference feedback) ->
``rewards`` -> ``config`` (``WordleConfig``) -> ``_kernels`` (numba copies of the engine) ->
``game`` (``Game``, the reference engine) -> ``compiled`` (``CompiledGame``, its numba copy for the
CPU) -> ``boards`` (``MultiGame``: K boards as rows of one engine).

May import: wordle_gym.core, wordle_gym.utils; numpy, torch, numba, filelock.
"""

__version__ = "0.2.0"
"""The version of wordle-gym: written here only (pyproject and the docs read it)."""
