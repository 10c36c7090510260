"""Several machines: `mem sync`, git's `mem merge-driver`, and `mem mcp`, the home served to assistants."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memfiles import output
from memfiles.cli.app import JsonOpt, ScopeOpt, UserOpt, app, exit_with, home_option, open_home


@app.command()
def sync(
    ctx: typer.Context,
    remote: Annotated[str, typer.Argument(help="Name of the git remote to sync with.")] = "origin",
    commit: Annotated[
        bool, typer.Option("--commit", help="Commit hand edits first (message 'mem: commit hand edits').")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Fetch, merge and push the home's git remote; MEMORY.md files merge fact by fact.

    Refuses uncommitted hand edits unless --commit is given. `mem` must be on PATH for git to run
    the merge driver.
    """
    with output.progress("embedding what arrived") as tick:
        report = open_home(ctx).sync(remote, commit=commit, warn=output.warn, progress=tick)
    output.synced(report, as_json)


@app.command("merge-driver", hidden=True)
def merge_driver(
    base: Annotated[Path, typer.Argument(metavar="%O", help="The common ancestor's version.")],
    ours: Annotated[Path, typer.Argument(metavar="%A", help="Our version; receives the result.")],
    theirs: Annotated[Path, typer.Argument(metavar="%B", help="Their version.")],
    path: Annotated[str, typer.Argument(metavar="%P", help="The file's path in the home.")] = "MEMORY.md",
) -> None:
    """Git merge driver for MEMORY.md: merges facts by the supersession rules, notes as text.

    Registered by `mem init` as `mem merge-driver %O %A %B %P`. Exit 0 when clean; 1 when the notes
    below the frontmatter conflict (markers left there) or a version does not parse (%A untouched).
    """
    from memfiles import api

    clean = api.merge_driver(base, ours, theirs, path)
    if not clean:
        output.warn(f"{path}: the notes below the frontmatter conflict (markers left there); the facts merged")
    exit_with(0 if clean else 1)


@app.command("mcp")
def mcp_server(
    ctx: typer.Context,
    user: UserOpt = None,
    scope: ScopeOpt = None,
) -> None:
    """Serve the memory home to assistants over MCP (stdio): remember, recall, record_episode, forget, show.

    The default scope is --user/--scope, else $MEM_USER, else default_scope in mem.toml; each tool
    also takes a scope. Writes go through the guarded write path (refusals are tool errors). Needs
    the optional extra: pip install 'memfiles[mcp]'.

    \b
    Example (Claude Code):
      claude mcp add memory -e MEM_USER=alice -- mem mcp
    """
    from memfiles.mcp import serve

    serve(home_option(ctx), user, scope)
