"""docs/API.md runs: its python snippets are executed in order, as one program, in an empty folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import memfiles
from memfiles import api

API_DOC = Path(__file__).resolve().parent.parent / "docs" / "API.md"


def snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)\n```", API_DOC.read_text(encoding="utf-8"), re.S)


def test_every_snippet_runs_in_order(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MEM_NOW", "2026-09-12")
    monkeypatch.delenv("MEM_HOME")  # the snippets name their home
    namespace: dict[str, object] = {}
    found = snippets()
    assert len(found) == API_DOC.read_text(encoding="utf-8").count("```python")
    for number, code in enumerate(found, start=1):
        exec(compile(code, f"docs/API.md snippet {number}", "exec"), namespace)
    assert capsys.readouterr() == ("", "")  # the API never prints


def test_every_public_method_has_a_heading() -> None:
    text = API_DOC.read_text(encoding="utf-8")
    headings = "\n".join(line for line in text.splitlines() if line.startswith("### "))
    public = {"open_home"} | {
        f"{cls.__name__}.{name}"
        for cls in (api.Home, api.ScopeHandle)
        for name in vars(cls)
        if not name.startswith("_") and callable(getattr(cls, name))
    }
    missing = sorted(name for name in public if f"{name.split('.')[-1]}(" not in headings)
    assert not missing, f"docs/API.md has no heading for {missing}"
    assert memfiles.open_home is api.open_home


def test_every_name_the_api_exports_loads() -> None:
    # memfiles.api loads its modules on first use of a name (a table beside the type-checking imports and
    # __all__): a name listed in __all__ but not in that table would fail only when a user first asks for it
    missing = [name for name in api.__all__ if getattr(api, name, None) is None]
    assert not missing, f"memfiles.api lists {missing} but cannot load them"
