"""The command line as a whole: help for every command, README coverage, version, entry points."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from memfiles import __version__
from memfiles.cli import app

runner = CliRunner()
README = Path(__file__).resolve().parent.parent / "README.md"


def command_names() -> list[str]:
    group = typer.main.get_command(app)
    return sorted(name for name, cmd in group.commands.items() if not cmd.hidden)  # type: ignore[attr-defined]


def test_every_command_has_help_text() -> None:
    for name in command_names():
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0, name
        assert len(result.output.split("\n\n")[1].strip()) > 20, f"`mem {name}` has no real help text"


def test_every_command_is_in_the_readme_table() -> None:
    rows = [line for line in README.read_text().splitlines() if line.startswith("| `mem ")]
    table = {name for row in rows for name in re.findall(r"`mem ([a-z-]+)", row.split(" | ")[0])}
    missing = [name for name in command_names() if name not in table]
    assert not missing, f"commands missing from README's command table: {missing}"


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"mem {__version__}\n"


def test_usage_errors_exit_2() -> None:
    assert runner.invoke(app, ["add"]).exit_code == 2
    assert runner.invoke(app, ["no-such-command"]).exit_code == 2


@pytest.mark.parametrize(
    "command",
    [[sys.executable, "-m", "memfiles", "--version"], [shutil.which("mem", path=os.path.dirname(sys.executable))]],
)
def test_entry_points_run(command: list[str | None]) -> None:
    if command[0] is None:
        pytest.skip("the mem script is not installed next to this interpreter")
    result = subprocess.run(
        [c for c in command if c] + (["--version"] if len(command) == 1 else []), capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stdout == f"mem {__version__}\n"


def test_errors_print_one_line_without_traceback(isolated: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "memfiles", "show", "-u", "a"], capture_output=True, text=True, cwd=isolated
    )
    assert result.returncode == 1
    assert result.stderr.startswith("mem: error: no memory home at ") and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("argv", "kept"),
    [
        (["recall", "invoice", "-u", "alice"], ["recall"]),
        (["--home", "recall", "--debug", "show"], ["show"]),
        (["--home=/tmp/h", "doctor", "--fix"], ["doctor"]),
        (["--version"], []),
        (["--help"], None),
        (["recall", "--help"], ["recall"]),
        (["recal", "x"], None),
        (["--debug"], None),
        ([], None),
    ],
)
def test_only_the_command_run_is_built(
    argv: list[str], kept: list[str] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memfiles.cli import keep_only

    everything = command_names()
    monkeypatch.setattr(app, "registered_commands", list(app.registered_commands))
    keep_only(argv)
    assert command_names() == (everything if kept is None else kept)


def test_completion_keeps_every_command(monkeypatch: pytest.MonkeyPatch) -> None:
    from memfiles.cli import keep_only

    everything = command_names()
    monkeypatch.setattr(app, "registered_commands", list(app.registered_commands))
    monkeypatch.setenv("_MEM_COMPLETE", "complete_bash")
    keep_only(["recall", "x"])
    assert command_names() == everything
