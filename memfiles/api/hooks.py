"""The assistants' hooks as the library runs them: `recall_hook` (`mem recall --hook`: SessionStart and
UserPromptSubmit), and the record of every hook's outcome that `mem doctor` reports (memfiles.store.health).

A hook must never block a session, so the command exits 0 whatever happens and prints problems on stderr,
which nobody may read: each run is therefore recorded in the home it used — when, whether it worked, why
not, and which home it was and how it was found (a `.mem/` found above a project's folder is that project's
content, not the user's own memory).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memfiles.api.inputs import hook_event

if TYPE_CHECKING:
    from memfiles.api.home import Home

HOOK_MAX_CHARS = 9000  # Claude Code keeps a hook's output under 10,000 characters


def recall_hook(
    payload: str | bytes,
    home: Path | None,
    users: list[str],
    scopes: list[str],
    *,
    lexical: bool = False,
    chosen_scopes: Callable[[Home, list[str]], None] | None = None,
) -> tuple[str, list[str]]:
    """With a prompt (UserPromptSubmit), what it is about; without one (SessionStart), the scope's current
    memory; nothing relevant, nothing. The home is `home`, else `$MEM_HOME`, else found from the hook's `cwd`
    (its project's `.mem/`). Also what recall had to say (a cache rebuilt, ranked by words only), for stderr.
    Raises MemError; every outcome is recorded for `mem doctor`."""
    from memfiles.api import open_home
    from memfiles.api.home import MAX_QUERY_CHARS

    opened: Home | None = None
    try:
        event = hook_event(payload)
        cwd = _cwd(event)
        opened = open_home(home, cwd=cwd)
        chosen = opened.choose_scopes(users, scopes)
        if chosen_scopes is not None:
            chosen_scopes(opened, chosen)  # the CLI names scopes with no memory (a typo) on stderr
        prompt = event.get("prompt")
        if isinstance(prompt, str) and prompt.strip():
            # a prompt with a long paste: what it is about is asked with its start, never refused (a hook never fails)
            found = opened.recall(prompt[:MAX_QUERY_CHARS], chosen, max_chars=HOOK_MAX_CHARS, lexical=lexical)
        else:
            found = opened.render(chosen, max_chars=HOOK_MAX_CHARS)
    except Exception as exc:
        record(opened or home_without_input(home), "recall-hook", False, failure(exc), home=home)
        raise
    degraded = [note for note in found.notes if "ranked by words only" in note]
    record(opened, "recall-hook", not degraded, "; ".join(degraded), home=home, cwd=cwd)
    return (found.text if found.items else ""), list(found.notes)


def failure(exc: Exception) -> str:
    """What a hook's failure says: a MemError's own line, or an unexpected error's type with its text (a bare
    KeyError says only its key)."""
    from memfiles.errors import MemError

    return str(exc) if isinstance(exc, MemError) else f"{type(exc).__name__}: {exc}"


def record(
    opened: Home | None,
    name: str,
    ok: bool,
    why: str = "",
    *,
    home: str | os.PathLike[str] | None = None,
    cwd: str | None = None,
) -> None:
    """Record one hook run in the home it used (nothing when no home could be opened)."""
    if opened is None:
        return
    from memfiles.store import health

    health.record(opened.paths, name, ok, why, home=str(opened.root), found_by=found_by(opened.root, home, cwd))


def found_by(root: Path, home: str | os.PathLike[str] | None, cwd: str | None) -> str:
    """How a hook's home was found, in words for `mem doctor` (the order of memfiles.api.open_home)."""
    from memfiles.api.home import project_home

    env = os.environ.get("MEM_HOME", "").strip()
    if env and (not home or Path(home).expanduser().absolute() == Path(env).expanduser().absolute()):
        return "$MEM_HOME"  # the CLI's --home option also reads $MEM_HOME
    if home:
        return "--home"
    if cwd is not None and project_home(None, Path(cwd)) == root:
        return "the .mem/ above the hook's working folder (a project's memory: its content is not yours to trust)"
    if project_home() == root:
        return "the .mem/ above the working folder"
    return "the platform's data folder"


def _cwd(event: dict[str, Any]) -> str | None:
    cwd = event.get("cwd")
    return cwd if isinstance(cwd, str) and cwd else None


def home_without_input(home: Path | None) -> Home | None:
    """The home a hook would use without its input's `cwd`, to record a failure in (None if there is none)."""
    from memfiles.api import open_home
    from memfiles.errors import MemError

    try:
        return open_home(home)
    except MemError:
        return None
