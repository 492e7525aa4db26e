"""Policy iteration by the network's own rollouts (``wordle_agents.methods.policy_iteration``), on
small lists."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from tests.helpers.reference import feedback_ref, few_letter_words
from wordle_agents.commands.improve import main
from wordle_agents.common.training import machines as _machines
from wordle_agents.methods.policy_iteration import (
    EXPLORED,
    EXPLORING,
    METHOD,
    SCREENING,
    ImproveOptions,
    Run,
    improve,
    iterate,
    method,
    positions,
)
from wordle_agents.methods.rollouts import rollouts
from wordle_agents.rl.a2c import A2CAgent, A2CConfig
from wordle_gym.core.config import WordleConfig
from wordle_gym.envs.vector import WordleVectorEnv


def _setup(
    seed: int, count: int = 24, hard: bool = False, hidden: int = 32
) -> tuple[A2CAgent, WordleConfig]:
    words = few_letter_words(random.Random(seed), "abcdefgh", 4, count)
    config = WordleConfig(answers=words, allowed=None, hard_mode=hard)
    agent = A2CAgent(A2CConfig(hidden=hidden, seed=seed), 4, "cpu")
    agent.use_words(words)
    agent.net.eval()
    return agent, config


def _play(
    agent: A2CAgent,
    config: WordleConfig,
    answer: int,
    forced: list[int],
    chosen: dict[bytes, int] | None = None,
) -> float:
    """One game the slow way: ``forced`` first, then ``chosen`` (by observation) or the agent's
    harness act."""
    env = WordleVectorEnv(1, config, device="cpu", autoreset_mode="disabled")
    obs, infos = env.reset(options={"answers": torch.tensor([answer])})
    total, turn = 0.0, 0
    while not bool(env.state.done[0]):
        key = obs[0].numpy().tobytes()
        if turn < len(forced):
            action = forced[turn]
        elif chosen is not None and key in chosen:
            action = chosen[key]
        else:
            action = int(agent.act(obs, infos["action_mask"], env)[0])
        obs, reward, _, _, infos = env.step(torch.tensor([action]))
        total += float(reward[0])
        turn += 1
    return total


@pytest.mark.parametrize("hard", [False, True])
def test_rollouts__forced_guesses_then_greedy_play_as_the_harness_plays_them(hard: bool) -> None:
    agent, config = _setup(1, hard=hard)
    rng = random.Random(2)
    n, width = 40, config.max_guesses
    answers = [rng.randrange(24) for _ in range(n)]
    lengths = [rng.randrange(0, 4) for _ in range(n)]
    forced = [[rng.randrange(24) for _ in range(width)] for _ in range(n)]
    returns, used = rollouts(
        agent, config, torch.tensor(answers), torch.tensor(forced), torch.tensor(lengths), chunk=7
    )
    for i in range(n):
        expected = _play(agent, config, answers[i], forced[i][: lengths[i]])
        assert float(returns[i]) == pytest.approx(expected)
        assert 1 <= int(used[i]) <= width + 1


def test_best_words__the_network_scores_each_distinct_observation_once() -> None:
    """The rollouts' greedy guesses: the network runs on the distinct observations only (games at
    one position share theirs), with the same guesses as scoring every game; with a hard-mode mask,
    on every game."""
    agent, config = _setup(1)
    env = WordleVectorEnv(60, config, device="cpu")
    env.reset(options={"answers": torch.arange(60) % 24})
    obs = env.step(torch.full((60,), 3))[0]  # 60 games, 24 answers: a few feedbacks
    distinct = len(torch.unique(obs, dim=0))
    scored: list[int] = []
    real = agent.letter_scores
    agent.letter_scores = lambda rows: scored.append(len(rows)) or real(rows)  # type: ignore[method-assign]
    expected = agent.net.words.best(real(obs))
    assert torch.equal(agent.best_words(obs), expected) and scored == [distinct] and distinct < 24
    allowed = torch.rand(60, 24, generator=torch.Generator().manual_seed(0)) < 0.5
    allowed[:, 0] = True
    assert torch.equal(agent.best_words(obs, allowed), agent.net.words.best(real(obs), allowed))
    assert scored[1] == 60


def test_positions__each_holds_exactly_the_answers_its_guesses_leave() -> None:
    agent, config = _setup(3)
    words = list(config.vocabulary.answers)
    found, games = positions(agent, config)
    used = games.guesses
    assert found[0].prefix == [] and found[0].answers == list(range(len(words)))
    for p in found:
        history = [(words[g], feedback_ref(words[g], words[p.answers[0]])) for g in p.prefix]
        left = [
            a
            for a, w in enumerate(words)
            if all(feedback_ref(g, w) == f for g, f in history) and w not in [g for g, _ in history]
        ]
        assert p.answers == left
        assert p.greedy == int(agent.net.words.best(agent.letter_scores(p.observation[None]))[0])
    # each answer's game passes one position a turn until it ends
    assert sum(len(p.answers) for p in found) == int(used.clamp(max=config.max_guesses).sum())


@pytest.mark.parametrize(("hard", "deep_top"), [(False, 0), (True, 0), (False, 3), (True, 3)])
def test_improve__the_improved_policy_earns_more_than_the_network(
    hard: bool, deep_top: int
) -> None:
    """Policy improvement: playing each position's label (the network elsewhere) earns more than the
    network, by at least the gain ``improve`` reports; looking one guess deeper too."""
    agent, config = _setup(4, hard=hard)
    found, _ = positions(agent, config)
    labels, gain, changed, _ = improve(
        agent, config, found, top=8, deep_top=deep_top, deep_answers=5
    )
    assert bool(changed) == bool(deep_top)  # the deeper look's own choices after its label
    changed.update(
        (p.observation.numpy().tobytes(), label)
        for p, label in zip(found, labels, strict=True)
        if label != p.greedy
    )
    assert changed and gain > 0
    num = config.vocabulary.num_answers
    before = sum(_play(agent, config, a, []) for a in range(num))
    after = sum(_play(agent, config, a, [], changed) for a in range(num))
    assert after > before
    assert after - before >= gain - 1e-4  # the first changes along each game already gain this much
    # positions() plays the same improved policy: the label where one was chosen, the network
    # elsewhere
    played, games = positions(agent, config, changed)
    used = games.guesses
    assert {p.observation.numpy().tobytes(): p.played for p in played if p.played != p.greedy} == {
        k: v for k, v in changed.items() if k in {p.observation.numpy().tobytes() for p in played}
    }
    guesses = []
    for a in range(num):
        # default reward: -1 a guess, -5 more for a loss
        env_return = _play(agent, config, a, [], changed)
        guesses.append(
            -env_return if env_return > -config.max_guesses - 1 else config.max_guesses + 1
        )
    assert used.tolist() == guesses
    if hard:  # every label is a guess the position allows
        words = list(config.vocabulary.answers)
        from tests.helpers.reference import hard_valid

        for p, label in zip(found, labels, strict=True):
            history = [(words[g], feedback_ref(words[g], words[p.answers[0]])) for g in p.prefix]
            assert hard_valid(words[label], history)


@pytest.mark.slow
def test_iterate__a_fresh_network_learns_to_win_every_game_from_its_own_rollouts() -> None:
    """From random weights (it wins 1 game of 14), trying every guess at every position it reaches,
    the network learns to win all 14 near the optimum."""
    from wordle_gym.solver.oracle import Oracle

    torch.manual_seed(0)
    words = few_letter_words(random.Random(5), "abcdefg", 4, 14)
    config = WordleConfig(answers=words, allowed=None)
    run = Run(A2CAgent(A2CConfig(hidden=32, seed=5), 4, "cpu"))
    lines: list[str] = []
    saved: list[int] = []
    options = ImproveOptions(top=14, epochs=150, lr=3e-3)
    iterate(run, config, 4, options, log=lines.append, save=lambda r: saved.append(len(r.history)))
    assert saved == [1, 2, 3, 4] and run.history[0].win_rate <= 0.1
    # the best network (the last play counts) wins all
    assert run.best_key is not None and run.best_key[0] == 1.0
    optimum = Oracle(answers=words, allowed=None, root_opener=None)
    optimum = optimum.value(optimum.start())
    # the optimum is 2.07: a local optimum of one-guess improvements
    assert -run.best_key[1] <= optimum + 0.2
    assert lines[-1].startswith("iteration 4: the network wins")


@pytest.mark.slow
def test_iterate__a_first_guess_fixed_by_hand_is_learned_never_improved_and_named(
    monkeypatch,
) -> None:
    """Issue 46: with ``opener`` the network learns to open with that word and to play after it from
    its own rollouts; the first position is neither improved nor explored (every position valued
    starts with the opener), and the method names the opener. An opener outside the list is a clear
    error."""
    import wordle_agents.methods.policy_iteration as module

    torch.manual_seed(0)
    words = few_letter_words(random.Random(5), "abcdefg", 4, 14)
    config = WordleConfig(answers=words, allowed=None)
    run = Run(A2CAgent(A2CConfig(hidden=32, seed=5), 4, "cpu"))
    own = positions(run.agent, config)[0][0].greedy  # the network's own first guess
    opener = next(w for i, w in enumerate(words) if i != own)
    valued: list[list[int]] = []
    real = module.candidate_values
    monkeypatch.setattr(
        module,
        "candidate_values",
        lambda agent, c, found, *a, **k: (
            valued.extend(p.prefix for p in found) or real(agent, c, found, *a, **k)
        ),
    )
    # the critic's positions: the network's own games (their guess counts fit it)
    fitted: list[list[int]] = []
    real_fit = module.Critic.fit
    monkeypatch.setattr(
        module.Critic,
        "fit",
        lambda found, *a: fitted.append([p.prefix[:1] for p in found]) or real_fit(found, *a),
    )
    options = ImproveOptions(
        top=14, epochs=150, lr=3e-3, explore=2, explore_answers=2, screen=3, opener=opener.upper()
    )
    iterate(run, config, 2, options, log=lambda _: None)
    # before it opened with the opener: its own
    assert {tuple(first) for first in fitted[0]} == {(), (own,)}
    first = words.index(opener)
    # never the first position
    assert valued and all(prefix and prefix[0] == first for prefix in valued)
    assert positions(run.agent, config)[0][0].greedy == first  # learned
    assert [h.opener for h in run.history] == [opener, opener]
    # Now that the network opens with it, its own games are the opener's: an iteration plays them
    # once (its own play, the exploring starts, the improved policy; then the last measurement), not
    # again with the opener.
    played = []
    real_positions = module.positions
    monkeypatch.setattr(
        module, "positions", lambda *a, **k: played.append(1) or real_positions(*a, **k)
    )
    iterate(run, config, 3, options, log=lambda _: None)
    assert len(played) == 4
    assert (
        method(run.history) == f"{METHOD} ({EXPLORING}; {SCREENING}; the first guess fixed by "
        f"hand: {opener.upper()})"
    )
    with pytest.raises(ValueError, match="'zzzz' is not an allowed guess"):
        iterate(Run(run.agent), config, 1, ImproveOptions(opener="zzzz"), log=lambda _: None)


def test_command__writes_float16_weights_resumes_and_refuses_other_settings(
    tmp_path, capsys
) -> None:
    from wordle_gym.harness.evaluation import evaluate

    words = few_letter_words(random.Random(6), "abcdefg", 4, 16)
    (tmp_path / "w.txt").write_text("\n".join(words) + "\n")
    init = tmp_path / "init.pt"
    A2CAgent(A2CConfig(hidden=16), 4, "cpu").save(init)
    out, run_dir = tmp_path / "improved.pt", tmp_path / "run"
    args = [
        "--init",
        str(init),
        "--answers",
        str(tmp_path / "w.txt"),
        "--allowed",
        str(tmp_path / "w.txt"),
        "--top",
        "4",
        "--epochs",
        "5",
        "--run-dir",
        str(run_dir),
        "--out",
        str(out),
    ]
    assert main([*args, "--iterations", "1"]) == 0
    assert main([*args, "--iterations", "2"]) == 0
    said = capsys.readouterr().out
    assert (
        "resuming" in said
        and "1 iterations done" in said
        and ("iteration 2: the network wins") in said
    )
    data = torch.load(out, weights_only=True)
    assert (
        data["teacher"] is None and data["method"] == METHOD and data["method_reward"] == "default"
    )
    assert (
        data["model"]["trunk.0.weight"].dtype == torch.float16
        and len(data["improving"]["history"]) == 2
    )
    agent = A2CAgent.load(out)
    assert agent.checkpoint.method == METHOD
    result = evaluate(agent, device="cpu", answers=words, allowed=None, progress=False)
    assert result.win_rate == data["figures"]["win_rate"]
    assert result.mean_guesses_wins == pytest.approx(data["figures"]["mean_guesses"], abs=1e-9)
    assert main([*args, "--iterations", "3", "--reward", "win-bonus"]) == 2  # another run's folder
    err = capsys.readouterr().err
    assert "other settings (reward)" in err and err.count("\n") == 1
    deeper = ["--deep-top", "1", "--deep-answers", "2", "--deep-random", "3"]
    # a run may try more guesses from here on
    assert main([*args, "--iterations", "3", "--top", "5", *deeper]) == 0
    history = torch.load(out, weights_only=True)["improving"]["history"]
    assert [(h["top"], h["deep_top"], h["deep_random"]) for h in history] == [
        (4, 0, 0),
        (4, 0, 0),
        (5, 1, 3),
    ]
    assert (
        main(
            [
                *args,
                "--iterations",
                "4",
                "--screen",
                "2",
                "--explore",
                "1",
                "--explore-answers",
                "2",
            ]
        )
        == 0
    )
    data = torch.load(out, weights_only=True)
    last = data["improving"]["history"][-1]
    assert (last["screen"], last["explore"], last["epochs"], last["path_copies"]) == (
        2,
        1,
        5,
        8,
    ) and last["explored"]
    assert data["improving"]["history"][0]["path_copies"] == 0  # no exploring: no copies
    assert (
        "1 with the critic's best 2; 1 with exploring starts (1 other guesses where >= 2)"
    ) in data["curriculum"]
    assert (
        data["method"]
        == EXPLORED
        == (f"{METHOD} (exploring starts; guesses also from a critic of answers left)")
    )
    assert main([*args, "--top", "0"]) == 2
    assert "top must be >= 1; got 0" in capsys.readouterr().err


def test_candidate_values__the_extra_guesses_are_valued_as_the_harness_plays_them() -> None:
    from wordle_agents.methods.policy_iteration import candidate_values

    agent, config = _setup(7)
    found, games = positions(agent, config)
    used = games.guesses
    values = candidate_values(agent, config, found[:2], top=1, extra={0: [5, 7, found[0].greedy]})
    assert set(values[0]) == {found[0].greedy, 5, 7} and set(values[1]) == {found[1].greedy}
    for j, p in enumerate(found[:2]):
        for c, v in values[j].items():
            assert v == pytest.approx(
                sum(_play(agent, config, a, [*p.prefix, c]) for a in p.answers)
            )
    # the critic's best guesses too, at positions of 3 answers or more
    from wordle_agents.methods.policy_iteration import Critic
    from wordle_gym.core.tables import pattern_table

    critic = Critic.fit(found, used, config)
    values = candidate_values(agent, config, found[:2], top=1, screen=3, critic=critic)
    for j, p in enumerate(found[:2]):
        screened = set(critic.screen(pattern_table(config.vocabulary), p.answers, 3, None))
        assert set(values[j]) == ({p.greedy} | screened if len(p.answers) >= 3 else {p.greedy})
        for c, v in values[j].items():
            assert v == pytest.approx(
                sum(_play(agent, config, a, [*p.prefix, c]) for a in p.answers)
            )


def test_command__improves_a_dqn_network_too(tmp_path) -> None:
    """The DQN's word values serve as the policy's logits: the same command improves it."""
    from wordle_agents.rl.dqn import DQNAgent, DQNConfig
    from wordle_agents.rl.networks import load_network

    words = few_letter_words(random.Random(8), "abcdefg", 4, 14)
    (tmp_path / "w.txt").write_text("\n".join(words) + "\n")
    init, out = tmp_path / "dqn.pt", tmp_path / "dqn_improved.pt"
    DQNAgent(DQNConfig(hidden=16), 4, "cpu").save(init)
    args = [
        "--init",
        str(init),
        "--answers",
        str(tmp_path / "w.txt"),
        "--allowed",
        str(tmp_path / "w.txt"),
        "--top",
        "14",
        "--epochs",
        "100",
        "--lr",
        "3e-3",
        "--run-dir",
        str(tmp_path / "run"),
        "--out",
        str(out),
    ]
    assert main([*args, "--iterations", "3"]) == 0
    agent = load_network(str(out))
    assert isinstance(agent, DQNAgent) and agent.checkpoint.method == METHOD
    # a dict already read
    with pytest.raises(ValueError, match="holds 'dqn', expected an 'a2c' checkpoint"):
        A2CAgent.load(out, data=torch.load(out, weights_only=True))
    history = torch.load(out, weights_only=True)["improving"]["history"]
    assert torch.load(out, weights_only=True)["figures"]["win_rate"] > history[0]["win_rate"]
    (tmp_path / "other.pt").write_bytes(b"not a checkpoint")
    assert main([*args[:0], "--init", str(tmp_path / "other.pt"), *args[2:]]) == 2


def test_critic__fits_its_own_games_and_screens_every_guess_by_one_step_lookahead() -> None:
    """The critic's cost of a position size is what the network's games needed there
    (non-decreasing), and its screen ranks every allowed guess as a plain count of the reference
    feedback's groups does."""
    from collections import Counter

    from wordle_agents.methods.policy_iteration import Critic
    from wordle_gym.core.tables import pattern_table

    agent, config = _setup(9, count=30)
    words = list(config.vocabulary.answers)
    found, games = positions(agent, config)
    used = games.guesses
    critic = Critic.fit(found, used, config)
    cost = critic.cost.tolist()
    assert cost[0] == 0 and len(cost) == len(words) + 1
    assert all(a <= b + 1e-6 for a, b in itertools.pairwise(cost[1:]))
    sizes: dict[int, list[float]] = {}
    for p in found:
        sizes.setdefault(len(p.answers), []).append(
            sum(int(used[a]) - len(p.prefix) for a in p.answers) / len(p.answers)
        )
    # the first position: the only one
    assert cost[len(words)] == pytest.approx(sizes[len(words)][0], abs=1e-5)
    for p in found[:6]:
        expected = []
        for guess in words:
            groups = Counter(feedback_ref(guess, words[a]) for a in p.answers)
            expected.append(sum(n * cost[n] for tiles, n in groups.items() if tiles != (2,) * 4))
        picked = critic.screen(pattern_table(config.vocabulary), p.answers, 5, None)
        assert sorted(expected[g] for g in picked) == pytest.approx(sorted(expected)[:5], abs=1e-4)
        only = torch.zeros(len(words), dtype=torch.bool)
        only[[3, 11]] = True
        assert sorted(critic.screen(pattern_table(config.vocabulary), p.answers, 2, only)) == [
            3,
            11,
        ]


def test_positions__from_other_guesses_as_the_harness_plays_them() -> None:
    agent, config = _setup(10)
    words = list(config.vocabulary.answers)
    starts = [([4], [0, 5, 9]), ([7, 2], list(range(24)))]
    found, games = positions(agent, config, starts=starts)
    used = games.guesses
    assert len(used) == 27
    games = [(prefix, a) for prefix, answers in starts for a in answers]
    for i, (prefix, a) in enumerate(games):
        returned = _play(agent, config, a, prefix)
        assert int(used[i]) == (
            -returned if returned > -config.max_guesses - 1 else config.max_guesses + 1
        )
    for p in found:
        assert any(p.prefix[: len(s)] == s and len(p.prefix) >= len(s) for s, _ in starts)
        history = [(words[g], feedback_ref(words[g], words[p.answers[0]])) for g in p.prefix]
        for a in p.answers:  # every answer of a position shows what its first does
            assert [feedback_ref(g, words[a]) for g, _ in history] == [f for _, f in history]
    plain, _ = positions(agent, config)
    again, _ = positions(agent, config, starts=[([], list(range(24)))])
    assert [(p.prefix, p.answers) for p in plain] == [(p.prefix, p.answers) for p in again]


def test_explore__labels_positions_off_the_networks_path_with_better_guesses() -> None:
    from wordle_agents.methods.policy_iteration import candidate_values, explore

    agent, config = _setup(11)
    found, _ = positions(agent, config)
    values = candidate_values(agent, config, found, top=6)
    met, labels = explore(agent, config, found, values, alternatives=2, min_answers=4, top=6)
    on_path = {p.observation.numpy().tobytes() for p in found}
    assert met and not any(q.observation.numpy().tobytes() in on_path for q in met)
    starts = [
        (*p.prefix, c)
        for p, v in zip(found, values, strict=True)
        if len(p.answers) >= 4
        for c in sorted((c for c in v if c != p.greedy), key=lambda c: -v[c])[:2]
    ]
    assert len(starts) > 2
    for q in met:  # after one of the other guesses, then the network's
        assert any(tuple(q.prefix[: len(s)]) == s for s in starts)
    # the first position's two
    assert {tuple(q.prefix[:1]) for q in met} == {s for s in starts if len(s) == 1}
    inner = candidate_values(agent, config, met, top=6)
    for q, label, v in zip(met, labels, inner, strict=True):
        assert v[label] >= v[q.greedy] and v[label] == max(v.values())


def test_explore__the_first_position_plays_its_own_count_of_other_guesses() -> None:
    from wordle_agents.methods.policy_iteration import candidate_values, explore

    agent, config = _setup(11)
    found, _ = positions(agent, config)
    values = candidate_values(agent, config, found, top=6)
    root = values[0]
    assert not found[0].prefix and len(root) > 4
    ranked = sorted((c for c in root if c != found[0].greedy), key=lambda c: -root[c])
    assert any(p.prefix and len(p.answers) >= 2 for p in found)
    for alternatives, at_root, expected in ((0, 4, 4), (2, 4, 4), (2, 0, 2), (1, 3, 3)):
        met, _ = explore(
            agent, config, found, values, alternatives, min_answers=2, top=6, root=at_root
        )
        openers = {q.prefix[0] for q in met} - {found[0].greedy}
        assert openers == set(ranked[:expected])
        later = [q for q in met if q.prefix[0] == found[0].greedy]
        assert bool(later) == bool(alternatives)  # the other positions keep ``alternatives``


@pytest.mark.slow
def test_iterate__exploring_starts_escape_the_local_optimum_of_one_guess_improvements() -> None:
    """Where the network's own continuation makes every other guess look worse, exploring starts
    train it after other guesses too: the list whose plain fixed point is 2.30 reaches its optimum,
    2.15."""
    from wordle_gym.solver.oracle import Oracle

    words = few_letter_words(random.Random(5), "abcdefgh", 4, 20)
    config = WordleConfig(answers=words, allowed=None)
    optimum = Oracle(answers=words, allowed=None, root_opener=None)
    optimum = optimum.value(optimum.start())
    reached = []
    for alternatives in (0, 3):
        torch.manual_seed(0)
        run = Run(A2CAgent(A2CConfig(hidden=64, seed=5), 4, "cpu"))
        options = ImproveOptions(
            top=20, epochs=300, lr=3e-3, explore=alternatives, explore_answers=2
        )
        iterate(run, config, 6, options, log=lambda _: None)
        assert run.best_key is not None and run.best_key[0] == 1.0
        reached.append(-run.best_key[1])
        assert [h.explore for h in run.history][-1] == alternatives and (
            run.history[-1].explored > 0
        ) == bool(alternatives)
    assert reached[1] < reached[0] - 0.1
    assert reached[1] == pytest.approx(optimum)


def test_entry_points__each_improved_agent_gets_its_own_shipped_weights() -> None:
    from wordle_agents.zoo import a2c_improved, dqn, dqn_explored, dqn_improved

    # the default weights: DQN's own training
    assert Path(dqn().checkpoint.path).name == "dqn_full.pt"
    # the reward only; its one hand-chosen element, the opener in training, is named
    agent = dqn_explored()
    assert agent.checkpoint.method == f"{EXPLORED[:-1]}; the first guess fixed by hand: SALET)"
    assert agent.checkpoint.teacher is None
    assert dqn_improved().checkpoint.method == METHOD
    assert a2c_improved().checkpoint.method == METHOD


@pytest.mark.slow
def test_positions__the_shipped_network_plays_its_recorded_figures() -> None:
    """The one play loop (``wordle_gym.harness.play``) replays what the run recorded when it wrote
    the weights."""
    from wordle_agents.zoo import dqn_explored

    policy = dqn_explored()  # its normal and its hard-mode weights, each on its own game
    for agent, hard_mode in ((policy.normal, False), (policy.hard, True)):
        _, games = positions(agent, WordleConfig(hard_mode=hard_mode))
        assert (games.win_rate, games.mean_guesses_wins) == (
            agent.checkpoint.figures["win_rate"],
            agent.checkpoint.figures["mean_guesses"],
        ), hard_mode


def _small_run(tmp_path: Path, seed: int = 6) -> tuple[list[str], Path]:
    words = few_letter_words(random.Random(seed), "abcdefg", 4, 16)
    lists = tmp_path / "w.txt"
    lists.write_text("\n".join(words) + "\n")
    init = tmp_path / "init.pt"
    A2CAgent(A2CConfig(hidden=16), 4, "cpu").save(init)
    return [
        "--init",
        str(init),
        "--answers",
        str(lists),
        "--allowed",
        str(lists),
        "--top",
        "4",
        "--epochs",
        "5",
    ], init


def test_command__a_resumed_run_equals_one_that_never_stopped(tmp_path) -> None:
    """Regression (issue 42): dropout's random state was seeded once per command and not saved, so a
    run continued from last.pt trained differently (distillation loss 0.4408 straight, 0.2972
    resumed)."""
    args, _ = _small_run(tmp_path)
    straight, stopped = tmp_path / "straight", tmp_path / "stopped"
    assert (
        main(
            [
                *args,
                "--run-dir",
                str(straight),
                "--out",
                str(tmp_path / "a.pt"),
                "--iterations",
                "3",
            ]
        )
        == 0
    )
    assert (
        main(
            [*args, "--run-dir", str(stopped), "--out", str(tmp_path / "b.pt"), "--iterations", "1"]
        )
        == 0
    )
    assert (
        main(
            [*args, "--run-dir", str(stopped), "--out", str(tmp_path / "b.pt"), "--iterations", "3"]
        )
        == 0
    )
    one, two = (torch.load(folder / "last.pt", weights_only=True) for folder in (straight, stopped))
    for name, weights in one["model"].items():
        assert torch.equal(weights, two["model"][name]), name
    assert torch.equal(one["labels"], two["labels"])


def test_command__damaged_or_foreign_run_files_are_one_line_errors(tmp_path, capsys) -> None:
    """Regression (issue 42): a truncated, garbage or empty last.pt, another network's, a folder in
    its place, or other weights at the same --init path gave tracebacks (or were silently used)."""
    from wordle_agents.rl.dqn import DQNAgent, DQNConfig

    args, init = _small_run(tmp_path)
    run_dir = tmp_path / "run"
    command = [
        *args,
        "--run-dir",
        str(run_dir),
        "--out",
        str(tmp_path / "out.pt"),
        "--iterations",
        "1",
    ]
    assert main(command) == 0
    last = run_dir / "last.pt"
    whole = last.read_bytes()
    dqn = tmp_path / "dqn_run.pt"
    state = torch.load(last, weights_only=True)
    state["model"] = DQNAgent(DQNConfig(hidden=16), 4, "cpu").net.state_dict()
    torch.save(state, dqn)
    for damage, expected in [
        (whole[: len(whole) // 2], "is damaged"),
        (b"garbage" * 10, "is damaged"),
        (b"", "is damaged"),
        (dqn.read_bytes(), "its state does not fit this network"),
    ]:
        last.write_bytes(damage)
        assert main([*command[:-1], "2"]) == 2
        err = capsys.readouterr().err
        assert expected in err and err.count("\n") == 1 and "Traceback" not in err, err
    last.unlink()
    last.mkdir()
    assert main(command) == 2
    assert "is not a file" in capsys.readouterr().err
    last.rmdir()
    last.write_bytes(whole)
    # other weights of the same shape, same path
    A2CAgent(A2CConfig(hidden=16, seed=9), 4, "cpu").save(init)
    assert main([*command[:-1], "2"]) == 2
    assert "other settings (init_sha256)" in capsys.readouterr().err


def test_command__refuses_bad_options_and_other_word_lengths_in_one_line(tmp_path, capsys) -> None:
    args, _ = _small_run(tmp_path)
    command = [*args, "--run-dir", str(tmp_path / "run"), "--out", str(tmp_path / "out.pt")]
    for bad, expected in [
        (["--max-minutes", "0"], "max-minutes must be a number of minutes > 0; got 0.0"),
        (["--max-minutes", "nan"], "max-minutes must be a number of minutes > 0; got nan"),
        (["--lr", "inf"], "lr must be a number in (0, 1]; got inf"),
        (["--lr", "10"], "lr must be a number in (0, 1]; got 10.0"),
        (["--epochs", "0"], "epochs must be >= 1; got 0"),
        (["--device", "cuda"] if not torch.cuda.is_available() else ["--device", "tpu"], "device"),
    ]:
        assert main([*command, *bad]) == 2
        err = capsys.readouterr().err
        assert expected in err and err.count("\n") == 1, err
        assert "do not fit" not in err  # a device is not blamed on the checkpoint
    five = tmp_path / "five.txt"
    five.write_text("cigar\nrebut\nsissy\nhumph\n")
    assert main([*command[:2], "--answers", str(five), "--allowed", str(five), *command[6:]]) == 2
    err = capsys.readouterr().err
    assert (
        "was built for 4-letter words and 6 guesses; the game has 5-letter words" in err
        and err.count("\n") == 1
    )


def test_command__a_short_time_limit_still_advances_one_iteration(tmp_path, capsys) -> None:
    """Regression (issue 42): a --max-minutes shorter than one play-through stopped before the first
    iteration, so the same command never advanced."""
    args, _ = _small_run(tmp_path)
    command = [
        *args,
        "--run-dir",
        str(tmp_path / "run"),
        "--out",
        str(tmp_path / "out.pt"),
        "--iterations",
        "5",
    ]
    assert main([*command, "--max-minutes", "1e-9"]) == 0
    assert main([*command, "--max-minutes", "1e-9"]) == 0
    assert len(torch.load(tmp_path / "run" / "last.pt", weights_only=True)["history"]) == 2


def test_command__improving_taught_weights_keeps_their_teacher(tmp_path) -> None:
    """Regression (issue 42): improving a taught checkpoint wrote teacher None, and bench filed it
    as reward-only learning."""
    args, init = _small_run(tmp_path)
    data = torch.load(init, weights_only=True)
    torch.save({**data, "teacher": "optimal"}, init)
    out = tmp_path / "out.pt"
    assert (
        main([*args, "--run-dir", str(tmp_path / "run"), "--out", str(out), "--iterations", "1"])
        == 0
    )
    agent = A2CAgent.load(out)
    assert agent.checkpoint.teacher == "optimal" and agent.checkpoint.method == METHOD
    assert (
        agent.provenance["learned_from"] == "taught by the exact solver, then own-policy rollouts "
        "on reward 'default'"
    )


def test_improve_machines__a_run_elsewhere_names_each_machine_with_its_hours() -> None:
    """Weights a CPU trained for hours, improved for minutes on a GPU: the checkpoint's machine says
    both, with their hours (it said only the GPU, and the bench row read '15.47 h (NVIDIA H100
    ...)')."""
    cpu = SimpleNamespace(machine="CPU, 2 cores, 2 torch threads", training_s=55_224.0)
    h100 = "NVIDIA H100 80GB HBM3 (CUDA)"
    assert _machines(cpu, 461.0, h100) == f"CPU, 2 cores, 2 torch threads: 15.34 h; {h100}: 0.13 h"
    assert _machines(cpu, 461.0, "CPU, 2 cores, 2 torch threads") == "CPU, 2 cores, 2 torch threads"
    assert _machines(SimpleNamespace(machine=None, training_s=None), 461.0, h100) == h100
    both = SimpleNamespace(
        machine=f"CPU, 2 cores, 2 torch threads: 15.34 h; {h100}: 0.13 h", training_s=55_700.0
    )
    # back on the CPU: its hours add up
    again = _machines(both, 3600.0, "CPU, 2 cores, 2 torch threads")
    assert again == f"CPU, 2 cores, 2 torch threads: 16.34 h; {h100}: 0.13 h"
