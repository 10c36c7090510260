"""Everything `mem` prints. The only module that uses rich; the core never prints."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from memfiles import clock

if TYPE_CHECKING:
    from memfiles.errors import FileFormatError
    from memfiles.format.model import Fact, Outcome
    from memfiles.ops.archive import Found as FoundEpisode
    from memfiles.ops.consolidate import Plan as ConsolidationPlan
    from memfiles.ops.writepath import EpisodeWrite
    from memfiles.recall.ranking import Item
    from memfiles.recall.retrieve import Recalled


def emit_json(data: Any) -> None:
    """Print `data` as indented, key-stable JSON on stdout (json imported here: most commands print text)."""
    import json

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
                clock.iso(f.stated_at),
                clock.iso(f.valid_to) if f.valid_to else "",
                f.source,
                "; ".join(x for x in (f.source_ref, f.reason) if x),
            ]
            for f in items
        ]
    else:
        columns = ["key", "value", "status", "subject", "confidence", "stated_at", "source", "id"]
        rows = [
            [f.key, f.value, f.status, f.subject, f.confidence, clock.iso(f.stated_at), f.source, f.id] for f in items
        ]
    table(title, columns, rows)


# --- episodes, recall and render (issue 3) ---


def block(text: str) -> None:
    """Print a rendered block (or markdown) exactly as rendered; nothing when it is empty."""
    sys.stdout.write(text)


def refused(rule: str, why: str, as_json: bool) -> None:
    """A write the guard or policy refused (nothing was written)."""
    if as_json:
        emit_json({"outcome": "refused", "rule": rule, "why": why})
    else:
        line(f"refused: {rule}: {why}")


def episodes_recorded(results: list[EpisodeWrite], as_json: bool) -> None:
    """One line per episode: `recorded ID PATH` or `exists ID PATH` (or JSON)."""
    if as_json:
        emit_json([r.to_dict() for r in results])
        return
    for result in results:
        line(result.line())


def problems(found: list[FileFormatError]) -> None:
    """Warn about memory files that did not parse (they were skipped and left as they are)."""
    for problem in found:
        warn(f"skipped {problem} (the file is left as it is; fix it by hand)")


def recalled(found: Recalled, fmt: str, explain: bool) -> None:
    """Recall or render results as the block, JSON items or a table; --explain adds the scores."""
    if fmt == "json":
        emit_json([item.to_dict() for item in found.items])
    elif fmt == "table":
        rows = [
            [item.kind, f"{item.score:.3f}", *_about(item), str(clock.day(item.date)), item.scope]
            for item in found.items
        ]
        table(
            f"{' '.join(found.scopes)} as of {clock.day(found.as_of)}",
            ["kind", "score", "about", "memory", "date", "scope"],
            rows,
        )
    else:
        block(found.rendered.text)
    if explain:
        _explain(found)


def _about(item: Item) -> list[str]:
    from memfiles.recall.render import (
        clean,  # stored text may hold bidi or control characters: not on a terminal either
    )

    if item.episode is not None:
        return [clean(f"session {item.episode.session or '-'} · {item.episode.outcome}"), clean(item.episode.summary)]
    return [
        item.facts[0].key,
        clean(" vs ".join(f"{f.value} ({f.confidence} {clock.day(f.stated_at)})" for f in item.facts)),
    ]


def _explain(found: Recalled) -> None:
    from memfiles.recall.render import TOKEN_ESTIMATE, estimate_tokens, item_line

    rendered = found.rendered
    rows = []
    for rank, item in enumerate([*rendered.shown, *rendered.dropped], start=1):
        status = "shown" if rank <= len(rendered.shown) else "dropped (budget)"
        tokens = estimate_tokens(item_line(item, len(found.scopes) > 1) + "\n")
        relevance = item.relevance
        rows.append(
            [
                str(rank),
                item.kind,
                item.id,
                f"{item.score:.3f}",
                f"{relevance.score:.3f}",
                f"{relevance.keyword:.3f}",
                f"{relevance.fuzzy:.3f}",
                f"{item.decay:.3f}",
                str(tokens),
                status,
                item.why(),
            ]
        )
    columns = ["#", "kind", "id", "score", "relevance", "keyword", "fuzzy", "decay", "tokens", "status", "why"]
    table("why these memories", columns, rows)
    line(f"block: {rendered.tokens} tokens ({TOKEN_ESTIMATE}), {len(rendered.text)} characters")


def written_into(path: str, scope: str, changed: bool) -> None:
    """Say whether `mem render --into` changed the file."""
    if changed:
        line(f"wrote the {scope} memory section of {path}")
    else:
        line(f"{path}: the {scope} memory section is already up to date; nothing changed")


def synced(result: dict[str, Any], as_json: bool) -> None:
    """What `mem sync` did (SyncResult.to_dict()): commits received and sent, or its JSON."""
    if as_json:
        emit_json(result)
        return
    if result["committed_hand_edits"]:
        line("committed hand edits")
    branch, where = result["branch"], f"{result['remote']}/{result['branch']}"
    if not result["received"] and not result["sent"]:
        line(f"{branch} is in sync with {where}")
        return
    first = " (first push: upstream set)" if result["set_upstream"] else ""
    line(
        f"synced {branch} with {where}: received {_commits(result['received'])}, sent {_commits(result['sent'])}{first}"
    )


def _commits(count: int) -> str:
    return f"{count} commit" + ("" if count == 1 else "s")


def cloned(url: str, root: str, started: bool) -> None:
    """What `mem init --clone` did."""
    line(f"cloned {url} into {root}; MEMORY.md merge driver registered")
    if started:
        line(f"the remote was empty: started a new memory home there; `mem --home {root} sync` pushes it")


# --- lint (issue 4) ---


def lint_report(report: Any, fmt: str, show_suppressed: bool) -> None:
    """Print a memfiles.lint.engine.LintReport as text lines, JSON, or GitHub annotation lines."""
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


# --- consolidation (issue 5) ---

PROGRESS_MIN_STEPS = 300  # a bar only for runs long enough to wonder about


@contextlib.contextmanager
def progress(description: str) -> Iterator[Callable[[int, int], None]]:
    """A `tick(done, total)` that drives a progress bar on stderr for long runs, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import Progress, TaskID

    state: dict[str, Any] = {}

    def tick(done: int, total: int) -> None:
        if total < PROGRESS_MIN_STEPS:
            return
        if "bar" not in state:
            state["bar"] = Progress(console=Console(stderr=True), transient=True)
            state["bar"].start()
            state["task"] = state["bar"].add_task(description, total=total)
        bar: Progress = state["bar"]
        task: TaskID = state["task"]
        bar.update(task, completed=done, total=total)

    try:
        yield tick
    finally:
        if "bar" in state:
            state["bar"].stop()


def consolidated(plans: list[ConsolidationPlan], as_json: bool) -> None:
    """What consolidation did (or would do, on a dry run) per scope, then a summary table."""
    if as_json:
        emit_json([plan.to_dict() for plan in plans])
        return
    if not plans:
        line("no scope to consolidate")
        return
    from memfiles.recall.render import clean  # stored text may hold control or bidi characters: not on a terminal

    for plan in plans:
        verb = "would change" if plan.dry_run else "changed"
        head = f"{plan.scope}: {verb}" if plan.changed else f"{plan.scope}: nothing to change"
        line(head + (" (dry run: nothing written)" if plan.dry_run and plan.changed else ""))
        for change in plan.changes:
            line(f"  {clean(change)}")
        for refusal in plan.refused:
            line(f"  refused {clean(refusal)}")
        for note in plan.notes:
            line(f"  note: {clean(note)}")
        if plan.refused and plan.changed:
            done = "planned" if plan.dry_run else "applied"
            line(f"  {len(plan.refused)} refused; the valid, guarded rest was {done}")
    columns = ["scope", "episodes", "expired", "superseded", "added", "reinforced", "conflicts", "refused"]
    columns += ["compressed", "bytes before → after"]
    rows = []
    for plan in plans:
        s = plan.summary
        counts = [s.episodes, s.expired, s.superseded, s.added, s.reinforced, s.conflicts, s.refused, s.compressed]
        rows.append([plan.scope, *map(str, counts), f"{s.bytes_before:,} → {s.bytes_after:,}"])
    table("consolidation" + (" (dry run)" if any(p.dry_run for p in plans) else ""), columns, rows)


def episode_file(found: FoundEpisode, as_json: bool) -> None:
    """An episode's original file as stored (and, when it came from git history, where from, on stderr)."""
    if as_json:
        emit_json(found.to_dict())
        return
    if found.removed_by:
        sys.stderr.write(
            f"mem: {found.relpath} was folded into {found.digest}; "
            f"this is its last version, removed by commit {found.removed_by[:12]}\n"
        )
    text = found.data.decode("utf-8", errors="replace")
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
