"""Thread use that holds up on a busy machine: ``import wordle_gym`` makes OpenMP's threads sleep
while they wait (``OMP_WAIT_POLICY=PASSIVE``) unless the user chose a policy, before anything loads
OpenMP."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CODE = (
    "import os, sys; import wordle_gym; print(os.environ.get('OMP_WAIT_POLICY'), 'torch' in "
    "sys.modules)"
)


def _run(code: str, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def test_import__sets_a_passive_wait_policy_before_openmp_loads() -> None:
    # regression (issue 65): OpenMP's spinning waits made a two-board eval 2.3x slower beside one
    # busy process
    assert _run(CODE) == "PASSIVE False"  # set, and torch (OpenMP) not loaded by the import itself


@pytest.mark.parametrize("chosen", ["ACTIVE", "passive"])
def test_import__keeps_a_policy_the_user_chose(chosen: str) -> None:
    assert _run(CODE, OMP_WAIT_POLICY=chosen) == f"{chosen} False"


def test_import__after_torch_changes_nothing() -> None:
    """OpenMP has read its settings by then: setting the policy would claim an effect it cannot
    have."""
    assert _run("import torch, os, wordle_gym; print(os.environ.get('OMP_WAIT_POLICY'))") == "None"


def test_import__the_agents_first_set_the_policy_before_they_load_torch() -> None:
    """First hour 4, item 3: the README's third snippet imports ``wordle_agents`` first, whose
    solver loaded torch before ``wordle_gym`` could set the policy: beside two busy processes it
    took 15.7 s against 11.4 s now (``python -m benchmarks.contention --library``)."""
    code = (
        "import os, sys; from wordle_agents import MaxEntropySolver; "
        "print(os.environ.get('OMP_WAIT_POLICY'), 'torch' in sys.modules)"
    )
    assert _run(code) == "PASSIVE True"
