"""The recall index's SQLite file: where it lives, its schema and version, opening it, setting it up.

Each version of the index has its own file (`.cache/index/<kind>-<id>.<INDEX_VERSION>.sqlite3`), so two
versions of mem sharing a home do not rebuild each other's. A file that is not a database of this
version (a corrupt one) is rebuilt empty, and another version's file unused for a week is removed
when this version's is set up. What the file holds is kept fresh by memfiles.recall.index_refresh.

A cache can rank and speed up, never add or change content (docs/SECURITY.md): the index lives in the home,
where anyone who can push to its remote can plant one (git checks out a tracked `.cache/` file), and they
know every file's bytes. So the file carries a signature by this machine's key (memfiles.store.machine) made
when it was set up, and every stored episode and fact list its own signature (`docs.sig`, `memory.sig`); a
file without a valid one is foreign and rebuilt with a note, and a row whose signature fails raises
IndexTampered, which recall answers by removing the file and reading the files (memfiles.recall.retrieve).
"""

from __future__ import annotations

import hmac
import secrets
import sqlite3
import time
from pathlib import Path

from memfiles.errors import MemError
from memfiles.format.layout import Paths, Scope
from memfiles.store import machine
from memfiles.store.files import locked

# The version of what the index stores. Bump it by hand whenever the schema below changes, or what is
# stored in it does: the encoding of episodes, documents or facts (memfiles.recall.index_records), how
# episodes and MEMORY.md are parsed, or how an episode is described for ranking (its terms, passages
# and length: memfiles.recall.ranking.episode_document, memfiles.recall.words), or which episodes the
# guard holds back (memfiles.ops.quarantine and the lint rules it runs: the index stores the decision,
# made when a file's bytes change, so a guard that catches more needs a new version). A new version gets a
# new file, built from the markdown at the next recall. tests/test_index.py pins what each version stores
# and the guard's rules each version decided with.
INDEX_VERSION = 35
_OTHER_VERSIONS_KEPT = 7 * 86400  # another version's index unused this long is removed
BUSY_MS = 10_000
SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE months(
    month TEXT PRIMARY KEY, digest TEXT, docs INTEGER NOT NULL, length INTEGER NOT NULL, first TEXT, last TEXT
);
CREATE TABLE files(
    name TEXT PRIMARY KEY, month TEXT NOT NULL, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
    inode INTEGER NOT NULL, racy INTEGER NOT NULL, sha TEXT NOT NULL, doc INTEGER, problem TEXT, held TEXT
);
CREATE INDEX files_month ON files(month);
CREATE INDEX files_problems ON files(month) WHERE problem IS NOT NULL;
CREATE TABLE docs(
    id INTEGER PRIMARY KEY, month TEXT NOT NULL, lo TEXT NOT NULL, hi TEXT NOT NULL, session TEXT,
    length INTEGER NOT NULL, passages INTEGER NOT NULL, episode BLOB NOT NULL, document BLOB NOT NULL,
    sig TEXT NOT NULL
);
CREATE INDEX docs_window ON docs(month, lo, hi, length);
CREATE INDEX docs_session ON docs(session) WHERE session IS NOT NULL;
CREATE VIRTUAL TABLE postings USING fts5(terms, content='', tokenize='ascii', detail='none');
CREATE TABLE vocabulary(term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE memory(
    id INTEGER PRIMARY KEY CHECK (id = 1), raw BLOB NOT NULL, facts TEXT NOT NULL, sig TEXT NOT NULL
);
"""


class IndexUnavailable(Exception):
    """The index cannot be used here (no write access, sqlite error); recall reads the files instead."""


class IndexTampered(IndexUnavailable):
    """A row of the index was not written by this machine (its signature fails): the file is not trusted."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} holds content this machine did not store")
        self.path = path


def _file_parts(path: Path, nonce: str) -> tuple[str, str, str]:
    return ("memfiles recall index", path.name, nonce)


class _IndexConnection(sqlite3.Connection):
    """A connection to an index file, with the key its rows are signed with (see `row_key`)."""

    row_key: bytes = b""


def row_key() -> bytes:
    """The key an index's rows are signed with: derived from this machine's key once per connection, so checking
    a row is one HMAC over its bytes (a few microseconds), not a look-up of the machine's key each time."""
    return bytes.fromhex(machine.sign("memfiles recall index rows"))


def _mac(conn: sqlite3.Connection, kind: str, parts: tuple[bytes | str, ...]) -> str:
    key = conn.row_key if isinstance(conn, _IndexConnection) and conn.row_key else row_key()
    message = kind.encode()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        message += len(data).to_bytes(8, "big") + data
    return hmac.digest(key, message, "sha256").hex()


def sign_row(conn: sqlite3.Connection, kind: str, *parts: str | bytes) -> str:
    """This machine's signature of what one row of the index stores (`kind`: "episode", "facts")."""
    return _mac(conn, kind, parts)


def check_row(conn: sqlite3.Connection, signature: str, kind: str, *parts: str | bytes) -> None:
    """Raise IndexTampered unless `signature` is this machine's `sign_row(conn, kind, *parts)`."""
    if not (isinstance(signature, str) and hmac.compare_digest(signature, _mac(conn, kind, parts))):
        raise IndexTampered(Path(conn.execute("PRAGMA database_list").fetchone()[2]))


def path_of(paths: Paths, scope: Scope) -> Path:
    """This version's index file of the scope."""
    return paths.index_file(scope, str(INDEX_VERSION))


def connect(paths: Paths, scope: Scope, create: bool = True, notes: list[str] | None = None) -> sqlite3.Connection:
    """Open (or create) one scope's index; a file that is not a database of this version, or that this machine
    did not make, is rebuilt empty (saying so in `notes`, when given)."""
    path = path_of(paths, scope)
    if not create and not path.exists():
        raise IndexUnavailable(f"{path} does not exist")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn, _why = _usable(path)
        if conn is None:
            with locked(paths.lock_file(f"index-{scope.kind}-{scope.id}")):  # one process sets it up
                conn, why = _usable(path)
                conn = conn or _set_up_in_place(path)
                if conn is None:  # corrupt or foreign: nobody can be reading it
                    remove(path)
                    conn = open_file(path)
                    _create(conn, path)
                    if notes is not None and why:
                        notes.append(f"recall: the recall index {paths.relative(path)} {why}; rebuilt from the files")
                _forget_other_versions(paths, scope, older_than=_OTHER_VERSIONS_KEPT)
        return conn
    except (OSError, sqlite3.Error, MemError) as exc:
        raise IndexUnavailable(f"cannot use the recall index {path}: {exc}") from exc


def _usable(path: Path) -> tuple[sqlite3.Connection | None, str]:
    """The index opened, if it is a database of this version made by this machine; else None and why it must
    be built anew ("" for a file that is merely new or of another version)."""
    conn = None
    why = ""
    try:
        conn = open_file(path)
        found = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('version', 'nonce', 'signature')"))
        conn.execute("SELECT count(*) FROM months").fetchone()
        if found.get("version") == str(INDEX_VERSION):
            if machine.verify(found.get("signature", ""), *_file_parts(path, found.get("nonce", ""))):
                return conn, ""
            why = "was not made on this machine"
    except sqlite3.DatabaseError as exc:  # not a database, or corrupt: a cache is rebuilt, never repaired
        if "no such table" not in str(exc):
            why = f"is corrupt ({exc})"
    if conn is not None:
        conn.close()
    return None, why


def _set_up_in_place(path: Path) -> sqlite3.Connection | None:
    """The index set up in the empty database that opening it made, when it is one; else None.

    Readers arriving together each open the file before one of them, under the lock, sets it up. Were
    the file replaced instead, a reader's connection would keep the old file while SQLite opens the
    `-wal` and `-shm` beside it by name, the new ones: a mix of two databases ("no such table").
    """
    conn = None
    try:
        conn = open_file(path)
        if conn.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,):
            _create(conn, path)
            return conn
    except sqlite3.DatabaseError:
        pass
    if conn is not None:
        conn.close()
    return None


def open_file(path: Path) -> _IndexConnection:
    """A connection to the index file at `path` as it is (made empty if missing), in WAL mode."""
    conn = sqlite3.connect(
        path, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False, factory=_IndexConnection
    )
    conn.row_key = row_key()
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")  # a cache: a lost last transaction is seen as stale and redone
    return conn


def _create(conn: sqlite3.Connection, path: Path) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone() is None:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            nonce = secrets.token_hex(16)
            conn.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("version", str(INDEX_VERSION)),
                    ("nonce", nonce),
                    ("signature", machine.sign(*_file_parts(path, nonce))),
                ],
            )
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
            remove(other)


def remove(path: Path) -> None:
    """Remove an index file with SQLite's files beside it."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def trouble(paths: Paths, scope: Scope) -> str | None:
    """What is wrong with the scope's index file, if it exists and is corrupt (being behind is normal)."""
    index_path = path_of(paths, scope)
    if not index_path.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{index_path}?mode=ro", uri=True, timeout=BUSY_MS / 1000)
        try:
            verdict = conn.execute("PRAGMA quick_check").fetchone()
            conn.execute("SELECT count(*) FROM meta").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"is corrupt ({exc})"
    if verdict is None or verdict[0] != "ok":
        return f"is corrupt ({verdict[0] if verdict else 'no answer'})"
    return _foreign(index_path)


def _foreign(path: Path) -> str | None:
    """Why the index file at `path` is not this machine's (its file or a row unsigned), or None."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_MS / 1000, factory=_IndexConnection)
        conn.row_key = row_key()
        try:
            found = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('version', 'nonce', 'signature')"))
            if found.get("version") != str(INDEX_VERSION):
                return None  # another version's: rebuilt when used
            if not machine.verify(found.get("signature", ""), *_file_parts(path, found.get("nonce", ""))):
                return "was not made on this machine"
            for blob, sig in conn.execute("SELECT episode, sig FROM docs"):
                check_row(conn, sig, "episode", blob)
            for raw, text, sig in conn.execute("SELECT raw, facts, sig FROM memory"):
                check_row(conn, sig, "facts", raw, text)
        finally:
            conn.close()
    except IndexTampered:
        return "holds content this machine did not store"
    except sqlite3.Error as exc:
        return f"is corrupt ({exc})"
    return None
