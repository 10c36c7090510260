"""Keeping the recall index fresh against the episode files: list and stat the month folders, read again
only what changed.

Before each use, the month folders in the asked range are listed and stat'ed (a file edited in place
changes its mtime, an added, removed or replaced one changes the listing); a month whose listing digest
differs from the stored one is compared file by file and only changed files are read again. A file
modified within RACY_NS of being read is re-checked by content next time, because a same-size edit
inside one timestamp tick leaves the stat unchanged.

Each file read is reviewed as the write path reviews an episode (memfiles.ops.quarantine), so one that
arrived by hand edit or `git pull` is held back the same way: a withheld episode gets no document (no
recall, no statistics), only its file's row, whose `held` says why (an accepted one has both).
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from memfiles import clock
from memfiles.clock import When
from memfiles.errors import FileFormatError
from memfiles.format import episodes, layout
from memfiles.format.episodes import Episode
from memfiles.format.layout import Paths, Scope
from memfiles.recall import ranking
from memfiles.recall.index_file import sign_row
from memfiles.recall.index_records import decode_document, encode_document, encode_episode, postings_text
from memfiles.recall.ranking import Document

RACY_NS = 2_000_000_000  # files modified this close to being read are re-checked by content next time
_restat_s = 0.0  # see restat_every
SAME_SECOND = 1024  # doc ids are start-time seconds × this + n, so id order is time order


@dataclass(slots=True)
class _Month:
    folder: Path
    entries: list[tuple[str, int, int, int]]  # (name, size, mtime_ns, inode) in the folder's own order
    digest: str | None  # None while the folder itself changed too recently to trust its mtime


# What list_month found in each folder, until when it is trusted, and the folder's own (mtime, inode) then.
_LISTED: dict[Path, tuple[float, tuple[int, int], _Month]] = {}


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
        kept = _LISTED.get(folder)
        if kept is not None and kept[1] == (own.st_mtime_ns, own.st_ino) and time.monotonic() < kept[0]:
            return kept[2]  # listed less than restat_every's seconds ago, no file added, removed or renamed since
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
    listed = _Month(folder, entries, str(digest))
    if _restat_s > 0:
        _LISTED[folder] = (time.monotonic() + _restat_s, (own.st_mtime_ns, own.st_ino), listed)
    return listed


def restat_every(seconds: float) -> None:
    """In a long-lived process (`mem mcp`, see memfiles.recall.index.keep_warm): stat a month folder's files again
    at most every `seconds`.

    By default (0) every recall stats every file in range, so an edit in place is seen by the next recall;
    at 10,000 episodes that costs about 35 ms, most of an in-process query. With `seconds` > 0 a folder is
    listed again sooner only when its own mtime or inode changed (a file added, removed or renamed there,
    which every memfiles write, `git pull` and an editor that saves by renaming do); an edit in place of an
    existing file is then seen within `seconds`. A folder changed within RACY_NS is never trusted.
    """
    global _restat_s
    _restat_s = max(0.0, seconds)
    _LISTED.clear()


def refresh(
    conn: sqlite3.Connection,
    paths: Paths,
    scope: Scope,
    first_month: str | None = None,
    last_month: str | None = None,
) -> int:
    """Bring the index of `scope` up to date for the months in range; returns how many files it read again
    or forgot (0: the index was up to date)."""
    low, high = first_month or "0000-00", last_month or "9999-99"
    stored = dict(conn.execute("SELECT month, digest FROM months WHERE month BETWEEN ? AND ?", (low, high)))
    # Listed here, in order, before recall ranks. At 100,000 files (2 CPUs) recall took 0.84 s this way
    # against 0.87-0.90 s with the listing in 2 or 4 threads, and 1.0 s for `rg -i -l` over the files.
    listing = {stamp: list_month(folder) for stamp, folder in paths.episode_months(scope, first_month, last_month)}
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
    from memfiles.ops.quarantine import review

    decided = review(episode, full=episode.status == "accepted")
    held = None
    if decided.state != "shown":  # `mem review` and `mem doctor` find these without reading every file
        held = json.dumps([episode.id, decided.state, [f.line() for f in decided.findings]], ensure_ascii=False)
    if decided.withheld:
        _store_file(conn, relname, month, key, racy, sha, None, None, held)
        return racy
    doc = ranking.episode_document(episode)
    terms.update(doc.terms)
    _store_file(conn, relname, month, key, racy, sha, _insert_doc(conn, month, episode, doc), None, held)
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
    held: str | None = None,
) -> None:
    saved = json.dumps([problem.path, problem.line, problem.problem]) if problem else None
    conn.execute(
        "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (relname, month, *key, int(racy), sha, doc, saved, held),
    )


def _forget(conn: sqlite3.Connection, relname: str, doc: int | None) -> None:
    if doc is not None:
        _drop_doc(conn, doc)
    conn.execute("DELETE FROM files WHERE name = ?", (relname,))


def _bounds(started: When) -> tuple[str, str]:
    """(lo, hi): the first and last instant a When covers, as text; a date-only When covers its whole day."""
    text = clock.iso(started)
    if len(text) == 10:
        return f"{text}T00:00:00Z", f"{text}T23:59:59Z"
    return text, text


def _insert_doc(conn: sqlite3.Connection, month: str, episode: Episode, doc: Document) -> int:
    lo, hi = _bounds(episode.started_at)
    base = int(clock.to_datetime(episode.started_at).timestamp()) * SAME_SECOND
    top = conn.execute("SELECT max(id) FROM docs WHERE id BETWEEN ? AND ?", (base, base + SAME_SECOND - 1))
    last = top.fetchone()[0]
    doc_id = base if last is None else last + 1
    if doc_id >= base + SAME_SECOND:
        raise sqlite3.IntegrityError(f"more than {SAME_SECOND} episodes start at {lo}")
    blob = encode_episode(episode)
    conn.execute(
        "INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            doc_id,
            month,
            lo,
            hi,
            episode.session or None,
            doc.length,
            len(doc.passages),
            blob,
            encode_document(doc),
            sign_row(conn, "episode", blob),
        ),
    )
    conn.execute("INSERT INTO postings(rowid, terms) VALUES (?, ?)", (doc_id, postings_text(doc)))
    return doc_id


def _drop_doc(conn: sqlite3.Connection, doc_id: int | None) -> None:
    if doc_id is None:
        return
    row = conn.execute("SELECT document FROM docs WHERE id = ?", (doc_id,)).fetchone()
    if row is None:
        return
    # A contentless FTS5 table forgets a row given exactly the text it was given.
    conn.execute(
        "INSERT INTO postings(postings, rowid, terms) VALUES ('delete', ?, ?)",
        (doc_id, postings_text(decode_document(row[0]))),
    )
    conn.execute("DELETE FROM docs WHERE id = ?", (doc_id,))
