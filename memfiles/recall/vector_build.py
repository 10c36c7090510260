"""Building a scope's vectors (the `memfiles[semantic]` extra) outside a read: every write, for what it wrote
(`after_write`), `mem doctor --fix` and `mem sync` for what has none yet (`catch_up`), `mem doctor --reindex`
for everything (`rebuild`). A read embeds the facts that have none and catches up on episodes within its
time budget (memfiles.recall.hybrid).

A write never fails for the model's sake: it is stored, a failure to embed is recorded in the home's health
file and said once (memfiles.store.health), and the next read or `mem doctor --fix` catches up.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memfiles.format.layout import Paths, Scope, is_episode_name
from memfiles.recall import vectors

if TYPE_CHECKING:
    from memfiles.format.config import Config
    from memfiles.recall.embedder import Embedder

log = logging.getLogger("memfiles")

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
    from memfiles.recall.window_vectors import window_keys
    from memfiles.store.files import read_memory

    deadline = None if seconds is None else time.monotonic() + seconds
    store = vectors.VectorStore(paths, scope, model.id)
    done = 0
    try:
        have = store.keys()
        facts = [f for f in read_memory(paths, scope).facts if f.is_current]
        wanted_facts = {vectors.text_key(vectors.fact_texts(f)): (f.id, vectors.fact_texts(f)) for f in facts}
        missing_facts = {k: v for k, v in wanted_facts.items() if k not in have}
        rows: list[tuple[int, str]] = []
        conn = _index(paths, scope)
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
    from memfiles.recall.index_records import decode_episode

    keys = dict(rows)
    marks = ",".join("?" * len(keys))
    blobs = conn.execute(f"SELECT id, episode, sig FROM docs WHERE id IN ({marks})", list(keys)).fetchall()
    episodes = [(doc, decode_episode(conn, blob, sig)) for doc, blob, sig in blobs]
    return {keys[doc]: (e.id, vectors.episode_passages(e)) for doc, e in episodes}


def _index(paths: Paths, scope: Scope) -> sqlite3.Connection | None:
    """The scope's recall index brought up to date (None when the scope has no episodes or it cannot be used)."""
    from memfiles.recall.index_file import IndexUnavailable, connect
    from memfiles.recall.index_refresh import refresh

    if not paths.episodes_dir(scope).is_dir():
        return None
    try:
        conn = connect(paths, scope)
    except IndexUnavailable:
        return None
    try:
        refresh(conn, paths, scope)
    except (sqlite3.Error, OSError):
        conn.close()
        return None
    return conn


def missing(paths: Paths, scope: Scope, model_id: str) -> tuple[int, int]:
    """How many of the scope's current facts and shown episodes have no vector of this model yet."""
    from memfiles.recall.window_vectors import window_keys
    from memfiles.store.files import read_memory

    path = vectors.path_of(paths, scope, model_id)
    have: set[str] = set()
    if path.exists() and vectors.trouble(path) is None:  # a bad file is doctor's other check: left as it is
        store = vectors.VectorStore(paths, scope, model_id)
        try:
            have = store.keys()
        finally:
            store.close()
    facts = [f for f in read_memory(paths, scope).facts if f.is_current]
    no_fact = sum(vectors.text_key(vectors.fact_texts(f)) not in have for f in facts)
    conn = _index(paths, scope)
    if conn is None:
        return no_fact, 0
    try:
        return no_fact, sum(key not in have for _doc, key in window_keys(conn, None))
    finally:
        conn.close()


def after_write(paths: Paths, scope: Scope, relpaths: Sequence[str], config: Config) -> None:
    """The write path's last step: embed what the write stored (its episodes, the scope's facts), in this process.

    Never raises (but for an interrupt): a failure is recorded and said once; the memory is stored either way.
    """
    from memfiles.recall import embedder
    from memfiles.store import health

    try:
        model = embedder.load(embedder.model_files(config), cache=paths.cache)
        embed_written(paths, scope, relpaths, model)
    except Exception as exc:  # onnxruntime, tokenizers, SQLite, the file system: none may fail a stored write
        why = str(exc) or type(exc).__name__
        if health.record(paths, "embedding", False, why):
            log.warning(
                "stored, but not embedded for recall by meaning (%s); the next recall or `mem doctor --fix` "
                "embeds it once the model loads",
                why,
            )
        return
    health.record(paths, "embedding", True)


def embed_written(paths: Paths, scope: Scope, relpaths: Sequence[str], model: Embedder) -> int:
    """Embed the scope's current facts that have no vector and the episode files among `relpaths` (home-relative)
    that have none; how many were embedded. An episode the guard holds back is not embedded (nor shown)."""
    from memfiles.errors import FileFormatError
    from memfiles.format import episodes
    from memfiles.ops.quarantine import withheld
    from memfiles.recall import hybrid
    from memfiles.store.files import read_memory

    store = vectors.VectorStore(paths, scope, model.id)
    try:
        facts = [f for f in read_memory(paths, scope).facts if f.is_current]
        wanted_facts = {vectors.text_key(vectors.fact_texts(f)): (f.id, vectors.fact_texts(f)) for f in facts}
        wanted_episodes: dict[str, tuple[str, list[str]]] = {}
        prefix = paths.relative(paths.episodes_dir(scope)) + "/"
        for relpath in relpaths:
            if not (relpath.startswith(prefix) and is_episode_name(relpath.rsplit("/", 1)[-1])):
                continue
            try:
                data = (paths.root / relpath).read_bytes()
                episode = episodes.parse(data, relpath, expected_scope=str(scope))
            except (OSError, FileFormatError):
                continue  # removed by this write, or broken: nothing to embed
            if not withheld(episode):
                wanted_episodes["f:" + hashlib.sha1(data).hexdigest()] = (episode.id, vectors.episode_passages(episode))
        have = store.known([*wanted_facts, *wanted_episodes])
        todo = [(k, v) for k, v in (wanted_facts | wanted_episodes).items() if k not in have]
        for start in range(0, len(todo), BATCH):
            hybrid.embed_all(model, dict(todo[start : start + BATCH]), store)
        return len(todo)
    finally:
        store.close()
