"""``python -m wordle_gym`` runs the ``wordle-gym`` command."""

import sys

from wordle_gym.cli.commands import main

sys.exit(main())
