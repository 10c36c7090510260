"""What memfiles imports: no private modules or names, only declared packages, no interpreter tricks (issue 24)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "memfiles"
# CPython modules that are private though their names carry no underscore.
PRIVATE_MODULES = {"sre_parse", "sre_compile", "sre_constants"}
ALLOWED_PRIVATE: set[tuple[str, str]] = set()
FORBIDDEN_CALLS = {("gc", "disable"), ("gc", "freeze"), ("os", "_exit")}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    """Every distribution pyproject.toml names: runtime dependencies and extras."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = list(project["dependencies"])
    for extra, names in project.get("optional-dependencies", {}).items():
        if extra != "dev":
            specs += names
    return {_canonical(re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0]) for spec in specs}


def imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, dotted module) for each import, `from X import name` as `X.name`, and each import_module("…")."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif _imports_by_name(node):
            found.append((node.lineno, node.args[0].value))  # type: ignore[attr-defined]
    return found


def _imports_by_name(node: ast.AST) -> bool:
    """`importlib.import_module("name")` with the name written out."""
    if not isinstance(node, ast.Call) or getattr(node.func, "attr", getattr(node.func, "id", "")) != "import_module":
        return False
    return bool(node.args) and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)


def problems(relpath: str, source: str, known: set[str]) -> list[str]:
    """Everything wrong with one module's imports and calls, as `path:line: what`."""
    tree = ast.parse(source)
    found: list[str] = []
    distributions = metadata.packages_distributions()
    aliases: dict[str, str] = {}  # local name -> module, for attribute checks
    for line, dotted in imports(tree):
        parts = dotted.split(".")
        top = parts[0]
        if top in ("memfiles", "__future__"):
            continue
        private = [p for p in parts if p.startswith("_") and not (p.startswith("__") and p.endswith("__"))]
        if (private or top in PRIVATE_MODULES) and (relpath, dotted) not in ALLOWED_PRIVATE:
            found.append(f"{relpath}:{line}: {dotted} is private to its library or to CPython")
        if top not in sys.stdlib_module_names:
            owners = {_canonical(d) for d in distributions.get(top, [top])}
            if not owners & known:
                found.append(f"{relpath}:{line}: {top} is not declared in pyproject.toml")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            module = aliases[node.value.id]
            if (module.split(".")[0], node.attr) in FORBIDDEN_CALLS:
                found.append(
                    f"{relpath}:{node.lineno}: {module}.{node.attr} is an interpreter trick, not memfiles' job"
                )
            elif node.attr.startswith("_") and not node.attr.startswith("__"):
                found.append(f"{relpath}:{node.lineno}: {module}.{node.attr} is a private name of {module}")
        if isinstance(node, ast.ImportFrom) and node.module in ("gc", "os"):
            for alias in node.names:
                if (node.module, alias.name) in FORBIDDEN_CALLS:
                    found.append(f"{relpath}:{node.lineno}: {node.module}.{alias.name} is an interpreter trick")
    return found


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_module_imports_only_public_declared_modules(path: Path) -> None:
    relpath = path.relative_to(ROOT).as_posix()
    assert problems(relpath, path.read_text(encoding="utf-8"), declared()) == []


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("import _sha1", "_sha1 is private"),
        ("from hashlib import _sha256", "hashlib._sha256 is private"),
        ("import sre_parse", "sre_parse is private"),
        ("from typer import _coercion", "typer._coercion is private"),
        ("import importlib\nimportlib.import_module('re._parser')", "re._parser is private"),
        ("import yaml\nyaml._secret()", "yaml._secret is a private name"),
        ("import gc\ngc.disable()", "gc.disable is an interpreter trick"),
        ("import os\nos._exit(0)", "os._exit is an interpreter trick"),
        ("import requests", "requests is not declared"),
    ],
)
def test_the_check_catches_what_it_is_for(source: str, said: str) -> None:
    found = problems("memfiles/x.py", source, declared())
    assert any(said in problem for problem in found), found


def test_every_declared_runtime_dependency_is_one_the_code_imports_or_needs() -> None:
    # PyYAML is imported directly (memfiles.format.yamlio), so it is declared in its own name.
    assert {"pyyaml", "python-frontmatter", "gitpython", "pydantic", "typer", "rich", "rapidfuzz"} <= declared()
