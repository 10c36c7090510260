"""Writing what `mem import` read from another tool (docs/FORMAT.md, "Import"), one commit per import.

Free-text memories become facts on the key vocabulary's key when they state one of its facts
(memfiles.capture.statements.from_note: "Prefers to be contacted by email" → notification_channel = email),
else with a derived key (memfiles.imports.derived_key), `source: import`,
`source_ref` naming the file and the record, and `status: proposed`: a person accepts them (`mem
review`). Each is validated and guarded as `mem add` would (a refusal is counted and said, the rest
goes on); one whose key and value the scope already has (in any status, a rejected one included) is
already present. Conversations become episodes through the episode write path, `source_ref` naming the
file and the conversation (an instruction-shaped one is quarantined, or refused under `[guard] episodes =
"refuse"`); an episode already recorded is present. A dry run decides the same and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memfiles import clock
from memfiles.capture.statements import from_note
from memfiles.errors import RefusedError
from memfiles.format.config import Config
from memfiles.format.layout import Paths, Scope
from memfiles.format.memoryfile import MemoryDoc
from memfiles.format.model import Fact, normalise_value
from memfiles.imports import Memory, derived_key
from memfiles.ops.writepath import NewFact, transaction, validate
from memfiles.store.files import read_memory

SOURCE = "import"


@dataclass(slots=True)
class Imported:
    """What importing into one scope decided."""

    added: int = 0
    proposed: int = 0
    quarantined: int = 0
    refused: int = 0
    present: int = 0
    why: list[str] = field(default_factory=list)


def memories(paths: Paths, config: Config, scope: Scope, found: list[Memory], dry_run: bool) -> Imported:
    """Propose each memory as a fact of `scope`; one commit for all of them."""
    result = Imported()
    checked: list[Fact] = []
    for memory in found:
        at = _day(memory.at)
        new = NewFact(derived_key(memory), memory.text, "user_preference", True, SOURCE, memory.ref, at)
        stated = None if memory.about else from_note(memory.text)
        if stated is not None:  # a fact of the key vocabulary: it lands on its key, to supersede or conflict there
            new.key, new.value, new.subject = stated.key, stated.value, stated.subject
        try:
            fact = validate(new, config)
        except RefusedError as exc:
            result.refused += 1
            result.why.append(f"refused {memory.ref}: {exc.rule}: {exc.why}")
            continue
        fact.status = "proposed"
        checked.append(fact)

    def change(doc: MemoryDoc) -> tuple[Imported, str | None]:
        known = {(f.key, normalise_value(f.value)) for f in doc.facts}
        fresh = []
        for fact in checked:
            if (fact.key, normalise_value(fact.value)) in known:
                result.present += 1
                continue
            known.add((fact.key, normalise_value(fact.value)))
            fresh.append(fact)
        result.proposed = len(fresh)
        if dry_run or not fresh:
            return result, None
        doc.facts.extend(fresh)
        return result, f"mem: import {scope} ({len(fresh)} proposed)\n\n" + "".join(
            f"proposed {f.id} {f.key}\n" for f in fresh[:50]
        )

    if dry_run:
        return change(read_memory(paths, scope))[0]
    return transaction(paths, scope, change)


def _day(at: str | None) -> str | None:
    if not at:
        return None
    try:
        return clock.iso(clock.parse_when(at))
    except Exception:  # a date this tool cannot read: the memory is stated now
        return None


def conversations(paths: Paths, config: Config, scope: Scope, drafts: list[Any], dry_run: bool) -> Imported:
    """Record each conversation draft as an episode of `scope`; one commit for all of them."""
    from memfiles.ops.record import add_episodes, from_draft, validate_episode

    result = Imported()
    batch = []
    for made in drafts:
        new = from_draft(made, SOURCE, config.memory.max_value_chars)
        try:
            validate_episode(new, config, scope)
        except RefusedError as exc:
            result.refused += 1
            result.why.append(f"refused conversation {made.session}: {exc.rule}: {exc.why}")
            continue
        batch.append(new)
    if not batch:
        return result
    if dry_run:
        from memfiles.format.episodes import episode_id

        ids = {e.id for e in _episodes(paths, scope)}
        for new in batch:
            at = new.at or clock.iso(clock.now())
            present = episode_id(str(scope), new.session, at, new.summary.strip()) in ids
            result.present += present
            result.added += not present
        return result
    for written in add_episodes(paths, config, scope, batch):
        if written.kind == "exists":
            result.present += 1
        elif written.kind == "quarantined":
            result.quarantined += 1
        else:
            result.added += 1
    return result


def _episodes(paths: Paths, scope: Scope) -> list[Any]:
    from memfiles.errors import MemError
    from memfiles.format import episodes

    found = []
    for path in paths.episode_files(scope):
        try:
            found.append(episodes.parse(path.read_bytes(), paths.relative(path), str(scope)))
        except (OSError, MemError):
            continue
    return found
