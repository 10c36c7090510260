"""Facts: `mem add`, `show`, `history`, `resolve`, `forget`, `review`, `accept`, `reject` (of proposed facts
and of episodes the guard holds back), and `log`, the audit trail of every write."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Literal, cast

import typer

from memfiles import output
from memfiles.cli.app import JsonOpt, ScopeOpt, UserOpt, app, exit_with, open_home, open_scope, warn_unknown
from memfiles.errors import UsageError

if TYPE_CHECKING:
    from memfiles.api import ScopeHandle
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
    warn_unknown(handle.home, [str(handle)])
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
    warn_unknown(handle.home, [str(handle)])
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
    interactive: Annotated[
        bool | None,
        typer.Option(
            "--interactive/--list",
            help="Go through each item (accept, reject, skip, edit), or only list them. Default: interactive at a "
            "terminal, a list otherwise.",
        ),
    ] = None,
    fmt: Annotated[
        Literal["text", "json"], typer.Option("--format", help="List as text or JSON (for scripts).")
    ] = "text",
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """What waits for a person: proposed facts, facts and episodes the guard holds back, each by id.

    At a terminal, a pass over each proposed fact and flagged episode: [a]ccept, [r]eject, [s]kip, [e]dit (a
    fact: you give the value, kept as your statement, the proposal rejected) or [q]uit; each answer is written
    (and committed) at once. Elsewhere, or with --list, a list; --format json prints {"facts": [...],
    "held_facts": [...], "episodes": [...]}. Settle many at once with `mem accept --all`, `--source import` or
    `--key 'note.*'`. A held fact (one that arrived by a pull, a hand edit or an import with a value the write
    path would refuse) is shown to no reader: edit it in MEMORY.md, or `mem forget ID`.
    """
    handle = open_scope(ctx, user, scope)
    warn_unknown(handle.home, [str(handle)])
    facts, held_facts, held = handle.review(), handle.held_facts(), handle.flagged(settled=settled)
    if as_json or fmt == "json":
        output.emit_json(
            {
                "facts": [f.to_dict() for f in facts],
                "held_facts": [h.to_dict() for h in held_facts],
                "episodes": [h.to_dict() for h in held],
            }
        )
        return
    if interactive is None:
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
    output.held_facts(f"{handle} held facts", held_facts)
    if not interactive:
        output.facts(f"{handle} proposed", facts, False)
        output.held_episodes(f"{handle} flagged episodes", held)
        return
    from memfiles.cli.review import review_pass

    review_pass(handle, facts, [h for h in held if h.state == "flagged"])


TargetsArg = Annotated[
    list[str] | None,
    typer.Argument(metavar="[ID]...", help="Ids of proposed facts (f-…) or flagged episodes (e-…)."),
]
AllOpt = Annotated[bool, typer.Option("--all", help="Every proposed fact of the scope.")]
SourceOpt = Annotated[
    str | None, typer.Option("--source", help="The proposed facts from this source (import, capture, consolidation…).")
]
KeyOpt = Annotated[
    str | None, typer.Option("--key", metavar="PATTERN", help="Proposed facts whose key matches, e.g. 'note.*'.")
]


def _is_episode(target: str) -> bool:
    return target.startswith("e-")


def _one(targets: list[str] | None, everything: bool, source: str | None, key: str | None) -> bool:
    """One id named and no filter: the answer keeps the one-item form (a line, or the item's JSON)."""
    return len(set(targets or [])) == 1 and not (everything or source or key)


def _chosen(
    handle: ScopeHandle, targets: list[str] | None, everything: bool, source: str | None, key: str | None
) -> tuple[list[str], list[str]]:
    """The fact ids and the episode ids a command settles: those named, plus the proposed facts the filters match."""
    named = list(dict.fromkeys(targets or []))
    if not named and not (everything or source or key):
        raise UsageError("name the ids to settle (see `mem review`), or choose them with --all, --source or --key")
    facts = [t for t in named if not _is_episode(t)]
    if everything or source or key:
        facts += [f.id for f in handle.proposed(source=source, key=key) if f.id not in facts]
    return facts, [t for t in named if _is_episode(t)]


@app.command()
def accept(
    ctx: typer.Context,
    targets: TargetsArg = None,
    everything: AllOpt = False,
    source: SourceOpt = None,
    key: KeyOpt = None,
    by: Annotated[str | None, typer.Option(help="Who accepts an episode (default: git's user.name).")] = None,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Accept proposed facts (each settled like a new write, in one commit), or let flagged episodes into recall.

    Name the ids, or choose proposed facts with --all, --source SOURCE or --key PATTERN (shell-style); a summary
    line counts the outcomes. An episode's acceptance records the sha256 of the text accepted, when and by
    whom: if the text changes later, the episode is held back again. Flagged episodes are accepted only by id.

    \b
    Examples:
      mem accept -u alice f-1a2b3c f-4d5e6f
      mem accept -u alice --source import --key 'note.*'
      mem accept -u alice e-0f9e8d7c6b5a
    """
    handle = open_scope(ctx, user, scope)
    facts, episodes = _chosen(handle, targets, everything, source, key)
    outcomes = handle.accept_many(facts)
    held = [handle.accept_episode(e, by=by) for e in episodes]
    output.settled("accepted", outcomes, [], held, as_json, one=_one(targets, everything, source, key))


@app.command()
def reject(
    ctx: typer.Context,
    targets: TargetsArg = None,
    everything: AllOpt = False,
    source: SourceOpt = None,
    key: KeyOpt = None,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Reject proposed facts (kept as history, status retracted; one commit), or episodes (status rejected: kept
    in their file, never rendered or recalled). Choose facts by id, or with --all, --source or --key."""
    handle = open_scope(ctx, user, scope)
    facts, episodes = _chosen(handle, targets, everything, source, key)
    retracted = handle.reject_many(facts)
    held = [handle.reject_episode(e) for e in episodes]
    output.settled("rejected", [], retracted, held, as_json, one=_one(targets, everything, source, key))


@app.command()
def log(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("-n", "--limit", help="How many commits.")] = 20,
    as_json: JsonOpt = False,
) -> None:
    """Show the audit trail: the home's recent commits, newest first."""
    output.log(open_home(ctx).log(limit), as_json)
