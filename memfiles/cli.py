"""The `mem` command line: parse options, call one core function, print. No core logic lives here."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from typer.core import TyperGroup

from memfiles import __version__, cliparams, output
from memfiles.errors import MemError

cliparams.install()  # plain option values without importing pydantic (see memfiles/cliparams.py)


class _Group(TyperGroup):
    """Maps MemError to its exit code and a one-line message (tracebacks only with --debug)."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except MemError as exc:
            if ctx.meta.get("mem.debug"):
                raise
            output.error(str(exc))
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            output.error("interrupted")
            raise typer.Exit(130) from None


app = typer.Typer(
    cls=_Group,
    name="mem",
    help="Long-term memory for AI agents in plain markdown files, kept in git.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

UserOpt = Annotated[str | None, typer.Option("--user", "-u", help="User id; same as --scope user:ID.")]
ScopeOpt = Annotated[str | None, typer.Option("--scope", "-s", help="Scope: user:ID, org:ID or agent:ID.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


def _version(value: bool) -> None:
    if value:
        output.line(f"mem {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    home: Annotated[
        Path | None,
        typer.Option(
            "--home",
            help="Memory home to use (else $MEM_HOME, the nearest .mem/, the platform data dir).",
            envvar="MEM_HOME",
            show_envvar=False,
        ),
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Long-term memory for AI agents in plain markdown files, kept in git."""
    ctx.meta["mem.home"] = home
    ctx.meta["mem.debug"] = debug


def _context(ctx: typer.Context) -> Any:
    from memfiles.ops.home import open_context

    return open_context(ctx.meta.get("mem.home"))


def _scoped(ctx: typer.Context, user: str | None, scope: str | None) -> tuple[Any, Any]:
    from memfiles.ops.home import choose_scope

    home = _context(ctx)
    return home, choose_scope(home.config, user, scope)


@app.command()
def init(
    ctx: typer.Context,
    path: Annotated[Path | None, typer.Argument(help="Where to create the home (default: the resolved home).")] = None,
    clone: Annotated[
        str | None, typer.Option("--clone", metavar="URL", help="Set up another machine: clone URL (see `mem sync`).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Make a home even of / or your home folder (refused without it).")
    ] = False,
) -> None:
    """Create a memory home: a git repository with mem.toml, .gitattributes and a first commit."""
    from memfiles.format.layout import resolve_home
    from memfiles.ops.home import init_home

    root = resolve_home(path or ctx.meta.get("mem.home"))
    if clone is not None:
        _init_clone(clone, root)
        return
    if init_home(root, force=force):
        output.line(f"created memory home at {root}")
    else:
        output.line(f"{root} is already a memory home; nothing changed")


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
    from memfiles import commands

    _exit(
        commands.add(
            ctx.meta.get("mem.home"),
            key,
            value,
            subject=subject,
            inferred=inferred,
            source=source,
            ref=ref,
            at=at,
            expires=expires,
            user=user,
            scope=scope,
            as_json=as_json,
        )
    )


def _exit(code: int) -> None:
    if code:
        raise typer.Exit(code)


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
    from memfiles.ops.supersession import visible
    from memfiles.store.files import read_memory

    home, chosen = _scoped(ctx, user, scope)
    doc = read_memory(home.paths, chosen)
    output.facts(f"{chosen}", visible(doc.facts, everything), as_json)


@app.command()
def history(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help="The fact key whose chain to show.")],
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show every value a key has had, with dates, confidence and provenance."""
    from memfiles.ops.supersession import chain
    from memfiles.store.files import read_memory

    home, chosen = _scoped(ctx, user, scope)
    doc = read_memory(home.paths, chosen)
    output.facts(f"{chosen} {key}", chain(doc.facts, key), as_json, history=True)


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
    from memfiles.ops import writepath

    home, chosen = _scoped(ctx, user, scope)
    ended = writepath.resolve(home.paths, chosen, key, keep)
    if as_json:
        output.emit_json({"kept": keep, "superseded": [f.id for f in ended]})
    else:
        output.line(f"kept {keep}; superseded {', '.join(f.id for f in ended) or 'nothing'}")


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
    from memfiles.ops import writepath

    home, chosen = _scoped(ctx, user, scope)
    if purge:
        from memfiles.ops.purge import PURGE_ADVICE
        from memfiles.ops.purge import purge as erase

        gone, rewritten = erase(home.paths, chosen, target)
        ids = ", ".join(f.id for f in gone)
        if as_json:
            output.emit_json(
                {"forgotten": [f.to_dict() for f in gone], "purged_blobs": rewritten, "advice": PURGE_ADVICE}
            )
        else:
            output.line(f"forgot {ids} ({gone[0].key}) and erased it from {rewritten} stored file version(s)")
            output.line(PURGE_ADVICE)
        return
    gone = writepath.forget(home.paths, chosen, target)
    if as_json:
        output.emit_json({"forgotten": [f.to_dict() for f in gone]})
    else:
        output.line(f"forgot {', '.join(f.id for f in gone)} ({gone[0].key}); git history still holds them")


@app.command()
def review(
    ctx: typer.Context,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List proposed facts waiting for `mem accept ID` or `mem reject ID`."""
    from memfiles.store.files import read_memory

    home, chosen = _scoped(ctx, user, scope)
    pending = [f for f in read_memory(home.paths, chosen).facts if f.status == "proposed"]
    output.facts(f"{chosen} proposed", pending, as_json)


@app.command()
def accept(
    ctx: typer.Context,
    fact_id: Annotated[str, typer.Argument(metavar="ID", help="Id of a proposed fact.")],
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Accept a proposed fact: it is settled like a new write."""
    from memfiles.ops import writepath

    home, chosen = _scoped(ctx, user, scope)
    output.outcome(writepath.accept(home.paths, chosen, fact_id), as_json)


@app.command()
def reject(
    ctx: typer.Context,
    fact_id: Annotated[str, typer.Argument(metavar="ID", help="Id of a proposed fact.")],
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Reject a proposed fact: it stays as history with status retracted."""
    from memfiles.ops import writepath

    home, chosen = _scoped(ctx, user, scope)
    fact = writepath.reject(home.paths, chosen, fact_id)
    if as_json:
        output.emit_json(fact.to_dict())
    else:
        output.line(f"retracted {fact.id}")


@app.command()
def log(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("-n", "--limit", help="How many commits.")] = 20,
    as_json: JsonOpt = False,
) -> None:
    """Show the audit trail: the home's recent commits, newest first."""
    from memfiles.store import gitrepo

    home = _context(ctx)
    entries = gitrepo.log(home.root, limit=limit)
    if as_json:
        output.emit_json(entries)
        return
    for entry in entries:
        output.line(f"{entry['commit'][:10]} {entry['date'][:19]} {entry['message'].splitlines()[0]}")


# --- episodes, recall and render (issue 3): commands go in this section ---

UsersOpt = Annotated[list[str] | None, typer.Option("--user", "-u", metavar="ID", help="User id (repeatable).")]
ScopesOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--scope", "-s", metavar="SCOPE", help="user:ID, org:ID or agent:ID (repeatable: a user plus their org)."
    ),
]


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
    from_json: Annotated[
        typer.FileText | None,
        typer.Option("--from-json", help="Read one episode object or a list from FILE or - (stdin)."),
    ] = None,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Record what happened in a session or task as one episode file (one commit); --from-json records many."""
    from memfiles import commands

    _exit(
        commands.episode(
            ctx.meta.get("mem.home"),
            summary,
            session=session,
            at=at,
            ended=ended,
            entity=entity,
            event=event,
            outcome=outcome,
            fact=fact,
            invalidates=invalidates,
            source=source,
            user=user,
            scope=scope,
            as_json=as_json,
            from_json=from_json,
        )
    )


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
    half_life: Annotated[float | None, typer.Option(min=0, help="Episode half-life in days (0 = no decay).")] = None,
    hook: Annotated[
        bool, typer.Option("--hook", help="Claude Code hook: read its JSON on stdin, always exit 0.")
    ] = False,
) -> None:
    """Recall the facts and episodes relevant to QUERY, as a block of remembered data for a prompt."""
    from memfiles import commands

    _exit(
        commands.recall(
            ctx.meta.get("mem.home"),
            query,
            user=user,
            scope=scope,
            k=k,
            kind=kind,
            since=since,
            until=until,
            as_of=as_of,
            min_score=min_score,
            budget=budget,
            fmt=fmt,
            explain=explain,
            half_life=half_life,
            hook=hook,
        )
    )


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
    from memfiles.errors import UsageError
    from memfiles.recall import retrieve
    from memfiles.recall.render import markdown

    home, chosen = _scoped(ctx, user, scope)
    found = retrieve.render_memory(home, [chosen], episodes, budget=budget)
    output.problems(found.problems)
    text = markdown(found.scopes, found.as_of, found.items) if fmt == "markdown" else found.rendered.text
    if into is None:
        if fmt == "markdown":
            output.block(text)
        else:
            output.recalled(found, fmt, explain=False)
        return
    if fmt == "json":
        raise UsageError("--into writes a block or markdown, not JSON")
    output.written_into(str(into), str(chosen), retrieve.write_into(into, chosen, text))


# --- end of episodes, recall and render ---


# --- lint (issue 4): commands go in this section ---


@app.command()
def lint(
    ctx: typer.Context,
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Files or folders to check (default: the whole memory home).")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="Output: text, json or github (annotations).")] = "text",
    select: Annotated[str | None, typer.Option(help="Only these codes or prefixes, e.g. MEM1,MEM301.")] = None,
    ignore: Annotated[str | None, typer.Option(help="Skip these codes or prefixes (adds to mem.toml [lint]).")] = None,
    explain: Annotated[str | None, typer.Option(metavar="CODE", help="Explain one rule and exit.")] = None,
    show_suppressed: Annotated[bool, typer.Option(help="Also list findings silenced by allow comments.")] = False,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Processes for a large run (default: one per CPU).")
    ] = None,
) -> None:
    """Check memory files and agent markdown for instruction-shaped, hidden, secret or exfiltrating text.

    Exit 0 when clean, 1 with findings, 2 on a usage or config error.
    """
    from memfiles import commands

    _exit(
        commands.lint(
            ctx.meta.get("mem.home"),
            paths,
            fmt=fmt,
            select=select,
            ignore=ignore,
            explain=explain,
            show_suppressed=show_suppressed,
            jobs=jobs,
        )
    )


# --- end of lint ---


# --- consolidation (issue 5): commands go in this section ---


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
        typer.Option("--extractor", metavar="CMD", help="Extractor command (else mem.toml; '' for none)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Consolidate memory: expire stale facts, apply episodes, ask the extractor, fold old episodes into digests.

    One commit per scope. Episodes' `invalidates` supersede facts and their candidate `facts` go
    through the guarded write path, as does everything an extractor proposes: a refused value is
    reported (exit 1) and the valid rest applied. Running it twice changes nothing the second time.

    \b
    Examples:
      mem consolidate -u dana --dry-run
      mem consolidate --all --older-than 60d
      mem consolidate -u dana --extractor "python examples/extractor/llm_extractor.py"
    """
    from memfiles.ops import consolidate as core

    home = _context(ctx)
    scopes = core.choose_scopes(home, user, scope, everything)
    days = core.parse_days(older_than) if older_than is not None else None
    with output.progress("consolidating") as tick:
        plans = core.run(home, scopes, core.Options(dry_run, days, extractor), tick)
    output.consolidated(plans, as_json)
    if any(plan.refused for plan in plans):
        raise typer.Exit(1)


@app.command()
def schema(
    name: Annotated[
        Literal["extractor"], typer.Argument(metavar="NAME", help="extractor: what a consolidation extractor prints.")
    ],
) -> None:
    """Print a published JSON Schema (extractor: the answer `mem consolidate --extractor` accepts)."""
    from memfiles.schema import extractor_schema

    output.emit_json(extractor_schema())


@app.command("show-episode")
def show_episode(
    ctx: typer.Context,
    episode_id: Annotated[str, typer.Argument(metavar="ID", help="Episode id, e.g. e-5d1c0a9b2f31.")],
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print an episode's file, from the scope's folder or, once folded into a digest, from git history."""
    from memfiles.ops.archive import find

    home, chosen = _scoped(ctx, user, scope)
    output.episode_file(find(home.paths, chosen, episode_id), as_json)


# --- end of consolidation ---


# --- sync, merge driver, mcp (issue 6): commands go in this section ---


def _init_clone(url: str, root: Path) -> None:
    from memfiles.ops.sync import clone_home

    output.cloned(url, str(root), started=clone_home(url, root))


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
    from memfiles.ops.sync import sync as run_sync

    home = _context(ctx)
    output.synced(run_sync(home.paths, remote, commit, warn=output.warn).to_dict(), as_json)


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
    from memfiles.ops.sync import run_merge_driver

    if not run_merge_driver(base, ours, theirs, path):
        output.warn(f"{path}: the notes below the frontmatter conflict (markers left there); the facts merged")
        raise typer.Exit(1)


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

    serve(ctx.meta.get("mem.home"), user, scope)


# --- end of sync, merge driver, mcp ---


# --- doctor and reliability (issues 7, 8): commands go in this section ---


@app.command()
def doctor(
    ctx: typer.Context,
    fix: Annotated[bool, typer.Option("--fix", help="Repair what is safe to repair.")] = False,
    reindex: Annotated[
        bool, typer.Option("--reindex", help="Rebuild every scope's recall index from the files first.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Check the home (files, git state, indexes, leftovers of interrupted writes); exit 1 if anything is wrong."""
    from memfiles.ops import doctor as checks

    home = _context(ctx)
    rebuilt = checks.reindex(home.paths) if reindex else []
    done, problems = checks.run(home.paths, fix)
    done = rebuilt + done
    if as_json:
        output.emit_json({"fixed": done, "problems": [p.line() for p in problems]})
    else:
        for entry in done:
            output.line(f"fixed: {entry}")
        for problem in problems:
            output.line(problem.line())
        output.line(
            "healthy" if not problems else f"{len(problems)} problem(s); `mem doctor --fix` repairs what it can"
        )
    if problems:
        raise typer.Exit(1)


# --- end of doctor ---


def run() -> None:
    """Run the command line on sys.argv (raises SystemExit, like any click program)."""
    import sys

    keep_only(sys.argv[1:])
    app()


def keep_only(argv: list[str]) -> None:
    """Register only the command being run: typer inspects every command's signature at start (~15 ms).

    `mem --version` needs none; help, completion and an unknown or missing command keep them all.
    """
    import os

    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return
    wanted: list[str] | None = None
    tokens = iter(argv)
    for token in tokens:
        if token in ("-h", "--help"):
            return
        if token == "--home":
            next(tokens, None)
        elif token == "--version":
            wanted = []
        elif not token.startswith("-"):
            wanted = [token]
            break
    if wanted is None:
        return
    from typer.main import get_command_name

    chosen = [
        c
        for c in app.registered_commands
        if (c.name or get_command_name(getattr(c.callback, "__name__", ""))) in wanted
    ]
    if chosen or not wanted:
        app.registered_commands[:] = chosen
