"""One scope's episode vectors over a window of the recall index, as arrays that a query scores at once.

A query's cosines are one matrix product with every stored passage (`VectorStore.stacked`), then each
stored key's best passage (`numpy.maximum.reduceat`), then each of the window's episodes picks its key's
value. Which key each indexed episode has, and where that key's rows are, is worked out once and kept
in a long-lived process (`mem mcp`, the API) while neither file changes: the index says so by its month
digests (`ScopeWindow.state`: None while a month is not settled, and then nothing is kept), the vector file by
its generation (`VectorStore.state`). A one-shot `mem recall` builds it once, as before.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memfiles.recall.vectors import VectorStore

if TYPE_CHECKING:
    from memfiles.recall.embedder import Matrix
    from memfiles.recall.indexed import ScopeWindow


@dataclass(frozen=True, slots=True)
class WindowVectors:
    """The window's episodes with a vector (newest first) and where their vectors are in the stacked matrix."""

    docs: list[int]  # index doc ids of the window's episodes that have a vector, newest first
    pick: Any  # numpy int array: for each of `docs`, its key's position in `starts`
    starts: Any  # numpy int array: the first row of each stored key in `flat`
    position: dict[str, int]  # each stored key's position in `starts`
    missing: list[tuple[int, str]]  # (doc, vector key) of the window's episodes with no vector yet, newest first
    flat: Matrix

    def cosines(self, q: Matrix) -> tuple[Any, Any]:
        """Each stored key's best passage cosine to `q` (by `position`), and each of `docs`' cosine."""
        import numpy as np

        if not self.position:
            return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.float32)
        each = np.maximum.reduceat(self.flat @ q, self.starts)
        return each, each[self.pick]


_KEPT: dict[Path, tuple[tuple[object, ...], WindowVectors]] = {}


def of(part: ScopeWindow, store: VectorStore) -> WindowVectors:
    """The window's vectors, kept from the last query while the index and the vector file are unchanged."""
    window = part.state()
    state = None if window is None else (window, store.state())
    kept = _KEPT.get(store.path)
    if state is not None and kept is not None and kept[0] == state:
        return kept[1]
    built = _build(part, store)
    if state is not None:
        _KEPT[store.path] = (state, built)
    return built


def _build(part: ScopeWindow, store: VectorStore) -> WindowVectors:
    import numpy as np

    rows = window_keys(part.conn, None if part.everything else (part.where, part.values))
    spans, flat = store.stacked()
    position = {key: n for n, key in enumerate(spans)}
    have = [(doc, key) for doc, key in rows if key in position]
    return WindowVectors(
        docs=[doc for doc, _key in have],
        pick=np.fromiter((position[key] for _doc, key in have), np.int64, len(have)),
        starts=np.fromiter((first for first, _n in spans.values()), np.int64, len(spans)),
        position=position,
        missing=[(doc, key) for doc, key in rows if key not in position],
        flat=flat,
    )


def window_keys(conn: sqlite3.Connection, window: tuple[str, list[str]] | None) -> list[tuple[int, str]]:
    """(doc, vector key) of the index's episodes in the window (None: all of them), newest first: the window from
    the docs' covering index and the keys from the files table, apart (joined in SQL, every docs row would be
    read, blobs and all)."""
    found = conn.execute("SELECT doc, sha FROM files WHERE doc IS NOT NULL ORDER BY doc DESC")
    if window is None:
        return [(doc, "f:" + sha) for doc, sha in found]
    where, values = window
    inside = {doc for (doc,) in conn.execute(f"SELECT d.id FROM docs d WHERE {where}", values)}
    return [(doc, "f:" + sha) for doc, sha in found if doc in inside]
