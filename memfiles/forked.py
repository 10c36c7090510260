"""Work done in a forked child process while this one goes on: lint's shares, recall's file listing.

The child runs one function, writes the bytes it returns to a pipe and leaves at once (`os._exit`:
none of the parent's clean-up runs twice). The parent later waits for those bytes; a child that
failed in any way gives None, and the caller then does that work itself, so nothing is ever lost.
"""

from __future__ import annotations

import os
from collections.abc import Callable


def available() -> bool:
    """Whether this process may fork: the system has fork, and no other thread runs (the MCP server's do),
    since a thread holding a lock at the fork leaves the child stuck on it."""
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1


def start(work: Callable[[], bytes]) -> Callable[[], bytes | None]:
    """Run `work` in a forked child; returns what waits for its bytes (None if the child failed)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read)
        code = 0
        try:
            data = work()
            with os.fdopen(write, "wb") as out:
                out.write(data)
        except BaseException:  # whatever went wrong, the parent does this work itself
            code = 1
        os._exit(code)
    os.close(write)

    def wait() -> bytes | None:
        with os.fdopen(read, "rb") as incoming:
            data = incoming.read()
        _, status = os.waitpid(pid, 0)
        return data if os.waitstatus_to_exitcode(status) == 0 else None

    return wait
