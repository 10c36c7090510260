"""Pages from the package's Jinja2 templates: autoescaped, and every `{{ }}` of stored text made visible
(controls and bidi overrides as ⟦U+XXXX⟧) before it is escaped, so no stored string is markup or reorders a page."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from memfiles.ui.security import CSRF_FIELD, Secrets
from memfiles.ui.views import shown


def environment() -> Environment:
    """Templates from the package, autoescaped, every `{{ }}` passed through `shown` (visible, escaped)."""
    env = Environment(
        loader=PackageLoader("memfiles.ui", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        finalize=shown,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env


def render(request: Request, name: str, context: dict[str, Any], status: int = 200) -> HTMLResponse:
    """A page: the template with the request's CSRF value and the home's name."""
    env: Environment = request.app.state.env
    keys: Secrets = request.app.state.secrets
    data = {"csrf_field": CSRF_FIELD, "csrf": keys.csrf, "home_root": str(request.app.state.home.root), **context}
    return HTMLResponse(env.get_template(name).render(data), status_code=status)
