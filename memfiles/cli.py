"""The `mem` command line: parse options, call one core function, print. No core logic lives here."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from memfiles import __version__, output
from memfiles.errors import MemError


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
    from memfiles.home import open_context

    return open_context(ctx.meta.get("mem.home"))


def _scoped(ctx: typer.Context, user: str | None, scope: str | None) -> tuple[Any, Any]:
    from memfiles.home import choose_scope

    home = _context(ctx)
    return home, choose_scope(home.config, user, scope)


@app.command()
def init(
    ctx: typer.Context,
    path: Annotated[Path | None, typer.Argument(help="Where to create the home (default: the resolved home).")] = None,
) -> None:
    """Create a memory home: a git repository with mem.toml, .gitattributes and a first commit."""
    from memfiles.home import init_home
    from memfiles.layout import resolve_home

    root = resolve_home(path or ctx.meta.get("mem.home"))
    if init_home(root):
        output.line(f"created memory home at {root}")
    else:
        output.line(f"{root} is already a memory home; nothing changed")


@app.command()
def add(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help="Fact key, e.g. notification_channel.")],
    value: Annotated[str, typer.Argument(help="Fact value, one line, e.g. email.")],
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
    """
    from memfiles.errors import RefusedError
    from memfiles.model import Outcome
    from memfiles.writepath import NewFact, add_fact

    home, chosen = _scoped(ctx, user, scope)
    new = NewFact(key, value, subject, inferred, source, ref, at, expires)
    try:
        result = add_fact(home.paths, home.config, chosen, new)
    except RefusedError as exc:
        output.outcome(Outcome("refused", str(chosen), key, rule=exc.rule, why=exc.why), as_json)
        raise typer.Exit(1) from None
    output.outcome(result, as_json)


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
    from memfiles.store import read_memory
    from memfiles.supersession import visible

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
    from memfiles.store import read_memory
    from memfiles.supersession import chain

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
    from memfiles import writepath

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
    user: UserOpt = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove a fact, or every fact of a key, from MEMORY.md (git history still holds it)."""
    from memfiles import writepath

    home, chosen = _scoped(ctx, user, scope)
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
    from memfiles.store import read_memory

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
    from memfiles import writepath

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
    from memfiles import writepath

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
    from memfiles import gitrepo

    home = _context(ctx)
    entries = gitrepo.log(home.root, limit=limit)
    if as_json:
        output.emit_json(entries)
        return
    for entry in entries:
        output.line(f"{entry['commit'][:10]} {entry['date'][:19]} {entry['message'].splitlines()[0]}")


# --- episodes, recall and render (issue 3): commands go in this section ---


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
) -> None:
    """Check memory files and agent markdown for instruction-shaped, hidden, secret or exfiltrating text.

    Exit 0 when clean, 1 with findings, 2 on a usage or config error.
    """
    from memfiles import lint as linting
    from memfiles.errors import UsageError

    if explain:
        output.lint_explain(linting.explain(explain))
        return
    if fmt not in ("text", "json", "github"):
        raise UsageError(f"--format {fmt!r}: use text, json or github")
    ignored = linting.parse_codes(ignore)
    base = Path.cwd()
    if not paths:
        from memfiles.config import load_config
        from memfiles.errors import HomeError
        from memfiles.layout import CONFIG_NAME, require_home, resolve_home

        try:
            base = require_home(resolve_home(ctx.meta.get("mem.home")))
        except HomeError as exc:
            raise UsageError(f"mem lint: give files or folders to check, or a memory home ({exc})") from None
        ignored += linting.parse_codes(",".join(load_config(base / CONFIG_NAME).lint_ignore))
        paths = [base]
    report = linting.lint_paths(paths, linting.parse_codes(select), ignored, base)
    output.lint_report(report, fmt, show_suppressed)
    if report.findings:
        raise typer.Exit(1)


# --- end of lint ---


# --- consolidation (issue 5): commands go in this section ---


# --- end of consolidation ---


# --- sync, merge driver, mcp (issue 6): commands go in this section ---


# --- end of sync, merge driver, mcp ---


# --- doctor and reliability (issues 7, 8): commands go in this section ---


# --- end of doctor ---


def run() -> None:
    """Console-script entry point."""
    app()
