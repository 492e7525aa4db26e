"""``python -m wordle_agents.improve``: policy iteration of a network by its own rollouts.

The command's code is :mod:`wordle_agents.methods.improve`."""

import sys

from wordle_agents.methods.improve import main

if __name__ == "__main__":
    sys.exit(main())
