"""The `mem` command line: one typer app (memfiles.cli.app); each module here adds the commands of one idea.

A new command goes in the module of its idea, or in a new module imported below: `@app.command()` on a
function that parses its options, calls one method of memfiles.api and prints through memfiles.output.
"""

from __future__ import annotations

# Each import registers its module's commands on the app; their order is the order of `mem --help`.
# isort: off
from memfiles.cli import init, setup, facts, stale, episodes, capture, reading  # noqa: F401
from memfiles.cli import lint, consolidate, sync, transfer, doctor, ui  # noqa: F401

# isort: on
from memfiles.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    """The `mem` console script: run the app on the command line (exits with the command's code).

    An argument that is not UTF-8 (Python keeps its bytes as lone surrogates) is refused here, before any
    command runs: one line naming it, exit 2, nothing read or written."""
    import sys

    from memfiles.ops.textfield import not_utf8

    for n, argument in enumerate(sys.argv[1:], 1):
        wrong = not_utf8(argument)
        if wrong:
            sys.stderr.write(f"mem: error: argument {n} {wrong}\n")
            raise SystemExit(2)
    app()
