"""`mem capture`: one assistant session's transcript as one episode (docs/FORMAT.md, "Capture").

`mem capture --hook` is the Claude Code hook command (SessionEnd, PreCompact, Stop): it reads the hook's
JSON on stdin, prints nothing on stdout, and always exits 0; a problem is one line on stderr and a line
in the home's `.cache/capture.log`, which `mem doctor` reports.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Literal

import typer

from memfiles import output
from memfiles.cli.app import JsonOpt, ScopeOpt, UserOpt, app, exit_with, home_option, open_scope
from memfiles.errors import UsageError


@app.command()
def capture(
    ctx: typer.Context,
    transcript: Annotated[
        Path | None,
        typer.Argument(help="The transcript file (- for stdin): Claude Code or Codex JSONL, or messages JSON."),
    ] = None,
    fmt: Annotated[
        Literal["claude-code", "codex", "messages"] | None,
        typer.Option("--format", help="The transcript's format (default: detected from its first lines)."),
    ] = None,
    hook: Annotated[
        bool, typer.Option("--hook", help="Claude Code hook: read its JSON on stdin, print nothing, always exit 0.")
    ] = False,
    session: Annotated[str | None, typer.Option(help="Session id, when the transcript has none.")] = None,
    extract: Annotated[
        bool, typer.Option("--extract", help="Also ask this machine's extractor (mem.local.toml) for proposed facts.")
    ] = False,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Turn one assistant session into one episode: what was asked, files edited, commands run, what failed,
    the outcome. Tool outputs are never copied and secrets are masked. Capturing the same session again
    (later in the session, or at its end) replaces its episode: one episode per session.

    Examples: mem capture ~/.claude/projects/p/SESSION.jsonl -u alice;
    mem capture ~/.codex/sessions/2026/09/02/rollout-….jsonl --format codex;
    in .claude/settings.json: "command": "mem capture --hook" (README, "Capture sessions").
    """
    if hook:
        if transcript is not None or fmt is not None or session is not None:
            raise UsageError("--hook reads everything from the hook's JSON on stdin; give no TRANSCRIPT or --format")
        _hook(home_option(ctx), user, scope, extract)
        return
    if transcript is None:
        raise UsageError("give the TRANSCRIPT file (- for stdin), or --hook for a Claude Code hook")
    from memfiles.api.capture import MAX_TRANSCRIPT_BYTES
    from memfiles.api.capture import capture as run
    from memfiles.api.inputs import read_stream

    handle = open_scope(ctx, user, scope)
    stdin = str(transcript) == "-"
    data = read_stream(sys.stdin.buffer, what="transcript", limit=MAX_TRANSCRIPT_BYTES) if stdin else None
    done = run(
        handle, "<stdin>" if data is not None else transcript, format=fmt, session=session, extract=extract, data=data
    )
    if as_json:
        output.emit_json(done.to_dict())
    else:
        for text in done.lines():
            output.line(text)
    exit_with(1 if (done.outcome is not None and done.outcome.refused) or done.kept else 0)


def _hook(home: Path | None, user: str | None, scope: str | None, extract: bool) -> None:
    """Always exit 0, and nothing on stdout (a hook's stdout goes to the assistant): problems go to stderr."""
    from memfiles.api.capture import capture_hook

    try:
        done = capture_hook(sys.stdin.buffer.read(), home=home, user=user, scope=scope, extract=extract)
    except Exception as exc:  # a broken capture must never break the session it records
        output.error(f"capture hook: {exc}")
        return
    if done.outcome is not None and done.outcome.kind in ("refused", "quarantined"):
        output.error(f"capture hook: {done.outcome.line()}")
    elif done.kept and done.skipped:
        output.error(f"capture hook: skipped: {done.skipped}")
    if done.project_home is not None:
        from memfiles.api.capture import project_home_line

        output.error(f"capture hook: {project_home_line(done.project_home)}")
