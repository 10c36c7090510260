"""`mem forget --purge` erases a value from the working tree and from every object in git's store."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from memfiles.cli import app
from memfiles.store import gitrepo

runner = CliRunner()


def mem(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def test_purge_leaves_no_trace_in_any_object_and_keeps_unrelated_facts(home: Path) -> None:
    mem("add", "-u", "a", "tz", "Europe/Oslo", "--at", "2026-01-01")
    mem("add", "-u", "a", "passport_number", "ZX-4471-SECRETVALUE", "--at", "2026-01-02")
    mem("add", "-u", "a", "passport_number", "ZX-4471-SECRETVALUE", "--at", "2026-01-05")
    mem("add", "-u", "a", "diet", "vegetarian", "--at", "2026-01-03")
    mem("add", "-u", "b", "tz", "Asia/Tokyo", "--at", "2026-01-04")
    (home / "users/a/MEMORY.md").write_bytes((home / "users/a/MEMORY.md").read_bytes() + b"note\n")
    mem("doctor", "--fix")
    assert b"ZX-4471-SECRETVALUE" in gitrepo.all_objects_text(home)

    out = runner.invoke(app, ["forget", "-u", "a", "passport_number", "--purge"])
    assert out.exit_code == 0, out.output
    assert "erased it from" in out.output and "force-push" in out.output

    assert b"ZX-4471-SECRETVALUE" not in gitrepo.all_objects_text(home)
    revs = git(home, "rev-list", "--all").split()
    assert subprocess.run(["git", "-C", str(home), "grep", "-q", "ZX-4471", *revs]).returncode == 1
    assert git(home, "status", "--porcelain") == ""
    subprocess.run(["git", "-C", str(home), "fsck", "--full"], check=True, capture_output=True)
    shown = json.loads(mem("show", "-u", "a", "--json"))
    assert sorted(f["key"] for f in shown) == ["diet", "tz"]
    assert (home / "users/a/MEMORY.md").read_bytes().endswith(b"note\n")
    history = git(home, "log", "--all", "-p", "--", "users/a/MEMORY.md")
    assert "Europe/Oslo" in history and "vegetarian" in history
    assert "Asia/Tokyo" in git(home, "log", "--all", "-p", "--", "users/b/MEMORY.md")


def test_purge_refuses_with_uncommitted_changes(home: Path) -> None:
    mem("add", "-u", "a", "k", "v")
    (home / "users/a/MEMORY.md").write_bytes((home / "users/a/MEMORY.md").read_bytes() + b"x\n")
    result = runner.invoke(app, ["forget", "-u", "a", "k", "--purge"])
    assert result.exit_code == 1 and "uncommitted changes" in result.output
