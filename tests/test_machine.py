"""This machine's key (memfiles.store.machine): made once outside the home, private, and what signatures check."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memfiles.store import machine


def test_the_key_is_made_once_in_the_state_folder_and_is_private(isolated: Path) -> None:
    first = machine.key()
    path = machine.state_dir() / machine.KEY_NAME
    assert path.is_file() and len(first) == machine.KEY_BYTES
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert machine.key() == first
    assert not str(path).startswith(os.environ["MEM_HOME"])


def test_signatures_verify_only_with_the_same_parts(isolated: Path) -> None:
    signature = machine.sign("a", b"bc")
    assert machine.verify(signature, "a", b"bc")
    assert not machine.verify(signature, "ab", b"c")  # parts cannot be shifted into each other
    assert not machine.verify("0" * 64, "a", b"bc")


def test_another_machine_key_does_not_verify(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    signature = machine.sign("x")
    monkeypatch.setenv("MEM_STATE_DIR", str(isolated / "other-machine"))
    assert not machine.verify(signature, "x")


def test_a_broken_key_file_is_replaced(isolated: Path) -> None:
    path = machine.state_dir() / machine.KEY_NAME
    path.parent.mkdir(parents=True)
    path.write_bytes(b"short")
    assert len(machine.key()) == machine.KEY_BYTES
    assert len(path.read_bytes()) == machine.KEY_BYTES


def test_a_key_that_is_a_link_is_not_followed(isolated: Path) -> None:
    target = isolated / "elsewhere"
    target.write_bytes(b"x" * machine.KEY_BYTES)
    path = machine.state_dir() / machine.KEY_NAME
    path.parent.mkdir(parents=True)
    path.symlink_to(target)
    made = machine.key()
    assert made != b"x" * machine.KEY_BYTES
    assert target.read_bytes() == b"x" * machine.KEY_BYTES
    assert not path.is_symlink()
