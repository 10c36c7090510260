"""The outcome rules of keyed supersession (FORMAT.md, "Outcome rules"), as pure functions."""

from __future__ import annotations

import itertools
import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memfiles import clock
from memfiles.format.memoryfile import MemoryDoc, parse, serialize
from memfiles.format.model import Fact, fact_id
from memfiles.ops import supersession


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
        clock.parse_when("2026-06-02"),
        email.id,
        "newer stated value",
    )
    assert email.status == "active" and email.valid_to is None
    assert len(store) == 2


def test_same_value_reinforces_without_a_new_fact() -> None:
    first = make("Email", "2026-06-02")
    store, lines = apply(first, make("  email ", "2026-07-01"))
    assert lines[1] == f"reinforced {first.id}"
    assert len(store) == 1 and first.last_confirmed == clock.parse_when("2026-07-01")


def test_reinforcing_inferred_with_stated_upgrades_confidence() -> None:
    guess = make("email", "2026-06-02", "inferred")
    store, _ = apply(guess, make("email", "2026-06-03"))
    assert guess.confidence == "stated" and guess.source == "user_statement" and len(store) == 1


def test_an_inference_repeating_a_stated_value_later_is_kept_as_last_inferred() -> None:
    said = make("email", "2026-06-02")
    store, lines = apply(said, make("email", "2026-07-01", "inferred"))
    assert lines[1] == f"reinforced {said.id}" and len(store) == 1
    assert (
        said.confidence == "stated"
        and said.last_confirmed is None
        and said.last_inferred == clock.parse_when("2026-07-01")
    )
    restated = supersession.add(store, make("email", "2026-07-05"), "user:a")
    assert (
        restated.kind == "reinforced"
        and said.last_confirmed == clock.parse_when("2026-07-05")
        and said.last_inferred is None
    )


def test_a_late_statement_meets_an_inference_its_value_absorbed() -> None:
    """Arrival: inferred b (Mar), stated b (Feb, absorbs it), stated a (Feb, later that month).
    Said in order: b stated, a stated (supersedes b), b inferred (newer inferred vs older stated)."""
    guess, said, other = make("b", "2026-03-03", "inferred"), make("b", "2026-02-02"), make("a", "2026-02-20")
    store, _ = apply(guess, said, other)
    assert current(store) == [("a", "conflict"), ("b", "conflict")]
    revived = next(f for f in store if f.value == "b" and f.is_current)
    assert (revived.confidence, revived.source, revived.stated_at) == (
        "inferred",
        "agent_summary",
        clock.parse_when("2026-03-03"),
    )
    assert next(f for f in store if f.value == "b" and not f.is_current).superseded_by == other.id


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
    assert email.status == "active" and sms.status == "superseded" and sms.valid_to == clock.parse_when("2026-06-02")
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
    ended = supersession.resolve(store, "k", ent.id, clock.parse_when("2026-05-04"))
    assert ended == [pro] and ent.status == "active"
    assert (pro.status, pro.reason, pro.superseded_by) == ("superseded", "resolved by person", ent.id)


def test_a_late_statement_after_a_resolve_keeps_the_kept_fact_current() -> None:
    pro, team = make("Pro", "2026-06-03"), make("Team", "2026-06-03")
    store, _ = apply(pro, team)
    supersession.resolve(store, "k", pro.id, clock.parse_when("2026-06-05"))
    basic = make("Basic", "2026-06-01")
    line = supersession.add(store, basic, "user:a").line()
    assert line == f"superseded {basic.id} -> {pro.id}"
    assert current(store) == [("pro", "active")]
    assert pro.superseded_by is None


def test_valid_at_answers_what_was_believed_then() -> None:
    sms, email = make("sms", "2026-03-14"), make("email", "2026-06-02")
    store, _ = apply(sms, email)
    assert [f.value for f in store if supersession.valid_at(f, clock.parse_when("2026-05-01"))] == ["sms"]
    assert [f.value for f in store if supersession.valid_at(f, clock.parse_when("2026-06-02"))] == ["email"]
    assert [f.value for f in store if supersession.valid_at(f, clock.parse_when("2026-01-01"))] == []


DAYS = [f"2026-0{m}-0{d}" for m in range(1, 4) for d in range(1, 4)]
# A statement is a value, a day and a confidence; the same value may be stated and inferred.
statements = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(DAYS), st.sampled_from(["stated", "inferred"])),
    min_size=1,
    max_size=6,
    unique_by=lambda t: t,
)


def settle_through_the_file(order: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """Each statement settled against the facts as MEMORY.md holds them, as separate writes do."""
    doc = MemoryDoc(scope="user:a", facts=[], body=b"")
    for value, at, confidence in order:
        facts = parse(serialize(doc), "m", "user:a").facts
        new = make(value, at, confidence)
        new.id = fact_id("k", value, at, confidence, {f.id for f in facts})
        supersession.add(facts, new, "user:a")
        doc = MemoryDoc(scope="user:a", facts=facts, body=b"")
    return current(parse(serialize(doc), "m", "user:a").facts)


# Each class of history named once (hypothesis always runs these), then a few random ones: a fixed count of
# examples, so the test costs the same on a loaded machine (it ran 1,500 examples, minutes under load).
D1, D2, D3, D4 = DAYS[0], DAYS[1], DAYS[4], DAYS[8]


@settings(max_examples=50, deadline=None)
@given(statements, st.randoms(use_true_random=False))
@example([("a", D1, "stated")], random.Random(0))  # one statement
@example([("a", D1, "stated"), ("b", D1, "stated")], random.Random(0))  # two stated the same day
@example([("a", D1, "stated"), ("a", D1, "inferred")], random.Random(0))  # one value, both confidences, one day
@example([("a", D1, "inferred"), ("b", D1, "stated")], random.Random(0))  # a tie between inferred and stated
@example([("a", D1, "stated"), ("b", D2, "inferred")], random.Random(0))  # an inference newer than a statement
@example([("a", D2, "stated"), ("b", D1, "inferred")], random.Random(0))  # an inference older than a statement
@example([("a", D1, "stated"), ("b", D2, "stated"), ("a", D3, "stated")], random.Random(0))  # a value restated
@example([("a", D1, "inferred"), ("b", D2, "inferred"), ("c", D3, "inferred")], random.Random(0))  # inferred only
@example(
    [("c", D4, "stated"), ("b", D3, "inferred"), ("a", D2, "stated"), ("c", D1, "inferred")], random.Random(1)
)  # four, newest first, confidences alternating (sampled orders)
@example(
    [(v, d, c) for v, d, c in itertools.product("abc", (D1, D3), ("stated",))], random.Random(2)
)  # six, the most a history holds here, two per day
@example(
    [("a", D1, "stated"), ("a", D1, "inferred"), ("b", D1, "stated"), ("b", D1, "inferred"), ("c", D2, "stated")],
    random.Random(3),
)  # five, ties of every kind on one day
def test_outcome_depends_on_stated_at_not_on_arrival_order(
    specs: list[tuple[str, str, str]], rnd: random.Random
) -> None:
    """Any arrival order of the same statements leaves the current values and statuses of a serial replay."""
    serial = settle_through_the_file(sorted(specs, key=lambda s: (s[1], s[2] != "inferred", s[0])))
    orders = (
        list(itertools.permutations(specs)) if len(specs) <= 3 else [rnd.sample(specs, len(specs)) for _ in range(8)]
    )
    for order in orders:
        assert settle_through_the_file(list(order)) == serial, order


def by_agent(value: str, at: str, confidence: str = "stated") -> Fact:
    """What an assistant wrote over MCP (`source: agent`)."""
    return make(value, at, confidence).model_copy(update={"source": "agent"})


def test_an_assistants_fact_never_supersedes_what_a_person_stated() -> None:
    person = make("Paris", "2026-03-01")
    for agent in (by_agent("Berlin", "2026-09-01"), by_agent("Berlin", "2026-09-01", "inferred")):
        for order in ((person, agent), (agent, person)):
            store, _ = apply(*(f.model_copy() for f in order))
            assert current(store) == [("berlin", "conflict"), ("paris", "conflict")]
    # A person's newer statement still supersedes the assistant's; the assistant's newer one supersedes its own.
    store, _ = apply(by_agent("Berlin", "2026-03-01"), make("Paris", "2026-09-01"))
    assert current(store) == [("paris", "active")]
    store, _ = apply(by_agent("Berlin", "2026-03-01"), by_agent("Rome", "2026-09-01"))
    assert current(store) == [("rome", "active")]
    # An inference (agent_summary) a person made through the CLI is not a person's statement: the agent's beats it.
    store, _ = apply(make("Paris", "2026-03-01", "inferred"), by_agent("Berlin", "2026-09-01"))
    assert current(store) == [("berlin", "active")]
