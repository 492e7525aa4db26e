"""Checkpoints from elsewhere: non-finite, integer or huge declared weights, and bad word lists are
refused in one line, before a network is built."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
import torch

from wordle_agents.rl.a2c import A2CAgent, A2CConfig
from wordle_agents.rl.dqn import DQNAgent, DQNConfig
from wordle_gym.utils.files import atomic_torch_save


# ------------------------------------------------------------------------------ 4 and 6. weights
def _tiny_a2c(tmp_path: Path) -> tuple[Path, dict]:
    agent = A2CAgent(A2CConfig(hidden=16))
    path = tmp_path / "a2c.pt"
    agent.save(path)
    return path, torch.load(path, weights_only=True)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda w: w.__setitem__(0, math.inf), "holds NaN or infinite weights"),
        (lambda w: w.__setitem__(0, math.nan), "holds NaN or infinite weights"),
    ],
)
def test_weights__non_finite_values_are_refused(tmp_path: Path, change, message: str) -> None:
    path, data = _tiny_a2c(tmp_path)
    name = next(k for k, v in data["model"].items() if v.ndim == 1)
    change(data["model"][name])
    atomic_torch_save(path, data)
    with pytest.raises(ValueError, match=message):
        A2CAgent.load(path)


@pytest.mark.parametrize("dtype", [torch.int64, torch.bool])
def test_weights__integer_or_bool_weights_are_refused(tmp_path: Path, dtype: torch.dtype) -> None:
    path, data = _tiny_a2c(tmp_path)
    name = next(iter(data["model"]))
    data["model"][name] = data["model"][name].to(dtype)
    atomic_torch_save(path, data)
    with pytest.raises(
        ValueError, match=f"holds {str(dtype).removeprefix('torch.')} weights; expected floating"
    ):
        A2CAgent.load(path)


def test_weights__a_huge_declared_network_is_refused_before_it_is_built(tmp_path: Path) -> None:
    """A small file declaring a width-16384 DQN (about 3 GB of weights): refused from the
    meta-device skeleton, the process never growing past a few hundred MB."""
    small = DQNAgent(DQNConfig(hidden=16))
    path = tmp_path / "dqn.pt"
    small.save(path)
    data = torch.load(path, weights_only=True)
    data["config"] = {**asdict(small.config), "hidden": 16_384, "layers": 4}
    atomic_torch_save(path, data)
    code = (
        "import resource, sys\nfrom wordle_agents.rl.dqn import DQNAgent\ntry:\n    "
        f"DQNAgent.load({str(path)!r})\nexcept ValueError as exc:\n    "
        "print(exc)\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    message, peak_mb = out.stdout.strip().splitlines()
    assert "the weights do not fit its dqn config" in message and "shape" in message
    assert int(peak_mb) < 1500, f"{peak_mb} MB: the declared network was allocated"


def test_weights__a_reason_is_given_and_word_lists_are_bounded(tmp_path: Path) -> None:
    path, data = _tiny_a2c(tmp_path)
    data["answers"] = [f"w{i:04d}" for i in range(200_000)]
    atomic_torch_save(path, data)
    with pytest.raises(ValueError, match="exceed"):
        A2CAgent.load(path)
    atomic_torch_save(path, {**data, "answers": "cigar"})
    with pytest.raises(ValueError, match="'answers' must be a list of words"):
        A2CAgent.load(path)


def test_load__a_device_this_machine_lacks_is_named_not_the_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = _tiny_a2c(tmp_path)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # a machine without CUDA
    with pytest.raises(
        ValueError, match="device 'cuda' was asked for but CUDA is not available"
    ) as caught:
        A2CAgent.load(path, "cuda")
    assert "do not fit" not in str(caught.value) and "checkpoint" not in str(caught.value)


# ------------------------------------------------------------------ the checkpoint a command writes
def _checkpoint_of(device: str) -> tuple[DQNAgent, dict]:
    from types import SimpleNamespace

    from wordle_agents.common.checkpoint import network_checkpoint

    agent = DQNAgent(DQNConfig(hidden=16, layers=1), device=device)
    words = SimpleNamespace(answers=["cigar", "rebut"], allowed=["cigar", "rebut"])
    return agent, network_checkpoint(agent, words, hard_mode=False, real=False)


def test_network_checkpoint__the_weights_are_a_copy_not_the_live_network() -> None:
    agent, data = _checkpoint_of("cpu")
    saved = {k: v.clone() for k, v in data["model"].items()}
    with torch.no_grad():
        for p in agent.net.parameters():
            p.add_(1.0)
    assert all(torch.equal(data["model"][k], saved[k]) for k in saved)


@pytest.mark.cuda
def test_network_checkpoint__weights_of_a_network_on_cuda_are_stored_on_the_cpu() -> None:
    # written on a GPU, the file loaded on a CPU-only machine raised
    _, data = _checkpoint_of("cuda")
    assert {v.device.type for v in data["model"].values()} == {"cpu"}


def test_network_checkpoint__the_real_lists_are_stored_by_name_and_read_back_whole(
    tmp_path: Path,
) -> None:
    """The real game's lists were stored in full in every checkpoint (a few hundred KB each): now by
    name, and read back as the words; other lists stay words, and a name under the other key is
    refused."""
    from wordle_agents.common.checkpoint import CheckpointInfo, network_checkpoint
    from wordle_gym.core.config import WordleConfig
    from wordle_gym.core.words import load_word_list

    agent = DQNAgent(DQNConfig(hidden=16), 5, "cpu")
    real = network_checkpoint(agent, WordleConfig().vocabulary, False, True)
    assert (real["answers"], real["allowed"]) == ("answers", "allowed")
    atomic_torch_save(tmp_path / "real.pt", real)
    loaded = DQNAgent.load(tmp_path / "real.pt")
    assert loaded.checkpoint.answers == load_word_list("answers")
    assert loaded.checkpoint.allowed == load_word_list("allowed")
    few = load_word_list("answers")[:30]
    custom = network_checkpoint(
        agent, WordleConfig(answers=few, allowed=None).vocabulary, False, False
    )
    assert custom["answers"] == few and custom["allowed"] == few
    with pytest.raises(ValueError, match="'allowed' must be a list of words; got str"):
        CheckpointInfo.of("crafted.pt", {**real, "allowed": "answers"})
