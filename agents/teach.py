"""``python -m wordle_agents.teach``: a network taught by the exact solver.

The command's code is :mod:`wordle_agents.methods.teach`."""

import sys

from wordle_agents.methods.teach import main

if __name__ == "__main__":
    sys.exit(main())
