"""Keyed supersession (FORMAT.md, "Outcome rules"): pure functions over a scope's facts.

For one key, the facts whose status is `active` or `conflict` are the current belief. A new fact
is settled against them by `stated_at`, never by arrival order:
- same value (case/whitespace-insensitive): reinforce, no new fact;
- a newer fact beats an older one when the newer is stated or the older is inferred;
- at the same time, stated beats inferred;
- anything else (newer inferred vs older stated, same-time same-confidence) is a conflict.
"""

from __future__ import annotations

from memfiles import clock
from memfiles.model import Fact, Outcome, normalise_value, sort_facts


def beats(a: Fact, b: Fact) -> bool:
    """Whether fact `a` supersedes fact `b` on the same key."""
    order = clock.compare(a.stated_at, b.stated_at)
    if order > 0:
        return a.confidence == "stated" or b.confidence == "inferred"
    if order == 0:
        return a.confidence == "stated" and b.confidence == "inferred"
    return False


def _reason(winner: Fact, loser: Fact, new: Fact) -> str:
    if loser is new and clock.compare(loser.stated_at, winner.stated_at) < 0:
        return "stated before the current value (arrived late); kept as history"
    if clock.compare(winner.stated_at, loser.stated_at) == 0:
        return "stated beats inferred"
    return f"newer {winner.confidence} value"


def _supersede(loser: Fact, winner: Fact, reason: str) -> None:
    loser.status = "superseded"
    loser.valid_to = winner.valid_from
    loser.superseded_by = winner.id
    loser.reason = reason


def settle(candidates: list[Fact], new: Fact) -> None:
    """Set the statuses of one key's current facts: one active winner, or the unbeaten ones in conflict."""
    winners = [c for c in candidates if not any(beats(o, c) for o in candidates if o is not c)]
    for fact in candidates:
        if fact in winners:
            fact.status = "active" if len(winners) == 1 else "conflict"
            if fact.status == "active":
                fact.valid_to = fact.superseded_by = fact.reason = None
            continue
        beaters = [o for o in candidates if o is not fact and beats(o, fact)]
        # Prefer a winner as the successor, then the newest beater, so the history chain is short.
        beaters.sort(key=lambda o: (o in winners, o.stated_at[:10], o.stated_at), reverse=True)
        _supersede(fact, beaters[0], _reason(beaters[0], fact, new))
    for fact in winners:
        if fact.status == "conflict":
            fact.reason = "contradicts " + ", ".join(w.id for w in winners if w is not fact)


def reinforce(target: Fact, new: Fact) -> None:
    """Record that `new` says again what `target` says: touch last_confirmed, upgrade inferred to stated."""
    latest = target.last_confirmed or target.stated_at
    if clock.compare(new.stated_at, latest) >= 0:
        target.last_confirmed = new.stated_at
    if new.confidence == "stated" and target.confidence == "inferred":
        target.confidence = "stated"
        target.source, target.source_ref = new.source, new.source_ref
    if new.expires_at:
        target.expires_at = new.expires_at


def add(facts: list[Fact], new: Fact, scope: str) -> Outcome:
    """Apply a new fact to a scope's facts in place and say what happened."""
    head = [f for f in facts if f.key == new.key and f.is_current]
    same = [f for f in head if normalise_value(f.value) == normalise_value(new.value)]
    if same:
        reinforce(same[0], new)
        if len(head) > 1:  # a confidence upgrade may settle a standing conflict
            settle(head, new)
        return Outcome("reinforced", scope, new.key, fact_id=same[0].id)
    facts.append(new)
    if not head:
        later = _later_history(facts, new)
        if later is not None:
            _supersede(new, later, "stated before this key was last superseded (arrived late)")
            new.valid_to = later.valid_to
            new.superseded_by = later.superseded_by
            return Outcome("superseded", scope, new.key, fact_id=new.id, ids=[new.id, later.superseded_by or later.id])
        new.status = "active"
        return Outcome("added", scope, new.key, fact_id=new.id)
    settle([*head, new], new)
    if new.status == "conflict":
        ids = [f.id for f in sorted([*head, new], key=lambda f: (f.stated_at, f.id)) if f.status == "conflict"]
        return Outcome("conflict", scope, new.key, fact_id=new.id, ids=ids)
    if new.status == "superseded":
        return Outcome("superseded", scope, new.key, fact_id=new.id, ids=[new.id, new.superseded_by or ""])
    old = ",".join(f.id for f in head if f.status == "superseded")
    if not old:  # the new fact won but only ended a conflict's partner
        return Outcome("added", scope, new.key, fact_id=new.id)
    return Outcome("superseded", scope, new.key, fact_id=new.id, ids=[old, new.id])


def _later_history(facts: list[Fact], new: Fact) -> Fact | None:
    """A history fact of the key whose validity ended after `new` was stated (so `new` is stale)."""
    for fact in facts:
        if (
            fact is not new
            and fact.key == new.key
            and fact.status in ("superseded", "expired")
            and fact.valid_to
            and clock.compare(new.stated_at, fact.valid_to) < 0
        ):
            return fact
    return None


def resolve(facts: list[Fact], key: str, keep_id: str, today: str) -> list[Fact]:
    """A person ends a conflict: `keep_id` becomes active, the key's other current facts are superseded."""
    keep = next((f for f in facts if f.id == keep_id and f.key == key), None)
    if keep is None or not keep.is_current:
        return []
    keep.status = "active"
    keep.valid_to = keep.reason = keep.superseded_by = None
    ended = [f for f in facts if f.key == key and f.is_current and f is not keep]
    for fact in ended:
        fact.status = "superseded"
        fact.valid_to = today
        fact.superseded_by = keep.id
        fact.reason = "resolved by person"
    return ended


def valid_at(fact: Fact, when: str) -> bool:
    """Whether a fact was believed at `when` (world time: valid_from <= when < valid_to)."""
    if fact.status in ("proposed", "retracted"):
        return False
    if clock.compare(fact.valid_from, when) > 0:
        return False
    if fact.valid_to and clock.compare(when, fact.valid_to) >= 0:
        return False
    return not (fact.expires_at and clock.compare(when, fact.expires_at) >= 0)


def visible(facts: list[Fact], everything: bool = False) -> list[Fact]:
    """What `mem show` lists: the current facts (active and conflicts), or every fact with `everything`."""
    chosen = facts if everything else [f for f in facts if f.is_current]
    return sort_facts(chosen)


def chain(facts: list[Fact], key: str) -> list[Fact]:
    """One key's whole history, oldest statement first."""
    return sort_facts([f for f in facts if f.key == key])
