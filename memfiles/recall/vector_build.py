"""Building a scope's vectors (the `memfiles[semantic]` extra) outside a read: `mem doctor --reindex`, and the
write path when the model is already loaded in the process (`mem mcp`, the Python API), so writes never wait
for a model to load. A read catches up on its own within its time budget (memfiles.recall.hybrid).
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memfiles.format.layout import Paths, Scope
from memfiles.recall import vectors
from memfiles.recall.index_records import decode_episode

if TYPE_CHECKING:
    from memfiles.recall.embedder import Embedder

Tick = Callable[[int, int], None]
BATCH = 32


def rebuild(paths: Paths, scope: Scope, model: Embedder, tick: Tick | None = None) -> int:
    """Throw away the scope's vectors (every model's) and embed its episodes and facts again; how many."""
    for path in vectors.files_of(paths, scope):
        vectors.remove(path)
    return catch_up(paths, scope, model, tick, bulk=True)


def catch_up(
    paths: Paths,
    scope: Scope,
    model: Embedder,
    tick: Tick | None = None,
    seconds: float | None = None,
    *,
    bulk: bool = False,
) -> int:
    """Embed the scope's indexed episodes and current facts that have no vector yet (within `seconds`, if given).

    `bulk`: the episodes by the model's int8 copy (memfiles.recall.embedder), as a reindex does; facts, few and
    short, always by the model as shipped, the precision a question meeting a fact needs."""
    from memfiles.recall import hybrid
    from memfiles.recall.index_file import IndexUnavailable, connect
    from memfiles.recall.window_vectors import window_keys
    from memfiles.store.files import read_memory

    deadline = None if seconds is None else time.monotonic() + seconds
    store = vectors.VectorStore(paths, scope, model.id)
    done = 0
    try:
        have = {key for (key,) in store.conn.execute("SELECT key FROM vectors")}
        facts = [f for f in read_memory(paths, scope).facts if f.is_current]
        wanted_facts = {vectors.text_key(vectors.fact_texts(f)): (f.id, vectors.fact_texts(f)) for f in facts}
        missing_facts = {k: v for k, v in wanted_facts.items() if k not in have}
        rows: list[tuple[int, str]] = []
        try:
            conn = connect(paths, scope, create=False)
        except IndexUnavailable:
            conn = None
        try:
            if conn is not None:
                rows = [(doc, key) for doc, key in window_keys(conn, None) if key not in have]
            total = len(rows) + len(missing_facts)
            if missing_facts:
                hybrid.embed_all(model, missing_facts, store)
                done += len(missing_facts)
                if tick:
                    tick(done, total)
            for start in range(0, len(rows), BATCH):
                if deadline is not None and time.monotonic() > deadline:
                    break
                assert conn is not None
                batch = rows[start : start + BATCH]
                hybrid.embed_all(model, indexed_wanted(conn, batch), store, bulk=bulk)
                done += len(batch)
                if tick:
                    tick(done, total)
        finally:
            if conn is not None:
                conn.close()
    finally:
        store.close()
    return done


def indexed_wanted(conn: sqlite3.Connection, rows: Sequence[tuple[int, str]]) -> dict[str, tuple[str, list[str]]]:
    """What to embed for `rows` ((doc, vector key) of a recall index): each key -> (episode id, its passages)."""
    keys = dict(rows)
    marks = ",".join("?" * len(keys))
    blobs = conn.execute(f"SELECT id, episode, sig FROM docs WHERE id IN ({marks})", list(keys)).fetchall()
    episodes = [(doc, decode_episode(conn, blob, sig)) for doc, blob, sig in blobs]
    return {keys[doc]: (e.id, vectors.episode_passages(e)) for doc, e in episodes}


def after_write(paths: Paths, scope: Scope) -> None:
    """The write path's hook: embed what the write added, only if this process has the model loaded already."""
    module = sys.modules.get("memfiles.recall.embedder")
    model = module.loaded() if module is not None else None
    if model is None:
        return
    from memfiles.recall.embedder import ModelUnavailable
    from memfiles.recall.index_file import IndexUnavailable

    with contextlib.suppress(sqlite3.Error, OSError, IndexUnavailable, ModelUnavailable):  # the next read catches up
        catch_up(paths, scope, model, seconds=5.0)
