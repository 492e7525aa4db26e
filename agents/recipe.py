"""Moved to :mod:`wordle_agents.commands.recipe`; ``python -m wordle_agents.recipe`` still runs it
(until 0.4)."""

import sys

from wordle_agents.commands.recipe import main

if __name__ == "__main__":
    sys.exit(main())
