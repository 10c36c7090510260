"""mem.toml: the settings of a memory home, their defaults, and their validation."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memfiles.errors import ConfigError
from memfiles.format.model import SUBJECTS

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


@dataclass(slots=True)
class Config:
    """The validated settings of one home."""

    default_scope: str = ""
    half_life_days: float = 30.0
    max_value_chars: int = 2000
    max_facts_per_scope: int = 5000
    max_episode_chars: int = 20000
    allowed_sources: list[str] = field(
        default_factory=lambda: ["user_statement", "agent_summary", "consolidation", "import", "person"]
    )
    review_sources: list[str] = field(default_factory=list)
    ttl_days: dict[str, int] = field(
        default_factory=lambda: {s: {"account_state": 90, "goal": 180}.get(s, 0) for s in SUBJECTS}
    )
    extractor: str = ""
    extractor_timeout: float = 120.0
    older_than_days: int = 30
    lint_ignore: list[str] = field(default_factory=list)


# section -> setting -> (Config attribute, expected kind)
_SCHEMA: dict[str, dict[str, tuple[str, str]]] = {
    "memory": {
        "default_scope": ("default_scope", "str"),
        "half_life_days": ("half_life_days", "number"),
        "max_value_chars": ("max_value_chars", "int"),
        "max_facts_per_scope": ("max_facts_per_scope", "int"),
        "max_episode_chars": ("max_episode_chars", "int"),
    },
    "sources": {"allowed": ("allowed_sources", "strlist"), "review": ("review_sources", "strlist")},
    "consolidate": {
        "extractor": ("extractor", "str"),
        "extractor_timeout": ("extractor_timeout", "number"),
        "older_than_days": ("older_than_days", "int"),
    },
    "lint": {"ignore": ("lint_ignore", "strlist")},
}


def _check(where: str, value: Any, kind: str) -> Any:
    ok = {
        "str": isinstance(value, str),
        "int": isinstance(value, int) and not isinstance(value, bool) and value >= 0,
        "number": isinstance(value, int | float) and not isinstance(value, bool) and value >= 0,
        "strlist": isinstance(value, list) and all(isinstance(v, str) for v in value),
    }[kind]
    if not ok:
        expected = {
            "str": "a string",
            "int": "a whole number ≥ 0",
            "number": "a number ≥ 0",
            "strlist": "a list of strings",
        }[kind]
        raise ConfigError(f"mem.toml: {where} must be {expected}, got {value!r}")
    return float(value) if kind == "number" else value


def parse_config(text: str) -> Config:
    """Validate mem.toml text into a Config; unknown sections or settings are errors, not ignored."""
    try:
        raw = _toml().loads(text)
    except _toml().TOMLDecodeError as exc:
        raise ConfigError(f"mem.toml: not valid TOML: {exc}") from None
    config = Config()
    for section, values in raw.items():
        if not isinstance(values, dict):
            raise ConfigError(f"mem.toml: `{section}` must be a [section]")
        if section == "ttl":
            for subject, days in values.items():
                if subject not in SUBJECTS:
                    raise ConfigError(f"mem.toml: [ttl] {subject}: unknown subject (known: {', '.join(SUBJECTS)})")
                config.ttl_days[subject] = _check(f"[ttl] {subject}", days, "int")
            continue
        if section not in _SCHEMA:
            known = ", ".join(sorted([*_SCHEMA, "ttl"]))
            raise ConfigError(f"mem.toml: unknown section [{section}] (known: {known})")
        for name, value in values.items():
            if name not in _SCHEMA[section]:
                known = ", ".join(_SCHEMA[section])
                raise ConfigError(f"mem.toml: [{section}] {name}: unknown setting (known: {known})")
            attr, kind = _SCHEMA[section][name]
            setattr(config, attr, _check(f"[{section}] {name}", value, kind))
    return config


def load_config(path: Path) -> Config:
    """Read and validate a home's mem.toml (defaults when the file is absent)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    return _cached(path, text)


def _toml() -> Any:
    import tomllib  # only when mem.toml changed since it was last read (see _cached)

    return tomllib


def _cached(path: Path, text: str) -> Config:
    """The settings `text` holds, from the home's cache when that text was validated before (saves ~3 ms)."""
    import json

    from memfiles import __version__
    from memfiles.format.layout import CACHE_DIR

    cache = path.parent / CACHE_DIR / "config.json"
    key = {"text": text, "mem": __version__, "settings": repr(_SCHEMA)}
    try:
        saved = json.loads(cache.read_text(encoding="utf-8"))
        if saved["key"] == key:
            return Config(**saved["config"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    config = parse_config(text)  # raises ConfigError for a bad file, which is never cached
    if cache.parent.is_dir():
        try:
            temp = cache.with_name(f".config.json.{os.getpid()}.tmp")
            temp.write_text(json.dumps({"key": key, "config": asdict(config)}), encoding="utf-8")
            os.replace(temp, cache)
        except OSError:
            pass  # a read-only home: parse each time
    return config
