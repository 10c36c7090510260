"""`mem export` and `mem import --from json` (docs/FORMAT.md, "Export"): a home's memory as one JSON document,
and its verbatim restore.

The export holds every file of each scope as it is (MEMORY.md with its notes and every fact's history,
each episode file, each monthly digest) beside its parsed form (facts, episodes) for other programs.
A restore writes those files back byte for byte after checking each: it parses in its format, lies in
its scope's folder, and passes the guard (fact values, episode texts, digest lines; an episode the
guard holds back, `status: flagged` or `rejected`, keeps its status). Nothing is re-settled: sources,
statuses and ids stay. A scope that already holds memory is refused unless `merge` (MEMORY.md merged
fact by fact as `mem sync` merges it, this home's notes kept; episode and digest files added where
their names are free). One commit for the whole import; a file already as exported is "present".
"""

from __future__ import annotations

import re
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from memfiles import __version__, clock
from memfiles.errors import FileFormatError, MemError, UsageError
from memfiles.format import episodes, layout, memoryfile
from memfiles.format.layout import DIGEST_NAME, Paths, Scope
from memfiles.ops.commit import commit_or_undo, current, note_written, refuse_during_merge
from memfiles.store.files import atomic_write, scope_lock

FORMAT = "memfiles-export"
VERSION = 1
_HELD = ("flagged", "rejected")  # episode statuses the guard-policy branch stores held back


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class FileEntry(_Strict):
    path: str
    text: str


class MemoryEntry(FileEntry):
    facts: list[dict[str, Any]] = []


class EpisodeEntry(FileEntry):
    episode: dict[str, Any] = {}


class ScopeEntry(_Strict):
    scope: str
    memory: MemoryEntry | None = None
    episodes: list[EpisodeEntry] = []
    digests: list[FileEntry] = []


class ExportDoc(_Strict):
    """The export document (docs/FORMAT.md, "Export"); memfiles' own format, so unknown fields are errors."""

    format: str
    version: int
    exported_at: str
    memfiles: str = ""
    scopes: list[ScopeEntry]


def export(paths: Paths, scopes: list[Scope]) -> dict[str, Any]:
    """The export document of `scopes`: each file's text and its parsed form. A file that does not parse is an error."""
    out: list[dict[str, Any]] = []
    for scope in scopes:
        entry: dict[str, Any] = {"scope": str(scope), "memory": None, "episodes": [], "digests": []}
        memory = paths.memory_file(scope)
        if memory.is_file():
            data = memory.read_bytes()
            doc = memoryfile.parse(data, paths.relative(memory), str(scope))
            entry["memory"] = {
                "path": paths.relative(memory),
                "text": _text(data, memory, paths),
                "facts": [f.to_dict() for f in doc.facts],
            }
        for path in paths.episode_files(scope):
            data = path.read_bytes()
            episode = episodes.parse(data, paths.relative(path), str(scope))
            entry["episodes"].append(
                {"path": paths.relative(path), "text": _text(data, path, paths), "episode": episode.to_dict()}
            )
        for path in paths.digest_files(scope):
            entry["digests"].append({"path": paths.relative(path), "text": _text(path.read_bytes(), path, paths)})
        out.append(entry)
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": clock.iso(clock.now()),
        "memfiles": __version__,
        "scopes": out,
    }


def _text(data: bytes, path: Path, paths: Paths) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(paths.relative(path), None, f"not UTF-8 (byte {exc.start}); fix the file first") from None


def read_export(raw: Any, where: str) -> ExportDoc:
    """The export document from parsed JSON, checked strictly; a UsageError names the field."""
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise UsageError(f'{where}: not a memfiles export (expected "format": "{FORMAT}"; see docs/FORMAT.md)')
    try:
        doc = ExportDoc.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        spot = ".".join(str(p) for p in first["loc"]) or "export"
        raise UsageError(f"{where}: {spot}: {first['msg']}") from None
    if doc.version != VERSION:
        raise UsageError(f"{where}: export version {doc.version}; this mem reads version {VERSION}")
    return doc


@dataclass(slots=True)
class Restored:
    """What restoring one scope did (or, in a dry run, would do)."""

    scope: str
    added: int = 0  # files written
    present: int = 0  # files already as exported
    facts: int = 0  # facts restored (all of MEMORY.md's, history included)
    episodes: int = 0
    refused: str | None = None  # why the scope was left alone
    kept: list[str] = field(default_factory=list)  # with merge: files of this home kept over the export's


_EPISODE_PATH = re.compile(r"episodes/(\d{4})/(\d{2})/([^/]+)")


def restore(paths: Paths, doc: ExportDoc, *, merge: bool = False, dry_run: bool = False) -> list[Restored]:
    """Check every scope of the export, then write what may be written in one commit (none in a dry run)."""
    plans: list[tuple[Scope, Restored, list[tuple[Path, bytes]]]] = []
    for entry in doc.scopes:
        scope = layout.parse_scope(entry.scope)
        report = Restored(str(scope))
        try:
            files = _checked(paths, scope, entry, report)
            writes = _settle(paths, scope, files, report, merge)
        except MemError as exc:
            report.refused, writes = str(exc), []
        plans.append((scope, report, writes))
    if dry_run or not any(writes for _scope, _report, writes in plans):
        return [report for _scope, report, _writes in plans]
    with ExitStack() as stack:
        for scope, _report, writes in sorted(plans, key=lambda p: str(p[0])):
            if writes:
                stack.enter_context(scope_lock(paths, scope))
        refuse_during_merge(paths)
        before = {paths.relative(p): (p, current(p)) for _s, _r, writes in plans for p, _data in writes}
        for _scope, _report, writes in plans:
            for path, data in writes:
                atomic_write(path, data)
        names = ", ".join(r.scope for _s, r, writes in plans if writes)
        commit_or_undo(paths, before, f"mem: import json {names}\n\n" + "".join(f"restored {p}\n" for p in before))
        for scope, _report, writes in plans:
            note_written(paths, scope, [paths.relative(p) for p, _data in writes])
    return [report for _scope, report, _writes in plans]


def _checked(paths: Paths, scope: Scope, entry: ScopeEntry, report: Restored) -> list[tuple[Path, bytes, str]]:
    """(where, bytes, kind) of each file of a scope's entry, each parsed, placed and guarded; MemError if not."""
    from memfiles.lint import rules
    from memfiles.ops.quarantine import review

    def guard(text: str, what: str, where: str) -> None:
        found = rules.guard(text, kind="fact")
        if found is not None:
            raise MemError(f"{where}: {what} {found.message} ({found.code}); nothing of {scope} was restored")

    files: list[tuple[Path, bytes, str]] = []
    if entry.memory is not None:
        path = paths.memory_file(scope)
        if entry.memory.path != paths.relative(path):
            raise MemError(f"{entry.memory.path}: {scope}'s MEMORY.md is {paths.relative(path)}")
        data = entry.memory.text.encode("utf-8")
        doc = memoryfile.parse(data, entry.memory.path, str(scope))
        for fact in doc.facts:
            guard(fact.value, f"fact {fact.id} ({fact.key})", entry.memory.path)
        report.facts = len(doc.facts)
        files.append((path, data, "memory"))
    for item in entry.episodes:
        path = _placed(paths, scope, item.path, digest=False)
        data = item.text.encode("utf-8")
        episode = episodes.parse(data, item.path, str(scope))
        # Read as the write path and recall read it (ops.quarantine.review): a declared transcript's speaker
        # labels are structure, and a person's acceptance of this very text travels with it.
        seen = review(episode)
        if seen.state == "flagged" and episode.status not in _HELD:
            first = seen.findings[0]
            raise MemError(f"{item.path}: episode {first.message} ({first.code}); nothing of {scope} was restored")
        files.append((path, data, "episode"))
    report.episodes = len(entry.episodes)
    for digest in entry.digests:
        path = _placed(paths, scope, digest.path, digest=True)
        data = digest.text.encode("utf-8")
        guard(digest.text, "digest", digest.path)
        files.append((path, data, "digest"))
    return files


def _placed(paths: Paths, scope: Scope, relpath: str, digest: bool) -> Path:
    """The file `relpath` names inside `scope`'s episodes folder (YYYY/MM/NAME), or a MemError."""
    prefix = scope.relpath + "/"
    found = _EPISODE_PATH.fullmatch(relpath[len(prefix) :]) if relpath.startswith(prefix) else None
    name = found.group(3) if found else ""
    if not found or not 1 <= int(found.group(2)) <= 12 or (name == DIGEST_NAME) != digest:
        raise MemError(f"{relpath}: not {'a digest' if digest else 'an episode'} file of {scope} (episodes/YYYY/MM/…)")
    if not digest and not layout.is_episode_name(name):
        raise MemError(f"{relpath}: not an episode file name")
    month = paths.episode_month_dir(scope, date(int(found.group(1)), int(found.group(2)), 1))
    return month / name


def _settle(
    paths: Paths, scope: Scope, files: list[tuple[Path, bytes, str]], report: Restored, merge: bool
) -> list[tuple[Path, bytes]]:
    """The files to write: all of them into an empty scope; with `merge`, merged into a scope with memory."""
    changed = [(path, data, kind) for path, data, kind in files if current(path) != data]
    report.present = len(files) - len(changed)
    if not changed:
        return []
    if _has_memory(paths, scope) and not merge:
        raise MemError(
            f"{scope} already holds memory and the export differs from it: restore into an empty scope, "
            "or pass --merge to merge it in (MEMORY.md fact by fact, files added where their names are free)"
        )
    writes: list[tuple[Path, bytes]] = []
    for path, data, kind in changed:
        before = current(path)
        if before is None:
            writes.append((path, data))
        elif kind == "memory":
            writes.append((path, _merged(paths, scope, before, data)))
        else:
            report.kept.append(paths.relative(path))
    report.added = len(writes)
    return writes


def _has_memory(paths: Paths, scope: Scope) -> bool:
    memory = paths.memory_file(scope)
    if memory.is_file():
        try:
            if memoryfile.parse(memory.read_bytes(), paths.relative(memory), str(scope)).facts:
                return True
        except MemError:
            return True
    return bool(paths.episode_files(scope) or paths.digest_files(scope))


def _merged(paths: Paths, scope: Scope, ours: bytes, theirs: bytes) -> bytes:
    """This home's MEMORY.md and the export's merged fact by fact (as `mem sync` merges), this home's notes kept."""
    from memfiles.ops.merge import merge_facts

    relpath = paths.relative(paths.memory_file(scope))
    mine = memoryfile.parse(ours, relpath, str(scope))
    other = memoryfile.parse(theirs, relpath + " (export)", str(scope))
    mine.facts = merge_facts([], mine.facts, other.facts, str(scope))
    return memoryfile.serialize(mine)
