"""Keyed supersession (FORMAT.md, "Outcome rules"): pure functions over a scope's facts.

For one key, the facts whose status is `active` or `conflict` are the current belief. A new fact
is settled against them by `stated_at`, never by arrival order:
- same value (case/whitespace-insensitive): reinforce, no new fact;
- a newer fact beats an older one when the newer is stated or the older is inferred;
- at the same time, stated beats inferred;
- an assistant's fact (`source: agent`, written over MCP) never beats what a person stated;
- anything else (newer inferred vs older stated, same-time same-confidence, an assistant's statement against
  a person's) is a conflict.
"""

from __future__ import annotations

from collections.abc import Mapping

from memfiles import clock
from memfiles.clock import When
from memfiles.format.model import Fact, fact_id, normalise_value, sort_facts
from memfiles.outcome import Outcome


def latest(fact: Fact) -> When:
    """When a fact was last said: a reinforcement restates it, so it counts from then."""
    return fact.last_confirmed or fact.stated_at


AGENT = "agent"  # the source of what an assistant wrote (over MCP), whatever it says the user said


def said_by_person(fact: Fact) -> bool:
    """Whether a person stated `fact` (stated, and not written by an assistant as `agent`)."""
    return fact.confidence == "stated" and fact.source != AGENT


def beats(a: Fact, b: Fact) -> bool:
    """Whether fact `a` supersedes fact `b` on the same key. An assistant's fact never supersedes what a person
    stated, however it is dated: the two are a conflict a person settles."""
    if a.source == AGENT and said_by_person(b):
        return False
    order = clock.compare(latest(a), latest(b))
    if order > 0:
        return a.confidence == "stated" or b.confidence == "inferred"
    if order == 0:
        return a.confidence == "stated" and b.confidence == "inferred"
    return False


RESOLVED_BY_PERSON = "resolved by person"
LATE = "stated before the current value (arrived late); kept as history"


def _reason(winner: Fact, loser: Fact, new: Fact) -> str:
    if loser is new and clock.compare(latest(loser), latest(winner)) < 0:
        return LATE
    if clock.compare(latest(winner), latest(loser)) == 0:
        return "stated beats inferred"
    return f"newer {winner.confidence} value"


def _supersede(loser: Fact, winner: Fact, reason: str) -> None:
    loser.status = "superseded"
    loser.valid_to = latest(winner)
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
        beaters.sort(key=lambda o: (o in winners, clock.order(latest(o))), reverse=True)
        _supersede(fact, beaters[0], _reason(beaters[0], fact, new))
    for fact in winners:
        if fact.status == "conflict":
            fact.reason = "contradicts " + ", ".join(w.id for w in winners if w is not fact)


def reinforce(target: Fact, new: Fact) -> None:
    """Record that `new` says again what `target` says (no new fact).

    A statement of the same confidence moves `last_confirmed` forward. A statement upgrades an
    inferred fact: it becomes the statement (its time and provenance); the inference's time is kept
    in `last_inferred`. An inference never re-confirms what the user stated: when it is later than
    the statement it only moves `last_inferred`, so a late statement in between still meets it.
    """
    if new.confidence == "stated" and target.confidence == "inferred":
        inferred_at = latest(target)
        target.confidence = "stated"
        target.source, target.source_ref = new.source, new.source_ref
        if clock.compare(new.stated_at, target.stated_at) < 0:
            target.stated_at = target.valid_from = new.stated_at
            target.last_confirmed = None
        else:
            target.last_confirmed = new.stated_at
        _note_inference(target, inferred_at)
    elif new.confidence == target.confidence and clock.compare(new.stated_at, latest(target)) > 0:
        target.last_confirmed = new.stated_at
        if target.last_inferred and clock.compare(target.last_inferred, new.stated_at) <= 0:
            target.last_inferred = None  # restated since: the inference can no longer change anything
    elif new.confidence == "inferred" and target.confidence == "stated":
        _note_inference(target, new.stated_at)
    if new.expires_at:
        target.expires_at = new.expires_at


def _note_inference(target: Fact, when: When) -> None:
    """Keep the time of an absorbed inference when it is later than anything `target` was stated at."""
    if clock.compare(when, latest(target)) > 0 and (
        target.last_inferred is None or clock.compare(when, target.last_inferred) > 0
    ):
        target.last_inferred = when


def last_said(fact: Fact) -> When:
    """The last time anything repeated this fact, an absorbed inference included."""
    if fact.last_inferred and clock.compare(fact.last_inferred, latest(fact)) > 0:
        return fact.last_inferred
    return latest(fact)


def add(facts: list[Fact], new: Fact, scope: str) -> Outcome:
    """Apply a new fact to a scope's facts in place and say what happened.

    When the new fact was stated before facts already settled on its key (a late arrival), the
    key's rule-made history is replayed in `stated_at` order, so the result is what a serial replay
    of every statement in the order they were made gives, whatever order they arrived in.
    """
    ids = {f.id: f for f in facts}
    replayable = [f for f in facts if f.key == new.key and rule_made(f, ids)]
    if all(clock.compare(last_said(f), new.stated_at) <= 0 for f in replayable):
        absorbed_by = _step(facts, new)
        return _describe(facts, new, absorbed_by, scope)
    statements = sorted([new, *replay_statements(replayable)], key=replay_order)
    work = [f for f in facts if f not in replayable]
    absorbed_by = None
    for statement in statements:
        if not statement.id:
            taken = {f.id for f in work} | {f.id for f in statements}
            statement.id = fact_id(statement.key, statement.value, statement.stated_at, statement.confidence, taken)
        target = _step(work, statement)
        if statement is new:
            absorbed_by = target
    facts[:] = work
    if new.status == "superseded":
        new.reason = LATE
    return _describe(facts, new, absorbed_by, scope)


def rule_made(fact: Fact, ids: Mapping[str, Fact]) -> bool:
    """Whether the rules (not a person, an episode or expiry) gave this fact its status, so a replay may redo it."""
    if fact.is_current:
        return True
    if fact.status != "superseded" or fact.reason == RESOLVED_BY_PERSON or fact.superseded_by is None:
        return False
    successor = ids.get(fact.superseded_by)
    return successor is not None and successor.key == fact.key


def replay_statements(facts: list[Fact]) -> list[Fact]:
    """The statements that made `facts`: each fact reset to how it was first said (in place), plus a
    fresh, id-less restatement at its `last_confirmed` (a reinforcement is a statement of its own)
    and an id-less inference at its `last_inferred` (an absorbed inference, from `agent_summary`)."""
    statements: list[Fact] = []
    for fact in facts:
        restated, inferred = fact.last_confirmed, fact.last_inferred
        fact.status = "active"
        fact.valid_to = fact.superseded_by = fact.reason = fact.last_confirmed = fact.last_inferred = None
        statements.append(fact)
        if restated:
            statements.append(fact.model_copy(update={"id": "", "stated_at": restated, "valid_from": restated}))
        if inferred:
            statements.append(
                fact.model_copy(
                    update={
                        "id": "",
                        "confidence": "inferred",
                        "source": "agent_summary",
                        "source_ref": None,
                        "stated_at": inferred,
                        "valid_from": inferred,
                        "expires_at": None,
                    }
                )
            )
    return statements


def replay_order(fact: Fact) -> tuple[tuple[object, ...], bool, str, str]:
    """The order a replay settles statements in: when said, an inference before a statement at the same time."""
    return (clock.order(fact.stated_at), fact.confidence != "inferred", fact.value, fact.id)


def _step(facts: list[Fact], new: Fact) -> Fact | None:
    """Settle one statement against the key's current facts; returns the fact it reinforced, if any."""
    head = [f for f in facts if f.key == new.key and f.is_current]
    same = [f for f in head if normalise_value(f.value) == normalise_value(new.value)]
    if same:
        reinforce(same[0], new)
        if len(head) > 1:  # a confidence upgrade or a restatement may settle a standing conflict
            settle(head, new)
        return same[0]
    facts.append(new)
    if head:
        settle([*head, new], new)
        return None
    later = _later_history(facts, new)
    if later is not None:
        _supersede(new, later, "stated before this key was last superseded (arrived late)")
        new.valid_to = later.valid_to
        new.superseded_by = later.superseded_by
    else:
        new.status = "active"
    return None


def _describe(facts: list[Fact], new: Fact, absorbed_by: Fact | None, scope: str) -> Outcome:
    """The outcome of `new` once its key has settled."""
    if absorbed_by is not None:
        return Outcome(kind="reinforced", scope=scope, key=new.key, fact_id=absorbed_by.id)
    if new.status == "conflict":
        rivals = sorted(
            (f for f in facts if f.key == new.key and f.status == "conflict"),
            key=lambda f: (clock.order(f.stated_at), f.id),
        )
        return Outcome(kind="conflict", scope=scope, key=new.key, fact_id=new.id, ids=[f.id for f in rivals])
    if new.status == "superseded":
        return Outcome(
            kind="superseded", scope=scope, key=new.key, fact_id=new.id, ids=[new.id, new.superseded_by or ""]
        )
    old = ",".join(f.id for f in facts if f.superseded_by == new.id and f.valid_to == latest(new))
    if not old:
        return Outcome(kind="added", scope=scope, key=new.key, fact_id=new.id)
    return Outcome(kind="superseded", scope=scope, key=new.key, fact_id=new.id, ids=[old, new.id])


def _later_history(facts: list[Fact], new: Fact) -> Fact | None:
    """A history fact of the key whose validity ended after `new` was stated (so `new` is stale)."""
    for fact in facts:
        if (
            fact is not new
            and fact.key == new.key
            and fact.status in ("superseded", "expired")
            and fact.superseded_by != new.id  # a person kept `new` over this one: it cannot make `new` stale
            and fact.valid_to
            and clock.compare(new.stated_at, fact.valid_to) < 0
        ):
            return fact
    return None


def resolve(facts: list[Fact], key: str, keep_id: str, today: When) -> list[Fact]:
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
        fact.reason = RESOLVED_BY_PERSON
    return ended


def valid_at(fact: Fact, when: When) -> bool:
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
