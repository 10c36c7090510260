"""Readers of other tools' memories and chat exports (docs/FORMAT.md, "Import"): each turns a file into
records — free-text memories (`Memory`) or conversations (episodes, as capture drafts) — and ignores the
fields it does not know (those formats grow). A record it cannot read is a problem naming its line or
item; the rest is read. Nothing here writes: memfiles.ops.importing does, through the write paths.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfiles.errors import UsageError

FORMATS = ("claude-code", "codex", "mem0", "mcp-memory", "chatgpt", "claude-export", "json")
KEY_WORDS = 8  # words of a memory its derived key keeps
_KEY_CHARS = 64


@dataclass(slots=True)
class Memory:
    """One free-text memory: its text, where it came from (`ref`), and when it was said (if the file says)."""

    text: str
    ref: str
    at: str | None = None
    about: str = ""  # what it is about (an entity, a heading): the start of its key


@dataclass(slots=True)
class Records:
    """What a reader found: memories or conversation drafts, and the records it could not read."""

    memories: list[Memory] = field(default_factory=list)
    conversations: list[Any] = field(default_factory=list)  # memfiles.capture.summary.Draft
    problems: list[str] = field(default_factory=list)


def derived_key(memory: Memory) -> str:
    """The key of a memory without one: `note.` + its subject's and first words, folded to a-z0-9 and `_`.

    `note.` + up to two words of `about` (an entity or heading), then the first KEY_WORDS words of the
    text, joined by `_`, at most 64 characters. The same memory always gets the same key.
    """
    words = _words(memory.about)[:2] + _words(memory.text)[:KEY_WORDS]
    key = "note." + "_".join(words or ["memory"])
    return key[:_KEY_CHARS].rstrip("_.")


def kind_of(value: Any) -> str:
    """What a JSON value is, for a message: `a string`, `a number`, `an object`, `a list`, `true/false`, `null`."""
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, dict):
        return "an object"
    return "a list" if isinstance(value, list) else "null"


def _words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.findall(r"[a-z0-9]+", folded)


def read(path: Path, data: bytes | None, format: str, where: str) -> Records:
    """The records of the file (or folder, for markdown memories) at `path` read as `format`."""
    if format in ("claude-code", "codex"):
        from memfiles.imports import markdown

        return markdown.read(path, data, where)
    raw = _json(data if data is not None else path.read_bytes(), where, lines=format == "mcp-memory")
    if format == "mem0":
        from memfiles.imports import mem0

        return mem0.read(raw, where)
    if format == "mcp-memory":
        from memfiles.imports import mcp_memory

        return mcp_memory.read(raw, where)
    if format in ("chatgpt", "claude-export"):
        from memfiles.imports import chats

        return chats.read(raw, where, format)
    raise UsageError(f"--from {format!r}: use one of {', '.join(FORMATS)}")


def _json(data: bytes, where: str, lines: bool) -> Any:
    """The document, or for JSON Lines a list of (line number, object or problem text)."""
    if lines:
        found: list[tuple[int, Any]] = []
        for number, raw in enumerate(data.splitlines(), start=1):
            if raw.strip():
                try:
                    found.append((number, json.loads(raw)))
                except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
                    found.append((number, f"not a JSON object: {getattr(exc, 'msg', 'not UTF-8 text')}"))
        return found
    return json_document(data, where)


def json_document(data: bytes, where: str) -> Any:
    """One JSON document, or a `where:line: what is wrong` UsageError (not JSON, not UTF-8, nested too deep)."""
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        from memfiles.ops.textfield import undecodable

        raise UsageError(f"{where}: {undecodable(exc)}") from None
    except RecursionError:
        raise UsageError(f"{where}: the JSON is nested too deeply to read") from None


def detect(path: Path, data: bytes | None) -> str:
    """The format of a file, from its name and first bytes; a UsageError saying to name it when unsure. Only
    called without --from, and the import's report says the format was detected."""
    if data is None and path.is_dir():
        return "codex" if ".codex" in path.parts else "claude-code"
    head = (data if data is not None else path.read_bytes()[: 1 << 16])[: 1 << 16]
    if path.suffix.lower() == ".md":
        return "codex" if ".codex" in path.parts else "claude-code"
    # memfiles' own export opens with its format; the words anywhere else (a chat about memfiles) are text
    if re.match(rb'\s*\{\s*"format"\s*:\s*"memfiles-export"', head) and path.name != "conversations.json":
        return "json"
    if b'"chat_messages"' in head:
        return "claude-export"
    if b'"mapping"' in head and b'"current_node"' in head:
        return "chatgpt"
    if re.search(rb'^\s*\{\s*"type"\s*:\s*"(entity|relation)"', head):
        return "mcp-memory"
    if b'"memory"' in head and (b'"results"' in head or head.lstrip().startswith(b"[")):
        return "mem0"
    raise UsageError(f"{path}: cannot tell the format; name it with --from ({', '.join(FORMATS)})")
