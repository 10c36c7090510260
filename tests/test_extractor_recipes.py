"""`mem setup extractor NAME`: the LLM command-line tools a user already has, as the consolidation extractor.

Each tool is a stand-in on PATH that keeps to the input/output contract its documentation gives (docs/SETUP.md
cites it): how the prompt and the piped request arrive, and what it prints where. A stand-in that is called
any other way fails, so the recipe is what is tested.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memfiles.cli import app
from memfiles.ops import recipes

runner = CliRunner()

STAND_IN = r"""
import json, sys

def fail(why):
    print(f"stand-in {sys.argv[0]}: {why}: {sys.argv[1:]}", file=sys.stderr)
    sys.exit(2)

def answer(request):
    new = []
    for episode in request["episodes"]:
        said = episode["summary"].lower()
        if "vegetarian" in said:
            new.append({"key": "diet", "value": "vegetarian", "subject": "user_attribute",
                        "confidence": "stated", "episode": episode["id"]})
        if "email me" in said:
            new.append({"key": "notification_channel", "value": "email", "subject": "user_preference",
                        "confidence": "stated", "episode": episode["id"]})
    return {"supersede": [], "expire": [], "new": new}

args = sys.argv[1:]
TOOL = __TOOL__
if TOOL == "claude":  # claude -p PROMPT --output-format text: piped stdin is the input; the answer on stdout
    if args[:1] != ["-p"] or len(args) < 2 or args[1].startswith("-"):
        fail("print mode takes its prompt right after -p")
    if "--output-format" in args and args[args.index("--output-format") + 1] != "text":
        fail("only text output is printed as the model wrote it")
elif TOOL == "codex":  # codex exec [OPTIONS] PROMPT: stdin is context, progress on stderr, final message on stdout
    if args[:1] != ["exec"] or args[-1].startswith("-"):
        fail("codex exec takes its prompt as the last argument")
    print("[codex] thinking…", file=sys.stderr)
elif TOOL == "llm":  # llm [-m MODEL] -s SYSTEM -x: stdin is the prompt, -x prints the fenced block only
    if "-s" not in args or "-x" not in args:
        fail("the recipe needs a system prompt (-s) and --extract (-x)")
elif TOOL == "ollama":  # ollama run MODEL PROMPT --format json: stdin read as the prompt
    if args[:1] != ["run"] or len(args) < 3 or args[args.index("--format") + 1] != "json":
        fail("ollama run MODEL PROMPT --format json")
request = json.loads(sys.stdin.read())
if not {"prompt", "facts", "episodes", "response_schema"} <= set(request):
    fail("stdin is not memfiles' request")
text = json.dumps(answer(request))
if TOOL in ("claude", "codex"):  # models often fence JSON: the recipe must cope
    text = "```json\n" + text + "\n```"
print(text)
"""


def _stand_ins(folder: Path) -> Path:
    folder.mkdir()
    for tool in ("claude", "codex", "llm", "ollama"):
        path = folder / tool
        path.write_text(f"#!{sys.executable}\n" + STAND_IN.replace("__TOOL__", repr(tool)))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return folder


@pytest.mark.parametrize("name", ["claude-code", "codex", "llm", "ollama"])
def test_each_recipe_runs_as_the_extractor_and_proposes_the_stated_facts(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv("PATH", f"{_stand_ins(tmp_path / 'bin')}{os.pathsep}{os.environ['PATH']}")
    said = "Alice said she is vegetarian and asked: please email me rather than text."
    assert runner.invoke(app, ["episode", said, "-u", "alice"]).stdout.startswith("recorded ")
    set_up = runner.invoke(app, ["setup", "extractor", name])
    assert set_up.exit_code == 0 and set_up.stderr == "", set_up.output
    local = tomllib.loads((home / "mem.local.toml").read_text())["consolidate"]
    assert local["extractor"] == recipes.command(name) and local["extractor_timeout"] == recipes.TIMEOUT
    done = runner.invoke(app, ["consolidate", "-u", "alice"])
    assert done.exit_code == 0, done.output
    facts = json.loads(runner.invoke(app, ["show", "-u", "alice", "--all", "--json"]).stdout)
    assert {(f["key"], f["value"]) for f in facts} == {("diet", "vegetarian"), ("notification_channel", "email")}


def test_the_recipe_is_written_once_keeping_the_rest_of_mem_local_toml(home: Path) -> None:
    local = home / "mem.local.toml"
    local.write_text(local.read_text() + '\n[consolidate]\nextractor_timeout = 60\n\n[lint]\nignore = ["MEM109"]\n')
    first = runner.invoke(app, ["setup", "extractor", "llm", "--model", "gpt-4o-mini", "--timeout", "90", "--json"])
    assert first.exit_code == 0 and json.loads(first.stdout)["changed"] is True
    written = local.read_text()
    read = tomllib.loads(written)
    assert read["consolidate"] == {"extractor": recipes.command("llm", "gpt-4o-mini"), "extractor_timeout": 90}
    assert read["lint"] == {"ignore": ["MEM109"]} and "-m gpt-4o-mini" in read["consolidate"]["extractor"]
    again = runner.invoke(app, ["setup", "extractor", "llm", "--model", "gpt-4o-mini", "--timeout", "90", "--json"])
    assert json.loads(again.stdout)["changed"] is False and local.read_text() == written


def test_a_tool_not_installed_is_said_and_a_dry_run_writes_nothing(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(home / "nowhere"))
    before = (home / "mem.local.toml").read_bytes()
    result = runner.invoke(app, ["setup", "extractor", "ollama", "--dry-run"])
    assert result.exit_code == 0 and "would set" in result.stdout and "not on this machine's PATH" in result.stderr
    assert (home / "mem.local.toml").read_bytes() == before
    unknown = runner.invoke(app, ["setup", "extractor", "gpt"])
    assert unknown.exit_code == 2 and "claude-code, codex, llm, ollama" in unknown.stderr


def test_an_answer_in_one_fenced_block_is_read_and_prose_is_still_refused() -> None:
    from memfiles.ops.extractor import ExtractorError, parse_output

    fenced = '```json\n{"supersede": [], "expire": [], "new": []}\n```\n'
    assert parse_output(fenced).new == []
    with pytest.raises(ExtractorError):
        parse_output('Here you go:\n```json\n{"supersede": [], "expire": [], "new": []}\n```')


def test_init_can_approve_a_recipe_and_refuses_a_wrong_name_before_making_anything(isolated: Path) -> None:
    made = isolated / "fresh"
    wrong = runner.invoke(app, ["init", str(made), "--extractor", "gtp"])
    assert wrong.exit_code == 2 and not made.exists()
    done = runner.invoke(app, ["init", str(made), "--extractor", "codex"])
    assert done.exit_code == 0, done.output
    local = tomllib.loads((made / "mem.local.toml").read_text())
    assert local["consolidate"]["extractor"] == recipes.command("codex")
