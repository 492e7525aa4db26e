"""Moved to :mod:`wordle_agents.commands.teach`; ``python -m wordle_agents.teach`` still runs it
(until 0.4)."""

import sys

from wordle_agents.commands.teach import main

if __name__ == "__main__":
    sys.exit(main())
