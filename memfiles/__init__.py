"""memfiles: long-term memory for AI agents in plain markdown files inside a git repository."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from memfiles.api import Home, ScopeHandle, open_home

__all__ = ["Home", "ScopeHandle", "__version__", "open_home"]


def __getattr__(name: str) -> Any:
    # The API (and pydantic) loads on first use, so `mem --version` and read commands stay fast.
    if name in ("Home", "ScopeHandle", "open_home"):
        from memfiles import api

        return getattr(api, name)
    raise AttributeError(name)
