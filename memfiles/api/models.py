"""The typed results of the Python API: facts, episodes, recalled items with their scores, and reports.

Facts and episodes are the file formats' own models (`memfiles.format.model.Fact`,
`memfiles.format.episodes.Episode`); the rest are made from the services' records in ONE place each
(`RecallResult.of`, …), and `to_dict()` (or `model_dump(mode="json")`) is the JSON the CLI prints with `--json`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from memfiles.format.episodes import Episode, HeldFinding
from memfiles.format.fields import When
from memfiles.format.model import Fact

if TYPE_CHECKING:
    from memfiles.ops.archive import Found
    from memfiles.ops.consolidate import Plan
    from memfiles.ops.quarantine import Held
    from memfiles.recall.ranking import Item
    from memfiles.recall.retrieve import Recalled

RecallKind = Literal["all", "facts", "episodes"]
# defer_build: a model's validator is built when it is first used, so a command pays only for the models it returns.
_FROZEN = ConfigDict(extra="forbid", defer_build=True, frozen=True)
_RECORD = ConfigDict(extra="forbid", defer_build=True, from_attributes=True, frozen=True)  # made from a service record


class Scores(BaseModel):
    """Why an item was recalled: its final score and the parts of its relevance (FORMAT.md, "Recall")."""

    model_config = _FROZEN

    score: float
    relevance: float
    keyword: float
    fuzzy: float
    coverage: float
    frequency: float
    passage: float
    context: float
    key_hit: bool
    matched: list[str]
    decay: float
    age_days: float | None
    lexical: float | None = None  # hybrid ranking only: the item's own lexical relevance
    semantic: float | None = None  # hybrid ranking only: its cosine to the query (None: no vector yet)


class RecallItem(BaseModel):
    """One recalled item: a fact, a conflict (two or more facts of one key) or an episode, with its scores."""

    model_config = _FROZEN

    kind: Literal["fact", "conflict", "episode"]
    scope: str
    id: str
    date: When
    scores: Scores
    facts: list[Fact] = []
    episode: Episode | None = None
    why: str
    tokens: int  # the estimated size of its line in the block
    possibly_stale: When | None = None  # a fact not confirmed within [stale_after_days]: when it last was

    @classmethod
    def of(cls, item: Item, multi_scope: bool) -> RecallItem:
        from memfiles.recall.render import estimate_tokens, item_line

        r = item.relevance
        return cls(
            kind=item.kind,  # type: ignore[arg-type]
            scope=item.scope,
            id=item.id,
            date=item.date,
            scores=Scores(
                score=item.score,
                relevance=r.score,
                keyword=r.keyword,
                fuzzy=r.fuzzy,
                coverage=r.coverage,
                frequency=r.frequency,
                passage=r.passage,
                context=r.context,
                key_hit=r.key_hit,
                matched=list(r.matched),
                decay=item.decay,
                age_days=item.age_days,
                lexical=item.lexical,
                semantic=item.semantic,
            ),
            facts=list(item.facts),
            episode=item.episode,
            why=item.why(),
            tokens=estimate_tokens(item_line(item, multi_scope) + "\n"),
            possibly_stale=item.stale,
        )

    def to_dict(self) -> dict[str, Any]:
        """The item as `mem recall --format json` prints it: its record's fields, then its scores."""
        from memfiles import clock

        out: dict[str, Any] = {"kind": self.kind, "scope": self.scope}
        if self.episode is not None:
            out.update(self.episode.to_dict())
        elif self.kind == "fact":
            out.update(self.facts[0].to_dict())
            out["possibly_stale"] = None if self.possibly_stale is None else clock.iso(self.possibly_stale)
        else:
            out.update(key=self.facts[0].key, ids=[f.id for f in self.facts], facts=[f.to_dict() for f in self.facts])
        out["scope"] = self.scope
        scores = self.scores.model_dump()
        for name, value in scores.items():
            if isinstance(value, float):
                scores[name] = round(value, 2 if name == "age_days" else 4)
        out.update(scores)
        return out


class StaleFact(BaseModel):
    """A current fact not confirmed within its subject's `[stale_after_days]` (FORMAT.md, "Staleness")."""

    model_config = _FROZEN

    scope: str
    id: str
    key: str
    value: str
    subject: str
    status: str
    last_confirmed: When
    days_since: int
    stale_after_days: int
    fact: Fact

    @classmethod
    def of(cls, scope: str, fact: Fact, last: When, days: int, as_of: When) -> StaleFact:
        from memfiles import clock

        since = (clock.day(as_of) - clock.day(last)).days
        return cls(
            scope=scope,
            id=fact.id,
            key=fact.key,
            value=fact.value,
            subject=fact.subject,
            status=fact.status,
            last_confirmed=last,
            days_since=since,
            stale_after_days=days,
            fact=fact,
        )

    def to_dict(self) -> dict[str, Any]:
        """As `mem stale --json` prints it: the fact's fields plus when it was last confirmed and how long ago."""
        return self.model_dump(mode="json", exclude={"fact"})


class RecallResult(BaseModel):
    """What recall or render found: the block (`text`, also `str()`), the items shown, those a budget left out
    (`dropped`), and the memory files that did not parse (skipped and left as they are)."""

    model_config = _FROZEN

    scopes: list[str]
    as_of: When
    text: str
    tokens: int
    items: list[RecallItem]
    dropped: list[RecallItem]
    problems: list[str]
    notes: list[str] = []  # what the hybrid ranking could not do (vectors not built yet), for stderr

    @property
    def omitted(self) -> int:
        """How many items the budget left out."""
        return len(self.dropped)

    def __str__(self) -> str:
        return self.text

    @classmethod
    def of(cls, found: Recalled) -> RecallResult:
        rendered, multi = found.rendered, len(found.scopes) > 1
        return cls(
            scopes=found.scopes,
            as_of=found.as_of,
            text=rendered.text,
            tokens=rendered.tokens,
            items=[RecallItem.of(item, multi) for item in rendered.shown],
            dropped=[RecallItem.of(item, multi) for item in rendered.dropped],
            problems=[str(p) for p in found.problems],
            notes=list(found.notes),
        )


class Consolidation(BaseModel):
    """What consolidation did (or would do, on a dry run) to one scope; `model_dump()` is `--json`."""

    model_config = _FROZEN

    scope: str
    now: str
    dry_run: bool
    committed: bool
    extractor: str | None
    episodes: int
    expired: int
    superseded: int
    added: int
    reinforced: int
    proposed: int = 0
    conflicts: int
    refused: int
    compressed: int
    bytes_before: int
    bytes_after: int
    changes: list[str]
    refusals: list[str]
    notes: list[str]
    written: list[str]
    removed: list[str]
    possibly_stale: list[str] = []  # ids of facts proposed for expiry (FORMAT.md, "Staleness"); none expired

    @property
    def changed(self) -> bool:
        """Whether it changes (or, on a dry run, would change) any file."""
        return bool(self.written or self.removed)

    @classmethod
    def of(cls, plan: Plan) -> Consolidation:
        return cls.model_validate(plan.to_dict())


class SyncReport(BaseModel):
    """What one `mem sync` did: commits received and sent, and the facts received that the guard holds back."""

    model_config = _FROZEN

    remote: str
    branch: str
    received: int = 0
    sent: int = 0
    committed_hand_edits: bool = False
    set_upstream: bool = False
    held: list[str] = []  # the facts received that the guard holds back: `scope id key: CODE: message`


class DoctorReport(BaseModel):
    """What `mem doctor` repaired, what is still wrong (each problem as one line), and notes that need no repair
    (episodes a person accepted although the guard still finds something in them)."""

    model_config = _FROZEN

    fixed: list[str]
    problems: list[str]
    notes: list[str] = []

    @property
    def healthy(self) -> bool:
        return not self.problems


class LogEntry(BaseModel):
    """One commit of the home's audit trail."""

    model_config = _FROZEN

    commit: str
    date: str
    author: str
    message: str


class EpisodeFile(BaseModel):
    """An episode's original file: where it was, its text, and the commit that removed it (None: still there)."""

    model_config = _FROZEN

    path: str
    removed_by: str | None = None
    digest: str | None = None
    episode: Episode | None = None  # None when the file no longer parses (its text is still there)
    text: str

    @classmethod
    def of(cls, found: Found) -> EpisodeFile:
        episode = found.episode
        text = found.data.decode("utf-8", errors="replace")
        return cls(path=found.relpath, removed_by=found.removed_by, digest=found.digest, episode=episode, text=text)

    def to_dict(self) -> dict[str, Any]:
        """As `mem show-episode --json` prints it."""
        episode = self.episode.to_dict() if self.episode else None
        return {
            "path": self.path,
            "removed_by": self.removed_by,
            "digest": self.digest,
            "episode": episode,
            "text": self.text,
        }


class HeldFact(BaseModel):
    """A fact the guard holds back from recall, render, the hooks and MCP (`mem review`): the fact, and the guard's
    error findings on its key, value, subject or source_ref."""

    model_config = _FROZEN

    fact: Fact
    findings: list[HeldFinding]

    @property
    def id(self) -> str:
        return self.fact.id

    def to_dict(self) -> dict[str, Any]:
        """As `mem review --json` prints it."""
        return {"id": self.fact.id, "findings": [f.model_dump() for f in self.findings], "fact": self.fact.to_dict()}


class HeldEpisode(BaseModel):
    """An episode the guard holds back (`flagged`), or one a person settled (`accepted`, `rejected`): its file,
    the episode, and the guard's error findings (for an accepted one: what it still finds)."""

    model_config = _FROZEN

    path: str
    state: Literal["flagged", "accepted", "rejected"]
    episode: Episode
    findings: list[HeldFinding]

    @property
    def id(self) -> str:
        return self.episode.id

    @classmethod
    def of(cls, held: Held) -> HeldEpisode:
        state = held.review.state
        assert state != "shown", "an ordinary episode is not held"
        return cls(path=held.relpath, state=state, episode=held.episode, findings=list(held.review.findings))

    def to_dict(self) -> dict[str, Any]:
        """As `mem review --json` prints it."""
        return {
            "id": self.episode.id,
            "state": self.state,
            "path": self.path,
            "findings": [f.model_dump() for f in self.findings],
            "episode": self.episode.to_dict(),
        }


class Forgotten(BaseModel):
    """The facts `forget` removed; with `purge`, also how many stored file versions were rewritten, and advice."""

    model_config = _FROZEN

    facts: list[Fact]
    purged_blobs: int | None = None
    advice: str | None = None


class WrittenInto(BaseModel):
    """What `render_into` did to a file: `changed` is False when its section was already up to date."""

    model_config = _FROZEN

    path: str
    scope: str
    changed: bool
    problems: list[str]  # memory files that did not parse (skipped, left as they are)


class Initialised(BaseModel):
    """Where `init` made a home, and whether it was new (False: it already was one; nothing changed)."""

    model_config = _FROZEN

    root: Path
    created: bool
    inside: Path | None = None  # the repository of a project the home sits in (which never tracks it)


class Cloned(BaseModel):
    """What `clone` did; `started` when the remote was empty and a new home was started in the clone."""

    model_config = _FROZEN

    url: str
    root: Path
    started: bool
