"""Facts proposed from a captured session, waiting as `proposed` for a person (`mem review`, `mem accept`):

- `mem capture --extract`: the extractor set on this machine (mem.local.toml; never mem.toml's) reads the
  captured episode and proposes facts;
- `[capture] propose_facts`: memfiles' own rules (memfiles.capture.statements) read what the user typed
  and propose the facts they stated about themselves (`statements`, `proposals_of`, also used by
  consolidation for episodes).

Only the answer's `new` facts are taken: what to supersede or expire is consolidation's to decide
(`mem consolidate`), with the whole scope in view. Each proposal passes the fact write path's checks and
guard (a refused one is reported, not written); all of them are one commit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from memfiles import clock
from memfiles.clock import When
from memfiles.errors import RefusedError
from memfiles.format import episodes
from memfiles.format.config import Config
from memfiles.format.layout import Paths, Scope
from memfiles.format.memoryfile import MemoryDoc
from memfiles.format.model import Fact, normalise_value
from memfiles.ops import extractor, factguard
from memfiles.ops.capture import SOURCE
from memfiles.ops.writepath import NewFact, transaction, validate

if TYPE_CHECKING:
    from memfiles.capture.statements import Proposal
from memfiles.outcome import Outcome
from memfiles.store.files import read_memory


def propose(paths: Paths, config: Config, scope: Scope, relpath: str) -> list[Outcome]:
    """Ask the extractor about the episode at `relpath` in `scope`; its new facts are written `proposed`, one commit."""
    episode = episodes.parse((paths.root / relpath).read_bytes(), relpath, str(scope))
    current = [f for f in read_memory(paths, scope).facts if f.status in ("active", "conflict")]
    facts = factguard.shown(paths, scope, current)  # what the guard holds back reaches no model's prompt
    payload = extractor.request(str(scope), clock.now(), facts, [episode])
    answer = extractor.run(config.consolidate.extractor, payload, config.consolidate.extractor_timeout)
    extractor.check_ids(answer, {f.id for f in facts}, {episode.id})
    outcomes: list[Outcome] = []
    checked = []
    for proposal in answer.new:
        inferred = proposal.confidence != "stated"
        at = proposal.stated_at or episode.started_at
        new = NewFact(proposal.key, proposal.value, proposal.subject, inferred, SOURCE, episode.id, at)
        try:
            fact = validate(new, config)
        except RefusedError as exc:
            outcomes.append(Outcome(kind="refused", scope=str(scope), key=proposal.key, rule=exc.rule, why=exc.why))
            continue
        fact.status = "proposed"
        checked.append(fact)

    def change(doc: MemoryDoc) -> tuple[list[Outcome], str | None]:
        known = {f.id for f in doc.facts}
        added = [f for f in checked if f.id not in known]
        doc.facts.extend(added)
        done = [Outcome(kind="proposed", scope=str(scope), key=f.key, fact_id=f.id) for f in added]
        if not added:
            return done, None
        return done, f"mem: capture {scope} {episode.session or episode.id}: extractor proposed {len(added)}\n"

    return transaction(paths, scope, change) + outcomes


def proposals_of(
    existing: list[Fact], found: Iterable[Proposal], config: Config, source: str, ref: str, at: When, scope: str
) -> tuple[list[Fact], list[Outcome]]:
    """The rules' proposals as `proposed` facts (stated, at `at`), each checked like `mem add`, and the refusals.

    A proposal whose key already has that value — current, proposed, or rejected by a person — is not
    proposed again: a person is asked once.
    """
    seen = {
        (f.key, normalise_value(f.value))
        for f in existing
        if f.status in ("active", "conflict", "proposed", "retracted")
    }
    made: list[Fact] = []
    refused: list[Outcome] = []
    for proposal in found:
        if (proposal.key, normalise_value(proposal.value)) in seen:
            continue
        new = NewFact(proposal.key, proposal.value, proposal.subject, False, source, ref, at)
        try:
            fact = validate(new, config)
        except RefusedError as exc:
            refused.append(Outcome(kind="refused", scope=scope, key=proposal.key, rule=exc.rule, why=exc.why))
            continue
        fact.status = "proposed"
        fact.id = fact_id_for(fact, existing + made)
        seen.add((fact.key, normalise_value(fact.value)))
        made.append(fact)
    return made, refused


def fact_id_for(fact: Fact, facts: list[Fact]) -> str:
    from memfiles.format.model import fact_id

    return fact_id(fact.key, fact.value, fact.stated_at, fact.confidence, {f.id for f in facts})


def statements(
    paths: Paths, config: Config, scope: Scope, episode_id: str, at: When, found: list[Proposal]
) -> list[Outcome]:
    """Write the facts the user stated in a captured session as `proposed` (source capture, the episode as
    provenance), one commit; refusals are returned with the rest."""
    refusals: list[Outcome] = []

    def change(doc: MemoryDoc) -> tuple[list[Outcome], str | None]:
        made, refused = proposals_of(doc.facts, found, config, SOURCE, episode_id, at, str(scope))
        refusals.extend(refused)
        doc.facts.extend(made)
        done = [Outcome(kind="proposed", scope=str(scope), key=f.key, fact_id=f.id) for f in made]
        if not made:
            return done, None
        listed = "".join(f"proposed {f.id} {f.key}\n" for f in made)
        return done, f"mem: capture {scope} {episode_id}: {len(made)} stated fact(s) proposed\n\n{listed}"

    return transaction(paths, scope, change) + refusals
