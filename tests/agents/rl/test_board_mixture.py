"""One-board networks played on several boards (Dordle, Quordle, ...): :class:`BoardMixture` and
:class:`NormalHardPair`."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from wordle_agents.rl.a2c import A2CAgent, A2CConfig
from wordle_agents.rl.dqn import DQNAgent, DQNConfig
from wordle_agents.rl.networks import BoardMixture, NormalHardPair, load_network
from wordle_gym import MultiWordleVectorEnv, WordleVectorEnv
from wordle_gym.core.words import stage_words
from wordle_gym.harness.evaluation import evaluate


def _game(
    boards: int, words: list[str], answers: list[list[str]]
) -> tuple[MultiWordleVectorEnv, torch.Tensor]:
    env = MultiWordleVectorEnv(len(answers), boards=boards, answers=words, allowed=None)
    obs, _ = env.reset(options={"answers": answers})
    return env, obs


def test_board_mixture__one_board_plays_as_the_network() -> None:
    words = stage_words("30")[0]
    single = A2CAgent(A2CConfig(hidden=32, seed=7))
    mixture = BoardMixture(single, block=16)
    alone = [evaluate(p, answers=words, allowed=None, device="cpu") for p in (single, mixture)]
    assert alone[0].guesses == alone[1].guesses
    dordle = evaluate(mixture, answers=words, allowed=None, boards=2, games=60, device="cpu")
    assert dordle.boards == 2 and min(dordle.guesses) >= 2  # two boards: never won at once


def test_board_mixture__a_dqn_guesses_the_likeliest_word_of_its_unsolved_boards_softmaxes() -> None:
    """Each unsolved board is the one-board game it would be alone (its knowledge, its turn), and
    the guess maximizes the sum over those boards of softmax(Q): built here from one-board envs
    played alongside, over games of random guesses (the first one solving the first board of games
    0-7, which then leaves the mixture)."""
    words, n = stage_words("30")[0], 15
    agent = DQNAgent(DQNConfig(hidden=32, layers=1, seed=3))
    agent.use_words(words)
    with torch.no_grad():  # sharp softmaxes: the mixture's guess is not always the product's
        agent.net.letters.weight *= 300
    env, obs = _game(2, words, [[words[g], words[g + n]] for g in range(n)])
    ones = [WordleVectorEnv(n, answers=words, allowed=None) for _ in range(2)]
    one_obs = [
        one.reset(options={"answers": [g + n * board for g in range(n)]})[0]
        for board, one in enumerate(ones)
    ]
    mixture, draws, product_differs = (
        BoardMixture(agent, block=4),
        torch.Generator().manual_seed(0),
        False,
    )
    for turn in range(4):
        with torch.no_grad():
            log_pi = [agent.scores(o).log_softmax(1) for o in one_obs]
        unsolved = ~env.state.solved
        expected = sum(torch.where(unsolved[:, b, None], log_pi[b].exp(), 0.0) for b in range(2))
        assert torch.equal(mixture.act(obs, env.action_masks(), env), expected.argmax(1))
        product = sum(torch.where(unsolved[:, b, None], log_pi[b], 0.0) for b in range(2))
        product_differs |= bool((product.argmax(1) != expected.argmax(1)).any())
        action = torch.randint(len(words), (n,), generator=draws)
        if turn == 0:
            action[:8] = torch.tensor([env.words.index(w) for w in words[:8]])
        obs, *_ = env.step(action)
        one_obs = [one.step(action)[0] for one in ones]
        assert env.state.solved[:8, 0].all()
    assert product_differs  # the test tells a mixture from a product of the boards' policies


def test_by_mode__several_boards_play_the_normal_network_as_a_mixture(tmp_path: Path) -> None:
    """A by-mode agent (dqn-explored, a2c-taught) plays any board count: its normal network as a
    mixture (multi-board games have no hard mode); before, its networks refused a multi-board
    game."""
    words = stage_words("30")[0]
    for seed, name in ((1, "normal"), (2, "hard")):
        DQNAgent(DQNConfig(hidden=16, layers=1, seed=seed)).save(tmp_path / f"{name}.pt")
    by_mode = NormalHardPair(tmp_path / "normal.pt", tmp_path / "hard.pt")
    mixtures = [BoardMixture(load_network(tmp_path / f"{name}.pt")) for name in ("normal", "hard")]
    played = [
        evaluate(
            p, answers=words, allowed=None, boards=2, games=30, device="cpu", histories=True
        ).histories
        for p in (by_mode, *mixtures)
    ]
    assert played[0] == played[1] and played[0] != played[2]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["context"]["correct.2.bias"].fill_(float("nan")), "NaN or infinite"),
        (lambda d: d["context"]["encode.0.weight"].fill_(float("inf")), "NaN or infinite"),
        (lambda d: d.update(hidden=10**7), "hidden must be an integer from 1 to"),
        (lambda d: d.update(max_guesses=10**8), "max_guesses must be an integer from 1 to"),
        (lambda d: d.pop("max_guesses"), "max_guesses must be an integer"),
        (
            lambda d: d["context"].update(
                {"correct.2.bias": d["context"]["correct.2.bias"].long()}
            ),
            "expected floats",
        ),
    ],
)
def test_see_all__a_checkpoint_with_bad_context_weights_or_sizes_is_refused(
    tmp_path, edit, message
) -> None:
    """Reliability 5, finding 8: NaN or infinite context weights played 0 of 2 boards with exit 0;
    hidden=10**7 or max_guesses=10**8 allocated 18 GB / 102 GB before any shape check; a missing
    max_guesses was a bare KeyError; integer weights loaded silently. Each is a one-line error
    naming the file, before anything is allocated."""
    import torch

    from wordle_agents.common.checkpoint import shipped_dir
    from wordle_agents.rl.networks import AllBoardsNetwork

    data = torch.load(shipped_dir() / "dqn_boards.pt", weights_only=True)
    edit(data)
    bad = tmp_path / "bad.pt"
    torch.save(data, bad)
    with pytest.raises(ValueError, match=message) as refused:
        AllBoardsNetwork.load(bad)
    assert str(bad) in str(refused.value) and "\n" not in str(refused.value)
