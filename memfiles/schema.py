"""pydantic models for data that crosses the package boundary: API results and structured input.

The core works on plain dataclasses (`memfiles.format.model`) so that read-only commands start fast;
these models validate what comes in (`extra="forbid"`) and type what the Python API returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memfiles.format.model import Fact, Outcome

if TYPE_CHECKING:
    from memfiles.ops.writepath import NewEpisode

Subject = Literal["user_preference", "user_attribute", "account_state", "constraint", "past_action", "goal"]
Status = Literal["active", "proposed", "conflict", "superseded", "expired", "retracted"]


class FactModel(BaseModel):
    """One fact, as returned by the Python API (FORMAT.md, "Facts")."""

    model_config = ConfigDict(extra="forbid", from_attributes=True, frozen=True)

    id: str
    key: str
    value: str
    subject: Subject
    confidence: Literal["stated", "inferred"]
    source: str
    source_ref: str | None = None
    stated_at: str
    valid_from: str
    expires_at: str | None = None
    status: Status
    valid_to: str | None = None
    superseded_by: str | None = None
    reason: str | None = None
    last_confirmed: str | None = None
    last_inferred: str | None = None

    @classmethod
    def of(cls, fact: Fact) -> FactModel:
        return cls.model_validate(fact)


class OutcomeModel(BaseModel):
    """What one write did (FORMAT.md, "Outcome rules")."""

    model_config = ConfigDict(extra="forbid", from_attributes=True, frozen=True)

    kind: Literal["added", "reinforced", "superseded", "conflict", "proposed", "refused"]
    scope: str
    key: str
    fact_id: str | None = None
    ids: list[str] = []
    rule: str | None = None
    why: str | None = None

    @classmethod
    def of(cls, outcome: Outcome) -> OutcomeModel:
        return cls.model_validate(outcome)

    def line(self) -> str:
        """The same one-line text `mem add` prints."""
        return Outcome(self.kind, self.scope, self.key, self.fact_id, list(self.ids), self.rule, self.why).line()


class EpisodeOutcomeModel(BaseModel):
    """What recording one episode did: `recorded` (a new file), `exists` (already there) or `refused`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["recorded", "exists", "refused"]
    scope: str
    id: str | None = None
    path: str | None = None
    rule: str | None = None
    why: str | None = None

    def line(self) -> str:
        """The same one-line text `mem episode` prints."""
        if self.kind == "refused":
            return f"refused: {self.rule}: {self.why}"
        return f"{self.kind} {self.id} {self.path}"


class RecallModel(BaseModel):
    """What recall or render found: the block (`text`), every item with its scores, and unreadable files."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scopes: list[str]
    as_of: str
    text: str
    tokens: int
    items: list[dict[str, Any]]
    omitted: int
    problems: list[str]

    def __str__(self) -> str:
        return self.text


class ConsolidationModel(BaseModel):
    """What consolidation did (or would do, on a dry run) to one scope (`mem consolidate --json`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

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


class CandidateFactModel(BaseModel):
    """A candidate fact inside an episode (`--fact KEY=VALUE`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str
    value: str
    subject: Subject | None = None
    confidence: Literal["stated", "inferred"] | None = None


class InvalidationModel(BaseModel):
    """A key an episode makes stale, with the reason."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str
    reason: str


class EpisodeInput(BaseModel):
    """One episode object of `mem episode --from-json` (FORMAT.md, "Episodes"; id and scope are assigned)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    summary: str
    session: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    entities: list[str] = []
    events: list[str] = []
    outcome: Literal["success", "failure", "partial", "unknown"] = "unknown"
    facts: list[CandidateFactModel] = []
    invalidates: list[InvalidationModel] = []
    source: str | None = None

    def to_new(self) -> NewEpisode:
        """The write path's input record."""
        from memfiles.ops.writepath import NewCandidate, NewEpisode, NewInvalidation

        return NewEpisode(
            summary=self.summary,
            session=self.session,
            at=self.started_at,
            ended=self.ended_at,
            entities=list(self.entities),
            events=list(self.events),
            outcome=self.outcome,
            facts=[NewCandidate(f.key, f.value, f.subject, f.confidence) for f in self.facts],
            invalidates=[NewInvalidation(i.key, i.reason) for i in self.invalidates],
            source=self.source,
        )


def episodes_from_json(text: str, where: str) -> list[NewEpisode]:
    """One episode object or a list of them (JSON text) into write-path records, or a UsageError naming the item."""
    import json

    from pydantic import ValidationError

    from memfiles.errors import UsageError

    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    items = raw if isinstance(raw, list) else [raw]
    batch: list[NewEpisode] = []
    for number, item in enumerate(items, start=1):
        try:
            batch.append(EpisodeInput.model_validate(item).to_new())
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "episode"
            raise UsageError(f"{where}: episode #{number}: {field}: {first['msg']}") from None
    return batch


# --- consolidation (issue 5): the extractor's answer (FORMAT.md, "Extractor") ---

KEY_REGEX = r"^[a-z][a-z0-9_.-]{0,63}$"


class ExtractorDecision(BaseModel):
    """An existing fact the extractor found no longer true: which, why, and the episode that shows it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="id of a fact listed in the request's `facts`")
    reason: str = Field(description="one line: what happened, e.g. 'user completed a property purchase on 2026-07-11'")
    episode: str | None = Field(default=None, description="id of the request episode that shows it, if one does")


class ExtractorFact(BaseModel):
    """A new fact the extractor found in the episodes; it goes through the guarded write path."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str = Field(pattern=KEY_REGEX, description="snake_case key; reuse an existing key to replace its value")
    value: str = Field(description="one line of text")
    subject: Subject
    confidence: Literal["stated", "inferred"] = Field(
        default="inferred", description="stated only when the person said it in so many words"
    )
    episode: str | None = Field(default=None, description="id of the request episode it comes from")
    stated_at: str | None = Field(
        default=None, description="ISO date or datetime; default: the episode's start, else now"
    )
    expires_at: str | None = Field(default=None, description="ISO date after which it no longer holds")


class ExtractorOutput(BaseModel):
    """What an extractor prints: facts to supersede, facts to expire, and new facts (`mem schema extractor`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="memfiles extractor output")

    supersede: list[ExtractorDecision] = Field(description="current facts an episode shows are no longer true")
    expire: list[ExtractorDecision] = Field(description="current facts whose time has passed")
    new: list[ExtractorFact] = Field(description="new facts from the episodes")


def extractor_schema() -> dict[str, object]:
    """The published JSON Schema of extractor output."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **ExtractorOutput.model_json_schema()}
