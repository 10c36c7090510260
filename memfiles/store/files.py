"""Reading and writing a home's files safely: atomic replace, fsync, and per-scope locks.

Readers never lock: every write replaces a whole file with `os.replace`, so a reader sees either
the old or the new file. Writers take the scope's lock (an `flock`, released by the kernel if the
process dies, so a crashed writer never leaves a lock held).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from memfiles.errors import MemError, UsageError
from memfiles.format.layout import Paths, Scope
from memfiles.store.faults import crash_point

if TYPE_CHECKING:
    from memfiles.format.memoryfile import MemoryDoc

LOCK_TIMEOUT_SECONDS = 60.0
_READ_CHUNK = 1 << 20


def read_memory(paths: Paths, scope: Scope) -> MemoryDoc:
    """The scope's MEMORY.md parsed (an empty document if the scope has none yet)."""
    from memfiles.format.memoryfile import MemoryDoc, new_body, parse  # an episode's write never reads it

    path = paths.memory_file(scope)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return MemoryDoc(scope=str(scope), body=new_body(str(scope)))
    except IsADirectoryError:
        raise MemError(f"{paths.relative(path)} is a directory, expected a file") from None
    return parse(data, paths.relative(path), expected_scope=str(scope))


class TooLarge(UsageError):
    """A file over the limit its reader set (read_regular)."""


def read_regular(path: Path, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them, read safely whatever `path` turns out to be.

    Opened without blocking (a FIFO with no writer would wait forever), then `fstat` on the open descriptor
    decides: a folder raises IsADirectoryError, a FIFO, device or socket is refused; then at most `limit` + 1
    bytes are read (`/dev/zero` or a file that grows while it is read never fills memory), and one byte
    more than the limit refuses it. Refusals are UsageErrors naming the path, `what` it is and the limit;
    other failures are the OSError the system gave (FileNotFoundError, PermissionError…).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            kind = "FIFO" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "device"
            raise UsageError(f"{path}: the {what} is a {kind}, not a regular file; give a regular file")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(_READ_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise TooLarge(f"{path}: the {what} is over the limit of {limit} bytes")
    return b"".join(chunks)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` all at once: temp file, fsync, rename, fsync the folder."""
    if path.is_symlink():
        raise MemError(f"{path} is a symbolic link; memfiles does not write through links")
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        crash_point("after-temp-write")
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    fsync_dir(path.parent)
    crash_point("after-rename")


def fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(lock_path: Path, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """Hold an exclusive lock on `lock_path`, `<home>/.cache/locks/<name>.lock`, waiting for it as long as it
    changes hands; MemError naming the holder when one process has held it `timeout` seconds while we waited.

    The lock file and the two folders above it (`.cache/`, `.cache/locks/`) are opened without following
    links and must be a plain folder and a plain file with one name: `.cache/` is git-ignored, but git
    checks out whatever a remote tracks there, and a pushed `locks/git.lock -> ~/.bashrc` must never be
    truncated nor written through. Each holder writes its PID and a token of its own into the file, so a
    waiter tells a queue that moves (many writers, a slow machine) from a holder that is stuck.
    """
    fd = _open_lock(lock_path)
    try:
        seen, since, delay = b"", time.monotonic(), 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
            holder = os.pread(fd, 128, 0)
            if holder != seen:  # the lock changed hands: the queue moves, so wait on
                seen, since = holder, time.monotonic()
            elif time.monotonic() - since > timeout:
                pid = holder.split(b" ")[0].decode("ascii", "replace").strip() or "another process"
                raise MemError(
                    f"timed out after {timeout:.0f}s waiting for {lock_path}: process {pid} has held it all that "
                    "time without letting go; if it is stuck, stop it (`kill PID`), then try again"
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {secrets.token_hex(8)}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def _open_lock(lock_path: Path) -> int:
    """The lock file, created if missing, opened without following a link at `.cache/`, `locks/` or the file."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    folder = os.open(lock_path.parent.parent.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for below in (lock_path.parent.parent, lock_path.parent):
            name = below.name
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o755, dir_fd=folder)
            try:
                inner = os.open(name, flags, dir_fd=folder)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                raise _not_plain(below) from None
            os.close(folder)
            folder = inner
        try:
            fd = os.open(lock_path.name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=folder)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.EISDIR):
                raise
            raise _not_plain(lock_path) from None
    finally:
        os.close(folder)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(fd)
        raise _not_plain(lock_path)
    return fd


def _not_plain(path: Path) -> MemError:
    return MemError(
        f"{path} is a link or not a plain {'file' if path.suffix == '.lock' else 'folder'} (did a remote or a "
        f"clone put it there? .cache/ is never committed): memfiles never opens a lock through a link; nothing "
        f"was written. Remove it (rm {path}; `mem doctor` lists what git tracks under .cache/) and try again"
    )


def scope_lock(paths: Paths, scope: Scope) -> contextlib.AbstractContextManager[None]:
    """The write lock of one scope."""
    return locked(paths.scope_lock(scope))


def git_lock(paths: Paths) -> contextlib.AbstractContextManager[None]:
    """The home-wide lock around git's index (git allows one index writer at a time)."""
    return locked(paths.lock_file("git"))
