"""Recall (FORMAT.md, "Recall"): which facts and episodes a query brings back, and in what order.

Pure: facts, episodes, a query and "now" in; ranked items with their scores out. No file is read here.
- Relevance of each fact or episode comes from memfiles.recall.relevance (words, dates, BM25 frequency,
  passages, typos); relevance is at most 1 unless a fact's key is named (an exact key hit, ranked first).
- An episode next to matching episodes of the same session gets part of their relevance (context).
- Facts never decay. Recency is a bounded prior on episodes (FORMAT.md, "Recency"): an episode's score is
  relevance × (1 − w · (1 − exp(-ln2 · age_days / half_life))), w = RECENCY_WEIGHT (0.05) by default, so a
  year-old episode keeps at least 95 % of its relevance: among episodes of similar relevance the recent
  one wins, and a clearly more relevant old one still beats a weakly relevant new one. w = 1 is full
  decay (an explicit --half-life or `recency_weight = 1`); a query that asks for the latest ("recently",
  "the latest on …") and names no date weighs recency at least LATEST_WEIGHT.
- Below the relevance threshold nothing is returned: nothing is better than noise.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol

from memfiles import clock
from memfiles.clock import When
from memfiles.format.episodes import Episode
from memfiles.format.model import Fact
from memfiles.ops.supersession import valid_at
from memfiles.recall.relevance import (
    Corpus,
    Document,
    DocumentCorpus,
    Query,
    Relevance,
    ceiling,
    episode_document,
    fact_document,
    matching_terms,
    prepare,
    score_document,
    stand_ins,
)
from memfiles.recall.words import STOPWORDS, stem, terms

# Re-exported: the scoring interface has lived here since issue 3, and the index implements Corpus from it.
__all__ = [
    "STOPWORDS",
    "Corpus",
    "Document",
    "DocumentCorpus",
    "Query",
    "Relevance",
    "episode_document",
    "fact_document",
    "matching_terms",
    "prepare",
    "score_document",
    "stem",
    "terms",
]

MIN_SCORE = 0.3  # default relevance threshold (--min-score)
RECENCY_WEIGHT = 0.05  # the most recency may take from an episode's score (FORMAT.md, "Recency")
LATEST_WEIGHT = 0.5  # at least this when the query asks for the latest ("recently", "the latest on …")
# Invariant (relied on by rank's indexed path): an episode's relevance, session context included, never
# exceeds this (only a fact's key hit does), so no neighbour can lend an episode more context than from this.
MAX_RELEVANCE = 1.0
CONTEXT_WEIGHT = 0.5  # share of the best neighbour's relevance an episode of the same session gains
CONTEXT_SPAN = 2  # neighbours: up to this many episodes either side in the session's time order


def decay(age_days: float, half_life_days: float) -> float:
    """Recency weight exp(-ln2 · age / half_life): 1 today, 0.5 after one half-life; 1 when half_life is 0."""
    if half_life_days <= 0:
        return 1.0
    return math.exp(-math.log(2) * age_days / half_life_days)


def recency(age_days: float, half_life_days: float, weight: float) -> float:
    """An episode's recency factor: 1 − weight · (1 − decay), between 1 − weight and 1 (weight 1: `decay` itself)."""
    return 1.0 - weight * (1.0 - decay(age_days, half_life_days))


def recency_weight(options: Options, query: str) -> float:
    """The weight recency gets for this query: the options' own, and at least LATEST_WEIGHT when the query asks
    for the latest and names no date (a date it names narrows by date instead)."""
    from memfiles.recall.timeterms import asks_latest

    if query and options.recency_weight < LATEST_WEIGHT and asks_latest(query):
        return LATEST_WEIGHT
    return options.recency_weight


@dataclass(slots=True)
class ScopeMemory:
    """One scope's stored memory as read from disk: its facts and (already time-filtered) episodes."""

    scope: str
    facts: list[Fact]
    episodes: list[Episode]


@dataclass(frozen=True, slots=True)
class Options:
    """What `mem recall` asks for."""

    k_facts: int = 5
    k_episodes: int = 3
    kind: str = "all"  # all | facts | episodes
    min_score: float = MIN_SCORE
    half_life_days: float = 30.0
    recency_weight: float = RECENCY_WEIGHT  # 1: full decay (see `recency`)
    since: When | None = None
    until: When | None = None
    as_of: When | None = None
    stale_after: Mapping[str, int] = field(default_factory=dict)  # mem.toml [stale_after_days], by subject


@dataclass(slots=True)
class Item:
    """One recalled item: a fact, a conflict (two or more facts of one key) or an episode, with its scores."""

    kind: str  # fact | conflict | episode
    scope: str
    score: float
    relevance: Relevance
    decay: float = 1.0
    age_days: float | None = None
    facts: list[Fact] = field(default_factory=list)
    episode: Episode | None = None
    # Set by the hybrid ranking only (memfiles.recall.hybrid): the item's own lexical relevance and its
    # cosine to the query (None: no vector yet); its relevance.score is then the fused one.
    lexical: float | None = None
    semantic: float | None = None
    # A fact not confirmed within its subject's [stale_after_days]: the day it was last confirmed (recall.stale).
    stale: When | None = None

    @property
    def id(self) -> str:
        return self.episode.id if self.episode else "+".join(f.id for f in self.facts)

    @property
    def date(self) -> When:
        return self.episode.started_at if self.episode else max((f.stated_at for f in self.facts), key=clock.order)

    def why(self) -> str:
        """Why this item was chosen, in a few words (for --explain)."""
        parts = ["key hit"] if self.relevance.key_hit else []
        if self.relevance.matched:
            parts.append("matched " + ", ".join(self.relevance.matched))
        if self.relevance.context:
            parts.append(f"next to a match in its session ({self.relevance.context:.2f})")
        if self.lexical is not None:
            meaning = "no vector yet" if self.semantic is None else f"{self.semantic:.3f}"
            parts.append(f"lexical {self.lexical:.3f}, semantic {meaning}, fused {self.relevance.score:.3f}")
        if self.episode is not None and self.age_days is not None:
            parts.append(f"{self.age_days:.1f} days old, recency ×{self.decay:.3f}")
        return "; ".join(parts) or "no query: everything in range"


def believed(facts: list[Fact], when: When, as_of: bool) -> list[Fact]:
    """The facts believed at `when`: the current set now, or those valid then (`--as-of`, world time)."""
    if as_of:
        return [f for f in facts if valid_at(f, when)]
    return [f for f in facts if f.is_current and valid_at(f, when)]


def fact_items(scope: str, facts: list[Fact]) -> list[Item]:
    """One item per key: a fact, or a conflict when two or more facts of the key are believed at once."""
    by_key: dict[str, list[Fact]] = {}
    for fact in sorted(facts, key=lambda f: (f.key, clock.order(f.stated_at), f.id)):
        by_key.setdefault(fact.key, []).append(fact)
    return [
        Item("fact" if len(group) == 1 else "conflict", scope, 0.0, Relevance(0.0), facts=group)
        for group in by_key.values()
    ]


def in_range(episode: Episode, options: Options, reference: When) -> bool:
    """Whether an episode falls in the time range: started by `reference`, and within --since/--until."""
    started = episode.started_at
    if clock.compare(started, reference) > 0:
        return False
    if options.since and clock.compare(started, options.since) < 0:
        return False
    return not (options.until and clock.compare(started, options.until) > 0)


@dataclass(slots=True)
class Candidate:
    """An in-range episode an index offers, with what ranking needs before reading it.

    `latest` (seconds since the epoch) is no earlier than the episode's start, so its recency factor bounds the
    episode's from above; `held` the query terms it holds, itself or through a stand-in (relevance.stand_ins);
    `passages` how many passages its document has (relevance.ceiling); `alone` whether no other episode shares
    its session (then no context can raise it). `document()` and `episode()` read and check what the index
    stores under `doc`, which only a candidate that can still win needs (None: it is gone since it was listed,
    as when another process brought the index up to date)."""

    scope: str
    latest: float
    held: frozenset[str]
    passages: int
    alone: bool
    doc: int
    read: Callable[[int], Document | None]
    load: Callable[[int], Episode | None]

    def document(self) -> Document | None:
        return self.read(self.doc)

    def episode(self) -> Episode | None:
        return self.load(self.doc)


class EpisodeSource(Protocol):
    """In-range episodes supplied by an index instead of ScopeMemory lists (memfiles.recall.indexed implements it)."""

    @property
    def corpus(self) -> Corpus:
        """Statistics over every episode in range, across the scopes asked."""
        ...

    def newest_first(self, terms: Mapping[str, frozenset[str]] | None) -> Iterable[Candidate]:
        """The in-range episodes holding any stand-in of any of the query's `terms` (all when None), newest first."""
        ...

    def session(self, scope: str, session: str) -> list[tuple[Episode, Document]]:
        """Every in-range episode of one scope's session, with its document (any order); [] when it has only one."""
        ...


def rank(
    memories: list[ScopeMemory], query: str, now: When, options: Options, indexed: EpisodeSource | None = None
) -> list[Item]:
    """The recalled items, facts (and conflicts) first, each kind best first and cut to its k.

    With `indexed`, episodes come from it instead of `memories` (whose episode lists are then empty);
    the result is the same.
    """
    reference = options.as_of or now
    options = replace(options, recency_weight=recency_weight(options, query))
    facts: list[Item] = []
    episodes: list[Item] = []
    for memory in memories:
        if options.kind in ("all", "facts"):
            facts += fact_items(memory.scope, believed(memory.facts, reference, bool(options.as_of)))
        if options.kind in ("all", "episodes"):
            episodes += [
                Item("episode", memory.scope, 0.0, Relevance(0.0), episode=e)
                for e in memory.episodes
                if in_range(e, options, reference)
            ]
    scope_order = {memory.scope: n for n, memory in enumerate(memories)}
    chosen: list[Item] = []
    for items, limit in ((facts, options.k_facts), (episodes, options.k_episodes)):
        if not items:
            continue
        # Rarity is measured within each kind, so asking for facts only does not change their scores.
        documents = {id(item): _documents(item) for item in items}
        prepared = prepare(query, DocumentCorpus(d for docs in documents.values() for d in docs), reference)
        for item in items:
            item.relevance = max((score_document(prepared, d) for d in documents[id(item)]), key=lambda r: r.score)
        near = neighbours(items) if items is episodes else {}
        kept = [item for item in items if _finish(item, near.get(id(item), 0.0), options, reference)]
        chosen += _best(kept, limit, scope_order)
    if indexed is not None and options.kind in ("all", "episodes"):
        chosen += _rank_indexed(indexed, query, options, reference, scope_order)
    return chosen


def _finish(item: Item, near: float, options: Options, reference: When) -> bool:
    """Add session context and decay to a scored item; False when its own relevance is below the threshold."""
    relevance = item.relevance
    if not relevance.key_hit and (relevance.score <= 0 or relevance.score < options.min_score):
        return False  # the threshold applies to an item's own relevance: context cannot lift noise
    if near:
        gain = CONTEXT_WEIGHT * near * (1 - relevance.score)  # stays at most 1
        item.relevance = replace(relevance, score=relevance.score + gain, context=near)
    if item.episode is not None:
        item.age_days = clock.age_days(item.episode.started_at, reference)
        item.decay = recency(item.age_days, options.half_life_days, options.recency_weight)
    item.score = item.relevance.score * item.decay
    return True


def own_relevance(relevance: Relevance) -> float:
    """An item's relevance without the session context `_finish` added to it (`context` is the neighbour's
    relevance, not what it added: score = own + CONTEXT_WEIGHT · context · (1 − own))."""
    if not relevance.context:
        return relevance.score
    lift = CONTEXT_WEIGHT * relevance.context
    return (relevance.score - lift) / (1 - lift)


def _best(kept: list[Item], limit: int, scope_order: dict[str, int]) -> list[Item]:
    kept.sort(key=lambda i: (clock.order(i.date), i.id), reverse=True)  # stable sorts: equal scores go newest first
    kept.sort(key=lambda i: (-i.score, scope_order[i.scope]))
    return kept[:limit]


def _rank_indexed(
    source: EpisodeSource, query: str, options: Options, reference: When, scope_order: dict[str, int]
) -> list[Item]:
    """Episodes from an index: only those holding a matching term, in the order of the most each can score (from
    the terms it holds, its session and its age), until none can win."""
    prepared = prepare(query, source.corpus, reference)
    wanted = None if prepared.everything else stand_ins(prepared)  # the INVARIANT of matching_terms
    unknown = frozenset(prepared.terms) - set(wanted or ())  # saying when: not in the postings asked, so maybe held
    kept: list[Item] = []
    best: list[float] = []  # the k highest scores so far (a min-heap)
    sessions: dict[tuple[str, str], list[tuple[tuple[object, ...], str, float]]] = {}
    now_s = clock.to_datetime(reference).timestamp()
    bounds: dict[tuple[frozenset[str], int], float] = {}  # the ceiling of each (held terms, passages): few distinct
    ranked = []
    for found in source.newest_first(wanted):
        shape = (found.held | unknown, found.passages)
        if shape not in bounds:
            bounds[shape] = ceiling(prepared, *shape)
        own = bounds[shape]
        if own <= 0 or own < options.min_score:
            continue  # even its best own relevance is below the threshold
        age = max(now_s - found.latest, 0.0) / 86400.0
        fading = recency(age, options.half_life_days, options.recency_weight)
        ranked.append((_most(own, fading, found.alone), fading, found))
    # The most any candidate can score, best first (equal bounds: newest first, as listed): once the next one's is
    # below the k-th best score found, no later one can enter the top k. Most are never read.
    ranked.sort(key=lambda entry: entry[0], reverse=True)
    for top, fading, found in ranked:
        if len(best) >= options.k_episodes and top * (1 + 1e-9) < best[0]:
            break
        document = found.document()
        if document is None:
            continue
        relevance = score_document(prepared, document)
        if not _may_win(relevance, fading, best, options, found.alone):
            continue  # below the threshold, or out of the top k even with the best session context
        scope, episode = found.scope, found.episode()  # read and checked only now
        if episode is None:
            continue
        item = Item("episode", scope, 0.0, relevance, episode=episode)
        near = 0.0
        if item.relevance.score > 0 and episode.session:
            key = (scope, episode.session)
            if key not in sessions:  # the session in time order, each episode with its own relevance
                members = source.session(scope, episode.session)
                sessions[key] = sorted(
                    (clock.order(e.started_at), e.id, score_document(prepared, d).score) for e, d in members
                )
            near = _near(sessions[key], episode)
        if _finish(item, near, options, reference):
            kept.append(item)
            heapq.heappush(best, item.score)
            if len(best) > options.k_episodes:
                heapq.heappop(best)
    return _best(kept, options.k_episodes, scope_order)


def _may_win(relevance: Relevance, fading: float, best: list[float], options: Options, alone: bool) -> bool:
    """Whether an episode of this own relevance and decay (`fading`) can be kept (the threshold) and enter the
    top k (`best`, a min-heap of the k highest scores so far): see `_most`. Skipping the others spares reading
    them and their sessions, and changes nothing: they would be cut by `_best`."""
    score = relevance.score
    if not relevance.key_hit and (score <= 0 or score < options.min_score):
        return False
    if relevance.key_hit or len(best) < options.k_episodes:
        return True
    return _most(score, fading, alone) * (1 + 1e-9) >= best[0]


def _most(own: float, fading: float, alone: bool) -> float:
    """The most an episode of own relevance `own` and recency factor `fading` can score: plus the largest context
    gain `_finish` can add (a neighbour of relevance MAX_RELEVANCE; none when it is `alone` in its session)."""
    gain = 0.0 if alone else CONTEXT_WEIGHT * MAX_RELEVANCE * max(0.0, 1 - own)
    return (own + gain) * fading


def _near(group: list[tuple[tuple[object, ...], str, float]], episode: Episode) -> float:
    """The best relevance among the CONTEXT_SPAN episodes either side of `episode` in its session (as `neighbours`)."""
    if len(group) < 2:
        return 0.0
    n = next(
        i
        for i, (when, ident, _score) in enumerate(group)
        if ident == episode.id and when == clock.order(episode.started_at)
    )
    around = [score for _w, _i, score in group[max(0, n - CONTEXT_SPAN) : n] + group[n + 1 : n + 1 + CONTEXT_SPAN]]
    return max(around)


def neighbours(items: list[Item]) -> dict[int, float]:
    """For each scored episode, the best relevance among its session's neighbours (by `id(item)`).

    Neighbours are the CONTEXT_SPAN episodes before and after it in the same scope and session, in
    time order: a turn that answers a question often shares no word with it, but the turn before
    does. Only episodes that already match (relevance above 0) get a value, so a document holding no
    matching term still scores 0, and a neighbour holding none contributes 0.
    """
    sessions: dict[tuple[str, str], list[Item]] = {}
    for item in items:
        if item.episode is not None and item.episode.session:
            sessions.setdefault((item.scope, item.episode.session), []).append(item)
    near: dict[int, float] = {}
    for group in sessions.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda i: (clock.order(i.date), i.id))
        scores = [i.relevance.score for i in group]
        for n, item in enumerate(group):
            if scores[n] > 0:
                around = scores[max(0, n - CONTEXT_SPAN) : n] + scores[n + 1 : n + 1 + CONTEXT_SPAN]
                near[id(item)] = max(around)
    return near


def _documents(item: Item) -> list[Document]:
    return [episode_document(item.episode)] if item.episode else [fact_document(f) for f in item.facts]
