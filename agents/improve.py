"""Moved to :mod:`wordle_agents.commands.improve`; ``python -m wordle_agents.improve`` still runs it
(until 0.4)."""

import sys

from wordle_agents.commands.improve import main

if __name__ == "__main__":
    sys.exit(main())
