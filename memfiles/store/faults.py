"""Fault injection for the crash tests: `$MEM_CRASH_AT=<point>` kills the process there with SIGKILL.

The points are the steps of a write (docs/RELIABILITY.md): `after-temp-write` (temp file written
and synced, not yet renamed), `after-rename` (MEMORY.md replaced, not committed), `mid-commit`
(changes staged in git's index, commit not made). Unset, this costs one environment lookup.
"""

from __future__ import annotations

import os
import signal


def crash_point(name: str) -> None:
    """Die here, like a power cut, when the tests ask for it."""
    if os.environ.get("MEM_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
