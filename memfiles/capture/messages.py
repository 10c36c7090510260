"""A plain transcript: `{"messages": [{"role", "content", "timestamp"}]}` (or the bare list), the shape most
chat APIs and exports share. `role` is `user`, `assistant` (others are skipped), `content` is text or a
list of text blocks, `timestamp` ISO text or epoch seconds; `session_id` and `cwd` beside `messages` are
read when present. Unknown fields are ignored. The whole file is one JSON document, so a malformed file is
one problem naming its line.
"""

from __future__ import annotations

import json
from typing import Any

from memfiles.capture.session import LineProblem, Prompt, Session, as_text, text_of


def read(data: bytes) -> Session:
    session = Session("messages", lines=data.count(b"\n") + 1)
    try:
        document: Any = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = exc.lineno if isinstance(exc, json.JSONDecodeError) else 1
        what = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8 text"
        session.problems.append(LineProblem(line, f"not valid JSON: {what}"))
        return session
    except RecursionError:
        session.problems.append(LineProblem(1, "nested too deeply to read"))
        return session
    if isinstance(document, dict):
        session.session_id = as_text(document.get("session_id")) or as_text(document.get("id"))
        session.cwd = as_text(document.get("cwd"))
        messages = document.get("messages")
    else:
        messages = document
    if not isinstance(messages, list):
        session.problems.append(LineProblem(1, 'expected {"messages": [...]} or a list of messages'))
        return session
    for number, message in enumerate(messages, start=1):
        if not isinstance(message, dict):
            session.problems.append(LineProblem(1, f"message #{number} is not an object"))
            continue
        moment = session.seen(message.get("timestamp", message.get("created_at")))
        text = text_of(message.get("content")).strip()
        if not text:
            continue
        if message.get("role") == "user":
            session.prompts.append(Prompt(text, moment))
        elif message.get("role") == "assistant":
            session.replies.append(text)
    return session
