"""Files and faults: atomic outputs, leftovers, permissions, locks, logs that survive a kill."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.processes import ROOT, drain
from wordle_gym.utils.files import (
    atomic_write,
    atomic_write_text,
    check_writable,
    clean_stale_temporaries,
)


def test_atomic_write__a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "plot.png"
    target.write_bytes(b"old")

    def half_then_fail(handle) -> None:  # e.g. savefig killed by an error half-way
        handle.write(b"half a png")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write(target, half_then_fail)
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == [
        "plot.png"
    ]


def test_atomic_write__leftovers_of_killed_writers_are_removed(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    stale = tmp_path / f".BENCHMARKS.md.{int(dead.stdout)}.0123abcd.tmp"
    mine = tmp_path / f".other.{os.getpid()}.89abcdef.tmp"  # a live writer's: kept
    stale.write_text("x")
    mine.write_text("x")
    atomic_write_text(tmp_path / "BENCHMARKS.md", "table\n")
    assert (
        not stale.exists()
        and mine.exists()
        and (tmp_path / "BENCHMARKS.md").read_text() == "table\n"
    )
    assert clean_stale_temporaries(tmp_path) == []


def test_atomic_write__long_names_and_the_umask(tmp_path: Path) -> None:
    name = "r" * 250 + ".json"  # valid (255 bytes); a temporary name built from it would not be
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / name, "{}\n")
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o644
        os.umask(0o077)
        atomic_write_text(tmp_path / "private.json", "{}\n")
        assert (tmp_path / "private.json").stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)


def test_check_writable__refuses_what_cannot_be_written(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is a file; expected a folder"):
        check_writable(tmp_path / "file", folder=True)
    with pytest.raises(ValueError, match="the name is too long"):
        check_writable(tmp_path / ("x" * 300))
    with pytest.raises(ValueError, match="cannot write '/proc/wordle/x.json'"):
        check_writable("/proc/wordle/x.json")  # read-only even for root
    assert check_writable(tmp_path / "new" / "folder", folder=True).is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "new"]  # no probe left behind


@pytest.mark.parametrize("empty", ["", " "])
def test_check_writable__refuses_an_empty_path(
    empty: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (issue 62): ``--run-dir ""`` trained into the working folder (``Path("")`` is
    ``.``) and ``--out ""`` said "'.' is a folder"."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="is an empty path; expected a folder"):
        check_writable(empty, folder=True)
    with pytest.raises(ValueError, match="is an empty path; expected a file name"):
        check_writable(empty)
    assert not list(tmp_path.iterdir())


# --------------------------------------------------------------------------- 1. outputs and devices
def test_outputs__a_fifo_is_written_into_never_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader, got = drain(fifo)
    atomic_write_text(fifo, "hello\n")
    reader.join(10)
    assert got == [b"hello\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary left beside it


def test_outputs__a_link_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("old")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    atomic_write_text(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink() and (tmp_path / "real.json").read_text() == "new"


@pytest.mark.slow
def test_numba_cache__compiled_kernels_go_to_the_user_cache_never_beside_the_package(
    tmp_path: Path,
) -> None:
    """Issue 65: numba wrote its cache files into site-packages/wordle_gym and wordle_agents; an
    editable install over them then found those folders first as empty packages. A copy of the
    packages is the install; after the vector env's masks and an exact-solver kernel run, no file is
    new in it."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    skip = shutil.ignore_patterns("__pycache__", "checkpoints", "*.nbi", "*.nbc")
    shutil.copytree(ROOT / "wordle_gym", site / "wordle_gym", ignore=skip)
    shutil.copytree(ROOT / "agents", site / "wordle_agents", ignore=skip)
    before = {p for p in site.rglob("*") if p.is_file()}
    vector = (
        "import torch, gymnasium as gym, wordle_gym\n"
        "env = gym.make_vec('Wordle-v1', num_envs=4096, device='cpu', action_mask='candidates')\n"
        "env.reset(seed=0); env.step(torch.zeros(4096, dtype=torch.long))\n"
    )
    kernel = (
        "import numpy as np, numba.core.config as config\nfrom wordle_gym.solver import _kernel\n"
        "_kernel.constraint_key(np.zeros(5, np.int8), np.zeros(26, "
        "np.int8))\nprint(config.CACHE_DIR == '')\n"
    )
    # the user cache, then none at all
    for chosen, code in ((str(cache), vector + kernel), ("", kernel)):
        env = {
            **os.environ,
            "PYTHONPATH": str(site),
            "WORDLE_GYM_CACHE": chosen,
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        env.pop("NUMBA_CACHE_DIR", None)
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
        )
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.strip() == "True"  # numba's own setting is left as it was
        assert {p for p in site.rglob("*") if p.is_file()} == before
    kept = {p.name.split("-")[0] for p in (cache / "numba").rglob("*.nbi")}
    assert {"_kernels.candidates_mask", "_kernel.constraint_key"} <= kept, kept


def test_built_once__processes_that_start_a_build_together_build_it_one_at_a_time(tmp_path) -> None:
    """Issue 73: four processes making the regret env on an empty cache each compiled the same
    kernels (95-98 s each against 28.5 s alone). The first build runs in one process at a time; once
    a process finished it, the others go through without waiting (no lock is taken)."""
    import subprocess
    import sys

    log = tmp_path / "log.txt"
    code = (
        "import sys, time; from wordle_gym.utils.files import built_once\nwith "
        "built_once('thing'):\n    open(sys.argv[1], 'a').write('start\\n'); time.sleep(0.5); "
        "open(sys.argv[1], 'a').write('end\\n')\n"
    )
    env = {**os.environ, "WORDLE_GYM_CACHE": str(tmp_path / "cache")}
    runs = [subprocess.Popen([sys.executable, "-c", code, str(log)], env=env) for _ in range(3)]
    assert [run.wait(120) for run in runs] == [0, 0, 0]
    assert log.read_text().split() == ["start", "end"] * 3  # never two builds at once
    assert (tmp_path / "cache" / "locks" / "thing.done").is_file()
    hold = (
        "import sys, time; from filelock import FileLock; FileLock(sys.argv[1]).acquire(); "
        "print(1, flush=True); "
    )
    hold += "time.sleep(120)"
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(tmp_path / "cache" / "locks" / "thing.lock")],
        stdout=subprocess.PIPE,
    )
    try:
        # the lock is held
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"1"
        out = subprocess.run(
            [sys.executable, "-c", code, str(log)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        # once built, no lock is taken: it ran while another held it
        assert out.returncode == 0, out.stderr
        assert holder.poll() is None
    finally:
        holder.kill()


def test_cache__a_link_in_the_cache_is_never_followed_out_of_it(tmp_path, monkeypatch) -> None:
    """Reliability 5, finding 7: a ``patterns-v1-*.npy`` link to another file replaced that file
    with a 30 MB array; a ``positions-*.sqlite`` link created or converted a database at its target.
    Links in the cache are replaced by the cache's own files; their targets are left byte for
    byte."""
    import numpy as np

    from wordle_gym.solver.store import PositionStore
    from wordle_gym.utils.files import disk_cached_array

    cache, outside = tmp_path / "cache", tmp_path / "precious.txt"
    cache.mkdir()
    outside.write_text("keep me\n")
    monkeypatch.setenv("WORDLE_GYM_CACHE", str(cache))
    for name in ("table.npy", "table.npy.blake2b"):
        (cache / name).symlink_to(outside)
    array = disk_cached_array(
        "table.npy", lambda: np.arange(6, dtype=np.int8), lambda a: a.shape == (6,)
    )
    assert array.tolist() == list(range(6)) and outside.read_text() == "keep me\n"
    assert not (cache / "table.npy").is_symlink() and (cache / "table.npy").is_file()
    assert disk_cached_array(
        "table.npy", lambda: pytest.fail("built again"), lambda a: True
    ).tolist() == list(range(6))
    db = cache / "positions.sqlite"
    db.symlink_to(outside)
    store = PositionStore(db)
    from wordle_gym.solver.position import Position

    store.put(Position((1, 2, 3), 4, (-1,) * 5, (0,) * 26), 9)
    assert outside.read_text() == "keep me\n" and not db.is_symlink() and len(store) == 1


def test_reads__devices_and_huge_files_are_refused_not_read_until_memory_runs_out(
    tmp_path, monkeypatch
) -> None:
    """Reliability 5, finding 9: ``optimal --save /dev/full`` and
    ``research.boards_bound --ranking /dev/zero`` read until MemoryError; a 200 MB ``--answers``
    file peaked at 5.4 GB; a cache folder whose name the system refuses (ENAMETOOLONG) ended
    ``wordle-gym eval``, although the cache is optional."""
    import gymnasium as gym

    from wordle_agents.commands.optimal import main as optimal_main
    from wordle_gym.core.words import word_source
    from wordle_gym.solver.openers import load

    with pytest.raises(ValueError, match="not a regular file"):
        load("/dev/zero")
    assert optimal_main(["--values", "salet", "--save", "/dev/full", "--quiet"]) == 1
    big = tmp_path / "big.txt"
    with open(big, "wb") as handle:
        handle.truncate(17 << 20)  # sparse: 17 MB of nothing, written in no time
    with pytest.raises(ValueError, match="is over"):
        word_source(str(big))
    monkeypatch.setenv("WORDLE_GYM_CACHE", str(tmp_path / ("x" * 300)))
    env = gym.make("Wordle-v1")
    env.reset(seed=0)
    assert env.step(0)[0] is not None


def test_atomic_write__a_rewritten_file_keeps_its_mode(tmp_path: Path) -> None:
    """Reliability 6, finding 13: rewriting a table widened its mode (600 became 644)."""
    path = tmp_path / "table.json"
    atomic_write_text(path, "{}")
    os.chmod(path, 0o600)
    atomic_write_text(path, '{"a": 1}')
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and path.read_text() == '{"a": 1}'


def test_check_writable__links_and_paths_under_files_say_what_they_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reliability 6, finding 16: a symlink loop, a dangling link and a path under a file all said
    "File exists"; a full disk said "[Errno 28]" without the file's name."""
    from wordle_gym.utils.files import atomic_write, check_writable

    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere" / "x.json")
    (tmp_path / "afile").write_text("")
    cases = {
        "loop": "it is a symbolic link that loops",
        "afile/x.json": "'afile' is a file, not a folder",
        "loop/x.json": "'loop' is a link to no folder",
    }
    monkeypatch.chdir(tmp_path)
    for path, message in cases.items():
        with pytest.raises(ValueError, match=message):
            check_writable(path)
    # a dangling link is written through, to the file it names
    assert check_writable("dangling") == Path("dangling")
    atomic_write_text("dangling", "x")
    assert (tmp_path / "nowhere" / "x.json").read_text() == "x"

    def full(handle: object) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left on device: 'out.json'"):
        atomic_write("out.json", full)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "dangling", "loop", "nowhere"]
