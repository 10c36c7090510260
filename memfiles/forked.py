"""Work done in a forked child process while this one goes on: lint's shares, recall's file listing.

The child writes what it made to a pipe and leaves at once (`os._exit`: none of the parent's clean-up
runs twice). A child that failed in any way gives nothing, and this process then does that work
itself, so nothing is ever lost.

- `start`: the child runs one function; the parent later waits for the bytes it returned.
- `Queue`: job numbers that forked children take one at a time, each as soon as it is free.
- `Split`: a list of jobs done from both ends, the child from the first while this process is busy
  elsewhere, then this process from the last until the two meet.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import BinaryIO


def available() -> bool:
    """Whether this process may fork: the system has fork, and no other thread runs (the MCP server's do),
    since a thread holding a lock at the fork leaves the child stuck on it."""
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1


def _fork(work: Callable[[BinaryIO], object]) -> tuple[int, int]:
    """Fork a child that runs `work` on the writing end of a pipe and leaves; returns (its pid, the reading end).

    The child exits 0 when `work` returned, 1 when anything went wrong: the parent does that work itself.
    """
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read)
        code = 0
        try:
            with os.fdopen(write, "wb") as out:
                work(out)
        except BaseException:  # a failed (or stopped) child: the parent does what is left
            code = 1
        os._exit(code)
    os.close(write)
    return pid, read


def start(work: Callable[[], bytes]) -> Callable[[], bytes | None]:
    """Run `work` in a forked child; returns what waits for its bytes (None if the child failed)."""
    pid, read = _fork(lambda out: out.write(work()))

    def wait() -> bytes | None:
        with os.fdopen(read, "rb") as incoming:
            data = incoming.read()
        _, status = os.waitpid(pid, 0)
        return data if os.waitstatus_to_exitcode(status) == 0 else None

    return wait


class Queue:
    """Job numbers 0 … count-1 (count ≤ LIMIT) for the children forked after it, taken one at a time.

    A pipe holds one byte per job; each child reads one byte whenever it is free. A read of one byte
    cannot be split, so every job goes to exactly one child, and a faster child simply takes more.
    """

    LIMIT = 256

    def __init__(self, count: int) -> None:
        if not 0 <= count <= self.LIMIT:
            raise ValueError(f"a queue holds at most {self.LIMIT} jobs, not {count}")
        self._read, write = os.pipe()
        os.write(write, bytes(range(count)))  # far less than a pipe holds: never blocks
        os.close(write)  # once the jobs are taken, a read finds the end

    def take(self) -> int | None:
        """The next job nobody has taken, or None when there is none left."""
        byte = os.read(self._read, 1)
        return byte[0] if byte else None

    def close(self) -> None:
        """This process takes no jobs (the children keep their own ends of the pipe)."""
        os.close(self._read)


class Split:
    """Jobs 0 … count-1 shared with a forked child: it does 0, 1, 2, … from the moment of the fork, and
    `results` does count-1, count-2, … here until it reaches a job the child has done, then stops the child.

    Each job's result is one line of text (no newline). This suits work that another CPU makes faster and
    this process can only start later: all of it is done, split by how fast each side turned out to be.
    """

    def __init__(self, count: int, job: Callable[[int], str]) -> None:
        self._count = count
        self._job = job

        def lines(out: BinaryIO) -> None:  # in the child: one line per job, in order, until done or stopped
            for i in range(count):
                line = job(i)
                if "\n" in line:
                    raise ValueError("a job's result must be one line")
                out.write(f"{line}\n".encode())
                out.flush()

        pid, read = _fork(lines)
        os.set_blocking(read, False)
        self._pid: int | None = pid
        self._read = read

    def results(self) -> list[str]:
        """Every job's result, in job order: those the child has done, and the rest done here from the last."""
        theirs: list[str] = []
        mine: list[str] = []  # count-1, count-2, …
        pending = b""
        open_pipe = self._pid is not None
        while len(theirs) + len(mine) < self._count:
            if open_pipe:
                try:
                    data = os.read(self._read, 1 << 16)
                except BlockingIOError:
                    data = None
                if data == b"":  # the child finished or failed: what it did not do is done here
                    open_pipe = False
                elif data:
                    *lines, pending = (pending + data).split(b"\n")
                    theirs += (line.decode("utf-8") for line in lines)
                    theirs = theirs[: self._count - len(mine)]  # a job both sides did counts once
                    continue
            mine.append(self._job(self._count - 1 - len(mine)))
        self.stop()
        return theirs + mine[::-1]

    def stop(self) -> None:
        """Stop the child (if still running) and reap it; this process does no more of its jobs."""
        if self._pid is None:
            return
        os.kill(self._pid, signal.SIGKILL)
        os.waitpid(self._pid, 0)
        os.close(self._read)
        self._pid = None
