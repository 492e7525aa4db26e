"""Moved (:data:`wordle_gym.utils.moved.MOVED`)."""

from wordle_gym.utils.moved import alias

alias(__spec__.name, __name__)
