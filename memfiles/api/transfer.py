"""Export and import as a library: `export(home)` is `mem export`, `import_memory(home, path)` is `mem import`
(docs/FORMAT.md, "Export" and "Import"). Every import goes through a write path and is one commit."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from memfiles.api.inputs import read_file
from memfiles.errors import UsageError
from memfiles.format import layout

if TYPE_CHECKING:
    from memfiles.api.home import Home
    from memfiles.api.scope import ScopeHandle

IMPORT_FORMATS = ("claude-code", "codex", "mem0", "mcp-memory", "chatgpt", "claude-export", "json")
MAX_IMPORT_BYTES = 512 * 1024 * 1024


class ImportRow(BaseModel):
    """What an import did in one scope: files or records added, proposed, quarantined, refused, already present."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    scope: str
    added: int = 0
    proposed: int = 0
    quarantined: int = 0
    refused: int = 0
    present: int = Field(default=0, description="already present: nothing to change")
    why: list[str] = Field(default_factory=list, description="what was refused or kept, one line each")


class ImportReport(BaseModel):
    """What `mem import` did (or, with `dry_run`, would do): a row per scope; `committed` when it wrote."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    format: str
    source: str
    dry_run: bool
    committed: bool
    rows: list[ImportRow]
    detected: bool = Field(default=False, description="the format was detected from the file (no --from)")
    made_here: bool | None = Field(
        default=None, description="json: the export carries this machine's signature (statuses and acceptances kept)"
    )

    @property
    def refused(self) -> bool:
        return any(row.refused for row in self.rows)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def export(home: Home, scopes: Sequence[str] | None = None) -> dict[str, Any]:
    """`mem export`: the export document of `scopes` (None: every scope of the home), ready for `json.dumps`."""
    from memfiles.ops import transfer

    chosen = list(dict.fromkeys(layout.parse_scope(s) for s in scopes)) if scopes else home.paths.scopes()
    return transfer.export(home.paths, chosen)


def import_memory(
    home: Home,
    path: str | os.PathLike[str],
    *,
    from_format: str | None = None,
    merge: bool = False,
    dry_run: bool = False,
    data: bytes | None = None,
    user: str | None = None,
    scope: str | None = None,
) -> ImportReport:
    """`mem import`: read `path` (a file, a folder of markdown memories, or `data`: bytes already read, e.g.
    stdin) as `from_format` (None: detected) and write it through the guarded write paths, one commit; a
    second import of the same file changes nothing. A `json` export names its scopes; every other format
    goes to the scope chosen as `Home.choose(user, scope)` does.

    A `json` export is restored into the scopes it names, or with `user`/`scope` only into those (the
    export's other scopes are left alone, and named). Unless this machine made the export (its signature),
    its current facts arrive proposed and its acceptances count for nothing (docs/FORMAT.md, "Export")."""
    from memfiles.ops import transfer

    where = str(path)
    source = Path(path)
    if from_format is not None and from_format not in IMPORT_FORMATS:
        raise UsageError(f"--from {from_format!r}: use one of {', '.join(IMPORT_FORMATS)}")
    if data is None and not source.is_dir():
        data = read_file(source, what="import", limit=MAX_IMPORT_BYTES, folder="name the file to import")
    detected = from_format is None
    if from_format is None:
        from memfiles.imports import detect

        from_format = detect(source, data)
    if from_format != "json":
        report = _other(home, source, data, from_format, where, dry_run, home.choose(user, scope))
        return report.model_copy(update={"detected": detected})
    assert data is not None
    from memfiles.imports import json_document

    raw = json_document(data, where)
    doc = transfer.read_export(raw, where)
    trusted = transfer.made_here(raw)
    asked = set(home.choose_scopes([user] if user else [], [scope] if scope else [])) if user or scope else None
    skipped: list[ImportRow] = []
    if asked is not None:
        named = {str(layout.parse_scope(entry.scope)) for entry in doc.scopes}
        if missing := sorted(asked - named):
            raise UsageError(
                f"{where}: the export holds no {', '.join(missing)} (it holds {', '.join(sorted(named)) or 'no scope'})"
            )
        kept = [e for e in doc.scopes if str(layout.parse_scope(e.scope)) in asked]
        skipped = [
            ImportRow(scope=str(layout.parse_scope(e.scope)), why=["left alone: not asked for (name it with -u/-s)"])
            for e in doc.scopes
            if str(layout.parse_scope(e.scope)) not in asked
        ]
        doc = doc.model_copy(update={"scopes": kept})
    done = transfer.restore(home.paths, home.config, doc, trusted=trusted, merge=merge, dry_run=dry_run)
    rows = [
        ImportRow(
            scope=r.scope,
            added=r.added,
            proposed=r.proposed if r.added else 0,
            quarantined=r.held if r.added else 0,
            refused=1 if r.refused else 0,
            present=r.present,
            why=([r.refused] if r.refused else [])
            + ([] if trusted or r.refused or not r.proposed else [_ELSEWHERE])
            + r.notes
            + [f"kept this home's {p} (differs from the export)" for p in r.kept],
        )
        for r in done
    ]
    committed = not dry_run and any(r.added for r in done)
    return ImportReport(
        format="json",
        source=where,
        dry_run=dry_run,
        committed=committed,
        rows=rows + skipped,
        detected=detected,
        made_here=trusted,
    )


_ELSEWHERE = (
    "the export was not made on this machine (or was changed since): its current facts arrive proposed "
    "for `mem review`, and only acceptances given here count"
)


def _other(
    home: Home, source: Path, data: bytes | None, chosen: str, where: str, dry_run: bool, handle: ScopeHandle
) -> ImportReport:
    """Another tool's memories (proposed facts) or conversations (episodes) into one scope, one commit."""
    from memfiles import imports
    from memfiles.ops import importing

    if source.is_dir() and chosen not in ("claude-code", "codex"):
        raise UsageError(f"{where}: is a folder; --from {chosen} reads one file")
    found = imports.read(source, data, chosen, where)
    paths, config, scope = home.paths, home.config, handle.scope
    if found.conversations:
        done = importing.conversations(paths, config, scope, found.conversations, dry_run)
    else:
        done = importing.memories(paths, config, scope, found.memories, dry_run)
    row = ImportRow(
        scope=str(scope),
        added=done.added,
        proposed=done.proposed,
        quarantined=done.quarantined,
        refused=done.refused,
        present=done.present,
        why=found.problems + done.why,
    )
    committed = not dry_run and bool(done.added or done.proposed or done.quarantined)
    return ImportReport(format=chosen, source=where, dry_run=dry_run, committed=committed, rows=[row])
