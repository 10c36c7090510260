"""The viewer's pages (GET, reading only): home, a scope, a key's timeline, episodes, an episode, audit, a file.

Each reads through memfiles.api. Quarantined episodes are shown where the API offers them
(`ScopeHandle.flagged()`); on a home whose API has none, their column and queue say so.
"""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse

from memfiles import clock
from memfiles.errors import UsageError
from memfiles.ui import views
from memfiles.ui.render import render

if TYPE_CHECKING:
    from memfiles.api import Fact, Home, ScopeHandle
    from memfiles.ui.cache import FactCache
    from memfiles.ui.lintcache import LintCache

PAGE = 50
SEARCH = 20  # the best episodes for a search, ranked and thresholded as `mem recall` does
_MESSAGE = re.compile(
    r"mem: ([a-z-]+) ((?:user|org|agent):[a-z0-9][a-z0-9._-]{0,63})(?: ([a-z][a-z0-9_]{0,63})(?=\s|$))?"
)


def _home(request: Request) -> Home:
    home: Home = request.app.state.home
    return home


def _lint(request: Request) -> LintCache:
    cache: LintCache = request.app.state.lint
    return cache


def _facts(request: Request, handle: ScopeHandle) -> list[Fact]:
    """Every fact of the scope, history and proposed ones included (cached until MEMORY.md changes)."""
    cache: FactCache = request.app.state.facts
    return cache.facts(handle)


def _handle(request: Request) -> ScopeHandle:
    return _home(request).scope(request.path_params["scope"])


def flagged(handle: ScopeHandle) -> list[Any] | None:
    """The scope's quarantined episodes, or None where the API has no quarantine (before the guard issue)."""
    method = getattr(handle, "flagged", None)
    return list(method()) if callable(method) else None


def _today() -> date:
    return clock.day(clock.now())


def folders(home: Home) -> dict[str, str]:
    """Each scope's folder in the home (`users/alice`) and its scope (`user:alice`)."""
    return {home.scope(s).scope.relpath: s for s in home.scopes()}


def _page_number(request: Request) -> int:
    text = request.query_params.get("page", "1")
    if not text.isdigit() or int(text) < 1:
        raise UsageError(f"page must be a number from 1, not {text!r}")
    return int(text)


def home_page(request: Request) -> HTMLResponse:
    home = _home(request)
    month = _today().strftime("%Y-%m")
    lint_counts = _lint(request).by_scope(folders(home))
    rows = []
    for name in home.scopes():
        handle = home.scope(name)
        counts = views.counts(_facts(request, handle))
        held = flagged(handle)
        this_month = sum(m.episodes for m in handle.months(month))
        lint = None if lint_counts is None else lint_counts.get(name, 0)
        rows.append({"scope": name, "counts": counts, "held": held, "month": this_month, "lint": lint})
    context = {"title": "Memory", "rows": rows, "month": month, "lint": _lint(request), "done": _done(request)}
    return render(request, "home.html", context)


def scope_page(request: Request) -> HTMLResponse:
    handle = _handle(request)
    facts = _facts(request, handle)
    held_facts = handle.held_facts()  # on the review queue, not among the current facts
    held_ids = {h.id for h in held_facts}
    current = [f for f in facts if f.status == "active" and f.id not in held_ids]
    context = {
        "title": str(handle),
        "scope": str(handle),
        "current": current,
        "stale": {s.id: s for s in handle.stale()},
        "conflicts": views.conflicts(facts),
        "proposed": [f for f in facts if f.status == "proposed"],
        "held": flagged(handle),
        "held_facts": held_facts,
        "counts": views.counts(facts),
        "history": sum(1 for f in facts if f.status not in ("active", "conflict", "proposed")),
        "done": _done(request),
    }
    return render(request, "scope.html", context)


def timeline_page(request: Request) -> HTMLResponse:
    handle = _handle(request)
    key = request.path_params["key"]
    cache: FactCache = request.app.state.facts
    history = cache.history(handle, key)
    today = _today()
    drawn = views.timeline(history, today)
    as_of_text = request.query_params.get("as_of")
    as_of = clock.day(clock.parse_when(as_of_text)) if as_of_text else today
    believed = views.believed_on(history, as_of)
    by_id = {f.id: f for f in history}
    context = {
        "title": f"{handle} · {key}",
        "scope": str(handle),
        "key": key,
        "history": history,
        "drawn": drawn,
        "as_of": as_of,
        "believed": believed,
        "by_id": by_id,
        "today": today,
        "ended": views.ended,
    }
    return render(request, "timeline.html", context)


def episodes_page(request: Request) -> HTMLResponse:
    handle = _handle(request)
    months = handle.months()
    query = request.query_params.get("q", "").strip()
    month = request.query_params.get("month") or (months[0].month if months else None)
    number = _page_number(request)
    page = handle.episode_page(month, offset=(number - 1) * PAGE, limit=PAGE) if month and not query else None
    found = handle.recall(query, kind="episodes", k=SEARCH) if query else None
    digest = next((d for d in handle.digests() if d.month == month), None) if month and not query else None
    pages = (page.total + PAGE - 1) // PAGE if page else 0
    context = {
        "title": f"{handle} · episodes",
        "scope": str(handle),
        "months": months,
        "month": month,
        "query": query,
        "page": page,
        "number": number,
        "pages": pages,
        "found": found,
        "digest": digest,
    }
    return render(request, "episodes.html", context)


def episode_page(request: Request) -> HTMLResponse:
    handle = _handle(request)
    month = request.query_params.get("month")
    if month is not None and not re.fullmatch(r"\d{4}-\d{2}", month):
        raise UsageError(f"month must be YYYY-MM, not {month!r}")
    found = handle.show_episode(request.path_params["episode_id"], month=month)
    context = {"title": f"{handle} · {found.path}", "scope": str(handle), "file": found}
    return render(request, "episode.html", context)


def purge_page(request: Request) -> HTMLResponse:
    handle = _handle(request)
    target = request.query_params.get("target", "")
    facts = [f for f in _facts(request, handle) if target in (f.id, f.key)]
    context = {"title": f"Purge {target}", "scope": str(handle), "target": target, "facts": facts}
    return render(request, "purge.html", context)


def audit_page(request: Request) -> HTMLResponse:
    home = _home(request)
    entries = [{"entry": e, "links": _links(e.message)} for e in home.log(limit=100)]
    cache = _lint(request)
    report = cache.report
    scopes = folders(home)
    findings = []
    for row in report.findings if report else []:
        parts = row.path.split("/")
        scope = scopes.get("/".join(parts[:2]))
        findings.append({"row": row, "scope": scope, "memory": parts[-1] == "MEMORY.md"})
    context = {"title": "Audit", "entries": entries, "findings": findings, "lint": cache, "report": report}
    return render(request, "audit.html", context)


def file_page(request: Request) -> HTMLResponse:
    home = _home(request)
    path = request.query_params.get("path", "")
    text = home.read_text(path)
    parts = path.split("/")
    scope = folders(home).get("/".join(parts[:2]))
    context = {"title": path, "path": path, "lines": text.splitlines(), "scope": scope}
    return render(request, "file.html", context)


def _links(message: str) -> list[tuple[str, str | None]]:
    """The scope and key a commit message names (`mem: add user:alice plan_tier …`), to link them."""
    found = _MESSAGE.match(message.splitlines()[0] if message else "")
    if found is None:
        return []
    return [(found[2], None if found[1] in ("episode", "episodes", "consolidate") else found[3])]


def _done(request: Request) -> str | None:
    """What the last action did (from its redirect), shown at the top of the page."""
    return request.query_params.get("done")
