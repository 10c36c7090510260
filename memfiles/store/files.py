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


_READ_CHUNK = 1 << 20


class TooLarge(UsageError):
    """A file over the limit its reader set (read_regular)."""


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; a UsageError naming the path otherwise.

    Opened without blocking (a FIFO with no writer would wait forever) and checked on the open descriptor,
    so a FIFO, a device (`/dev/zero` never ends), a socket or a folder is refused before any byte is read;
    reads at most `limit + 1` bytes whatever the file's size says (a file that grows while read is refused
    at the limit, not after filling memory)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a file") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot open it: {exc.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
            kind = "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else kind
            raise UsageError(f"{path}: is {kind}; memfiles reads regular files only")
        os.set_blocking(fd, True)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(_READ_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise TooLarge(f"{path}: is over the limit of {limit} bytes")
        return b"".join(chunks)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it: {exc.strerror}") from None
    finally:
        os.close(fd)


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
    """Hold an exclusive lock on `lock_path` (waits up to `timeout` seconds, then explains who holds it)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
                if time.monotonic() > deadline:
                    raise MemError(
                        f"timed out after {timeout:.0f}s waiting for {lock_path}: another mem process "
                        "is writing; try again, or run `mem doctor` if none is running"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def scope_lock(paths: Paths, scope: Scope) -> contextlib.AbstractContextManager[None]:
    """The write lock of one scope."""
    return locked(paths.scope_lock(scope))


def git_lock(paths: Paths) -> contextlib.AbstractContextManager[None]:
    """The home-wide lock around git's index (git allows one index writer at a time)."""
    return locked(paths.lock_file("git"))
