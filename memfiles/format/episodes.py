"""Episode files (FORMAT.md, "Episodes"): what happened in one session or task, one markdown file each.

YAML frontmatter holds the structured fields (the `Episode` model validates them), the body is the
summary. Pure: bytes in, records out and back; a file that does not parse raises FileFormatError
naming the line, and nothing here writes.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from memfiles import clock
from memfiles.errors import FileFormatError, UsageError
from memfiles.format import yamlio
from memfiles.format.fields import Confidence, Key, OneLine, Problem, Subject, When, problems, sha256_hex

EpisodeOutcome = Literal["success", "failure", "partial", "unknown"]
OUTCOMES: tuple[str, ...] = get_args(EpisodeOutcome)
# `flagged`: held back by the guard; `accepted`: let in by a person (`accepted:` says which text);
# `rejected`: kept in its file, never shown. No status: an ordinary episode (FORMAT.md, "Quarantine").
EpisodeStatus = Literal["flagged", "accepted", "rejected"]
SHA256_PATTERN = re.compile(r"[0-9a-f]{64}")
ID_PATTERN = re.compile(r"e-[0-9a-f]{12}")
DEFAULT_SOURCE = "agent_summary"
MAX_FILE_BYTES = 16 * 1024 * 1024
_SLUG_CHARS = 40


class CandidateFact(BaseModel):
    """A fact an episode proposes for consolidation (`--fact KEY=VALUE`); not yet in MEMORY.md."""

    model_config = ConfigDict(extra="forbid")

    key: Key
    value: str
    subject: Subject | None = None
    confidence: Confidence | None = None

    def to_dict(self) -> dict[str, str]:
        return self.model_dump(exclude_none=True)


class Invalidation(BaseModel):
    """A fact key this episode makes stale, and why (`--invalidates KEY=REASON`)."""

    model_config = ConfigDict(extra="forbid")

    key: Key
    reason: str = ""

    @field_validator("reason", mode="before")
    @classmethod
    def _no_reason_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value

    def to_dict(self) -> dict[str, str]:
        return self.model_dump()


class HeldFinding(BaseModel):
    """One error finding of the guard on an episode's text, as its frontmatter records it (`findings:`)."""

    model_config = ConfigDict(extra="forbid")

    code: OneLine
    message: OneLine

    def line(self) -> str:
        return f"{self.code}: {self.message}"


class Acceptance(BaseModel):
    """A person let a held episode in (`mem accept`): the sha256 of the text accepted (`text_sha256`), when, who,
    and the signature of each machine it was accepted on (memfiles.store.machine; only those count there)."""

    model_config = ConfigDict(extra="forbid")

    sha256: str
    at: When
    by: OneLine = "person"
    signatures: list[str] = []

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str) -> str:
        if not SHA256_PATTERN.fullmatch(value):
            raise ValueError(f"`sha256` is {value!r}, expected 64 lower-case hex digits")
        return value


class Episode(BaseModel):
    """One episode: a session or task with its summary, events, outcome and provenance.

    The fields are the frontmatter's, in the order the file writes them; `summary` is the body.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str
    scope: OneLine
    session: OneLine | None = None
    started_at: When
    ended_at: When | None = None
    entities: list[str] = []
    outcome: EpisodeOutcome = "unknown"
    events: list[str] = []
    source: OneLine = DEFAULT_SOURCE
    source_ref: OneLine | None = None
    transcript: bool = False
    facts: list[CandidateFact] = []
    invalidates: list[Invalidation] = []
    consolidated: bool = False
    status: EpisodeStatus | None = None
    findings: list[HeldFinding] = []
    accepted: Acceptance | None = None
    summary: str = ""

    @model_validator(mode="before")
    @classmethod
    def _null_is_the_default(cls, data: Any) -> Any:
        # `outcome:` or `entities: null` typed by hand mean "not said", as leaving the field out does.
        if isinstance(data, dict):
            optional = (
                "entities",
                "outcome",
                "events",
                "source",
                "transcript",
                "facts",
                "invalidates",
                "consolidated",
                "findings",
            )
            return {k: v for k, v in data.items() if not (v is None and k in optional)}
        return data

    @field_validator("id")
    @classmethod
    def _id_form(cls, value: str) -> str:
        if not ID_PATTERN.fullmatch(value):
            raise ValueError(f"`id` is {value!r}, expected e- and 12 hex digits")
        return value

    def to_dict(self) -> dict[str, Any]:
        """Every field in canonical order, then the summary (dates as text, for JSON output)."""
        data = self.model_dump(mode="json")
        data["facts"] = [f.to_dict() for f in self.facts]
        return data


def episode_id(scope: str, session: str | None, started_at: str | clock.When, summary: str) -> str:
    """A deterministic id (`e-` + 12 hex): the same episode recorded twice gets the same id."""
    seed = "\0".join((scope, session or "", clock.iso(clock.parse_when(started_at)), " ".join(summary.split())))
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
    moment = clock.to_datetime(episode.started_at).replace(tzinfo=None)
    when = moment.isoformat(timespec="seconds").replace(":", "-") + "Z"  # zero-padded: year 1 is 0001
    suffix = "" if attempt == 1 else f"-{attempt}"
    return f"{when}-{slug(episode)}{suffix}.md"


def split_pair(text: str, option: str) -> tuple[str, str]:
    """`KEY=VALUE` (as given to --fact or --invalidates) into its two halves, or a UsageError."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise UsageError(f"{option} {text!r}: write KEY=VALUE, for example {option} goal='build emergency fund'")
    return key.strip(), value.strip()


def parse(data: bytes, path: str, expected_scope: str | None = None) -> Episode:
    """Parse an episode file's bytes, or raise FileFormatError with `path:line`."""
    if len(data) > MAX_FILE_BYTES:
        raise FileFormatError(path, None, f"file is {len(data)} bytes, over the {MAX_FILE_BYTES} byte limit")
    cut = yamlio.split(data, path)
    if cut.front is None:
        raise FileFormatError(path, 1, "an episode file starts with `---`, its frontmatter, and a closing `---`")
    raw = yamlio.load(cut.front, path, cut.first_line)
    try:
        summary = cut.body.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, len(data) - len(cut.body) + exc.start) + 1
        raise FileFormatError(path, line, "summary is not valid UTF-8") from None
    if not isinstance(raw, dict):
        raise FileFormatError(path, cut.first_line, "frontmatter must be a mapping of episode fields")
    if "summary" in raw:
        line = yamlio.locate(cut.front, ("summary",)) + cut.first_line
        raise FileFormatError(path, line, "unknown episode field 'summary' (the summary is the text below `---`)")
    try:
        episode = Episode.model_validate({**raw, "summary": summary})
    except ValidationError as exc:
        # The line of the top-level field at fault: a person looks for `invalidates:`, then reads its items.
        first = min(problems(exc, _describe), key=_priority)
        raise FileFormatError(path, yamlio.locate(cut.front, first.where[:1]) + cut.first_line, first.message) from None
    if expected_scope is not None and episode.scope != expected_scope:
        line = yamlio.locate(cut.front, ("scope",)) + cut.first_line
        raise FileFormatError(
            path, line, f"`scope: {episode.scope}` does not match the folder's scope {expected_scope}"
        )
    return episode


_FIELDS = tuple(Episode.model_fields)


def _priority(problem: Problem) -> tuple[int, int]:
    """Which problem an episode file reports: unknown fields, then missing ones, then the rest in field order."""
    rank = {"unknown-field": 0, "missing": 1}.get(problem.kind, 2)
    where = problem.where
    return rank, _FIELDS.index(where[0]) if where and where[0] in _FIELDS else -1


def _describe(loc: tuple[Any, ...], sentence: str) -> str:
    """A validation error of an episode's frontmatter in the words of docs/FORMAT.md."""
    if not loc:
        return sentence
    if len(loc) == 1:
        if sentence.startswith("unknown field "):
            return f"unknown episode field {loc[0]!r} (allowed: {', '.join(_FIELDS[:-1])})"
        return f"episode is {sentence}" if sentence.startswith("missing ") else sentence
    item = f"{loc[0]} #{loc[1] + 1}" if isinstance(loc[1], int) else str(loc[0])
    if len(loc) == 2:
        if loc[0] in ("facts", "invalidates"):
            return f"{item} must be a mapping with key and {'value' if loc[0] == 'facts' else 'reason'}"
        return sentence.replace(f"`{loc[1]}`", f"`{loc[0]}`")
    if sentence.startswith("unknown field "):
        allowed = CandidateFact.model_fields if loc[0] == "facts" else Invalidation.model_fields
        return f"{item}: {sentence} (allowed: {', '.join(allowed)})"
    if sentence.startswith("missing "):
        return f"{item} is {sentence}"
    return f"{item}: {sentence}"


def serialize(episode: Episode) -> bytes:
    """An Episode as file bytes: canonical frontmatter (facts/invalidates only when present), then the summary."""
    return yamlio.dump(_front(episode)) + episode.summary.strip().encode("utf-8") + b"\n"


def _front(episode: Episode) -> dict[str, Any]:
    front = episode.model_dump(exclude={"summary"})
    if not episode.facts:
        del front["facts"]
    else:
        front["facts"] = [f.to_dict() for f in episode.facts]
    if not episode.invalidates:
        del front["invalidates"]
    for name in ("source_ref", "transcript", "status", "findings", "accepted"):  # written only when they say something
        if not front[name]:
            del front[name]
    return front


# --- the text the guard reads: what render and recall show of an episode (FORMAT.md, "Quarantine") ---

# A turn of a declared transcript: a speaker label (`User:`, `Speaker 1:`, `Dr. Lee:`) starting a line.
_TURN = re.compile(r"[ \t]*(?:\[[^\]\n]{1,24}\][ \t]*)?(\w[\w.'-]*(?: [\w.'-]+){0,2})[ \t]?:(?:\s|$)")


def _turns(summary: str) -> list[str]:
    """A transcript's summary as its turns: a line that does not start with a speaker label continues the turn."""
    turns: list[str] = []
    for raw in summary.splitlines():
        line = " ".join(raw.split())
        if not line:
            continue
        label = _TURN.match(line)
        if turns and not (label and (label.group(1)[0].isupper() or label.group(1)[0].isdigit())):
            turns[-1] += " " + line
        else:
            turns.append(line)
    return turns


def guarded_lines(episode: Episode) -> list[tuple[str, str]]:
    """(field, text) for every text of `episode` a reader sees, as render and recall join it.

    The summary and events are one line, their whitespace and line breaks collapsed as the block
    collapses them, so an instruction split across lines is read whole; a declared transcript keeps
    one line per turn. Session, `source_ref`, entities and invalidation reasons are a line each. Candidate
    fact values are not here: they are checked as fact values (`where="fact"`).
    """
    if episode.transcript:
        lines = [("summary", turn) for turn in _turns(episode.summary)]
        lines += [("event", " ".join(e.split())) for e in episode.events]
    else:
        lines = [("summary", " ".join(" ".join([episode.summary, *episode.events]).split()))]
    lines += [("session", episode.session)] if episode.session else []
    lines += [("source_ref", episode.source_ref)] if episode.source_ref else []
    lines += [("entity", e) for e in episode.entities]
    lines += [(f"reason for invalidating {i.key}", i.reason) for i in episode.invalidates if i.reason.strip()]
    return [(name, text) for name, text in lines if text.strip()]


def text_sha256(episode: Episode) -> str:
    """The sha256 an acceptance records: of the guarded lines, then `key=value` of each candidate fact.

    Any change to what a reader could see (summary words, an event, an entity, the source_ref, a candidate
    fact, the transcript flag) changes it, and so voids an acceptance; whitespace the block collapses does not.
    """
    kind = "transcript" if episode.transcript else "episode"
    lines = [kind, *(text for _, text in guarded_lines(episode)), *(f"{f.key}={f.value}" for f in episode.facts)]
    return sha256_hex("\n".join(lines))


_FLAG = re.compile(rb"^consolidated[ \t]*:[^\r\n]*", re.MULTILINE)


def mark_consolidated(data: bytes, path: str) -> bytes:
    """The episode file's bytes with `consolidated: true`; the summary (body) stays byte for byte.

    Only the flag's line changes (or is added at the end of the frontmatter), so a person's layout of
    the other fields survives; if that edit would not parse the same, the frontmatter is rewritten in
    canonical form instead. Raises FileFormatError when the file does not parse.
    """
    episode = parse(data, path)
    cut = yamlio.split(data, path)
    assert cut.front is not None  # parse() succeeded
    front = cut.front.encode("utf-8")
    start = len(cut.bom) + data[len(cut.bom) :].index(b"\n") + 1  # after the opening `---` line
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
    return cut.bom + yamlio.dump(_front(episode)) + cut.body
