"""`mem export` and `mem import --from json` (docs/FORMAT.md, "Export"): a home's memory as one JSON document,
and its verbatim restore.

The export holds every file of each scope as it is (MEMORY.md with its notes and every fact's history,
each episode file, each monthly digest) beside its parsed form (facts, episodes) for other programs.
An export carries a signature made with this machine's key (memfiles.store.machine). A restore checks
every file first: it parses in its format, lies in its scope's folder, passes the guard (fact values,
episode texts, digest lines; an episode the guard holds back, `status: flagged` or `rejected`, keeps its
status) and what the write path checks of each fact (an allowed `source`, a `source_ref` that is one
guarded line). An export this machine signed is then written back byte for byte: nothing re-settled,
sources, statuses and ids kept. Any other (made elsewhere, or changed since) is not trusted with
decisions: its current facts arrive `proposed` for a person (`mem review`), and its acceptances count
only where this machine signed them, so the guard decides again. A scope that already holds memory is
refused unless `merge`: MEMORY.md merged fact by fact as `mem sync` merges it (this home's notes kept),
every fact of this home whose status the merge changes listed — and from an export made elsewhere, no
status of this home's facts changes at all; episode and digest files added where their names are free.
One commit for the whole import; a file already as exported is "present".
"""

from __future__ import annotations

import re
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from memfiles import __version__, clock
from memfiles.errors import FileFormatError, MemError, RefusedError, UsageError
from memfiles.format import episodes, layout, memoryfile
from memfiles.format.config import Config
from memfiles.format.layout import DIGEST_NAME, Paths, Scope
from memfiles.format.model import Fact
from memfiles.ops.commit import commit_or_undo, current, note_written, refuse_during_merge
from memfiles.store.files import atomic_write, scope_lock

if TYPE_CHECKING:
    from memfiles.lint.findings import Finding

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
    signature: str = ""  # this machine's signature of the rest (made_here); an export made elsewhere has another


_SIGNED = "memfiles export"


def _canonical(raw: dict[str, Any]) -> str:
    import json

    rest = {k: v for k, v in raw.items() if k != "signature"}
    return json.dumps(rest, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def made_here(raw: Any) -> bool:
    """Whether `raw` (the parsed export) is, to the byte of every value, an export this machine made."""
    from memfiles.store import machine

    if not isinstance(raw, dict) or not isinstance(raw.get("signature"), str):
        return False
    return machine.verify(raw["signature"], _SIGNED, _canonical(raw))


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
    import json

    from memfiles.store import machine

    document: dict[str, Any] = json.loads(
        json.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "exported_at": clock.iso(clock.now()),
                "memfiles": __version__,
                "scopes": out,
            },
            default=str,
        )
    )  # as it is printed, so the signature covers what a restore reads
    document["signature"] = machine.sign(_SIGNED, _canonical(document))
    return document


def _text(data: bytes, path: Path, paths: Paths) -> str:
    from memfiles.ops.textfield import undecodable

    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(paths.relative(path), None, f"{undecodable(exc)}; fix the file first") from None


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
    seen: dict[str, int] = {}
    for number, entry in enumerate(doc.scopes, start=1):
        try:
            name = str(layout.parse_scope(entry.scope))
        except MemError as exc:
            raise UsageError(f"{where}: scopes.{number - 1}.scope: {exc}") from None
        if name in seen:  # restoring it twice would wait on its own lock
            raise UsageError(
                f"{where}: scopes #{seen[name]} and #{number} both name {name}; an export holds each scope once"
            )
        seen[name] = number
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
    proposed: int = 0  # current facts of an export made elsewhere, arriving for a person
    held: int = 0  # episodes whose acceptance this machine did not sign, held back for a person
    notes: list[str] = field(default_factory=list)  # every status the import changed or declined to change


_EPISODE_PATH = re.compile(r"episodes/(\d{4})/(\d{2})/([^/]+)")


def restore(
    paths: Paths,
    config: Config,
    doc: ExportDoc,
    *,
    trusted: bool,
    merge: bool = False,
    dry_run: bool = False,
) -> list[Restored]:
    """Check every scope of the export, then write what may be written in one commit (none in a dry run).
    `trusted`: this machine made the export (made_here), so its statuses and acceptances are kept."""
    plans: list[tuple[Scope, Restored, list[tuple[Path, bytes]]]] = []
    for entry in doc.scopes:
        scope = layout.parse_scope(entry.scope)
        report = Restored(str(scope))
        try:
            files = _checked(paths, config, scope, entry, report, trusted)
            writes = _settle(paths, scope, files, report, merge, trusted)
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


def _checked(
    paths: Paths, config: Config, scope: Scope, entry: ScopeEntry, report: Restored, trusted: bool
) -> list[tuple[Path, bytes, str]]:
    """(where, bytes, kind) of each file of a scope's entry, each parsed, placed and guarded; MemError if not.
    Not `trusted`: current facts become proposed (the MEMORY.md bytes are then this home's serialisation)."""
    from memfiles.lint import rules
    from memfiles.ops.quarantine import accepted_here, review

    def refuse(found: Finding | None, what: str, where: str) -> None:
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
            judged = rules.judge_fact(fact.value, key=fact.key, subject=fact.subject)  # as the write path judges it
            refuse(judged, f"fact {fact.id} ({fact.key})", entry.memory.path)
            _provenance(fact, config, f"{entry.memory.path}: fact {fact.id} ({fact.key})", scope)
        report.facts = len(doc.facts)
        if not trusted:
            for fact in doc.facts:
                if fact.is_current:
                    fact.status = "proposed"
                    report.proposed += 1
            data = memoryfile.serialize(doc)
        files.append((path, data, "memory"))
    for item in entry.episodes:
        path = _placed(paths, scope, item.path, digest=False)
        data = item.text.encode("utf-8")
        episode = episodes.parse(data, item.path, str(scope))
        # Read as the write path and recall read it (ops.quarantine.review): a declared transcript's speaker
        # labels are structure, and a person's acceptance of this very text travels with it.
        seen = review(episode)
        foreign = episode.status == "accepted" and not accepted_here(episode)
        if seen.state == "flagged" and foreign:  # accepted elsewhere: held here until a person accepts it here
            report.held += 1
            report.notes.append(
                f"{item.path}: held for `mem review`: accepted on another machine, and the guard finds "
                f"{seen.findings[0].message} ({seen.findings[0].code})"
            )
        elif seen.state == "flagged" and episode.status not in _HELD:
            first = seen.findings[0]
            raise MemError(f"{item.path}: episode {first.message} ({first.code}); nothing of {scope} was restored")
        files.append((path, data, "episode"))
    report.episodes = len(entry.episodes)
    for digest in entry.digests:
        path = _placed(paths, scope, digest.path, digest=True)
        data = digest.text.encode("utf-8")
        refuse(rules.guard(digest.text, kind="fact"), "digest", digest.path)
        files.append((path, data, "digest"))
    return files


def _provenance(fact: Fact, config: Config, where: str, scope: Scope) -> None:
    """What the write path checks of a fact's provenance: an allowed source, a source_ref of one guarded line."""
    from memfiles.ops.textfield import check_text_field

    if fact.source not in config.sources.allowed:
        raise MemError(
            f"{where}: source {fact.source!r} is not allowed ([sources] allowed: "
            f"{', '.join(config.sources.allowed)}) (MEM601); nothing of {scope} was restored"
        )
    if fact.source_ref:
        try:
            check_text_field("source_ref", fact.source_ref, config.memory.max_value_chars)
        except RefusedError as exc:
            raise MemError(f"{where}: {exc.why} ({exc.rule}); nothing of {scope} was restored") from None


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
    paths: Paths, scope: Scope, files: list[tuple[Path, bytes, str]], report: Restored, merge: bool, trusted: bool
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
            writes.append((path, _merged(paths, scope, before, data, report, trusted)))
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


def _merged(paths: Paths, scope: Scope, ours: bytes, theirs: bytes, report: Restored, trusted: bool) -> bytes:
    """This home's MEMORY.md and the export's merged fact by fact (as `mem sync` merges), this home's notes kept.

    Every fact of this home whose status the merge would change is a note; from an export made elsewhere
    none changes: its facts this home does not hold are added (current ones proposed), the rest is left."""
    from memfiles.ops.merge import merge_facts

    relpath = paths.relative(paths.memory_file(scope))
    mine = memoryfile.parse(ours, relpath, str(scope))
    other = memoryfile.parse(theirs, relpath + " (export)", str(scope))
    before = {fact.id: fact for fact in mine.facts}
    if trusted:
        mine.facts = merge_facts([], mine.facts, other.facts, str(scope))
        for fact in mine.facts:
            was = before.get(fact.id)
            if was is not None and was.status != fact.status:
                report.notes.append(
                    f"changed {fact.id} {fact.key} ({_short(fact.value)}): {was.status} → {fact.status}"
                )
        return memoryfile.serialize(mine)
    for fact in other.facts:
        was = before.get(fact.id)
        if was is None:
            mine.facts.append(fact)
        elif was.status != fact.status:
            report.notes.append(
                f"kept {was.id} {was.key} ({_short(was.value)}) {was.status}: the export, made elsewhere, "
                f"says {fact.status}; change it here if you mean it (`mem reject`, `mem resolve`)"
            )
    return memoryfile.serialize(mine)


def _short(value: str) -> str:
    return value if len(value) <= 60 else value[:57] + "..."
