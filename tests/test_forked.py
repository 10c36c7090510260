"""memfiles.forked: work in a child process comes back as bytes, or as None when the child failed."""

from __future__ import annotations

import os
import threading

from memfiles import forked


def test_the_child_s_bytes_reach_the_parent() -> None:
    parent = os.getpid()
    wait = forked.start(lambda: f"{os.getpid() != parent}".encode() * 100_000)  # more than a pipe holds
    assert wait() == b"True" * 100_000


def test_a_child_that_fails_gives_none() -> None:
    def fails() -> bytes:
        raise RuntimeError("a child that crashes")

    assert forked.start(fails)() is None


def test_no_fork_while_another_thread_runs() -> None:
    assert forked.available()
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not forked.available()
    finally:
        release.set()
        other.join()
    assert forked.available()
