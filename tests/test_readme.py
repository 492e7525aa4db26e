"""Every Python snippet of the README runs as written, in order, as a reader would paste them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme__python_snippets_run_as_written(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    assert len(blocks) >= 5
    script = tmp_path / "readme.py"
    script.write_text("\n".join(blocks))
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "TMPDIR": str(tmp_path),  # SB3 makes a folder in the temp dir
        "MINARI_DATASETS_PATH": str(tmp_path / "minari"),
    }
    out = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "2315/2315 won (100.00 %)" in out.stdout
