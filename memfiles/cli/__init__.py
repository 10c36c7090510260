"""The `mem` command line: one typer app (memfiles.cli.root); each module here adds the commands of one idea.

A new command goes in the module of its idea, or in a new module listed in MODULES: `@app.command()` on a
function that parses its options, calls one method of memfiles.api and prints through memfiles.output;
COMMANDS says which module adds it. `mem COMMAND` imports that module alone, so typer builds one command
and not all of them (about 40 ms of every start); `mem`, `mem --help` and a name no module adds get them
all. `from memfiles.cli import app` is the app with every command.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

__all__ = ["COMMANDS", "MODULES", "app", "load", "main"]

# The modules in the order `mem --help` lists their commands.
MODULES = ("init", "facts", "episodes", "capture", "reading", "lint", "consolidate", "sync", "transfer", "doctor", "ui")
# Which module adds each command (tests/test_cli.py checks this against the commands the modules add).
COMMANDS = {
    "init": "init",
    **dict.fromkeys(("add", "show", "history", "resolve", "forget", "review", "accept", "reject", "log"), "facts"),
    "episode": "episodes",
    "capture": "capture",
    "recall": "reading",
    "render": "reading",
    "lint": "lint",
    **dict.fromkeys(("consolidate", "schema", "show-episode"), "consolidate"),
    **dict.fromkeys(("sync", "merge-driver", "mcp"), "sync"),
    **dict.fromkeys(("export", "import"), "transfer"),
    "doctor": "doctor",
    "ui": "ui",
}
_GLOBAL_WITH_VALUE = ("--home",)  # the root's options that take a value (memfiles.cli.root.main)


def load(command: str | None = None) -> typer.Typer:
    """The app with the commands of `command`'s module registered, or with every command (None, or a name no
    module adds: typer then lists them all, or names the unknown one)."""
    module = COMMANDS.get(command or "")
    for name in (module,) if module else MODULES:
        import_module(f"memfiles.cli.{name}")
    from memfiles.cli.root import app

    return app


def command_of(argv: list[str]) -> str | None:
    """The command `mem ARGV…` runs: the first word that is not a root option (or its value)."""
    words = iter(argv)
    for word in words:
        if word in _GLOBAL_WITH_VALUE:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def main() -> None:
    """The `mem` console script: run the app on the command line (exits with the command's code)."""
    load(command_of(sys.argv[1:]))()


def __getattr__(name: str) -> Any:
    if name == "app":
        return load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
