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
    extractor: Annotated[
        str | None,
        typer.Option(
            "--extractor",
            metavar="NAME",
            help="Also approve an extractor recipe on this machine: claude-code, codex, llm or ollama.",
        ),
    ] = None,
) -> None:
    """Create a memory home: a git repository with mem.toml, .gitattributes and a first commit.

    --extractor NAME also writes the LLM tool you already have into this machine's mem.local.toml, as
    `mem setup extractor NAME` does.
    """
    from memfiles import api

    where = path or home_option(ctx)
    if extractor is not None:
        from memfiles.api.assistants import extractor_recipe

        extractor_recipe(extractor)  # a wrong name is said before anything is made
    if clone is not None:
        with output.progress("embedding the memory") as tick:
            done = api.clone(clone, where, progress=tick)
        output.cloned(done)
        root = done.root
    else:
        made = api.init(where, force=force)
        output.initialised(made)
        root = made.root
    if extractor is not None:
        from memfiles.api.assistants import setup_extractor

        output.extractor_setup(setup_extractor(extractor, home=root), False)
