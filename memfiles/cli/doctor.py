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
        bool,
        typer.Option(
            "--reindex",
            help="Rebuild every scope's recall index (with memfiles[semantic], its vectors too) first.",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Check the home (files, git state, indexes, leftovers of interrupted writes); exit 1 if anything is wrong."""
    with output.progress("embedding episodes and facts") as tick:
        report = open_home(ctx).doctor(fix=fix, reindex=reindex, progress=tick)
    output.doctor(report, as_json)
    exit_with(0 if report.healthy else 1)
