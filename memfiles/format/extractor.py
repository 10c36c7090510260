"""The extractor's answer (FORMAT.md, "Extractor"): the models that validate what an extractor prints
(`extra="forbid"`), and the JSON Schema `mem schema extractor` publishes from them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memfiles.format.fields import Subject

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
