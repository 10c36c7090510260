"""Three-way, fact-by-fact merge of two MEMORY.md versions (FORMAT.md, "Merging"). Pure: no git, no files.

Facts are matched by id (ids are deterministic, so the same fact added on two machines has one id):
1. per fact, a three-way choice: the side that changed it wins; a fact missing on one side but
   present in the base was forgotten there and stays forgotten (unless that side still holds its
   key and value, i.e. a replay absorbed it, and the other side touched the key too); a fact new
   on either side is kept;
2. a fact both sides changed differently keeps the more decided version (retracted > expired >
   kept by a person > superseded by a person > settled by the rules > proposed), a statement over
   an inference, and the later `last_confirmed` and `expires_at`;
3. each key both sides touched is settled again by the write path's own rules: its rule-made
   history (current facts, and facts the rules superseded, restatements included) is replayed
   through `supersession.add` in the order things were said. A newer statement wins, stated beats
   inferred, a genuine contradiction becomes a `conflict`. What a person or a process decided
   (resolve, reject, expiry) is kept as it is. A fact both machines recorded stays, linked as a
   restatement, so no fact id is lost.
The notes below the frontmatter are merged as text by a caller-supplied three-way text merge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from memfiles import clock
from memfiles.clock import When
from memfiles.format.memoryfile import MemoryDoc
from memfiles.format.model import Fact, fact_id, normalise_value, sort_facts
from memfiles.ops import supersession

# The reason `supersession.resolve` writes: a person chose between conflicting facts.
RESOLVED_BY_PERSON = supersession.RESOLVED_BY_PERSON

# How decided a version is; when both sides changed a fact differently, the more decided one wins.
_PROPOSED, _RULES, _PERSON_SUPERSEDED, _PERSON_KEPT, _EXPIRED, _RETRACTED = range(6)

T = TypeVar("T")
TextMerge = Callable[[bytes, bytes, bytes], tuple[bytes, bool]]
"""A three-way text merge: (base, ours, theirs) -> (merged bytes, whether conflict markers were left)."""


@dataclass(slots=True)
class MergeResult:
    """The merged document, and whether its notes (the body) still hold conflict markers."""

    doc: MemoryDoc
    body_conflict: bool


def merge(base: MemoryDoc, ours: MemoryDoc, theirs: MemoryDoc, merge_text: TextMerge) -> MergeResult:
    """Merge two versions of one MEMORY.md against their common ancestor."""
    facts = merge_facts(base.facts, ours.facts, theirs.facts, ours.scope or theirs.scope)
    scope = _pick(base.scope, ours.scope, theirs.scope)
    if scope is None:  # both changed the scope line differently: stay deterministic
        scope = min(ours.scope, theirs.scope)
    bom = _pick(base.bom, ours.bom, theirs.bom)
    body = _pick(base.body, ours.body, theirs.body)
    conflict = False
    if body is None:
        body, conflict = merge_text(base.body, ours.body, theirs.body)
    doc = MemoryDoc(scope=scope, facts=facts, body=body, bom=ours.bom if bom is None else bom)
    return MergeResult(doc, conflict)


def merge_facts(base: list[Fact], ours: list[Fact], theirs: list[Fact], scope: str = "") -> list[Fact]:
    """The merged facts of one scope, in canonical order; the inputs are not modified."""
    o, a, b = _by_id(base), _by_id(ours), _by_id(theirs)
    kept_a, kept_b = _kept(ours), _kept(theirs)
    contested = _touched(o, a) & _touched(o, b)
    merged: list[Fact] = []
    for fid in sorted(o.keys() | a.keys() | b.keys()):
        old, mine, other = o.get(fid), a.get(fid), b.get(fid)
        chosen: Fact | None
        if old is not None and (mine is None or other is None):
            survivor, gone = (other, a) if mine is None else (mine, b)
            if survivor is None or old.key not in contested or not _absorbed(old, gone):
                continue  # forgotten on one side (`mem forget`): forgetting wins over any edit
            # Absorbed by a replay there (its key and value are still held), while the other side's
            # new facts may link to it: keep it so the key's replay absorbs it again, linked.
            chosen = survivor
        elif mine is None or other is None or mine == other:
            chosen = mine or other
        elif old == mine:
            chosen = other
        elif old == other:
            chosen = mine
        else:
            chosen = _combine(mine, other, fid in kept_a, fid in kept_b)
        assert chosen is not None
        merged.append(chosen.model_copy())
    for key in sorted(contested):
        merged = _replay(merged, key, scope)
    return sort_facts(merged)


def _by_id(facts: list[Fact]) -> dict[str, Fact]:
    return {f.id: f for f in facts}


def _kept(facts: list[Fact]) -> set[str]:
    """Ids a person kept when resolving a conflict (the targets of `resolved by person`)."""
    return {f.superseded_by for f in facts if f.reason == RESOLVED_BY_PERSON and f.superseded_by}


def _touched(base: dict[str, Fact], side: dict[str, Fact]) -> set[str]:
    """Keys with a fact this side added, changed or forgot relative to the base."""
    keys = {f.key for fid, f in side.items() if base.get(fid) != f}
    return keys | {f.key for fid, f in base.items() if fid not in side}


def _absorbed(fact: Fact, side: dict[str, Fact]) -> bool:
    """Whether `side` still holds `fact`'s key and value: a replay absorbed the fact there, no one forgot it."""
    value = normalise_value(fact.value)
    return any(f.key == fact.key and normalise_value(f.value) == value for f in side.values())


def _rank(fact: Fact, kept: bool) -> int:
    if fact.status == "retracted":
        return _RETRACTED
    if fact.status == "expired":
        return _EXPIRED
    if fact.is_current and kept:
        return _PERSON_KEPT  # beats the other side's person-made supersession: persons disagree
    if fact.status == "superseded" and fact.reason == RESOLVED_BY_PERSON:
        return _PERSON_SUPERSEDED
    return _PROPOSED if fact.status == "proposed" else _RULES


def _combine(a: Fact, b: Fact, kept_a: bool, kept_b: bool) -> Fact:
    """One version of a fact both sides changed: the more decided one, with monotonic fields joined."""
    rank_a, rank_b = _rank(a, kept_a), _rank(b, kept_b)
    if rank_a != rank_b:
        first = a if rank_a > rank_b else b
    elif a.confidence != b.confidence:
        first = a if a.confidence == "stated" else b  # a statement upgraded an inference: it stays upgraded
    else:
        first = min(a, b, key=_order)  # a total order on the fields: the result cannot depend on the side
    out = first.model_copy()
    if max(rank_a, rank_b) == _PERSON_KEPT:
        # Kept by a person on one side, ended by a person on the other: back to the rules.
        out.status, out.valid_to, out.superseded_by, out.reason = "active", None, None, None
    if a.confidence == b.confidence:
        out.last_confirmed = _latest(a.last_confirmed, b.last_confirmed)
    out.last_inferred = _latest(a.last_inferred, b.last_inferred)
    out.expires_at = _latest(a.expires_at, b.expires_at)
    return out


def _order(fact: Fact) -> tuple[tuple[bool, str], ...]:
    return tuple((value is None, value or "") for value in fact.to_dict().values())


def _latest(x: When | None, y: When | None) -> When | None:
    if x is None or y is None:
        return x or y
    return x if clock.order(x) >= clock.order(y) else y


def _replay(facts: list[Fact], key: str, scope: str) -> list[Fact]:
    """Settle one key again: replay its rule-made facts, in the order they were said, through the write path's rules."""
    ids = _by_id(facts)
    replayed = [f for f in facts if f.key == key and supersession.rule_made(f, ids)]
    replay_ids = {f.id for f in replayed}
    # History a person linked to a replayed fact (the loser of `mem resolve`) steps aside during the
    # replay: its later valid_to would otherwise mark the fact it points to as stale.
    aside = [f for f in facts if f.key == key and f.id not in replay_ids and f.superseded_by in replay_ids]
    moved = replay_ids | {f.id for f in aside}
    work = [f for f in facts if f.id not in moved]
    statements = sorted(supersession.replay_statements(replayed), key=supersession.replay_order)
    for statement in statements:
        again = not statement.id
        if again:
            taken = {f.id for f in facts} | {f.id for f in work} | {s.id for s in statements}
            statement.id = fact_id(statement.key, statement.value, statement.stated_at, statement.confidence, taken)
        outcome = supersession.add(work, statement, scope)
        if outcome.kind == "reinforced" and not again and outcome.fact_id != statement.id:
            # Both machines recorded this value: the first statement absorbed it (as on one machine);
            # the fact stays as a zero-length history entry so its id is not lost.
            statement.status, statement.valid_to = "superseded", statement.valid_from
            statement.superseded_by = outcome.fact_id
            statement.reason = f"restates {outcome.fact_id} (merged from another copy)"
            work.append(statement)
    return work + aside


def _pick(base: T, ours: T, theirs: T) -> T | None:
    """The three-way choice for one value: the side that changed it, or None when both changed it differently."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    return None
