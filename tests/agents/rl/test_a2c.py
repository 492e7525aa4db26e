"""A2C with the word one-hot policy (seed 000): network, encoding, learning, checkpoints, resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from tests.helpers.processes import ROOT
from tests.helpers.training import assert_resumes_exactly
from wordle_agents.rl.a2c import A2CAgent, A2CConfig, A2CNet, A2CTrainer, encode_observations
from wordle_gym import WordleEnv, WordleVectorEnv
from wordle_gym.core.words import stage_words
from wordle_gym.envs.observation import KnowledgeLayout
from wordle_gym.harness.evaluation import evaluate


def test_network__shapes_as_in_the_seed_and_vocabulary_free_weights() -> None:
    net = A2CNet(inputs=260, length=5, max_guesses=6)
    shapes = {name: tuple(p.shape) for name, p in net.named_parameters() if name.endswith("weight")}
    assert [shapes[f"trunk.{i}.weight"] for i in (0, 3, 6)] == [(512, 260), (512, 512), (512, 512)]
    assert [shapes[f"policy.{i}.weight"] for i in (0, 3, 6)] == [(512, 512), (512, 512), (260, 512)]
    assert [shapes[f"value.{i}.weight"] for i in (0, 3, 6)] == [(128, 518), (32, 128), (1, 32)]
    assert all(m.p == 0.05 for m in net.modules() if isinstance(m, torch.nn.Dropout))
    # the vocabulary is not part of the weights
    assert not any("one_hot" in key for key in net.state_dict())
    net.eval()
    state, turn = torch.rand(3, 260), torch.eye(6)[:3]
    for words in (["cigar", "rebut"], stage_words("100")[0]):
        net.words.set_words(words)
        logits, value = net(state, turn)
        assert logits.shape == (3, len(words)) and value.shape == (3,)
    # A word's logit is the sum of its letters' scores at their positions.
    net.words.set_words(["cigar", "cigas"])
    logits, _ = net(state, turn)
    maps = net.policy(net.trunk(state)).view(3, 2, 26 * 5)
    scores = net.value(torch.cat([net.trunk(state), turn], 1)) * maps[:, 0] + maps[:, 1]
    r, s = 17 * 5 + 4, 18 * 5 + 4  # letter r / s at position 4 (letter-major 26 x 5)
    assert torch.allclose(logits[:, 0] - logits[:, 1], scores[:, r] - scores[:, s], atol=1e-5)


def test_seed_encoding__four_states_per_letter_and_position() -> None:
    env = WordleEnv()
    env.reset(options={"answer": "parry"})
    obs, *_ = env.step(env.vocabulary.action("crane"))  # c grey, R yellow, A yellow, n grey, e grey
    state, turn = encode_observations(
        torch.as_tensor(obs)[None], "positional", KnowledgeLayout(5, 6)
    )
    bits = state.view(26, 5, 2)
    code = {(0, 0): "-", (1, 0): "here", (0, 1): "not here", (1, 1): "elsewhere"}

    def at(letter: str, pos: int) -> str:
        return code[tuple(int(b) for b in bits[ord(letter) - 97, pos])]

    assert at("r", 1) == "not here" and at("r", 0) == "elsewhere" and at("a", 2) == "not here"
    assert at("c", 3) == "not here" and at("z", 0) == "-" and turn[0].tolist() == [0, 1, 0, 0, 0, 0]
    obs, *_ = env.step(env.vocabulary.action("parry"))
    assert env.state.done.item()
    knowledge, _ = encode_observations(
        torch.as_tensor(obs)[None], "knowledge", KnowledgeLayout(5, 6)
    )
    assert knowledge.shape == (1, 312)


def test_checkpoint__save_load_gives_identical_actions(tmp_path: Path) -> None:
    agent = A2CAgent(A2CConfig(hidden=64), device="cpu")
    env = WordleVectorEnv(32, device="cpu")
    obs, infos = env.reset(seed=0)
    env.step(torch.randint(12972, (32,)))
    obs, infos = env.reset(seed=1)
    agent.save(tmp_path / "a.pt", {"answers": ["cigar"]})
    loaded = A2CAgent.load(tmp_path / "a.pt")
    assert torch.equal(
        agent.act(obs, infos["action_mask"], env), loaded.act(obs, infos["action_mask"], env)
    )
    assert loaded.checkpoint.answers == ["cigar"] and loaded.config == agent.config
    (tmp_path / "bad.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="corrupt or not a wordle_gym checkpoint"):
        A2CAgent.load(tmp_path / "bad.pt")
    torch.save({"kind": "dqn"}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="holds 'dqn', expected an 'a2c' checkpoint"):
        A2CAgent.load(tmp_path / "other.pt")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        A2CAgent.load(tmp_path / "missing.pt")


def test_trainer__resume_continues_exactly(tmp_path: Path) -> None:
    answers, allowed = stage_words("30")
    config = A2CConfig(hidden=32, batch_games=64, seed=3)

    def trainer() -> A2CTrainer:
        return A2CTrainer(A2CAgent(config, device="cpu"), answers, allowed)

    assert_resumes_exactly(trainer, tmp_path)


def test_trainer__recent_losses_feed_new_games() -> None:
    answers, allowed = stage_words("40")
    trainer = A2CTrainer(
        A2CAgent(A2CConfig(hidden=32, batch_games=256, queue_prob=1.0), device="cpu"),
        answers,
        allowed,
    )
    stats = trainer.step()  # a random policy loses most games: they enter the FIFO
    assert stats.queue == round(256 * (1 - stats.win_rate))
    queued = list(trainer.queue)
    drawn, from_queue = trainer.draw_answers()
    n = min(256, len(queued))
    # probability 1 while the FIFO lasts
    assert n > 0 and from_queue[:n].all() and not from_queue[n:].any()
    # in FIFO order
    assert drawn[:n].tolist() == queued[:n] and len(trainer.queue) == len(queued) - n


@pytest.mark.parametrize(
    ("gamma", "expected"),
    # TD(0): r_t + gamma V(s_t+1) - V(s_t), 0 after the end
    [(0.9, [0.25, 0.13, 0.3]), (1.0, [0.3, 0.2, 0.3])],
)
def test_loss__advantages_by_hand(gamma: float, expected: list[float]) -> None:
    """One game of 3 guesses in a 4-turn rollout (the 4th turn's entries are another game's,
    ignored); each turn's advantage is read back as the loss's gradient with respect to its
    log-probability."""
    from wordle_agents.rl.a2c import Rollout

    trainer = A2CTrainer(
        A2CAgent(A2CConfig(hidden=8, batch_games=1, gamma=gamma)), *stage_words("20")
    )
    logps = torch.zeros(4, 1, requires_grad=True)
    values = torch.tensor([[0.2], [0.5], [0.7], [9.0]], requires_grad=True)
    batch = Rollout(
        logps,
        values,
        torch.tensor([[0.0], [0.0], [1.0], [5.0]]),
        torch.tensor([[True], [True], [True], [False]]),
        torch.tensor([[False], [False], [True], [False]]),
        torch.tensor([True]),
        torch.tensor([3.0]),
    )
    loss = trainer.loss(batch)
    loss.backward()
    assert torch.allclose(-3 * logps.grad[:3, 0], torch.tensor(expected), atol=1e-6)
    assert logps.grad[3, 0] == 0 and values.grad[3, 0] == 0
    # The critic regresses V(s_t) on V(s_t) + A_t: d loss / d V(s_t) = -2 A_t / turns (the policy's
    # own path aside).
    assert torch.allclose(-1.5 * values.grad[:3, 0], torch.tensor(expected), atol=1e-6)


@pytest.mark.slow
def test_a2c__learns_a_20_word_wordle() -> None:
    """A smaller, faster-learning setting than the seed's (hidden 128, lr 3e-3), same algorithm."""
    answers, allowed = stage_words("20")
    agent = A2CAgent(A2CConfig(hidden=128, batch_games=512, lr=3e-3), device="cpu")
    trainer = A2CTrainer(agent, answers, allowed)
    start = evaluate(agent, answers=answers, allowed=None, device="cpu", progress=False).win_rate
    goal, best = 0.95, 0.0
    while trainer.iteration < 600 and best < goal:
        trainer.step()
        if trainer.iteration % 20 == 0:
            best = max(
                best,
                evaluate(
                    agent, answers=answers, allowed=None, device="cpu", progress=False
                ).win_rate,
            )
    assert best >= goal and best >= start + 0.2


@pytest.mark.slow
def test_train_example__resumes_after_a_kill_and_cli_evaluates(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    cmd = [
        sys.executable,
        "examples/train_a2c.py",
        "--stages",
        "20",
        "--iterations",
        "400",
        "--batch-games",
        "64",
        "--hidden",
        "32",
        "--device",
        "cpu",
        "--run-dir",
        str(run_dir),
        "--eval-every",
        "50",
        "--checkpoint-every",
        "5",
        "--export",
        str(tmp_path / "a2c.pt"),
        "--tensorboard",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 120
    while not (run_dir / "last.pt").exists() and time.time() < deadline:
        time.sleep(0.2)
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    saved = torch.load(run_dir / "last.pt", weights_only=True)
    assert 0 < saved["trainer"]["iteration"] < 400  # killed mid-stage
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"resuming {run_dir / 'last.pt'} at stage 1/1" in out.stdout
    done = torch.load(run_dir / "last.pt", weights_only=True)
    assert done["stage_index"] == 1 and done["step_offset"] == 400
    assert not list(run_dir.glob(".*.tmp"))  # atomic writes left no temporary files
    assert list((run_dir / "tb").glob("events.out.tfevents.*"))  # TensorBoard logs when asked
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "wordle_gym",
            "eval",
            "--agent",
            "a2c",
            "--checkpoint",
            str(tmp_path / "a2c.pt"),
            "--device",
            "cpu",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert cli.returncode == 0, cli.stderr
    # the checkpoint's own lists
    assert "| a2c (a2c.pt) |" in cli.stdout and "/20 won" in cli.stdout
    shipped = subprocess.run(
        [sys.executable, "-m", "wordle_gym", "eval", "--agent", "a2c", "--device", "cpu"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # no --checkpoint: the furthest shipped stage
    assert shipped.returncode == 0 and "/2315 won" in shipped.stdout
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "wordle_gym",
            "eval",
            "--agent",
            "a2c",
            "--checkpoint",
            str(tmp_path / "missing.pt"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (
        bad.returncode == 2
        and "missing.pt' does not exist" in bad.stderr
        and "Traceback" not in bad.stderr
    )


def test_sample_categorical__draws_in_proportion_to_the_weights() -> None:
    """The A2C and DQN sampler (inverse CDF) against the exact probabilities, zeros never drawn."""
    from wordle_agents.common.network import sample_categorical

    weights = torch.tensor([[0.0, 1.0, 2.0, 0.0, 5.0, 2.0]]).repeat(200_000, 1)
    draws = sample_categorical(weights, torch.Generator().manual_seed(0))
    freq = torch.bincount(draws, minlength=6).double() / draws.numel()
    expected = weights[0].double() / weights[0].sum()
    assert freq[0] == 0 and freq[3] == 0 and torch.allclose(freq, expected, atol=0.004)
    # sparse rows, like masked policies
    big = torch.rand(64, 12972) * (torch.rand(64, 12972) < 0.01)
    big[:, 7] += 1e-3  # every row has some weight
    picks = sample_categorical(big, torch.Generator().manual_seed(1))
    assert (big[torch.arange(64), picks] > 0).all()


def test_inverse_cdf__draws_only_entries_that_add_weight() -> None:
    """The extreme uniform numbers: 0 used to draw the first entry with any weight at all (here
    1e-30, or under the A2C policy a word with e^-80 of the chance), however unlikely."""
    from wordle_agents.common.network import WordScorer, inverse_cdf

    cdf = torch.tensor([[0.0, 1e-30, 1.0, 1.0, 2.0]]).repeat(3, 1)
    assert inverse_cdf(cdf, torch.tensor([0.0, 1 - 2**-24, 0.5])).tolist() == [4, 2, 2]
    head = WordScorer(5)
    head.set_words(["cigar", "rebut", "sissy"])
    scores = torch.zeros(1, 130)
    # rebut (e second; letter-major cells): e^200 times the chance
    scores[0, (ord("e") - 97) * 5 + 1] = 200.0
    assert head.log_partition(scores, torch.zeros(1))[1].tolist() == [1]


@pytest.mark.parametrize("compact", [True, False])
def test_trainer__loss_and_gradients_match_a_plain_reference(compact: bool) -> None:
    """One update's loss and gradients against the A2C loss written out game by game, turn by turn
    (the same games: the trainer's batched sampler, env steps and TD(0) advantages are replayed),
    whether the network runs on the live games only (``compact``, the CPU default) or on all."""
    answers, _ = stage_words("20")
    agent = A2CAgent(
        A2CConfig(hidden=32, batch_games=24, dropout=0.0, queue_prob=0.0, seed=3), device="cpu"
    )
    trainer = A2CTrainer(agent, answers, None)
    rollout = trainer.rollout
    trainer.rollout = lambda *args: rollout(*args, compact=compact)
    turns: list[tuple[torch.Tensor, ...]] = []
    seen = {}
    reset, step = trainer.env.reset, trainer.env.step

    def recording_reset(**kwargs):
        obs, infos = reset(**kwargs)
        seen["obs"] = obs.clone()
        return obs, infos

    def recording_step(actions):
        out = step(actions)
        turns.append((seen["obs"], actions.clone(), out[1].clone(), out[2].clone(), out[0].clone()))
        seen["obs"] = out[0].clone()
        return out

    trainer.env.reset, trainer.env.step = recording_reset, recording_step
    grads = {}
    # keep the gradients, leave the weights as they were
    trainer.optimizer.step = lambda: grads.update(
        {n: p.grad.clone() for n, p in agent.net.named_parameters()}
    )
    stats = trainer.step()

    agent.net.zero_grad()
    gamma, total, count = agent.config.gamma, torch.zeros(()), 0
    for game in range(24):
        for obs, actions, rewards, terminated, after in turns:
            logits, value = agent.logits_values(obs[game : game + 1])
            log_p = torch.log_softmax(logits[0], dim=0)[actions[game]]
            with torch.no_grad():
                following = (
                    0.0 if terminated[game] else agent.logits_values(after[game : game + 1])[1][0]
                )
            advantage = rewards[game] + gamma * following - value[0]
            total = total + (-log_p * advantage.detach() + advantage**2)
            count += 1
            if terminated[game]:
                break
    loss = total / count
    loss.backward()
    assert stats.loss == pytest.approx(float(loss.detach()), rel=1e-5)
    for name, param in agent.net.named_parameters():
        assert torch.allclose(grads[name], param.grad, rtol=1e-4, atol=1e-6), name


def test_trainer__live_games_only_and_all_games_make_the_same_update() -> None:
    """The CPU path (network on the live games only) and the GPU path (every game every turn,
    masked) play the same games and make the same update, update after update, queued answers forced
    included."""
    answers, allowed = stage_words("40")
    config = A2CConfig(hidden=48, batch_games=64, dropout=0.0, queue_prob=0.5, seed=5)
    agents = [A2CAgent(config, device="cpu") for _ in range(2)]
    trainers = [A2CTrainer(agent, answers, allowed) for agent in agents]
    for _ in range(6):
        (drawn_a, loss_a, wins_a, guesses_a), (drawn_b, loss_b, wins_b, guesses_b) = (
            update_both_ways(trainers)
        )
        assert (
            torch.equal(drawn_a, drawn_b)
            and torch.equal(wins_a, wins_b)
            and torch.equal(guesses_a, guesses_b)
        )
        assert float(loss_a) == pytest.approx(float(loss_b), rel=1e-5)
    # games ended on different turns
    assert 0 < int(wins_a.sum()) < 64 and guesses_a.max() > guesses_a[wins_a].min()
    for (name, a), b in zip(
        agents[0].net.named_parameters(), agents[1].net.parameters(), strict=True
    ):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-5), name


def update_both_ways(
    trainers: list[A2CTrainer],
) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]]:
    """One update of the first trainer on the live games only and of the second on every game every
    turn:
    (answers, loss, wins, guesses) of each."""
    outs = []
    for trainer, compact in zip(trainers, (True, False), strict=True):
        drawn, queued = trainer.draw_answers()
        obs, _ = trainer.env.reset(options={"answers": drawn})
        batch = trainer.rollout(obs, drawn, queued, compact=compact)
        outs.append((drawn, trainer.update(trainer.loss(batch)), batch.wins, batch.guesses))
        trainer.queue_losses(drawn, batch.wins)
    return outs


@pytest.mark.parametrize("block", [1, 5, 64, None])
def test_word_head__log_partition_and_draws_match_plain_ops(block: int | None) -> None:
    """The fused word head (logits made a block of rows at a time, never kept): its log normaliser
    and gradient against logsumexp over the full logits, its draws against the plain sampler."""
    from wordle_agents.common.network import WordScorer, sample_categorical

    words = stage_words("1000")[0]
    head = WordScorer(5)
    head.set_words(words)
    scores = (torch.randn(37, 130) * 2).requires_grad_()
    u = torch.rand(37, generator=torch.Generator().manual_seed(2))
    log_z, drawn = head.log_partition(scores, u, block)
    reference = scores.detach().requires_grad_()
    plain = torch.logsumexp(head(reference), 1)
    assert torch.allclose(log_z, plain, atol=1e-5)
    weights = torch.rand(37)
    (log_z * weights).sum().backward()
    (plain * weights).sum().backward()
    assert torch.allclose(scores.grad, reference.grad, atol=1e-6)
    probs = torch.softmax(head(scores.detach()), 1)
    # the same uniform numbers
    expected = sample_categorical(probs, torch.Generator().manual_seed(2))
    # rounding may move a boundary
    assert (drawn == expected).float().mean() >= 0.97 and drawn.max() < len(words)
    log_pi = head.pick(scores, drawn) - log_z
    plain_log_pi = torch.log_softmax(head(scores.detach()), 1).gather(1, drawn[:, None])[:, 0]
    assert torch.allclose(log_pi, plain_log_pi, atol=1e-5)
    # Without uniform numbers (PPO's passes): the same normaliser and gradient, nothing drawn.
    undrawn = scores.detach().requires_grad_()
    free_z, none = head.log_partition(undrawn, None, block)
    (free_z * weights).sum().backward()
    # a sum, not a cumulative one
    assert torch.allclose(free_z, log_z.detach(), atol=1e-5) and none.numel() == 0
    assert torch.allclose(undrawn.grad, reference.grad, atol=1e-6)


@pytest.mark.parametrize("block", [1, 5, None])
def test_word_head__entropy_and_its_gradient_are_the_full_softmaxs(block: int | None) -> None:
    """Issue 46: the entropy of the whole word softmax from the blocked pass (no (B, W) logits
    kept), and its gradient, against torch's Categorical over the full logits (float64); the same
    log normaliser and draws as log_partition."""
    from wordle_agents.common.network import WordScorer

    head = WordScorer(5)
    head.set_words(stage_words("1000")[0])
    head = head.double()
    scores = (torch.randn(23, 130, dtype=torch.float64) * 2).requires_grad_()
    u = torch.rand(23, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    log_z, drawn, entropy = head.log_partition_entropy(scores, u, block)
    reference = scores.detach().requires_grad_()
    plain = torch.distributions.Categorical(logits=head(reference))
    assert torch.allclose(entropy, plain.entropy(), atol=1e-10) and entropy.min() > 0.1
    weights, other = torch.rand(23, dtype=torch.float64), torch.rand(23, dtype=torch.float64)
    (entropy * weights + log_z * other).sum().backward()
    (plain.entropy() * weights + torch.logsumexp(head(reference), 1) * other).sum().backward()
    assert torch.allclose(scores.grad, reference.grad, atol=1e-10)
    same_z, same_drawn = head.log_partition(scores.detach(), u, block)
    assert torch.equal(drawn, same_drawn) and torch.allclose(log_z, same_z, atol=1e-12)
    free_z, none, free_entropy = head.log_partition_entropy(scores.detach(), None, block)
    assert torch.allclose(free_z, log_z, atol=1e-12) and torch.allclose(
        free_entropy, entropy, atol=1e-12
    )
    assert none.numel() == 0


@pytest.mark.parametrize("kind", ["a2c", "dqn"])
def test_greedy_play__the_best_allowed_word_by_score(kind: str) -> None:
    """``act`` (letter scores, a block of rows at a time) plays the masked argmax of ``scores``."""
    from wordle_agents.rl.dqn import DQNAgent, DQNConfig

    agent = (
        A2CAgent(A2CConfig(hidden=32))
        if kind == "a2c"
        else DQNAgent(DQNConfig(hidden=32, layers=1))
    )
    env = WordleVectorEnv(64, device="cpu", action_mask="candidates")
    obs, infos = env.reset(seed=1)
    for _ in range(3):
        masks = infos["action_mask"].bool()
        actions = agent.act(obs, infos["action_mask"], env)
        with torch.no_grad():
            scores = agent.scores(obs).masked_fill(~masks, -torch.inf)
        assert masks.gather(1, actions[:, None]).all()
        assert torch.allclose(scores.gather(1, actions[:, None])[:, 0], scores.amax(1), atol=1e-5)
        obs, _, _, _, infos = env.step(actions)
