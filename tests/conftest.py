"""Shared fixtures: every test gets its own memory home, HOME and git identity; nothing touches `~`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memfiles.ops.home import init_home


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point HOME, $MEM_HOME and git's config at tmp_path, with a fixed git identity."""
    fake_home = tmp_path / "fakehome"
    fake_home.mkdir()
    monkeypatch.setenv("HOME", str(fake_home))
    monkeypatch.setenv("XDG_DATA_HOME", str(fake_home / ".local" / "share"))
    monkeypatch.setenv("MEM_STATE_DIR", str(fake_home / ".local" / "state" / "memfiles"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(fake_home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        monkeypatch.setenv(var, "Test Person")
    for var in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(var, "test@example.invalid")
    for var in ("MEM_USER", "MEM_NOW", "MEM_DEBUG", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MEM_HOME", str(tmp_path / "home"))
    # The tests pin the lexical ranker's results; tests/test_semantic.py turns the hybrid ranking back on.
    monkeypatch.setenv("MEM_RANKING", "lexical")
    monkeypatch.chdir(tmp_path)
    yield tmp_path


@pytest.fixture
def home(isolated: Path) -> Path:
    """An initialised memory home at $MEM_HOME."""
    root = isolated / "home"
    init_home(root)
    return root
