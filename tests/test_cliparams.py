"""Option values converted without pydantic: the same values as typer's own conversion, its errors untouched."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

import pytest
from typer import _coercion
from typer.models import OptionInfo

from memfiles import cliparams

CASES: list[tuple[Any, dict[str, Any], Any]] = [
    (str, {}, "investing a bonus"),
    (str, {}, ""),
    (int, {}, "12"),
    (int, {"min": 1}, "3"),
    (int, {"min": 1}, 5),
    (float, {}, "0.25"),
    (float, {"min": 0}, "30"),
    (float, {}, ".5"),
    (Path, {}, "notes/CLAUDE.md"),
    (Literal["all", "facts", "episodes"], {}, "facts"),
    (list[str], {}, ["alice", "bob"]),
    (list[str], {}, ("alice",)),
    (bool, {}, True),
]


@pytest.mark.parametrize(("annotation", "settings", "value"), CASES)
def test_plain_values_convert_as_typer_converts_them(annotation: Any, settings: dict[str, Any], value: Any) -> None:
    info = OptionInfo(**settings)
    descriptor = _coercion.resolve_type_descriptor(annotation, info)
    expected = _coercion.build_runtime_param(descriptor)._coerce_value(value, param=None, ctx=None)
    assert cliparams._plain(annotation, info)
    got = cliparams.convert(annotation, info, value)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(
    ("annotation", "settings", "value"),
    [
        (int, {}, "x"),
        (int, {"min": 1}, "0"),
        (int, {}, "1_000"),
        (float, {}, "1e3"),
        (float, {"min": 0}, "-1"),
        (Literal["all", "facts"], {}, "ALL"),
        (Path, {}, ""),
        (bool, {}, "yes"),
    ],
)
def test_anything_else_is_left_to_typer(annotation: Any, settings: dict[str, Any], value: Any) -> None:
    with pytest.raises(cliparams._Unsupported):
        cliparams.convert(annotation, OptionInfo(**settings), value)


def test_options_with_checks_are_typers_to_convert() -> None:
    assert not cliparams._plain(Path, OptionInfo(exists=True))
    assert not cliparams._plain(int, OptionInfo(clamp=True, min=1))
    assert not cliparams._plain(Path, OptionInfo(dir_okay=False))


def test_start_up_imports_no_heavy_module(home: Path) -> None:
    code = (
        "import sys\n"
        "from memfiles.cli import app\n"
        "runs = (['--version'], ['recall', 'x', '-u', 'alice', '-k', '2', '--since', '30d'], ['show', '-u', 'a'])\n"
        "for args in runs:\n"
        "    try:\n"
        "        app(args)\n"
        "    except SystemExit as exc:\n"
        "        assert not exc.code, exc.code\n"
        "    heavy = sorted({m.split('.')[0] for m in sys.modules} & {'pydantic', 'git', 'rich', 'sqlite3'})\n"
        "    print('LOADED', args[0], heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = [line for line in out.splitlines() if line.startswith("LOADED")]
    assert loaded == ["LOADED --version []", "LOADED recall ['sqlite3']", "LOADED show ['sqlite3']"]


def test_a_bad_value_gets_typers_own_message(home: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memfiles", "recall", "x", "-k", "0"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "Invalid value for '-k'" in done.stderr and "greater than or equal to 1" in done.stderr


def test_writing_commands_start_without_pydantic(home: Path) -> None:
    # `mem episode` has a file option (--from-json); typer's file handling must not bring pydantic in.
    code = (
        "import sys\n"
        "from memfiles.cli import app\n"
        "try:\n"
        "    app(sys.argv[1:])\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & {'pydantic'}))\n"
        "print('EPISODES', sorted({'memfiles.format.episodes', 'memfiles.ops.scopefiles'} & set(sys.modules)))\n"
    )
    for args in (["episode", "Refund issued for order O-1", "-u", "alice"], ["add", "diet", "vegan", "-u", "alice"]):
        out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True).stdout
        assert out.splitlines()[-2] == "LOADED []", args
    # A fact's write imports no episode or whole-scope code (their import was 2-3 ms of every `mem add`).
    assert out.splitlines()[-1] == "EPISODES []"
