"""The outcome rules of keyed supersession (FORMAT.md, "Outcome rules"), as pure functions."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from memfiles import supersession
from memfiles.model import Fact, fact_id


def make(value: str, at: str, confidence: str = "stated", key: str = "k") -> Fact:
    return Fact(
        id=fact_id(key, value, at, confidence, set()),
        key=key,
        value=value,
        subject="user_preference",
        confidence=confidence,
        source="user_statement" if confidence == "stated" else "agent_summary",
        stated_at=at,
        valid_from=at,
    )


def apply(*facts: Fact) -> tuple[list[Fact], list[str]]:
    store: list[Fact] = []
    lines = [supersession.add(store, f, "user:a").line() for f in facts]
    return store, lines


def current(store: list[Fact]) -> list[tuple[str, str]]:
    return sorted((f.value.lower(), f.status) for f in store if f.is_current)


def test_newer_stated_supersedes_older_and_keeps_history() -> None:
    sms, email = make("sms", "2026-03-14"), make("email", "2026-06-02")
    store, lines = apply(sms, email)
    assert lines == [f"added {sms.id}", f"superseded {sms.id} -> {email.id}"]
    assert (sms.status, sms.valid_to, sms.superseded_by, sms.reason) == (
        "superseded",
        "2026-06-02",
        email.id,
        "newer stated value",
    )
    assert email.status == "active" and email.valid_to is None
    assert len(store) == 2


def test_same_value_reinforces_without_a_new_fact() -> None:
    first = make("Email", "2026-06-02")
    store, lines = apply(first, make("  email ", "2026-07-01"))
    assert lines[1] == f"reinforced {first.id}"
    assert len(store) == 1 and first.last_confirmed == "2026-07-01"


def test_reinforcing_inferred_with_stated_upgrades_confidence() -> None:
    guess = make("email", "2026-06-02", "inferred")
    store, _ = apply(guess, make("email", "2026-06-03"))
    assert guess.confidence == "stated" and guess.source == "user_statement" and len(store) == 1


def test_inferred_against_stated_is_a_conflict_never_a_guess() -> None:
    ent, pro = make("Enterprise", "2026-05-01"), make("Pro", "2026-05-03", "inferred")
    _, lines = apply(ent, pro)
    assert lines[1] == f"conflict {ent.id} {pro.id}"
    assert ent.status == pro.status == "conflict"
    assert ent.reason == f"contradicts {pro.id}"


def test_newer_inferred_supersedes_older_inferred() -> None:
    old, new = make("a", "2026-01-01", "inferred"), make("b", "2026-02-01", "inferred")
    _, lines = apply(old, new)
    assert lines[1] == f"superseded {old.id} -> {new.id}" and old.reason == "newer inferred value"


def test_stated_beats_inferred_on_the_same_day() -> None:
    guess, said = make("a", "2026-01-01", "inferred"), make("b", "2026-01-01")
    apply(guess, said)
    assert (guess.status, said.status, guess.reason) == ("superseded", "active", "stated beats inferred")


def test_same_day_contradiction_at_same_confidence_is_a_conflict() -> None:
    a, b = make("a", "2026-01-01"), make("b", "2026-01-01")
    _, lines = apply(a, b)
    assert lines[1].startswith("conflict ")


def test_late_arrival_is_recorded_as_history_not_as_current() -> None:
    email, sms = make("email", "2026-06-02"), make("sms", "2026-03-14")
    _, lines = apply(email, sms)
    assert lines[1] == f"superseded {sms.id} -> {email.id}"
    assert email.status == "active" and sms.status == "superseded" and sms.valid_to == "2026-06-02"
    assert "arrived late" in (sms.reason or "")


def test_a_newer_stated_fact_ends_a_conflict() -> None:
    ent, pro = make("Enterprise", "2026-05-01"), make("Pro", "2026-05-03", "inferred")
    final = make("Business", "2026-05-05")
    store, lines = apply(ent, pro, final)
    assert lines[2] == f"superseded {ent.id},{pro.id} -> {final.id}"
    assert current(store) == [("business", "active")]


def test_resolve_keeps_one_and_supersedes_the_rest() -> None:
    ent, pro = make("Enterprise", "2026-05-01"), make("Pro", "2026-05-03", "inferred")
    store, _ = apply(ent, pro)
    ended = supersession.resolve(store, "k", ent.id, "2026-05-04")
    assert ended == [pro] and ent.status == "active"
    assert (pro.status, pro.reason, pro.superseded_by) == ("superseded", "resolved by person", ent.id)


def test_a_late_statement_after_a_resolve_keeps_the_kept_fact_current() -> None:
    pro, team = make("Pro", "2026-06-03"), make("Team", "2026-06-03")
    store, _ = apply(pro, team)
    supersession.resolve(store, "k", pro.id, "2026-06-05")
    basic = make("Basic", "2026-06-01")
    line = supersession.add(store, basic, "user:a").line()
    assert line == f"superseded {basic.id} -> {pro.id}"
    assert current(store) == [("pro", "active")]
    assert pro.superseded_by is None


def test_valid_at_answers_what_was_believed_then() -> None:
    sms, email = make("sms", "2026-03-14"), make("email", "2026-06-02")
    store, _ = apply(sms, email)
    assert [f.value for f in store if supersession.valid_at(f, "2026-05-01")] == ["sms"]
    assert [f.value for f in store if supersession.valid_at(f, "2026-06-02")] == ["email"]
    assert [f.value for f in store if supersession.valid_at(f, "2026-01-01")] == []


DAYS = [f"2026-0{m}-0{d}" for m in range(1, 4) for d in range(1, 4)]
# One confidence per value: an inference that repeats a stated value adds nothing and is not
# stored, so sequences that differ only by such inferences are outside the promise (FORMAT.md).
facts_strategy = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.sampled_from(DAYS)),
    min_size=1,
    max_size=5,
    unique_by=lambda t: t,
)
CONFIDENCE = {"a": "stated", "b": "inferred", "c": "stated", "d": "inferred"}


@settings(max_examples=2000, deadline=None)
@given(facts_strategy, st.randoms(use_true_random=False))
def test_outcome_depends_on_stated_at_not_on_arrival_order(specs: list[tuple[str, str]], rnd: object) -> None:
    """Any arrival order of the same statements leaves the same current values and statuses."""
    results = set()
    orders = list(itertools.permutations(specs)) if len(specs) <= 4 else [specs, specs[::-1]]
    for order in orders[:24]:
        store, _ = apply(*(make(v, at, CONFIDENCE[v]) for v, at in order))
        results.add(tuple(current(store)))
    assert len(results) == 1, results
