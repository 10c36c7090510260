"""Relevance (FORMAT.md, "Recall"): how well one fact or episode answers a query, as a number from 0 to 1.

Pure: documents (what an item is about), a corpus (what competes with it) and a query in; a score
and its reasons out. Lexical and offline: no model, no network.
- Words are folded, stop words dropped and stemmed (memfiles.recall.words), and a query's framing words
  ("what kind of", "describe", "likely") dropped; dates are terms too
  (memfiles.recall.timeterms), so "in May 2023" and "last week" match when episodes happened.
- The score blends coverage (the rarity-weighted share of query terms found), BM25's term-frequency
  saturation and length normalisation, and the best single passage (line or event) of the document,
  with rapidfuzz's token_set_ratio; it tolerates typos. A document holding no query term scores 0,
  and no document scores above 1 unless its key is named (a key hit adds 1).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from memfiles.clock import When
from memfiles.format.episodes import Episode
from memfiles.format.model import Fact
from memfiles.recall import timeterms
from memfiles.recall.words import term_of, terms, unframed, words

KEYWORD_WEIGHT = 0.8  # share of lexical relevance; the rest is token_set_ratio
# The lexical score: how much of the query the document holds, how often (BM25), and in one passage.
COVERAGE_WEIGHT, FREQUENCY_WEIGHT, PASSAGE_WEIGHT = 0.4, 0.3, 0.3
K1, B = 1.2, 0.75  # BM25's term-frequency saturation and length normalisation (the usual values)
LOCAL_WEIGHT = 0.5  # in a passage, a term rare among the document's own passages counts this much more
DATE_WEIGHT = 2.0  # a date the query names is its most specific part
TYPO_CUTOFF = 85.0  # rapidfuzz ratio at which a query term matches a misspelt stored term
TYPO_CREDIT = 0.8  # a typo match counts this much of an exact match
_TYPO_MIN_LENGTH = 5
# A fact's subject adds its distinctive word, so "what are my goals?" finds every goal.
SUBJECT_WORDS = {
    "user_preference": "preference",
    "user_attribute": "attribute",
    "account_state": "account",
    "constraint": "constraint",
    "past_action": "action",
    "goal": "goal",
}


@dataclass(frozen=True, slots=True)
class Document:
    """A fact or an episode as the scorer sees it: its terms (and a fact's key terms), counts and passages.

    `counts` (term frequency) and `length` (words, dates not counted) feed BM25's saturation and length
    normalisation; a document built from terms alone counts each once at the average length. `passages`
    are the term sets of its lines and events (empty for a one-passage document); a term in no passage
    (an entity, a date) belongs to all of them.
    """

    terms: frozenset[str]
    key_terms: tuple[str, ...] = ()
    counts: Mapping[str, int] = field(default_factory=dict, compare=False)
    length: int = 0
    passages: tuple[frozenset[str], ...] = ()

    @property
    def text(self) -> str:
        """Its terms, sorted: what the fuzzy score compares the query with."""
        return " ".join(sorted(self.terms))


def _document(
    passages: Iterable[str], wide: Iterable[str] = (), key_terms: tuple[str, ...] = (), dates: Iterable[str] = ()
) -> Document:
    """A document from texts that are passages (lines, events), words that belong to all of them, and dates."""
    counts: Counter[str] = Counter()
    found: list[frozenset[str]] = []
    timely: set[int] = set()  # passages that say when something happened
    for part in passages:
        says_when = timeterms.says_when(part)  # most texts never do: look at their lines only if this one does
        for line in part.splitlines() if "\n" in part else (part,):
            line_counts = _counted(line)
            if line_counts:
                counts.update(line_counts)
                if says_when and timeterms.says_when(line):
                    timely.add(len(found))
                found.append(frozenset(line_counts))
    counts.update(_counted(" ".join(wide)))
    length = sum(counts.values())
    counts.update(t for t in key_terms if t not in counts)
    counts.update(dict.fromkeys(dates, 1))  # dates and saying when are not words: not in the length
    if timely:
        counts[timeterms.WHEN] = len(timely)
        found = [p | {timeterms.WHEN} if n in timely else p for n, p in enumerate(found)]
    return Document(frozenset(counts), key_terms, counts, length, tuple(found) if len(found) > 1 else ())


def _counted(text: str) -> Counter[str]:
    """The terms of `text` with their counts."""
    counted = Counter(map(term_of, words(text)))
    counted.pop("", None)
    return counted


def fact_document(fact: Fact) -> Document:
    """What a fact is about: its key, value and subject."""
    key = fact.key.replace("_", " ")
    key_terms = tuple(terms(key, keep_stopwords=True))
    return _document([f"{key} {fact.value} {SUBJECT_WORDS.get(fact.subject, '')}"], key_terms=key_terms)


def episode_document(episode: Episode) -> Document:
    """What an episode is about: summary lines, events, entities, the facts it proposes or invalidates, its date."""
    parts = [episode.summary, *episode.events]
    parts += [f"{f.key.replace('_', ' ')} {f.value}" for f in episode.facts]
    parts += [f"{i.key.replace('_', ' ')} {i.reason}" for i in episode.invalidates]
    return _document(parts, episode.entities, dates=timeterms.episode_terms(episode.started_at))


@dataclass(frozen=True, slots=True)
class Query:
    """A prepared query: its terms, their rarity weights, and the stored terms that also satisfy a term.

    `typos` are misspellings found in the store; `variants` are the days near a date the query names
    (or the days of a span such as "last week"); both give part of a term's credit.
    """

    text: str
    terms: tuple[str, ...]
    weights: dict[str, float] = field(default_factory=dict)
    typos: dict[str, dict[str, float]] = field(default_factory=dict)
    variants: dict[str, dict[str, float]] = field(default_factory=dict)
    average_length: float = 0.0

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

    @property
    def average_length(self) -> float:
        """The mean `length` of the documents (words, dates not counted), for length normalisation."""
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
        self._length = 0
        for doc in documents:
            self._frequency.update(doc.terms)
            self._total += 1
            self._length += doc.length

    @property
    def total(self) -> int:
        return self._total

    @property
    def average_length(self) -> float:
        return self._length / self._total if self._total else 0.0

    def frequencies(self, terms: Sequence[str]) -> Mapping[str, int]:
        return {t: self._frequency[t] for t in terms}

    def vocabulary(self) -> Iterable[str]:
        return self._frequency.keys()


def prepare(text: str, corpus: Corpus, now: When | None = None) -> Query:
    """Prepare `text` against the competing documents: idf weights (BM25's), date terms, typo variants.

    With `now` (a When), relative dates in the query ("yesterday", "last week") count from it.
    """
    from rapidfuzz import fuzz, process

    dates = timeterms.query_dates(text, now)
    named = [t for t in dates.terms if t != timeterms.WHEN]
    # "What kind of flooring": the frame is no topic; a query made only of frame and stop words keeps them.
    found = terms(unframed(dates.text)) or terms(dates.text) or ([] if named else terms(text, keep_stopwords=True))
    unique = tuple(dict.fromkeys(found + dates.terms))
    alternatives = [v for t in dates.terms for v in dates.alternatives.get(t, {})]
    frequency = corpus.frequencies(list(dict.fromkeys(unique + tuple(alternatives))))
    total = corpus.total
    weights = {}
    for term in unique:
        if term in dates.alternatives and term not in frequency:  # a span: the episodes of any of its days
            df = sum(frequency.get(v, 0) for v in dates.alternatives[term])
        else:
            df = frequency.get(term, 0)
        # A term stored nowhere weighs like the rarest stored term, so it does not drown the terms that match.
        df = min(max(df, 1), max(total, 1))
        weight = math.log(1 + (total - df + 0.5) / (df + 0.5))
        weights[term] = weight * (DATE_WEIGHT if term.startswith(timeterms.PREFIX) and term != timeterms.WHEN else 1.0)
    candidates = [t for t in unique if len(t) >= _TYPO_MIN_LENGTH and t.isalpha()]
    vocabulary = [t for t in corpus.vocabulary() if t.isalpha()] if candidates else []
    typos: dict[str, dict[str, float]] = {}
    for term in candidates:
        hits = process.extract(term, vocabulary, scorer=fuzz.ratio, score_cutoff=TYPO_CUTOFF, limit=None)
        typos[term] = {word: TYPO_CREDIT * score / 100 for word, score, _ in hits if word != term}
    return Query(text, unique, weights, typos, dates.alternatives, corpus.average_length)


def matching_terms(query: Query) -> frozenset[str]:
    """Stored terms that make a document relevant: the query's terms, their typo variants and near dates.

    Invariant (relied on by the index): a document holding none of these scores 0 unless its key
    terms are all in the query (a key hit), so only documents holding one need scoring. Context from
    neighbouring episodes (see `rank`) only raises episodes that already score above 0.
    """
    return frozenset(t for alternatives in stand_ins(query).values() for t in alternatives)


def stand_ins(query: Query) -> dict[str, frozenset[str]]:
    """For each query term but saying when, the stored terms that satisfy it: itself, its typos, its near days."""
    return {
        term: frozenset({term, *query.typos.get(term, {}), *query.variants.get(term, {})})
        for term in query.terms
        if term != timeterms.WHEN  # a document that only says when scores 0
    }


def ceiling(query: Query, held: Iterable[str], passages: int) -> float:
    """The most `score_document` gives a document without a key hit that holds (itself or through a stand-in) no
    query term but `held` and has `passages` passages: known from an index's postings and row, before the
    document is read.

    Each share is bounded as if every held term had full credit: coverage and frequency by the held terms'
    weight; the best passage by the held terms' weight with the largest local rarity a held term can get
    (found in one passage) against the others' (found in none); the fuzzy score by 1. tests/test_recall.py
    checks it against score_document."""
    if query.everything:
        return 1.0
    have = set(held)
    total = sum(query.weights.values())
    if not total or not have - {timeterms.WHEN}:
        return 0.0 if have <= {timeterms.WHEN} else 1.0
    a = sum(w for t, w in query.weights.items() if t in have)
    coverage = a / total
    if passages < 2:
        passage = coverage  # one passage: the best passage is the coverage
    else:
        rare = LOCAL_WEIGHT * math.log(1 + (passages - 0.5) / 1.5)  # a held term in one passage of them
        absent = LOCAL_WEIGHT * math.log(1 + (passages + 0.5) / 0.5)  # a term in none
        found = a + rare * sum(1 for t in query.weights if t in have)
        passage = max(coverage, found / (found + total - a + absent * sum(1 for t in query.weights if t not in have)))
    keyword = (COVERAGE_WEIGHT + FREQUENCY_WEIGHT) * coverage + PASSAGE_WEIGHT * passage
    return min(1.0, KEYWORD_WEIGHT * keyword + (1 - KEYWORD_WEIGHT))


@dataclass(frozen=True, slots=True)
class Relevance:
    """How well one document answers the query, and why."""

    score: float
    keyword: float = 0.0
    fuzzy: float = 0.0
    key_hit: bool = False
    matched: tuple[str, ...] = ()
    coverage: float = 0.0
    frequency: float = 0.0
    passage: float = 0.0
    context: float = 0.0


def score_document(query: Query, doc: Document) -> Relevance:
    """Relevance of one document: lexical (coverage, BM25 frequency, best passage) blended with fuzz.

    The one place that decides relevance; without a key hit it is at most 1.
    """
    from rapidfuzz import fuzz

    if query.everything:
        return Relevance(1.0, 1.0, 1.0)
    key_hit = bool(doc.key_terms) and set(doc.key_terms) <= set(query.terms)
    total = sum(query.weights.values())
    found: dict[str, tuple[str, float]] = {}  # query term -> (the stored term that satisfies it, credit)
    for term in query.terms:
        if term in doc.terms:
            found[term] = (term, 1.0)
        else:
            stored, credit = _variant(query, term, doc)
            if credit:
                found[term] = (stored, credit)
    if not key_hit and not [t for t in found if t != timeterms.WHEN]:
        return Relevance(0.0)  # saying when is no answer unless the document is about the question
    coverage = frequency = 0.0
    if total:
        average = query.average_length or doc.length
        norm = K1 * (1 - B + B * doc.length / average) if doc.length and average else K1
        for term, (stored, credit) in found.items():
            tf = doc.counts.get(stored, 1)
            coverage += credit * query.weights[term]
            # BM25's saturation, 1 for one occurrence in a document of average length; capped at 1 so that
            # relevance stays a share of the query (more occurrences only make up for a long document).
            saturation = tf * (K1 + 1) / (tf + norm)
            frequency += credit * query.weights[term] * min(1.0, saturation)
        coverage, frequency = coverage / total, frequency / total
    passage = _best_passage(query, doc, found) if doc.passages else coverage
    keyword = COVERAGE_WEIGHT * coverage + FREQUENCY_WEIGHT * frequency + PASSAGE_WEIGHT * passage
    # Dates count here too: a query naming last week is not fully found by a text sharing its one word.
    fuzzy = fuzz.token_set_ratio(" ".join(query.terms), doc.text, processor=None) / 100
    score = KEYWORD_WEIGHT * keyword + (1 - KEYWORD_WEIGHT) * fuzzy
    return Relevance(
        score + (1.0 if key_hit else 0.0), keyword, fuzzy, key_hit, tuple(found), coverage, frequency, passage
    )


def _variant(query: Query, term: str, doc: Document) -> tuple[str, float]:
    """The stored term (typo or near date) that best stands in for `term` in `doc`, and its credit."""
    best = ("", 0.0)
    for table in (query.typos, query.variants):
        for word, credit in table.get(term, {}).items():
            if credit > best[1] and word in doc.terms:
                best = (word, credit)
    return best


def _best_passage(query: Query, doc: Document, found: dict[str, tuple[str, float]]) -> float:
    """The weighted share of the query held by the document's best passage (a term in none is in all).

    Within a document, a term found in few of its passages weighs more (its local rarity), so a line
    where the person the query names says the rare word beats a line where only the rare word occurs.
    """
    passages = doc.passages
    count = len(passages)
    weights: dict[str, float] = {}
    holders: dict[str, list[int]] = {}
    for term in query.terms:
        stored = found[term][0] if term in found else None
        held = [n for n, p in enumerate(passages) if stored in p] if stored is not None else []
        if stored is not None and not held:
            held = list(range(count))  # an entity or a date: true of every passage
        holders[term] = held
        local = math.log(1 + (count - len(held) + 0.5) / (len(held) + 0.5))
        weights[term] = query.weights[term] + LOCAL_WEIGHT * local
    gained = [0.0] * count
    for term, held in holders.items():
        for n in held:
            gained[n] += found[term][1] * weights[term]
    total = sum(weights.values())
    return max(gained) / total if total else 0.0
