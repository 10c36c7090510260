"""One scope of a home (`user:alice`): every fact and episode operation on it, each through the guarded write
path, returning an `Outcome` for what a write decides and raising a MemError for what goes wrong."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from memfiles.api.inputs import EpisodeInput, When, episode_input, pairs, read_value, when_text
from memfiles.errors import RefusedError
from memfiles.format.episodes import EpisodeOutcome
from memfiles.format.fields import Subject
from memfiles.format.layout import Scope
from memfiles.outcome import Outcome
from memfiles.store.files import read_memory

if TYPE_CHECKING:  # the result models load with the methods that make them: a write needs none of them
    from memfiles.api.browse import Digest, EpisodeMonth, EpisodePage
    from memfiles.api.home import Home, Progress
    from memfiles.api.models import (
        Consolidation,
        EpisodeFile,
        Forgotten,
        HeldEpisode,
        HeldFact,
        RecallKind,
        RecallResult,
        StaleFact,
        WrittenInto,
    )
    from memfiles.format.model import Fact
    from memfiles.ops.record import NewEpisode

Pairs = Mapping[str, str] | Iterable[tuple[str, str]]


class ScopeHandle:
    """One scope of a home; `str(handle)` is the scope (`user:alice`)."""

    def __init__(self, home: Home, scope: Scope) -> None:
        self.home = home
        self.scope = scope

    def __repr__(self) -> str:
        return f"ScopeHandle({str(self.scope)!r}, home={str(self.home.root)!r})"

    def __str__(self) -> str:
        return str(self.scope)

    # --- facts ---

    def add(
        self,
        key: str,
        value: str | TextIO,
        *,
        subject: Subject = "user_preference",
        inferred: bool = False,
        source: str | None = None,
        ref: str | None = None,
        at: When | None = None,
        expires: When | None = None,
    ) -> Outcome:
        """Remember a fact through the guarded write path (a stream `value`, such as stdin, is read up to the
        limit); a refusal is returned (`kind == "refused"`), nothing written."""
        from memfiles.ops import writepath

        paths, config = self.home.paths, self.home.config
        try:
            text = value if isinstance(value, str) else read_value(value, config.memory.max_value_chars)
            new = writepath.NewFact(key, text, subject, inferred, source, ref, when_text(at), when_text(expires))
            return writepath.add_fact(paths, config, self.scope, new)
        except RefusedError as exc:
            return Outcome(kind="refused", scope=str(self.scope), key=key, rule=exc.rule, why=exc.why)

    def show(self, *, everything: bool = False) -> list[Fact]:
        """Current facts (active and conflicts), by key; `everything=True` adds history and pending ones.

        A fact the guard holds back (`held_facts`) is left out of the current facts, as recall leaves it out;
        `everything=True` lists every fact of the file, held ones included (for a person, not a prompt)."""
        from memfiles.ops.supersession import visible

        facts = read_memory(self.home.paths, self.scope).facts
        if not everything:
            from memfiles.ops.factguard import shown

            facts = shown(self.home.paths, self.scope, facts)
        return [f for f in visible(facts, everything)]

    def history(self, key: str) -> list[Fact]:
        """Every fact a key has had, oldest first."""
        from memfiles.ops.supersession import chain

        return [f for f in chain(read_memory(self.home.paths, self.scope).facts, key)]

    def forget(self, id_or_key: str, *, purge: bool = False) -> Forgotten:
        """Remove a fact (by id) or all facts of a key, one commit; `purge=True` also erases them from git history."""
        from memfiles.api.models import Forgotten

        if purge:
            from memfiles.ops.purge import PURGE_ADVICE
            from memfiles.ops.purge import purge as erase

            gone, rewritten = erase(self.home.paths, self.scope, id_or_key)
            return Forgotten(facts=[f for f in gone], purged_blobs=rewritten, advice=PURGE_ADVICE)
        from memfiles.ops import writepath

        return Forgotten(facts=[f for f in writepath.forget(self.home.paths, self.scope, id_or_key)])

    def resolve(self, key: str, keep: str) -> list[Fact]:
        """End a conflict by keeping one fact; returns the facts it superseded."""
        from memfiles.ops import writepath

        return [f for f in writepath.resolve(self.home.paths, self.scope, key, keep)]

    def confirm(self, key: str, *, ref: str | None = None) -> Outcome:
        """A person confirms the key's current value is still true (`mem confirm KEY`): `reinforced`, with
        `last_confirmed` now, so it is no longer marked possibly stale; a refusal is returned, nothing written."""
        from memfiles.ops import writepath

        try:
            return writepath.confirm(self.home.paths, self.home.config, self.scope, key, ref)
        except RefusedError as exc:
            return Outcome(kind="refused", scope=str(self.scope), key=key, rule=exc.rule, why=exc.why)

    def expire(self, fact_id: str, *, reason: str = "no longer true (expired by person)") -> Fact:
        """A person ends a current fact that is no longer true (`mem expire ID`): status `expired`, one commit."""
        from memfiles.ops import writepath

        return writepath.expire(self.home.paths, self.scope, fact_id, reason)

    def stale(self, *, as_of: When | None = None) -> list[StaleFact]:
        """Current facts not confirmed within their subject's `[stale_after_days]` (`mem stale`), least recently
        confirmed first. Reads only; settle each with `confirm(key)` or `expire(id)`."""
        from memfiles import clock
        from memfiles.api.models import StaleFact
        from memfiles.recall.stale import confirmed, stale_facts

        moment = clock.parse_when(as_of) if as_of else clock.now()
        days = self.home.settings.safe.stale_after()
        found = stale_facts(read_memory(self.home.paths, self.scope).facts, days, moment)
        return [StaleFact.of(str(self.scope), f, confirmed(f), days[f.subject], moment) for f in found]

    def review(self) -> list[Fact]:
        """Proposed facts waiting for a person (flagged episodes: `flagged()`)."""
        return [f for f in read_memory(self.home.paths, self.scope).facts if f.status == "proposed"]

    def held_facts(self) -> list[HeldFact]:
        """Facts the guard holds back from every reader, whoever wrote them (a pull, a hand edit, an import),
        with the rule that holds each; a person edits the fact in MEMORY.md or forgets it (`forget`)."""
        from memfiles.api.models import HeldFact
        from memfiles.ops.factguard import held

        found = held(self.home.paths, self.scope, read_memory(self.home.paths, self.scope).facts)
        return [HeldFact(fact=h.fact, findings=h.findings) for h in found]

    def flagged(self, *, settled: bool = False) -> list[HeldEpisode]:
        """Episodes the guard holds back, waiting for `accept_episode` or `reject_episode` (oldest first);
        `settled=True` adds those a person accepted or rejected."""
        from memfiles.api.models import HeldEpisode
        from memfiles.ops.quarantine import held

        found = held(self.home.paths, self.scope)
        return [HeldEpisode.of(h) for h in found if settled or h.review.state == "flagged"]

    def accept_episode(self, episode_id: str, *, by: str | None = None) -> HeldEpisode:
        """A person lets a flagged episode into recall and render (one commit); `by` defaults to git's user.name.

        The acceptance records the sha256 of the text accepted: a later change of the text holds it back again.
        """
        from memfiles.api.models import HeldEpisode
        from memfiles.ops.quarantine import accept

        return HeldEpisode.of(accept(self.home.paths, self.scope, episode_id, by or self._person()))

    def reject_episode(self, episode_id: str) -> HeldEpisode:
        """A person rejects an episode: `status: rejected`, kept in its file, never shown (one commit)."""
        from memfiles.api.models import HeldEpisode
        from memfiles.ops.quarantine import reject

        return HeldEpisode.of(reject(self.home.paths, self.scope, episode_id))

    def _person(self) -> str:
        from memfiles.store import gitrepo

        return gitrepo.get_config(self.home.root, "user.name") or "person"

    def accept(self, fact_id: str) -> Outcome:
        """Accept a proposed fact (settled like a new write)."""
        from memfiles.ops import writepath

        return writepath.accept(self.home.paths, self.scope, fact_id)

    def proposed(self, *, source: str | None = None, key: str | None = None) -> list[Fact]:
        """Proposed facts, those of `source` only (`import`, `capture`…) and whose key matches `key`, a shell-style
        pattern (`note.*`, `notification_channel`)."""
        from fnmatch import fnmatchcase

        return [
            f
            for f in self.review()
            if (source is None or f.source == source) and (key is None or fnmatchcase(f.key, key))
        ]

    def accept_many(self, fact_ids: Sequence[str]) -> list[Outcome]:
        """Accept several proposed facts in one commit, oldest statement first; all or nothing."""
        from memfiles.ops import writepath

        return writepath.accept_many(self.home.paths, self.scope, list(fact_ids)) if fact_ids else []

    def reject_many(self, fact_ids: Sequence[str]) -> list[Fact]:
        """Reject several proposed facts in one commit (kept as `retracted`); all or nothing."""
        from memfiles.ops import writepath

        return writepath.reject_many(self.home.paths, self.scope, list(fact_ids)) if fact_ids else []

    def reject(self, fact_id: str) -> Fact:
        """Reject a proposed fact (kept as `retracted`)."""
        from memfiles.ops import writepath

        return writepath.reject(self.home.paths, self.scope, fact_id)

    # --- episodes ---

    def episode(
        self,
        summary: str,
        *,
        session: str | None = None,
        at: When | None = None,
        ended: When | None = None,
        entities: Iterable[str] = (),
        events: Iterable[str] = (),
        outcome: EpisodeOutcome = "unknown",
        facts: Pairs | None = None,
        invalidates: Pairs | None = None,
        source: str | None = None,
        transcript: bool = False,
        ref: str | None = None,
    ) -> Outcome:
        """Record what happened as one episode file (one commit); `recorded`, `quarantined`, `exists` or `refused`.

        `transcript=True` declares a role-labelled transcript (`User: …` lines): the guard reads speaker
        labels as structure (never guessed from the text). `ref` is its `source_ref`, one line saying where
        it came from (`session s-31, ticket T-9`). Instruction-shaped text (a ref's too) is `quarantined`.
        """
        from memfiles.ops.record import NewCandidate, NewEpisode, NewInvalidation

        new = NewEpisode(
            summary,
            session,
            when_text(at),
            when_text(ended),
            list(entities),
            list(events),
            outcome,
            [NewCandidate(k, v) for k, v in pairs(facts)],
            [NewInvalidation(k, r) for k, r in pairs(invalidates)],
            source,
            transcript,
            ref,
        )
        return self._record([new])[0]

    def episodes(self, batch: Iterable[EpisodeInput | Mapping[str, Any]], where: str = "episodes") -> list[Outcome]:
        """Record several episodes in one commit (`mem episode --from-json`): an outcome each, or one refusal.

        An episode the guard finds instruction-shaped is `quarantined` and the others are stored; a refusal
        (a source not allowed, a limit) refuses the batch and nothing is written. Each item is an
        EpisodeInput or a dict of its fields (FORMAT.md, "Episodes"); a bad one raises a UsageError naming
        `where` and its number.
        """
        return self._record([episode_input(item, where, n).to_new() for n, item in enumerate(batch, start=1)])

    def _record(self, batch: list[NewEpisode]) -> list[Outcome]:
        from memfiles.ops.record import add_episodes

        try:
            done = add_episodes(self.home.paths, self.home.config, self.scope, batch)
        except RefusedError as exc:
            return [Outcome(kind="refused", scope=str(self.scope), rule=exc.rule, why=exc.why)]
        scope = str(self.scope)
        return [
            Outcome(
                kind="quarantined",
                scope=scope,
                episode_id=w.episode.id,
                path=w.path,
                rule=w.episode.findings[0].code,
                why="; ".join(f.line() for f in w.episode.findings),
                masked=w.masked,
            )
            if w.kind == "quarantined"
            else Outcome(
                kind="exists" if w.kind == "exists" else "recorded",
                scope=scope,
                episode_id=w.episode.id,
                path=w.path,
                masked=w.masked,
            )
            for w in done
        ]

    def show_episode(self, episode_id: str, *, month: str | None = None) -> EpisodeFile:
        """An episode's file, from the scope's folder or, once folded into a digest, from git history.

        `month` ("YYYY-MM", when it started) looks in that month's folder first, without reading the others.
        """
        from memfiles.api.models import EpisodeFile
        from memfiles.ops.archive import find

        if month is not None:
            from memfiles.api.browse import find_in_month

            found = find_in_month(self.home.paths, self.scope, episode_id, month)
            if found is not None:
                return found

        return EpisodeFile.of(find(self.home.paths, self.scope, episode_id))

    def months(self, only: str | None = None) -> list[EpisodeMonth]:
        """The scope's episode months (or only the month `only`, "YYYY-MM"), newest first, with their file counts."""
        from memfiles.api import browse

        return browse.months(self.home.paths, self.scope, only)

    def episode_page(self, month: str, *, offset: int = 0, limit: int = 50) -> EpisodePage:
        """One page of a month's ("YYYY-MM") episodes, newest first; only that page's files are opened."""
        from memfiles.api import browse

        return browse.page(self.home.paths, self.scope, month, offset, limit)

    def memory_stamp(self) -> tuple[int, int, int]:
        """A value that changes whenever the scope's MEMORY.md does, for a caller that caches what it read."""
        from memfiles.api import browse

        return browse.memory_stamp(self.home.paths, self.scope)

    def digests(self) -> list[Digest]:
        """The scope's monthly digests (what consolidation left of older episodes), newest first."""
        from memfiles.api import browse

        return browse.digests(self.home.paths, self.scope)

    # --- reading ---

    def recall(
        self,
        query: str,
        *,
        k: int | None = None,
        kind: RecallKind = "all",
        since: When | None = None,
        until: When | None = None,
        as_of: When | None = None,
        min_score: float | None = None,
        budget: int | None = None,
        half_life_days: float | None = None,
        recency_weight: float | None = None,
        lexical: bool = False,
    ) -> RecallResult:
        """Facts and episodes relevant to `query`, as `mem recall` finds them (`str()` is the block)."""
        return self.home.recall(
            query,
            [str(self.scope)],
            k=k,
            kind=kind,
            since=since,
            until=until,
            as_of=as_of,
            min_score=min_score,
            budget=budget,
            half_life_days=half_life_days,
            recency_weight=recency_weight,
            lexical=lexical,
        )

    def render(self, *, episodes: int = 5, budget: int | None = None, markdown: bool = False) -> RecallResult:
        """The scope's whole current memory as `mem render` prints it (`markdown=True`: a markdown list)."""
        return self.home.render([str(self.scope)], episodes=episodes, budget=budget, markdown=markdown)

    def render_into(
        self, path: str | os.PathLike[str], *, episodes: int = 5, budget: int | None = None, markdown: bool = False
    ) -> WrittenInto:
        """Write the rendered memory between this scope's markers in `path` (CLAUDE.md…), appending them if absent.

        `path` must be a regular file (or not exist yet) inside the working directory; `.changed` is False
        when the section was already up to date.
        """
        from memfiles.api.models import WrittenInto
        from memfiles.ops.render_into import write_into

        rendered = self.render(episodes=episodes, budget=budget, markdown=markdown)
        changed = write_into(Path(path), self.scope, rendered.text)
        return WrittenInto(path=str(path), scope=str(self.scope), changed=changed, problems=rendered.problems)

    def consolidate(
        self,
        *,
        dry_run: bool = False,
        older_than_days: float | None = None,
        extractor: str | None = None,
        progress: Progress | None = None,
    ) -> Consolidation:
        """Expire, apply episodes, ask the extractor, fold old episodes into digests: one commit (`mem consolidate`)."""
        (done,) = self.home.consolidate(
            [str(self.scope)], dry_run=dry_run, older_than_days=older_than_days, extractor=extractor, progress=progress
        )
        return done
