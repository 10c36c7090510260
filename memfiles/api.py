"""The Python API: the same operations as the CLI, as functions returning pydantic models, never printing.

import memfiles
home = memfiles.open_home("/path/to/home")        # or None: --home rules ($MEM_HOME, .mem/, …)
alice = home.scope("user:alice")
alice.add("notification_channel", "email").line()  # 'added f-…'
print(alice.recall("how should I be notified?"))   # the <memories> block for a prompt

Every method is documented with a runnable example in docs/API.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memfiles import clock
from memfiles.errors import RefusedError
from memfiles.format.layout import Scope, parse_scope, resolve_home
from memfiles.format.model import Fact, Outcome
from memfiles.ops import home as _home
from memfiles.ops import supersession, writepath
from memfiles.schema import ConsolidationModel, EpisodeOutcomeModel, OutcomeModel, RecallModel
from memfiles.store.files import read_memory

if TYPE_CHECKING:
    from memfiles.recall.retrieve import Recalled


class ScopeHandle:
    """One scope of a home (`user:alice`): every fact operation on it."""

    def __init__(self, context: _home.HomeContext, scope: Scope) -> None:
        self._context = context
        self.scope = scope

    def __repr__(self) -> str:
        return f"ScopeHandle({str(self.scope)!r}, home={str(self._context.root)!r})"

    def add(
        self,
        key: str,
        value: str,
        *,
        subject: str = "user_preference",
        inferred: bool = False,
        source: str | None = None,
        ref: str | None = None,
        at: str | None = None,
        expires: str | None = None,
    ) -> OutcomeModel:
        """Remember a fact through the guarded write path; a refusal is returned, not raised."""
        new = writepath.NewFact(key, value, subject, inferred, source, ref, at, expires)
        try:
            outcome = writepath.add_fact(self._context.paths, self._context.config, self.scope, new)
        except RefusedError as exc:
            outcome = Outcome("refused", str(self.scope), key, rule=exc.rule, why=exc.why)
        return OutcomeModel.of(outcome)

    def show(self, *, everything: bool = False) -> list[Fact]:
        """Current facts (active and conflicts); `everything=True` adds history and pending ones."""
        doc = read_memory(self._context.paths, self.scope)
        return [f for f in supersession.visible(doc.facts, everything)]

    def history(self, key: str) -> list[Fact]:
        """Every fact a key has had, oldest first."""
        doc = read_memory(self._context.paths, self.scope)
        return [f for f in supersession.chain(doc.facts, key)]

    def forget(self, id_or_key: str) -> list[Fact]:
        """Remove a fact (by id) or all facts of a key; returns what was removed."""
        return [f for f in writepath.forget(self._context.paths, self.scope, id_or_key)]

    def resolve(self, key: str, keep: str) -> list[Fact]:
        """End a conflict by keeping one fact; returns the facts it superseded."""
        return [f for f in writepath.resolve(self._context.paths, self.scope, key, keep)]

    def review(self) -> list[Fact]:
        """Proposed facts waiting for a person."""
        doc = read_memory(self._context.paths, self.scope)
        return [f for f in doc.facts if f.status == "proposed"]

    def accept(self, fact_id: str) -> OutcomeModel:
        """Accept a proposed fact (settled like a new write)."""
        return OutcomeModel.of(writepath.accept(self._context.paths, self.scope, fact_id))

    def reject(self, fact_id: str) -> Fact:
        """Reject a proposed fact (kept as `retracted`)."""
        return writepath.reject(self._context.paths, self.scope, fact_id)

    def episode(
        self,
        summary: str,
        *,
        session: str | None = None,
        at: str | None = None,
        ended: str | None = None,
        entities: Iterable[str] = (),
        events: Iterable[str] = (),
        outcome: str = "unknown",
        facts: Mapping[str, str] | None = None,
        invalidates: Mapping[str, str] | None = None,
        source: str | None = None,
    ) -> EpisodeOutcomeModel:
        """Record what happened as one episode file (one commit); a refusal is returned, not raised."""

        new = writepath.NewEpisode(
            summary,
            session,
            at,
            ended,
            list(entities),
            list(events),
            outcome,
            [writepath.NewCandidate(k, v) for k, v in (facts or {}).items()],
            [writepath.NewInvalidation(k, r) for k, r in (invalidates or {}).items()],
            source,
        )
        try:
            [done] = writepath.add_episodes(self._context.paths, self._context.config, self.scope, [new])
        except RefusedError as exc:
            return EpisodeOutcomeModel(kind="refused", scope=str(self.scope), rule=exc.rule, why=exc.why)
        return EpisodeOutcomeModel(
            kind="recorded" if done.kind == "recorded" else "exists",
            scope=str(self.scope),
            id=done.episode.id,
            path=done.path,
        )

    def recall(
        self,
        query: str,
        *,
        k: int | None = None,
        kind: str = "all",
        since: str | None = None,
        until: str | None = None,
        as_of: str | None = None,
        min_score: float | None = None,
        budget: int | None = None,
        half_life_days: float | None = None,
    ) -> RecallModel:
        """Facts and episodes relevant to `query`, as `mem recall` finds them (`str()` is the block)."""
        return _recall(
            self._context, [self.scope], query, k, kind, since, until, as_of, min_score, budget, half_life_days
        )

    def render(self, *, episodes: int = 5, budget: int | None = None, markdown: bool = False) -> RecallModel:
        """The scope's whole current memory as `mem render` prints it (`markdown=True`: a markdown list)."""
        return _render(self._context, [self.scope], episodes, budget, markdown)

    def render_into(
        self,
        path: str | os.PathLike[str],
        *,
        episodes: int = 5,
        budget: int | None = None,
        markdown: bool = False,
    ) -> bool:
        """Write the rendered memory between this scope's markers in `path` (CLAUDE.md…); False if unchanged."""
        from memfiles.recall.retrieve import write_into

        rendered = self.render(episodes=episodes, budget=budget, markdown=markdown)
        return write_into(Path(path), self.scope, rendered.text)

    def consolidate(
        self, *, dry_run: bool = False, older_than_days: float | None = None, extractor: str | None = None
    ) -> ConsolidationModel:
        """Expire, apply episodes, ask the extractor, fold old episodes into digests: one commit (`mem consolidate`)."""
        from memfiles.ops import consolidate

        options = consolidate.Options(dry_run, older_than_days, extractor)
        (plan,) = consolidate.run(self._context, [self.scope], options)
        return ConsolidationModel.model_validate(plan.to_dict())


class Home:
    """An opened memory home."""

    def __init__(self, context: _home.HomeContext) -> None:
        self._context = context

    @property
    def root(self) -> Path:
        return self._context.root

    def scope(self, scope: str) -> ScopeHandle:
        """A handle on `user:ID`, `org:ID` or `agent:ID` (validated; raises ScopeError)."""
        return ScopeHandle(self._context, parse_scope(scope))

    def user(self, user_id: str) -> ScopeHandle:
        """Shorthand for `scope("user:" + user_id)`."""
        return self.scope(f"user:{user_id}")

    def scopes(self) -> list[str]:
        """Every scope with a folder in the home."""
        return [str(s) for s in self._context.paths.scopes()]

    def recall(
        self,
        query: str,
        scopes: Sequence[str],
        *,
        k: int | None = None,
        kind: str = "all",
        since: str | None = None,
        until: str | None = None,
        as_of: str | None = None,
        min_score: float | None = None,
        budget: int | None = None,
        half_life_days: float | None = None,
    ) -> RecallModel:
        """Recall from several scopes at once (a user plus their org), like `mem recall -u ID -s org:ID`."""
        chosen = _scopes(scopes)
        return _recall(self._context, chosen, query, k, kind, since, until, as_of, min_score, budget, half_life_days)

    def render(
        self, scopes: Sequence[str], *, episodes: int = 5, budget: int | None = None, markdown: bool = False
    ) -> RecallModel:
        """Render several scopes' current memory as one block (or markdown)."""
        return _render(self._context, _scopes(scopes), episodes, budget, markdown)


def _scopes(scopes: Sequence[str]) -> list[Scope]:
    from memfiles.errors import UsageError

    if isinstance(scopes, str) or not scopes:
        raise UsageError("give a list of scopes, e.g. ['user:alice', 'org:acme']")
    return list(dict.fromkeys(parse_scope(s) for s in scopes))


def _recall(
    context: _home.HomeContext,
    scopes: list[Scope],
    query: str,
    k: int | None,
    kind: str,
    since: str | None,
    until: str | None,
    as_of: str | None,
    min_score: float | None,
    budget: int | None,
    half_life_days: float | None,
) -> RecallModel:
    from memfiles.recall import retrieve

    options = retrieve.recall_options(context.config, k, kind, since, until, as_of, min_score, half_life_days)
    return _model(retrieve.recall(context, scopes, query, options, budget=budget))


def _render(
    context: _home.HomeContext, scopes: list[Scope], episodes: int, budget: int | None, markdown: bool
) -> RecallModel:
    from memfiles.recall import retrieve
    from memfiles.recall.render import estimate_tokens
    from memfiles.recall.render import markdown as as_markdown

    found = retrieve.render_memory(context, scopes, episodes, budget=budget)
    if not markdown:
        return _model(found)
    text = as_markdown(found.scopes, found.as_of, found.items)
    return _model(found).model_copy(update={"text": text, "tokens": estimate_tokens(text)})


def _model(found: Recalled) -> RecallModel:
    rendered = found.rendered
    return RecallModel(
        scopes=found.scopes,
        as_of=clock.iso(found.as_of),
        text=rendered.text,
        tokens=rendered.tokens,
        items=[item.to_dict() for item in rendered.shown],
        omitted=len(rendered.dropped),
        problems=[str(p) for p in found.problems],
    )


def open_home(path: str | os.PathLike[str] | None = None, *, create: bool = False) -> Home:
    """Open the memory home at `path` (or the resolved one); `create=True` runs `mem init` first."""
    if create:
        _home.init_home(resolve_home(path))
    return Home(_home.open_context(path))
