"""File and command-line helpers. Every output is written atomically (never half a file), with the
umask's permissions.

A write goes to a temporary file beside the target, named ``.<start of name>.<pid>.<random>.tmp``
(short, so a valid long target name never makes the temporary one too long), then renames over the
target. A write that fails removes its temporary file; one killed outright leaves it behind, and the
next write to the same folder removes such leftovers whose process is gone. A symbolic link is
followed (the link stays, its target is replaced), and a target that exists but is not a regular
file (``/dev/null``, a FIFO, a terminal) is written into directly: a rename would replace the
device.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import re
import secrets
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np


def quoted(text: str, limit: int = 24) -> str:
    """``text`` quoted for a one-line message, cut short if long (a pasted megabyte is not echoed
    back)."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text):,} characters)"


def one_line(error: BaseException | str, limit: int = 400) -> str:
    """An error's message for a one-line report: its lines joined, cut short if long (a message can
    hold a pasted argument, e.g. the file name of an ``OSError``)."""
    text = " ".join(str(error).split())
    return text if len(text) <= limit else f"{text[: limit - 40]}... ({len(text):,} characters)"


_TEMP = re.compile(r"^\..*\.(\d+)\.[0-9a-f]{8}\.tmp$")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def clean_stale_temporaries(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove temporary files that writers killed before their rename left in ``folder``."""
    removed = []
    with contextlib.suppress(OSError):
        for entry in Path(folder).iterdir():
            match = _TEMP.match(entry.name)
            if match and not _alive(int(match.group(1))):
                with contextlib.suppress(OSError):
                    entry.unlink()
                    removed.append(entry)
    return removed


MAX_READ = 64 << 20
"""The most bytes a table, ranking or journal read from a user's path may hold (the shipped ones:
under 1 MB)."""


def open_regular(path: str | os.PathLike[str], what: str = "file") -> BinaryIO:
    """``path`` opened for reading in binary if it is a regular file, else a one-line ValueError
    (a FIFO is refused at once, never waited on for a writer; a device is never read). A missing
    file is FileNotFoundError, as ``open`` raises it."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(
                f"{quoted(str(path), 200)} is not a regular file (a {what} is read from one)"
            )
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_text_bounded(
    path: str | os.PathLike[str], limit: int = MAX_READ, what: str = "file"
) -> str:
    """The UTF-8 text of ``path`` (a byte-order mark skipped), read only if it is a regular file of
    at most ``limit`` bytes: a device (``/dev/zero``) or a huge file is a one-line ValueError, never
    read until memory runs out. A missing file is FileNotFoundError, as ``open`` raises it."""
    with open_regular(path, what) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(
            f"{quoted(str(path), 200)} is over {limit:,} bytes: not a {what} this reads"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{quoted(str(path), 200)} is not a UTF-8 text {what} ({exc.reason} at byte "
            f"{exc.start})"
        ) from None


def atomic_write(
    path: str | os.PathLike[str], write: Callable[[BinaryIO], None], follow_links: bool = True
) -> Path:
    """Call ``write(handle)`` on a temporary file beside ``path``, then rename it over ``path``.

    ``path`` may be a link (its target is written) or a device or FIFO (written into directly); with
    ``follow_links=False`` (the cache's files) a link is replaced by the file instead, and nothing
    outside ``path``'s folder is written. A file rewritten keeps its mode; a new one gets the
    umask's."""
    target = Path(os.path.realpath(path)) if follow_links else Path(os.path.abspath(path))
    if follow_links and _special(target):
        fd = _open_for_writing(target, path)
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        return Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_temporaries(target.parent)
    tmp = target.parent / f".{target.name[:32]}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        kept = stat.S_IMODE(os.stat(target).st_mode)  # a file rewritten keeps its mode
    except OSError:
        kept = None
    try:
        # a new file: the umask applies, as for open()
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as handle:
            if kept is not None:
                os.fchmod(handle.fileno(), kept)
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if exc.filename is not None:
            raise
        # a full disk says "[Errno 28] No space left on device": name the file it was writing
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return Path(path)


FIFO_WAIT_S = 10.0
"""How long a write into a FIFO waits for something to read it."""


def _open_for_writing(target: Path, path: str | os.PathLike[str]) -> int:
    """A descriptor of the device or FIFO ``target`` opened for writing; a FIFO that nothing reads
    within :data:`FIFO_WAIT_S` is a one-line ValueError (never a write that waits for ever)."""
    flags = os.O_WRONLY | getattr(os, "O_NONBLOCK", 0)
    deadline = time.monotonic() + FIFO_WAIT_S
    while True:
        try:
            fd = os.open(target, flags)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
            if time.monotonic() >= deadline:
                raise ValueError(
                    f"{quoted(str(path), 200)} is a FIFO that nothing read within "
                    f"{FIFO_WAIT_S:g} s: not written"
                ) from None
            time.sleep(0.05)
            continue
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
        return fd


def _special(path: Path) -> bool:
    """``path`` exists and is neither a regular file nor a folder (a device, a FIFO, a socket)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def atomic_write_text(path: str | os.PathLike[str], text: str, follow_links: bool = True) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (``follow_links``: as :func:`atomic_write`)."""
    return atomic_write(path, lambda handle: handle.write(text.encode("utf-8")), follow_links)


def atomic_write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """JSON version of :func:`atomic_write_text` (indented, trailing newline)."""
    return atomic_write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def atomic_torch_save(path: str | os.PathLike[str], data: Any) -> Path:
    """``torch.save`` atomically: a crash never leaves a half-written checkpoint.

    Serialised in memory first, so that a failed write (a full disk) is the file's own ``OSError``
    rather than torch's ``RuntimeError`` from inside its writer."""
    import torch  # here: what reads no checkpoint (the exact solver's command) runs without torch

    buffer = io.BytesIO()
    torch.save(data, buffer)
    return atomic_write(path, lambda handle: handle.write(buffer.getbuffer()))


def cache_folder() -> Path | None:
    """Where ``wordle_gym`` keeps what it can rebuild (the pattern table): ``$WORDLE_GYM_CACHE``,
    else ``$XDG_CACHE_HOME/wordle_gym`` or ``~/.cache/wordle_gym``; None (no disk cache) if
    ``WORDLE_GYM_CACHE`` is set empty."""
    chosen = os.environ.get("WORDLE_GYM_CACHE")
    if chosen is not None:
        return Path(chosen) if chosen else None
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wordle_gym"


def numba_cache() -> str | None:
    """The folder numba keeps this package's compiled kernels in: ``$NUMBA_CACHE_DIR`` if set, else
    ``numba/`` in :func:`cache_folder`; None (compiled again in each process) when there is no disk
    cache or it cannot be written. Never beside the installed package: a site-packages may be
    read-only, and files written there outlive an uninstall."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    folder = (
        Path(chosen) if chosen else (None if cache_folder() is None else cache_folder() / "numba")
    )
    if folder is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return None
    return str(folder)


@contextlib.contextmanager
def built_once(name: str, timeout_s: float = 900.0) -> Iterator[None]:
    """Run the block (a build that fills the disk cache: compiled kernels, tables) in one process at
    a time the first time: others that start it meanwhile wait, then find the cache full instead of
    building it again. Once the block has finished in some process (a marker ``name`` in the cache's
    ``locks/``), nothing waits; without a writable cache, the block just runs."""
    folder = cache_folder()
    marker = None if folder is None else folder / "locks" / f"{name}.done"
    try:
        done = marker is None or marker.is_file()
    except OSError:  # a cache the system cannot name: build as if alone
        done = True
    if done:
        yield
        return
    from filelock import FileLock, Timeout

    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(marker.with_suffix(".lock"), timeout=timeout_s)
        lock.acquire()
    except (OSError, Timeout):  # no lock to be had: build as if alone
        yield
        return
    try:
        yield
        with contextlib.suppress(OSError):
            atomic_write_text(marker, "", follow_links=False)
    finally:
        lock.release()


def cached_njit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(**options)`` with numba's disk cache in :func:`numba_cache` (numba picks a
    function's cache folder when it is decorated: beside its source file unless one is
    configured)."""

    def decorate(function: Callable[..., Any]) -> Any:
        from numba import njit
        from numba.core import config

        folder = numba_cache()
        if folder is None:
            return njit(**options)(function)
        before = config.CACHE_DIR
        config.CACHE_DIR = folder
        try:
            return njit(cache=True, **options)(function)
        finally:
            config.CACHE_DIR = before

    return decorate


def disk_cached_array(
    name: str, build: Callable[[], np.ndarray], valid: Callable[[np.ndarray], bool]
) -> np.ndarray:
    """``name`` (a file name that encodes everything the array depends on) from :func:`cache_folder`
    if a readable file passes ``valid`` and its bytes match the checksum kept beside it
    (``<name>.blake2b``: a damaged file, a zeroed row included, is caught whole, not only where
    ``valid`` samples); else ``build()``, then saved there atomically (if the folder can be written:
    the cache only saves time). Plain ``.npy``, read without pickle: loading runs no code. Where the
    name is taken by something that is not a regular file (a FIFO, a device), the disk is left
    alone: reading it could block for ever."""
    path, linked = _cache_file(name)
    if path is not None and not linked:
        array = _checked_load(path, valid)
        if array is not None:
            return array
    array = build()
    if path is not None:  # a link there is replaced, never followed out of the cache
        with contextlib.suppress(OSError):
            atomic_write(
                path, lambda handle: np.save(handle, array, allow_pickle=False), follow_links=False
            )
            atomic_write_text(Path(f"{path}.blake2b"), _checksum(array) + "\n", follow_links=False)
    return array


def _cache_file(name: str) -> tuple[Path | None, bool]:
    """Where :func:`disk_cached_array` keeps ``name``, and whether the file or its checksum is a
    link (never read: it could lead out of the cache). No path without a cache folder, where the
    name is taken by something that is not a regular file or a link, or where the system cannot
    name it (too long, ...): the cache only saves time."""
    folder = cache_folder()
    if folder is None:
        return None, False
    path = folder / name
    try:
        if path.exists() and not path.is_file() and not path.is_symlink():
            return None, False
        return path, path.is_symlink() or Path(f"{path}.blake2b").is_symlink()
    except OSError:
        return None, False


def _checked_load(path: Path, valid: Callable[[np.ndarray], bool]) -> np.ndarray | None:
    """The array at ``path`` if it reads, its checksum file matches and ``valid`` passes it; else
    None (missing, unreadable, truncated, damaged: rebuilt)."""
    check = Path(f"{path}.blake2b")
    try:
        array = np.load(path, allow_pickle=False)
        same = check.is_file() and check.read_text(encoding="ascii").strip() == _checksum(array)
        return array if same and valid(array) else None
    except (OSError, ValueError, EOFError, UnicodeDecodeError):
        return None


def _checksum(array: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(array).tobytes(), digest_size=16).hexdigest()


def check_writable(path: str | os.PathLike[str], folder: bool = False) -> Path:
    """Fail early, with a clear message, if ``path`` (a file, or a folder with ``folder``) cannot be
    written.

    Creates missing folders. Run it before long work whose result goes to ``path``.
    """
    # Path("") is the working folder: an empty option would write there
    if not os.fspath(path).strip():
        raise ValueError(
            f"{os.fspath(path)!r} is an empty path; expected "
            f"{'a folder' if folder else 'a file name'}"
        )
    given = Path(path)
    target = _link_target(given)
    where = target if folder else target.parent
    _check_folders_above(path, where, folder)
    # a device or FIFO: written into directly
    if not folder and _special(Path(os.path.realpath(target))):
        if not os.access(target, os.W_OK):
            raise ValueError(f"cannot write {quoted(str(target), 200)}: permission denied")
        return given
    try:
        _probe(target, where, folder)
    except OSError as exc:
        reason = (
            "the name is too long" if exc.errno == errno.ENAMETOOLONG else exc.strerror or str(exc)
        )
        raise ValueError(f"cannot write {str(target)!r}: {reason}") from None
    return given


def _check_folders_above(path: str | os.PathLike[str], where: Path, folder: bool) -> None:
    """A ValueError if the nearest existing path above what ``check_writable`` makes is not a
    folder (a file, or a link to no folder)."""
    chain = where.parents if folder else (where, *where.parents)
    above = next((p for p in chain if os.path.lexists(p)), None)
    if above is not None and not above.is_dir():
        kind = "a link to no folder" if above.is_symlink() else "a file, not a folder"
        raise ValueError(f"cannot write {str(path)!r}: {str(above)!r} is {kind}")


def _link_target(target: Path) -> Path:
    """``target``, or where it links to (what :func:`atomic_write` writes); a link that loops is
    a ValueError."""
    if not os.path.islink(target):
        return target
    try:
        os.stat(target)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ValueError(
                f"cannot write {str(target)!r}: it is a symbolic link that loops"
            ) from None
    return Path(os.path.realpath(target))


def _probe(target: Path, where: Path, folder: bool) -> None:
    """Make the folders up to ``where`` and write a probe file there (and, for a file not there
    yet, the file itself, then remove it: the name must be possible); OSError where it cannot."""
    if folder and target.exists() and not target.is_dir():
        raise ValueError(f"{str(target)!r} is a file; expected a folder")
    if not folder and target.is_dir():
        raise ValueError(f"{str(target)!r} is a folder; expected a file name")
    where.mkdir(parents=True, exist_ok=True)
    if not folder and not target.exists():
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        target.unlink()
    probe = where / f".probe.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    probe.unlink()


@contextlib.contextmanager
def path_lock(path: str | os.PathLike[str], what: str, wait_s: float = 0.0) -> Iterator[None]:
    """Hold an exclusive lock on a folder or a file for the duration; see :func:`file_lock`. The
    lock file lives in :func:`cache_folder`'s ``locks/`` (named by the path's resolved form), so a
    run folder holds only the run's own files; without a writable cache, it is a folder's
    ``.lock`` or the file's ``<file>.lock``."""
    path = Path(path)
    where = path / ".lock" if path.is_dir() else Path(f"{path}.lock")
    cache = cache_folder()
    if cache is not None:
        name = str(path.resolve()).encode("utf-8", "surrogateescape")
        key = hashlib.sha256(name).hexdigest()[:32]
        try:
            (cache / "locks").mkdir(parents=True, exist_ok=True)
            where = cache / "locks" / f"{key}.lock"
        except OSError:
            pass
    with file_lock(where, what, f"{str(path)!r}", wait_s):
        yield


class LockBusy(ValueError):
    """Another process holds a lock past the wait (the message names it, its pid and its job)."""


def _holder(pid_file: Path) -> str:
    """The pid a lock's ``.pid`` file names, and whether that process is stopped or gone."""
    try:
        owner = pid_file.read_text(encoding="ascii").strip() or "?"
    except (OSError, UnicodeDecodeError):
        return "pid ?"
    try:  # the state letter after the command's parenthesis (Linux)
        state = Path(f"/proc/{int(owner)}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, ValueError, IndexError):
        state = ""
    if state in ("T", "t"):
        return f"pid {owner}, stopped: `kill -CONT {owner}` resumes it"
    return f"pid {owner}"


@contextlib.contextmanager
def file_lock(
    lock: str | os.PathLike[str], what: str, name: str | None = None, wait_s: float = 0.0
) -> Iterator[None]:
    """Hold an exclusive lock (the file ``lock``, through filelock, on any OS) for the duration.
    While another process holds it, one line on stderr says at once who (its pid, kept in
    ``<lock>.pid``, and whether it is stopped) and how long this waits; past ``wait_s`` seconds,
    :class:`LockBusy` names it and ``what`` it is doing. A lock that cannot be made is a ValueError
    naming it."""
    from filelock import FileLock, Timeout

    lock = Path(lock)
    holder, pid_file = FileLock(lock), Path(f"{lock}.pid")
    shown = name or quoted(str(lock), 200)
    try:
        try:
            holder.acquire(timeout=0)
        except Timeout:
            if wait_s <= 0:
                raise
            print(
                f"{shown} is in use by another {what} ({_holder(pid_file)}); waiting up to "
                f"{wait_s:g} s for it",
                file=sys.stderr,
                flush=True,
            )
            holder.acquire(timeout=wait_s)
    except Timeout:
        raise LockBusy(
            f"{shown} is in use by another {what} ({_holder(pid_file)}); wait for it or use "
            "another one"
        ) from None
    except OSError as exc:
        raise ValueError(
            f"cannot lock {shown} ({quoted(str(lock), 200)}: {exc.strerror or exc})"
        ) from None
    try:
        pid_file.write_text(str(os.getpid()), encoding="ascii")
        yield
    finally:
        holder.release()
