"""`mem lint` findings for the viewer, computed in a background thread and kept until a write or a person
asks for a new count, so no page waits for a lint of the whole home."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memfiles.api import Home
    from memfiles.lint.engine import LintReport


class LintCache:
    """The latest lint report of a home; `refresh()` starts a new run (one at a time, again if asked meanwhile)."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self._lock = threading.Lock()
        self._report: LintReport | None = None
        self._error: str | None = None
        self._running = False
        self._again = False
        self.finished_at: float | None = None

    @property
    def report(self) -> LintReport | None:
        """The latest report (None until the first run ends); the first call starts that run."""
        with self._lock:
            started = self._report is None and not self._running and self._error is None
        if started:
            self.refresh()
        return self._report

    @property
    def error(self) -> str | None:
        return self._error

    @property
    def running(self) -> bool:
        return self._running

    def refresh(self) -> None:
        """Count again in the background (after the run in progress, if one is)."""
        with self._lock:
            if self._running:
                self._again = True
                return
            self._running = True
        threading.Thread(target=self._run, name="mem-ui-lint", daemon=True).start()

    def wait(self, timeout: float = 60.0) -> LintReport | None:
        """Wait for the run in progress (tests, the bench); the report, or None if it failed or timed out."""
        deadline = time.monotonic() + timeout
        self.report  # noqa: B018 - starts the first run
        while self._running and time.monotonic() < deadline:
            time.sleep(0.02)
        return self._report

    def by_scope(self, folders: dict[str, str]) -> dict[str, int] | None:
        """Findings per scope, from `{folder: scope}` (`users/alice`: `user:alice`); None while not counted."""
        report = self.report
        if report is None:
            return None
        found = dict.fromkeys(folders.values(), 0)
        for row in report.findings:
            parts = row.path.split("/")
            scope = folders.get("/".join(parts[:2]))
            if scope is not None:
                found[scope] += 1
        return found

    def _run(self) -> None:
        while True:
            try:
                report, error = self.home.lint(), None
            except Exception as exc:  # a home that cannot be linted is shown as such, not a dead thread
                report, error = None, f"{type(exc).__name__}: {exc}"
            with self._lock:
                if report is not None:
                    self._report = report
                self._error = error
                self.finished_at = time.time()
                if not self._again:
                    self._running = False
                    return
                self._again = False
