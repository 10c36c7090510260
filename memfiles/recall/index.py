"""The recall index: a rebuildable SQLite cache of each scope's episodes, so recall need not read every file.

Markdown stays the source of truth; the index is derived and git-ignored (`Paths.index_file`, one file
per scope and version under `.cache/`). It holds, for every episode file, its stat (size, mtime, inode) and content
hash, the parsed Episode, the Document recall scores it by (`recall.episode_document`, stored field by
field) and an FTS5 posting list of the document's terms, which gives candidates and document
frequencies without reading the files.

Staleness: before each use, the month folders in the asked range are listed and stat'ed (a file
edited in place changes its mtime, an added, removed or replaced one changes the listing); a month
whose listing digest differs from the stored one is compared file by file and only changed files are
read again. A file modified within RACY_NS of being read is re-checked by content next time, because
a same-size edit inside one timestamp tick leaves the stat unchanged. A version mismatch (this module's
INDEX_VERSION, the source of the scorer and the episode format, the Document shape) or a corrupt file
rebuilds the index; any other failure makes recall read the files instead (same results, slower).
The index also keeps MEMORY.md's facts with the file's bytes, so an unchanged file is not parsed again.
Writers call `note_written` after their commit; recall reads through memfiles.recall.indexed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sqlite3
import stat
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from memfiles import clock
from memfiles.clock import When
from memfiles.errors import FileFormatError, MemError
from memfiles.format import episodes, layout, memoryfile, model
from memfiles.format.episodes import CandidateFact, Episode, Invalidation
from memfiles.format.layout import Paths, Scope
from memfiles.format.model import Fact
from memfiles.recall import ranking as recall
from memfiles.recall.ranking import Document
from memfiles.store.files import locked, read_memory

INDEX_VERSION = 4  # bump when the schema or what is stored changes
_OTHER_VERSIONS_KEPT = 7 * 86400  # another version's index unused this long is removed
RACY_NS = 2_000_000_000  # files modified this close to being read are re-checked by content next time
_SAME_SECOND = 1024  # doc ids are start-time seconds × this + n, so id order is time order
_BUSY_MS = 10_000
_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE months(
    month TEXT PRIMARY KEY, digest TEXT, docs INTEGER NOT NULL, length INTEGER NOT NULL, first TEXT, last TEXT
);
CREATE TABLE files(
    name TEXT PRIMARY KEY, month TEXT NOT NULL, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
    inode INTEGER NOT NULL, racy INTEGER NOT NULL, sha TEXT NOT NULL, doc INTEGER, problem TEXT
);
CREATE INDEX files_month ON files(month);
CREATE INDEX files_problems ON files(month) WHERE problem IS NOT NULL;
CREATE TABLE docs(
    id INTEGER PRIMARY KEY, month TEXT NOT NULL, lo TEXT NOT NULL, hi TEXT NOT NULL, session TEXT,
    length INTEGER NOT NULL, episode BLOB NOT NULL, document BLOB NOT NULL
);
CREATE INDEX docs_window ON docs(month, lo, hi, length);
CREATE INDEX docs_session ON docs(session) WHERE session IS NOT NULL;
CREATE VIRTUAL TABLE postings USING fts5(terms, content='', tokenize='ascii', detail='none');
CREATE TABLE vocabulary(term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE memory(id INTEGER PRIMARY KEY CHECK (id = 1), raw BLOB NOT NULL, facts TEXT NOT NULL);
"""


class IndexUnavailable(Exception):
    """The index cannot be used here (no write access, sqlite error); recall reads the files instead."""


# --- what is stored: episodes and documents as JSON, generically, so new fields need no change here ---

_DOC_FIELDS = [(f.name, str(f.type).split("[", 1)[0]) for f in dataclasses.fields(Document)]
_CONTAINERS: dict[str, Any] = {"frozenset": frozenset, "set": set, "tuple": tuple}
# Containers of sets (a document's passages): each element is a set again once decoded.
_INNER: dict[str, Any] = {
    f.name: frozenset for f in dataclasses.fields(Document) if str(f.type).startswith("tuple[frozenset")
}


def _plain(value: Any) -> Any:
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    return value


def encode_document(doc: Document) -> bytes:
    """A Document as compressed JSON, field by field (sets sorted); compressed, two rows fit a page."""
    text = json.dumps({name: _plain(getattr(doc, name)) for name, _ in _DOC_FIELDS}, ensure_ascii=False)
    return zlib.compress(text.encode("utf-8"), 1)


def decode_document(blob: bytes) -> Document:
    """The Document `encode_document` stored."""
    data = json.loads(zlib.decompress(blob))
    for name, kind in _DOC_FIELDS:
        if kind in _CONTAINERS and name in data:
            inner = _INNER.get(name)
            items = [inner(v) for v in data[name]] if inner else data[name]
            data[name] = _CONTAINERS[kind](items)
    return Document(**data)


def _record(value: Any) -> dict[str, Any]:
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}


def encode_episode(episode: Episode) -> bytes:
    """An Episode as compressed JSON with every field (the model's own JSON)."""
    return zlib.compress(episode.model_dump_json().encode("utf-8"), 1)


def decode_episode(blob: bytes) -> Episode:
    """The Episode `encode_episode` stored."""
    return Episode.model_validate_json(zlib.decompress(blob))


_PUNCTUATION = re.compile(r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]")


def token(term: str) -> str:
    """A term as exactly one token of FTS5's `ascii` tokenizer, which splits on ASCII punctuation and spaces.

    Words (letters and digits) are themselves; a term holding punctuation (a date term such as
    `@2023-05-08`) is spelled in hex behind a prefix no word has, so it never merges with `2023`.
    """
    return f"qz{term.encode('utf-8').hex()}" if _PUNCTUATION.search(term) else term


def _body(doc: Document) -> str:
    return " ".join(sorted(token(t) for t in doc.terms))


_CANARY = Episode(
    id="e-000000000000",
    scope="user:canary",
    started_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
    summary="Shipped the Café order O-4471 to Zürich; invoices and investing plans, 2 résumés.",
    entities=["order O-4471"],
    events=["asked about delivery"],
    facts=[CandidateFact(key="notification_channel", value="email")],
    invalidates=[Invalidation(key="plan_tier", reason="downgraded")],
)


def path_of(paths: Paths, scope: Scope) -> Path:
    """This version's index file of the scope."""
    return paths.index_file(scope, fingerprint())


@cache
def fingerprint() -> str:
    """What the stored data depends on: this format, the code that parses and describes episodes and facts."""
    sources = (__file__, recall.__file__, episodes.__file__, memoryfile.__file__, model.__file__, layout.__file__)
    seed = f"index {INDEX_VERSION}\n{_DOC_FIELDS}\n".encode()
    check = zlib.crc32(seed)
    for source in (*sources, clock.__file__):
        try:
            check = zlib.crc32(Path(str(source)).read_bytes(), check)
        except (OSError, TypeError):  # no source file (frozen): the canary below still catches changes
            check = zlib.crc32(str(source).encode(), check)
    check = zlib.crc32(zlib.decompress(encode_document(recall.episode_document(_CANARY))), check)
    return f"{INDEX_VERSION}-{zlib.crc32(encode_episode(_CANARY), check):08x}"


# --- opening, building and keeping the index fresh ---


def connect(paths: Paths, scope: Scope, create: bool = True) -> sqlite3.Connection:
    """Open (or create) one scope's index; a file of another version or a corrupt one is rebuilt empty."""
    path = path_of(paths, scope)
    if not create and not path.exists():
        raise IndexUnavailable(f"{path} does not exist")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = _usable(path)
        if conn is None:
            with locked(paths.lock_file(f"index-{scope.kind}-{scope.id}")):  # one process sets it up
                conn = _usable(path) or _set_up_in_place(path)
                if conn is None:  # corrupt: nobody can be reading it
                    _remove(path)
                    conn = _open(path)
                    _create(conn)
                _forget_other_versions(paths, scope, older_than=_OTHER_VERSIONS_KEPT)
        return conn
    except (OSError, sqlite3.Error, MemError) as exc:
        raise IndexUnavailable(f"cannot use the recall index {path}: {exc}") from exc


def _usable(path: Path) -> sqlite3.Connection | None:
    """The index opened, if it is a database of this version; None when it must be built anew."""
    conn = None
    try:
        conn = _open(path)
        found = conn.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        conn.execute("SELECT count(*) FROM months").fetchone()
        if found is not None and found[0] == fingerprint():
            return conn
    except sqlite3.DatabaseError:
        pass  # not a database, or corrupt: a cache is rebuilt, never repaired
    if conn is not None:
        conn.close()
    return None


def _set_up_in_place(path: Path) -> sqlite3.Connection | None:
    """The index set up in the empty database that opening it made, when it is one; else None.

    Readers arriving together each open the file before one of them, under the lock, sets it up. Were
    the file replaced instead, a reader's connection would keep the old file while SQLite opens the
    `-wal` and `-shm` beside it by name, the new ones: a mix of two databases ("no such table").
    """
    conn = None
    try:
        conn = _open(path)
        if conn.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,):
            _create(conn)
            return conn
    except sqlite3.DatabaseError:
        pass
    if conn is not None:
        conn.close()
    return None


def _open(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=_BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")  # a cache: a lost last transaction is seen as stale and redone
    return conn


def _create(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone() is None:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint(),))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _forget_other_versions(paths: Paths, scope: Scope, older_than: float) -> None:
    """Remove the scope's index files of other versions not written for `older_than` seconds."""
    current = path_of(paths, scope)
    for other in paths.index_files(scope):
        if other == current:
            continue
        try:
            idle = time.time() - max(
                Path(f"{other}{s}").stat().st_mtime for s in ("", "-wal") if Path(f"{other}{s}").exists()
            )
        except (OSError, ValueError):
            continue
        if idle >= older_than:
            _remove(other)


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


@dataclass(slots=True)
class _Month:
    folder: Path
    entries: list[tuple[str, int, int, int]]  # (name, size, mtime_ns, inode) in the folder's own order
    digest: str | None  # None while the folder itself changed too recently to trust its mtime


def list_month(folder: Path) -> _Month:
    """A month folder's episode files with their stat, and a digest of that listing.

    The digest covers the folder's mtime (adding, removing or renaming a file changes it) and each
    file's size, mtime and inode (an edit in place changes its mtime; a replaced file has a new inode).
    Names are stat'ed relative to the open folder: the cheapest stat there is, which matters at 100k files.
    """
    entries: list[tuple[str, int, int, int]] = []
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except (FileNotFoundError, NotADirectoryError):
        return _Month(folder, entries, "")
    try:
        own = os.fstat(fd)
        for name in os.listdir(fd):
            if not layout.is_episode_name(name):
                continue
            try:
                info = os.lstat(name, dir_fd=fd)
            except FileNotFoundError:
                continue  # removed while listing
            if stat.S_ISREG(info.st_mode):  # a link is never followed
                entries.append((name, info.st_size, info.st_mtime_ns, info.st_ino))
    finally:
        os.close(fd)
    if own.st_mtime_ns >= time.time_ns() - RACY_NS:
        return _Month(folder, entries, None)
    # hash() of ints is the same in every process (only str hashes are salted), and cheap.
    digest = hash((own.st_mtime_ns, own.st_ino, tuple(e[1:] for e in entries)))
    return _Month(folder, entries, str(digest))


def episodes_indexed(conn: sqlite3.Connection) -> int:
    """How many episodes the index holds (as of its last refresh)."""
    return int(conn.execute("SELECT coalesce(sum(docs), 0) FROM months").fetchone()[0])


def refresh(
    conn: sqlite3.Connection,
    paths: Paths,
    scope: Scope,
    first_month: str | None = None,
    last_month: str | None = None,
    digests: dict[str, str | None] | None = None,
) -> int:
    """Bring the index of `scope` up to date for the months in range; returns how many files it read again
    or forgot (0: the index was up to date).

    `digests` are the months' listing digests when another process took them (digests_later): only the
    months whose digest differs from the stored one are listed again here.
    """
    low, high = first_month or "0000-00", last_month or "9999-99"
    stored = dict(conn.execute("SELECT month, digest FROM months WHERE month BETWEEN ? AND ?", (low, high)))
    stale: set[str] | None = None  # the months to list again (None: every month in range)
    if digests is not None:  # listed by another process: only the months whose digest differs
        stale = {m for m, d in digests.items() if d is None or stored.get(m) != d} | (set(stored) - set(digests))
        if not stale:
            return 0
        stored = {m: d for m, d in stored.items() if m in stale}
    # In order, in this process. (Recall of a large scope has another process list the months from
    # the other end meanwhile, indexed.digests_later; threads do not make the stat calls faster.)
    listing = {
        stamp: list_month(folder)
        for stamp, folder in paths.episode_months(scope, first_month, last_month)
        if stale is None or stamp in stale
    }
    changed = [m for m in listing if listing[m].digest is None or stored.get(m) != listing[m].digest]
    changed += [m for m in stored if m not in listing]
    if not changed:
        return 0
    read = 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        terms: set[str] = set()
        for month in sorted(changed):
            read += _refresh_month(conn, paths, scope, month, listing.get(month), terms)
        before = conn.total_changes
        conn.executemany("INSERT OR IGNORE INTO vocabulary VALUES (?)", ((t,) for t in terms))
        if conn.total_changes != before:  # new words: the one-row copy recall reads is written again
            words = "\n".join(t for (t,) in conn.execute("SELECT term FROM vocabulary"))
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('vocabulary', ?)", (words,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return read


class _Known(NamedTuple):
    size: int
    mtime: int
    inode: int
    racy: int
    sha: str
    doc: int | None


def _refresh_month(
    conn: sqlite3.Connection, paths: Paths, scope: Scope, month: str, listed: _Month | None, terms: set[str]
) -> int:
    row = conn.execute("SELECT digest FROM months WHERE month = ?", (month,)).fetchone()
    if listed is not None and listed.digest is not None and row is not None and row[0] == listed.digest:
        return 0  # another process brought it up to date while this one waited for the lock
    known = {
        name: _Known(*rest)
        for name, *rest in conn.execute(
            "SELECT name, size, mtime, inode, racy, sha, doc FROM files WHERE month = ?", (month,)
        )
    }
    seen = set()
    read = 0
    racy_left = False
    folder, entries = (listed.folder, listed.entries) if listed else (Path(), [])
    for name, size, mtime, inode in entries:
        relname = f"{month[:4]}/{month[5:]}/{name}"
        seen.add(relname)
        old = known.get(relname)
        if old is not None and (old.size, old.mtime, old.inode) == (size, mtime, inode) and not old.racy:
            continue
        read += 1
        racy_left |= _reindex(conn, paths, scope, month, relname, folder / name, old, terms)
    for relname, old in known.items():
        if relname not in seen:
            _forget(conn, relname, old.doc)
            read += 1  # a file gone counts as a change too
    if listed is None:
        conn.execute("DELETE FROM months WHERE month = ?", (month,))
    else:
        digest = None if racy_left else listed.digest
        # What recall reads for a whole-index window, summed here once rather than over every doc per recall.
        totals = conn.execute(
            "SELECT count(*), coalesce(sum(length), 0), min(lo), max(lo) FROM docs WHERE month = ?", (month,)
        ).fetchone()
        conn.execute("INSERT OR REPLACE INTO months VALUES (?, ?, ?, ?, ?, ?)", (month, digest, *totals))
    return read


def _reindex(
    conn: sqlite3.Connection,
    paths: Paths,
    scope: Scope,
    month: str,
    relname: str,
    path: Path,
    old: _Known | None,
    terms: set[str],
) -> bool:
    """Read one file again and store what it holds now; True while it must be checked again next time."""
    relpath = paths.relative(path)
    try:
        info = path.stat(follow_symlinks=False)
        data = path.read_bytes()
    except FileNotFoundError:
        if old is not None:
            _forget(conn, relname, old.doc)
        return False
    except OSError as exc:  # unreadable now: reported like the file scan does, and tried again next time
        _drop_doc(conn, old.doc if old else None)
        _store_file(
            conn,
            relname,
            month,
            (0, 0, 0),
            True,
            "",
            None,
            FileFormatError(relpath, None, f"cannot read: {exc.strerror}"),
        )
        return True
    import hashlib  # only when files are read again

    racy = info.st_mtime_ns >= time.time_ns() - RACY_NS
    sha = hashlib.sha1(data).hexdigest()
    key = (info.st_size, info.st_mtime_ns, info.st_ino)
    if old is not None and old.sha == sha:  # touched or racy, same bytes: what it holds is already stored
        conn.execute(
            "UPDATE files SET size = ?, mtime = ?, inode = ?, racy = ? WHERE name = ?", (*key, int(racy), relname)
        )
        return racy
    _drop_doc(conn, old.doc if old else None)
    try:
        episode = episodes.parse(data, relpath, expected_scope=str(scope))
    except FileFormatError as exc:
        _store_file(conn, relname, month, key, racy, sha, None, exc)
        return racy
    doc = recall.episode_document(episode)
    terms.update(doc.terms)
    _store_file(conn, relname, month, key, racy, sha, _insert_doc(conn, month, episode, doc), None)
    return racy


def _store_file(
    conn: sqlite3.Connection,
    relname: str,
    month: str,
    key: tuple[int, int, int],
    racy: bool,
    sha: str,
    doc: int | None,
    problem: FileFormatError | None,
) -> None:
    saved = json.dumps([problem.path, problem.line, problem.problem]) if problem else None
    conn.execute(
        "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (relname, month, *key, int(racy), sha, doc, saved),
    )


def _forget(conn: sqlite3.Connection, relname: str, doc: int | None) -> None:
    if doc is not None:
        _drop_doc(conn, doc)
    conn.execute("DELETE FROM files WHERE name = ?", (relname,))


def _bounds(started: When) -> tuple[str, str]:
    """(lo, hi): the first and last instant a When covers; a date-only When covers its whole day."""
    text = clock.iso(started)
    if len(text) == 10:
        return f"{text}T00:00:00Z", f"{text}T23:59:59Z"
    return text, text


def _insert_doc(conn: sqlite3.Connection, month: str, episode: Episode, doc: Document) -> int:
    lo, hi = _bounds(episode.started_at)
    base = int(clock.to_datetime(clock.parse_when(lo)).timestamp()) * _SAME_SECOND
    top = conn.execute("SELECT max(id) FROM docs WHERE id BETWEEN ? AND ?", (base, base + _SAME_SECOND - 1))
    last = top.fetchone()[0]
    doc_id = base if last is None else last + 1
    if doc_id >= base + _SAME_SECOND:
        raise sqlite3.IntegrityError(f"more than {_SAME_SECOND} episodes start at {lo}")
    conn.execute(
        "INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (doc_id, month, lo, hi, episode.session or None, doc.length, encode_episode(episode), encode_document(doc)),
    )
    conn.execute("INSERT INTO postings(rowid, terms) VALUES (?, ?)", (doc_id, _body(doc)))
    return doc_id


def _drop_doc(conn: sqlite3.Connection, doc_id: int | None) -> None:
    if doc_id is None:
        return
    row = conn.execute("SELECT document FROM docs WHERE id = ?", (doc_id,)).fetchone()
    if row is None:
        return
    # A contentless FTS5 table forgets a row given exactly the text it was given.
    conn.execute(
        "INSERT INTO postings(postings, rowid, terms) VALUES ('delete', ?, ?)", (doc_id, _body(decode_document(row[0])))
    )
    conn.execute("DELETE FROM docs WHERE id = ?", (doc_id,))


# --- MEMORY.md: its facts, parsed again only when its bytes change ---


def memory_facts(conn: sqlite3.Connection, paths: Paths, scope: Scope) -> list[Fact]:
    """The scope's facts as MEMORY.md holds them now; YAML is parsed only when the file's bytes changed."""
    path = paths.memory_file(scope)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError:
        return read_memory(paths, scope).facts  # it says what is wrong, as without the index
    row = conn.execute("SELECT raw, facts FROM memory").fetchone()
    if row is not None and row[0] == data:  # the whole file compared: no stat or clock to trust
        return [Fact.model_validate(fact) for fact in json.loads(row[1])]
    doc = memoryfile.parse(data, paths.relative(path), expected_scope=str(scope))  # raises as read_memory does
    try:
        saved = json.dumps([f.model_dump(mode="json") for f in doc.facts], ensure_ascii=False)
        conn.execute("INSERT OR REPLACE INTO memory VALUES (1, ?, ?)", (data, saved))
    except sqlite3.Error:
        pass  # a cache that cannot be written is only slower
    return doc.facts


# --- the write path's hook and doctor's ---


def note_written(paths: Paths, scope: Scope, relpaths: Sequence[str]) -> None:
    """After a write: index the months of `relpaths` now, if the scope has an index (never fails the write)."""
    if not path_of(paths, scope).exists():
        return  # the first recall builds it
    months = sorted({m for m in map(_month_of, relpaths) if m is not None})
    try:
        conn = connect(paths, scope, create=False)
        try:
            for month in months:
                refresh(conn, paths, scope, month, month)
        finally:
            conn.close()
    except (IndexUnavailable, sqlite3.Error, OSError, FileFormatError):
        pass  # the next recall sees the files by their stat and catches up


def _month_of(relpath: str) -> str | None:
    parts = relpath.split("/")
    if len(parts) >= 3 and parts[-3].isdigit() and parts[-2].isdigit():
        return f"{parts[-3]}-{parts[-2]}"
    return None


def rebuild(paths: Paths, scope: Scope) -> int:
    """Throw away the scope's index and build it again from the files; returns how many files were read."""
    for path in paths.index_files(scope):  # every version's: a person asked for a fresh start
        _remove(path)
    conn = connect(paths, scope)
    try:
        return refresh(conn, paths, scope)
    finally:
        conn.close()


def trouble(paths: Paths, scope: Scope) -> str | None:
    """What is wrong with the scope's index file, if it exists and is corrupt (being behind is normal)."""
    index_path = path_of(paths, scope)
    if not index_path.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{index_path}?mode=ro", uri=True, timeout=_BUSY_MS / 1000)
        try:
            verdict = conn.execute("PRAGMA quick_check").fetchone()
            conn.execute("SELECT count(*) FROM meta").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"is corrupt ({exc})"
    if verdict is None or verdict[0] != "ok":
        return f"is corrupt ({verdict[0] if verdict else 'no answer'})"
    return None
