"""Moved (:data:`wordle_gym.utils.moved.MOVED`)."""

from wordle_gym.utils.moved import alias

alias(__name__)
