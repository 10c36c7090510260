"""Capture as a library: `capture(scope, path)` turns one assistant session's transcript into one episode
(`mem capture FILE`), `capture_hook(payload)` does it for a Claude Code hook's JSON (`mem capture --hook`).

Both go through the episode write path (validation, the guard, one commit) with `source: capture`,
declared as a transcript; a later capture of the same session replaces the earlier one (docs/FORMAT.md,
"Capture"). What the write decides is the `Captured.outcome`; what goes wrong raises a MemError, and in
the hook form is also written to the home's `.cache/capture.log`, which `mem doctor` reports.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from memfiles.api.inputs import hook_event, read_file
from memfiles.errors import HandEditError, MemError, RefusedError, UsageError
from memfiles.outcome import Outcome

if TYPE_CHECKING:
    from memfiles.api.home import Home
    from memfiles.api.scope import ScopeHandle
    from memfiles.capture.summary import Draft

MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024


class Captured(BaseModel):
    """What one capture did: the episode's `outcome` (None when there was nothing to capture: `skipped` says
    why), the earlier captures of the session it `replaced`, and what it read."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    outcome: Outcome | None
    replaced: list[str] = Field(default_factory=list, description="earlier capture files of the session, removed")
    skipped: str | None = None
    kept: list[str] = Field(
        default_factory=list, description="earlier capture files with changes not committed: left alone, so skipped"
    )
    session: str
    format: str
    transcript: str
    words: int = 0
    masked: int = Field(default=0, description="secrets masked before writing")
    prompts: int = 0
    tool_calls: int = 0
    problems: list[str] = Field(default_factory=list, description="transcript lines that could not be read")
    extract: str | None = Field(default=None, description="what --extract did, or why it was skipped")
    proposed: list[Outcome] = Field(default_factory=list, description="facts the extractor proposed")
    project_home: str | None = Field(
        default=None, description="the hook wrote into this project's .mem/ home (found above its cwd), not your own"
    )

    def lines(self) -> list[str]:
        """What `mem capture` prints: the outcome, then what it replaced, masked and could not read."""
        shown = [f"skipped: {self.skipped}"] if self.outcome is None else [self.outcome.line()]
        shown += [f"replaced {path}" for path in self.replaced]
        if self.masked:
            shown.append(f"masked {self.masked} secret{'s' if self.masked != 1 else ''}")
        shown += self.problems
        if self.extract:
            shown.append(f"extract: {self.extract}")
        shown += [outcome.line() for outcome in self.proposed]
        return shown

    def to_dict(self) -> dict[str, Any]:
        """`mem capture --json`."""
        data = self.model_dump(mode="json", exclude={"outcome", "proposed"})
        data["outcome"] = self.outcome.to_dict() if self.outcome else None
        data["proposed"] = [o.to_dict() for o in self.proposed]
        return data


def capture(
    scope: ScopeHandle,
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    session: str | None = None,
    cwd: str | None = None,
    extract: bool = False,
    data: bytes | None = None,
) -> Captured:
    """Capture the transcript at `path` (`data`: its bytes, already read) into `scope` as one episode.

    `format` is `claude-code`, `codex` or `messages` (None: detected); `session` and `cwd` fill in what the
    transcript does not say (a hook's `session_id`, `cwd`). The session id is the transcript's, else
    `session`, else the file's name. `extract=True` also asks the extractor approved on this machine
    for candidate facts (they wait as `proposed`); without one it is skipped and said so in `extract`.
    """
    from memfiles import capture as readers
    from memfiles.capture.summary import capture_ref, draft

    where = str(path)
    raw = (
        read_file(
            Path(path),
            what="transcript",
            limit=MAX_TRANSCRIPT_BYTES,
            folder="give the transcript file (a .jsonl or .json)",
        )
        if data is None
        else data
    )
    found = readers.read(raw, format)
    found.session_id = found.session_id or session or Path(where).stem  # the transcript knows its own
    found.cwd = found.cwd or (cwd or "")
    made = draft(found, where)
    made.ref = capture_ref(made.session, where)
    base: dict[str, Any] = {
        "session": made.session,
        "format": found.format,
        "transcript": where,
        "words": made.words,
        "masked": made.masked,
        "prompts": made.prompts,
        "tool_calls": made.calls,
        "problems": made.problems,
    }
    if not found.prompts and not found.calls:
        return Captured(outcome=None, skipped="the transcript has no prompt and no tool call", **base)
    try:
        outcome, replaced = _save(scope, made)
    except HandEditError as exc:
        return Captured(outcome=None, skipped=str(exc), kept=exc.kept, **base)
    done = Captured(outcome=outcome, replaced=replaced, **base)
    if scope.home.config.capture.propose_facts and outcome.kind in ("recorded", "exists"):
        done = _stated(scope, done, [p.text for p in found.prompts], made.started)
    if extract and outcome.kind in ("recorded", "quarantined", "exists"):
        return _extract(scope, done)
    return done


def _stated(scope: ScopeHandle, done: Captured, prompts: list[str], at: datetime | None) -> Captured:
    """`[capture] propose_facts`: the facts the user stated about themselves in their prompts, as `proposed`."""
    from memfiles import clock
    from memfiles.capture.secrets import mask
    from memfiles.capture.statements import from_turns
    from memfiles.ops import capture_extract

    found = from_turns(mask(text)[0] for text in prompts)
    if not found:
        return done
    assert done.outcome is not None and done.outcome.episode_id is not None
    when = clock.parse_when(at.replace(microsecond=0)) if at else clock.now()
    proposed = capture_extract.statements(
        scope.home.paths, scope.home.config, scope.scope, done.outcome.episode_id, when, found
    )
    return done.model_copy(update={"proposed": [*done.proposed, *proposed]})


def _save(scope: ScopeHandle, made: Draft) -> tuple[Outcome, list[str]]:
    from memfiles.ops import capture as saving
    from memfiles.ops.record import from_draft

    new = from_draft(made, saving.SOURCE, scope.home.config.memory.max_value_chars)
    name = str(scope.scope)
    try:
        written = saving.save(scope.home.paths, scope.home.config, scope.scope, new)
    except RefusedError as exc:
        return Outcome(kind="refused", scope=name, rule=exc.rule, why=exc.why), []
    kind = written.kind
    episode = written.episode
    findings = episode.findings
    why = "; ".join(f"{f.code}: {f.message}" for f in findings) if kind == "quarantined" else None
    rule = findings[0].code if kind == "quarantined" and findings else None
    outcome = Outcome(kind=kind, scope=name, episode_id=episode.id, path=written.path, rule=rule, why=why)
    return outcome, written.replaced


def _extract(scope: ScopeHandle, done: Captured) -> Captured:
    """Ask the approved extractor for candidate facts from the episode; they arrive as `proposed`."""
    command = scope.home.config.consolidate.extractor
    if not command:
        skipped = "skipped: no extractor set in mem.local.toml ([consolidate] extractor); mem.toml's is never run"
        return done.model_copy(update={"extract": skipped})
    from memfiles.ops import capture_extract

    assert done.outcome is not None and done.outcome.path is not None
    try:
        proposed = capture_extract.propose(scope.home.paths, scope.home.config, scope.scope, done.outcome.path)
    except MemError as exc:
        return done.model_copy(update={"extract": f"failed: {exc}"})
    return done.model_copy(update={"extract": f"{len(proposed)} proposed", "proposed": proposed})


# --- the hook ---


def capture_hook(
    payload: str | bytes,
    *,
    home: str | os.PathLike[str] | None = None,
    user: str | None = None,
    scope: str | None = None,
    extract: bool = False,
) -> Captured:
    """`mem capture --hook`: the JSON a Claude Code hook sends on stdin (`session_id`, `transcript_path`,
    `cwd`, `hook_event_name`) captured into its scope.

    The home is `home`, else `$MEM_HOME`, else the nearest `.mem/` above the hook's `cwd`, else the platform
    home; the scope is `user`/`scope`, else `$MEM_USER`, else the home's `default_scope`. A MemError (or any
    error) is raised; it is recorded for `mem doctor` and, once the home is known, logged to
    `.cache/capture.log`, as is a refused or quarantined capture and a skipped extractor.
    """
    from memfiles.api.home import open_home
    from memfiles.api.hooks import record

    try:
        event = hook_event(payload)
        cwd = event.get("cwd") if isinstance(event.get("cwd"), str) and event.get("cwd") else None
        opened = open_home(home, cwd=cwd)
    except Exception as exc:  # an unexpected error too: a capture that died must not look healthy
        from memfiles.api.hooks import failure, home_without_input

        record(home_without_input(Path(home) if home else None), "capture-hook", False, failure(exc), home=home)
        raise
    done = _capture_hook(opened, event, cwd, user, scope, extract, home)
    refused = done.outcome is not None and done.outcome.kind == "refused"
    why = done.outcome.line() if refused and done.outcome else ""
    record(opened, "capture-hook", not refused, why, home=home, cwd=cwd)
    return done


def _capture_hook(
    opened: Home,
    event: dict[str, Any],
    cwd: str | None,
    user: str | None,
    scope: str | None,
    extract: bool,
    home: str | os.PathLike[str] | None,
) -> Captured:
    from memfiles.api.home import project_home
    from memfiles.api.hooks import failure, record
    from memfiles.ops import capture as saving

    project = project_home(home, Path(cwd) if cwd else None)

    name = str(event.get("hook_event_name") or "hook")
    session = str(event.get("session_id") or "")
    try:
        transcript = event.get("transcript_path")
        if not isinstance(transcript, str) or not transcript:
            raise UsageError("hook input has no transcript_path")
        handle = opened.choose(user, scope)
        done = capture(handle, transcript, format="claude-code", session=session or None, cwd=cwd, extract=extract)
    except Exception as exc:  # an unexpected error too: a capture that died must not look healthy
        saving.log(opened.paths, name, session, failure(exc))
        record(opened, "capture-hook", False, failure(exc), home=home, cwd=cwd)
        raise
    if done.outcome is not None and done.outcome.kind in ("refused", "quarantined"):
        saving.log(opened.paths, name, session, done.outcome.line())
    if done.kept and done.skipped:
        saving.log(opened.paths, name, session, f"skipped: {done.skipped}")
    if done.extract and not done.extract.endswith("proposed"):
        saving.log(opened.paths, name, session, f"extract {done.extract}")
    if project is not None:  # a project's .mem/: its content came with the project, not from this person
        saving.log(opened.paths, name, session, project_home_line(str(project)))
        done = done.model_copy(update={"project_home": str(project)})
    return done


def project_home_line(root: str) -> str:
    """What a hook says when it wrote into a project's `.mem/` home rather than one --home or $MEM_HOME names."""
    return (
        f"captured into the project's memory home {root} (the nearest .mem/ above the session's folder; no --home "
        "or $MEM_HOME named one): what it holds came with the project; give the hook --home to use your own"
    )
