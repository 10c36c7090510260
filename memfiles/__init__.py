"""memfiles: long-term memory for AI agents in plain markdown files inside a git repository.

`memfiles.open_home(...)` opens a home (see memfiles.api and docs/API.md); `memfiles.check(text)` runs the
guard; every error a person can act on is a `memfiles.MemError` (subclasses in memfiles.errors).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memfiles.errors import MemError

__version__ = "0.1.0"

if TYPE_CHECKING:
    from memfiles.api import Home, Outcome, ScopeHandle, check, open_home

__all__ = ["Home", "MemError", "Outcome", "ScopeHandle", "__version__", "check", "open_home"]
_FROM_API = ("Home", "Outcome", "ScopeHandle", "check", "open_home")


def __getattr__(name: str) -> Any:
    # The API (and pydantic with it) loads on first use: `mem --version` needs none of it.
    if name in _FROM_API:
        from memfiles import api

        return getattr(api, name)
    raise AttributeError(f"module 'memfiles' has no attribute {name!r}")
