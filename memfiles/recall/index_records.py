"""What the recall index stores, and how: episodes and documents as compressed JSON, terms as FTS5 tokens,
MEMORY.md's facts with the file's bytes; each episode and fact list signed by this machine (index_file), and
checked whenever it is read back.

Episodes and facts are stored as their models' JSON, documents field by field, so a new field needs no change here;
what they hold is still part of the index's format (memfiles.recall.index_file.INDEX_VERSION).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import sqlite3
import zlib
from collections.abc import Callable
from typing import Any

from memfiles.format import memoryfile
from memfiles.format.episodes import Episode
from memfiles.format.layout import Paths, Scope
from memfiles.format.model import Fact
from memfiles.recall.index_file import check_row, sign_row
from memfiles.recall.ranking import Document
from memfiles.store.files import read_memory

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
    """The Document `encode_document` stored (in a long-lived process, the one decoded before: `keep_decoded`)."""
    return _decoder(blob)


def _decode(blob: bytes) -> Document:
    data = json.loads(zlib.decompress(blob))
    for name, kind in _DOC_FIELDS:
        if kind in _CONTAINERS and name in data:
            inner = _INNER.get(name)
            items = [inner(v) for v in data[name]] if inner else data[name]
            data[name] = _CONTAINERS[kind](items)
    return Document(**data)


_decoder: Callable[[bytes], Document] = _decode


def keep_decoded(count: int) -> None:
    """Keep the last `count` decoded documents (0: none, the default), by their stored bytes (Documents are frozen).

    Recall scans the index newest first, so in a process that answers many recalls one query's documents are
    mostly the next one's; a 300-word episode's document is about 50 KB, so a one-shot `mem recall` keeps none."""
    global _decoder
    _decoder = functools.lru_cache(maxsize=count)(_decode) if count > 0 else _decode


def encode_episode(episode: Episode) -> bytes:
    """An Episode as compressed JSON with every field (the model's own JSON: dates as text)."""
    return zlib.compress(episode.model_dump_json().encode("utf-8"), 1)


def decode_episode(conn: sqlite3.Connection, blob: bytes, signature: str) -> Episode:
    """The Episode `encode_episode` stored, if this machine stored it (else raises IndexTampered)."""
    check_row(conn, signature, "episode", blob)
    return Episode.model_validate_json(zlib.decompress(blob))


_PUNCTUATION = re.compile(r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]")


def token(term: str) -> str:
    """A term as exactly one token of FTS5's `ascii` tokenizer, which splits on ASCII punctuation and spaces.

    Words (letters and digits) are themselves; a term holding punctuation (a date term such as
    `@2023-05-08`) is spelled in hex behind a prefix no word has, so it never merges with `2023`.
    """
    return f"qz{term.encode('utf-8').hex()}" if _PUNCTUATION.search(term) else term


def postings_text(doc: Document) -> str:
    """The text a document's row of the FTS5 posting list is given (and must be given again to remove it)."""
    return " ".join(sorted(token(t) for t in doc.terms))


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
    row = conn.execute("SELECT raw, facts, sig FROM memory").fetchone()
    if row is not None and row[0] == data:  # the whole file compared: no stat or clock to trust
        check_row(conn, row[2], "facts", row[0], row[1])  # anyone knows the file's bytes: not what it holds
        return [Fact.model_validate(fact) for fact in json.loads(row[1])]
    doc = memoryfile.parse(data, paths.relative(path), expected_scope=str(scope))  # raises as read_memory does
    try:
        saved = json.dumps([f.model_dump(mode="json") for f in doc.facts], ensure_ascii=False)
        conn.execute(
            "INSERT OR REPLACE INTO memory VALUES (1, ?, ?, ?)", (data, saved, sign_row(conn, "facts", data, saved))
        )
    except sqlite3.Error:
        pass  # a cache that cannot be written is only slower
    return doc.facts
