"""Recall's view of the index: the episodes in a time window, their statistics and candidates, newest first.

`open_episodes` brings each asked scope's index up to date (memfiles.recall.index_refresh) and returns an
`IndexedEpisodes`, which recall.rank takes as its `EpisodeSource`: corpus statistics (total, document
frequencies, vocabulary) over exactly the episodes the file scan would consider, and the episodes
holding any matching term, newest first, each with what bounds its score before it is read (the query terms
it holds, its passages, its session, its age: ranking.Candidate), so ranking reads only what can win. No git,
no YAML.
"""

from __future__ import annotations

import heapq
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from memfiles import clock
from memfiles.clock import When
from memfiles.errors import FileFormatError
from memfiles.format.episodes import Episode
from memfiles.format.layout import Paths, Scope
from memfiles.format.model import Fact
from memfiles.recall.index_file import IndexUnavailable, connect, path_of
from memfiles.recall.index_records import decode_document, decode_episode, memory_facts, token
from memfiles.recall.index_refresh import SAME_SECOND, refresh
from memfiles.recall.ranking import Candidate, Document
from memfiles.store.files import read_memory


@dataclass(frozen=True, slots=True)
class Window:
    """The episodes recall considers: month folders [first_month, last_month], started in [since, until]."""

    first_month: str | None
    last_month: str
    since: str | None
    until: tuple[str, ...]

    @classmethod
    def of(cls, since: When | None, reference: When, until: When | None) -> Window:
        """The same range as reading the files: folders from --since to the reference, starts by both ends."""
        low = clock.iso(since) if since is not None else None
        bounds = tuple(clock.iso(u) for u in (reference, until) if u is not None)
        month = clock.day(reference).isoformat()[:7]
        return cls(clock.day(since).isoformat()[:7] if since is not None else None, month, low, bounds)

    def covers(self, conn: sqlite3.Connection) -> bool:
        """Whether every indexed episode is in the window (then no episode needs checking one by one)."""
        sql = "SELECT min(first), max(last), min(month), max(month) FROM months"  # first, last: of the docs' starts
        first, last, low, high = conn.execute(sql).fetchone()
        if first is None or low is None:
            return True
        since = self.since if not self.since or len(self.since) > 10 else f"{self.since}T00:00:00Z"
        untils = [b if len(b) > 10 else f"{b}T23:59:59Z" for b in self.until]
        return (
            (since is None or first >= since)  # hi >= lo for every episode
            and all(last <= bound for bound in untils)
            and (self.first_month is None or low >= self.first_month)
            and high <= self.last_month
        )

    def where(self) -> tuple[str, list[str]]:
        """SQL over `docs d` with clock.compare's semantics: a date-only bound or start covers its whole day."""
        clauses = ["d.month <= ?"]
        values = [self.last_month]
        if self.first_month:
            clauses.append("d.month >= ?")
            values.append(self.first_month)
        if self.since:
            clauses.append("d.hi >= ?")
            values.append(self.since if len(self.since) > 10 else f"{self.since}T00:00:00Z")
        for bound in self.until:
            clauses.append("d.lo <= ?")
            values.append(bound if len(bound) > 10 else f"{bound}T23:59:59Z")
        return " AND ".join(clauses), values


def _match(terms: Iterable[str]) -> str:
    return " OR ".join(f'"{token(t)}"' for t in sorted(terms))


class ScopeWindow:
    """One scope's index within a window."""

    def __init__(self, scope: str, conn: sqlite3.Connection, window: Window) -> None:
        self.scope = scope
        self.conn = conn
        self.where, self.values = window.where()
        # Decoded in this query: a candidate's session holds it again.
        self._episodes: dict[int, Episode] = {}
        self._documents: dict[int, Document] = {}
        self.everything = window.covers(conn)
        if self.everything:  # the usual recall: counted per month when the index was written
            self.total = conn.execute("SELECT coalesce(sum(docs), 0) FROM months").fetchone()[0]
        else:
            self.total = conn.execute(f"SELECT count(*) FROM docs d WHERE {self.where}", self.values).fetchone()[0]

    def state(self) -> tuple[object, ...] | None:
        """What this window holds now, as a value that changes whenever its episodes do: the window and each
        month's listing digest (memfiles.recall.index_refresh). None while a month is not settled (a file in it
        changed within the last seconds), when only reading the files again can tell."""
        months = self.conn.execute("SELECT month, digest FROM months ORDER BY month").fetchall()
        if any(digest is None for _month, digest in months):
            return None
        window = ("all",) if self.everything else (self.where, *self.values)
        file = self.conn.execute("PRAGMA database_list").fetchone()[2]  # a rebuilt index is a new file
        return (self.scope, os.stat(file).st_ino, window, tuple(months))

    def frequency(self, term: str) -> int:
        if self.everything:
            sql, values = "SELECT count(*) FROM postings WHERE postings MATCH ?", [_match([term])]
        else:
            sql = (
                f"SELECT count(*) FROM postings p JOIN docs d ON d.id = p.rowid WHERE postings MATCH ? AND {self.where}"
            )
            values = [_match([term]), *self.values]
        return int(self.conn.execute(sql, values).fetchone()[0])

    def length(self) -> int:
        """The summed word length of the documents in the window (for BM25's average length)."""
        if self.everything:
            return int(self.conn.execute("SELECT coalesce(sum(length), 0) FROM months").fetchone()[0])
        sql = f"SELECT coalesce(sum(d.length), 0) FROM docs d WHERE {self.where}"
        return int(self.conn.execute(sql, self.values).fetchone()[0])

    def session(self, session: str) -> list[tuple[Episode, Document]]:
        """Every in-window episode of one session, with its document; [] for a session of one (no neighbours)."""
        rows = self.conn.execute(
            f"SELECT d.id, d.episode, d.sig, d.document FROM docs d WHERE d.session = ? AND {self.where}",
            [session, *self.values],
        ).fetchall()
        if len(rows) < 2:
            return []
        found = [(self._episode(doc, blob, sig), self._document(doc, document)) for doc, blob, sig, document in rows]
        return [(episode, document) for episode, document in found if episode is not None and document is not None]

    def _episode(self, doc: int, blob: bytes | None = None, signature: str | None = None) -> Episode | None:
        """The episode of row `doc`, checked (raises IndexTampered); None if the row is gone (another process
        brought the index up to date since this query listed it)."""
        if doc not in self._episodes:
            if blob is None or signature is None:
                row = self.conn.execute("SELECT episode, sig FROM docs WHERE id = ?", (doc,)).fetchone()
                if row is None:
                    return None
                blob, signature = row
            self._episodes[doc] = decode_episode(self.conn, blob, signature)
        return self._episodes[doc]

    def _document(self, doc: int, blob: bytes | None = None) -> Document | None:
        """The document of row `doc` (None if the row is gone, as `_episode`)."""
        if doc not in self._documents:
            if blob is None:
                row = self.conn.execute("SELECT document FROM docs WHERE id = ?", (doc,)).fetchone()
                if row is None:
                    return None
                blob = row[0]
            self._documents[doc] = decode_document(blob)
        return self._documents[doc]

    def newest_first(self, terms: Mapping[str, frozenset[str]] | None) -> Iterator[tuple[str, Candidate]]:
        columns = (
            "d.lo, d.id, d.passages, "
            "d.session IS NULL OR NOT EXISTS (SELECT 1 FROM docs s WHERE s.session = d.session AND s.id != d.id)"
        )
        if terms is None:
            rows = self.conn.execute(f"SELECT {columns} FROM docs d WHERE {self.where} ORDER BY d.id DESC", self.values)
        elif not any(terms.values()):
            return
        else:
            rows = self.conn.execute(
                f"SELECT {columns} FROM postings p JOIN docs d ON d.id = p.rowid "
                f"WHERE postings MATCH ? AND {self.where} ORDER BY p.rowid DESC",
                [_match({t for stored in terms.values() for t in stored}), *self.values],
            )
        holders = {term: self._holders(stored) for term, stored in (terms or {}).items()}
        everything = frozenset(terms or ())
        shapes: dict[tuple[str, ...], frozenset[str]] = {}  # one frozenset per combination of held terms
        read, load, scope = self._document, self._episode, self.scope
        for lo, doc, passages, alone in rows:
            # A doc id is its start's second × SAME_SECOND + n: a second later is no earlier than the start.
            latest = float(doc // SAME_SECOND + 1)
            if terms:
                found = tuple(t for t, docs in holders.items() if doc in docs)
                held = shapes.get(found) or shapes.setdefault(found, frozenset(found))
            else:
                held = everything
            yield lo, Candidate(scope, latest, held, passages, bool(alone), doc, read, load)

    def _holders(self, stored: frozenset[str]) -> set[int]:
        """The documents holding any of `stored` (in any month: a superset of the window's)."""
        if not stored:
            return set()
        rows = self.conn.execute("SELECT rowid FROM postings WHERE postings MATCH ?", [_match(stored)])
        return {doc for (doc,) in rows}

    def problems(self, window: Window) -> list[FileFormatError]:
        low, high = window.first_month or "0000-00", window.last_month
        rows = self.conn.execute(
            "SELECT problem FROM files WHERE problem IS NOT NULL AND month BETWEEN ? AND ? ORDER BY name DESC",
            (low, high),
        )
        return [FileFormatError(*json.loads(text)) for (text,) in rows]


class IndexCorpus:
    """recall.Corpus over the indexed episodes in a window, across the scopes asked."""

    def __init__(self, parts: list[ScopeWindow]) -> None:
        self._parts = parts

    @property
    def total(self) -> int:
        return sum(part.total for part in self._parts)

    @property
    def average_length(self) -> float:
        total = self.total
        return sum(part.length() for part in self._parts) / total if total else 0.0

    def frequencies(self, terms: Sequence[str]) -> Mapping[str, int]:
        return {t: sum(part.frequency(t) for part in self._parts) for t in terms}

    def vocabulary(self) -> Iterable[str]:
        # Every term ever indexed (a superset of those in range): typo variants not in range match nothing.
        found = [
            part.conn.execute("SELECT value FROM meta WHERE key = 'vocabulary'").fetchone() for part in self._parts
        ]
        words = [row[0].split("\n") for row in found if row and row[0]]
        return words[0] if len(words) == 1 else sorted({w for part in words for w in part})


@dataclass
class IndexedEpisodes:
    """recall.EpisodeSource from the scopes' indexes: statistics, candidates newest first, unparsable files."""

    parts: list[ScopeWindow]
    window: Window

    @property
    def problems(self) -> list[FileFormatError]:
        """The files in the window that could not be read, as the index has them now."""
        return [problem for part in self.parts for problem in part.problems(self.window)]

    @property
    def corpus(self) -> IndexCorpus:
        return IndexCorpus(self.parts)

    def newest_first(self, terms: Mapping[str, frozenset[str]] | None) -> Iterator[Candidate]:
        streams = [part.newest_first(terms) for part in self.parts]
        for _lo, candidate in heapq.merge(*streams, key=lambda row: row[0], reverse=True):
            yield candidate

    def session(self, scope: str, session: str) -> list[tuple[Episode, Document]]:
        """Every in-window episode of one scope's session (recall's session context)."""
        return next(p for p in self.parts if p.scope == scope).session(session)

    def facts(self, paths: Paths, scope: Scope) -> list[Fact]:
        """The scope's facts from MEMORY.md (see memory_facts); read directly for a scope with no index."""
        part = next((p for p in self.parts if p.scope == str(scope)), None)
        return memory_facts(part.conn, paths, scope) if part else read_memory(paths, scope).facts

    def close(self) -> None:
        for part in self.parts:
            part.conn.close()


def open_episodes(
    paths: Paths, scopes: Sequence[Scope], window: Window, notes: list[str] | None = None
) -> IndexedEpisodes:
    """The scopes' indexes, brought up to date for the window's months (raises IndexUnavailable); an index
    rebuilt because it was corrupt or foreign is said in `notes`."""
    conns: list[sqlite3.Connection] = []
    # A scope without episodes needs no index file (a home of 10,000 users with facts only stays lean).
    indexed = [s for s in scopes if paths.episodes_dir(s).is_dir() or path_of(paths, s).exists()]
    try:
        for scope in indexed:
            conns.append(connect(paths, scope, notes=notes))
            refresh(conns[-1], paths, scope, window.first_month, window.last_month)
        return IndexedEpisodes([ScopeWindow(str(s), c, window) for s, c in zip(indexed, conns, strict=True)], window)
    except BaseException as exc:
        for conn in conns:
            conn.close()
        if isinstance(exc, sqlite3.Error | OSError):
            raise IndexUnavailable(f"recall index: {exc}") from exc
        raise
