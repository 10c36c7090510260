"""The `mem` command line: one typer app (memfiles.cli.app); each module here adds the commands of one idea.

A new command goes in the module of its idea, or in a new module imported below: `@app.command()` on a
function that parses its options, calls one method of memfiles.api and prints through memfiles.output.

The modules that define commands do not use `from __future__ import annotations` (the rest of memfiles
does): typer reads every command's annotations at every start, and evaluating them from strings, twice
each, took 16 of the 22 ms typer spends building the commands. A name they import only for type checking
is quoted (`-> "Home"`).
"""

from __future__ import annotations

# Each import registers its module's commands on the app; their order is the order of `mem --help`.
# isort: off
from memfiles.cli import init, facts, episodes, capture, reading, lint, consolidate, sync, transfer, doctor, ui  # noqa: F401

# isort: on
from memfiles.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    """The `mem` console script: run the app on the command line (exits with the command's code)."""
    app()
