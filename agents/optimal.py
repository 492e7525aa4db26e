"""Moved to :mod:`wordle_agents.commands.optimal`; ``python -m wordle_agents.optimal`` still runs it
(until 0.4)."""

import sys

from wordle_agents.commands.optimal import main

if __name__ == "__main__":
    sys.exit(main())
