"""The guarded write path of facts: the one way a fact enters or changes in a memory home.

Every writer (CLI, Python API, consolidation, MCP) calls these functions (episodes take the same guard
in memfiles.ops.record, where an error finding quarantines the episode instead). Each write:
1. validates key, value, subject, source and limits before any file is opened;
2. runs the guard (the error rules of `memfiles.lint.rules`) on every text field, refusing the write;
3. settles the fact against the key's current facts (`memfiles.ops.supersession`);
4. writes MEMORY.md atomically under the scope's lock and makes one git commit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from memfiles import clock
from memfiles.clock import When
from memfiles.errors import MemError, NotFoundError, RefusedError
from memfiles.format.config import Config
from memfiles.format.fields import KEY_PATTERN, SUBJECTS
from memfiles.format.layout import Paths, Scope
from memfiles.format.memoryfile import MemoryDoc, serialize
from memfiles.format.model import Fact, fact_id
from memfiles.ops import supersession
from memfiles.ops.commit import commit_or_undo, current, note_written, refuse_during_merge
from memfiles.ops.textfield import check_text_field
from memfiles.outcome import Outcome
from memfiles.store.files import atomic_write, read_memory, scope_lock

T = TypeVar("T")


@dataclass(slots=True)
class NewFact:
    """A fact as a writer proposes it, before validation and settlement."""

    key: str
    value: str
    subject: str = "user_preference"
    inferred: bool = False
    source: str | None = None
    ref: str | None = None
    at: str | When | None = None
    expires: str | When | None = None


def validate(new: NewFact, config: Config) -> Fact:
    """Turn a NewFact into a Fact, or raise RefusedError/MemError saying what is wrong. Opens no file."""
    if not KEY_PATTERN.fullmatch(new.key):
        raise MemError(
            f"invalid key {new.key!r}: keys are 1-64 characters of a-z, 0-9, '_', '.' or '-', starting with a letter"
        )
    if new.subject not in SUBJECTS:
        raise MemError(f"invalid subject {new.subject!r}: use one of {', '.join(SUBJECTS)}")
    source = new.source or ("agent_summary" if new.inferred else "user_statement")
    if source not in config.sources.allowed:
        raise RefusedError(
            "MEM601",
            f"source {source!r} is not allowed ([sources] allowed: {', '.join(config.sources.allowed)}; "
            "a source is added in mem.local.toml); "
            "text an agent read from the web or a tool is how injected instructions become memory",
        )
    check_text_field("value", new.value, config.memory.max_value_chars, key=new.key, subject=new.subject)
    if new.ref:
        check_text_field("source_ref", new.ref, config.memory.max_value_chars)
    stated_at = clock.parse_when(new.at) if new.at else clock.now()
    expires = _expiry(new.expires, stated_at)
    confidence = "inferred" if new.inferred else "stated"
    return Fact.model_validate(
        {
            "id": fact_id(new.key, new.value, stated_at, confidence, set()),
            "key": new.key,
            "value": new.value.strip(),
            "subject": new.subject,
            "confidence": confidence,
            "source": source,
            "source_ref": new.ref,
            "stated_at": stated_at,
            "valid_from": stated_at,
            "expires_at": expires,
            "status": "active",
        }
    )


def _expiry(expires: str | When | None, stated_at: When) -> When | None:
    """`--expires`: a date, a datetime, or `Nd` after the fact was stated."""
    if expires is None or expires == "":
        return None
    if isinstance(expires, str):
        return clock.parse_date_or_days(expires, start=stated_at)
    return clock.parse_when(expires)


def transaction(paths: Paths, scope: Scope, change: Callable[[MemoryDoc], tuple[T, str | None]]) -> T:
    """Read, change, write and commit one scope under its lock. `change` returns (result, commit message or None).

    The new facts are embedded for recall by meaning after the lock is released (never failing the write)."""
    with scope_lock(paths, scope):
        doc = read_memory(paths, scope)
        result, message = change(doc)
        if message is None:
            return result
        path = paths.memory_file(scope)
        refuse_during_merge(paths)
        before = {paths.relative(path): (path, current(path))}
        atomic_write(path, serialize(doc))
        commit_or_undo(paths, before, message)
    note_written(paths, scope, list(before))
    return result


def add_fact(paths: Paths, config: Config, scope: Scope, new: NewFact) -> Outcome:
    """Validate, guard, settle, write and commit one fact; the Outcome says what happened."""
    fact = validate(new, config)  # refuse before taking any lock or opening any file

    def change(doc: MemoryDoc) -> tuple[Outcome, str | None]:
        outcome = settle(doc.facts, fact, config, str(scope))
        return outcome, f"mem: add {scope} {fact.key}\n\n{outcome.line()}\n"

    return transaction(paths, scope, change)


def settle(
    facts: list[Fact], fact: Fact, config: Config, scope: str, *, taken: set[str] | None = None, held: int | None = None
) -> Outcome:
    """Settle a validated fact into a scope's facts, in place: the fact limit, review mode, then supersession.

    `facts` may be only the fact's key's facts (supersession looks at no other key) when `taken` (every id of
    the scope) and `held` (how many facts the scope holds) are given: consolidation settles thousands of
    candidates, each then costing its key's facts rather than the whole scope's."""
    held = len(facts) if held is None else held
    if held >= config.memory.max_facts_per_scope:
        raise RefusedError("MEM603", f"{scope} holds {held} facts, the limit (mem.toml max_facts_per_scope)")
    taken = {f.id for f in facts} if taken is None else taken
    fact.id = fact_id(fact.key, fact.value, fact.stated_at, fact.confidence, taken)
    if fact.source in config.sources.review:
        fact.status = "proposed"
        facts.append(fact)
        return Outcome(kind="proposed", scope=scope, key=fact.key, fact_id=fact.id)
    return supersession.add(facts, fact, scope)


def _find(doc: MemoryDoc, fact_id: str) -> Fact:
    for fact in doc.facts:
        if fact.id == fact_id:
            return fact
    raise NotFoundError(f"no fact {fact_id!r} in {doc.scope} (see `mem show --all`)")


def forget(paths: Paths, scope: Scope, target: str) -> list[Fact]:
    """Remove a fact (by id) or every fact of a key (history included) from MEMORY.md; one commit."""

    def change(doc: MemoryDoc) -> tuple[list[Fact], str | None]:
        gone = [f for f in doc.facts if f.id == target] or [f for f in doc.facts if f.key == target]
        if not gone:
            raise NotFoundError(f"no fact with id or key {target!r} in {scope} (see `mem show --all`)")
        doc.facts = [f for f in doc.facts if f not in gone]
        ids = ", ".join(f.id for f in gone)
        return gone, f"mem: forget {scope} {gone[0].key}\n\nremoved {ids} from the working tree\n"

    return transaction(paths, scope, change)


def resolve(paths: Paths, scope: Scope, key: str, keep: str) -> list[Fact]:
    """End a conflict on `key`: keep one fact, supersede the others with reason "resolved by person"."""

    def change(doc: MemoryDoc) -> tuple[list[Fact], str | None]:
        kept = _find(doc, keep)
        if kept.key != key:
            raise MemError(f"fact {keep} is about {kept.key!r}, not {key!r}")
        if not kept.is_current:
            raise MemError(f"fact {keep} is {kept.status}; keep one of the current facts of {key!r} (`mem show --all`)")
        ended = supersession.resolve(doc.facts, key, keep, clock.now())
        if not ended and kept.status == "active":
            raise MemError(f"{key!r} has no conflict in {scope}: {keep} is already its only current fact")
        return ended, f"mem: resolve {scope} {key}\n\nkept {keep}; superseded {', '.join(f.id for f in ended)}\n"

    return transaction(paths, scope, change)


def accept(paths: Paths, scope: Scope, target: str) -> Outcome:
    """A person accepts a proposed fact: it is settled like a new write (same supersession rules).

    The guard runs again on the fact as the file holds it now: a proposal edited by hand since it was written
    is refused like a new write would be, and stays proposed."""

    def change(doc: MemoryDoc) -> tuple[Outcome, str | None]:
        fact = _find(doc, target)
        if fact.status != "proposed":
            raise MemError(f"fact {target} is {fact.status}, not proposed")
        _guard_again(fact)
        doc.facts.remove(fact)
        outcome = supersession.add(doc.facts, fact, str(scope))
        return outcome, f"mem: accept {scope} {fact.key}\n\n{outcome.line()}\n"

    return transaction(paths, scope, change)


def _guard_again(fact: Fact) -> None:
    """The guard on a proposed fact as the file holds it now: one edited by hand since it was proposed is refused
    like a new write would be, and stays proposed (nothing of an accept that names it is written)."""
    from memfiles.ops.factguard import findings

    found = findings(fact)
    if found:
        first = found[0]
        raise RefusedError(
            first.code, f"fact {fact.id} {first.message}; it stays proposed (edit it in MEMORY.md, or reject it)"
        )


def accept_many(paths: Paths, scope: Scope, targets: list[str]) -> list[Outcome]:
    """A person accepts several proposed facts at once: each settled like a new write, oldest statement first
    (so a newer one supersedes an older one as it would have), in one commit. Nothing is written if one of
    them is missing or not proposed."""

    def change(doc: MemoryDoc) -> tuple[list[Outcome], str | None]:
        chosen = [_proposed(doc, target) for target in dict.fromkeys(targets)]
        for fact in chosen:
            _guard_again(fact)
        outcomes = []
        for fact in sorted(chosen, key=lambda f: clock.order(f.stated_at)):
            doc.facts.remove(fact)
            outcomes.append(supersession.add(doc.facts, fact, str(scope)))
        body = "".join(f"{o.line()}\n" for o in outcomes)
        if len(chosen) == 1:  # one fact accepted: the subject line names its key, as `accept` always has
            return outcomes, f"mem: accept {scope} {chosen[0].key}\n\n{body}"
        return outcomes, f"mem: accept {scope} ({len(outcomes)} proposed)\n\n{body}"

    return transaction(paths, scope, change)


def reject_many(paths: Paths, scope: Scope, targets: list[str]) -> list[Fact]:
    """A person rejects several proposed facts at once (each kept as history, `retracted`), in one commit."""

    def change(doc: MemoryDoc) -> tuple[list[Fact], str | None]:
        chosen = [_proposed(doc, target) for target in dict.fromkeys(targets)]
        for fact in chosen:
            fact.status, fact.reason, fact.valid_to = "retracted", "rejected by person", clock.now()
        body = "".join(f"retracted {f.id}\n" for f in chosen)
        return chosen, f"mem: reject {scope} ({len(chosen)} proposed)\n\n{body}"

    return transaction(paths, scope, change)


def _proposed(doc: MemoryDoc, target: str) -> Fact:
    fact = _find(doc, target)
    if fact.status != "proposed":
        raise MemError(f"fact {target} is {fact.status}, not proposed; nothing was changed")
    return fact


def reject(paths: Paths, scope: Scope, target: str) -> Fact:
    """A person rejects a proposed fact: it stays as history with status `retracted`."""

    def change(doc: MemoryDoc) -> tuple[Fact, str | None]:
        fact = _find(doc, target)
        if fact.status != "proposed":
            raise MemError(f"fact {target} is {fact.status}, not proposed")
        fact.status = "retracted"
        fact.reason = "rejected by person"
        fact.valid_to = clock.now()
        return fact, f"mem: reject {scope} {fact.key}\n\nretracted {fact.id}\n"

    return transaction(paths, scope, change)


def confirm(paths: Paths, config: Config, scope: Scope, key: str, ref: str | None = None) -> Outcome:
    """A person confirms a key's current value is still true: a restatement now (source `person`).

    Settled like a new write (`reinforced`): `last_confirmed` moves to now, so the fact is no longer
    possibly stale, and an inferred fact becomes stated. A key in conflict is resolved first.
    """

    def change(doc: MemoryDoc) -> tuple[Outcome, str | None]:
        current = [f for f in doc.facts if f.key == key and f.is_current]
        if not current:
            raise NotFoundError(f"no current fact with key {key!r} in {scope} (see `mem show`)")
        if len(current) > 1:
            raise MemError(f"{key!r} is in conflict in {scope}: keep one first (`mem resolve {key} --keep ID`)")
        fact = current[0]
        new = validate(NewFact(key, fact.value, fact.subject, False, "person", ref or "confirmed by person"), config)
        outcome = supersession.add(doc.facts, new, str(scope))
        return outcome, f"mem: confirm {scope} {key}\n\n{outcome.line()}\n"

    return transaction(paths, scope, change)


def expire(paths: Paths, scope: Scope, target: str, reason: str) -> Fact:
    """A person ends a current fact that is no longer true (`mem expire`): status `expired`, never replayed."""
    check_text_field("reason", reason, 500)

    def change(doc: MemoryDoc) -> tuple[Fact, str | None]:
        fact = _find(doc, target)
        if not fact.is_current:
            raise MemError(f"fact {target} is {fact.status}; only a current fact can expire (`mem show`)")
        fact.status, fact.valid_to, fact.reason = "expired", clock.now(), reason
        key = fact.key
        survivors = [f for f in doc.facts if f.key == key and f.is_current]
        if len(survivors) == 1 and survivors[0].status == "conflict":
            survivors[0].status, survivors[0].reason = "active", None
        return fact, f"mem: expire {scope} {key}\n\nexpired {fact.id}: {reason}\n"

    return transaction(paths, scope, change)
