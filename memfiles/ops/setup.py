"""`mem setup ASSISTANT`: what memfiles adds to an assistant's own files, planned (pure, from the files' bytes)
and then applied; `--remove` plans the way back (docs/SETUP.md).

- claude-code: hooks in `.claude/settings.json` (SessionStart and UserPromptSubmit run `mem recall --hook`,
  whose stdout Claude Code adds to the context; PreCompact and SessionEnd run `mem capture --hook`) and the
  MCP server in `.mcp.json`; at user level `~/.claude/settings.json` and `~/.claude.json`.
- codex: the rendered memory between markers in AGENTS.md and `[mcp_servers.memory]` in `.codex/config.toml`;
  at user level both in `$CODEX_HOME` (default `~/.codex`).
- cursor: the rendered memory in the rule `.cursor/rules/memory.mdc` and the server in `.cursor/mcp.json`; at
  user level only `~/.cursor/mcp.json` (Cursor keeps user rules in its settings, not in files).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memfiles.errors import UsageError
from memfiles.ops import setupfiles as files
from memfiles.ops.render_into import CURSOR_RULE  # a new rule's frontmatter: loaded in every chat
from memfiles.ops.setupfiles import SetupError
from memfiles.store.files import atomic_write

ASSISTANTS = ("claude-code", "codex", "cursor")
Level = Literal["project", "user"]
RECALL_TIMEOUT = 10  # seconds Claude Code waits for `mem recall --hook` (it stays under 9,000 characters)
CAPTURE_TIMEOUT = 30  # seconds for `mem capture --hook` (a commit)


@dataclass(slots=True)
class Wanted:
    """What the user asked `mem setup` for."""

    assistant: str
    level: Level
    project: Path  # the project folder (project level)
    user_home: Path  # `~` (user level)
    command: str = "mem"  # how the assistant runs mem
    home: str | None = None  # --home given to every command, else mem finds the home itself
    scope_args: list[str] = field(default_factory=list)  # ["--user", "alice"] or ["--scope", "org:acme"]
    name: str = "memory"  # the MCP server's name
    scope: str | None = None  # the scope rendered into AGENTS.md or the Cursor rule
    section: str | None = None  # that rendering (markdown), None on --remove


@dataclass(slots=True)
class FileChange:
    """One file `mem setup` changes: its bytes before and after (None: no file), what changed, and notes."""

    path: Path
    shown: str
    before: bytes | None
    after: bytes | None
    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    dirs: list[Path] = field(default_factory=list)  # on removal: the folders setup made for the file

    @property
    def action(self) -> str:
        if self.after == self.before:
            return "unchanged"
        return "create" if self.before is None else "delete" if self.after is None else "update"


def check_assistant(name: str) -> str:
    if name not in ASSISTANTS:
        raise UsageError(f"unknown assistant {name!r}: use one of {', '.join(ASSISTANTS)}")
    return name


def _mem(wanted: Wanted, *words: str) -> str:
    home = ["--home", wanted.home] if wanted.home else []
    return shlex.join([wanted.command, *home, *words, *wanted.scope_args])


def hooks(wanted: Wanted) -> list[files.Hook]:
    recall, capture = _mem(wanted, "recall", "--hook"), _mem(wanted, "capture", "--hook")
    return [
        ("SessionStart", recall, RECALL_TIMEOUT),
        ("UserPromptSubmit", recall, RECALL_TIMEOUT),
        ("PreCompact", capture, CAPTURE_TIMEOUT),
        ("SessionEnd", capture, CAPTURE_TIMEOUT),
    ]


def server(wanted: Wanted) -> dict[str, Any]:
    home = ["--home", wanted.home] if wanted.home else []
    return {"command": wanted.command, "args": ["mcp", *home, *wanted.scope_args]}


def _ours(wanted: Wanted) -> re.Pattern[str]:
    """mem's hook commands, whatever scope or home they were given."""
    return re.compile(rf"{re.escape(shlex.quote(wanted.command))}\s(?:.*\s)?(?:recall|capture) --hook(?:\s.*)?")


def targets(wanted: Wanted) -> list[tuple[str, Path]]:
    """The files of `wanted.assistant` at its level, each with the kind of edit it takes."""
    user, project = wanted.user_home, wanted.project
    codex = Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else user / ".codex"
    table: dict[tuple[str, str], list[tuple[str, Path]]] = {
        ("claude-code", "project"): [("hooks", project / ".claude/settings.json"), ("mcp", project / ".mcp.json")],
        ("claude-code", "user"): [("hooks", user / ".claude/settings.json"), ("mcp", user / ".claude.json")],
        ("codex", "project"): [("section", project / "AGENTS.md"), ("toml", project / ".codex/config.toml")],
        ("codex", "user"): [("section", codex / "AGENTS.md"), ("toml", codex / "config.toml")],
        ("cursor", "project"): [
            ("section", project / ".cursor/rules/memory.mdc"),
            ("mcp", project / ".cursor/mcp.json"),
        ],
        ("cursor", "user"): [("mcp", user / ".cursor/mcp.json")],
    }
    return table[(wanted.assistant, wanted.level)]


def needs_section(wanted: Wanted) -> bool:
    return any(kind == "section" for kind, _ in targets(wanted))


def plan(wanted: Wanted, remove: bool) -> list[FileChange]:
    """Every file's change, computed from its bytes; nothing is written."""
    changes = []
    for kind, path in targets(wanted):
        before = _read(path)
        change = FileChange(path, _shown(path, wanted), before, before)
        if remove:
            _plan_removal(change, kind, wanted)
        else:
            _plan_install(change, kind, wanted)
        changes.append(change)
    if wanted.assistant == "cursor" and wanted.level == "user":
        changes[-1].notes.append("Cursor keeps user rules in its settings: use `mem setup cursor` in each project")
    return changes


def _plan_install(change: FileChange, kind: str, wanted: Wanted) -> None:
    path, before = change.path, change.before
    if kind == "hooks" or kind == "mcp":
        settings = files.load_json(before, path)
        if kind == "hooks":
            change.lines = files.add_hooks(settings, hooks(wanted), path)
        else:
            change.lines, note = files.add_server(settings, wanted.name, server(wanted), path)
            change.notes += [note] if note else []
        if change.lines:
            change.after = files.dump_json(settings, before)
    elif kind == "toml":
        change.after, change.lines, note = files.add_toml_server(before, wanted.name, server(wanted), path)
        change.after = change.after if change.lines else before
        change.notes += [note] if note else []
    else:
        from memfiles.recall.render import splice

        assert wanted.section is not None and wanted.scope is not None  # the API renders it first
        start = before if before is not None else (CURSOR_RULE if path.suffix == ".mdc" else b"")
        after = splice(start, wanted.scope, wanted.section, change.shown)
        if after != before:
            change.after = after
            size = len(wanted.section.splitlines())
            verb = "+" if before is None or b"<!-- mem:begin scope=" + wanted.scope.encode() not in before else "~"
            change.lines = [f"{verb} <!-- mem:begin scope={wanted.scope} --> rendered memory ({size} lines)"]


def _plan_removal(change: FileChange, kind: str, wanted: Wanted) -> None:
    path, before = change.path, change.before
    if before is None:
        return
    if kind in ("hooks", "mcp"):
        settings = files.load_json(before, path)
        if kind == "hooks":
            change.lines = files.remove_hooks(settings, _ours(wanted))
        else:
            change.lines = files.remove_server(settings, wanted.name, server(wanted))
        structural = files.dump_json(settings, before) if change.lines else before
    elif kind == "toml":
        structural, change.lines = files.remove_toml_server(before, wanted.name, server(wanted), path)
    else:
        structural, change.lines = files.remove_sections(before)
        if structural in (b"", CURSOR_RULE) and path.suffix == ".mdc":
            structural = b""
    if not change.lines:
        return
    first = files.original(path, before)
    if first is not None:  # nothing changed since setup wrote it: the old bytes, exactly
        change.after, made = first
        change.dirs = [Path(d) for d in made] if change.after is None else []
        return
    change.after = structural
    change.notes.append(f"{change.shown} changed since mem setup wrote it: only mem's part was taken out")


def apply(changes: list[FileChange], remove: bool) -> None:
    """Write every planned change (atomically, keeping each file's permissions) and note or forget the old bytes;
    a file setup made is deleted with the folders it made for it, when they are empty."""
    for change in changes:
        if change.action == "unchanged":
            continue
        made: list[Path] = []
        if change.after is None:
            change.path.unlink()
            for folder in sorted(change.dirs, key=lambda d: len(d.parts), reverse=True):
                with contextlib.suppress(OSError):  # not empty, or gone: left as it is
                    folder.rmdir()
        else:
            mode = change.path.stat().st_mode & 0o7777 if change.before is not None else None
            made = [p for p in change.path.parents if not p.exists()]
            atomic_write(change.path, change.after)
            if mode is not None:
                os.chmod(change.path, mode)
        if remove:
            files.forget(change.path)
        else:
            files.remember(change.path, change.before, change.after, made)


def _read(path: Path) -> bytes | None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise SetupError(f"{path}: part of the path is a file, not a folder") from None
    if stat.S_ISLNK(info.st_mode):
        raise SetupError(f"{path} is a symbolic link; mem setup does not write through links (edit the real file)")
    if not stat.S_ISREG(info.st_mode):
        raise SetupError(f"{path} is not a regular file; move it aside, then run mem setup again")
    return path.read_bytes()


def _shown(path: Path, wanted: Wanted) -> str:
    for base, prefix in ((wanted.project, ""), (wanted.user_home, "~/")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)
