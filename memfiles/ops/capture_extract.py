"""`mem capture --extract`: the extractor set on this machine (mem.local.toml; never mem.toml's) reads the
captured episode and proposes facts, which wait as `proposed` for a person (`mem review`, `mem accept`).

Only the answer's `new` facts are taken: what to supersede or expire is consolidation's to decide
(`mem consolidate`), with the whole scope in view. Each proposal passes the fact write path's checks and
guard (a refused one is reported, not written); all of them are one commit.
"""

from __future__ import annotations

from memfiles import clock
from memfiles.errors import RefusedError
from memfiles.format import episodes
from memfiles.format.config import Config
from memfiles.format.layout import Paths, Scope
from memfiles.format.memoryfile import MemoryDoc
from memfiles.ops import extractor, factguard
from memfiles.ops.capture import SOURCE
from memfiles.ops.writepath import NewFact, transaction, validate
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
