"""Staleness you can see and settle: `mem stale` lists current facts not confirmed within their subject's
`[stale_after_days]` (FORMAT.md, "Staleness"); `mem confirm KEY` says one is still true, `mem expire ID` that
it no longer is."""

from __future__ import annotations

from typing import Annotated

import typer

from memfiles import output
from memfiles.cli.app import JsonOpt, ScopeOpt, UserOpt, app, exit_with, open_scope


@app.command()
def stale(
    ctx: typer.Context,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Judge staleness at this date (default now).")] = None,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List current facts marked "possibly stale": not confirmed (said again, or `mem confirm`) for longer
    than their subject's [stale_after_days] in mem.toml (account_state 30, goal 60, constraint 180,
    user_preference 365, user_attribute 730 days by default). Recall and render mark the same facts.

    Settle each: `mem confirm KEY` if it is still true, `mem expire ID` if not. Changes nothing itself.
    --json prints a list of {scope, id, key, value, subject, status, last_confirmed, days_since, stale_after_days}.
    """
    handle = open_scope(ctx, user, scope)
    output.stale(str(handle), handle.stale(as_of=as_of), as_json)


@app.command()
def confirm(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help="The key whose current value is still true, e.g. plan_tier.")],
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Confirm a fact is still true: recorded as the person stating it again now (source person), so
    `last_confirmed` moves to today and recall stops marking it possibly stale. Prints `reinforced ID`.

    A key in conflict is settled with `mem resolve KEY --keep ID` first.
    """
    result = open_scope(ctx, user, scope).confirm(key)
    output.outcome(result, as_json)
    exit_with(1 if result.refused else 0)


@app.command()
def expire(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(metavar="ID", help="Id of a current fact (see `mem stale`, `mem show`).")],
    reason: Annotated[
        str, typer.Option(help="Why it no longer holds (one line).")
    ] = "no longer true (expired by person)",
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """End a fact that is no longer true: status expired with today's date and the reason; history keeps it."""
    output.expired(open_scope(ctx, user, scope).expire(target, reason=reason), as_json)
