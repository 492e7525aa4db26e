r"""Train the DQN agent (letter-decomposed Q, prioritized replay) through a vocabulary curriculum.

    python examples/train_dqn.py --stages 100,1000,full --iterations 4000,25000,100000 \
        --device cuda --run-dir runs/dqn [--tensorboard] [--export my_dqn.pt --half]

An iteration is one gradient update. Stages as in train_a2c.py; each starts from the previous
stage's best weights with a fresh replay buffer, exploring from ``eps_warm_start`` (0.1).
``last.pt`` holds the weights, target network, optimizer, replay buffer, random states and the games
in flight; run the same command again after a kill to continue exactly. Every option below comes
from ``RunConfig`` or ``DQNConfig`` (``--help`` lists them with their defaults; ``--no-prioritized``
for uniform replay).
"""

import sys

from wordle_agents.common.training import main
from wordle_agents.rl.dqn import TRAINING

if __name__ == "__main__":
    sys.exit(main(TRAINING, doc=__doc__))
