"""`mem export` and `mem import`: memory out as one JSON document, and in from it or from other tools."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Literal

import typer

from memfiles import output
from memfiles.cli.app import JsonOpt, ScopeOpt, ScopesOpt, UserOpt, UsersOpt, app, exit_with, open_home


@app.command()
def export(ctx: typer.Context, user: UsersOpt = None, scope: ScopesOpt = None) -> None:
    """Print memory as one JSON document on stdout: MEMORY.md (facts with their whole history, and the notes),
    episodes with their statuses and digests, each file as it is and parsed (docs/FORMAT.md, "Export").

    Without --user/--scope: every scope of the home. `mem export > backup.json`, then on another machine or
    into an empty home `mem import backup.json` restores the same files, byte for byte.
    """
    from memfiles.api.transfer import export as run

    home = open_home(ctx)
    chosen = home.choose_scopes(user or [], scope or []) if (user or scope) else None
    output.emit_json(run(home, chosen))


@app.command("import")
def import_(
    ctx: typer.Context,
    source: Annotated[Path, typer.Argument(help="The file (or folder of markdown memories) to import; - for stdin.")],
    from_format: Annotated[
        Literal["claude-code", "codex", "mem0", "mcp-memory", "chatgpt", "claude-export", "json"] | None,
        typer.Option("--from", help="Its format (default: detected from its name and first bytes)."),
    ] = None,
    merge: Annotated[
        bool, typer.Option(help="Merge into scopes that already hold memory (else they are refused).")
    ] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would change; write nothing.")] = False,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Import memory through the guarded write path, one commit. A `mem export` (json) is restored into empty
    scopes, or merged with --merge; with -u/-s only into those scopes. Made on this machine (its signature),
    it is restored verbatim (sources, statuses and ids kept); made anywhere else, its current facts arrive
    proposed for `mem review`, its acceptances count for nothing here, and --merge changes no status of
    this home's facts (each difference is listed). Other tools' memories —
    Claude Code auto memory or CLAUDE.md bullets (claude-code), Codex memory files (codex), Mem0's
    get_all() (mem0), the MCP memory server's file (mcp-memory) — arrive as proposed facts for `mem review`;
    ChatGPT and Claude.ai conversations.json exports (chatgpt, claude-export) as one episode per
    conversation. Importing the same file again changes nothing. Prints a table: added, proposed,
    quarantined, refused, already present.
    """
    from memfiles.api.inputs import read_stream
    from memfiles.api.transfer import MAX_IMPORT_BYTES, import_memory

    home = open_home(ctx)
    data = read_stream(sys.stdin.buffer, what="import", limit=MAX_IMPORT_BYTES) if str(source) == "-" else None
    report = import_memory(
        home,
        "<stdin>" if data is not None else source,
        from_format=from_format,
        merge=merge,
        dry_run=dry_run,
        data=data,
        user=user,
        scope=scope,
    )
    if as_json:
        output.emit_json(report.to_dict())
    else:
        how = " (detected from the file; name it with --from)" if report.detected else ""
        title = f"import {report.format}{how} from {report.source}" + (" (dry run: nothing written)" if dry_run else "")
        columns = ("scope", "added", "proposed", "quarantined", "refused", "already present")
        rows = [(r.scope, r.added, r.proposed, r.quarantined, r.refused, r.present) for r in report.rows]
        output.table(title, columns, [[str(v) for v in row] for row in rows])
        for row in report.rows:
            for why in row.why:
                output.line(f"{row.scope}: {why}")
    exit_with(1 if report.refused else 0)
