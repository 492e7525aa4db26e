"""DQN: letter-decomposed values, prioritized game sampling, learning, checkpoints and resume."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from tests.helpers.processes import ROOT, wordle_gym_here
from wordle_agents.rl.dqn import DQNAgent, DQNConfig, DQNTrainer, QNet
from wordle_gym import WordleVectorEnv
from wordle_gym.core.words import stage_words
from wordle_gym.envs.observation import KnowledgeLayout
from wordle_gym.harness.evaluation import evaluate

OBS = KnowledgeLayout(5, 6).size
SMALL = {
    "num_games": 64,
    "hidden": 256,
    "layers": 2,
    "batch_size": 256,
    "buffer_size": 20_000,
    "learning_starts": 1_000,
    "target_update": 200,
    "lr": 1e-3,
}


def test_qnet__word_value_is_the_sum_of_its_letter_values() -> None:
    net = QNet(OBS, 5, hidden=32, layers=2, dueling=False)
    net.words.set_words(["cigar", "cigas", "rebut"])
    obs = torch.randint(0, 2, (4, OBS))
    q = net(obs)
    letters = net.letters(net.trunk(obs.float())).view(4, 26, 5)
    cigar = sum(letters[:, ord(c) - 97, i] for i, c in enumerate("cigar"))
    assert torch.allclose(q[:, 0], cigar, atol=1e-5)
    assert torch.allclose(q[:, 0] - q[:, 1], letters[:, 17, 4] - letters[:, 18, 4], atol=1e-5)
    dueling = QNet(OBS, 5, hidden=32, layers=2, dueling=True)
    dueling.words.set_words(["cigar", "cigas", "rebut"])
    features = dueling.trunk(obs.float())
    q = dueling(obs)
    # V + A - mean(A)
    assert torch.allclose(q.mean(1, keepdim=True), dueling.value(features), atol=1e-5)
    assert not any("one_hot" in key for key in dueling.state_dict())


@pytest.mark.slow
def test_dqn__learns_a_20_word_wordle() -> None:
    answers, allowed = stage_words("20")
    agent = DQNAgent(DQNConfig(**SMALL, total_updates=3000), device="cpu")
    trainer = DQNTrainer(agent, answers, allowed)
    best, checked = 0.0, 0
    while trainer.iteration < 3000 and best < 0.95:
        trainer.step()
        if trainer.iteration // 200 > checked:
            checked = trainer.iteration // 200
            best = max(
                best,
                evaluate(
                    agent, answers=answers, allowed=None, device="cpu", progress=False
                ).win_rate,
            )
    assert best >= 0.95


def test_dqn__lost_answers_are_drawn_more_often_and_masks_honoured() -> None:
    answers, allowed = stage_words("40")
    agent = DQNAgent(DQNConfig(**{**SMALL, "learning_starts": 10**9}), device="cpu")
    trainer = DQNTrainer(agent, answers, allowed)
    for _ in range(30):  # epsilon 1: random play, most games lost
        trainer.step()
    weights = trainer.answer_weights
    assert weights.max() > 1.0 and torch.equal(trainer.env.answer_weights, weights)
    assert trainer.iteration == 0 and len(trainer.buffer) == 30 * 64
    # the floor that keeps weights alive
    assert trainer.buffer.eps == trainer.config.priority_eps == 0.01
    env = WordleVectorEnv(8, device="cpu", answers=answers, allowed=None, action_mask="candidates")
    obs, infos = env.reset(seed=0)
    obs, *_, infos = env.step(torch.zeros(8, dtype=torch.long))
    actions = agent.act(obs, infos["action_mask"], env)
    assert infos["action_mask"][torch.arange(8), actions].all()


def test_dqn__checkpoint_roundtrip_and_cli(tmp_path: Path) -> None:
    answers, _ = stage_words("20")
    agent = DQNAgent(DQNConfig(hidden=64, layers=2), device="cpu")
    agent.save(tmp_path / "dqn.pt", {"answers": answers, "allowed": None, "stage": "20"})
    loaded = DQNAgent.load(tmp_path / "dqn.pt")
    env = WordleVectorEnv(20, device="cpu", answers=answers, allowed=None)
    obs, infos = env.reset(seed=0)
    assert torch.equal(
        agent.act(obs, infos["action_mask"], env), loaded.act(obs, infos["action_mask"], env)
    )
    out = wordle_gym_here(
        "eval", "--agent", "dqn", "--checkpoint", str(tmp_path / "dqn.pt"), "--device", "cpu"
    )
    assert out.returncode == 0, out.stderr
    assert "| dqn (dqn.pt) |" in out.stdout and "/20 won" in out.stdout
    with pytest.raises(ValueError, match="holds 'dqn', expected an 'a2c' checkpoint"):
        from wordle_agents.rl.a2c import A2CAgent

        A2CAgent.load(tmp_path / "dqn.pt")


@pytest.mark.slow
def test_train_dqn_example__resumes_after_a_kill(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    cmd = [
        sys.executable,
        "examples/train_dqn.py",
        "--stages",
        "20",
        "--iterations",
        "600",
        "--num-games",
        "32",
        "--hidden",
        "64",
        "--layers",
        "2",
        "--batch-size",
        "64",
        "--buffer-size",
        "5000",
        "--learning-starts",
        "200",
        "--device",
        "cpu",
        "--run-dir",
        str(run_dir),
        "--eval-every",
        "100",
        "--checkpoint-every",
        "10",
        "--tensorboard",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 120
    while not (run_dir / "last.pt").exists() and time.time() < deadline:
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    saved = torch.load(run_dir / "last.pt", weights_only=True)
    assert (
        0 < saved["trainer"]["iteration"] < 600 and len(saved["trainer"]["buffer"]["actions"]) > 0
    )
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "resuming" in out.stdout and "stage 20: best" in out.stdout
    done = torch.load(run_dir / "last.pt", weights_only=True)
    assert (
        done["stage_index"] == 1
        and done["step_offset"] == 600
        and (run_dir / "best_20.pt").exists()
    )
    assert list((run_dir / "tb").glob("events.out.tfevents.*"))
    # The finished run exports its best weights in float16: half the file, the same network within
    # rounding.
    half = tmp_path / "dqn_half.pt"
    out = subprocess.run(
        [*cmd, "--export", str(half), "--half"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    weights = torch.load(half, weights_only=True)["model"]
    assert all(v.dtype == torch.float16 for k, v in weights.items() if "weight" in k)
    assert half.stat().st_size < 0.6 * (run_dir / "best_20.pt").stat().st_size
    full, halved = DQNAgent.load(run_dir / "best_20.pt"), DQNAgent.load(half)
    assert all(p.dtype == torch.float32 for p in halved.net.parameters())
    env = WordleVectorEnv(20, device="cpu", answers=stage_words("20")[0], allowed=None)
    obs, _ = env.reset(seed=0)
    full.use_words(env.words)
    halved.use_words(env.words)
    with torch.no_grad():
        q_full, q_half = full.scores(obs), halved.scores(obs)
    assert not torch.equal(q_full, q_half) and torch.allclose(q_full, q_half, rtol=1e-2, atol=1e-2)


def test_dqn_trainer__state_roundtrip_continues_the_schedule() -> None:
    answers, allowed = stage_words("20")
    config = DQNConfig(**{**SMALL, "learning_starts": 128, "num_games": 32})
    trainer = DQNTrainer(DQNAgent(config, device="cpu"), answers, allowed)
    while trainer.iteration < 20:
        trainer.step()
    saved = io.BytesIO()  # through bytes, as last.pt is: the trainer's own tensors keep changing
    torch.save(trainer.state_dict(), saved)
    saved.seek(0)
    state = torch.load(saved, weights_only=True)
    resumed = DQNTrainer(DQNAgent(config, device="cpu"), answers, allowed)
    resumed.load_state_dict(state)
    assert resumed.iteration == trainer.iteration and resumed.epsilon == trainer.epsilon
    assert torch.equal(resumed.buffer.priorities_alpha(), trainer.buffer.priorities_alpha())
    assert resumed.buffer.total == pytest.approx(trainer.buffer.total) and len(
        resumed.buffer
    ) == len(trainer.buffer)
    for a, b in zip(trainer.agent.net.parameters(), resumed.agent.net.parameters(), strict=True):
        assert torch.equal(a, b)
    for _ in range(3):  # the games in flight were saved too: the resumed run continues exactly
        trainer.step()
        resumed.step()
    assert resumed.iteration == trainer.iteration and torch.equal(
        resumed.observations, trainer.observations
    )
    assert torch.equal(resumed.env.state.answers, trainer.env.state.answers)
    for a, b in zip(trainer.agent.net.parameters(), resumed.agent.net.parameters(), strict=True):
        assert torch.equal(a, b)


@pytest.mark.parametrize("dueling", [True, False])
def test_qnet__action_values_are_the_full_values_at_the_action(dueling: bool) -> None:
    net = QNet(OBS, 5, hidden=32, layers=2, dueling=dueling)
    net.words.set_words(stage_words("100")[0])
    obs, actions = torch.randint(0, 2, (16, OBS)), torch.randint(0, 100, (16,))
    full = net(obs)
    assert torch.allclose(
        net.action_values(obs, actions), full[torch.arange(16), actions], atol=1e-5
    )
    letters = net.letters(net.trunk(obs.float()))
    assert torch.allclose(net.words.mean(letters), net.words(letters).mean(1), atol=1e-5)


@pytest.mark.parametrize("double", [True, False])
def test_dqn_update__loss_and_gradients_match_a_plain_reference(double: bool) -> None:
    """One update against the DQN loss written out with every word scored: Q(s, a) read from the
    full value row, the (Double-DQN) target from the full rows of the next states."""
    answers, allowed = stage_words("40")
    config = DQNConfig(
        **{**SMALL, "num_games": 32, "batch_size": 64, "learning_starts": 64, "double": double}
    )
    trainer = DQNTrainer(DQNAgent(config, device="cpu"), answers, allowed)
    while len(trainer.buffer) < 64:
        trainer.step()
    trainer.target.load_state_dict(
        {k: v + 0.01 * torch.randn_like(v) for k, v in trainer.target.state_dict().items()}
    )
    batch = trainer.buffer.sample(64, generator=torch.Generator().manual_seed(5))
    trainer.buffer.sample = lambda *args, **kwargs: batch
    net, grads = trainer.agent.net, {}
    trainer.optimizer.step = lambda: grads.update(
        {n: p.grad.clone() for n, p in net.named_parameters()}
    )
    loss = float(trainer._learn())

    net.zero_grad()
    q = net(batch.observations)[torch.arange(64), batch.actions]
    with torch.no_grad():
        following = (net if double else trainer.target)(batch.next_observations).argmax(1)
        bootstrap = trainer.target(batch.next_observations)[torch.arange(64), following]
        y = batch.rewards + config.gamma * bootstrap * (~batch.dones)
    reference = (batch.weights * torch.nn.functional.smooth_l1_loss(q, y, reduction="none")).mean()
    reference.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), config.grad_clip)
    assert loss == pytest.approx(float(reference.detach()), rel=1e-5)
    for name, param in net.named_parameters():
        assert torch.allclose(grads[name], param.grad, rtol=1e-4, atol=1e-6), name


@pytest.mark.parametrize("block", [1, 7, None])
def test_best_actions__the_full_rows_masked_argmax(block: int | None) -> None:
    """The argmax that acting and the Double-DQN target use (letter values only, a block of rows at
    a time) against the argmax of the full dueling rows, with and without a mask."""
    allowed = stage_words("full")[1]
    net = DQNAgent(DQNConfig(**SMALL), device="cpu").net
    net.words.set_words(allowed)
    obs = torch.rand(40, net.trunk[0].in_features) < 0.2
    allowed_mask = torch.rand(40, len(allowed)) < 0.1
    with torch.no_grad():
        rows = net(obs)
        letters = net.letters(net.trunk(obs.float()))
        for mask in (None, allowed_mask):
            best = net.words.best(letters, mask, block)
            plain = rows if mask is None else rows.masked_fill(~mask, -torch.inf)
            # up to near-ties
            assert torch.allclose(plain.gather(1, best[:, None])[:, 0], plain.amax(1), atol=1e-5)
            assert (best == plain.argmax(1)).float().mean() >= 0.95
            assert mask is None or mask.gather(1, best[:, None]).all()
        assert torch.equal(
            net.best_actions(obs, allowed_mask), net.words.best(letters, allowed_mask)
        )


def test_dqn_curriculum__later_stages_and_init_start_with_little_exploration(
    tmp_path: Path,
) -> None:
    """Regression: every stage restarted exploration at 1.0, and the random play unlearned the
    previous stage (30 % greedy wins on 1000 words fell to 0.7 %)."""
    from dataclasses import replace

    from wordle_agents.common import training
    from wordle_agents.rl import dqn

    started: list[float] = []

    def recording(*args):
        trainer = dqn.TRAINING.make_trainer(*args)
        started.append(trainer.epsilon)
        return trainer

    spec = replace(dqn.TRAINING, make_trainer=recording)
    tiny = [
        "--iterations",
        "2",
        "--eval-every",
        "2",
        "--device",
        "cpu",
        "--hidden",
        "16",
        "--layers",
        "1",
        "--num-games",
        "8",
        "--batch-size",
        "8",
        "--learning-starts",
        "8",
        "--eps-warm-start",
        "0.2",
    ]
    assert training.main(spec, ["--stages", "10,20", "--run-dir", str(tmp_path / "a"), *tiny]) == 0
    init = ["--init", str(tmp_path / "a" / "best_10.pt")]
    assert (
        training.main(spec, ["--stages", "20", "--run-dir", str(tmp_path / "b"), *init, *tiny]) == 0
    )
    assert started == [1.0, 0.2, 0.2]
    with pytest.raises(ValueError, match="eps_warm_start must be in \\[0, 1\\]; got 1.5"):
        DQNConfig(eps_warm_start=1.5)


def test_dqn_stage__makes_exactly_its_updates(tmp_path: Path, capsys) -> None:
    """Regression (issue 65): two updates a step made a stage of 5 updates end at update 6 (and say
    so)."""
    import json

    from wordle_agents.common import training
    from wordle_agents.rl import dqn

    tiny = [
        "--stages",
        "10",
        "--iterations",
        "5",
        "--eval-every",
        "5",
        "--device",
        "cpu",
        "--hidden",
        "16",
    ]
    tiny += ["--layers", "1", "--num-games", "8", "--batch-size", "8", "--learning-starts", "8"]
    assert dqn.DQNConfig().updates_per_step == 2
    assert training.main(dqn.TRAINING, [*tiny, "--run-dir", str(tmp_path / "run")]) == 0
    rows = [
        json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    ]
    assert rows[-1]["iteration"] == 5
    assert "at update 5 ->" in capsys.readouterr().out
