"""A2C on several boards (``research.a2c_boards``): the mixture policy, its start from a one-board
network, the trainer, checkpoints and the harness."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from research.a2c_boards import (
    A2CBoardsAgent,
    A2CBoardsConfig,
    A2CBoardsTrainer,
    MultiBoardA2CNet,
    encode_boards,
)
from tests.agents.rl.test_a2c import update_both_ways
from tests.agents.rl.test_board_mixture import _game
from wordle_agents.rl.a2c import A2CAgent, A2CConfig, encode_observations
from wordle_agents.rl.networks import BoardMixture
from wordle_gym import WordleVectorEnv
from wordle_gym.core.words import stage_words
from wordle_gym.harness.evaluation import evaluate

pytestmark = pytest.mark.slow  # the lab's tests run with the slow suite


def test_config__boards_set_the_guess_limit() -> None:
    assert A2CBoardsConfig().max_guesses == 6 and A2CBoardsConfig(boards=2).max_guesses == 7
    assert A2CBoardsConfig(boards=4, max_guesses=12).max_guesses == 12
    with pytest.raises(ValueError, match="boards must be an integer from 1 to 32; got 33"):
        A2CBoardsConfig(boards=33)


def test_mixture__sampled_log_probabilities_are_the_dense_mixture() -> None:
    words = stage_words("30")[0]
    agent = A2CBoardsAgent(A2CBoardsConfig(boards=3, hidden=32, dropout=0.0, seed=1))
    net = agent.net
    assert isinstance(net, MultiBoardA2CNet)
    torch.nn.init.normal_(net.priority.weight)  # boards of unequal weight
    env, obs = _game(3, words, [[words[0], words[1], words[2]], [words[3], words[4], words[5]]] * 3)
    obs, *_ = env.step(
        torch.tensor([env.words.index(w) for w in (words[0], words[7], words[9], words[3]) * 2][:6])
    )
    agent.use_words(env.words)
    inputs = agent.board_inputs(obs)
    assert inputs[2].tolist()[0] == [False, True, True] and inputs[2].tolist()[1] == [
        True,
        True,
        True,
    ]
    dense = net.log_policy(inputs)  # (B, W): log sum_k alpha_k pi_k(w)
    assert torch.allclose(dense.exp().sum(1), torch.ones(6), atol=1e-5)
    draws = []
    for seed in range(400):
        g = torch.Generator().manual_seed(seed)
        actions, logp, value = net.sample(
            inputs, torch.rand(6, generator=g), torch.rand(6, generator=g)
        )
        assert torch.allclose(logp, dense.gather(1, actions[:, None]).squeeze(1), atol=1e-5)
        assert value.shape == (6,)
        draws.append(actions)
    # The draws follow the mixture: the frequency of each game's likeliest word.
    top = dense.argmax(1)
    share = (torch.stack(draws) == top).float().mean(0)
    assert torch.allclose(share, dense.exp().gather(1, top[:, None]).squeeze(1), atol=0.08)
    # The priority is a softmax over the unsolved boards only: a solved board is never drawn from.
    _, log_alpha, _ = net.board_scores(*inputs)
    assert log_alpha[0, 0] == -torch.inf and torch.allclose(log_alpha.exp().sum(1), torch.ones(6))


def test_adopt__with_one_board_left_the_mixture_plays_the_one_board_network() -> None:
    words = stage_words("30")[0]
    single = A2CBoardsAgent(A2CBoardsConfig(hidden=32, dropout=0.0, seed=2))
    multi = A2CBoardsAgent(A2CBoardsConfig(boards=2, hidden=32, dropout=0.0, seed=3))
    multi.net.load_state_dict(multi.net.adopt(single.net.state_dict()))
    env, obs = _game(2, words, [[words[0], words[1]]])
    guesses = [words[5], words[0], words[8]]  # board 0 solved on the second guess
    one = WordleVectorEnv(1, answers=words, allowed=None)
    one_obs, _ = one.reset(options={"answers": [1]})
    for guess in guesses:
        action = torch.tensor([env.words.index(guess)])
        obs, *_ = env.step(action)
        one_obs, *_ = one.step(action)
    for agent, game in ((single, one), (multi, env)):
        agent.use_words(game.words)
    mixture = multi.scores(obs)
    alone = single.scores(one_obs).log_softmax(1)
    assert torch.allclose(mixture, alone, atol=1e-5)
    # Before any board is solved, both boards weigh one half.
    env, obs = _game(2, words, [[words[0], words[1]]])
    _, log_alpha, _ = multi.net.board_scores(*multi.board_inputs(obs))
    assert torch.allclose(log_alpha.exp(), torch.full((1, 2), 0.5))
    with pytest.raises(ValueError, match="board network's is"):
        A2CBoardsAgent(A2CBoardsConfig(boards=2, hidden=16)).net.adopt(single.net.state_dict())


def test_trainer__boards_resume_exactly_and_answers_are_distinct(tmp_path: Path) -> None:
    answers, allowed = stage_words("20")
    config = A2CBoardsConfig(boards=2, hidden=32, batch_games=32, seed=4)

    def trainer() -> A2CBoardsTrainer:
        return A2CBoardsTrainer(A2CBoardsAgent(config, device="cpu"), answers, allowed)

    straight = trainer()
    drawn, queued = straight.draw_answers()
    assert (
        drawn.shape == (32, 2)
        and bool((drawn[:, 0] != drawn[:, 1]).all())
        and not bool(queued.any())
    )
    straight = trainer()
    for _ in range(3):
        stats = straight.step()
    assert 0.0 <= stats.win_rate <= 1.0 and stats.queue == 0
    first = trainer()
    first.step()
    torch.save(first.state_dict(), tmp_path / "state.pt")
    resumed = trainer()
    resumed.load_state_dict(torch.load(tmp_path / "state.pt", weights_only=True))
    for _ in range(2):
        resumed.step()
    for a, b in zip(straight.agent.net.parameters(), resumed.agent.net.parameters(), strict=True):
        assert torch.equal(a, b)


def _moved(agent: A2CBoardsAgent, before: dict[str, torch.Tensor]) -> set[str]:
    """The parts of the network (its top-level modules) whose weights differ from ``before``."""
    named = agent.net.named_parameters()
    return {name.split(".")[0] for name, weight in named if not torch.equal(weight, before[name])}


def test_trainer__the_critic_warms_up_alone_then_the_whole_network_learns() -> None:
    """critic_warmup: its first updates move the game's critic only (the board network, whose policy
    a new critic would flatten, and the board priority stay as they were); the updates after it move
    everything."""
    answers, allowed = stage_words("20")
    agent = A2CBoardsAgent(
        A2CBoardsConfig(boards=2, hidden=32, batch_games=32, critic_warmup=2, seed=4), device="cpu"
    )
    trainer = A2CBoardsTrainer(agent, answers, allowed)
    before = {name: weight.clone() for name, weight in agent.net.named_parameters()}

    for _ in range(2):
        trainer.step()
    assert _moved(agent, before) == {"critic"}
    trainer.step()
    assert _moved(agent, before) == {"critic", "board", "priority"}
    with pytest.raises(
        ValueError, match="critic_warmup is for several boards .* got critic_warmup=5 with 1 board"
    ):
        A2CBoardsConfig(critic_warmup=5)
    with pytest.raises(ValueError, match="critic_warmup must be >= 0; got -1"):
        A2CBoardsConfig(boards=2, critic_warmup=-1)


def test_trainer__a_frozen_board_network_leaves_the_priority_and_the_critic_to_learn() -> None:
    """freeze_board: every update moves the critic and (after the critic's warm-up) the board
    priority only."""
    answers, allowed = stage_words("20")
    config = A2CBoardsConfig(
        boards=2, hidden=32, batch_games=32, critic_warmup=1, freeze_board=True, seed=4
    )
    agent = A2CBoardsAgent(config, device="cpu")
    trainer = A2CBoardsTrainer(agent, answers, allowed)
    before = {name: weight.clone() for name, weight in agent.net.named_parameters()}

    trainer.step()
    assert _moved(agent, before) == {"critic"}
    for _ in range(2):
        trainer.step()
    assert _moved(agent, before) == {"critic", "priority"}
    with pytest.raises(ValueError, match="freeze_board is for several boards .*; got 1 board"):
        A2CBoardsConfig(freeze_board=True)


def test_trainer__live_games_only_and_all_games_make_the_same_update_on_two_boards() -> None:
    answers, allowed = stage_words("20")
    config = A2CBoardsConfig(boards=2, hidden=32, batch_games=48, dropout=0.0, seed=6)
    agents = [A2CBoardsAgent(config, device="cpu") for _ in range(2)]
    trainers = [A2CBoardsTrainer(agent, answers, allowed) for agent in agents]
    for _ in range(3):
        (drawn_a, loss_a, wins_a, _), (drawn_b, loss_b, wins_b, _) = update_both_ways(trainers)
        assert torch.equal(drawn_a, drawn_b) and torch.equal(wins_a, wins_b)
        assert float(loss_a) == pytest.approx(float(loss_b), rel=1e-5)
    for (name, a), b in zip(
        agents[0].net.named_parameters(), agents[1].net.parameters(), strict=True
    ):
        # The priority's bias is added to every board's logit before a softmax over the boards: its
        # gradient is zero up to rounding, which Adam's normalised step turns into steps of about lr
        # (the two ways differed by 3.7e-5 on one machine's floating point, 0 on another). It can
        # only drift within lr a step.
        tolerance = 3 * config.lr if name == "priority.bias" else 1e-5
        assert torch.allclose(a, b, rtol=1e-4, atol=tolerance), name


def test_checkpoint_and_harness__a_two_board_agent_plays_dordle_and_refuses_wordle(
    tmp_path: Path,
) -> None:
    words = stage_words("30")[0]
    agent = A2CBoardsAgent(A2CBoardsConfig(boards=2, hidden=32, seed=5))
    agent.save(tmp_path / "a.pt")
    loaded = A2CBoardsAgent.load(tmp_path / "a.pt")
    assert loaded.config.boards == 2 and loaded.name == "A2C (positional encoding, 2 boards)"
    with pytest.raises(
        ValueError,
        match="trained with boards=2, .*another trainer's network .*load it with the class",
    ):
        A2CAgent.load(tmp_path / "a.pt")  # the shipped agent plays one board
    results = [
        evaluate(a, answers=words, allowed=None, boards=2, games=40, device="cpu")
        for a in (agent, loaded)
    ]
    assert results[0].guesses == results[1].guesses and results[0].games == 40
    with pytest.raises(ValueError, match="the a2c agent plays 2 boards; the game has 1"):
        evaluate(agent, answers=words, allowed=None, device="cpu")
    with pytest.raises(ValueError, match="the a2c agent plays one board; the game has 4"):
        evaluate(
            A2CAgent(A2CConfig(hidden=32)),
            answers=words,
            allowed=None,
            boards=4,
            games=8,
            device="cpu",
        )


def test_encode_boards__each_board_as_one_board_would_see_it() -> None:
    words = stage_words("30")[0]
    env, obs = _game(2, words, [[words[0], words[1]]])
    obs, *_ = env.step(torch.tensor([env.words.index(words[2])]))
    state, turn, unsolved = encode_boards(obs, "positional", env.observation.layout)
    assert (
        state.shape == (1, 2, 260) and turn.tolist() == [[0, 1, 0, 0, 0, 0, 0]] and unsolved.all()
    )
    for board in range(2):
        one = WordleVectorEnv(1, answers=words, allowed=None)
        one.reset(options={"answers": [board]})
        one_obs, *_ = one.step(torch.tensor([one.words.index(words[2])]))
        expected, _ = encode_observations(one_obs, "positional", one.observation.layout)
        assert torch.equal(state[:, board], expected)


def test_board_mixture__k_boards_play_as_the_adopted_mixture_network() -> None:
    """A one-board network played on two boards as a :class:`BoardMixture` and adopted by a
    two-board network (whose priority starts uniform) plays the same games."""
    words = stage_words("30")[0]
    single = A2CAgent(A2CConfig(hidden=32, seed=7))
    mixture = BoardMixture(single, block=16)
    adopted = A2CBoardsAgent(A2CBoardsConfig(boards=2, hidden=32, seed=8))
    adopted.net.load_state_dict(adopted.net.adopt(single.net.state_dict()))
    dordle = [
        evaluate(p, answers=words, allowed=None, boards=2, games=60, device="cpu")
        for p in (adopted, mixture)
    ]
    assert dordle[0].guesses == dordle[1].guesses and dordle[1].boards == 2
    # two boards: never won at once
    assert dordle[0].histories is None and min(dordle[1].guesses) >= 2
    with pytest.raises(
        ValueError, match="BoardMixture takes a one-board network; this one plays 2 boards"
    ):
        BoardMixture(adopted)


def test_command_line__a_multi_board_run_gets_the_games_guesses() -> None:
    """Regression: the options defaulted to a default config's values, whose max_guesses its check
    had already resolved for one board (6), so ``--boards 2`` trained a 6-guess Dordle (the game's
    is 7)."""
    from research.a2c_boards import TRAINING
    from wordle_agents.common.training import parse_command

    assert parse_command(TRAINING, ["--boards", "2"])[1].max_guesses == 7
    assert parse_command(TRAINING, ["--boards", "4"])[1].max_guesses == 9
    assert parse_command(TRAINING, ["--boards", "2", "--max-guesses", "8"])[1].max_guesses == 8
    assert parse_command(TRAINING, [])[1].max_guesses == 6


@pytest.mark.parametrize(
    "module", ["research.a2c_boards:A2CBoardsConfig", "research.a2c_variants:A2CVariantConfig"]
)
def test_config__every_field_is_documented(module: str) -> None:
    import importlib
    from dataclasses import fields

    from wordle_gym.utils.commandline import field_docs

    name, cls = module.split(":")
    config = getattr(importlib.import_module(name), cls)
    docs = field_docs(config)
    assert [f.name for f in fields(config) if not docs.get(f.name)] == []
