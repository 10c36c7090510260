"""Capture: one assistant session's transcript turned into one extractive episode (docs/FORMAT.md, "Capture").

`read` reads a transcript in one of FORMATS (named, or detected from its first lines) into a Session;
memfiles.capture.summary makes the episode's text from it, with secrets masked. Nothing here writes:
memfiles.ops.capture does, through the episode write path.
"""

from __future__ import annotations

import json

from memfiles.capture.session import FORMATS, Session
from memfiles.errors import UsageError

__all__ = ["FORMATS", "Session", "detect", "read"]


def read(data: bytes, format: str | None = None) -> Session:
    """The session a transcript holds, read as `format` (None: detected)."""
    chosen = format or detect(data)
    if chosen == "claude-code":
        from memfiles.capture import claude_code

        return claude_code.read(data)
    if chosen == "codex":
        from memfiles.capture import codex

        return codex.read(data)
    if chosen == "messages":
        from memfiles.capture import messages

        return messages.read(data)
    raise UsageError(f"unknown transcript format {chosen!r}: use one of {', '.join(FORMATS)}")


def detect(data: bytes) -> str:
    """Which format a transcript is in, from its first JSON lines; a UsageError when none fits."""
    head = data.lstrip()[:1]
    if head == b"[":
        return "messages"
    if head == b"{":
        try:
            whole = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            whole = None
        if isinstance(whole, dict) and "messages" in whole:
            return "messages"
    for raw in data.splitlines()[:50]:
        try:
            item = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            continue
        if not isinstance(item, dict):
            continue
        if item.get("type") in ("session_meta", "response_item", "event_msg", "turn_context") and "payload" in item:
            return "codex"
        if "sessionId" in item or item.get("type") in ("user", "assistant", "summary", "file-history-snapshot"):
            return "claude-code"
        if "id" in item and "instructions" in item:  # a Codex rollout from before the envelope
            return "codex"
    raise UsageError(
        f"cannot tell the transcript's format from its first lines: name it with --format ({', '.join(FORMATS)})"
    )
