"""Codex CLI session rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (CODEX_HOME is
`~/.codex` by default). docs/FORMAT.md, "Capture", cites where the format is described (the Rust types
of `codex-rs/protocol` in openai/codex); the reader takes what it needs and ignores the rest.

Each line is `{"timestamp", "type", "payload"}`: `session_meta` (`id`, `cwd`), `turn_context` (`cwd`),
`response_item` (a `message` with `role` and `input_text`/`output_text` blocks; `function_call` with
`name`, JSON `arguments` and `call_id`; `custom_tool_call` such as `apply_patch` with `input`;
`local_shell_call`; their `…_output` with `call_id` and `output`) and `event_msg` (`user_message`,
`agent_message`, `exec_command_end` with `exit_code`). Rollouts written before the envelope (2025)
hold the payloads themselves, after a first line with `id` and `timestamp`; both are read.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from memfiles.capture.session import COMMAND, EDIT, OTHER, WRITE, Prompt, Session, ToolCall, as_text, records, text_of

_SHELLS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"}
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.M)
_COMMAND_TOOLS = {"shell", "container.exec", "exec_command", "local_shell", "shell_command"}


def read(data: bytes) -> Session:
    session = Session("codex")
    said: list[Prompt] = []  # event_msg user_message: what the person typed, without injected context
    typed: list[Prompt] = []  # response_item user messages: the fallback
    answers: list[str] = []
    replies: list[str] = []
    for _number, item in records(data, session):
        kind, payload = item.get("type"), item.get("payload")
        if not isinstance(payload, dict):  # a rollout from before the envelope
            kind, payload = ("session_meta" if "type" not in item and "id" in item else "response_item"), item
        moment = session.seen(item.get("timestamp") or payload.get("timestamp"))
        if kind == "session_meta":
            session.session_id = session.session_id or as_text(payload.get("id"))
            session.cwd = session.cwd or as_text(payload.get("cwd"))
        elif kind == "turn_context":
            session.cwd = session.cwd or as_text(payload.get("cwd"))
        elif kind == "event_msg":
            sort = payload.get("type")
            if sort == "user_message" and as_text(payload.get("message")).strip():
                said.append(Prompt(payload["message"].strip(), moment))
            elif sort == "agent_message" and as_text(payload.get("message")).strip():
                answers.append(payload["message"].strip())
            elif sort == "exec_command_end" and isinstance(payload.get("exit_code"), int):
                code = payload["exit_code"]
                session.result(as_text(payload.get("call_id")), code != 0, f"exit code {code}")
        elif kind == "response_item":
            _item(session, payload, moment, typed, replies)
    session.prompts = said or typed
    session.replies = answers or replies
    return session


def _item(session: Session, payload: dict[str, Any], moment: Any, typed: list[Prompt], replies: list[str]) -> None:
    sort = payload.get("type")
    call_id = as_text(payload.get("call_id")) or as_text(payload.get("id"))
    if sort == "message":
        text = text_of(payload.get("content")).strip()
        if not text:
            return
        if payload.get("role") == "user" and not text.startswith("<"):  # <environment_context>, <user_instructions>
            typed.append(Prompt(text, moment))
        elif payload.get("role") == "assistant":
            replies.append(text)
    elif sort == "function_call":
        name = as_text(payload.get("name"))
        arguments = _arguments(payload.get("arguments"))
        if name == "apply_patch":
            _patch(session, name, as_text(arguments.get("input")), call_id)
        elif name in _COMMAND_TOOLS or "command" in arguments or "cmd" in arguments:
            command = _command(arguments.get("command", arguments.get("cmd")))
            session.calls.append(ToolCall(name, COMMAND, command, call_id))
        else:
            session.calls.append(ToolCall(name or "tool", OTHER, "", call_id))
    elif sort == "custom_tool_call":
        name = as_text(payload.get("name"))
        if name == "apply_patch":
            _patch(session, name, as_text(payload.get("input")), call_id)
        else:
            session.calls.append(ToolCall(name or "tool", OTHER, "", call_id))
    elif sort == "local_shell_call":
        action = payload.get("action")
        command = _command(action.get("command")) if isinstance(action, dict) else ""
        session.calls.append(ToolCall("local_shell", COMMAND, command, call_id))
    elif sort in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        text, code = _output(payload.get("output"))
        if code is not None:
            session.result(call_id, code != 0, f"exit code {code}")
        else:
            session.result(call_id, _failed(text), text)


def _output(raw: Any) -> tuple[str, int | None]:
    """A tool output's text and, when its metadata states one, the exit code (`{"output", "metadata"}`)."""
    value = raw
    if isinstance(raw, str) and raw.lstrip().startswith("{"):
        try:
            value = json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            value = raw
    if isinstance(value, dict):
        metadata = value.get("metadata")
        code = metadata.get("exit_code") if isinstance(metadata, dict) else None
        text = as_text(value.get("output")) or as_text(value.get("content"))
        return text, code if isinstance(code, int) and not isinstance(code, bool) else None
    return (value if isinstance(value, str) else ""), None


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            return {"input": raw}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def _command(raw: Any) -> str:
    """A command as one line: `["bash", "-lc", "pytest -q"]` is `pytest -q`."""
    if isinstance(raw, str):
        return raw.strip()
    if isinstance(raw, list) and all(isinstance(part, str) for part in raw):
        if len(raw) >= 3 and raw[0] in _SHELLS and raw[1] in ("-c", "-lc", "-lic"):
            return str(raw[2]).strip()
        return shlex.join(raw)
    return ""


def _patch(session: Session, name: str, patch: str, call_id: str) -> None:
    files = _PATCH_FILE.findall(patch)
    for action, path in files:
        session.calls.append(ToolCall(name, WRITE if action == "Add" else EDIT, path.strip(), call_id))
    if not files:
        session.calls.append(ToolCall(name, EDIT, "", call_id))


def _failed(output: str) -> bool:
    """Whether a tool output says the call failed: a non-zero exit code, or an error it reports."""
    from memfiles.capture.session import exit_code

    code = exit_code(output)
    if code is not None:
        return code != 0
    head = output[:300].lower()
    return head.startswith(("error", "failed", "apply_patch verification failed")) or '"success": false' in head
