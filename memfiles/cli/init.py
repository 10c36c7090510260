"""`mem init`: create a memory home, or set up another machine from a remote (`--clone`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memfiles import output
from memfiles.cli.app import app, home_option


@app.command()
def init(
    ctx: typer.Context,
    path: Annotated[Path | None, typer.Argument(help="Where to create the home (default: the resolved home).")] = None,
    clone: Annotated[
        str | None, typer.Option("--clone", metavar="URL", help="Set up another machine: clone URL (see `mem sync`).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Make a home even of the filesystem root or your home folder itself.")
    ] = False,
) -> None:
    """Create a memory home: a git repository with mem.toml, .gitattributes and a first commit."""
    from memfiles import api

    where = path or home_option(ctx)
    if clone is not None:
        with output.progress("embedding the memory") as tick:
            cloned = api.clone(clone, where, progress=tick)
        output.cloned(cloned)
    else:
        output.initialised(api.init(where, force=force))
