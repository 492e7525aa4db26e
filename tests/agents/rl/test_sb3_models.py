"""Files from elsewhere never run code: SB3 zips with pickled payloads, damaged zips."""

from __future__ import annotations

import base64
import contextlib
import json
import math
import warnings
import zipfile
from pathlib import Path

import cloudpickle
import pytest
import torch
from sb3_contrib import MaskablePPO

from wordle_agents.rl.sb3_policies import SB3Policy
from wordle_gym.integrations.sb3 import make_sb3_vec_env

WORDS = ["cigar", "rebut", "sissy"]


class Payload:
    """Creates ``marker`` when unpickled."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (open, (self.marker, "w"))


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sb3") / "genuine.zip"
    venv = make_sb3_vec_env(num_envs=4, device="cpu", answers=WORDS, allowed=None)
    MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=32, device="cpu").save(str(path))
    return path


def tampered(
    genuine: Path, out: Path, marker: Path, key: str, data_edit=None, drop: str | None = None
) -> Path:
    """A copy of ``genuine`` whose ``data[key]`` unpickles to a payload that creates ``marker``."""
    with zipfile.ZipFile(genuine) as src:
        entries = {name: src.read(name) for name in src.namelist()}
    data = json.loads(entries["data"])
    blob = base64.b64encode(cloudpickle.dumps(Payload(str(marker)))).decode()
    base = data[key] if isinstance(data.get(key), dict) else {":type:": "<class 'object'>"}
    data[key] = {**base, ":serialized:": blob}
    if data_edit:
        data_edit(data)
    entries["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(out, "w") as dst:
        for name, payload in entries.items():
            if name != drop:
                dst.writestr(name, payload)
    return out


def test_payload__is_real_when_sb3_unpickles_it(genuine: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = tampered(genuine, tmp_path / "evil.zip", marker, "observation_space")
    # whatever happens after, the code ran
    with contextlib.suppress(Exception), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        MaskablePPO.load(str(evil), device="cpu")
    assert marker.exists()


@pytest.mark.parametrize(
    "key",
    ["observation_space", "action_space", "policy_class", "lr_schedule", "clip_range", "_last_obs"],
)
def test_load__replaces_every_pickled_entry_without_running_it(
    genuine: Path, tmp_path: Path, key: str
) -> None:
    marker = tmp_path / "pwned"
    policy = SB3Policy.load(tampered(genuine, tmp_path / "evil.zip", marker, key))
    assert not marker.exists()
    assert policy.model.action_space.n == 3 and policy.model.observation_space.shape == (319,)


def test_load__refuses_pickles_it_cannot_rebuild(genuine: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    with pytest.raises(ValueError, match="holds a pickled 'extra', which could run code"):
        SB3Policy.load(tampered(genuine, tmp_path / "evil.zip", marker, "extra"))
    with pytest.raises(ValueError, match="holds a pickled 'policy_kwargs'"):
        SB3Policy.load(tampered(genuine, tmp_path / "kw.zip", marker, "policy_kwargs"))
    assert not marker.exists()


def test_load__policy_of_another_kind_is_refused(genuine: Path, tmp_path: Path) -> None:
    def spoof(data: dict) -> None:
        data["policy_class"]["__module__"] = "my_package.policies"

    with pytest.raises(
        ValueError, match="holds a policy my_package.policies that is not the MlpPolicy"
    ):
        SB3Policy.load(
            tampered(genuine, tmp_path / "custom.zip", tmp_path / "m", "policy_class", spoof)
        )


def test_load__damaged_or_mismatched_zips_give_one_line_errors(
    genuine: Path, tmp_path: Path
) -> None:
    with zipfile.ZipFile(genuine) as src:
        entries = {name: src.read(name) for name in src.namelist()}
    broken = tmp_path / "truncated.zip"
    with zipfile.ZipFile(broken, "w") as dst:
        for name, payload in entries.items():
            dst.writestr(name, payload[: len(payload) // 2] if name == "policy.pth" else payload)
    with pytest.raises(
        ValueError,
        match=r"truncated.zip' could not be loaded as a maskable_ppo "
        r"model \(",
    ) as info:
        SB3Policy.load(broken)
    assert "\n" not in str(info.value)
    with pytest.raises(
        ValueError, match="holds a maskable_ppo model; --sb3-algo dqn does not match it"
    ):
        SB3Policy.load(genuine, algorithm="dqn")
    (tmp_path / "not.zip").write_text("hello")
    with pytest.raises(ValueError, match="is not a Stable-Baselines3 model file"):
        SB3Policy.load(tmp_path / "not.zip")


def test_sb3__non_finite_weights_are_refused(tmp_path: Path) -> None:
    from wordle_agents.common.checkpoint import shipped_dir
    from wordle_agents.rl.sb3_policies import SB3Policy, save_model

    policy = SB3Policy.load(shipped_dir() / "maskable_ppo_100.zip")
    with torch.no_grad():
        next(policy.model.policy.parameters())[0] = math.inf
    save_model(policy.model, tmp_path / "inf.zip")
    with pytest.raises(ValueError, match="holds NaN or infinite weights"):
        SB3Policy.load(tmp_path / "inf.zip")
