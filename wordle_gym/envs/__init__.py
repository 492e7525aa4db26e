"""The Gymnasium envs, built from one ``WordleConfig`` on the core engine.

``observation`` (the encodings), ``render`` (ANSI and RGB), ``scalar`` (``ScalarGame``: the single
env's plain-Python copy of the engine, held to it by the tests), ``base`` (``WordleBase``, the
builder both envs share), ``wordle`` (``WordleEnv``: one game, numpy at its edge) and ``vector``
(``WordleVectorEnv``: N games as torch tensors on a device).

May import: wordle_gym.core, wordle_gym.utils, wordle_gym.solver, wordle_gym.envs; gymnasium, numpy,
torch.
"""
