"""The lab beside the product: experiments and proofs that measure the game and the agents, kept and
tested but not installed (the wheel holds only what users run). Run them as modules from the
repository root.

``boards_bound`` (+ ``dordle_search``, its Dordle searches, and ``_pair_kernel``, their numba
kernel): proven lower bounds on the multi-board optimum (``python -m research.boards_bound``; the
proofs are its docstring, the figures are in BENCHMARKS.md). ``a2c_variants``: the A2C trainer
with the ablations' options (GAE, temperature, entropy bonus, PPO, information shaping;
``python -m research.a2c_variants``); none made a shipped
network. ``a2c_boards``: A2C on K boards, one board network mixed by a learned board priority
(``python -m research.a2c_boards``); it has not beaten the one-board network played as a mixture.

May import: wordle_gym (its public modules), wordle_agents, research; numpy, torch, numba, tqdm,
ray.
"""
