"""The recall index: a rebuildable SQLite cache of each scope's episodes, so recall need not read every file.

Markdown stays the source of truth; the index is derived and git-ignored (one file per scope and
version under `.cache/`). It holds, for every episode file, its stat (size, mtime, inode) and content
hash, the parsed Episode, the Document recall scores it by (`ranking.episode_document`, stored field by
field) and an FTS5 posting list of the document's terms, which gives candidates and document
frequencies without reading the files; and MEMORY.md's facts with the file's bytes, so an unchanged
file is not parsed again. A corrupt file, or one of another version, is rebuilt; any other failure
makes recall read the files instead (same results, slower).

It is made of:
- memfiles.recall.index_file: the SQLite file, its schema and INDEX_VERSION, opening and setting it up;
- memfiles.recall.index_refresh: keeping it fresh against the files before each use;
- memfiles.recall.index_records: what is stored, and how (episodes, documents, terms, facts);
- memfiles.recall.indexed: recall's view of it (a time window's statistics and candidates);
- this module: what the rest of mem calls, `note_written` (writers, after their commit), `reviewed`
  (the episodes the guard holds back, for `mem review`), and `rebuild` and `trouble` (doctor).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from memfiles.errors import FileFormatError
from memfiles.format.layout import Paths, Scope
from memfiles.recall.index_file import IndexUnavailable, connect, path_of, remove, trouble
from memfiles.recall.index_records import keep_decoded
from memfiles.recall.index_refresh import refresh, restat_every

__all__ = ["IndexUnavailable", "keep_warm", "note_written", "path_of", "rebuild", "reviewed", "trouble"]


def keep_warm(restat_s: float, documents: int) -> None:
    """A process that answers many recalls keeps, between them, month listings for `restat_s` seconds
    (index_refresh.restat_every) and the last `documents` decoded documents (index_records.keep_decoded)."""
    restat_every(restat_s)
    keep_decoded(documents)


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


def reviewed(paths: Paths, scope: Scope) -> list[str]:
    """The scope's episode files (relative to its episodes folder, oldest first) that are held back or were
    accepted by a person, the index brought up to date first; raises IndexUnavailable when it cannot be used."""
    if not paths.episodes_dir(scope).is_dir():
        return []
    conn = connect(paths, scope)
    try:
        refresh(conn, paths, scope)
        return [name for (name,) in conn.execute("SELECT name FROM files WHERE held IS NOT NULL ORDER BY name")]
    except (sqlite3.Error, OSError) as exc:
        raise IndexUnavailable(f"recall index: {exc}") from exc
    finally:
        conn.close()


def rebuild(paths: Paths, scope: Scope) -> int:
    """Throw away the scope's index and build it again from the files; returns how many files were read."""
    for path in paths.index_files(scope):  # every version's: a person asked for a fresh start
        remove(path)
    conn = connect(paths, scope)
    try:
        return refresh(conn, paths, scope)
    finally:
        conn.close()
