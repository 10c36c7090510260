"""The records memfiles keeps: facts, as plain typed values (no I/O). Write outcomes: memfiles.outcome."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

SUBJECTS = (
    "user_preference",
    "user_attribute",
    "account_state",
    "constraint",
    "past_action",
    "goal",
)
CONFIDENCES = ("stated", "inferred")
STATUSES = ("active", "proposed", "conflict", "superseded", "expired", "retracted")
# Statuses that make up a key's current belief; the rest is history or pending review.
CURRENT = ("active", "conflict")


@dataclass(slots=True)
class Fact:
    """One keyed fact with its provenance and lifecycle (FORMAT.md, "Facts")."""

    id: str
    key: str
    value: str
    subject: str
    confidence: str
    source: str
    stated_at: str
    valid_from: str
    status: str = "active"
    source_ref: str | None = None
    expires_at: str | None = None
    valid_to: str | None = None
    superseded_by: str | None = None
    reason: str | None = None
    last_confirmed: str | None = None
    last_inferred: str | None = None

    @property
    def is_current(self) -> bool:
        return self.status in CURRENT

    def to_dict(self) -> dict[str, str | None]:
        """The fact as a dict in canonical field order; optional fields only when set."""
        out: dict[str, str | None] = {}
        for name in FIELD_ORDER:
            value = getattr(self, name)
            if value is not None or name in ALWAYS_WRITTEN:
                out[name] = value
        return out


# Canonical order of fields in MEMORY.md, so diffs stay small (FORMAT.md, "Facts").
FIELD_ORDER = (
    "id",
    "key",
    "value",
    "subject",
    "confidence",
    "source",
    "source_ref",
    "stated_at",
    "valid_from",
    "expires_at",
    "status",
    "valid_to",
    "superseded_by",
    "reason",
    "last_confirmed",
    "last_inferred",
)
ALWAYS_WRITTEN = frozenset(
    (
        "id",
        "key",
        "value",
        "subject",
        "confidence",
        "source",
        "source_ref",
        "stated_at",
        "valid_from",
        "expires_at",
        "status",
    )
)
REQUIRED = frozenset(("id", "key", "value", "subject", "confidence", "source", "stated_at", "status"))
# The fields that hold a When (written unquoted, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ`).
WHEN_FIELDS = ("stated_at", "valid_from", "expires_at", "valid_to", "last_confirmed", "last_inferred")
assert set(FIELD_ORDER) == {f.name for f in fields(Fact)}


def normalise_value(value: str) -> str:
    """The comparison form of a value: case and runs of whitespace do not make a new value."""
    return " ".join(value.split()).casefold()


def sha(name: str) -> Any:
    """The constructor of hash `name` (sha1 or sha256), as hashlib gives it: Python's own module where it has
    one, since importing hashlib loads OpenSSL first (3-5 ms of every write)."""
    import importlib

    for module in {"sha1": ("_sha1",), "sha256": ("_sha256", "_sha2")}[name]:  # _sha2: Python 3.12 and later
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
    import hashlib

    return getattr(hashlib, name)


def sha256_hex(text: str) -> str:
    """The SHA-256 of `text` (UTF-8) in hex, as hashlib gives it."""
    return str(sha("sha256")(text.encode("utf-8")).hexdigest())


def fact_id(key: str, value: str, stated_at: str, confidence: str, taken: set[str]) -> str:
    """A deterministic id (`f-` + 8 hex) so that two machines adding the same fact agree on its id."""
    salt = 0
    while True:
        seed = f"{key}\0{normalise_value(value)}\0{stated_at}\0{confidence}\0{salt}"
        candidate = "f-" + sha256_hex(seed)[:8]
        if candidate not in taken:
            return candidate
        salt += 1


def sort_facts(facts: list[Fact]) -> list[Fact]:
    """Canonical order: by key, then when stated, then id."""
    return sorted(facts, key=lambda f: (f.key, f.stated_at[:10], f.stated_at, f.id))
