"""``python -m wordle_agents.optimal``: the exact solver: the optimal tree from an opener, or every opener ranked.

The command's code is :mod:`wordle_agents.solvers.optimal`."""

import sys

from wordle_agents.solvers.optimal import main

if __name__ == "__main__":
    sys.exit(main())
