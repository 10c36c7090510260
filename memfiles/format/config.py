"""mem.toml: the settings of a memory home, their defaults, and their validation (one model per section)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, NonNegativeFloat, NonNegativeInt, ValidationError

from memfiles.errors import ConfigError
from memfiles.format.fields import SUBJECTS, Subject

# Written by `mem init`: every setting with its default and a one-line comment.
DEFAULT_TOML = """\
# memfiles settings for this memory home. Every setting is listed with its default.

[memory]
# Scope used when neither --user/--scope nor $MEM_USER is given, e.g. "user:alice" ("" = none).
default_scope = ""
# Episodes: recency half-life in days used by recall (0 = no decay).
half_life_days = 30
# Longest fact value accepted, in characters.
max_value_chars = 2000
# Most facts (of any status) one scope's MEMORY.md may hold.
max_facts_per_scope = 5000
# Longest episode (summary plus events), in characters.
max_episode_chars = 20000

[sources]
# Sources a write may name. "web" and "tool_output" are left out on purpose: text an agent read
# is how injected instructions become memory.
allowed = ["user_statement", "agent_summary", "consolidation", "import", "person"]
# Sources whose writes wait as `proposed` until a person runs `mem accept` (e.g. ["agent_summary"]).
review = []

[ttl]
# Days after which active facts of a subject expire at `mem consolidate` (0 = never).
user_preference = 0  # preferences last until the user says otherwise
user_attribute = 0  # attributes (name, time zone) too
account_state = 90  # plan tiers and balances go stale
constraint = 0  # constraints last until changed
past_action = 0  # what happened stays true
goal = 180  # goals are reviewed twice a year

[consolidate]
# Command that reads a JSON request on stdin and prints extractor JSON ("" = none).
extractor = ""
# Seconds the extractor may run before it is stopped.
extractor_timeout = 120
# Consolidated episodes older than this many days are folded into monthly DIGEST.md files.
older_than_days = 30

[lint]
# Rule codes (or prefixes such as "MEM3") that `mem lint` does not report.
ignore = []
"""


class _Section(BaseModel):
    # TOML has exact types: "5" is not a number and true is not 1, so nothing is coerced.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class MemorySettings(_Section):
    default_scope: str = ""
    half_life_days: NonNegativeFloat = 30.0
    max_value_chars: NonNegativeInt = 2000
    max_facts_per_scope: NonNegativeInt = 5000
    max_episode_chars: NonNegativeInt = 20000


class SourcesSettings(_Section):
    allowed: list[str] = ["user_statement", "agent_summary", "consolidation", "import", "person"]
    review: list[str] = []


def _default_ttl() -> dict[Subject, int]:
    return {
        "user_preference": 0,
        "user_attribute": 0,
        "account_state": 90,
        "constraint": 0,
        "past_action": 0,
        "goal": 180,
    }


class ConsolidateSettings(_Section):
    extractor: str = ""
    extractor_timeout: NonNegativeFloat = 120.0
    older_than_days: NonNegativeInt = 30


class LintSettings(_Section):
    ignore: list[str] = []


class Config(_Section):
    """The validated settings of one home: the sections of mem.toml (docs/FORMAT.md, "mem.toml")."""

    memory: MemorySettings = MemorySettings()
    sources: SourcesSettings = SourcesSettings()
    ttl: dict[Subject, NonNegativeInt] = Field(default_factory=_default_ttl)
    consolidate: ConsolidateSettings = ConsolidateSettings()
    lint: LintSettings = LintSettings()

    def ttl_days(self, subject: str) -> int:
        """Days until active facts of `subject` expire at consolidation (0: never)."""
        return int(self.ttl.get(cast(Subject, subject), 0))


_EXPECTED = {
    "int_type": "a whole number ≥ 0",
    "float_type": "a number ≥ 0",
    "greater_than_equal": "≥ 0",
    "string_type": "a string",
    "list_type": "a list of strings",
    "dict_type": "a [section]",
    "model_type": "a [section]",
}


def parse_config(text: str) -> Config:
    """Validate mem.toml text into a Config; unknown sections or settings are errors, not ignored."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"mem.toml: not valid TOML: {exc}") from None
    if isinstance(raw.get("ttl"), dict):  # the subjects not named keep their defaults
        raw["ttl"] = {**_default_ttl(), **raw["ttl"]}
    try:
        return Config.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"mem.toml: {_problem(exc.errors()[0])}") from None


def _problem(error: Any) -> str:
    """The first thing wrong in mem.toml, named by section and setting."""
    loc = [str(part) for part in error["loc"]]
    if error["type"] == "extra_forbidden" and len(loc) == 1:
        return f"unknown section [{loc[0]}] (known: {', '.join(Config.model_fields)})"
    if error["type"] == "extra_forbidden" or (loc[0] == "ttl" and error["type"] == "literal_error"):
        if loc[0] == "ttl":
            return f"[ttl] {loc[1]}: unknown subject (known: {', '.join(SUBJECTS)})"
        section = Config.model_fields[loc[0]].annotation
        known = ", ".join(getattr(section, "model_fields", {}))
        return f"[{loc[0]}] {loc[1]}: unknown setting (known: {known})"
    where = f"[{loc[0]}] {loc[1]}" if len(loc) > 1 else f"`{loc[0]}`"
    if error["type"] == "string_type" and len(loc) > 2:  # an item of a list of strings
        where, expected = f"[{loc[0]}] {loc[1]}", "a list of strings"
    elif error["type"] == "greater_than_equal":
        field = "a whole number" if loc[0] == "ttl" else _SCALAR_KIND.get((loc[0], loc[1]), "a number")
        expected = f"{field} ≥ 0"
    else:
        expected = _EXPECTED.get(error["type"], error["msg"])
    return f"{where} must be {expected}, got {error.get('input')!r}"


_SCALAR_KIND = {
    (section, name): "a whole number" if field.annotation is int else "a number"
    for section, model in (("memory", MemorySettings), ("consolidate", ConsolidateSettings))
    for name, field in model.model_fields.items()
}


def load_config(path: Path) -> Config:
    """Read and validate a home's mem.toml (defaults when the file is absent)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    return parse_config(text)
