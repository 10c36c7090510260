"""Review at the speed of an import: `mem accept`/`mem reject` take several ids and filters, with a summary, in one
commit; `mem review` goes through each item interactively (accept, reject, skip, edit), or lists them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memfiles.cli import app

runner = CliRunner()


def _commits(home: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(home), "log", "--format=%s"], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def _propose(key: str, value: str, source: str, at: str) -> str:
    result = runner.invoke(app, ["add", "-u", "alice", key, value, "--source", source, "--at", at, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["outcome"] == "proposed"
    fact_id: str = data["fact_id"]
    return fact_id


def _active(home: Path) -> dict[str, str]:
    shown = json.loads(runner.invoke(app, ["show", "-u", "alice", "--json"]).stdout)
    return {f["key"]: f["value"] for f in shown}


@pytest.fixture
def queue(home: Path) -> dict[str, str]:
    """Proposals from an import and from an agent, all waiting for review."""
    config = home / "mem.toml"
    config.write_text(config.read_text().replace("review = []", 'review = ["import", "agent_summary"]'))
    return {
        "sms": _propose("notification_channel", "sms", "import", "2026-01-05"),
        "email": _propose("notification_channel", "email", "import", "2026-03-01"),
        "pets": _propose("note.has_a_dog", "yes", "import", "2026-02-01"),
        "diet": _propose("diet", "vegetarian", "agent_summary", "2026-02-02"),
    }


def test_several_ids_are_accepted_in_one_commit_oldest_first(home: Path, queue: dict[str, str]) -> None:
    before = len(_commits(home))
    result = runner.invoke(app, ["accept", "-u", "alice", queue["email"], queue["sms"]])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1] == "accepted 2: 1 added, 1 superseded"
    assert _active(home) == {"notification_channel": "email"}  # the newer statement wins, whatever the order given
    assert len(_commits(home)) == before + 1


def test_filters_choose_the_proposals_and_leave_the_rest_waiting(home: Path, queue: dict[str, str]) -> None:
    result = runner.invoke(app, ["accept", "-u", "alice", "--source", "import", "--key", "note.*", "--json"])
    assert result.exit_code == 0, result.output
    chosen = json.loads(result.stdout)
    assert [o["fact_id"] for o in chosen["outcomes"]] == [queue["pets"]] and chosen["summary"]["total"] == 1
    waiting = json.loads(runner.invoke(app, ["review", "-u", "alice", "--format", "json"]).stdout)
    assert {f["id"] for f in waiting["facts"]} == {queue["sms"], queue["email"], queue["diet"]}
    rejected = runner.invoke(app, ["reject", "-u", "alice", "--source", "import", "--json"])
    data = json.loads(rejected.stdout)
    assert data["summary"] == {"total": 2, "retracted": 2}
    assert {f["id"] for f in data["retracted"]} == {queue["sms"], queue["email"]}
    assert _active(home) == {"note.has_a_dog": "yes"}
    everything = runner.invoke(app, ["accept", "-u", "alice", "--all"])
    assert everything.exit_code == 0 and everything.stdout.splitlines()[-1] == "accepted 1: 1 added"
    assert _active(home) == {"note.has_a_dog": "yes", "diet": "vegetarian"}


def test_one_bad_id_settles_nothing(home: Path, queue: dict[str, str]) -> None:
    before = (home / "users/alice/MEMORY.md").read_bytes()
    result = runner.invoke(app, ["accept", "-u", "alice", queue["sms"], "f-000000000000"])
    assert result.exit_code != 0 and "f-000000000000" in result.stderr
    assert (home / "users/alice/MEMORY.md").read_bytes() == before
    nothing = runner.invoke(app, ["accept", "-u", "alice"])
    assert nothing.exit_code == 2 and "--all" in nothing.stderr


def test_the_interactive_pass_accepts_rejects_skips_and_edits(home: Path, queue: dict[str, str]) -> None:
    order = [f["id"] for f in json.loads(runner.invoke(app, ["review", "-u", "alice", "--json"]).stdout)["facts"]]
    said = {queue["sms"]: "a\n", queue["email"]: "r\n", queue["pets"]: "s\n", queue["diet"]: "e\npescatarian\n"}
    answers = "".join(said[fact_id] for fact_id in order)
    result = runner.invoke(app, ["review", "-u", "alice", "--interactive"], input=answers)
    assert result.exit_code == 0, result.output
    assert "proposed " + queue["sms"] in result.stdout
    assert "1 accepted, 1 rejected, 1 edited, 1 skipped" in result.stdout
    assert _active(home) == {"notification_channel": "sms", "diet": "pescatarian"}
    shown = json.loads(runner.invoke(app, ["show", "-u", "alice", "--all", "--json"]).stdout)
    edited = next(f for f in shown if f["key"] == "diet" and f["status"] == "active")
    assert edited["source"] == "person" and queue["diet"] in edited["source_ref"]
    waiting = json.loads(runner.invoke(app, ["review", "-u", "alice", "--json"]).stdout)
    assert [f["id"] for f in waiting["facts"]] == [queue["pets"]]  # the skipped one still waits


def test_not_at_a_terminal_review_lists_and_changes_nothing(home: Path, queue: dict[str, str]) -> None:
    before = (home / "users/alice/MEMORY.md").read_bytes()
    result = runner.invoke(app, ["review", "-u", "alice"], input="a\na\na\na\n")
    assert result.exit_code == 0 and queue["diet"] in result.stdout
    assert (home / "users/alice/MEMORY.md").read_bytes() == before
