"""Recall scoring (FORMAT.md, "Recall"): which facts and episodes a query brings back, and in what order.

Pure: facts, episodes, a query and "now" in; ranked items with their scores out. No file is read here.
- Relevance (`score_document`) is keyword overlap weighted by rarity (BM25's idf), tolerant of typos,
  blended with rapidfuzz's token_set_ratio. A query about nothing stored scores 0 everywhere.
- Facts never decay; a fact whose key the query names (an exact key hit) ranks first.
- Episodes are weighted by recency: relevance × exp(-ln2 · age_days / half_life).
- Below the relevance threshold nothing is returned: nothing is better than noise.
"""

from __future__ import annotations

import heapq
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

from memfiles import clock
from memfiles.episodes import Episode
from memfiles.model import Fact
from memfiles.supersession import valid_at

MIN_SCORE = 0.3  # default relevance threshold (--min-score)
# Invariant (relied on by rank's indexed path): score_document never gives a document without key terms
# (every episode) a relevance above this, so once decay × MAX_RELEVANCE is below the k-th best score
# found, no older episode can enter the top k.
MAX_RELEVANCE = 1.0
KEYWORD_WEIGHT = 0.8  # share of keyword overlap in relevance; the rest is token_set_ratio
TYPO_CUTOFF = 85.0  # rapidfuzz ratio at which a query term matches a misspelt stored term
TYPO_CREDIT = 0.8  # a typo match counts this much of an exact match
_TYPO_MIN_LENGTH = 5
_WORD = re.compile(r"[^\W_]+")
_STOPWORDS = """
a about above after all also am an and any are as at be been being before but by can could did do does doing
for from had has have he her here hers him his how i if in into is it its just me might mine more most my no
nor not now of off on once only or other our ours out over own please same she should so some such than that
the their theirs them then there these they this those through to too under until up very was we were what
when where which while who whom whose why will with would you your yours
"""
STOPWORDS = frozenset(_STOPWORDS.split())
# A fact's subject adds its distinctive word, so "what are my goals?" finds every goal.
SUBJECT_WORDS = {
    "user_preference": "preference",
    "user_attribute": "attribute",
    "account_state": "account",
    "constraint": "constraint",
    "past_action": "action",
    "goal": "goal",
}


@lru_cache(maxsize=1 << 16)  # a store has far fewer distinct words than words; stemming each once is enough
def stem(word: str) -> str:
    """Light suffix stemming (plural, -ing, -ed, -ment, final e): 'investing' and 'invested' → 'invest'."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed", "ment"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # shipped → shipp → ship
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]  # save, saving, saved → sav
    return word


def _words(text: str) -> list[str]:
    folded = text.casefold()
    if not folded.isascii():  # fold accents (é → e) only where there are any: most text is ASCII
        folded = "".join(ch for ch in unicodedata.normalize("NFKD", folded) if not unicodedata.combining(ch))
    return _WORD.findall(folded)


def _kept(word: str, keep_stopwords: bool = False) -> bool:
    return (len(word) > 1 or word.isdigit()) and (keep_stopwords or word not in STOPWORDS)


def terms(text: str, keep_stopwords: bool = False) -> list[str]:
    """Normalised, stemmed words of `text`: case, accents and punctuation folded; stop words dropped."""
    return [stem(w) for w in _words(text) if _kept(w, keep_stopwords)]


def term_set(text: str) -> frozenset[str]:
    """The distinct terms of `text` (what a document needs), stemming each distinct word once."""
    return frozenset(stem(w) for w in set(_words(text)) if _kept(w))


@dataclass(frozen=True, slots=True)
class Document:
    """A fact or an episode as the scorer sees it: its set of terms (and a fact's key terms)."""

    terms: frozenset[str]
    key_terms: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return " ".join(sorted(self.terms))


def fact_document(fact: Fact) -> Document:
    """What a fact is about: its key, value and subject."""
    key_terms = tuple(terms(fact.key.replace("_", " "), keep_stopwords=True))
    words = term_set(f"{fact.key.replace('_', ' ')} {fact.value} {SUBJECT_WORDS.get(fact.subject, '')}")
    return Document(words | frozenset(key_terms), key_terms)


def episode_document(episode: Episode) -> Document:
    """What an episode is about: summary, events, entities and the facts it proposes or invalidates."""
    parts = [episode.summary, *episode.events, *episode.entities]
    parts += [f"{f.key.replace('_', ' ')} {f.value}" for f in episode.facts]
    parts += [f"{i.key.replace('_', ' ')} {i.reason}" for i in episode.invalidates]
    return Document(term_set(" ".join(parts)))


@dataclass(frozen=True, slots=True)
class Query:
    """A prepared query: its terms, their rarity weights, and the stored terms that are typos of them."""

    text: str
    terms: tuple[str, ...]
    weights: dict[str, float] = field(default_factory=dict)
    typos: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def everything(self) -> bool:
        """A blank query matches every item (useful with --since)."""
        return not self.text.strip()


class Corpus(Protocol):
    """What scoring needs to know about the documents competing with each other (one kind, in range).

    Two implementations must agree: `DocumentCorpus` (documents in memory) and the index's.
    """

    @property
    def total(self) -> int:
        """How many documents compete."""
        ...

    def frequencies(self, terms: Sequence[str]) -> Mapping[str, int]:
        """In how many documents each of `terms` occurs (document frequency)."""
        ...

    def vocabulary(self) -> Iterable[str]:
        """Stored terms that typos of query terms are looked up among (a superset is fine)."""
        ...


class DocumentCorpus:
    """A Corpus over documents held in memory."""

    def __init__(self, documents: Iterable[Document]) -> None:
        self._frequency: Counter[str] = Counter()
        self._total = 0
        for doc in documents:
            self._frequency.update(doc.terms)
            self._total += 1

    @property
    def total(self) -> int:
        return self._total

    def frequencies(self, terms: Sequence[str]) -> Mapping[str, int]:
        return {t: self._frequency[t] for t in terms}

    def vocabulary(self) -> Iterable[str]:
        return self._frequency.keys()


def prepare(text: str, corpus: Corpus) -> Query:
    """Prepare `text` against the competing documents: idf weights (BM25's) and typo variants of each term."""
    from rapidfuzz import fuzz, process

    found = terms(text) or terms(text, keep_stopwords=True)  # "what is it" still searches for something
    unique = tuple(dict.fromkeys(found))
    frequency = corpus.frequencies(unique)
    total = corpus.total
    # A term stored nowhere weighs like the rarest stored term, so it does not drown the terms that match.
    weights = {
        t: math.log(1 + (total - max(frequency.get(t, 0), 1) + 0.5) / (max(frequency.get(t, 0), 1) + 0.5))
        for t in unique
    }
    candidates = [t for t in unique if len(t) >= _TYPO_MIN_LENGTH and t.isalpha()]
    vocabulary = [t for t in corpus.vocabulary() if t.isalpha()] if candidates else []
    typos: dict[str, dict[str, float]] = {}
    for term in candidates:
        hits = process.extract(term, vocabulary, scorer=fuzz.ratio, score_cutoff=TYPO_CUTOFF, limit=None)
        typos[term] = {word: TYPO_CREDIT * score / 100 for word, score, _ in hits if word != term}
    return Query(text, unique, weights, typos)


def matching_terms(query: Query) -> frozenset[str]:
    """Stored terms that make a document relevant: the query's terms and their typo variants.

    Invariant (relied on by the index): a document holding none of these scores 0 unless its key
    terms are all in the query (a key hit), so only documents holding one need scoring.
    """
    found = set(query.terms)
    for variants in query.typos.values():
        found.update(variants)
    return frozenset(found)


@dataclass(frozen=True, slots=True)
class Relevance:
    """How well one document answers the query, and why."""

    score: float
    keyword: float = 0.0
    fuzzy: float = 0.0
    key_hit: bool = False
    matched: tuple[str, ...] = ()


def score_document(query: Query, doc: Document) -> Relevance:
    """Relevance of one document: idf-weighted share of query terms found (typos count part), then fuzz.

    The one place that decides relevance; an index or better scorer can replace it later.
    """
    from rapidfuzz import fuzz

    if query.everything:
        return Relevance(1.0, 1.0, 1.0)
    key_hit = bool(doc.key_terms) and set(doc.key_terms) <= set(query.terms)
    total = sum(query.weights.values())
    gained = 0.0
    matched: list[str] = []
    for term in query.terms:
        credit = 1.0 if term in doc.terms else _typo_credit(query, term, doc)
        if credit:
            gained += credit * query.weights[term]
            matched.append(term)
    keyword = gained / total if total else 0.0
    if keyword == 0.0 and not key_hit:
        return Relevance(0.0)
    fuzzy = fuzz.token_set_ratio(" ".join(query.terms), doc.text, processor=None) / 100
    score = KEYWORD_WEIGHT * keyword + (1 - KEYWORD_WEIGHT) * fuzzy
    return Relevance(score + (1.0 if key_hit else 0.0), keyword, fuzzy, key_hit, tuple(matched))


def _typo_credit(query: Query, term: str, doc: Document) -> float:
    return max((credit for word, credit in query.typos.get(term, {}).items() if word in doc.terms), default=0.0)


def decay(age_days: float, half_life_days: float) -> float:
    """Recency weight exp(-ln2 · age / half_life): 1 today, 0.5 after one half-life; 1 when half_life is 0."""
    if half_life_days <= 0:
        return 1.0
    return math.exp(-math.log(2) * age_days / half_life_days)


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
    since: str | None = None
    until: str | None = None
    as_of: str | None = None


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

    @property
    def id(self) -> str:
        return self.episode.id if self.episode else "+".join(f.id for f in self.facts)

    @property
    def date(self) -> str:
        return self.episode.started_at if self.episode else max(f.stated_at for f in self.facts)

    def why(self) -> str:
        """Why this item was chosen, in a few words (for --explain)."""
        parts = ["key hit"] if self.relevance.key_hit else []
        if self.relevance.matched:
            parts.append("matched " + ", ".join(self.relevance.matched))
        if self.episode is not None and self.age_days is not None:
            parts.append(f"{self.age_days:.1f} days old, decay ×{self.decay:.3f}")
        return "; ".join(parts) or "no query: everything in range"

    def to_dict(self) -> dict[str, Any]:
        """Every field of the item plus its scores (for --format json)."""
        out: dict[str, Any] = {"kind": self.kind, "scope": self.scope}
        if self.episode is not None:
            out.update(self.episode.to_dict())
        elif self.kind == "fact":
            out.update(self.facts[0].to_dict())
        else:
            out.update(key=self.facts[0].key, ids=[f.id for f in self.facts], facts=[f.to_dict() for f in self.facts])
        out["scope"] = self.scope
        out.update(
            score=round(self.score, 4),
            relevance=round(self.relevance.score, 4),
            keyword=round(self.relevance.keyword, 4),
            fuzzy=round(self.relevance.fuzzy, 4),
            key_hit=self.relevance.key_hit,
            matched=list(self.relevance.matched),
            decay=round(self.decay, 4),
            age_days=None if self.age_days is None else round(self.age_days, 2),
        )
        return out


def believed(facts: list[Fact], when: str, as_of: bool) -> list[Fact]:
    """The facts believed at `when`: the current set now, or those valid then (`--as-of`, world time)."""
    if as_of:
        return [f for f in facts if valid_at(f, when)]
    return [f for f in facts if f.is_current and valid_at(f, when)]


def fact_items(scope: str, facts: list[Fact]) -> list[Item]:
    """One item per key: a fact, or a conflict when two or more facts of the key are believed at once."""
    by_key: dict[str, list[Fact]] = {}
    for fact in sorted(facts, key=lambda f: (f.key, f.stated_at[:10], f.stated_at, f.id)):
        by_key.setdefault(fact.key, []).append(fact)
    return [
        Item("fact" if len(group) == 1 else "conflict", scope, 0.0, Relevance(0.0), facts=group)
        for group in by_key.values()
    ]


def in_range(episode: Episode, options: Options, reference: str) -> bool:
    """Whether an episode falls in the time range: started by `reference`, and within --since/--until."""
    started = episode.started_at
    if clock.compare(started, reference) > 0:
        return False
    if options.since and clock.compare(started, options.since) < 0:
        return False
    return not (options.until and clock.compare(started, options.until) > 0)


class EpisodeSource(Protocol):
    """In-range episodes supplied by an index instead of ScopeMemory lists (memfiles.index implements it)."""

    @property
    def corpus(self) -> Corpus:
        """Statistics over every episode in range, across the scopes asked."""
        ...

    def newest_first(self, terms: frozenset[str] | None) -> Iterable[tuple[str, Episode, Document]]:
        """(scope, episode, document) of in-range episodes holding any of `terms` (all when None), newest first."""
        ...


def rank(
    memories: list[ScopeMemory], query: str, now: str, options: Options, indexed: EpisodeSource | None = None
) -> list[Item]:
    """The recalled items, facts (and conflicts) first, each kind best first and cut to its k.

    With `indexed`, episodes come from it instead of `memories` (whose episode lists are then empty);
    the result is the same.
    """
    reference = options.as_of or now
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
        prepared = prepare(query, DocumentCorpus(d for docs in documents.values() for d in docs))
        kept = [item for item in items if _scored(item, documents[id(item)], prepared, options, reference)]
        chosen += _best(kept, limit, scope_order)
    if indexed is not None and options.kind in ("all", "episodes"):
        chosen += _rank_indexed(indexed, query, options, reference, scope_order)
    return chosen


def _scored(item: Item, documents: list[Document], prepared: Query, options: Options, reference: str) -> bool:
    """Score `item` in place; False when it is below the threshold."""
    item.relevance = max((score_document(prepared, d) for d in documents), key=lambda r: r.score)
    if not item.relevance.key_hit and (item.relevance.score <= 0 or item.relevance.score < options.min_score):
        return False
    if item.episode is not None:
        item.age_days = clock.age_days(item.episode.started_at, reference)
        item.decay = decay(item.age_days, options.half_life_days)
    item.score = item.relevance.score * item.decay
    return True


def _best(kept: list[Item], limit: int, scope_order: dict[str, int]) -> list[Item]:
    kept.sort(key=lambda i: (i.date, i.id), reverse=True)  # stable sorts: equal scores go newest first
    kept.sort(key=lambda i: (-i.score, scope_order[i.scope]))
    return kept[:limit]


def _rank_indexed(
    source: EpisodeSource, query: str, options: Options, reference: str, scope_order: dict[str, int]
) -> list[Item]:
    """Episodes from an index: only those holding a matching term are scored, newest first, until none can win."""
    prepared = prepare(query, source.corpus)
    wanted = None if prepared.everything else matching_terms(prepared)  # the INVARIANT of matching_terms
    kept: list[Item] = []
    best: list[float] = []  # the k highest scores so far (a min-heap)
    for scope, episode, document in source.newest_first(wanted):
        if len(best) >= options.k_episodes:
            ceiling = MAX_RELEVANCE * decay(clock.age_days(episode.started_at, reference), options.half_life_days)
            if ceiling * (1 + 1e-9) < best[0]:
                break  # see MAX_RELEVANCE: every older episode decays at least as much
        item = Item("episode", scope, 0.0, Relevance(0.0), episode=episode)
        if _scored(item, [document], prepared, options, reference):
            kept.append(item)
            heapq.heappush(best, item.score)
            if len(best) > options.k_episodes:
                heapq.heappop(best)
    return _best(kept, options.k_episodes, scope_order)


def _documents(item: Item) -> list[Document]:
    return [episode_document(item.episode)] if item.episode else [fact_document(f) for f in item.facts]
