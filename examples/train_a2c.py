r"""Train the seed-000 A2C agent through its curriculum, resumably, on CPU or CUDA.

    python examples/train_a2c.py --stages 100,1000,2315,full --iterations 5000,10000,15000,30000 \
        --device cuda --run-dir runs/a2c [--tensorboard] [--export my_a2c.pt]

Stages: "N" plays N answers that are also the only guesses (nested samples of the answer list),
"full" the 2315 answers with all 12972 guesses. Each stage starts from the previous stage's best
weights. The run folder holds ``last.pt`` (everything needed to continue, written atomically),
``best_<stage>.pt`` and ``metrics.jsonl``. Run the same command again after a kill to continue;
appending stages extends a run, other changed settings are refused. Every option below comes
from ``RunConfig`` or ``A2CConfig`` (``--help`` lists them with their defaults).
"""

import sys

from wordle_agents.common.training import main
from wordle_agents.rl.a2c import TRAINING

if __name__ == "__main__":
    sys.exit(main(TRAINING, doc=__doc__))
