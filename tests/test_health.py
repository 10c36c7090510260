"""What nobody watches, `mem doctor` reports (issue 38): each hook's last outcome, and a failure until seen."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

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
