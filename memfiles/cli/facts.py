"""Facts: `mem add`, `show`, `history`, `resolve`, `forget`, `review`, `accept`, `reject` (of proposed facts
and of episodes the guard holds back), and `log`, the audit trail of every write."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, cast

import typer

from memfiles import output
from memfiles.cli.app import JsonOpt, ScopeOpt, UserOpt, app, exit_with, open_home, open_scope

if TYPE_CHECKING:
    from memfiles.format.fields import Subject


@app.command()
def add(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help="Fact key, e.g. notification_channel.")],
    value: Annotated[str, typer.Argument(help="Fact value, one line, e.g. email; - reads it from standard input.")],
    subject: Annotated[
        str, typer.Option(help="user_preference | user_attribute | account_state | constraint | past_action | goal.")
    ] = "user_preference",
    inferred: Annotated[
        bool, typer.Option("--inferred", help="The agent inferred it (default: the user stated it).")
    ] = False,
    source: Annotated[str | None, typer.Option(help="Where it came from (allowed list in mem.toml).")] = None,
    ref: Annotated[str | None, typer.Option(help="Provenance detail, e.g. 'session s-12, turn 4'.")] = None,
    at: Annotated[str | None, typer.Option(help="When it was stated (ISO date/datetime; default now).")] = None,
    expires: Annotated[str | None, typer.Option(help="Expiry: an ISO date or Nd (days after --at).")] = None,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remember a keyed fact through the guarded write path; prints one outcome line.

    Outcomes: added, reinforced, superseded OLD -> NEW, conflict ID ID, proposed, refused (exit 1).
    A newer statement supersedes an older one; an inference never overrides what the user stated
    (that is a conflict, for `mem resolve`). Instruction-shaped or secret-shaped values are refused.

    \b
    Examples:
      mem add -u alice notification_channel email
      mem add -u alice plan_tier Enterprise --subject account_state --ref "session s-12, turn 4"
      mem add -u alice diet vegetarian --inferred --at 2026-05-01 --expires 90d
    """
    handle = open_scope(ctx, user, scope)
    given = sys.stdin if value == "-" else value  # read by the API, only up to mem.toml's max_value_chars
    kind = cast("Subject", subject)  # checked by the write path, which names the subjects it takes
    outcome = handle.add(key, given, subject=kind, inferred=inferred, source=source, ref=ref, at=at, expires=expires)
    output.outcome(outcome, as_json)
    exit_with(1 if outcome.refused else 0)


@app.command()
def show(
    ctx: typer.Context,
    everything: Annotated[
        bool, typer.Option("--all", "-a", help="Include history, proposed and retracted facts.")
    ] = False,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List a scope's current facts (active and conflicts); --all adds the history."""
    handle = open_scope(ctx, user, scope)
    output.facts(str(handle), handle.show(everything=everything), as_json)


@app.command()
def history(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help="The fact key whose chain to show.")],
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show every value a key has had, with dates, confidence and provenance."""
    handle = open_scope(ctx, user, scope)
    output.facts(f"{handle} {key}", handle.history(key), as_json, history=True)


@app.command()
def resolve(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help="The key in conflict.")],
    keep: Annotated[str, typer.Option("--keep", help="Id of the fact to keep (see `mem show`).")],
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """End a conflict: keep one fact; the others are superseded with reason "resolved by person"."""
    output.resolved(keep, open_scope(ctx, user, scope).resolve(key, keep), as_json)


@app.command()
def forget(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(metavar="ID|KEY", help="A fact id, or a key (all its facts).")],
    purge: Annotated[bool, typer.Option("--purge", help="Also erase the value from every commit of history.")] = False,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove a fact, or every fact of a key, from MEMORY.md; --purge erases it from git history too."""
    output.forgotten(open_scope(ctx, user, scope).forget(target, purge=purge), as_json)


@app.command()
def review(
    ctx: typer.Context,
    settled: Annotated[
        bool, typer.Option("--settled", help="Also list episodes a person already accepted or rejected.")
    ] = False,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List what waits for a person: proposed facts, facts and episodes the guard holds back, each by id.

    Settle a proposed fact or a flagged episode with `mem accept ID` or `mem reject ID` (f-… or e-…). A held
    fact (one that arrived by a pull, a hand edit or an import with a value the write path would refuse) is
    shown to no reader: edit it in MEMORY.md, or `mem forget ID`.
    --json prints {"facts": [...], "held_facts": [...], "episodes": [...]}.
    """
    handle = open_scope(ctx, user, scope)
    facts, held_facts, held = handle.review(), handle.held_facts(), handle.flagged(settled=settled)
    if as_json:
        output.emit_json(
            {
                "facts": [f.to_dict() for f in facts],
                "held_facts": [h.to_dict() for h in held_facts],
                "episodes": [h.to_dict() for h in held],
            }
        )
        return
    output.facts(f"{handle} proposed", facts, False)
    output.held_facts(f"{handle} held facts", held_facts)
    output.held_episodes(f"{handle} flagged episodes", held)


def _is_episode(target: str) -> bool:
    return target.startswith("e-")


@app.command()
def accept(
    ctx: typer.Context,
    target: Annotated[
        str, typer.Argument(metavar="ID", help="Id of a proposed fact (f-…) or a flagged episode (e-…).")
    ],
    by: Annotated[str | None, typer.Option(help="Who accepts an episode (default: git's user.name).")] = None,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Accept a proposed fact (settled like a new write), or let a flagged episode into recall and render.

    An episode's acceptance records the sha256 of the text accepted, when and by whom, in its
    frontmatter: if the text changes later, the episode is held back again.
    """
    handle = open_scope(ctx, user, scope)
    if _is_episode(target):
        output.held_episode("accepted", handle.accept_episode(target, by=by), as_json)
    else:
        output.outcome(handle.accept(target), as_json)


@app.command()
def reject(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(metavar="ID", help="Id of a proposed fact (f-…) or an episode (e-…).")],
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Reject a proposed fact (kept as history, status retracted), or an episode (status rejected: kept in
    its file, never rendered or recalled)."""
    handle = open_scope(ctx, user, scope)
    if _is_episode(target):
        output.held_episode("rejected", handle.reject_episode(target), as_json)
    else:
        output.rejected(handle.reject(target), as_json)


@app.command()
def log(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("-n", "--limit", help="How many commits.")] = 20,
    as_json: JsonOpt = False,
) -> None:
    """Show the audit trail: the home's recent commits, newest first."""
    output.log(open_home(ctx).log(limit), as_json)
