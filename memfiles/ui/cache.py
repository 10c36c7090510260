"""What the viewer read of each scope's MEMORY.md, kept until the file changes (`ScopeHandle.memory_stamp`):
parsing a MEMORY.md of 500 facts takes about a second, reading its stamp a few microseconds."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from memfiles.api import Fact, ScopeHandle

T = TypeVar("T")
LIMIT = 512  # entries kept (every scope's facts, recent keys' histories); past it the cache starts again


class FactCache:
    """`facts(handle)` is `handle.show(everything=True)`, `history(handle, key)` is `handle.history(key)`,
    each read again only when MEMORY.md has changed since."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[tuple[str, str], tuple[tuple[int, int, int], object]] = {}

    def facts(self, handle: ScopeHandle) -> list[Fact]:
        return self._get(handle, "", lambda: handle.show(everything=True))

    def history(self, handle: ScopeHandle, key: str) -> list[Fact]:
        return self._get(handle, f"key:{key}", lambda: handle.history(key))

    def _get(self, handle: ScopeHandle, what: str, read: Callable[[], T]) -> T:
        stamp = handle.memory_stamp()
        name = (str(handle), what)
        with self._lock:
            kept = self._kept.get(name)
        if kept is not None and kept[0] == stamp:
            return kept[1]  # type: ignore[return-value]
        value = read()
        if handle.memory_stamp() == stamp:  # not changed while it was read
            with self._lock:
                if len(self._kept) >= LIMIT:
                    self._kept.clear()
                self._kept[name] = (stamp, value)
        return value
