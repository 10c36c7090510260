"""`mem recall --hook`: the JSON a Claude Code hook sends on stdin in (`prompt`, `cwd`), the block for the
session or the prompt out, at most 9,000 characters (Claude Code keeps hook output under 10,000)."""

from __future__ import annotations

from pathlib import Path

from memfiles.api.inputs import hook_event

HOOK_MAX_CHARS = 9000


def hook_text(payload: str, home: Path | None, users: list[str], scopes: list[str]) -> str:
    """With a prompt (UserPromptSubmit), what it is about; without one (SessionStart), the scope's current
    memory; nothing relevant, nothing. The home is found from the hook's `cwd` (its project's `.mem/`)."""
    from memfiles.api import open_home
    from memfiles.api.home import MAX_QUERY_CHARS

    event = hook_event(payload)
    cwd = event.get("cwd")
    opened = open_home(home, cwd=cwd if isinstance(cwd, str) and cwd else None)
    chosen = opened.choose_scopes(users, scopes)
    prompt = event.get("prompt")
    if isinstance(prompt, str) and prompt.strip():
        # a prompt with a long paste: what it is about is asked with its start, never refused (a hook never fails)
        found = opened.recall(prompt[:MAX_QUERY_CHARS], chosen, max_chars=HOOK_MAX_CHARS)
    else:
        found = opened.render(chosen, max_chars=HOOK_MAX_CHARS)
    return found.text if found.items else ""
