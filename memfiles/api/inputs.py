"""What comes into the API from outside: episode objects (`mem episode --from-json`), values from a stream,
and dates, each checked once here and handed to the write path as its own records."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from pydantic import BaseModel, ConfigDict, ValidationError

from memfiles.errors import RefusedError, UsageError
from memfiles.format.episodes import EpisodeOutcome
from memfiles.format.fields import Confidence, Subject

if TYPE_CHECKING:
    from memfiles.ops.record import NewEpisode

When = date | str  # a date, a datetime (a date subclass) or ISO text; where noted, text may also be `Nd`


class CandidateInput(BaseModel):
    """A candidate fact inside an episode object (checked like `--fact KEY=VALUE` by the write path)."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    key: str
    value: str
    subject: Subject | None = None
    confidence: Confidence | None = None


class InvalidationInput(BaseModel):
    """A key an episode object makes stale, and why."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    key: str
    reason: str


class EpisodeInput(BaseModel):
    """One episode object of `mem episode --from-json` (FORMAT.md, "Episodes"; id and scope are assigned)."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    summary: str
    session: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    entities: list[str] = []
    events: list[str] = []
    outcome: EpisodeOutcome = "unknown"
    facts: list[CandidateInput] = []
    invalidates: list[InvalidationInput] = []
    source: str | None = None
    source_ref: str | None = None  # where it came from: a session, a ticket, a file and record
    transcript: bool = False  # a role-labelled transcript, declared (FORMAT.md, "Quarantine")

    def to_new(self) -> NewEpisode:
        """The write path's input record."""
        from memfiles.ops.record import NewCandidate, NewEpisode, NewInvalidation

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
            transcript=self.transcript,
            ref=self.source_ref,
        )


def episodes_from_json(data: bytes | str, where: str) -> list[EpisodeInput]:
    """One episode object or a list of them (JSON, UTF-8) as EpisodeInputs; a UsageError names what and where."""
    if isinstance(data, bytes):
        from memfiles.ops.textfield import undecodable

        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"{where}: {undecodable(exc)}; save the episodes as UTF-8 JSON") from None
    try:
        raw = json.loads(data)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise UsageError(
            f"{where}: the JSON is nested too deeply to read; give one episode object or a list of them"
        ) from None
    items = raw if isinstance(raw, list) else [raw]
    return [episode_input(item, where, number) for number, item in enumerate(items, start=1)]


def episode_input(item: EpisodeInput | Mapping[str, Any], where: str, number: int) -> EpisodeInput:
    """One episode object checked against EpisodeInput; a UsageError names the episode and the field."""
    if isinstance(item, EpisodeInput):
        return item
    try:
        return EpisodeInput.model_validate(item)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "episode"
        raise UsageError(f"{where}: episode #{number}: {field}: {first['msg']}") from None
    except RecursionError:  # an object nested deeper than the validator follows
        raise UsageError(f"{where}: episode #{number} is nested too deeply; episodes hold text and lists") from None


def pairs(given: Mapping[str, str] | Iterable[tuple[str, str]] | None) -> list[tuple[str, str]]:
    """`{key: text}` or `[(key, text), …]` (the same key may come twice) as a list of pairs."""
    if given is None:
        return []
    return list(given.items()) if isinstance(given, Mapping) else [(k, v) for k, v in given]


def read_value(stream: TextIO, limit: int) -> str:
    """A value from a stream (standard input), read only up to just past `limit`: a huge paste is refused cheaply."""
    text = stream.read(limit + 2)
    text = text[:-1] if text.endswith("\n") else text
    if len(text) > limit:
        raise RefusedError("MEM602", f"value from standard input is over the limit of {limit} characters")
    return text


def read_stream(stream: BinaryIO, *, what: str, limit: int) -> bytes:
    """Standard input's bytes, at most `limit`: one byte more refuses it, so an endless stream never fills memory."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise UsageError(f"<stdin>: the {what} is over the limit of {limit} bytes")
    return data


def when_text(value: When | None) -> str | None:
    """A date or datetime as the ISO text the services read (text is passed on as it is, `Nd` included)."""
    if value is None or isinstance(value, str):
        return value
    from memfiles import clock

    return clock.iso(clock.parse_when(value))


def utf8_text(value: str, what: str) -> str:
    """`value` if it is valid UTF-8 text, else a UsageError saying which byte is not (and in `what`)."""
    from memfiles.ops.textfield import not_utf8

    wrong = not_utf8(value)
    if wrong:
        raise UsageError(f"{what} {wrong}")
    return value


def hook_event(payload: str | bytes) -> dict[str, Any]:
    """The JSON object an assistant's hook gets on stdin (empty input: no fields); text that is not UTF-8, in the
    input or escaped inside it (`"\\udce9"`), is a UsageError saying where."""
    if isinstance(payload, bytes):
        from memfiles.ops.textfield import undecodable

        try:
            payload = payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"hook input {undecodable(exc)}") from None
    try:
        event = json.loads(payload) if payload.strip() else {}
    except json.JSONDecodeError as exc:
        raise UsageError(f"hook input is not JSON: {exc.msg}") from None
    except RecursionError:
        raise UsageError("hook input is nested too deeply to read") from None
    if not isinstance(event, dict):
        raise UsageError("hook input must be a JSON object")
    for key, value in event.items():
        if isinstance(value, str) and key not in _PATHS:  # a file name may be any bytes; text may not
            utf8_text(value, f"hook input's {key!r}")
    return event


_PATHS = ("transcript_path", "cwd")


def read_file(path: Path, *, what: str, limit: int, folder: str) -> bytes:
    """A file a person named (a transcript, an import), at most `limit` bytes; each way it cannot be read is
    one UsageError naming the path (`what` names the file in the messages, `folder` says what to give instead).
    Only a regular file is read, never waiting on a FIFO nor reading a device without end (store.files.read_regular).
    """
    from memfiles.store.files import read_regular

    try:
        return read_regular(path, limit, what)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such {what} file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder; {folder}") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the {what}: {exc.strerror}") from None
