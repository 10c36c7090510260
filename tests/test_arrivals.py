"""Issue 39: what arrives from outside — import files, stored values, limits — is not trusted.

Each test checks the harm itself: no terminal escape reaches the terminal, a scope not asked for keeps its
files, an acceptance made elsewhere lets nothing into recall, a FIFO does not block, a cap refuses before
the work is done."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from typer.testing import CliRunner

import memfiles
from memfiles.cli import app

runner = CliRunner()
ESC_CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07"  # OSC 52: writes the terminal's clipboard
CSI_C1 = "\x9b2J"  # the one-byte CSI: clears the screen on terminals that read C1 controls


def _raw_control(text: str) -> bool:
    return any((ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in text)


# --- 13: terminal escapes never reach the terminal; JSON stays exact ---


def _hand_fact(home: Path, value_yaml: str) -> None:
    memfiles.open_home(home).user("alice").add("colour", "blue")
    memory = home / "users" / "alice" / "MEMORY.md"
    memory.write_text(memory.read_text().replace("value: blue", f"value: {value_yaml}"))
    subprocess.run(["git", "-C", str(home), "commit", "-qam", "hand edit"], check=True)


def test_show_strips_escapes_from_stored_values_and_json_keeps_them_exact(home: Path) -> None:
    _hand_fact(home, '"blue\\e]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\a\\x9b2J"')
    shown = runner.invoke(app, ["show", "-u", "alice"])
    assert shown.exit_code == 0, shown.output
    assert "blue" in shown.output and not _raw_control(shown.output)
    as_json = runner.invoke(app, ["show", "-u", "alice", "--json"])
    assert not _raw_control(as_json.output)
    assert json.loads(as_json.output)[0]["value"] == "blue" + ESC_CLIPBOARD + CSI_C1


def test_import_messages_strip_escapes_from_the_file(home: Path, tmp_path: Path) -> None:
    planted = tmp_path / "memory.jsonl"
    record = {"type": "entity", "name": "x" + ESC_CLIPBOARD, "entityType": "person", "observations": 5}
    planted.write_text(json.dumps(record) + "\n")
    done = runner.invoke(app, ["import", str(planted), "--from", "mcp-memory", "-u", "alice"])
    assert "x" in done.output and not _raw_control(done.output)


# --- 12: a clear line, never a traceback ---


def test_mcp_memory_of_the_wrong_shape_is_a_problem_per_record_not_a_memory_per_character(
    home: Path, tmp_path: Path
) -> None:
    planted = tmp_path / "memory.json"
    document = {"entities": [{"name": "Ana", "entityType": "person", "observations": "likes tea"}], "relations": 7}
    planted.write_text(json.dumps(document))
    done = runner.invoke(app, ["import", str(planted), "--from", "mcp-memory", "-u", "alice", "--json"])
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    report = json.loads(done.output)
    assert report["rows"][0]["proposed"] == 0  # not "l", "i", "k", "e", "s"…
    assert any("observations" in why for why in report["rows"][0]["why"])
    assert any("relations" in why for why in report["rows"][0]["why"])
    assert memfiles.open_home(home).user("alice").show(everything=True) == []


def test_claude_export_chat_messages_of_the_wrong_type_is_one_problem(home: Path, tmp_path: Path) -> None:
    planted = tmp_path / "conversations.json"
    planted.write_text(json.dumps([{"uuid": "c-1", "name": "t", "chat_messages": 5}]))
    done = runner.invoke(app, ["import", str(planted), "--from", "claude-export", "-u", "alice"])
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    assert "chat_messages" in done.output and "Traceback" not in done.output


def test_an_extractor_answer_nested_200000_deep_is_an_extractor_error() -> None:
    import pytest

    from memfiles.errors import MemError
    from memfiles.ops.extractor import parse_output

    with pytest.raises(MemError, match="nested too deeply"):
        parse_output("[" * 200_000 + "]" * 200_000)
    with pytest.raises(MemError, match="nested too deeply"):
        parse_output('{"facts": ' + "[" * 200_000 + "]" * 200_000 + "}")


def test_out_of_memory_is_one_line(home: Path, tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    import memfiles.imports

    def exhausted(data: bytes, where: str) -> object:
        raise MemoryError

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setattr(memfiles.imports, "json_document", exhausted)
    planted = tmp_path / "e.json"
    planted.write_text('{"format": "memfiles-export"}')
    done = runner.invoke(app, ["import", str(planted), "--from", "json"])
    assert done.exit_code == 1 and "out of memory" in done.output
    assert not isinstance(done.exception, MemoryError)


_INTERRUPT_DURING_IMPORT = """
import sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "memfiles.cli.transfer":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, Interrupt())
sys.argv = ["mem", "--version"]
from memfiles.__main__ import main
main()
"""


def test_ctrl_c_while_the_command_line_imports_exits_130_with_one_line(home: Path) -> None:
    import sys

    done = subprocess.run([sys.executable, "-c", _INTERRUPT_DURING_IMPORT], capture_output=True, text=True)
    assert done.returncode == 130
    assert done.stderr == "mem: error: interrupted\n"
