"""The paraphrase set (tests/data/paraphrases.json, issue 26 item 4): questions that need a fact or an
episode while sharing no content word with it, across every scenario of SCENARIOS.md.

Here the set's own invariant is checked; the bench (`bench/stories.py --paraphrases`) reports how many
of them recall finds in its top 3, and a ranker by meaning is measured on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memfiles.format.config import Config
from memfiles.ops.writepath import NewFact, validate
from memfiles.recall.relevance import SUBJECT_WORDS
from memfiles.recall.words import terms

PARAPHRASES = Path(__file__).parent / "data" / "paraphrases.json"
SCENARIOS = range(1, 10)  # SCENARIOS.md's nine stories


def load() -> list[dict[str, Any]]:
    scenarios: list[dict[str, Any]] = json.loads(PARAPHRASES.read_text(encoding="utf-8"))["scenarios"]
    return scenarios


def content_words(text: str) -> set[str]:
    """Words as recall compares them: folded, stop words dropped, stemmed ("investing" is "invest")."""
    return set(terms(text))


def needed_texts(scenario: dict[str, Any], name: str) -> list[str]:
    """Every text recall could match `name` by: each fact of that key (key, value, subject word), or the episode."""
    facts = [
        f"{f['key'].replace('_', ' ')} {f['value']} {SUBJECT_WORDS.get(f['subject'], '')}"
        for f in scenario["facts"]
        if f["key"] == name
    ]
    return facts + [f"{e['summary']} {e['session']}" for e in scenario["episodes"] if e["session"] == name]


def test_at_least_thirty_queries_over_every_scenario() -> None:
    scenarios = load()
    assert sum(len(s["queries"]) for s in scenarios) >= 30
    assert {s["scenario"] for s in scenarios} == set(SCENARIOS)
    assert all(s["queries"] for s in scenarios)


def test_no_query_shares_a_content_word_with_what_it_needs() -> None:
    shared = []
    for scenario in load():
        for query in scenario["queries"]:
            assert query["needs"], query["text"]
            for name in query["needs"]:
                texts = needed_texts(scenario, name)
                assert texts, f"{query['text']!r} needs {name!r}, which scenario {scenario['scenario']} does not hold"
                asked = content_words(query["text"])
                shared += [(query["text"], name, w) for t in texts for w in asked & content_words(t)]
    assert shared == []


def test_the_check_itself_catches_a_shared_word() -> None:
    assert content_words("How should I invest my bonus?") & content_words("risk tolerance: happy investing")
    assert content_words("What are my goals?") & content_words(f"goal save for a house {SUBJECT_WORDS['goal']}")


def test_the_write_path_accepts_every_fact() -> None:
    """The bench writes them through the guarded write path: none may be refused (validate raises)."""
    config = Config()
    for scenario in load():
        for fact in scenario["facts"] + scenario.get("other_user", {}).get("facts", []):
            validate(NewFact(fact["key"], fact["value"], fact["subject"], at=fact["at"]), config)
