"""The viewer's Starlette app: routes, templates (Jinja2, every stored string escaped and made visible), the
static CSS and JS shipped in the package, the guard in front, and errors shown as pages.

`create_app(home, keys, hosts)` builds it; `memfiles.ui.serve` runs it on 127.0.0.1 with uvicorn. Every
page reads through memfiles.api and every action is one API call, so one commit, as the CLI makes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from memfiles.errors import MemError, NotFoundError
from memfiles.ui import actions, pages
from memfiles.ui.cache import FactCache
from memfiles.ui.lintcache import LintCache
from memfiles.ui.render import environment, render
from memfiles.ui.security import Forbidden, Guard, Secrets

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from memfiles.api import Home


async def _mem_error(request: Request, exc: Exception) -> Response:
    status = 404 if isinstance(exc, NotFoundError) else 400
    return render(request, "error.html", {"title": "Not done", "message": str(exc)}, status)


async def _forbidden(request: Request, exc: Exception) -> Response:
    return render(request, "error.html", {"title": "Refused", "message": str(exc)}, 403)


async def _not_found(request: Request, exc: Exception) -> Response:
    return render(request, "error.html", {"title": "Not found", "message": f"no page {request.url.path}"}, 404)


def create_app(home: Home, keys: Secrets, hosts: Iterable[str]) -> ASGIApp:
    """The viewer for `home`, answering only to `hosts` (`127.0.0.1:PORT`) and to the token or cookie of `keys`."""
    routes = [
        Route("/", pages.home_page),
        Route("/audit", pages.audit_page),
        Route("/file", pages.file_page),
        Route("/s/{scope}", pages.scope_page),
        Route("/s/{scope}/key/{key}", pages.timeline_page),
        Route("/s/{scope}/episodes", pages.episodes_page),
        Route("/s/{scope}/episode/{episode_id}", pages.episode_page),
        Route("/s/{scope}/purge", pages.purge_page),
        Route("/lint/refresh", actions.lint_refresh, methods=["POST"]),
        Route("/s/{scope}/{action}", actions.scope_action, methods=["POST"]),
        Mount("/static", StaticFiles(packages=[("memfiles.ui", "static")]), name="static"),
    ]
    handlers = {MemError: _mem_error, Forbidden: _forbidden, 404: _not_found}
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.state.home = home
    app.state.secrets = keys
    app.state.env = environment()
    app.state.lint = LintCache(home)
    app.state.facts = FactCache()
    return Guard(app, keys, hosts)
