"""The `mem` command line: one typer app (memfiles.cli.app); each module here adds the commands of one idea.

A new command goes in the module of its idea, or in a new module imported below: `@app.command()` on a
function that parses its options, calls one method of memfiles.api and prints through memfiles.output.
"""

from __future__ import annotations

# Each import registers its module's commands on the app; their order is the order of `mem --help`.
# isort: off
from memfiles.cli import init, facts, stale, episodes, capture, reading, lint, consolidate, sync, transfer, doctor, ui  # noqa: F401

# isort: on
from memfiles.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    """The `mem` console script: run the app on the command line (exits with the command's code)."""
    app()
