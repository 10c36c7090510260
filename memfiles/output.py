"""Everything `mem` prints. The only module that uses rich; the core never prints."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from memfiles.model import Fact, Outcome


def emit_json(data: Any) -> None:
    """Print `data` as indented, key-stable JSON on stdout."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def line(text: str = "") -> None:
    """Print one plain line on stdout."""
    sys.stdout.write(text + "\n")


def error(message: str) -> None:
    """Print an error on stderr as `mem: error: …`."""
    sys.stderr.write(f"mem: error: {message}\n")


def warn(message: str) -> None:
    """Print a warning on stderr."""
    sys.stderr.write(f"mem: warning: {message}\n")


def outcome(result: Outcome, as_json: bool) -> None:
    """The one outcome line of a write (or its JSON)."""
    if as_json:
        emit_json(result.to_dict())
    else:
        line(result.line())


def table(title: str, columns: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
    """A rich table on stdout (plain when not a terminal, no colour under NO_COLOR)."""
    from rich.console import Console
    from rich.table import Table

    grid = Table(title=title, title_justify="left", show_lines=False)
    for column in columns:
        grid.add_column(column, overflow="fold")
    for row in rows:
        grid.add_row(*(_plain(cell) for cell in row))
    Console(soft_wrap=False, width=None if sys.stdout.isatty() else 160).print(grid)


def _plain(text: str) -> Any:
    from rich.text import Text

    return Text(text)  # never interpret stored text as rich markup


def facts(title: str, items: list[Fact], as_json: bool, history: bool = False) -> None:
    """Facts as a table (or JSON): current ones, or a key's whole chain with provenance."""
    if as_json:
        emit_json([f.to_dict() for f in items])
        return
    if not items:
        line(f"{title}: nothing stored")
        return
    if history:
        columns = ["id", "value", "status", "confidence", "stated_at", "valid_to", "source", "ref / reason"]
        rows = [
            [
                f.id,
                f.value,
                f.status + (f" → {f.superseded_by}" if f.superseded_by else ""),
                f.confidence,
                f.stated_at,
                f.valid_to or "",
                f.source,
                "; ".join(x for x in (f.source_ref, f.reason) if x),
            ]
            for f in items
        ]
    else:
        columns = ["key", "value", "status", "subject", "confidence", "stated_at", "source", "id"]
        rows = [[f.key, f.value, f.status, f.subject, f.confidence, f.stated_at, f.source, f.id] for f in items]
    table(title, columns, rows)


# --- lint (issue 4) ---


def lint_report(report: Any, fmt: str, show_suppressed: bool) -> None:
    """Print a memfiles.lint.LintReport as text lines, JSON, or GitHub annotation lines."""
    if fmt == "json":
        data: dict[str, Any] = {
            "files": report.files,
            "errors": report.errors,
            "warnings": len(report.findings) - report.errors,
            "findings": [r.to_dict() for r in report.findings],
        }
        if show_suppressed:
            data["suppressed"] = [r.to_dict() for r in report.suppressed]
        emit_json(data)
        return
    for reported in report.findings:
        f = reported.finding
        if fmt == "github":
            kind = "error" if f.severity == "error" else "warning"
            message = f"{f.message}: {f.excerpt}".replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            line(f"::{kind} file={reported.path},line={f.line},col={f.col},title={f.code}::{message}")
        else:
            line(f'{reported.path}:{f.line}:{f.col}: {f.code} {f.message}  "{f.excerpt}"')
    if show_suppressed:
        for reported in report.suppressed:
            f = reported.finding
            line(f'{reported.path}:{f.line}:{f.col}: {f.code} suppressed ({reported.reason})  "{f.excerpt}"')
    if fmt == "text":
        warnings = len(report.findings) - report.errors
        files = f"{report.files} file" + ("" if report.files == 1 else "s")
        summary = f"{report.errors} errors, {warnings} warnings in {files}"
        if report.suppressed:
            summary += f"; {len(report.suppressed)} suppressed"
        line(
            summary
            if report.findings
            else f"clean: {files}" + (summary[summary.index(";") :] if ";" in summary else "")
        )


def lint_explain(rule: Any) -> None:
    """Print what a rule catches, why it matters, how to fix it, and an example of each side."""
    line(f"{rule.code} {rule.name} ({rule.severity})")
    line(f"catches: {rule.catches}")
    line(f"why: {rule.why}")
    line(f"fix: {rule.fix}")
    if rule.example:
        line(f"caught: {rule.example!r}")
    if rule.near_miss:
        line(f"not caught: {rule.near_miss!r}")
