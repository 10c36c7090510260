"""The fact-aware three-way merge of MEMORY.md (FORMAT.md, "Merging"), as pure functions."""

from __future__ import annotations

import copy
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from memfiles import clock
from memfiles.format.memoryfile import MemoryDoc, parse, serialize
from memfiles.format.model import Fact, fact_id, normalise_value
from memfiles.ops import supersession
from memfiles.ops.merge import merge, merge_facts

SCOPE = "user:alice"


def make(key: str, value: str, at: str, confidence: str = "stated") -> Fact:
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


def add(facts: list[Fact], *new: Fact) -> list[Fact]:
    """A copy of `facts` with `new` written through the write path's rules, in order."""
    out = copy.deepcopy(facts)
    for fact in new:
        supersession.add(out, copy.copy(fact), SCOPE)
    return out


def by_id(facts: list[Fact]) -> dict[str, Fact]:
    return {f.id: f for f in facts}


def current(facts: list[Fact], key: str) -> list[tuple[str, str]]:
    return sorted((f.value, f.status) for f in facts if f.key == key and f.is_current)


def dicts(facts: list[Fact]) -> list[dict[str, str | None]]:
    return sorted((f.to_dict() for f in facts), key=lambda d: str(d["id"]))


def no_text_merge(base: bytes, ours: bytes, theirs: bytes) -> tuple[bytes, bool]:
    raise AssertionError("the text merge must not run when one side kept the body")


# --- keys one side touched, and facts both sides added ------------------------------------------------


def test_distinct_keys_are_a_union_and_each_side_is_kept_verbatim() -> None:
    base = add([], make("channel", "email", "2026-05-01"))
    ours = add(base, make("timezone", "UTC", "2026-06-01"))
    theirs = add(base, make("language", "fr", "2026-06-02"), make("channel", "sms", "2026-06-03"))
    merged = merge_facts(base, ours, theirs, SCOPE)
    assert dicts(merged) == dicts(list({**by_id(ours), **by_id(theirs)}.values()))
    assert current(merged, "channel") == [("sms", "active")]
    assert current(merged, "timezone") == [("UTC", "active")] and current(merged, "language") == [("fr", "active")]


def test_the_same_fact_added_on_both_machines_is_one_fact() -> None:
    fact = make("channel", "email", "2026-05-01")
    merged = merge_facts([], add([], fact), add([], fact), SCOPE)
    assert [(f.id, f.status) for f in merged] == [(fact.id, "active")]


def test_one_side_unchanged_gives_the_other_side_exactly() -> None:
    base = add([], make("channel", "email", "2026-05-01"), make("plan", "Pro", "2026-05-01"))
    ours = add(base, make("channel", "sms", "2026-06-01"), make("plan", "Team", "2026-06-01", "inferred"))
    assert dicts(merge_facts(base, ours, base)) == dicts(ours)
    assert dicts(merge_facts(base, base, ours)) == dicts(ours)


# --- a key both sides changed is settled again by the write path's rules -------------------------------


def test_newer_statement_wins_and_the_history_chain_follows_time() -> None:
    email = make("channel", "email", "2026-05-01")
    sms, push = make("channel", "sms", "2026-06-01"), make("channel", "push", "2026-06-05")
    base = add([], email)
    merged = by_id(merge_facts(base, add(base, sms), add(base, push), SCOPE))
    assert (merged[push.id].status, merged[push.id].valid_to) == ("active", None)
    assert (merged[sms.id].status, merged[sms.id].superseded_by, merged[sms.id].valid_to) == (
        "superseded",
        push.id,
        clock.parse_when("2026-06-05"),
    )
    assert (merged[email.id].superseded_by, merged[email.id].valid_to) == (sms.id, clock.parse_when("2026-06-01"))


def test_same_day_contradiction_becomes_a_conflict() -> None:
    base = add([], make("plan", "Pro", "2026-05-01"))
    enterprise, team = make("plan", "Enterprise", "2026-06-03"), make("plan", "Team", "2026-06-03")
    merged = by_id(merge_facts(base, add(base, enterprise), add(base, team), SCOPE))
    assert (merged[enterprise.id].status, merged[enterprise.id].reason) == ("conflict", f"contradicts {team.id}")
    assert (merged[team.id].status, merged[team.id].reason) == ("conflict", f"contradicts {enterprise.id}")
    assert merged[base[0].id].status == "superseded"


def test_newer_inference_against_older_statement_is_a_conflict_and_stated_beats_inferred_same_day() -> None:
    base = add([], make("plan", "Pro", "2026-05-01"))
    guess = make("plan", "Team", "2026-06-03", "inferred")
    merged = merge_facts(base, add(base, guess), add(base, make("tz", "UTC", "2026-06-01")), SCOPE)
    assert current(merged, "plan") == [("Pro", "conflict"), ("Team", "conflict")]
    said = make("plan", "Team", "2026-06-03")
    merged = merge_facts(base, add(base, guess), add(base, said), SCOPE)
    assert current(merged, "plan") == [("Team", "active")]
    # As on one machine: the statement upgrades the same-day inference of the same value.
    facts = by_id(merged)
    assert (facts[guess.id].status, facts[guess.id].confidence, facts[guess.id].source) == (
        "active",
        "stated",
        "user_statement",
    )
    assert (facts[said.id].status, facts[said.id].superseded_by) == ("superseded", guess.id)


def test_the_same_value_recorded_on_both_machines_is_reinforced_not_duplicated() -> None:
    base = add([], make("channel", "sms", "2026-05-01"))
    early, late = make("channel", "email", "2026-06-01"), make("channel", "EMAIL", "2026-06-04")
    merged = by_id(merge_facts(base, add(base, early), add(base, late), SCOPE))
    assert merged[early.id].status == "active" and merged[early.id].last_confirmed == clock.parse_when("2026-06-04")
    assert (merged[late.id].status, merged[late.id].superseded_by) == ("superseded", early.id)
    assert merged[late.id].valid_to == merged[late.id].valid_from  # zero-length: never believed twice
    assert not supersession.valid_at(merged[late.id], clock.parse_when("2026-06-04"))


def test_a_reinforcement_on_one_machine_counts_as_a_later_statement() -> None:
    email, sms = make("channel", "email", "2026-05-01"), make("channel", "sms", "2026-06-01")
    base = add([], email)
    ours = add(base, sms)
    theirs = add(base, make("channel", "email", "2026-06-10"))  # said again, after sms was said elsewhere
    merged = merge_facts(base, ours, theirs, SCOPE)
    assert current(merged, "channel") == [("email", "active")]
    assert by_id(merged)[sms.id].status == "superseded"


def test_both_sides_confirming_keeps_the_latest_confirmation() -> None:
    fact = make("channel", "email", "2026-05-01")
    base = add([], fact)
    ours = add(base, make("channel", "email", "2026-06-01"))
    theirs = add(base, make("channel", "email", "2026-07-01"))
    merged = merge_facts(base, ours, theirs, SCOPE)
    assert [(f.id, f.status, f.last_confirmed) for f in merged if f.key == "channel" and f.is_current] == [
        (fact.id, "active", clock.parse_when("2026-07-01"))
    ]


# --- what a person decided stays decided ------------------------------------------------------------


def test_forget_on_one_side_wins_over_a_change_on_the_other() -> None:
    old, new = make("channel", "email", "2026-05-01"), make("channel", "sms", "2026-06-01")
    base = add([], old)
    forgotten: list[Fact] = []
    theirs = add(base, new)
    merged = by_id(merge_facts(base, forgotten, theirs, SCOPE))
    assert old.id not in merged and merged[new.id].status == "active"


def test_reject_on_one_side_wins_over_accept_on_the_other() -> None:
    proposed = make("channel", "email", "2026-05-01", "inferred")
    proposed.status = "proposed"
    base = [proposed]
    accepted = add([], proposed)
    rejected = copy.deepcopy(base)
    rejected[0].status, rejected[0].reason, rejected[0].valid_to = "retracted", "rejected by person", "2026-05-02"
    for ours, theirs in ((accepted, rejected), (rejected, accepted)):
        merged = merge_facts(base, ours, theirs, SCOPE)
        assert [(f.status, f.reason) for f in merged] == [("retracted", "rejected by person")]


def test_a_resolution_on_one_side_survives_a_new_fact_on_the_other() -> None:
    pro, team = make("plan", "Pro", "2026-06-03"), make("plan", "Team", "2026-06-03")
    base = add([], pro, team)
    ours = copy.deepcopy(base)
    supersession.resolve(ours, "plan", pro.id, clock.parse_when("2026-06-04"))
    theirs = add(base, make("tz", "UTC", "2026-06-01"), make("plan", "Pro", "2026-06-05"))
    merged = by_id(merge_facts(base, ours, theirs, SCOPE))
    assert (merged[team.id].status, merged[team.id].reason) == ("superseded", "resolved by person")
    assert merged[pro.id].status == "active" and merged[pro.id].last_confirmed == clock.parse_when("2026-06-05")


def test_persons_resolving_one_conflict_differently_bring_the_conflict_back() -> None:
    pro, team = make("plan", "Pro", "2026-06-03"), make("plan", "Team", "2026-06-03")
    base = add([], pro, team)
    ours, theirs = copy.deepcopy(base), copy.deepcopy(base)
    supersession.resolve(ours, "plan", pro.id, clock.parse_when("2026-06-04"))
    supersession.resolve(theirs, "plan", team.id, clock.parse_when("2026-06-04"))
    merged = merge_facts(base, ours, theirs, SCOPE)
    assert current(merged, "plan") == [("Pro", "conflict"), ("Team", "conflict")]


def test_inputs_are_not_modified() -> None:
    base = add([], make("channel", "email", "2026-05-01"))
    ours, theirs = add(base, make("channel", "sms", "2026-06-01")), add(base, make("channel", "push", "2026-06-02"))
    before = [dicts(x) for x in (base, ours, theirs)]
    merge_facts(base, ours, theirs, SCOPE)
    assert [dicts(x) for x in (base, ours, theirs)] == before


# --- the notes (body) and the document --------------------------------------------------------------


def doc(facts: list[Fact], body: bytes) -> MemoryDoc:
    return MemoryDoc(scope=SCOPE, facts=copy.deepcopy(facts), body=body)


def test_body_changed_on_one_side_is_taken_without_a_text_merge() -> None:
    base = doc([], b"# notes\n")
    result = merge(base, doc([], b"# notes\nmine\n"), doc([make("k", "v", "2026-01-01")], b"# notes\n"), no_text_merge)
    assert result.doc.body == b"# notes\nmine\n" and not result.body_conflict and len(result.doc.facts) == 1


def test_body_changed_on_both_sides_uses_the_text_merge_and_reports_its_conflict() -> None:
    calls: list[tuple[bytes, bytes, bytes]] = []

    def text_merge(base: bytes, ours: bytes, theirs: bytes) -> tuple[bytes, bool]:
        calls.append((base, ours, theirs))
        return b"<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n", True

    result = merge(doc([], b"x\n"), doc([], b"A\n"), doc([], b"B\n"), text_merge)
    assert calls == [(b"x\n", b"A\n", b"B\n")] and result.body_conflict
    text = serialize(result.doc)
    assert parse(text, "MEMORY.md", SCOPE).facts == []  # the frontmatter stays valid above the markers


# --- properties --------------------------------------------------------------------------------------

KEYS = ("plan", "channel")
VALUES = ("a", "b", "c")
TIMES = ("2026-06-01", "2026-06-02", "2026-06-02T10:00:00Z", "2026-06-03", "2026-06-04")

_index = st.integers(0, 30)
_add = st.tuples(st.just("add"), st.sampled_from(KEYS), st.sampled_from(VALUES), st.sampled_from(TIMES), st.booleans())
_op = st.one_of(
    _add,
    _add.map(lambda t: ("propose", *t[1:])),
    st.tuples(st.sampled_from(("forget", "resolve", "accept", "reject", "expire")), _index),
)
Op = tuple[object, ...]


def run(start: list[Fact], ops: list[Op]) -> list[Fact]:
    """Apply write-path operations (as `mem add/forget/resolve/accept/reject` and expiry would) to a copy."""
    facts = copy.deepcopy(start)
    for op in ops:
        name = op[0]
        if name in ("add", "propose"):
            key, value, at, inferred = str(op[1]), str(op[2]), str(op[3]), bool(op[4])
            confidence = "inferred" if inferred else "stated"
            fact = make(key, value, at, confidence)
            fact.id = fact_id(key, value, at, confidence, {f.id for f in facts})
            if name == "propose":
                fact.status = "proposed"
                facts.append(fact)
            else:
                supersession.add(facts, fact, SCOPE)
            continue
        index = int(str(op[1]))

        def pick(test: Callable[[Fact], bool], index: int = index) -> Fact | None:
            found = [f for f in facts if test(f)]
            return found[index % len(found)] if found else None

        if name == "forget" and facts:
            facts.remove(facts[index % len(facts)])
        elif name == "resolve" and (chosen := pick(lambda f: f.status == "conflict")):
            supersession.resolve(facts, chosen.key, chosen.id, clock.parse_when("2026-06-05"))
        elif name == "accept" and (chosen := pick(lambda f: f.status == "proposed")):
            facts.remove(chosen)
            supersession.add(facts, chosen, SCOPE)
        elif name == "reject" and (chosen := pick(lambda f: f.status == "proposed")):
            chosen.status, chosen.reason, chosen.valid_to = "retracted", "rejected by person", "2026-06-05"
        elif name == "expire" and (chosen := pick(lambda f: f.is_current)):
            chosen.status, chosen.valid_to = "expired", "2026-06-05"
    return facts


_ops = st.lists(_op, max_size=6)


@settings(max_examples=300, deadline=None)
@given(_ops, _ops, _ops)
def test_merge_is_symmetric_loses_nothing_and_keeps_ids_unique(
    o_ops: list[Op], a_ops: list[Op], b_ops: list[Op]
) -> None:
    base = run([], o_ops)
    ours, theirs = run(base, a_ops), run(base, b_ops)
    merged = merge_facts(base, ours, theirs, SCOPE)
    assert dicts(merged) == dicts(merge_facts(base, theirs, ours, SCOPE))
    ids = [f.id for f in merged]
    assert len(ids) == len(set(ids))
    o, a, b = by_id(base), by_id(ours), by_id(theirs)
    for fid in a.keys() | b.keys():
        forgotten = fid in o and (fid not in a or fid not in b)
        assert fid in ids or forgotten, f"{fid} lost"
    assert dicts(merge_facts(base, ours, base, SCOPE)) == dicts(ours)


_statement = _add.map(lambda t: (*t[:4], False))


@settings(max_examples=300, deadline=None)
@given(st.lists(_statement, max_size=4), st.lists(_statement, max_size=4), st.lists(_statement, max_size=4))
def test_two_machines_believe_what_one_machine_would(o_ops: list[Op], a_ops: list[Op], b_ops: list[Op]) -> None:
    """Merging is receiving the other machine's statements: the same current belief as one machine.

    Statements only: the write path keeps no trace of an inference that repeats a stated value, so
    with inferences the files alone cannot always tell what one machine would have seen.
    """
    base = run([], o_ops)
    merged = merge_facts(base, run(base, a_ops), run(base, b_ops), SCOPE)

    def belief(facts: list[Fact]) -> list[tuple[str, str, str]]:
        return sorted((f.key, normalise_value(f.value), f.status) for f in facts if f.is_current)

    assert belief(merged) == belief(run([], [*o_ops, *a_ops, *b_ops])) == belief(run([], [*o_ops, *b_ops, *a_ops]))


def test_an_inference_one_machine_absorbed_meets_a_statement_the_other_made_before_it() -> None:
    """Serially: email stated (Jun 1), sms stated (Jun 10), email inferred (Jun 20): the newer
    inference and the older statement conflict, whichever machine heard which."""
    said = make("channel", "email", "2026-06-01")
    base = add([], said)
    ours = add(base, make("channel", "email", "2026-06-20", "inferred"))
    assert by_id(ours)[said.id].last_inferred == clock.parse_when("2026-06-20")
    theirs = add(base, make("channel", "sms", "2026-06-10"))
    for merged in (merge_facts(base, ours, theirs, SCOPE), merge_facts(base, theirs, ours, SCOPE)):
        assert current(merged, "channel") == [("email", "conflict"), ("sms", "conflict")]
        revived = next(f for f in merged if f.value == "email" and f.is_current)
        assert (revived.confidence, revived.stated_at) == ("inferred", clock.parse_when("2026-06-20"))
        assert by_id(merged)[said.id].status == "superseded"
