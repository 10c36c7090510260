"""Consolidation (FORMAT.md, "Consolidation"): the step that keeps a scope small, current and honest.

`plan` is pure: a scope's files, the settings, "now" and (optionally) an extractor's validated answer
in; a Plan out, holding the resulting facts, a line per change, the summary counts and the whole
files to write and remove. In order:
1. expire: facts past `expires_at`, or past their subject's TTL (mem.toml [ttl]) without one;
2. apply episodes not yet consolidated, oldest first: `invalidates` supersede the key's current
   facts (superseded_by = the episode), then `facts` go through the guarded write path's
   validation and settlement; each episode is then marked consolidated;
3. apply the extractor's answer: supersede, expire, then new facts through the same path;
4. compress: consolidated episodes older than N days fold into their month's DIGEST.md.
A refused value (instruction- or secret-shaped, over a limit) is skipped and reported; the rest applies.
`run` is the one entry point with I/O: it asks the extractor, then applies the plan through writepath.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING

from memfiles import clock
from memfiles.clock import When
from memfiles.errors import MemError, RefusedError
from memfiles.format import digest, episodes
from memfiles.format.config import Config
from memfiles.format.episodes import Episode
from memfiles.format.fields import Status
from memfiles.format.memoryfile import MemoryDoc, serialize
from memfiles.format.model import Fact
from memfiles.ops import commit, factguard, scopefiles, supersession, writepath
from memfiles.ops.commit import FileChanges
from memfiles.ops.scopefiles import ScopeFiles, StoredEpisode
from memfiles.ops.textfield import check_text_field
from memfiles.ops.writepath import NewFact

if TYPE_CHECKING:
    from memfiles.format.extractor import ExtractorDecision, ExtractorOutput
    from memfiles.format.layout import Paths, Scope
    from memfiles.outcome import Outcome

LISTED_LINES = 50  # change lines and folded files named in a commit message; the rest are counted
SOURCE = "consolidation"


@dataclass(slots=True)
class Summary:
    """What one run did to one scope, in counts."""

    episodes: int = 0
    expired: int = 0
    superseded: int = 0
    added: int = 0
    reinforced: int = 0
    proposed: int = 0
    conflicts: int = 0
    refused: int = 0
    compressed: int = 0
    bytes_before: int = 0
    bytes_after: int = 0


@dataclass(slots=True)
class Plan:
    """The changes consolidation makes to one scope, and why."""

    scope: str
    now: When
    facts: list[Fact]
    pending: list[Episode]
    summary: Summary = field(default_factory=Summary)
    changes: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    possibly_stale: list[str] = field(default_factory=list)  # ids proposed for expiry, never expired here
    files: FileChanges | None = None
    dry_run: bool = False
    extractor: str | None = None

    @property
    def changed(self) -> bool:
        return self.files is not None

    def to_dict(self) -> dict[str, object]:
        """The plan as JSON-ready data (`mem consolidate --json`)."""
        counts = {item.name: getattr(self.summary, item.name) for item in fields(Summary)}
        return {
            "scope": self.scope,
            "now": clock.iso(self.now),
            "dry_run": self.dry_run,
            "committed": self.changed and not self.dry_run,
            "extractor": self.extractor,
            **counts,
            "changes": list(self.changes),
            "refusals": list(self.refused),
            "notes": list(self.notes),
            "possibly_stale": list(self.possibly_stale),
            "written": [relpath for _p, relpath, _d in self.files.writes] if self.files else [],
            "removed": [relpath for _p, relpath in self.files.removes] if self.files else [],
        }


def plan(
    files: ScopeFiles,
    config: Config,
    now: When,
    older_than_days: float,
    answer: ExtractorOutput | None = None,
    seen: set[str] | None = None,
) -> Plan:
    """Plan one scope's consolidation (pure). `seen` limits the episodes applied to those an extractor read."""
    scope = str(files.scope)
    facts = [f.model_copy() for f in files.memory.facts]
    before = {f.id: f.status for f in files.memory.facts}
    pending = sorted(
        (s for s in files.episodes if not s.episode.consolidated and (seen is None or s.episode.id in seen)),
        key=lambda s: (clock.order(s.episode.started_at), s.episode.id),
    )
    result = Plan(scope, now, facts, [s.episode for s in pending])
    result.notes += [f"skipped {problem} (left as it is)" for problem in files.problems]
    keyed = _Keyed(facts)
    _expire(keyed, config, now, result)
    for stored in pending:
        _apply_episode(keyed, stored.episode, config, result)
        _propose_stated(keyed, stored.episode, config, result)
    if pending:
        result.changes.append(f"applied {len(pending)} episode(s) and marked them consolidated")
    if answer is not None:
        _apply_answer(keyed, answer, result.pending, config, now, result)
    facts[:] = keyed.flat()
    result.summary.episodes = len(pending)
    _propose_expiry(facts, config, now, result)
    _count(before, facts, result)
    result.files = _files(files, facts, pending, now, older_than_days, result)
    return result


class _Keyed:
    """A scope's facts grouped by key while a plan changes them: every step (an invalidation, a candidate, an
    expiry, an extractor's decision) touches one key's facts, so consolidation costs what it reads rather than
    candidates times facts (10 episodes of 100 candidates each took 4.4 s, 40 of them 59 s)."""

    def __init__(self, facts: list[Fact]) -> None:
        self.order = list(facts)
        self.by_key: dict[str, list[Fact]] = {}
        for fact in facts:
            self.by_key.setdefault(fact.key, []).append(fact)
        self.ids = {fact.id for fact in facts}
        self.held = len(facts)

    def add(self, fact: Fact) -> None:
        """A new fact the plan made outside the write path's settling (a proposal)."""
        self.of(fact.key).append(fact)
        self.ids.add(fact.id)
        self.held += 1

    def of(self, key: str) -> list[Fact]:
        return self.by_key.setdefault(key, [])

    def current(self) -> list[Fact]:
        return [fact for group in self.by_key.values() for fact in group if fact.is_current]

    def settle(self, fact: Fact, config: Config, scope: str) -> Outcome:
        group = self.of(fact.key)
        size = len(group)
        outcome = writepath.settle(group, fact, config, scope, taken=self.ids, held=self.held)
        self.held += len(group) - size
        self.ids.update(f.id for f in group)
        return outcome

    def flat(self) -> list[Fact]:
        """Every fact: those the plan started with in their order, then the new ones."""
        alive = {id(fact) for group in self.by_key.values() for fact in group}
        out = [fact for fact in self.order if id(fact) in alive]
        kept = {id(fact) for fact in out}
        return out + [fact for group in self.by_key.values() for fact in group if id(fact) not in kept]


def _propose_stated(keyed: _Keyed, episode: Episode, config: Config, plan: Plan) -> None:
    """The facts the user stated in the episode (memfiles.capture.statements), proposed for a person to accept."""
    from memfiles.capture.statements import from_turns, user_words
    from memfiles.ops.capture_extract import proposals_of

    found = from_turns(user_words(episode.summary, episode.transcript))
    if not found:
        return
    made, refused = proposals_of(keyed.flat(), found, config, SOURCE, episode.id, episode.started_at, plan.scope)
    for fact in made:
        keyed.add(fact)
        plan.summary.proposed += 1
        plan.changes.append(f"proposed {fact.id} {fact.key} {_quote(fact.value)} (stated in {episode.id})")
    plan.refused += [f"{episode.id} fact {o.key}: {o.rule}: {o.why}" for o in refused]


def _propose_expiry(facts: list[Fact], config: Config, now: When, plan: Plan) -> None:
    """Possibly stale facts (FORMAT.md, "Staleness") are proposed for expiry, never expired: a person decides."""
    from memfiles.recall.stale import confirmed, stale_facts

    for fact in stale_facts(facts, config.stale_after(), now):
        plan.possibly_stale.append(fact.id)
        plan.notes.append(
            f"possibly stale {fact.id} {fact.key} {_quote(fact.value)}: last confirmed {clock.day(confirmed(fact))}"
            f" ([stale_after_days] {fact.subject} = {config.stale_days(fact.subject)}); propose expiring it:"
            f" `mem expire {fact.id}`, or `mem confirm {fact.key}` if it is still true"
        )


def _supersede(fact: Fact, status: Status, end: When, by: str | None, reason: str) -> None:
    fact.status, fact.valid_to, fact.superseded_by, fact.reason = status, end, by, reason


def _ended(facts: list[Fact], key: str) -> None:
    """A key whose conflict lost all but one side keeps that side as its active fact."""
    current = [f for f in facts if f.key == key and f.is_current]
    if len(current) == 1 and current[0].status == "conflict":
        current[0].status, current[0].reason = "active", None


def _expire(keyed: _Keyed, config: Config, now: When, plan: Plan) -> None:
    for fact in sorted(keyed.current(), key=lambda f: (f.key, clock.order(f.stated_at), f.id)):
        if clock.compare(fact.stated_at, now) > 0:
            continue  # stated after now (a replay with an earlier clock): not ours to judge
        if fact.expires_at:  # an explicit expiry wins over the subject's TTL
            end, reason = fact.expires_at, f"expired on {clock.day(fact.expires_at)} (expires_at)"
        else:
            days = config.ttl_days(fact.subject)
            if days <= 0:
                continue
            end = clock.shift_days(supersession.latest(fact), days)
            reason = f"not confirmed for {days} days (mem.toml [ttl] {fact.subject})"
        if clock.compare(end, now) > 0:
            continue
        _supersede(fact, "expired", end, None, reason)
        plan.changes.append(f"expired {fact.id} {fact.key} {_quote(fact.value)}: {reason}")
        _ended(keyed.of(fact.key), fact.key)


def _apply_episode(keyed: _Keyed, episode: Episode, config: Config, plan: Plan) -> None:
    start = episode.started_at
    for stale in episode.invalidates:
        try:
            check_text_field(f"reason for invalidating {stale.key}", stale.reason, config.memory.max_value_chars)
        except RefusedError as exc:
            plan.refused.append(f"{episode.id} invalidates {stale.key}: {exc.rule}: {exc.why}")
            continue
        for fact in [f for f in keyed.of(stale.key) if f.is_current]:
            if clock.compare(supersession.latest(fact), start) > 0:
                plan.notes.append(f"kept {fact.id} {fact.key}: stated after {episode.id} invalidated it")
                continue
            _supersede(fact, "superseded", start, episode.id, stale.reason.strip())
            plan.changes.append(
                f"superseded {fact.id} {fact.key} {_quote(fact.value)} by {episode.id}: {stale.reason.strip()}"
            )
        _ended(keyed.of(stale.key), stale.key)
    for candidate in episode.facts:
        subject = candidate.subject or _subject_of(keyed.of(candidate.key), candidate.key)
        inferred = candidate.confidence != "stated"
        new = NewFact(candidate.key, candidate.value, subject, inferred, SOURCE, episode.id, start)
        _write(keyed, new, config, plan, f"{episode.id} fact {candidate.key}")


def _subject_of(facts: list[Fact], key: str) -> str:
    """A candidate without a subject takes its key's (newest) subject, else user_preference."""
    known = [f for f in facts if f.key == key]
    return max(known, key=lambda f: clock.order(f.stated_at)).subject if known else "user_preference"


def _write(keyed: _Keyed, new: NewFact, config: Config, plan: Plan, what: str) -> None:
    """One new fact through the guarded write path: validate and guard, then settle (or report the refusal)."""
    try:
        fact = writepath.validate(new, config)
        outcome = keyed.settle(fact, config, plan.scope)
    except RefusedError as exc:
        plan.refused.append(f"{what}: {exc.rule}: {exc.why}")
        return
    except MemError as exc:
        plan.refused.append(f"{what}: {exc}")
        return
    if outcome.kind == "reinforced":
        plan.summary.reinforced += 1
    plan.changes.append(f"{outcome.line()} {fact.key} {_quote(fact.value)} ({new.ref or 'extractor'})")


def _apply_answer(
    keyed: _Keyed, answer: ExtractorOutput, pending: list[Episode], config: Config, now: When, plan: Plan
) -> None:
    from memfiles.ops import extractor

    current = {f.id: f for f in keyed.current()}
    extractor.check_ids(answer, set(current), {e.id for e in pending})  # raises: nothing is applied
    starts = {e.id: e.started_at for e in pending}
    outcomes: tuple[tuple[Status, list[ExtractorDecision]], ...] = (
        ("superseded", answer.supersede),
        ("expired", answer.expire),
    )
    for status, decisions in outcomes:
        for decision in decisions:
            fact = current[decision.id]
            try:
                check_text_field(f"reason for {status} {fact.id}", decision.reason, config.memory.max_value_chars)
            except RefusedError as exc:
                plan.refused.append(f"extractor {status} {fact.id}: {exc.rule}: {exc.why}")
                continue
            end = starts[decision.episode] if decision.episode else now
            by = decision.episode if status == "superseded" else None
            _supersede(fact, status, end, by, decision.reason.strip())
            plan.changes.append(
                f"{status} {fact.id} {fact.key} {_quote(fact.value)} (extractor): {decision.reason.strip()}"
            )
            _ended(keyed.of(fact.key), fact.key)
    for number, proposal in enumerate(answer.new, start=1):
        at = proposal.stated_at or (starts[proposal.episode] if proposal.episode else now)
        inferred = proposal.confidence != "stated"
        new = NewFact(
            proposal.key, proposal.value, proposal.subject, inferred, SOURCE, proposal.episode, at, proposal.expires_at
        )
        _write(keyed, new, config, plan, f"extractor new #{number} {proposal.key}")


def _count(before: Mapping[str, str], facts: list[Fact], plan: Plan) -> None:
    summary = plan.summary
    for fact in facts:
        old = before.get(fact.id)
        if old is None:
            summary.added += fact.status != "proposed"  # proposals are counted as they are made
        elif old != fact.status and fact.status in ("expired", "superseded"):
            setattr(summary, fact.status, getattr(summary, fact.status) + 1)
        if fact.status == "conflict" and old != "conflict":
            summary.conflicts += 1
    summary.refused = len(plan.refused)


def _files(
    files: ScopeFiles,
    facts: list[Fact],
    pending: list[StoredEpisode],
    now: When,
    older_than_days: float,
    plan: Plan,
) -> FileChanges | None:
    """The whole files to write and remove; None when nothing changes."""
    writes: list[tuple[Path, str, bytes]] = []
    sizes = files.memory_size + files.unparsed_size + sum(len(d) for _p, d in files.digests.values())
    sizes += sum(len(s.data) for s in files.episodes)
    after = sizes
    if [f.to_dict() for f in facts] != [f.to_dict() for f in files.memory.facts]:
        memory = MemoryDoc(files.memory.scope, facts, files.memory.body, files.memory.bom)
        data = serialize(memory)
        writes.append((files.memory_path, files.memory_relpath, data))
        after += len(data) - files.memory_size
    marked = {s.episode.id for s in pending}
    folds = [
        s
        for s in files.episodes
        if (s.episode.consolidated or s.episode.id in marked)
        and clock.age_days(s.episode.started_at, now) > older_than_days
    ]
    kept = [s for s in folds if s.uncommitted]
    if kept:
        plan.notes.append(
            f"kept {len(kept)} episode file(s) out of the digests because they have uncommitted changes "
            f"(first: {kept[0].relpath}); commit them and run again"
        )
    folds = [s for s in folds if not s.uncommitted]
    folded = {s.relpath for s in folds}
    for stored in pending:
        if stored.relpath not in folded:
            data = episodes.mark_consolidated(stored.data, stored.relpath)
            writes.append((stored.path, stored.relpath, data))
            after += len(data) - len(stored.data)
    digest_writes = _digests(files, folds, plan)
    after += sum(len(data) - len(files.digests.get(rel, (None, b""))[1]) for _p, rel, data in digest_writes)
    after -= sum(len(s.data) for s in folds)
    plan.summary.compressed = len(folds)
    plan.summary.bytes_before, plan.summary.bytes_after = sizes, after
    removes = [(s.path, s.relpath) for s in folds]
    if not writes and not digest_writes and not removes:
        return None
    # Digests first, removals last: an interrupted run never leaves an episode without its digest line.
    return FileChanges([*digest_writes, *writes], removes, _message(plan, [s.relpath for s in folds]))


def _digests(files: ScopeFiles, folds: list[StoredEpisode], plan: Plan) -> list[tuple[Path, str, bytes]]:
    by_digest: dict[str, list[StoredEpisode]] = {}
    for stored in sorted(folds, key=lambda s: (clock.order(s.episode.started_at), s.episode.id)):
        by_digest.setdefault(stored.digest_relpath, []).append(stored)
    writes: list[tuple[Path, str, bytes]] = []
    for relpath, group in sorted(by_digest.items()):
        existing = files.digests.get(relpath, (None, None))[1]
        year, month = relpath.split("/")[-3:-1]
        entries = [digest.entry(s.episode, s.path.name) for s in group]
        data = digest.fold(existing, plan.scope, f"{year}-{month}", entries)
        if data != existing:
            writes.append((group[0].digest, relpath, data))
        plan.changes.append(f"folded {len(group)} episode(s) into {relpath}")
    return writes


def _message(plan: Plan, removed: list[str]) -> str:
    summary = plan.summary
    counts = (
        f"episodes {summary.episodes}, expired {summary.expired}, superseded {summary.superseded}, "
        f"added {summary.added}, reinforced {summary.reinforced}, proposed {summary.proposed}, "
        f"conflicts {summary.conflicts}, "
        f"refused {summary.refused}, compressed {summary.compressed}, "
        f"bytes {summary.bytes_before} -> {summary.bytes_after}"
    )
    lines = [*plan.changes, *(f"refused {r}" for r in plan.refused)]
    body = _listed(lines) + _listed([f"removed {path}" for path in removed])
    return f"mem: consolidate {plan.scope}\n\n{counts}\n\n{body}"


def _listed(lines: list[str]) -> str:
    shown = "".join(f"{line}\n" for line in lines[:LISTED_LINES])
    more = f"… and {len(lines) - LISTED_LINES} more\n" if len(lines) > LISTED_LINES else ""
    return shown + more


def _quote(value: str) -> str:
    from memfiles.recall.render import clean

    return '"' + clean(value).replace('"', "'") + '"'


# --- the one entry point with I/O ---


@dataclass(frozen=True, slots=True)
class Options:
    """What `mem consolidate` asks for; None means "as the settings say" (the extractor: mem.local.toml's)."""

    dry_run: bool = False
    older_than_days: float | None = None
    extractor: str | None = None


def run(
    paths: Paths,
    config: Config,
    scopes: Iterable[Scope],
    options: Options,
    progress: scopefiles.Progress | None = None,
) -> list[Plan]:
    """Consolidate each scope (one commit each, none on a dry run); an extractor is asked only about new episodes."""
    return [_run_scope(paths, config, scope, options, progress) for scope in scopes]


def _run_scope(
    paths: Paths, config: Config, scope: Scope, options: Options, progress: scopefiles.Progress | None
) -> Plan:
    from memfiles.ops import extractor

    now = clock.now()
    days = config.consolidate.older_than_days if options.older_than_days is None else options.older_than_days
    # The extractor is a command: from --extractor, else from mem.local.toml. `config` is the settings in
    # effect, in which mem.toml's extractor never appears (memfiles.format.config.tighten).
    command = (config.consolidate.extractor if options.extractor is None else options.extractor).strip()
    answer: ExtractorOutput | None = None
    seen: set[str] | None = None
    if command:
        staged = plan(scopefiles.read(paths, scope, progress), config, now, days)
        # Only episodes the extractor read are applied; one recorded meanwhile waits for the next run.
        seen = {e.id for e in staged.pending}
        if staged.pending:  # nothing new to read: the extractor is not asked, so a second run changes nothing
            # A fact the guard holds back (it arrived by a pull or a hand edit) is no more the extractor's to read
            # than a prompt's (memfiles.ops.factguard).
            current = factguard.shown(paths, scope, [f for f in staged.facts if f.is_current])
            payload = extractor.request(str(scope), now, current, staged.pending)
            try:
                answer = extractor.run(command, payload, config.consolidate.extractor_timeout)
            except extractor.ExtractorError as exc:
                raise extractor.ExtractorError(f"{scope}: {exc}") from None

    def decide(files: ScopeFiles) -> tuple[Plan, FileChanges | None]:
        result = plan(files, config, now, days, answer, seen)
        result.dry_run, result.extractor = options.dry_run, command or None
        return result, None if options.dry_run else result.files

    return commit.apply_files(paths, scope, decide, write=not options.dry_run, progress=progress)
