"""`mem episode`: record what happened in a session or task, one episode or a batch from JSON."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from memfiles import output
from memfiles.cli.app import JsonOpt, ScopeOpt, UserOpt, app, exit_with, open_scope
from memfiles.errors import UsageError


@app.command()
def episode(
    ctx: typer.Context,
    summary: Annotated[str | None, typer.Argument(help="What happened, in a few sentences.")] = None,
    session: Annotated[str | None, typer.Option(help="Session or task id, e.g. s-31.")] = None,
    at: Annotated[str | None, typer.Option(help="When it started (ISO date/datetime; default now).")] = None,
    ended: Annotated[str | None, typer.Option(help="When it ended (ISO date/datetime).")] = None,
    entity: Annotated[
        list[str] | None, typer.Option(help="Something it was about, e.g. 'order O-4471' (repeatable).")
    ] = None,
    event: Annotated[list[str] | None, typer.Option(help="One thing that happened, in order (repeatable).")] = None,
    outcome: Annotated[
        Literal["success", "failure", "partial", "unknown"], typer.Option(help="How it ended.")
    ] = "unknown",
    fact: Annotated[
        list[str] | None, typer.Option(help="Candidate fact KEY=VALUE for consolidation (repeatable).")
    ] = None,
    invalidates: Annotated[
        list[str] | None, typer.Option(help="KEY=REASON: a fact this makes stale (repeatable).")
    ] = None,
    source: Annotated[str | None, typer.Option(help="Where it came from (default agent_summary).")] = None,
    ref: Annotated[str | None, typer.Option(help="Provenance detail (source_ref), e.g. 'ticket T-982'.")] = None,
    transcript: Annotated[
        bool,
        typer.Option("--transcript", help="SUMMARY is a role-labelled transcript (User: … / Assistant: … lines)."),
    ] = False,
    from_json: Annotated[
        typer.FileBinaryRead | None,
        typer.Option(
            "--from-json", metavar="<FileText>", help="Read one episode object or a list from FILE or - (stdin)."
        ),
    ] = None,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Record what happened in a session or task as one episode file (one commit); --from-json records many.

    Outcomes: recorded, exists (the same episode is there), quarantined (stored, but held back from
    recall and render until a person runs `mem accept ID`: the guard found instruction-shaped text),
    refused (exit 1, nothing written). A batch stores every episode the guard does not refuse and
    reports the quarantined ones; exit 0 when everything was stored, quarantined ones included.

    \b
    Examples:
      mem episode -u alice "Asked about order O-4471; in transit." --session s-31 --outcome success
      mem episode -u alice "Refund issued for O-4471." --ref "ticket T-982"
      mem episode -u alice --transcript "$(printf 'User: hi\nAssistant: hello')"
      mem episode -u alice --from-json episodes.json
    """
    from memfiles.api import episodes_from_json
    from memfiles.format.episodes import split_pair

    handle = open_scope(ctx, user, scope)
    if from_json is not None:
        given = [summary, session, at, ended, entity, event, fact, invalidates, source, ref, transcript]
        if any(given) or outcome != "unknown":
            raise UsageError("give either SUMMARY with options or --from-json, not both")
        where = str(getattr(from_json, "name", "<stdin>"))  # a test's stand-in for stdin has no name
        results = handle.episodes(episodes_from_json(from_json.read(), where))
    elif summary is None:
        raise UsageError("give the episode's SUMMARY, or --from-json FILE (- for stdin)")
    else:
        facts = [split_pair(f, "--fact") for f in fact or []]
        stale = [split_pair(i, "--invalidates") for i in invalidates or []]
        one = handle.episode(
            summary,
            session=session,
            at=at,
            ended=ended,
            entities=entity or [],
            events=event or [],
            outcome=outcome,
            facts=facts,
            invalidates=stale,
            source=source,
            transcript=transcript,
            ref=ref,
        )
        results = [one]
    output.outcomes(results, as_json)
    exit_with(1 if any(r.refused for r in results) else 0)
