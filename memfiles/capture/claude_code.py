"""Claude Code session transcripts: the JSONL file a hook's `transcript_path` names
(`~/.claude/projects/<project>/<session-id>.jsonl`). docs/FORMAT.md, "Capture", cites where the format
is described; Claude Code does not publish it, so the reader takes only what it needs and ignores the rest.

Each line is an object with `type`: `user` (`message.content` is the prompt text, or a list of blocks,
among them `tool_result` with `tool_use_id`, `content` and `is_error`), `assistant` (`message.content`
is a list of `text`, `thinking` and `tool_use` blocks with `id`, `name`, `input`), and others
(`summary`, `system`, `file-history-snapshot`…) that are skipped. Lines carry `sessionId`, `cwd` and
`timestamp`.
"""

from __future__ import annotations

from typing import Any

from memfiles.capture.session import COMMAND, EDIT, OTHER, READ, WRITE, Prompt, Session, ToolCall, as_text, records

KINDS = {
    "Edit": EDIT,
    "MultiEdit": EDIT,
    "NotebookEdit": EDIT,
    "Write": WRITE,
    "Bash": COMMAND,
    "Read": READ,
    "Grep": READ,
    "Glob": READ,
    "LS": READ,
}
# Text Claude Code itself puts in a user turn: slash-command echoes, local command output, notes
# after compaction or an interruption. None of it is what the user asked.
_INJECTED = (
    "<command-",
    "<local-command",
    "<system-reminder",
    "<user-prompt-submit-hook",
    "caveat:",
    "[request interrupted",
    "this session is being continued from a previous conversation",
)


def read(data: bytes) -> Session:
    session = Session("claude-code")
    for _number, item in records(data, session):
        kind = item.get("type")
        if kind not in ("user", "assistant"):
            continue
        session.session_id = session.session_id or as_text(item.get("sessionId"))
        session.cwd = session.cwd or as_text(item.get("cwd"))
        moment = session.seen(item.get("timestamp"))
        message = item.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if kind == "user":
            _user(session, item, content, moment)
        elif isinstance(content, list):
            _assistant(session, content)
    return session


def _user(session: Session, item: dict[str, Any], content: Any, moment: Any) -> None:
    texts: list[str] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                output = block.get("content")
                shown = output if isinstance(output, str) else _joined(output)
                session.result(as_text(block.get("tool_use_id")), block.get("is_error") is True, shown)
            elif block.get("type") == "text":
                texts.append(as_text(block.get("text")))
    if item.get("isMeta") is True or item.get("isSidechain") is True or item.get("isCompactSummary") is True:
        return
    for text in texts:
        if text.strip() and not text.lstrip().lower().startswith(_INJECTED):
            session.prompts.append(Prompt(text.strip(), moment))


def _assistant(session: Session, content: list[Any]) -> None:
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and as_text(block.get("text")).strip():
            session.replies.append(block["text"].strip())
        elif block.get("type") == "tool_use":
            name = as_text(block.get("name"))
            given = block.get("input")
            inputs: dict[str, Any] = given if isinstance(given, dict) else {}
            kind = KINDS.get(name, OTHER)
            if kind == COMMAND:
                target = as_text(inputs.get("command"))
            else:
                target = as_text(inputs.get("file_path")) or as_text(inputs.get("notebook_path"))
                target = target or as_text(inputs.get("path")) or as_text(inputs.get("pattern"))
            session.calls.append(ToolCall(name or "tool", kind, target.strip(), as_text(block.get("id"))))


def _joined(output: Any) -> str:
    if isinstance(output, list):
        return "\n".join(as_text(b.get("text")) for b in output if isinstance(b, dict))
    return ""
