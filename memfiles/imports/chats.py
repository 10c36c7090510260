"""Chat data exports: ChatGPT's and Claude.ai's `conversations.json`, one episode per conversation with its
real dates, made by capture's extractive summary (docs/FORMAT.md, "Capture"), its `source_ref` naming the
file and the conversation (`chatgpt FILE conversation ID`).

ChatGPT: a list of `{"id"|"conversation_id", "title", "create_time", "update_time", "mapping": {node:
{"message": {"author": {"role"}, "content": {"parts": [...]}, "create_time"}, "parent", "children"}},
"current_node"}`; the conversation is the path from `current_node` up to the root (the branch shown).
Claude.ai: a list of `{"uuid", "name", "created_at", "updated_at", "chat_messages": [{"sender": "human" |
"assistant", "text" or "content": [{"type": "text", "text"}], "created_at"}]}`.
"""

from __future__ import annotations

from typing import Any

from memfiles.capture.session import Prompt, Session, as_text, moment_of, text_of
from memfiles.format.fields import printable_line
from memfiles.imports import Records, kind_of


def read(raw: Any, where: str, format: str) -> Records:
    from memfiles.capture.summary import draft

    found = Records()
    if not isinstance(raw, list):
        found.problems.append(f"{where}: expected a list of conversations (conversations.json)")
        return found
    for number, item in enumerate(raw, start=1):
        if not isinstance(item, dict):
            found.problems.append(f"{where}: conversation #{number} is not an object; skipped")
            continue
        if format == "claude-export" and not isinstance(item.get("chat_messages") or [], list):
            kind = kind_of(item["chat_messages"])
            found.problems.append(f"{where}: conversation #{number}: `chat_messages` is {kind}, not a list; skipped")
            continue
        session = _chatgpt(item) if format == "chatgpt" else _claude(item)
        if not session.session_id:
            found.problems.append(f"{where}: conversation #{number} has no id; skipped")
            continue
        if not session.prompts and not session.replies:
            continue
        made = draft(session, f"{where}#{session.session_id}")
        title = as_text(item.get("title") if format == "chatgpt" else item.get("name")).strip()
        made.entities = [" ".join(title.split())] if title else []
        made.ref = f"{format} {printable_line(where)} conversation {printable_line(session.session_id)}"
        found.conversations.append(made)
    return found


def _chatgpt(item: dict[str, Any]) -> Session:
    session = Session("chatgpt", session_id=as_text(item.get("conversation_id")) or as_text(item.get("id")))
    session.seen(item.get("create_time"))
    session.seen(item.get("update_time"))
    mapping = item.get("mapping") if isinstance(item.get("mapping"), dict) else {}
    assert isinstance(mapping, dict)
    chain: list[dict[str, Any]] = []
    node_id, seen = item.get("current_node"), set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id] if isinstance(mapping[node_id], dict) else {}
        if isinstance(node.get("message"), dict):
            chain.append(node["message"])
        node_id = node.get("parent")
    for message in reversed(chain):
        author = message.get("author") if isinstance(message.get("author"), dict) else {}
        content = message.get("content") if isinstance(message.get("content"), dict) else {}
        assert isinstance(author, dict) and isinstance(content, dict)
        parts = content.get("parts")
        text = "\n".join(p for p in parts if isinstance(p, str)).strip() if isinstance(parts, list) else ""
        moment = session.seen(message.get("create_time"))
        if text and author.get("role") == "user":
            session.prompts.append(Prompt(text, moment))
        elif text and author.get("role") == "assistant":
            session.replies.append(text)
    return session


def _claude(item: dict[str, Any]) -> Session:
    session = Session("claude-export", session_id=as_text(item.get("uuid")))
    session.seen(item.get("created_at"))
    session.seen(item.get("updated_at"))
    for message in item.get("chat_messages") or []:
        if not isinstance(message, dict):
            continue
        text = (as_text(message.get("text")) or text_of(message.get("content"))).strip()
        moment = moment_of(message.get("created_at"))
        session.seen(message.get("created_at"))
        if text and message.get("sender") == "human":
            session.prompts.append(Prompt(text, moment))
        elif text and message.get("sender") == "assistant":
            session.replies.append(text)
    return session
