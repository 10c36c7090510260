"""Three-way, fact-by-fact merge of two MEMORY.md versions (FORMAT.md, "Merging"). Pure: no git, no files.

Facts are matched by id (ids are deterministic, so the same fact added on two machines has one id):
1. per fact, a three-way choice: the side that changed it wins; a fact missing on one side but
   present in the base was forgotten there and stays forgotten; a fact new on either side is kept;
2. a fact both sides changed differently keeps the more decided status
   (retracted > expired > kept by a person > superseded > active/conflict > proposed), the later
   `last_confirmed`, and a `stated` confidence if either side upgraded it;
3. each key that both sides touched is settled again with the write path's rules (`supersession`):
   its current facts are replayed oldest statement first, so a newer stated value wins, stated
   beats inferred, and a genuine contradiction becomes a `conflict`. History is never dropped.
The notes below the frontmatter are merged as text by a caller-supplied three-way text merge.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from memfiles import supersession
from memfiles.memoryfile import MemoryDoc
from memfiles.model import Fact, normalise_value, sort_facts

# The reason `supersession.resolve` writes: a person chose between conflicting facts.
RESOLVED_BY_PERSON = "resolved by person"

# How decided a status is; when both sides changed a fact, the more decided version wins.
_PROPOSED, _CURRENT, _SUPERSEDED, _KEPT, _EXPIRED, _RETRACTED = range(6)
_RANK = {
    "proposed": _PROPOSED,
    "active": _CURRENT,
    "conflict": _CURRENT,
    "superseded": _SUPERSEDED,
    "expired": _EXPIRED,
    "retracted": _RETRACTED,
}

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
    facts = merge_facts(base.facts, ours.facts, theirs.facts)
    scope = _pick(base.scope, ours.scope, theirs.scope)
    if scope is None:  # both renamed the scope line differently: stay deterministic
        scope = min(ours.scope, theirs.scope)
    bom = _pick(base.bom, ours.bom, theirs.bom)
    body = _pick(base.body, ours.body, theirs.body)
    conflict = False
    if body is None:
        body, conflict = merge_text(base.body, ours.body, theirs.body)
    doc = MemoryDoc(scope=scope, facts=facts, body=body, bom=ours.bom if bom is None else bom)
    return MergeResult(doc, conflict)


def merge_facts(base: list[Fact], ours: list[Fact], theirs: list[Fact]) -> list[Fact]:
    """The merged facts of one scope, in canonical order; the inputs are not modified."""
    o, a, b = _by_id(base), _by_id(ours), _by_id(theirs)
    kept_a, kept_b = _kept(ours), _kept(theirs)
    merged: dict[str, Fact] = {}
    for fid in sorted(o.keys() | a.keys() | b.keys()):
        old, mine, other = o.get(fid), a.get(fid), b.get(fid)
        if old is not None and (mine is None or other is None):
            continue  # forgotten on one side (`mem forget`): forgetting wins over any edit
        if mine is None or other is None or mine == other:
            chosen = mine or other
        elif old == mine:
            chosen = other
        elif old == other:
            chosen = mine
        else:
            chosen = _combine(mine, other, fid in kept_a, fid in kept_b)
        assert chosen is not None
        merged[fid] = copy.copy(chosen)
    for key in sorted(_touched(o, a) & _touched(o, b)):
        _resettle([f for f in merged.values() if f.key == key and f.is_current])
    return sort_facts(list(merged.values()))


def _by_id(facts: list[Fact]) -> dict[str, Fact]:
    return {f.id: f for f in facts}


def _kept(facts: list[Fact]) -> set[str]:
    """Ids a person kept when resolving a conflict (the targets of `resolved by person`)."""
    return {f.superseded_by for f in facts if f.reason == RESOLVED_BY_PERSON and f.superseded_by}


def _touched(base: dict[str, Fact], side: dict[str, Fact]) -> set[str]:
    """Keys with a fact this side added, changed or forgot relative to the base."""
    keys = {f.key for fid, f in side.items() if base.get(fid) != f}
    return keys | {f.key for fid, f in base.items() if fid not in side}


def _rank(fact: Fact, kept: bool) -> int:
    if kept and fact.is_current:
        return _KEPT  # a person chose this value: only expiry or retraction ends it
    return _RANK[fact.status]


def _combine(a: Fact, b: Fact, kept_a: bool, kept_b: bool) -> Fact:
    """One version of a fact both sides changed: the more decided one, with monotonic fields joined."""
    rank_a, rank_b = _rank(a, kept_a), _rank(b, kept_b)
    if rank_a != rank_b:
        first, second = (a, b) if rank_a > rank_b else (b, a)
    else:
        # Same status: the version whose validity ended first (the shorter history link), then
        # a total order on the fields, so the result does not depend on which side is "ours".
        first, second = sorted((a, b), key=_order)
    out = copy.copy(first)
    if max(rank_a, rank_b) == _KEPT:
        out.status, out.valid_to, out.superseded_by, out.reason = "active", None, None, None
    out.last_confirmed = _latest(a.last_confirmed, b.last_confirmed)
    if out.confidence == "inferred" and second.confidence == "stated":
        out.confidence, out.source, out.source_ref = "stated", second.source, second.source_ref
    out.expires_at = _latest(a.expires_at, b.expires_at)
    return out


def _order(fact: Fact) -> tuple[tuple[bool, str], ...]:
    values = [fact.valid_to, *fact.to_dict().values()]
    return tuple((value is None, value or "") for value in values)


def _latest(x: str | None, y: str | None) -> str | None:
    if x is None or y is None:
        return x or y
    return x if (x[:10], x) >= (y[:10], y) else y


def _resettle(current: list[Fact]) -> None:
    """Settle one key's current facts again by replaying them, oldest statement first, through the rules."""
    for fact in current:
        fact.status = "active"
        fact.valid_to = fact.superseded_by = fact.reason = None
    order = sorted(current, key=lambda f: (f.stated_at[:10], f.stated_at, f.confidence == "stated", f.id))
    head: list[Fact] = []
    for fact in order:
        same = next((h for h in head if normalise_value(h.value) == normalise_value(fact.value)), None)
        if same is None:
            supersession.settle([*head, fact], fact)
            head = [h for h in (*head, fact) if h.is_current]
            continue
        # Both machines recorded the same value: like the write path, the first statement is
        # reinforced; the later one stays as a zero-length history entry linked to it.
        supersession.reinforce(same, fact)
        fact.status, fact.valid_to = "superseded", fact.valid_from
        fact.superseded_by, fact.reason = same.id, f"restates {same.id} (merged from another copy)"
        if len(head) > 1:  # a confidence upgrade may settle a standing conflict
            supersession.settle(head, same)
            head = [h for h in head if h.is_current]


def _pick(base: T, ours: T, theirs: T) -> T | None:
    """The three-way choice for one value: the side that changed it, or None when both changed it differently."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    return None
