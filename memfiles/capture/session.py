"""One assistant session as the readers see it (docs/FORMAT.md, "Capture"): the prompts, the assistant's
words, the tool calls and whether they failed. Tool outputs are never kept, only whether they failed and,
for a command, its exit code.

Readers of other tools' transcripts (claude_code, codex, messages) ignore fields and line types they do
not know: those formats grow. A line that is not JSON, or not an object, is a `LineProblem` naming the
line; the rest of the transcript is still read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memfiles import clock
from memfiles.errors import UsageError

FORMATS = ("claude-code", "codex", "messages")
EDIT, WRITE, COMMAND, READ, OTHER = "edit", "write", "command", "read", "other"
_EXIT = re.compile(r"(?i)\bexit(?:ed with)?(?: code|_code\"?:| status)?\s*:?\s*(-?\d{1,3})\b")


@dataclass(slots=True)
class ToolCall:
    """One tool call: what kind of action it was, the file or command it names, and how it ended."""

    tool: str  # the tool's own name: Edit, Bash, shell, apply_patch…
    kind: str  # EDIT, WRITE, COMMAND, READ or OTHER
    target: str  # the file path, or the command line; "" when the call names neither
    call_id: str = ""
    failed: bool | None = None  # None: no result seen
    exit_code: int | None = None


@dataclass(slots=True)
class Prompt:
    """What the user typed, with when."""

    text: str
    at: datetime | None


@dataclass(slots=True)
class LineProblem:
    """A transcript line that could not be read: where and why (the rest is still read)."""

    line: int
    what: str

    def text(self, where: str) -> str:
        return f"{where}:{self.line}: {self.what}"


@dataclass(slots=True)
class Session:
    """What a reader found in one transcript."""

    format: str
    session_id: str = ""
    cwd: str = ""
    started: datetime | None = None
    ended: datetime | None = None
    prompts: list[Prompt] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)  # the assistant's own text, in order
    calls: list[ToolCall] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)
    lines: int = 0
    # The calls by id, for `result`: a transcript of thousands of calls answers each by id, not by a scan.
    _by_id: dict[str, list[ToolCall]] = field(default_factory=dict, repr=False)
    _indexed: int = field(default=0, repr=False)

    def seen(self, stamp: Any) -> datetime | None:
        """Widen the time range with a line's timestamp (ISO text or epoch seconds); the moment, if it is one."""
        moment = moment_of(stamp)
        if moment is not None:
            self.started = moment if self.started is None or moment < self.started else self.started
            self.ended = moment if self.ended is None or moment > self.ended else self.ended
        return moment

    def result(self, call_id: str, failed: bool, output: str = "") -> None:
        """Record how the call `call_id` ended (a patch is a call per file); only an exit code is read out of
        its output."""
        for call in self.calls[self._indexed :]:  # readers append calls as they meet them
            if call.call_id:
                self._by_id.setdefault(call.call_id, []).append(call)
        self._indexed = len(self.calls)
        for call in self._by_id.get(call_id, []) if call_id else []:
            call.failed = failed
            call.exit_code = exit_code(output) if call.kind == COMMAND else None
            if call.exit_code not in (None, 0):
                call.failed = True


def moment_of(stamp: Any) -> datetime | None:
    """A timestamp as an aware UTC datetime to the second; None when it is missing or not a moment."""
    try:
        if isinstance(stamp, bool):
            return None
        if isinstance(stamp, int | float):
            from datetime import UTC

            seconds = stamp / 1000 if stamp > 10**11 else stamp  # milliseconds since the epoch
            return datetime.fromtimestamp(seconds, UTC).replace(microsecond=0)
        if isinstance(stamp, str) and stamp.strip():
            when = clock.parse_when(stamp)
            return when if isinstance(when, datetime) else clock.to_datetime(when)
    except (UsageError, ValueError, OverflowError, OSError):
        return None
    return None


def exit_code(output: str) -> int | None:
    """The exit code a command's result states (`Exit code 1`, `"exit_code": 1`), if it states one."""
    head = output[:2000]
    if "exit" not in head.lower():  # most outputs never say it: no regular expression over them
        return None
    found = _EXIT.search(head)
    return int(found.group(1)) if found else None


def records(data: bytes, session: Session) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each JSON object line; other lines become the session's problems."""
    for number, raw in enumerate(data.splitlines(), start=1):
        session.lines = number
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            session.problems.append(LineProblem(number, f"not a JSON object: {_reason(exc)}"))
            continue
        except RecursionError:
            session.problems.append(LineProblem(number, "nested too deeply to read"))
            continue
        if not isinstance(item, dict):
            session.problems.append(LineProblem(number, f"not a JSON object but {type(item).__name__}"))
            continue
        yield number, item


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg
    return "not UTF-8 text"


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text blocks of a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif (
                isinstance(block, dict)
                and isinstance(block.get("text"), str)
                and block.get("type") in (None, "text", "input_text", "output_text")
            ):
                parts.append(block["text"])
        return "\n".join(parts)
    return ""


def as_text(value: Any) -> str:
    """A field that should be text; anything else is ''."""
    return value if isinstance(value, str) else ""
