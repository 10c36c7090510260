"""The Python API: the same operations as the CLI, as functions returning pydantic models, never printing.

import memfiles
home = memfiles.open_home("/path/to/home")        # or None: --home rules ($MEM_HOME, .mem/, …)
alice = home.scope("user:alice")
alice.add("notification_channel", "email").line()  # 'added f-…'
"""

from __future__ import annotations

import os
from pathlib import Path

from memfiles import home as _home
from memfiles import supersession, writepath
from memfiles.errors import RefusedError
from memfiles.layout import Scope, parse_scope, resolve_home
from memfiles.model import Outcome
from memfiles.schema import FactModel, OutcomeModel
from memfiles.store import read_memory


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

    def show(self, *, everything: bool = False) -> list[FactModel]:
        """Current facts (active and conflicts); `everything=True` adds history and pending ones."""
        doc = read_memory(self._context.paths, self.scope)
        return [FactModel.of(f) for f in supersession.visible(doc.facts, everything)]

    def history(self, key: str) -> list[FactModel]:
        """Every fact a key has had, oldest first."""
        doc = read_memory(self._context.paths, self.scope)
        return [FactModel.of(f) for f in supersession.chain(doc.facts, key)]

    def forget(self, id_or_key: str) -> list[FactModel]:
        """Remove a fact (by id) or all facts of a key; returns what was removed."""
        return [FactModel.of(f) for f in writepath.forget(self._context.paths, self.scope, id_or_key)]

    def resolve(self, key: str, keep: str) -> list[FactModel]:
        """End a conflict by keeping one fact; returns the facts it superseded."""
        return [FactModel.of(f) for f in writepath.resolve(self._context.paths, self.scope, key, keep)]

    def review(self) -> list[FactModel]:
        """Proposed facts waiting for a person."""
        doc = read_memory(self._context.paths, self.scope)
        return [FactModel.of(f) for f in doc.facts if f.status == "proposed"]

    def accept(self, fact_id: str) -> OutcomeModel:
        """Accept a proposed fact (settled like a new write)."""
        return OutcomeModel.of(writepath.accept(self._context.paths, self.scope, fact_id))

    def reject(self, fact_id: str) -> FactModel:
        """Reject a proposed fact (kept as `retracted`)."""
        return FactModel.of(writepath.reject(self._context.paths, self.scope, fact_id))


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


def open_home(path: str | os.PathLike[str] | None = None, *, create: bool = False) -> Home:
    """Open the memory home at `path` (or the resolved one); `create=True` runs `mem init` first."""
    if create:
        _home.init_home(resolve_home(path))
    return Home(_home.open_context(path))
