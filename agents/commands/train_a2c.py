"""``python -m wordle_agents.commands.train_a2c``: train the A2C agent.

Its options are :class:`~wordle_agents.common.training.RunConfig`'s and
:class:`~wordle_agents.rl.a2c.A2CConfig`'s (``--help`` lists them)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from wordle_agents.common.training import main as train
from wordle_agents.rl.a2c import TRAINING


def main(
    argv: Sequence[str] | None = None, prog: str = "python -m wordle_agents.commands.train_a2c"
) -> int:
    """Train from the command line's options; the exit status."""
    return train(TRAINING, argv, doc=__doc__, prog=prog)


if __name__ == "__main__":
    sys.exit(main())
