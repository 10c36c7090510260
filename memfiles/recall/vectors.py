"""Vectors of the `memfiles[semantic]` extra: what is embedded, and where the vectors are kept.

What: a fact is three short texts (a sentence of its key and value, the key, the value); an episode is
its passages (`episode_passages`: the summary's lines, its events and the facts it proposes, in passages
of at most PASSAGE_WORDS words; a long one by its content words only), each embedded on its own, so a
long session is scored by its best-matching passage, not by one vector of a long text.

Where: one SQLite file per scope and model beside the recall index
(`.cache/index/<kind>-<id>.vectors<VERSION>-<model>.sqlite3`), derived and git-ignored like it, never in
markdown or git. Vectors are keyed by content: an episode by its file's sha1 as the recall index has it
(`f:<sha1>`), anything else by the sha1 of the passages embedded (`t:<sha1>`). An edited file has a new
key, so hand edits and pulls are caught up by embedding what has no vector yet; a vector nobody asks for
any more is dropped by `mem doctor --reindex`, which rebuilds the file.

Trust: vectors only rank, but a file this machine did not make is not used (docs/SECURITY.md). A new file is
claimed when first opened (a random nonce and this machine's signature of it in `meta`); a file without a
valid signature (planted, pushed, or written by another machine) or that is not a database (corrupt) is
removed and made anew, which `notes` says, and the next reads and writes (or `mem doctor --fix`) embed again.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memfiles.format.episodes import Episode
from memfiles.format.layout import Paths, Scope
from memfiles.format.model import Fact
from memfiles.recall.words import STOPWORDS
from memfiles.store import machine
from memfiles.store.files import locked

if TYPE_CHECKING:
    from memfiles.recall.embedder import Matrix

# Bump when what is embedded changes (the passages below) or how vectors are stored.
VECTORS_VERSION = 3  # 3: files signed by this machine (see the module)
PASSAGE_WORDS = 60  # MiniLM reads 128 tokens: about 60-90 English words
MAX_PASSAGES = 48  # an episode's passages beyond this are not embedded (20,000 characters is about 50)
_DROPPED = STOPWORDS - {"no", "nor", "not"}  # a long episode's words not embedded (negations carry meaning)
_PUNCTUATION = ".,;:!?\"'()[]{}*_`"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vectors(
    key TEXT PRIMARY KEY, ref TEXT NOT NULL, rows INTEGER NOT NULL, vecs BLOB NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS vectors_ref ON vectors(ref);
"""


def fact_texts(fact: Fact) -> list[str]:
    """A fact's passages: a sentence ("The notification channel is email.": sentence models embed sentences
    best), its key's words alone ("notification channel"), which a question about the attribute names, and
    its value alone ("build emergency fund"), which a question about the thing itself names."""
    key = fact.key.replace("_", " ")
    texts = [f"The {key} is {fact.value}.", key] if len(key) >= 3 else [f"The {key} is {fact.value}."]
    return [*texts, fact.value] if fact.value.strip() and fact.value != key else texts


def episode_passages(episode: Episode) -> list[str]:
    """An episode's texts to embed: its summary lines, events and proposed facts, in passages of PASSAGE_WORDS words.

    One that fits a passage is embedded as written, with its entities as a second passage. A longer one is
    embedded by its content words only (stop words dropped, negations kept), filled into passages across
    its lines, without the entities (names are in its text, and its words match them exactly): a
    sentence model reads the meaning from the content words, and the stop words are about 40 % of an
    English text's tokens, so a long episode costs far less to embed (docs/FORMAT.md, "Recall by meaning").
    """
    lines = [line.strip() for line in episode.summary.splitlines() if line.strip()]
    lines += [event.strip() for event in episode.events if event.strip()]
    lines += [f"{f.key.replace('_', ' ')}: {f.value}" for f in episode.facts]
    words = [word for line in lines for word in line.split()]
    if len(words) <= PASSAGE_WORDS:
        short = [" ".join(words)] if words else [episode.summary]
        return short + ([", ".join(episode.entities)] if episode.entities else [])
    content = [word for word in words if word.lower().strip(_PUNCTUATION) not in _DROPPED]
    passages = [" ".join(content[n : n + PASSAGE_WORDS]) for n in range(0, len(content), PASSAGE_WORDS)]
    return passages[:MAX_PASSAGES] or [episode.summary]


def text_key(texts: Sequence[str]) -> str:
    return "t:" + hashlib.sha1("\n\x00".join(texts).encode("utf-8")).hexdigest()


def path_of(paths: Paths, scope: Scope, model_id: str) -> Path:
    return paths.cache / "index" / f"{scope.kind}-{scope.id}.vectors{VECTORS_VERSION}-{model_id}.sqlite3"


def is_current(path: Path) -> bool:
    """Whether a vector file is of this version (another version's is never opened)."""
    return f".vectors{VECTORS_VERSION}-" in path.name


def files_of(paths: Paths, scope: Scope) -> list[Path]:
    """Every vector file of the scope, of any version or model."""
    folder = paths.cache / "index"
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"{scope.kind}-{scope.id}.vectors*.sqlite3"))


def _signed(path: Path, nonce: str) -> tuple[str, str, str]:
    return ("memfiles vectors", path.name, nonce)


def _open(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA page_size=65536")  # a new file only: every vector is read at once, in big pages
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(SCHEMA)
    except BaseException:
        conn.close()
        raise
    return conn


def _claim(conn: sqlite3.Connection, path: Path) -> str | None:
    """None when the file is this machine's (a new, empty one is claimed now); else why it is not."""
    found = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('nonce', 'signature')"))
    if machine.verify(found.get("signature", ""), *_signed(path, found.get("nonce", ""))):
        return None
    conn.execute("BEGIN IMMEDIATE")
    try:
        if (
            conn.execute("SELECT count(*) FROM meta").fetchone()[0]
            or conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
        ):
            conn.execute("ROLLBACK")
            found = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('nonce', 'signature')"))
            if machine.verify(found.get("signature", ""), *_signed(path, found.get("nonce", ""))):
                return None  # claimed by another process meanwhile
            return "was not made on this machine"
        nonce = secrets.token_hex(16)
        conn.execute("INSERT INTO meta VALUES ('nonce', ?)", (nonce,))
        conn.execute("INSERT INTO meta VALUES ('signature', ?)", (machine.sign(*_signed(path, nonce)),))
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    return None


def trouble(path: Path) -> str | None:
    """What is wrong with the vector file at `path` (corrupt, or not made on this machine), without changing it."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            verdict = conn.execute("PRAGMA quick_check").fetchone()
            if verdict is None or verdict[0] != "ok":
                return f"is corrupt ({verdict[0] if verdict else 'no answer'})"
            found = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('nonce', 'signature')"))
            conn.execute("SELECT count(*) FROM vectors").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"is corrupt ({exc})"
    if not machine.verify(found.get("signature", ""), *_signed(path, found.get("nonce", ""))):
        return "was not made on this machine"
    return None


class VectorStore:
    """One scope's vectors for one model, in a file this machine made (see the module)."""

    def __init__(self, paths: Paths, scope: Scope, model_id: str, notes: list[str] | None = None) -> None:
        import numpy

        self._np = numpy
        self.path = path_of(paths, scope, model_id)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn: sqlite3.Connection | None = None
        try:
            conn = _open(self.path)
            why = _claim(conn, self.path)
        except sqlite3.DatabaseError as exc:
            why = f"is corrupt ({exc})"
        if why is not None:
            if conn is not None:
                conn.close()
            with locked(paths.lock_file(f"vectors-{scope.kind}-{scope.id}")):  # one process replaces it
                remove(self.path)
                conn = _open(self.path)
                _claim(conn, self.path)
            if notes is not None:
                notes.append(
                    f"recall: the vector cache {paths.relative(self.path)} {why}; it was removed and is being "
                    "rebuilt (`mem doctor --fix` rebuilds it now)"
                )
        assert conn is not None
        self.conn = conn

    def get(self, keys: Iterable[str] | None = None) -> dict[str, Matrix]:
        """Stored vectors by key (all of them when `keys` is None), each a (passages × dimensions) matrix."""
        np = self._np
        found: list[tuple[str, int, bytes]] = []
        if keys is None:
            found = self.conn.execute("SELECT key, rows, vecs FROM vectors").fetchall()
        else:
            wanted = list(keys)
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found += self.conn.execute(f"SELECT key, rows, vecs FROM vectors WHERE key IN ({marks})", chunk)
        return {key: np.frombuffer(blob, dtype=np.float16).reshape(n, -1).astype(np.float32) for key, n, blob in found}

    def stacked(self) -> tuple[dict[str, tuple[int, int]], Matrix]:
        """Every stored vector in one matrix, and each key's rows in it as (first, count): one read, one copy.

        A long-lived process (`mem mcp`, the API) keeps the last matrix of each file while the file's
        generation is unchanged, so a query there does not read every vector again.
        """
        state = self.state()
        cached = _STACKED.get(self.path)
        if cached is not None and cached[0] == state:
            return dict(cached[1]), cached[2]
        spans, flat = self._read_stacked()
        _STACKED[self.path] = (state, spans, flat)
        return dict(spans), flat

    def state(self) -> tuple[int, ...]:
        """The file (its inode) and its generation, which every `put` raises in the same transaction."""
        found = self.conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return (self.path.stat().st_ino, int(found[0]) if found else 0)

    def _read_stacked(self) -> tuple[dict[str, tuple[int, int]], Matrix]:
        np = self._np
        found = self.conn.execute("SELECT key, rows, vecs FROM vectors").fetchall()
        spans: dict[str, tuple[int, int]] = {}
        if not found:
            return spans, np.zeros((0, 1), dtype=np.float32)
        total = sum(n for _key, n, _blob in found)
        flat = np.empty((total, len(found[0][2]) // (2 * found[0][1])), dtype=np.float32)
        row = 0
        for key, n, blob in found:  # each row converted as it is copied in: no joined copy of them all
            flat[row : row + n] = np.frombuffer(blob, dtype=np.float16).reshape(n, -1)
            spans[key] = (row, n)
            row += n
        return spans, flat

    def refs(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """The keys stored for each episode or fact id (an edited episode has one per version of its file)."""
        out: dict[str, list[str]] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for key, ref in self.conn.execute(f"SELECT key, ref FROM vectors WHERE ref IN ({marks})", chunk):
                out.setdefault(ref, []).append(key)
        return out

    def put(self, items: Iterable[tuple[str, str, Matrix]]) -> None:
        """Store (key, the episode or fact id it belongs to, vectors) rows."""
        np = self._np
        rows = [(key, ref, int(m.shape[0]), m.astype(np.float16).tobytes()) for key, ref, m in items]
        if rows:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)
                self.conn.execute(
                    "INSERT INTO meta VALUES ('generation', '1') "
                    "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
                )
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise

    def keys(self) -> set[str]:
        """Every key that has vectors stored."""
        return {key for (key,) in self.conn.execute("SELECT key FROM vectors")}

    def known(self, keys: Sequence[str]) -> set[str]:
        """Which of `keys` have vectors stored."""
        found: set[str] = set()
        wanted = list(keys)
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(k for (k,) in self.conn.execute(f"SELECT key FROM vectors WHERE key IN ({marks})", chunk))
        return found

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        self.conn.close()


_STACKED: dict[Path, tuple[tuple[int, ...], dict[str, tuple[int, int]], Matrix]] = {}


def remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
