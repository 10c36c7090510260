"""Episode files (FORMAT.md, "Episodes"): what happened in one session or task, one markdown file each.

YAML frontmatter holds the structured fields, the body is the summary. Pure: bytes in, records out
and back; a file that does not parse raises FileFormatError naming the line, and nothing here writes.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from memfiles import clock
from memfiles.errors import FileFormatError, UsageError
from memfiles.format.memoryfile import (
    KEY_PATTERN,
    MAX_FILE_BYTES,
    dump_frontmatter,
    load_frontmatter,
    split_frontmatter,
    yaml_when,
)
from memfiles.format.model import CONFIDENCES, SUBJECTS, sha256_hex

OUTCOMES = ("success", "failure", "partial", "unknown")
# Canonical order of frontmatter fields (FORMAT.md, "Episodes").
FIELDS = (
    "id",
    "scope",
    "session",
    "started_at",
    "ended_at",
    "entities",
    "outcome",
    "events",
    "source",
    "facts",
    "invalidates",
    "consolidated",
)
REQUIRED = ("id", "scope", "started_at")
ID_PATTERN = re.compile(r"e-[0-9a-f]{12}")
DEFAULT_SOURCE = "agent_summary"
_SLUG_CHARS = 40


@dataclass(slots=True)
class CandidateFact:
    """A fact an episode proposes for consolidation (`--fact KEY=VALUE`); not yet in MEMORY.md."""

    key: str
    value: str
    subject: str | None = None
    confidence: str | None = None

    def to_dict(self) -> dict[str, str]:
        out = {"key": self.key, "value": self.value}
        if self.subject:
            out["subject"] = self.subject
        if self.confidence:
            out["confidence"] = self.confidence
        return out


@dataclass(slots=True)
class Invalidation:
    """A fact key this episode makes stale, and why (`--invalidates KEY=REASON`)."""

    key: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"key": self.key, "reason": self.reason}


@dataclass(slots=True)
class Episode:
    """One episode: a session or task with its summary, events, outcome and provenance."""

    id: str
    scope: str
    started_at: str
    summary: str
    session: str | None = None
    ended_at: str | None = None
    entities: list[str] = field(default_factory=list)
    outcome: str = "unknown"
    events: list[str] = field(default_factory=list)
    source: str = DEFAULT_SOURCE
    facts: list[CandidateFact] = field(default_factory=list)
    invalidates: list[Invalidation] = field(default_factory=list)
    consolidated: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Every field in canonical order, then the summary (for JSON output)."""
        return {
            "id": self.id,
            "scope": self.scope,
            "session": self.session,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "entities": list(self.entities),
            "outcome": self.outcome,
            "events": list(self.events),
            "source": self.source,
            "facts": [f.to_dict() for f in self.facts],
            "invalidates": [i.to_dict() for i in self.invalidates],
            "consolidated": self.consolidated,
            "summary": self.summary,
        }


def episode_id(scope: str, session: str | None, started_at: str, summary: str) -> str:
    """A deterministic id (`e-` + 12 hex): the same episode recorded twice gets the same id."""
    seed = "\0".join((scope, session or "", started_at, " ".join(summary.split())))
    return "e-" + sha256_hex(seed)[:12]


def slug(episode: Episode) -> str:
    """A short ASCII name for the file: the first entity, else the session, else the summary's first words."""
    source = (episode.entities[0] if episode.entities else "") or episode.session or episode.summary
    folded = unicodedata.normalize("NFKD", source).encode("ascii", "ignore").decode().lower()
    words = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")
    if len(words) > _SLUG_CHARS:
        words = words[:_SLUG_CHARS].rsplit("-", 1)[0] if "-" in words[:_SLUG_CHARS] else words[:_SLUG_CHARS]
    return words or "episode"


def file_name(episode: Episode, attempt: int = 1) -> str:
    """`YYYY-MM-DDTHH-MM-SSZ-<slug>.md`; `attempt` > 1 adds `-2`, `-3`… when the name is taken."""
    when = clock.to_datetime(episode.started_at).strftime("%Y-%m-%dT%H-%M-%SZ")
    suffix = "" if attempt == 1 else f"-{attempt}"
    return f"{when}-{slug(episode)}{suffix}.md"


def split_pair(text: str, option: str) -> tuple[str, str]:
    """`KEY=VALUE` (as given to --fact or --invalidates) into its two halves, or a UsageError."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise UsageError(f"{option} {text!r}: write KEY=VALUE, for example {option} goal='build emergency fund'")
    return key.strip(), value.strip()


class _Problem(Exception):
    def __init__(self, name: str, message: str) -> None:
        self.name = name
        self.message = message


def parse(data: bytes, path: str, expected_scope: str | None = None) -> Episode:
    """Parse an episode file's bytes, or raise FileFormatError with `path:line`."""
    if len(data) > MAX_FILE_BYTES:
        raise FileFormatError(path, None, f"file is {len(data)} bytes, over the {MAX_FILE_BYTES} byte limit")
    _bom, front, body, first_line = split_frontmatter(data)
    if front is None:
        raise FileFormatError(path, 1, "an episode file starts with `---`, its frontmatter, and a closing `---`")
    text, raw = load_frontmatter(front, path, first_line)
    try:
        summary = body.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, len(data) - len(body) + exc.start) + 1
        raise FileFormatError(path, line, "summary is not valid UTF-8") from None
    try:
        return _episode(raw, summary, expected_scope)
    except _Problem as problem:
        raise FileFormatError(path, _line_of(text, problem.name) + first_line, problem.message) from None


def _line_of(text: str, name: str) -> int:
    """The 0-based frontmatter line where top-level field `name` starts (0 when absent)."""
    match = re.search(rf"^{re.escape(name)}\s*:", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) if match else 0


def _episode(raw: Any, summary: str, expected_scope: str | None) -> Episode:
    if not isinstance(raw, dict):
        raise _Problem("", "frontmatter must be a mapping of episode fields")
    for name in raw:
        if name not in FIELDS:
            raise _Problem(str(name), f"unknown episode field {name!r} (allowed: {', '.join(FIELDS)})")
    for name in REQUIRED:
        if raw.get(name) is None:
            raise _Problem("", f"episode is missing `{name}`")
    episode_id_ = _text(raw, "id")
    if not ID_PATTERN.fullmatch(episode_id_):
        raise _Problem("id", f"`id` is {episode_id_!r}, expected e- and 12 hex digits")
    scope = _text(raw, "scope")
    if expected_scope is not None and scope != expected_scope:
        raise _Problem("scope", f"`scope: {scope}` does not match the folder's scope {expected_scope}")
    outcome = raw.get("outcome") or "unknown"
    if outcome not in OUTCOMES:
        raise _Problem("outcome", f"`outcome` is {outcome!r}, expected one of {', '.join(OUTCOMES)}")
    consolidated = raw.get("consolidated", False)
    if not isinstance(consolidated, bool):
        raise _Problem("consolidated", f"`consolidated` must be true or false, got {consolidated!r}")
    return Episode(
        id=episode_id_,
        scope=scope,
        started_at=_when(raw, "started_at") or "",
        summary=summary,
        session=_text(raw, "session") if raw.get("session") is not None else None,
        ended_at=_when(raw, "ended_at"),
        entities=_texts(raw, "entities"),
        outcome=outcome,
        events=_texts(raw, "events"),
        source=_text(raw, "source") if raw.get("source") is not None else DEFAULT_SOURCE,
        facts=[_candidate(item, n) for n, item in enumerate(_list(raw, "facts"), start=1)],
        invalidates=[_invalidation(item, n) for n, item in enumerate(_list(raw, "invalidates"), start=1)],
        consolidated=consolidated,
    )


def _scalar(value: Any, name: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value)
    raise _Problem(name, f"`{name}` must be text, got {type(value).__name__}")


def _text(raw: dict[str, Any], name: str) -> str:
    text = _scalar(raw.get(name), name)
    if "\n" in text or "\r" in text:
        raise _Problem(name, f"`{name}` must be one line")
    return text


def _texts(raw: dict[str, Any], name: str) -> list[str]:
    return [_scalar(item, name) for item in _list(raw, name)]


def _list(raw: dict[str, Any], name: str) -> list[Any]:
    value = raw.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Problem(name, f"`{name}` must be a list")
    return value


def _when(raw: dict[str, Any], name: str) -> str | None:
    value = raw.get(name)
    if value is None:
        return None
    try:
        return clock.when_from_value(value)
    except UsageError:
        expected = "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ"
        raise _Problem(name, f"`{name}` is not a date: {value!r} (expected {expected})") from None


def _mapping(item: Any, name: str, number: int, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise _Problem(name, f"{name} #{number} must be a mapping with {' and '.join(allowed[:2])}")
    for key in item:
        if key not in allowed:
            raise _Problem(name, f"{name} #{number}: unknown field {key!r} (allowed: {', '.join(allowed)})")
    fact_key = _scalar(item.get("key", ""), name)
    if not KEY_PATTERN.fullmatch(fact_key):
        raise _Problem(name, f"{name} #{number}: `key` is {fact_key!r}, expected lower-case letters, digits, _ . -")
    return item


def _candidate(item: Any, number: int) -> CandidateFact:
    item = _mapping(item, "facts", number, ("key", "value", "subject", "confidence"))
    subject = item.get("subject")
    confidence = item.get("confidence")
    if subject is not None and subject not in SUBJECTS:
        raise _Problem("facts", f"facts #{number}: `subject` is {subject!r}, expected one of {', '.join(SUBJECTS)}")
    if confidence is not None and confidence not in CONFIDENCES:
        raise _Problem("facts", f"facts #{number}: `confidence` is {confidence!r}, expected stated or inferred")
    if item.get("value") is None:
        raise _Problem("facts", f"facts #{number} is missing `value`")
    return CandidateFact(item["key"], _scalar(item["value"], "facts"), subject, confidence)


def _invalidation(item: Any, number: int) -> Invalidation:
    item = _mapping(item, "invalidates", number, ("key", "reason"))
    reason = item.get("reason")
    return Invalidation(item["key"], "" if reason is None else _scalar(reason, "invalidates"))


def serialize(episode: Episode) -> bytes:
    """An Episode as file bytes: canonical frontmatter (facts/invalidates only when present), then the summary."""
    return dump_frontmatter(_front(episode)) + episode.summary.strip().encode("utf-8") + b"\n"


def _front(episode: Episode) -> dict[str, Any]:
    front: dict[str, Any] = {
        "id": episode.id,
        "scope": episode.scope,
        "session": episode.session,
        "started_at": yaml_when(episode.started_at),
        "ended_at": yaml_when(episode.ended_at) if episode.ended_at else None,
        "entities": list(episode.entities),
        "outcome": episode.outcome,
        "events": list(episode.events),
        "source": episode.source,
    }
    if episode.facts:
        front["facts"] = [f.to_dict() for f in episode.facts]
    if episode.invalidates:
        front["invalidates"] = [i.to_dict() for i in episode.invalidates]
    front["consolidated"] = episode.consolidated
    return front


_FLAG = re.compile(rb"^consolidated[ \t]*:[^\r\n]*", re.MULTILINE)


def mark_consolidated(data: bytes, path: str) -> bytes:
    """The episode file's bytes with `consolidated: true`; the summary (body) stays byte for byte.

    Only the flag's line changes (or is added at the end of the frontmatter), so a person's layout of
    the other fields survives; if that edit would not parse the same, the frontmatter is rewritten in
    canonical form instead. Raises FileFormatError when the file does not parse.
    """
    episode = parse(data, path)
    bom, front, body, _first_line = split_frontmatter(data)
    assert front is not None  # parse() succeeded
    start = len(bom) + data[len(bom) :].index(b"\n") + 1  # after the opening `---` line
    end = start + len(front)
    newline = b"\r\n" if data[start - 2 : start] == b"\r\n" else b"\n"
    if _FLAG.search(front):
        edited = _FLAG.sub(b"consolidated: true", front, count=1)
    else:
        edited = front + (b"" if not front or front.endswith(b"\n") else newline) + b"consolidated: true" + newline
    marked = data[:start] + edited + data[end:]
    episode.consolidated = True
    try:
        if parse(marked, path) == episode:
            return marked
    except FileFormatError:
        pass
    return bom + dump_frontmatter(_front(episode)) + body
