"""Scoring features of recall, each with a case it must win and a case it must not: words, dates, BM25
frequency and length, passages, session context, and the index's invariant."""

from __future__ import annotations

import random

import pytest

from memfiles import clock
from memfiles.format.episodes import Episode
from memfiles.recall.ranking import (
    Document,
    DocumentCorpus,
    Options,
    ScopeMemory,
    episode_document,
    matching_terms,
    prepare,
    rank,
    score_document,
    stem,
    terms,
)
from memfiles.recall.timeterms import WHEN, asks_when, episode_terms, query_dates, says_when


def _episode(summary: str, at: str = "2026-05-08T10:00:00Z", session: str | None = None, n: int = 0) -> Episode:
    return Episode(id=f"e-{n:012x}", scope="user:alice", started_at=at, summary=summary, session=session, entities=[])


def _scores(query: str, *summaries: str, now: str | None = None, dates: list[str] | None = None) -> list[float]:
    episodes = [_episode(s, at=(dates or [])[n] if dates else "2026-05-08T10:00:00Z") for n, s in enumerate(summaries)]
    docs = [episode_document(e) for e in episodes]
    prepared = prepare(query, DocumentCorpus(docs), clock.parse_when(now) if now else None)
    return [score_document(prepared, d).score for d in docs]


# --- words ---


def test_irregular_forms_meet_their_base() -> None:
    assert terms("When did she go?") == terms("She went.") == ["go"]
    assert terms("What did they buy?") == terms("They bought")[:1] == ["buy"]
    assert terms("children") == terms("child") and terms("people") == terms("person")
    assert _scores("Where did Ana go hiking?", "Ana went hiking in the hills.", "Ana likes hiking boots.")[0] > 0.9


def test_suffixes_and_contractions() -> None:
    assert stem("adoption") == stem("adopt") == "adopt"
    assert stem("discussion") == stem("discussed") == "discuss"
    assert stem("studies") == stem("studied") == stem("study")
    assert stem("nation") == "nation" and stem("lotion") == "lotion"  # too short a stem to strip
    assert terms("I won't go, we can't stay, she didn't") == ["go", "stay"]  # "won't" is not "win"
    assert "win" in terms("We won the match")


# --- dates ---


def test_explicit_dates_in_a_query_become_terms_and_leave_the_words() -> None:
    found = query_dates("What did Ana cook on 7 July, 2023?")
    assert found.terms == ["@2023-07-07"] and "july" not in found.text and "2023" not in found.text
    assert query_dates("in March 2023").terms == ["@2023-03"]
    assert query_dates("on May 23, 2023").terms == ["@2023-05-23"]
    assert query_dates("notes from 2023-05-08").terms == ["@2023-05-08"]
    assert query_dates("what happened in 2022").terms == ["@2022"]
    assert query_dates("This may take a while").terms == []  # "may" the verb is no month
    assert query_dates("on 31 June 2023").terms == ["@2023-06"]  # no such day: the month it names
    assert query_dates("Where was Ana between August 11 and August 15 2023?").terms == ["@2023-08-11/2023-08-15"]
    assert query_dates("from May 3 to May 9, 2023").terms == ["@2023-05-03/2023-05-09"]
    assert query_dates("It may 5 times").terms == []
    assert episode_terms(clock.parse_when("2023-05-08T13:56:00Z")) == ["@2023", "@2023-05", "@2023-05-08"]


def test_relative_dates_count_from_now_and_need_it() -> None:
    now = clock.parse_when("2026-08-20T09:00:00Z")
    assert query_dates("what did we do yesterday", now).terms == ["@2026-08-19"]
    assert query_dates("what did we do yesterday").terms == []
    assert query_dates("last May", now).terms == ["@2026-05"]
    assert query_dates("last August", now).terms == ["@2025-08"]  # the current month is not "last"
    assert query_dates("in May", now).terms == ["@2026-05"]
    assert query_dates("in December", now).terms == ["@2025-12"]  # the most recent December
    assert query_dates("last month", now).terms == ["@2026-07"]
    assert query_dates("last year", now).terms == ["@2025"]
    week = query_dates("what happened last week", now)
    assert week.terms == ["@2026-08-13/2026-08-19"] and len(week.alternatives[week.terms[0]]) == 7
    assert query_dates("3 days ago", now).terms == ["@2026-08-17"]


def test_a_named_month_finds_the_episode_of_that_month() -> None:
    may, june = _scores(
        "What did Ana bake in May 2023?",
        "Ana baked bread for the fair.",
        "Ana baked bread for the fair.",
        dates=["2023-05-20T10:00:00Z", "2023-06-03T10:00:00Z"],
    )
    assert may > june > 0


def test_a_named_day_prefers_that_day_then_the_days_near_it() -> None:
    same, near, far = _scores(
        "Where did Ana go on 3 May, 2023?",
        "Ana went to the lake.",
        "Ana went to the lake.",
        "Ana went to the lake.",
        dates=["2023-05-03T10:00:00Z", "2023-05-05T10:00:00Z", "2023-05-20T10:00:00Z"],
    )
    assert same > near > far > 0


def test_last_week_matches_any_day_of_it() -> None:
    inside, outside = _scores(
        "what did Ana read last week",
        "Ana read a novel.",
        "Ana read a novel.",
        now="2026-08-20T09:00:00Z",
        dates=["2026-08-15T10:00:00Z", "2026-07-01T10:00:00Z"],
    )
    assert inside > outside > 0


def test_a_when_question_prefers_the_passage_that_says_when() -> None:
    assert asks_when("When did Ana move?") and asks_when("What year did Ana move?") and not asks_when("Why?")
    assert says_when("We moved last month") and says_when("on Saturday") and not says_when("It may rain")
    says, silent = _scores("When did Ana move to Lisbon?", "Ana moved to Lisbon last spring.", "Ana moved to Lisbon.")
    assert says > silent > 0
    # Saying when is not relevance by itself: a document holding only that scores 0.
    assert _scores("When did Ana move to Lisbon?", "Ana moved to Lisbon.", "We met yesterday.")[1] == 0.0


# --- frequency, length, passages ---


def test_term_frequency_counts_and_long_documents_are_normalised() -> None:
    padding = " ".join(f"word{n}" for n in range(40))
    short, often, once, _ = _scores(
        "garden tomatoes",
        "The garden has tomatoes.",
        f"The garden has tomatoes, tomatoes and more tomatoes in the garden. {padding}",
        f"The garden has tomatoes. {padding}",
        "beans",
    )
    # One mention in a long text says less than in a short one; repeating it makes up for the length.
    assert short > once > 0 and often > once


def test_the_best_passage_wins_over_words_scattered_across_lines() -> None:
    together, apart = _scores(
        "Ana pottery class",
        "Ben: how was work?\nAna: I signed up for a pottery class!\nBen: nice",
        "Ana: I saw a class of kids.\nBen: I love pottery.\nAna: ok",
    )
    assert together > apart > 0


def test_a_document_built_from_terms_alone_still_scores() -> None:
    doc = Document(frozenset({"garden", "tomato"}))
    prepared = prepare("garden tomatoes", DocumentCorpus([doc, Document(frozenset({"beans"}))]))
    assert 0.5 < score_document(prepared, doc).score <= 1.0
    assert DocumentCorpus([episode_document(_episode("one two three"))]).average_length == 3.0


# --- session context ---


def test_a_turn_next_to_the_question_s_words_gains_context() -> None:
    turns = [
        "Ben: What did you research for the adoption?",
        "Ana: Mostly agencies that support single parents.",
        "Ben: Sounds good.",
        "Ana: I also looked at agencies for cars.",
    ]
    sessions = ["s-1", "s-1", "s-1", "s-2"]
    episodes = [_episode(t, f"2026-05-08T10:00:{n:02d}Z", sessions[n], n) for n, t in enumerate(turns)]
    items = rank(
        [ScopeMemory("user:alice", [], episodes)],
        "adoption agencies",
        clock.parse_when("2026-05-09"),
        Options(k_episodes=4),
    )
    by_turn = {i.episode.summary: i for i in items if i.episode}
    answer, other = by_turn[turns[1]], by_turn[turns[3]]
    assert answer.relevance.context > 0 and other.relevance.context == 0
    assert answer.score > other.score
    assert next(i.episode.summary for i in items if i.episode) in (turns[0], turns[1])
    assert all(i.relevance.score <= 1.0 for i in items)


def test_context_never_lifts_a_turn_that_matches_nothing() -> None:
    episodes = [_episode(t, f"2026-05-08T10:00:{n:02d}Z", "s-1", n) for n, t in enumerate(["adoption", "x"])]
    items = rank(
        [ScopeMemory("user:alice", [], episodes)], "adoption", clock.parse_when("2026-05-09"), Options(min_score=0.0)
    )
    assert [i.episode.summary for i in items if i.episode] == ["adoption"]


# --- the index's invariant and bounds ---


@pytest.mark.parametrize("seed", range(5))
def test_documents_without_a_matching_term_score_zero_and_scores_stay_within_1(seed: int) -> None:
    rng = random.Random(seed)
    vocabulary = ["garden", "tomato", "went", "go", "adoption", "yesterday", "lisbon", "invest", "investing", "bonus"]
    summaries = [" ".join(rng.choices(vocabulary, k=rng.randint(1, 8))) for _ in range(30)]
    days = [f"2026-0{rng.randint(1, 8)}-{rng.randint(10, 28)}T10:00:00Z" for _ in summaries]
    docs = [episode_document(_episode(s, at=d)) for s, d in zip(summaries, days, strict=True)]
    corpus = DocumentCorpus(docs)
    for query in ("When did we go to the garden?", "investing tomatos in May 2026", "adoption last week", "lisbon"):
        prepared = prepare(query, corpus, clock.parse_when("2026-08-20T09:00:00Z"))
        wanted = matching_terms(prepared)
        assert WHEN not in wanted
        for doc in docs:
            relevance = score_document(prepared, doc)
            assert relevance.score <= 1.0
            if not doc.terms & wanted:
                assert relevance.score == 0.0


# --- question frames ---


def test_a_question_frame_is_no_topic() -> None:
    # "What kind of flooring": a text that says "kind" but not "flooring" must not win on the frame.
    floor, kind = _scores(
        "What kind of flooring is Jon looking for?",
        "Jon: I'm after Marley flooring for the studio.",
        "Jon: that was kind of you, I'm looking forward to it.",
    )
    assert floor > kind
    assert "kind" not in prepare("How does Ana describe the kind of music she likes?", DocumentCorpus([])).terms
    assert "describ" not in prepare("How does Ana describe her trip?", DocumentCorpus([])).terms


def test_a_frame_word_that_is_the_topic_still_counts() -> None:
    assert _scores("Is Ana kind?", "Ana is kind to everyone.", "Ana went hiking.")[0] > 0.5
    assert prepare("What kind of?", DocumentCorpus([])).terms == ("kind",)  # nothing else to ask about
