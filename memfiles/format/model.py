"""A fact: the one model of a MEMORY.md fact (FORMAT.md, "Facts"), used by the file, the core and the API.

Changing the format means changing this class and docs/FORMAT.md. Validation happens where data comes
in (a file, the API, an extractor); the core then works on these objects and may change their status,
`valid_to` and the like in place (supersession), as the outcome rules say.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from memfiles import clock
from memfiles.format.fields import Confidence, Key, OneLine, Status, Subject, When, sha256_hex

# Statuses that make up a key's current belief; the rest is history or pending review.
CURRENT = ("active", "conflict")
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# Written even when empty (null); the other optional fields are left out when empty.
ALWAYS_WRITTEN = frozenset(
    {"id", "key", "value", "subject", "confidence", "source", "source_ref", "stated_at", "valid_from", "expires_at"}
    | {"status"}
)


class Fact(BaseModel):
    """One keyed fact with its provenance and lifecycle. Fields in the order MEMORY.md writes them."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str
    key: Key
    value: OneLine
    subject: Subject
    confidence: Confidence
    source: str
    source_ref: OneLine | None = None
    stated_at: When
    # Not given: stated_at (set below). Typed as always set, which it is once a Fact exists.
    valid_from: When = Field(default=None)  # type: ignore[assignment]
    expires_at: When | None = None
    status: Status = "active"
    valid_to: When | None = None
    superseded_by: str | None = None
    reason: OneLine | None = None
    last_confirmed: When | None = None
    last_inferred: When | None = None

    @field_validator("valid_from", mode="wrap")
    @classmethod
    def _valid_from_may_be_left_out(cls, value: Any, handler: Any) -> Any:
        return None if value is None else handler(value)

    @model_validator(mode="after")
    def _valid_from_defaults_to_stated_at(self) -> Fact:
        if self.valid_from is None:
            self.valid_from = self.stated_at
        return self

    @field_validator("id")
    @classmethod
    def _id_form(cls, value: str, info: ValidationInfo) -> str:
        if not ID_PATTERN.fullmatch(value):
            raise ValueError(f"`id` is {value!r}, expected an id such as f-3f9a1c2e")
        return value

    @field_validator("value")
    @classmethod
    def _value_given(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("`value` is empty: every fact needs a value (`mem forget` removes a fact)")
        return value

    @field_validator("source")
    @classmethod
    def _source_given(cls, value: str) -> str:
        if not value:
            raise ValueError("`source` is '', expected a non-empty source such as user_statement")
        return value

    @property
    def is_current(self) -> bool:
        return self.status in CURRENT

    def to_dict(self) -> dict[str, Any]:
        """The fact as MEMORY.md's field form (dates as text), optional fields only when set."""
        data = self.model_dump(mode="json")
        return {name: value for name, value in data.items() if value is not None or name in ALWAYS_WRITTEN}


def normalise_value(value: str) -> str:
    """The comparison form of a value: case and runs of whitespace do not make a new value."""
    return " ".join(value.split()).casefold()


def fact_id(key: str, value: str, stated_at: str | clock.When, confidence: str, taken: set[str]) -> str:
    """A deterministic id (`f-` + 8 hex) so that two machines adding the same fact agree on its id."""
    salt = 0
    while True:
        seed = f"{key}\0{normalise_value(value)}\0{clock.iso(clock.parse_when(stated_at))}\0{confidence}\0{salt}"
        candidate = "f-" + sha256_hex(seed)[:8]
        if candidate not in taken:
            return candidate
        salt += 1


def sort_facts(facts: list[Fact]) -> list[Fact]:
    """Canonical order: by key, then when stated (day first), then id."""
    return sorted(facts, key=lambda f: (f.key, clock.order(f.stated_at), f.id))
