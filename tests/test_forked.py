"""memfiles.forked: work in a child process comes back, and what a failed child did not do is done here."""

from __future__ import annotations

import os
import threading
import time

import pytest

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


def test_split_does_every_job_once_from_both_ends() -> None:
    parent = os.getpid()

    def job(i: int) -> str:
        time.sleep(0.01)
        return f"{i} {'here' if os.getpid() == parent else 'child'}"

    results = forked.Split(100, job).results()
    assert [int(r.split()[0]) for r in results] == list(range(100))
    assert results[0].endswith("child") and results[-1].endswith("here")
    sides = [r.split()[1] for r in results]
    assert sides == sorted(sides)  # the child's from the first, this process's from the last


def test_split_with_a_child_that_fails_does_every_job_here() -> None:
    parent = os.getpid()

    def job(i: int) -> str:
        if os.getpid() != parent:
            raise RuntimeError("a child that crashes")
        return str(i * i)

    assert forked.Split(50, job).results() == [str(i * i) for i in range(50)]


def test_split_whose_child_finished_first_does_nothing_here() -> None:
    parent = os.getpid()
    split = forked.Split(20, lambda i: f"{i} {os.getpid() == parent}")
    time.sleep(0.5)
    assert split.results() == [f"{i} False" for i in range(20)]


def test_a_split_stopped_early_leaves_no_process_behind() -> None:
    split = forked.Split(1000, lambda i: str(time.sleep(0.01)))
    pid = split._pid
    assert pid is not None
    split.stop()
    split.stop()  # twice is harmless
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_a_queue_gives_each_job_to_one_child_and_more_to_a_faster_one() -> None:
    queue = forked.Queue(200)

    def takes(pause: float) -> bytes:
        taken = []
        while (job := queue.take()) is not None:
            taken.append(job)
            time.sleep(pause)
        return bytes(taken)

    waits = [forked.start(lambda pause=pause: takes(pause)) for pause in (0.001, 0.001, 0.005)]
    queue.close()
    shares = [list(wait() or b"") for wait in waits]
    assert sorted(job for share in shares for job in share) == list(range(200))
    assert all(share == sorted(share) for share in shares)
    assert len(shares[2]) < min(len(shares[0]), len(shares[1]))


def test_a_queue_holds_at_most_its_limit() -> None:
    with pytest.raises(ValueError, match="at most 256"):
        forked.Queue(forked.Queue.LIMIT + 1)
