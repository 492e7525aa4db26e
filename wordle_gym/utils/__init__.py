"""What every layer uses and none of them is the game: ``files`` (atomic outputs, locks, one-line
errors, the disk cache, numba's cache), ``device`` (the device a name picks) and ``commandline`` (a
command's options as documented dataclasses, one-line errors).

May import: wordle_gym.utils; numpy, torch, numba, filelock.
"""
