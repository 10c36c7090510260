"""Staleness you can see and settle (FORMAT.md, "Staleness"): a fact not confirmed within its subject's
`[stale_after_days]` is marked possibly stale in the block (recall, render, the hook, MCP), listed by
`mem stale`, proposed for expiry by `mem consolidate` (never expired by it), and `mem confirm` clears it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memfiles.api import open_home
from memfiles.cli import app
from memfiles.mcp import Tools

runner = CliRunner()
SAID = "2026-01-05"
LATER = "2026-03-01"  # 55 days later: past account_state's 30 days, within user_preference's 365
MARK = "possibly stale (last confirmed 2026-01-05)"


def mem(*args: str, now: str = LATER, code: int = 0, stdin: str | None = None) -> str:
    result = runner.invoke(app, list(args), env={"MEM_NOW": now}, input=stdin)
    assert result.exit_code == code, result.output
    return result.stdout


def seed() -> None:
    mem("add", "plan_tier", "Pro", "--subject", "account_state", "-u", "alice", now=SAID)
    mem("add", "notification_channel", "email", "-u", "alice", now=SAID)


def fact_line(block: str, key: str) -> str:
    return next(line for line in block.splitlines() if f"key={key} " in line)


def commits(home: Path) -> int:
    out = subprocess.run(["git", "-C", str(home), "rev-list", "--count", "HEAD"], capture_output=True, text=True)
    return int(out.stdout)


def test_a_fact_past_its_subjects_days_is_marked_in_render_recall_and_the_hook(home: Path) -> None:
    seed()
    rendered = mem("render", "-u", "alice")
    assert fact_line(rendered, "plan_tier") == (
        f'[memory · stated 2026-01-05 · key=plan_tier · source=user_statement · {MARK}] value="Pro"'
    )
    assert "possibly stale" not in fact_line(rendered, "notification_channel")  # a preference lasts a year
    assert MARK in fact_line(mem("recall", "which plan tier", "-u", "alice"), "plan_tier")
    hook = mem("recall", "--hook", "-u", "alice", stdin=json.dumps({"prompt": "what plan tier am I on"}))
    assert MARK in fact_line(hook, "plan_tier")
    start = mem("recall", "--hook", "-u", "alice", stdin=json.dumps({"hook_event_name": "SessionStart"}))
    assert MARK in fact_line(start, "plan_tier")
    items = json.loads(mem("recall", "plan tier", "-u", "alice", "--format", "json"))
    assert next((i["key"], i["possibly_stale"]) for i in items if i["kind"] == "fact") == ("plan_tier", SAID)
    assert "possibly stale: last confirmed 2026-01-05" in mem("render", "-u", "alice", "--format", "markdown")
    # Not yet stale the day before its 30 days run out, nor when judged as of then.
    assert "possibly stale" not in mem("render", "-u", "alice", now="2026-02-04")


def test_mem_confirm_clears_the_mark_and_records_when(home: Path) -> None:
    seed()
    assert mem("stale", "-u", "alice", "--json") != "[]\n"
    assert mem("confirm", "plan_tier", "-u", "alice").startswith("reinforced f-")
    assert "possibly stale" not in mem("render", "-u", "alice")
    assert json.loads(mem("stale", "-u", "alice", "--json")) == []
    memory = (home / "users" / "alice" / "MEMORY.md").read_text(encoding="utf-8")
    assert "last_confirmed: 2026-03-01" in memory
    # 30 days after the confirmation it is possibly stale again, counted from the confirmation.
    assert "possibly stale (last confirmed 2026-03-01)" in mem("render", "-u", "alice", now="2026-04-15")


def test_confirming_an_inferred_fact_makes_it_stated(home: Path) -> None:
    mem("add", "diet", "vegetarian", "--inferred", "-u", "alice", now=SAID)
    mem("confirm", "diet", "-u", "alice")
    [shown] = json.loads(mem("show", "-u", "alice", "--json"))
    assert (shown["confidence"], shown["last_confirmed"]) == ("stated", LATER)


def test_confirm_refuses_what_it_cannot_settle_and_changes_nothing(home: Path) -> None:
    seed()
    mem("add", "plan_tier", "Enterprise", "--inferred", "-u", "alice", now="2026-02-01")  # newer inference: conflict
    memory = home / "users" / "alice" / "MEMORY.md"
    before, count = memory.read_bytes(), commits(home)
    result = runner.invoke(app, ["confirm", "plan_tier", "-u", "alice"], env={"MEM_NOW": LATER})
    assert result.exit_code == 1 and "in conflict" in result.stderr and "mem resolve plan_tier" in result.stderr
    missing = runner.invoke(app, ["confirm", "shoe_size", "-u", "alice"], env={"MEM_NOW": LATER})
    assert missing.exit_code != 0 and "no current fact with key 'shoe_size'" in missing.stderr
    assert memory.read_bytes() == before and commits(home) == count


def test_mem_stale_lists_them_least_recently_confirmed_first(home: Path) -> None:
    seed()
    mem("add", "goal", "run a marathon", "--subject", "goal", "-u", "alice", now="2025-12-01")
    listed = json.loads(mem("stale", "-u", "alice", "--json"))
    assert [(s["key"], s["last_confirmed"], s["days_since"], s["stale_after_days"]) for s in listed] == [
        ("goal", "2025-12-01", 90, 60),
        ("plan_tier", SAID, 55, 30),
    ]
    text = mem("stale", "-u", "alice")
    assert "plan_tier" in text and "mem confirm KEY" in text and "mem expire ID" in text


def test_stale_after_days_in_mem_toml_sets_each_subject(home: Path) -> None:
    seed()
    toml = home / "mem.toml"
    assert "\n# [stale_after_days]\n# user_preference = 365" in toml.read_text(encoding="utf-8")  # mem init's
    toml.write_text(toml.read_text(encoding="utf-8") + "\n[stale_after_days]\naccount_state = 0\n", encoding="utf-8")
    assert "possibly stale" not in mem("render", "-u", "alice")
    (home / "mem.local.toml").write_text("[stale_after_days]\nuser_preference = 10\n", encoding="utf-8")
    assert "possibly stale" in fact_line(mem("render", "-u", "alice"), "notification_channel")
    (home / "mem.local.toml").write_text("[stale_after_days]\nhobby = 10\n", encoding="utf-8")
    bad = runner.invoke(app, ["render", "-u", "alice"], env={"MEM_NOW": LATER})
    assert bad.exit_code == 2 and "[stale_after_days] hobby: unknown subject" in bad.stderr


def test_consolidate_proposes_expiring_them_and_never_does(home: Path) -> None:
    seed()
    memory = home / "users" / "alice" / "MEMORY.md"
    before, count = memory.read_bytes(), commits(home)
    [plan] = json.loads(mem("consolidate", "-u", "alice", "--json"))
    plan_tier = next(f for f in json.loads(mem("show", "-u", "alice", "--json")) if f["key"] == "plan_tier")
    assert plan["possibly_stale"] == [plan_tier["id"]] and plan["expired"] == 0
    assert any(f"mem expire {plan_tier['id']}" in note for note in plan["notes"])
    assert memory.read_bytes() == before and commits(home) == count  # proposed, not done
    text = mem("consolidate", "-u", "alice")
    assert f"note: possibly stale {plan_tier['id']} plan_tier" in text
    assert mem("expire", plan_tier["id"], "-u", "alice").startswith(f"expired {plan_tier['id']} (plan_tier)")
    assert "plan_tier" not in mem("render", "-u", "alice")
    assert "status: expired" in memory.read_text(encoding="utf-8")


def test_the_mcp_confirm_tool_clears_the_mark(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed()
    monkeypatch.setenv("MEM_NOW", LATER)
    tools = Tools(open_home(home), user="alice")
    assert MARK in tools.recall("plan tier")
    shown = {f["key"]: f.get("possibly_stale") for f in json.loads(tools.show())["facts"]}
    assert shown == {"notification_channel": None, "plan_tier": "last confirmed 2026-01-05"}
    assert tools.confirm("plan_tier").startswith("reinforced f-")
    assert "possibly stale" not in tools.recall("plan tier")
    assert all("possibly_stale" not in f for f in json.loads(tools.show())["facts"])
