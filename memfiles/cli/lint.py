"""`mem lint`: check memory files and agent markdown with the guard's rules (docs/LINT.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memfiles import output
from memfiles.cli.app import app, exit_with, home_option
from memfiles.errors import UsageError


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
    kind: Annotated[
        str | None,
        typer.Option(
            "--as",
            metavar="KIND",
            help="Read every file as this kind of text: fact, episode, transcript or instructions "
            "(default: the path decides; see docs/LINT.md).",
        ),
    ] = None,
    strict: Annotated[bool, typer.Option(help="Fail on warnings too, not only on errors.")] = False,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Processes for a large run (default: one per CPU).")
    ] = None,
) -> None:
    """Check memory files and agent markdown for instruction-shaped, hidden, secret or exfiltrating text.

    Exit 0 when clean or with warnings only, 1 with an error finding (with any finding under --strict), 2 on a
    usage or config error.
    """
    from memfiles import api

    if explain:
        output.lint_explain(api.explain_rule(explain))
        return
    if fmt not in ("text", "json", "github"):
        raise UsageError(f"--format {fmt!r}: use text, json or github")
    if kind is not None and kind not in ("fact", "episode", "transcript", "instructions"):
        raise UsageError(f"--as {kind!r}: use fact, episode, transcript or instructions")
    report = api.lint(paths, home=home_option(ctx), select=select, ignore=ignore, jobs=jobs, kind=kind)  # type: ignore[arg-type]
    output.lint_report(report, fmt, show_suppressed)
    exit_with(1 if report.errors or (strict and report.findings) else 0)
