"""pydantic models for data that crosses the package boundary: API results and structured input.

The core works on plain dataclasses (`memfiles.model`) so that read-only commands start fast;
these models validate what comes in (`extra="forbid"`) and type what the Python API returns.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from memfiles.model import Fact, Outcome

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
