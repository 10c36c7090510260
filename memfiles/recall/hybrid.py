"""Hybrid recall (the `memfiles[semantic]` extra): the lexical ranking, then a separate fusion step by meaning.

1. The lexical ranker (memfiles.recall.ranking.rank) runs as always, with a wider cut (POOL per kind)
   and no threshold, so every item it finds comes with its lexical relevance.
2. The query is embedded; each believed fact and each in-range episode (as-of, --since/--until, the same
   window as the lexical side) is scored by cosine — an episode by its best passage. The POOL best join
   the candidates.
3. Per kind, both scores are normalised over the candidates (each ÷ the best candidate's) and fused:
   WEIGHT · lexical + (1 − WEIGHT) · semantic. Normalised-score fusion beat rank fusion (k=60) in the
   issue's probe; dividing by the best beat min-max, which stretches the small differences between
   long sessions' best passages into noise (docs/FORMAT.md, "Recall by meaning").
4. The threshold stays: an item is kept only if its own lexical relevance reaches --min-score or its
   cosine reaches SEMANTIC_MIN, so a question about something never stored still returns nothing.
   Episodes are then weighted by recency as the lexical ranking weighs them (a bounded prior,
   ranking.recency); a key hit still ranks first; ties go newest first.

Vectors come from memfiles.recall.vectors: every write embeds what it stores (memfiles.recall.vector_build).
What has none yet (a pull, a hand edit, a home written before the extra was installed) is embedded by the
read: every fact (a scope has few), and episodes, newest first, while the read's time budget lasts
(READ_BUDGET_S, counted from when the model is loaded); the rest is ranked by its lexical score alone,
which the caller is told, with the command that embeds them all.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar

from memfiles import clock
from memfiles.clock import When
from memfiles.format.layout import Paths
from memfiles.recall import ranking, vectors
from memfiles.recall.index_records import decode_document, decode_episode
from memfiles.recall.ranking import Item, Options, Relevance, ScopeMemory

T = TypeVar("T")

if TYPE_CHECKING:
    from memfiles.recall.embedder import Embedder, Matrix, ModelFiles
    from memfiles.recall.indexed import IndexedEpisodes

WEIGHT = 0.5  # share of the lexical score in the fusion (0.5/0.5 was best on the dev data)
POOL = 50  # candidates per kind from the semantic side
LEXICAL_POOL = 10  # episodes from the lexical side, at least (all its facts are candidates)
TOGETHER = 3  # facts stated at one moment from one source, at most this many, were told together
SEMANTIC_MIN = 0.2  # cosine an item needs to pass the threshold on meaning alone
NORMALISE = "max"  # cosines ÷ the best candidate's ("minmax" stretched noise: session R@1 fell 9 points)
READ_BUDGET_S = 0.3  # seconds a read may spend embedding episodes that have no vector yet (after the model loads)
EMBED_BATCH = 4  # episodes a read embeds at a time (about one model batch of passages), the deadline checked between


@dataclass(slots=True)
class Scored:
    item: Item
    lexical: float  # the item's own lexical relevance (0 when the lexical ranker did not find it)
    cosine: float | None  # None: no vector yet


@dataclass(slots=True)
class Semantic:
    """One hybrid read: which model, the time budget for embedding, and what to tell the caller.

    The model is loaded on first use (once per process), so a read that finds a scope's vectors not built
    yet answers by words without paying for the load.
    """

    files: ModelFiles
    model_id: str
    paths: Paths
    budget_s: float  # seconds this read may spend embedding episodes, from its first batch (the model loaded)
    notes: list[str] = field(default_factory=list)
    stores: dict[str, vectors.VectorStore] = field(default_factory=dict)
    deadline: float | None = None  # set by the first batch `embed_in_budget` embeds

    @property
    def embedder(self) -> Embedder:
        from memfiles.recall import embedder

        return embedder.load(self.files, cache=self.paths.cache)

    def store(self, scope: str) -> vectors.VectorStore:
        if scope not in self.stores:
            from memfiles.format.layout import parse_scope

            self.stores[scope] = vectors.VectorStore(self.paths, parse_scope(scope), self.model_id, self.notes)
        return self.stores[scope]

    def close(self) -> None:
        for store in self.stores.values():
            store.close()
        self.stores.clear()

    def rank(
        self, memories: list[ScopeMemory], query: str, now: When, options: Options, indexed: IndexedEpisodes | None
    ) -> list[Item]:
        """recall.rank's result, hybrid (see the module); by words only, with a note, where the model cannot be
        loaded or run. The vector files are closed after."""
        from memfiles.recall.embedder import ModelUnavailable

        try:
            return rank(self, memories, query, now, options, indexed)
        except ModelUnavailable as exc:
            self.notes.append(f"recall: ranked by words only: {exc}")
        except sqlite3.DatabaseError as exc:  # a vector file gone bad while in use: never a traceback
            for store in self.stores.values():
                if vectors.trouble(store.path) is not None:
                    store.close()
                    vectors.remove(store.path)
            self.notes.append(
                f"recall: ranked by words only: the vector cache could not be read ({exc}); it is being rebuilt "
                "(`mem doctor --fix` rebuilds it now)"
            )
        except OSError as exc:  # a vector file, or this machine's key that vouches for it, cannot be read
            self.notes.append(f"recall: ranked by words only: the vector cache cannot be used ({exc})")
        finally:
            self.close()
        return ranking.rank(memories, query, now, options, indexed)

    def vectors_for(
        self, scope: str, wanted: dict[str, Wanted], *, whatever_the_budget: bool = False
    ) -> dict[str, Matrix]:
        """Vectors of `wanted` (key -> (ref, passages)): the stored ones, and missing ones embedded (in the budget,
        or all of them: a scope's facts are few, and a fact without its vector would go unfound)."""
        store = self.store(scope)
        found = store.get(wanted)
        missing = [key for key in wanted if key not in found]
        if missing and whatever_the_budget:
            found.update(embed_all(self.embedder, {key: wanted[key] for key in missing}, store))
        elif missing:
            found.update(self.embed_in_budget(store, missing, lambda keys: {key: wanted[key] for key in keys}))
        return found

    def embed_in_budget(
        self, store: vectors.VectorStore, items: Sequence[T], wanted: Callable[[Sequence[T]], dict[str, Wanted]]
    ) -> dict[str, Matrix]:
        """Embed and store `items` EMBED_BATCH at a time (`wanted` makes a batch's key -> (ref, passages), so that
        nothing past the deadline is even read) while the read's budget lasts; the vectors by key."""
        found: dict[str, Matrix] = {}
        for start in range(0, len(items), EMBED_BATCH):
            model = self.embedder  # loaded first: the budget runs from then
            if self.deadline is None:
                self.deadline = time.monotonic() + self.budget_s
            if time.monotonic() >= self.deadline:
                break
            found.update(embed_all(model, wanted(items[start : start + EMBED_BATCH]), store))
        return found


Wanted = tuple[str, list[str]]  # (the episode or fact id, the passages to embed)


def embed_all(
    embedder: Embedder, wanted: dict[str, Wanted], store: vectors.VectorStore, *, bulk: bool = False
) -> dict[str, Matrix]:
    """Embed each key's passages and store them; the vectors by key. `bulk`: by the model's int8 copy (a reindex)."""
    keys = list(wanted)
    texts = [text for key in keys for text in wanted[key][1]]
    matrix = embedder.embed_bulk(texts) if bulk else embedder.embed(texts)
    out: dict[str, Matrix] = {}
    row = 0
    for key in keys:
        n = len(wanted[key][1])
        out[key] = matrix[row : row + n]
        row += n
    store.put((key, wanted[key][0], m) for key, m in out.items())
    return out


def rank(
    session: Semantic,
    memories: list[ScopeMemory],
    query: str,
    now: When,
    options: Options,
    indexed: IndexedEpisodes | None = None,
) -> list[Item]:
    """The recalled items as ranking.rank returns them (facts first, each kind best first, cut to its k)."""
    # The lexical side's candidates: every fact it finds, and a few more episodes than asked for (the
    # semantic side brings POOL of its own; a wider lexical cut only slows the index's early stop).
    if not query.strip():
        return ranking.rank(memories, query, now, options, indexed)  # everything in range: nothing to mean
    options = replace(options, recency_weight=ranking.recency_weight(options, query))
    wide = replace(options, min_score=1e-9, k_facts=10**9, k_episodes=max(LEXICAL_POOL, 2 * options.k_episodes))
    lexical = ranking.rank(memories, query, now, wide, indexed)
    reference = options.as_of or now
    q = session.embedder.embed([query])[0]
    scope_order = {memory.scope: n for n, memory in enumerate(memories)}
    chosen: list[Item] = []
    if options.kind in ("all", "facts"):
        found = {item.id: Scored(item, item.relevance.score, None) for item in lexical if item.episode is None}
        _fact_cosines(session, memories, q, reference, options, found)
        chosen += _fuse(list(found.values()), options, reference, options.k_facts, scope_order)
    if options.kind in ("all", "episodes"):
        found = {item.id: Scored(item, item.relevance.score, None) for item in lexical if item.episode is not None}
        if indexed is not None:
            _indexed_cosines(session, indexed, query, q, reference, options, found)
        else:
            _file_cosines(session, memories, q, reference, options, found)
        chosen += _fuse(list(found.values()), options, reference, options.k_episodes, scope_order)
    return chosen


def _fact_cosines(
    session: Semantic,
    memories: list[ScopeMemory],
    q: Matrix,
    reference: When,
    options: Options,
    found: dict[str, Scored],
) -> None:
    for memory in memories:
        items = ranking.fact_items(memory.scope, ranking.believed(memory.facts, reference, bool(options.as_of)))
        keys = {id(item): [vectors.text_key(vectors.fact_texts(f)) for f in item.facts] for item in items}
        wanted = {
            k: (f.id, vectors.fact_texts(f)) for item in items for k, f in zip(keys[id(item)], item.facts, strict=True)
        }
        stored = session.vectors_for(memory.scope, wanted, whatever_the_budget=True)
        missing = 0
        for item in items:
            rows = [stored[k] for k in keys[id(item)] if k in stored]
            if not rows:
                missing += 1
                continue
            cosine = max(float((m @ q).max()) for m in rows)
            scored = found.setdefault(item.id, Scored(item, 0.0, None))
            scored.cosine = cosine
        _note_missing(session, memory.scope, "facts", missing, len(items))


def _file_cosines(
    session: Semantic,
    memories: list[ScopeMemory],
    q: Matrix,
    reference: When,
    options: Options,
    found: dict[str, Scored],
) -> None:
    for memory in memories:
        episodes = [e for e in memory.episodes if ranking.in_range(e, options, reference)]
        passages = {e.id: vectors.episode_passages(e) for e in episodes}
        keys = {e.id: vectors.text_key(passages[e.id]) for e in episodes}
        stored = session.vectors_for(memory.scope, {keys[e.id]: (e.id, passages[e.id]) for e in reversed(episodes)})
        scores = [(float((stored[keys[e.id]] @ q).max()), e) for e in episodes if keys[e.id] in stored]
        _note_missing(session, memory.scope, "episodes", len(episodes) - len(scores), len(episodes))
        for cosine, episode in sorted(scores, key=lambda s: -s[0])[:POOL]:
            item = Item("episode", memory.scope, 0.0, Relevance(0.0), episode=episode)
            found.setdefault(item.id, Scored(item, 0.0, None)).cosine = cosine
        for scored in found.values():  # the lexical pool's own cosines
            if scored.cosine is None and scored.item.scope == memory.scope and scored.item.episode is not None:
                key = keys.get(scored.item.episode.id)
                if key in stored:
                    scored.cosine = float((stored[key] @ q).max())


def _indexed_cosines(
    session: Semantic,
    indexed: IndexedEpisodes,
    query: str,
    q: Matrix,
    reference: When,
    options: Options,
    found: dict[str, Scored],
) -> None:
    import numpy as np

    from memfiles.recall import window_vectors

    prepared = ranking.prepare(query, indexed.corpus, reference)
    for part in indexed.parts:
        store = session.store(part.scope)
        window = window_vectors.of(part, store)
        if window.missing and _embed_missing(session, part.conn, window.missing, store):
            window = window_vectors.of(part, store)  # what this read embedded is in the store now
        _note_missing(session, part.scope, "episodes", len(window.missing), len(window.docs) + len(window.missing))
        if not window.docs:
            continue
        each, cosines = window.cosines(q)
        best = np.argsort(-cosines, kind="stable")[:POOL]  # equal cosines: newest first
        top = {window.docs[n]: float(cosines[n]) for n in best}
        marks = ",".join("?" * len(top))
        for _doc, blob, sig, document in part.conn.execute(
            f"SELECT id, episode, sig, document FROM docs WHERE id IN ({marks})", list(top)
        ):
            episode = decode_episode(part.conn, blob, sig)  # raises IndexTampered
            if episode.id not in found:
                relevance = ranking.score_document(prepared, decode_document(document))
                item = Item("episode", part.scope, 0.0, relevance, episode=episode)
                found[episode.id] = Scored(item, relevance.score, None)
            found[episode.id].cosine = top[_doc]
        lexical_only = [s for s in found.values() if s.cosine is None and s.item.scope == part.scope]
        refs = store.refs([s.item.id for s in lexical_only])
        for scored in lexical_only:  # the lexical pool's own cosines, by the keys stored for their ids
            keys = [key for key in refs.get(scored.item.id, []) if key in window.position]
            known = [float(each[window.position[key]]) for key in keys]
            if known:
                scored.cosine = max(known)


def _embed_missing(
    session: Semantic, conn: sqlite3.Connection, missing: list[tuple[int, str]], store: vectors.VectorStore
) -> bool:
    """Embed the episodes of `missing` ((doc, key), newest first) while the read's budget lasts; whether any was."""
    from memfiles.recall.vector_build import indexed_wanted

    return bool(session.embed_in_budget(store, missing, lambda batch: indexed_wanted(conn, batch)))


def _note_missing(session: Semantic, scope: str, what: str, missing: int, total: int) -> None:
    if missing:
        session.notes.append(
            f"recall: {missing:,} of {total:,} {what} of {scope} have no vectors yet and were ranked by their "
            "words only; `mem doctor --fix` embeds them all now (each recall embeds some)"
        )


def _fuse(
    candidates: list[Scored], options: Options, reference: When, limit: int, scope_order: dict[str, int]
) -> list[Item]:
    if not candidates:
        return []
    lexical_best = max((min(c.lexical, 1.0) for c in candidates), default=0.0)
    cosines = [c.cosine for c in candidates if c.cosine is not None]
    low, high = (min(cosines), max(cosines)) if cosines else (0.0, 0.0)
    kept: list[Item] = []
    left: list[Item] = []
    for c in candidates:
        relevance = c.item.relevance
        own = ranking.own_relevance(relevance)
        meaning = c.cosine is not None and c.cosine >= SEMANTIC_MIN
        if not (relevance.key_hit or (own > 0 and own >= options.min_score) or meaning):
            c.item.lexical, c.item.semantic = c.lexical, c.cosine
            left.append(c.item)
            continue
        lexical = min(c.lexical, 1.0) / lexical_best if lexical_best > 0 else 0.0
        semantic = lexical  # no vector yet: its words alone rank it
        if c.cosine is not None and NORMALISE == "max":
            semantic = max(c.cosine, 0.0) / high if high > 0 else 0.0
        elif c.cosine is not None:
            semantic = (c.cosine - low) / (high - low) if high > low else 1.0
        fused = WEIGHT * lexical + (1 - WEIGHT) * semantic
        item = c.item
        item.lexical, item.semantic = c.lexical, c.cosine
        item.relevance = replace(relevance, score=fused + (1.0 if relevance.key_hit else 0.0))
        if item.episode is not None:
            item.age_days = clock.age_days(item.episode.started_at, reference)
            item.decay = ranking.recency(item.age_days, options.half_life_days, options.recency_weight)
        item.score = item.relevance.score * item.decay
        kept.append(item)
    kept += _told_together(kept, left)
    kept.sort(key=lambda i: (clock.order(i.date), i.id), reverse=True)  # equal scores go newest first
    kept.sort(key=lambda i: (-i.score, scope_order[i.scope]))
    return kept[:limit]


def _told_together(kept: list[Item], left: list[Item]) -> list[Item]:
    """Facts told with a kept fact (one moment, one source, a small group) follow it at half its score.

    "We're on the Enterprise plan, and email notifications only" is one statement: a question that
    finds the channel by meaning gets the plan too. An import of many facts at once is no statement.
    """

    def told(item: Item) -> tuple[str, str] | None:
        fact = item.facts[0] if item.kind == "fact" else None
        return (clock.iso(fact.stated_at), fact.source_ref or fact.source) if fact is not None else None

    groups: dict[tuple[str, str], int] = {}
    for item in kept + left:
        moment = told(item)
        if moment is not None:
            groups[moment] = groups.get(moment, 0) + 1
    best: dict[tuple[str, str], float] = {}
    for item in kept:
        moment = told(item)
        if moment is not None and groups[moment] <= TOGETHER:
            best[moment] = max(best.get(moment, 0.0), item.score)
    joined = []
    for item in left:
        moment = told(item)
        if moment in best:
            item.relevance = replace(item.relevance, score=ranking.CONTEXT_WEIGHT * best[moment], context=best[moment])
            item.score = item.relevance.score
            joined.append(item)
    return joined


def open_session(paths: Paths, files: ModelFiles | None = None, budget_s: float | None = None) -> Semantic:
    """A hybrid read's session: the model's files (checked; raises ModelUnavailable) and the embedding budget.
    The model itself is loaded when the read first needs it (`Semantic.embedder`).

    `budget_s`: seconds the read may spend embedding episodes that have no vector yet, counted from when the
    model is loaded (READ_BUDGET_S by default); facts without a vector are always embedded.
    """
    from memfiles.recall import embedder

    chosen = files or embedder.ModelFiles.default()
    return Semantic(chosen, chosen.id, paths, READ_BUDGET_S if budget_s is None else budget_s)
