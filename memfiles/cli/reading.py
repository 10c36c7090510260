"""Reading memory for a prompt: `mem recall` (and its Claude Code hook mode) and `mem render`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Literal

import typer

from memfiles import output
from memfiles.cli.app import (
    ScopeOpt,
    ScopesOpt,
    UserOpt,
    UsersOpt,
    app,
    home_option,
    open_home,
    open_scope,
    warn_unknown,
)
from memfiles.errors import UsageError


@app.command()
def recall(
    ctx: typer.Context,
    query: Annotated[
        str | None, typer.Argument(help='What to recall, e.g. "investing a bonus" ("" = all in range).')
    ] = None,
    user: UsersOpt = None,
    scope: ScopesOpt = None,
    k: Annotated[int | None, typer.Option("-k", min=1, help="At most N facts and N episodes (default 5 + 3).")] = None,
    kind: Annotated[Literal["all", "facts", "episodes"], typer.Option(help="What to recall.")] = "all",
    since: Annotated[str | None, typer.Option(help="Only episodes since DATE, or the last Nd days.")] = None,
    until: Annotated[str | None, typer.Option(help="Only episodes until DATE (inclusive).")] = None,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Facts valid then, episodes up to then.")] = None,
    min_score: Annotated[float | None, typer.Option(help="Relevance threshold, 0-1 (default 0.3).")] = None,
    budget: Annotated[
        int | None, typer.Option(min=1, help="Token budget (estimated offline); lowest-scored dropped.")
    ] = None,
    fmt: Annotated[Literal["block", "json", "table"], typer.Option("--format", help="Output format.")] = "block",
    explain: Annotated[bool, typer.Option("--explain", help="Show why each item was chosen, with scores.")] = False,
    half_life: Annotated[
        float | None,
        typer.Option(min=0, help="Episode half-life in days (0 = no decay); given alone, recency weighs fully."),
    ] = None,
    recency_weight: Annotated[
        float | None,
        typer.Option(
            min=0, max=1, help="How much recency may weigh against relevance, 0-1 (default 0.05; 1 = full decay)."
        ),
    ] = None,
    hook: Annotated[
        bool, typer.Option("--hook", help="Claude Code hook: read its JSON on stdin, always exit 0.")
    ] = False,
    lexical: Annotated[
        bool,
        typer.Option("--lexical", help="Rank by words only, even with memfiles[semantic] installed."),
    ] = False,
) -> None:
    """Recall the facts and episodes relevant to QUERY, as a block of remembered data for a prompt."""
    if hook:
        _hook(home_option(ctx), user or [], scope or [], lexical)
        return
    if query is None:
        raise UsageError('give a QUERY ("" for everything in range), or --hook')
    opened = open_home(ctx)
    chosen = opened.choose_scopes(user or [], scope or [])
    warn_unknown(opened, chosen)
    found = opened.recall(
        query,
        chosen,
        k=k,
        kind=kind,
        since=since,
        until=until,
        as_of=as_of,
        min_score=min_score,
        budget=budget,
        half_life_days=half_life,
        recency_weight=recency_weight,
        lexical=lexical,
    )
    output.problems(found.problems)
    for note in found.notes:
        output.warn(note)
    output.recalled(found, fmt, explain)


def _hook(home: Path | None, users: list[str], scopes: list[str], lexical: bool) -> None:
    """Always exit 0, so a broken memory never blocks a session: a problem is one line on stderr, and every
    outcome is recorded for `mem doctor`."""
    from memfiles.api.hooks import recall_hook

    try:
        text, notes = recall_hook(
            sys.stdin.buffer.read(), home, users, scopes, lexical=lexical, chosen_scopes=warn_unknown
        )
    except Exception as exc:
        output.error(f"hook: {exc}")
        return
    for note in notes:
        output.warn(note)
    output.block(text)


@app.command()
def render(
    ctx: typer.Context,
    fmt: Annotated[Literal["block", "json", "markdown"], typer.Option("--format", help="Output format.")] = "block",
    episodes: Annotated[int, typer.Option(min=0, help="How many of the newest episodes to include.")] = 5,
    budget: Annotated[int | None, typer.Option(min=1, help="Token budget (estimated offline).")] = None,
    into: Annotated[
        Path | None, typer.Option("--into", help="Write between mem markers in FILE (CLAUDE.md, AGENTS.md, .mdc).")
    ] = None,
    user: UserOpt = None,
    scope: ScopeOpt = None,
) -> None:
    """Render a scope's whole current memory: active facts, conflicts and the newest episodes."""
    handle = open_scope(ctx, user, scope)
    warn_unknown(handle.home, [str(handle)])
    markdown = fmt == "markdown"
    if into is None:
        found = handle.render(episodes=episodes, budget=budget, markdown=markdown)
        output.problems(found.problems)
        output.recalled(found, "json" if fmt == "json" else "block", explain=False)
        return
    if fmt == "json":
        raise UsageError("--into writes a block or markdown, not JSON")
    written = handle.render_into(into, episodes=episodes, budget=budget, markdown=markdown)
    output.problems(written.problems)
    output.written_into(written)
