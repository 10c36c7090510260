"""A writer killed at any step of a write leaves a readable scope that `mem doctor` repairs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memfiles.cli import app

runner = CliRunner()


def mem_command() -> list[str]:
    found = shutil.which("mem", path=os.path.dirname(sys.executable))
    return [found] if found else [sys.executable, "-m", "memfiles"]


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize(
    ("point", "expected_value"),
    [("after-temp-write", "sms"), ("after-rename", "email"), ("mid-commit", "email")],
)
def test_kill_at_each_step_then_doctor_repairs(home: Path, point: str, expected_value: str) -> None:
    assert runner.invoke(app, ["add", "-u", "a", "channel", "sms", "--at", "2026-03-14"]).exit_code == 0
    env = {**os.environ, "MEM_CRASH_AT": point}
    killed = subprocess.run(
        [*mem_command(), "add", "-u", "a", "channel", "email", "--at", "2026-06-02"], env=env, capture_output=True
    )
    assert killed.returncode == -9, killed.stderr

    shown = runner.invoke(app, ["show", "-u", "a", "--json"])
    assert shown.exit_code == 0
    assert [f["value"] for f in json.loads(shown.output)] == [expected_value]

    report = runner.invoke(app, ["doctor"])
    assert report.exit_code == 1, report.output
    fixed = runner.invoke(app, ["doctor", "--fix"])
    assert fixed.exit_code == 0, fixed.output
    assert fixed.output.startswith("fixed: ") and fixed.output.endswith("healthy\n")
    assert runner.invoke(app, ["doctor"]).output == "healthy\n"
    assert git(home, "status", "--porcelain") == ""
    after = json.loads(runner.invoke(app, ["show", "-u", "a", "--json"]).output)
    assert [f["value"] for f in after] == [expected_value]
    assert runner.invoke(app, ["add", "-u", "a", "channel", "push", "--at", "2026-07-01"]).exit_code == 0


def test_doctor_rolls_back_an_uncommitted_file_that_does_not_parse(home: Path) -> None:
    runner.invoke(app, ["add", "-u", "a", "k", "v"])
    path = home / "users/a/MEMORY.md"
    good = path.read_bytes()
    path.write_bytes(good.replace(b"status: active", b"status: [broken"))
    report = runner.invoke(app, ["doctor"])
    assert report.exit_code == 1
    assert "users/a/MEMORY.md: does not parse: " in report.output
    assert "users/a/MEMORY.md: uncommitted change (M)" in report.output
    broken = path.read_bytes()
    fixed = runner.invoke(app, ["doctor", "--fix"])
    assert "rolled back users/a/MEMORY.md" in fixed.output and fixed.exit_code == 0
    assert path.read_bytes() == good
    kept = fixed.output.split("cat-file -p ")[1].split(")")[0]  # the edit is not lost: git still has it
    assert git(home, "cat-file", "-p", kept).encode() == broken


def test_doctor_removes_a_stale_git_index_lock(home: Path) -> None:
    (home / ".git" / "index.lock").write_text("")
    assert ".git/index.lock: stale git index lock" in runner.invoke(app, ["doctor"]).output
    assert runner.invoke(app, ["doctor", "--fix"]).exit_code == 0
    assert not (home / ".git" / "index.lock").exists()


def test_a_dead_writer_never_holds_the_lock(home: Path) -> None:
    """flock locks die with their process: a SIGKILLed writer does not block the next one."""
    env = {**os.environ, "MEM_CRASH_AT": "after-temp-write"}
    subprocess.run([*mem_command(), "add", "-u", "a", "k", "v"], env=env, capture_output=True)
    assert (home / ".cache/locks/user-a.lock").exists()
    assert runner.invoke(app, ["add", "-u", "a", "k2", "v2"]).exit_code == 0
