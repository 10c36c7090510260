"""Everything `mem` prints. The only module that uses rich; the core never prints."""

from __future__ import annotations

import contextlib
import logging
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from memfiles import clock

if TYPE_CHECKING:
    from memfiles.api.assistants import ExtractorSetup, SetupReport
    from memfiles.api.models import (
        Cloned,
        Consolidation,
        DoctorReport,
        EpisodeFile,
        Forgotten,
        HeldEpisode,
        HeldFact,
        Initialised,
        LogEntry,
        RecallItem,
        RecallResult,
        StaleFact,
        SyncReport,
        WrittenInto,
    )
    from memfiles.format.model import Fact
    from memfiles.lint.engine import LintReport
    from memfiles.lint.findings import Rule
    from memfiles.outcome import Outcome


# What a terminal would act on rather than show: C0 controls but tab and line feed (ESC starts every escape
# sequence: colours, cursor moves, OSC 52 clipboard writes, OSC 8 links), DEL, the C1 controls (0x9B is a
# one-byte CSI), and the bidi controls and line separators that reorder or split what a person reads.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
# The same characters inside JSON strings (json.dumps escapes only C0 when ensure_ascii is off): escaped,
# so a script decodes exactly the stored text and a terminal showing the JSON runs nothing.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """`text` safe to show on a terminal: every control character (but tab and line feed) becomes `?`.

    Stored values, file contents and import files reach messages, tables and listings; none may move the
    cursor, recolour, retitle the window or write the clipboard. JSON output escapes them instead."""
    return _UNSAFE.sub("?", text)


def emit_json(data: Any) -> None:
    """Print `data` as indented, key-stable JSON on stdout (json imported here: most commands print text);
    every string stays exact, with the characters a terminal would act on written as `\\uXXXX` escapes."""
    import json

    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


def line(text: str = "") -> None:
    """Print one plain line on stdout (control characters shown as `?`)."""
    sys.stdout.write(visible(text) + "\n")


def error(message: str) -> None:
    """Print an error on stderr as `mem: error: …`."""
    sys.stderr.write(f"mem: error: {visible(message)}\n")


def warn(message: str) -> None:
    """Print a warning on stderr."""
    sys.stderr.write(f"mem: warning: {visible(message)}\n")


class _Warnings(logging.Handler):
    """The library's warnings (logger `memfiles`: a settings value it left out) as `mem: warning: …` lines."""

    def emit(self, record: logging.LogRecord) -> None:
        warn(record.getMessage())


def show_warnings() -> None:
    """Print what the library warns about on stderr, as the CLI's own warnings (once per process)."""
    logger = logging.getLogger("memfiles")
    if not any(isinstance(handler, _Warnings) for handler in logger.handlers):
        logger.addHandler(_Warnings(logging.WARNING))


def outcome(result: Outcome, as_json: bool) -> None:
    """The one outcome line of a write (or its JSON)."""
    if as_json:
        emit_json(result.to_dict())
    else:
        line(result.line())


def outcomes(results: list[Outcome], as_json: bool) -> None:
    """What recording episodes decided: a line each (or a JSON list); a refused batch is its one refusal."""
    if as_json and not any(r.refused for r in results):
        emit_json([r.to_dict() for r in results])
        return
    for result in results:
        outcome(result, as_json)


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

    return Text(visible(text))  # never interpret stored text as rich markup, nor let it reach the terminal raw


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
    """Print a rendered block (or markdown) as rendered (it escapes stored text; control characters shown as `?`)."""
    sys.stdout.write(visible(text))


def problems(found: list[str]) -> None:
    """Warn about memory files that did not parse (they were skipped and left as they are)."""
    for problem in found:
        warn(f"skipped {problem} (the file is left as it is; fix it by hand)")


def recalled(found: RecallResult, fmt: str, explain: bool) -> None:
    """Recall or render results as the block, JSON items or a table; --explain adds the scores."""
    if fmt == "json":
        emit_json([item.to_dict() for item in found.items])
    elif fmt == "table":
        rows = [[i.kind, f"{i.scores.score:.3f}", *_about(i), str(clock.day(i.date)), i.scope] for i in found.items]
        table(
            f"{' '.join(found.scopes)} as of {clock.day(found.as_of)}",
            ["kind", "score", "about", "memory", "date", "scope"],
            rows,
        )
    else:
        block(found.text)
    if explain:
        _explain(found)


def _about(item: RecallItem) -> list[str]:
    from memfiles.recall.render import (
        clean,  # stored text may hold bidi or control characters: not on a terminal either
    )

    if item.episode is not None:
        return [clean(f"session {item.episode.session or '-'} · {item.episode.outcome}"), clean(item.episode.summary)]
    return [
        item.facts[0].key,
        clean(" vs ".join(f"{f.value} ({f.confidence} {clock.day(f.stated_at)})" for f in item.facts)),
    ]


def _explain(found: RecallResult) -> None:
    from memfiles.recall.render import TOKEN_ESTIMATE

    rows = []
    for rank, item in enumerate([*found.items, *found.dropped], start=1):
        status = "shown" if rank <= len(found.items) else "dropped (budget)"
        s = item.scores
        scores = [f"{s.score:.3f}", f"{s.relevance:.3f}", f"{s.keyword:.3f}", f"{s.fuzzy:.3f}", f"{s.decay:.3f}"]
        rows.append([str(rank), item.kind, item.id, *scores, str(item.tokens), status, item.why])
    columns = ["#", "kind", "id", "score", "relevance", "keyword", "fuzzy", "decay", "tokens", "status", "why"]
    table("why these memories", columns, rows)
    line(f"block: {found.tokens} tokens ({TOKEN_ESTIMATE}), {len(found.text)} characters")


def written_into(written: WrittenInto) -> None:
    """Say whether `mem render --into` changed the file."""
    if written.changed:
        line(f"wrote the {written.scope} memory section of {written.path}")
    else:
        line(f"{written.path}: the {written.scope} memory section is already up to date; nothing changed")


def synced(result: SyncReport, as_json: bool) -> None:
    """What `mem sync` did: commits received and sent, or its JSON."""
    if as_json:
        emit_json(result.model_dump())
        return
    if result.committed_hand_edits:
        line("committed hand edits")
    branch, where = result.branch, f"{result.remote}/{result.branch}"
    if not result.received and not result.sent:
        line(f"{branch} is in sync with {where}")
        return
    first = " (first push: upstream set)" if result.set_upstream else ""
    line(f"synced {branch} with {where}: received {_commits(result.received)}, sent {_commits(result.sent)}{first}")
    for held in result.held:
        line(f"held back (shown to no reader; see mem review): {held}")


def _commits(count: int) -> str:
    return f"{count} commit" + ("" if count == 1 else "s")


def initialised(done: Initialised) -> None:
    """What `mem init` did."""
    if done.created:
        line(f"created memory home at {done.root} (a git repository of its own)")
        if done.inside is not None:
            line(
                f"it sits inside the git repository at {done.inside}, which mem never commits to nor edits; that "
                f"repository sees the home as a nested repository: add it to that repository's .gitignore to keep "
                "it out"
            )
    else:
        line(f"{done.root} is already a memory home; nothing changed")


def cloned(done: Cloned) -> None:
    """What `mem init --clone` did."""
    line(f"cloned {done.url} into {done.root}; MEMORY.md merge driver registered")
    if done.started:
        line(f"the remote was empty: started a new memory home there; `mem --home {done.root} sync` pushes it")


# --- lint (issue 4) ---


def lint_report(report: LintReport, fmt: str, show_suppressed: bool) -> None:
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


def lint_explain(rule: Rule) -> None:
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


def consolidated(results: list[Consolidation], as_json: bool) -> None:
    """What consolidation did (or would do, on a dry run) per scope, then a summary table."""
    if as_json:
        emit_json([r.model_dump() for r in results])
        return
    if not results:
        line("no scope to consolidate")
        return
    from memfiles.recall.render import clean  # stored text may hold control or bidi characters: not on a terminal

    for r in results:
        verb = "would change" if r.dry_run else "changed"
        head = f"{r.scope}: {verb}" if r.changed else f"{r.scope}: nothing to change"
        line(head + (" (dry run: nothing written)" if r.dry_run and r.changed else ""))
        for change in r.changes:
            line(f"  {clean(change)}")
        for refusal in r.refusals:
            line(f"  refused {clean(refusal)}")
        for note in r.notes:
            line(f"  note: {clean(note)}")
        if r.refusals and r.changed:
            done = "planned" if r.dry_run else "applied"
            line(f"  {len(r.refusals)} refused; the valid, guarded rest was {done}")
    columns = ["scope", "episodes", "expired", "superseded", "added", "reinforced", "proposed", "conflicts", "refused"]
    columns += ["compressed", "bytes before → after"]
    rows = []
    for r in results:
        counts = [r.episodes, r.expired, r.superseded, r.added, r.reinforced, r.proposed, r.conflicts, r.refused]
        counts.append(r.compressed)
        rows.append([r.scope, *map(str, counts), f"{r.bytes_before:,} → {r.bytes_after:,}"])
    table("consolidation" + (" (dry run)" if any(r.dry_run for r in results) else ""), columns, rows)


def episode_file(found: EpisodeFile, as_json: bool) -> None:
    """An episode's original file as stored (and, when it came from git history, where from, on stderr)."""
    if as_json:
        emit_json(found.to_dict())
        return
    if found.removed_by:
        sys.stderr.write(
            visible(
                f"mem: {found.path} was folded into {found.digest}; "
                f"this is its last version, removed by commit {found.removed_by[:12]}\n"
            )
        )
    text = visible(found.text.replace("\r\n", "\n"))
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


# --- facts, the audit log and doctor ---


def resolved(keep: str, ended: list[Fact], as_json: bool) -> None:
    """What `mem resolve` kept and superseded."""
    if as_json:
        emit_json({"kept": keep, "superseded": [f.id for f in ended]})
    else:
        line(f"kept {keep}; superseded {', '.join(f.id for f in ended) or 'nothing'}")


def stale(title: str, found: list[StaleFact], as_json: bool) -> None:
    """`mem stale`: current facts not confirmed within their subject's [stale_after_days], and how to settle them."""
    if as_json:
        emit_json([s.to_dict() for s in found])
        return
    if not found:
        line(f"{title}: nothing possibly stale")
        return
    columns = ["id", "key", "value", "subject", "last confirmed", "days", "after"]
    rows = [
        [s.id, s.key, s.value, s.subject, str(clock.day(s.last_confirmed)), str(s.days_since), str(s.stale_after_days)]
        for s in found
    ]
    table(f"{title} possibly stale", columns, rows)
    line("still true: `mem confirm KEY`; no longer true: `mem expire ID`")


def expired(fact: Fact, as_json: bool) -> None:
    """What `mem expire` ended."""
    if as_json:
        emit_json(fact.to_dict())
    else:
        line(f"expired {fact.id} ({fact.key}): {fact.reason}")


def forgotten(gone: Forgotten, as_json: bool) -> None:
    """What `mem forget` removed (and, with --purge, erased from history)."""
    facts = [f.to_dict() for f in gone.facts]
    ids = ", ".join(f.id for f in gone.facts)
    if gone.purged_blobs is None:
        if as_json:
            emit_json({"forgotten": facts})
        else:
            line(f"forgot {ids} ({gone.facts[0].key}); git history still holds them")
        return
    if as_json:
        emit_json({"forgotten": facts, "purged_blobs": gone.purged_blobs, "advice": gone.advice})
    else:
        line(f"forgot {ids} ({gone.facts[0].key}) and erased it from {gone.purged_blobs} stored file version(s)")
        line(gone.advice or "")


def held_facts(title: str, items: list[HeldFact]) -> None:
    """Facts the guard holds back (`mem review`): id, key, what the guard found, the value's start. Printed only
    when there are some (most homes never have one)."""
    from memfiles.recall.render import shorten

    if items:
        rows = [[h.id, h.fact.key, "; ".join(f.line() for f in h.findings), shorten(h.fact.value, 120)] for h in items]
        table(title, ["id", "key", "findings", "value"], rows)


def held_episodes(title: str, items: list[HeldEpisode]) -> None:
    """Episodes the guard holds back (`mem review`): id, state, what the guard found, the summary's start."""
    from memfiles.recall.render import shorten

    if not items:
        line(f"{title}: none")
        return
    rows = [
        [h.id, h.state, "; ".join(f.line() for f in h.findings), h.path, shorten(h.episode.summary, 120)] for h in items
    ]
    table(title, ["id", "state", "findings", "path", "summary"], rows)


def held_episode(verb: str, held: HeldEpisode, as_json: bool) -> None:
    """An episode `mem accept` or `mem reject` settled."""
    if as_json:
        emit_json(held.to_dict())
    else:
        line(f"{verb} {held.id} {held.path}")


def rejected(fact: Fact, as_json: bool) -> None:
    """A fact `mem reject` retracted."""
    if as_json:
        emit_json(fact.to_dict())
    else:
        line(f"retracted {fact.id}")


def log(entries: list[LogEntry], as_json: bool) -> None:
    """The audit trail, a commit a line (or JSON)."""
    if as_json:
        emit_json([e.model_dump() for e in entries])
        return
    for entry in entries:
        line(f"{entry.commit[:10]} {entry.date[:19]} {entry.message.splitlines()[0]}")


def doctor(report: DoctorReport, as_json: bool) -> None:
    """What `mem doctor` repaired and what is still wrong."""
    if as_json:
        emit_json(report.model_dump())
        return
    for entry in report.fixed:
        line(f"fixed: {entry}")
    for problem in report.problems:
        line(problem)
    for note in report.notes:
        line(f"note: {note}")
    line("healthy" if report.healthy else f"{len(report.problems)} problem(s); `mem doctor --fix` repairs what it can")


def setup_report(report: SetupReport, as_json: bool) -> None:
    """What `mem setup` changed in each file, as a diff-like summary (or JSON)."""
    if as_json:
        emit_json(report.to_dict())
        return
    would = "would " if report.dry_run else ""
    for entry in report.files:
        line(f"{entry.path}: {entry.action if entry.action == 'unchanged' else would + entry.action}")
        for change in entry.changes:
            line(f"  {change}")
        for note in entry.notes:
            warn(note)
    if not report.changed:
        done = "nothing of mem's to remove" if report.remove else "nothing to change; already set up"
        line(f"{report.assistant}: {done}")
    elif report.dry_run:
        line("dry run: nothing was written")


def settled(
    verb: str, accepted: list[Outcome], retracted: list[Fact], held: list[HeldEpisode], as_json: bool, one: bool
) -> None:
    """What `mem accept` or `mem reject` settled: `one` id named, its line or JSON as ever; several or chosen by
    a filter, a line each and a summary (`accepted 3: 2 added, 1 superseded`), or one JSON object with it."""
    total = len(accepted) + len(retracted) + len(held)
    if one and total == 1:
        if accepted:
            outcome(accepted[0], as_json)
        elif retracted:
            rejected(retracted[0], as_json)
        else:
            held_episode(verb, held[0], as_json)
        return
    counts: dict[str, int] = {}
    for result in accepted:
        counts[result.kind] = counts.get(result.kind, 0) + 1
    if retracted:
        counts["retracted"] = len(retracted)
    if held:
        counts[f"episodes {verb}"] = len(held)
    if as_json:
        emit_json(
            {
                "outcomes": [r.to_dict() for r in accepted],
                "retracted": [f.to_dict() for f in retracted],
                "episodes": [h.to_dict() for h in held],
                "summary": {"total": total, **counts},
            }
        )
        return
    for result in accepted:
        line(result.line())
    for fact in retracted:
        line(f"retracted {fact.id}")
    for episode in held:
        line(f"{verb} {episode.id} {episode.path}")
    parts = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    line(f"{verb} {total}: {parts}" if total else f"{verb} nothing: no proposed fact matched")


def review_item(number: int, total: int, fact: Fact | None = None, held: HeldEpisode | None = None) -> None:
    """One item of `mem review`'s interactive pass: a proposed fact with its provenance, or a flagged episode
    with what the guard found (every stored string shown as text, never as markup)."""
    from memfiles.recall.render import shorten

    if fact is not None:
        where = f" ({fact.source_ref})" if fact.source_ref else ""
        line(f"[{number}/{total}] proposed {fact.id}: {fact.key} = {fact.value!r}")
        line(f"    {fact.subject}, {fact.confidence}, from {fact.source}{where}, stated {fact.stated_at}")
    elif held is not None:
        line(f"[{number}/{total}] flagged episode {held.id} {held.path}")
        for finding in held.findings:
            line(f"    {finding.line()}")
        line(f"    {shorten(held.episode.summary, 300)!r}")


def ask(question: str, choices: list[str], default: str) -> str:
    """Ask a person to choose one of `choices` (rich's prompt; asked again until the answer is one of them)."""
    from rich.prompt import Prompt

    return Prompt.ask(question, choices=choices, default=default)


def ask_text(question: str) -> str:
    """Ask a person for a line of text."""
    from rich.prompt import Prompt

    return Prompt.ask(question)


def extractor_setup(done: ExtractorSetup, as_json: bool) -> None:
    """What `mem setup extractor` wrote into mem.local.toml."""
    if as_json:
        emit_json(done.model_dump(mode="json"))
        return
    verb = ("would set" if done.dry_run else "set") if done.changed else "already set"
    line(f"{done.path}: {verb} [consolidate] extractor = {done.command}")
    if not done.found:
        tool = done.command.split()[0]
        warn(f"{tool} is not on this machine's PATH; install it ({done.docs}) before `mem consolidate`")
