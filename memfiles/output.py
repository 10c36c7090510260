"""Everything `mem` prints. The only module that uses rich; the core never prints."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memfiles.errors import FileFormatError
    from memfiles.model import Fact, Outcome
    from memfiles.recall import Item
    from memfiles.retrieve import Recalled
    from memfiles.writepath import EpisodeWrite


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
        rows = [[item.kind, f"{item.score:.3f}", *_about(item), item.date[:10], item.scope] for item in found.items]
        table(
            f"{' '.join(found.scopes)} as of {found.as_of[:10]}",
            ["kind", "score", "about", "memory", "date", "scope"],
            rows,
        )
    else:
        block(found.rendered.text)
    if explain:
        _explain(found)


def _about(item: Item) -> list[str]:
    from memfiles.render import clean  # stored text may hold bidi or control characters: not on a terminal either

    if item.episode is not None:
        return [clean(f"session {item.episode.session or '-'} · {item.episode.outcome}"), clean(item.episode.summary)]
    return [item.facts[0].key, clean(" vs ".join(f"{f.value} ({f.confidence} {f.stated_at[:10]})" for f in item.facts))]


def _explain(found: Recalled) -> None:
    from memfiles.render import TOKEN_ESTIMATE, estimate_tokens, item_line

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
