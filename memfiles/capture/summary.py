"""The extractive summary of a session (docs/FORMAT.md, "Capture"): no model, only what the transcript
says, in a bounded size.

Summary lines, in this order, each cut to its share of the words: what the session was and when;
`Task:` the first prompt; `Also asked:` the key later prompts (the longest ones, kept in order, and the
last one); `Edited:` / `Created:` the files, `Ran:` the commands, `Failed:` the calls that failed (a
command with its exit code, and whether it later succeeded); `Outcome:` the assistant's last words.
Tool outputs are never copied. Every text of the session is masked for secrets first, before any is
cut. At most MAX_WORDS words. The events are a short timeline; where the episode came from is its
`source_ref` (`capture_ref`), set by the caller, which knows what the transcript was (a file, stdin, a
conversation of an export).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath

from memfiles.capture.secrets import Masker, mask, masked_id
from memfiles.capture.session import COMMAND, EDIT, WRITE, Session, ToolCall
from memfiles.format.fields import printable_line

MAX_WORDS = 500
_TASK_WORDS = 80
_PROMPT_WORDS = 40
_KEY_PROMPTS = 4
_OUTCOME_WORDS = 60
_LISTED = 12  # files or commands named on a line; the rest are counted
_COMMAND_CHARS = 100
_EVENTS = 12
_SHORT = 4  # prompts of fewer words ("yes", "go on") are not key prompts
NAMES = {
    "claude-code": "Claude Code",
    "codex": "Codex CLI",
    "messages": "Chat",
    "chatgpt": "ChatGPT",
    "claude-export": "Claude chat",
}


@dataclass(slots=True)
class Draft:
    """The episode a capture writes, before the write path: every text already masked."""

    summary: str
    session: str
    started: datetime | None
    ended: datetime | None
    entities: list[str]
    events: list[str]
    outcome: str
    masked: int = 0
    prompts: int = 0
    calls: int = 0
    problems: list[str] = field(default_factory=list)
    ref: str = ""  # the episode's source_ref: where it came from (`capture_ref`, or an import's file and record)

    @property
    def words(self) -> int:
        return len(self.summary.split())


def draft(session: Session, where: str) -> Draft:
    """The summary, events, entities and outcome of `session`; `where` names the transcript in its problems.

    Every text the session holds is masked first, whole (`mask_session`): a command cut to 100 characters
    would no longer show a secret's shape."""
    clean = Masker()
    mask_session(session, clean)
    lines = [_opening(session)]
    prompts = [_one_line(p.text) for p in session.prompts]
    if prompts:
        lines.append("Task: " + _cut(prompts[0], _TASK_WORDS))
        key = _key_prompts(prompts[1:])
        if key:
            lines.append("Also asked: " + " | ".join(_cut(p, _PROMPT_WORDS) for p in key))
    edited = _files(session.calls, EDIT, session.cwd)
    created = _files(session.calls, WRITE, session.cwd)
    commands = [c for c in session.calls if c.kind == COMMAND and c.target]
    if edited:
        lines.append("Edited: " + _listed(edited))
    if created:
        lines.append("Created: " + _listed(created))
    if commands:
        ran = Counter(_command(c.target) for c in commands)
        lines.append("Ran: " + _listed([f"`{c}`" + (f" ({n}x)" if n > 1 else "") for c, n in ran.items()]))
    failures = _failures(session.calls)
    if failures:
        lines.append("Failed: " + _listed(failures))
    outcome = _outcome(session.calls, session.replies[-1] if session.replies else "")
    if session.replies:
        lines.append(f"Outcome ({outcome}): " + _cut(_one_line(session.replies[-1]), _OUTCOME_WORDS))
    else:
        lines.append(f"Outcome: {outcome}.")
    summary = clean(_bounded(lines))  # and once more, whole: nothing the lines put together escapes
    events = [clean(e) for e in _events(session, edited, created, commands)]
    return Draft(
        summary=summary,
        session=session.session_id,
        started=session.started,
        ended=session.ended,
        entities=[session.cwd] if session.cwd else [],
        events=events,
        outcome=outcome,
        masked=clean.count,
        prompts=len(session.prompts),
        calls=len(session.calls),
        problems=[p.text(where) for p in session.problems],
    )


def mask_session(session: Session, clean: Masker) -> None:
    """Mask every text of `session` in place: prompts, replies, every call's tool and target, the cwd and the
    session id. A session id that held a secret becomes `session-` and this machine's signature of it, so
    later captures of the same session still find its episode and the id never shows the secret."""
    for prompt in session.prompts:
        prompt.text = clean(prompt.text)
    session.replies = [clean(reply) for reply in session.replies]
    for call in session.calls:
        call.tool, call.target = clean(call.tool), clean(call.target)
    session.cwd = clean(session.cwd)
    if session.session_id and clean(session.session_id) != session.session_id:
        session.session_id = masked_id(session.session_id)


def capture_ref(session: str, where: str) -> str:
    """A capture's `source_ref`: `session ID, transcript PATH` (docs/FORMAT.md, "Capture"), each part one line,
    with any secret the path holds masked."""
    return f"session {printable_line(session)}, transcript {printable_line(mask(where)[0])}"


def _opening(session: Session) -> str:
    tool = NAMES.get(session.format, session.format)
    project = f" in {PurePath(session.cwd).name or session.cwd} ({session.cwd})" if session.cwd else ""
    when = ""
    if session.started is not None:
        end = session.ended or session.started
        same_day = end.date() == session.started.date()
        when = (
            f", {session.started:%Y-%m-%d %H:%M}–{end:%H:%M} UTC"
            if same_day
            else (f", {session.started:%Y-%m-%d %H:%M} – {end:%Y-%m-%d %H:%M} UTC")
        )
    counts = f"{len(session.prompts)} prompt{'s' if len(session.prompts) != 1 else ''}, {len(session.calls)} tool calls"
    return f"{tool} session{project}{when} ({counts})."


def _key_prompts(later: list[str]) -> list[str]:
    """The longest later prompts (substantive ones), in the order they were asked, and always the last one."""
    chosen = {i for i, p in enumerate(later) if len(p.split()) >= _SHORT}
    ranked = sorted(chosen, key=lambda i: -len(later[i].split()))[: _KEY_PROMPTS - 1]
    keep = set(ranked)
    if later and len(later[-1].split()) >= _SHORT:
        keep.add(len(later) - 1)
    return [later[i] for i in sorted(keep)]


def _files(calls: list[ToolCall], kind: str, cwd: str) -> list[str]:
    seen: dict[str, None] = {}
    for call in calls:
        if call.kind == kind and call.target:
            seen.setdefault(_relative(call.target, cwd))
    return list(seen)


def _relative(path: str, cwd: str) -> str:
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path


def _command(command: str) -> str:
    line = _one_line(command)
    return line if len(line) <= _COMMAND_CHARS else line[: _COMMAND_CHARS - 1].rstrip() + "…"


def _failures(calls: list[ToolCall]) -> list[str]:
    failed: list[str] = []
    for index, call in enumerate(calls):
        if not call.failed:
            continue
        what = (
            f"`{_command(call.target)}`"
            if call.kind == COMMAND and call.target
            else (f"{call.tool} {call.target}".strip())
        )
        code = f" (exit code {call.exit_code})" if call.exit_code not in (None, 0) else ""
        later = any(c.target == call.target and c.failed is False for c in calls[index + 1 :])
        item = what + code + ("; later succeeded" if later else "")
        if item not in failed:
            failed.append(item)
    return failed


# How the assistant's last words report the end of the work: a failure still there, or a fix and passing tests.
_STILL_FAILING = re.compile(
    r"\b(?:still (?:fail|failing|broken|errors?)|(?:could ?n[o']t|can ?n[o']t|cannot|unable to|did ?n[o']t manage to) "
    r"(?:fix|get|make|find|reproduce|resolve)|not (?:yet )?(?:fixed|passing|working)"
    r"|[1-9]\d* (?:tests? )?(?:failed|failing|fail)"
    r"|tests? (?:are |is )?(?:still )?failing|tests? fails?\b|gave up|blocked)",
    re.IGNORECASE,
)
_REPORTED_DONE = re.compile(
    r"\b(?:(?:all )?(?:\d+ )?(?:tests?|checks?|specs?) (?:now )?(?:pass|passes|passed|passing|green|succeed(?:ed)?)"
    r"|fixed|resolved|works now|now works|is working|0 failed|no failures)\b",
    re.IGNORECASE,
)


def _outcome(calls: list[ToolCall], last_reply: str) -> str:
    """`failure`: the last command failed; else the assistant's last words when they report the end (a failure
    still there: `partial`; a fix or passing tests: `success`); else `partial` when a tool call failed and the
    same call never succeeded after it; `success` when files changed or commands ran; `unknown`: nothing done."""
    commands = [c for c in calls if c.kind == COMMAND and c.failed is not None]
    if commands and commands[-1].failed:
        return "failure"
    did = any(c.kind in (EDIT, WRITE, COMMAND) for c in calls)
    failing, done = _last_match(_STILL_FAILING, last_reply), _last_match(_REPORTED_DONE, last_reply)
    if did and (failing >= 0 or done >= 0):  # what it says last wins: "fixed X, but 2 tests still fail"
        return "partial" if failing > done else "success"
    for index, call in enumerate(calls):
        if call.failed and not any(c.target == call.target and c.failed is False for c in calls[index + 1 :]):
            return "partial"
    return "success" if did else "unknown"


def _last_match(pattern: re.Pattern[str], text: str) -> int:
    """Where the last match of `pattern` in `text` starts, -1 when there is none."""
    found = -1
    for match in pattern.finditer(text):
        found = match.start()
    return found


def _events(session: Session, edited: list[str], created: list[str], commands: list[ToolCall]) -> list[str]:
    events = []
    if session.prompts:
        events.append("asked: " + _cut(_one_line(session.prompts[0].text), 16))
    events += [f"created {path}" for path in created[:4]]
    events += [f"edited {path}" for path in edited[:4]]
    for call in commands[-4:]:
        state = "failed" if call.failed else "ok" if call.failed is False else "ran"
        events.append(f"ran `{_command(call.target)}`: {state}")
    return events[:_EVENTS]


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:_LISTED])
    return shown + (f" and {len(items) - _LISTED} more" if len(items) > _LISTED else "") + "."


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str, words: int) -> str:
    parts = text.split()
    return text if len(parts) <= words else " ".join(parts[:words]) + " …"


def _bounded(lines: list[str]) -> str:
    """The lines, the longest cut first, until the whole is at most MAX_WORDS words."""
    sizes = [len(line.split()) for line in lines]
    while sum(sizes) > MAX_WORDS and max(sizes) > 9:
        longest = max(range(len(lines)), key=lambda i: sizes[i])
        keep = max(sizes[longest] - (sum(sizes) - MAX_WORDS) - 1, 8)
        lines[longest] = " ".join(lines[longest].split()[:keep]) + " …"
        sizes[longest] = keep + 1
    return re.sub(r"[ \t]+\n", "\n", "\n".join(lines))
