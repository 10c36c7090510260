"""Consolidation: `mem consolidate`, the extractor's `mem schema`, and `mem show-episode`, which finds an
episode's file even after consolidation folded it into a digest."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from memfiles import output
from memfiles.cli.app import JsonOpt, ScopeOpt, UserOpt, app, exit_with, open_home, open_scope
from memfiles.errors import UsageError


@app.command()
def consolidate(
    ctx: typer.Context,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    everything: Annotated[bool, typer.Option("--all", help="Consolidate every scope of the home.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the plan; write and commit nothing.")] = False,
    older_than: Annotated[
        str | None,
        typer.Option("--older-than", metavar="Nd", help="Fold consolidated episodes older than N days into digests."),
    ] = None,
    extractor: Annotated[
        str | None,
        typer.Option("--extractor", metavar="CMD", help="Extractor command (else mem.local.toml's; '' for none)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Consolidate memory: expire stale facts, apply episodes, ask the extractor, fold old episodes into digests.

    One commit per scope. Episodes' `invalidates` supersede facts and their candidate `facts` go
    through the guarded write path, as does everything an extractor proposes: a refused value is
    reported (exit 1) and the valid rest applied. Running it twice changes nothing the second time.
    Facts the user stated in an episode ("User: I'm vegetarian") are proposed for `mem review`; facts
    not confirmed within [stale_after_days] are listed as possibly stale (`mem confirm` or `mem expire`
    them), never expired by it.

    \b
    Examples:
      mem consolidate -u dana --dry-run
      mem consolidate --all --older-than 60d
      mem consolidate -u dana --extractor "python examples/extractor/llm_extractor.py"
    """
    opened = open_home(ctx)
    if everything and (user or scope):
        raise UsageError("give either --all or --user/--scope, not both")
    scopes = None if everything else [str(opened.choose(user, scope))]
    days = parse_days(older_than) if older_than is not None else None
    with output.progress("consolidating") as tick:
        results = opened.consolidate(scopes, dry_run=dry_run, older_than_days=days, extractor=extractor, progress=tick)
    output.consolidated(results, as_json)
    exit_with(1 if any(r.refusals for r in results) else 0)


def parse_days(text: str) -> float:
    """`--older-than`: `30d` or `30` (days, ≥ 0)."""
    raw = text.strip().removesuffix("d")
    try:
        days = float(raw)
    except ValueError:
        days = -1.0
    if days < 0 or days != days:  # NaN is not a number of days either
        raise UsageError(f"--older-than {text!r}: write a number of days such as 30d")
    return days


@app.command()
def schema(
    name: Annotated[
        Literal["extractor"], typer.Argument(metavar="NAME", help="extractor: what a consolidation extractor prints.")
    ],
) -> None:
    """Print a published JSON Schema (extractor: the answer `mem consolidate --extractor` accepts)."""
    from memfiles import api

    output.emit_json(api.extractor_schema())


@app.command("show-episode")
def show_episode(
    ctx: typer.Context,
    episode_id: Annotated[str, typer.Argument(metavar="ID", help="Episode id, e.g. e-5d1c0a9b2f31.")],
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print an episode's file, from the scope's folder or, once folded into a digest, from git history."""
    output.episode_file(open_scope(ctx, user, scope).show_episode(episode_id), as_json)
