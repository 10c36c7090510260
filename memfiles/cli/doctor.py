"""`mem doctor`: check the home and repair what is safe to repair."""

from __future__ import annotations

from typing import Annotated

import typer

from memfiles import output
from memfiles.cli.app import JsonOpt, app, exit_with, open_home


@app.command()
def doctor(
    ctx: typer.Context,
    fix: Annotated[bool, typer.Option("--fix", help="Repair what is safe to repair.")] = False,
    reindex: Annotated[
        bool, typer.Option("--reindex", help="Rebuild every scope's recall index from the files first.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Check the home (files, git state, indexes, leftovers of interrupted writes); exit 1 if anything is wrong."""
    report = open_home(ctx).doctor(fix=fix, reindex=reindex)
    output.doctor(report, as_json)
    exit_with(0 if report.healthy else 1)
