"""What nobody watches, `mem doctor` reports (issue 38): each hook's last outcome, and a failure until seen."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memfiles.api import open_home


def _mem(home: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """`mem` in its own process, as an assistant runs a hook."""
    mem = shutil.which("mem", path=str(Path(sys.executable).parent)) or "mem"
    env = os.environ | {"MEM_HOME": str(home)}
    return subprocess.run([mem, *args], capture_output=True, env=env, input=stdin)


def test_a_prompt_hook_that_works_is_reported_with_the_home_it_used(home: Path) -> None:
    open_home(home).user("alice").add("notification_channel", "email")
    done = _mem(home, "recall", "--hook", "-u", "alice", stdin=json.dumps({"prompt": "notification channel"}).encode())
    assert done.returncode == 0 and b"email" in done.stdout
    report = open_home(home).doctor()
    assert report.healthy
    [note] = [n for n in report.notes if "mem recall --hook" in n]
    assert "(ok)" in note and str(home) in note and "$MEM_HOME" in note


def test_a_failing_hook_exits_0_and_doctor_is_unhealthy_until_fixed(home: Path) -> None:
    done = _mem(home, "recall", "--hook", stdin=b'{"prompt": "anything"}')  # no user and no default scope
    assert done.returncode == 0 and done.stdout == b"" and b"no scope given" in done.stderr
    sick = _mem(home, "doctor")
    assert sick.returncode == 1 and b"mem recall --hook` (the prompt hook) last failed" in sick.stdout
    assert b"no scope given" in sick.stdout
    assert _mem(home, "doctor", "--fix").returncode == 0
    assert _mem(home, "doctor").returncode == 0  # seen: no longer a problem, still in the notes
    assert any("last failed" in n for n in open_home(home).doctor().notes)


def test_a_capture_hook_that_fails_is_recorded(home: Path) -> None:
    payload = {"session_id": "s-1", "transcript_path": str(home.parent / "missing.jsonl"), "cwd": str(home.parent)}
    done = _mem(home, "capture", "--hook", "-u", "alice", stdin=json.dumps(payload).encode())
    assert done.returncode == 0 and done.stdout == b""
    report = open_home(home).doctor()
    assert not report.healthy
    assert any("mem capture --hook" in p and "missing.jsonl" in p for p in report.problems)


def test_the_health_file_is_never_written_through_a_link(home: Path) -> None:
    outside = home.parent / "outside.txt"
    outside.write_text("keep me\n")
    cache = home / ".cache"
    cache.mkdir(exist_ok=True)
    (cache / "health.json").symlink_to(outside)
    done = _mem(home, "recall", "--hook", stdin=b'{"prompt": "anything"}')
    assert done.returncode == 0
    assert outside.read_text() == "keep me\n"


def test_an_unexpected_error_in_either_hook_is_recorded_with_its_kind(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug, not a MemError, inside a hook: still raised (the CLI prints one line and exits 0), still recorded,
    and what doctor says names the error's kind (a bare KeyError's text is only its key)."""
    import importlib

    from memfiles.api.home import Home
    from memfiles.api.hooks import recall_hook

    def broken(*_args: object, **_kwargs: object) -> None:
        raise KeyError("a refund that never arrived")

    monkeypatch.setattr(Home, "recall", broken)
    with pytest.raises(KeyError):
        recall_hook(json.dumps({"prompt": "a refund that never arrived"}), home, ["alice"], [])
    capturing = importlib.import_module("memfiles.api.capture")  # the module (memfiles.api.capture is a function too)
    monkeypatch.setattr(capturing, "capture", broken)
    transcript = home.parent / "t.jsonl"
    transcript.write_text("", encoding="utf-8")
    with pytest.raises(KeyError):
        capturing.capture_hook(
            json.dumps({"session_id": "s-1", "transcript_path": str(transcript)}), home=home, user="alice"
        )
    problems = open_home(home).doctor().problems
    assert any("prompt hook) last failed" in p and "KeyError: 'a refund that never arrived'" in p for p in problems)
    assert any("capture" in p and "last failed" in p and "KeyError" in p for p in problems), problems
