"""Who may talk to the viewer: the token in the printed URL, exchanged on first use for a cookie; the Host a
page must be asked for; the CSRF value every POST carries; the headers every answer carries.

A pure ASGI middleware (`Guard`) in front of the whole app, static files included:

- the request's Host must be one the server listens on (127.0.0.1:PORT or localhost:PORT), so a page of
  another site that rebinds its name to 127.0.0.1 is refused;
- a request carries the token (`?token=…`, from the URL `mem ui` printed) or the session cookie; a GET
  with the right token gets the cookie (HttpOnly, SameSite=Strict) and is sent on to the same address
  without the token, so the token stays out of the history and of every Referer; anything else is 403.
  The token is single-use: its first use spends it (and removes the browser's launcher file, see
  memfiles.ui.open_in_browser), so an address seen later (a history, a `ps` listing, a shoulder) lets
  nobody in;
- a POST whose Origin is another site is 403 here; its CSRF value is checked by `check_csrf` when the
  form is read (the value is in each page's forms, never in a cookie);
- every answer carries a Content-Security-Policy allowing scripts, styles and images from this server
  only (no inline script, no remote one), no framing, sniffing or caching, and a referrer for this server
  only (with none, Chromium sends `Origin: null` on a form and the Origin check could not tell).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable, Iterable
from urllib.parse import urlencode

from starlette.datastructures import URL, FormData
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "mem_ui"
CSRF_FIELD = "csrf"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
REFUSED = (
    "403 Forbidden: this is the local memory viewer of `mem ui`. Open the address it printed when it started "
    "(with ?token=…) in this browser; the token is exchanged for a cookie on first use, and works only once: "
    "for another browser, restart `mem ui`.\n"
)


def same(given: str | None, expected: str) -> bool:
    """Compare secrets in constant time."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


class Secrets:
    """The server's secrets, new at every start: the URL token (single-use), the cookie's session value, the CSRF
    value."""

    def __init__(self, token: str | None = None) -> None:
        self.token = token or secrets.token_urlsafe(32)
        self.session = secrets.token_urlsafe(32)
        self.csrf = secrets.token_urlsafe(32)
        self.spent = False
        self._after_use: list[Callable[[], None]] = []

    def redeem(self, given: str) -> bool:
        """Whether `given` is the token, not used before; spends it (and runs what waits for its use) if so."""
        if self.spent or not same(given, self.token):
            return False
        self.spent = True
        waiting, self._after_use = self._after_use, []
        for action in waiting:
            action()
        return True

    def after_use(self, action: Callable[[], None]) -> None:
        """Run `action` when the token is first used (to remove the file that handed it to the browser)."""
        self._after_use.append(action)


class Forbidden(Exception):
    """A request without what it needs (raised by `check_csrf`, answered 403)."""


def check_csrf(request: Request, form: FormData) -> None:
    """Refuse a POST whose form does not carry this server's CSRF value."""
    keys: Secrets = request.app.state.secrets
    value = form.get(CSRF_FIELD)
    if not isinstance(value, str) or not same(value, keys.csrf):
        raise Forbidden("the form has no valid CSRF value: reload the page and try again")


class Guard:
    """The middleware: Host, token or cookie, Origin on POST, and the security headers on every answer."""

    def __init__(self, app: ASGIApp, keys: Secrets, hosts: Iterable[str]) -> None:
        self.app = app
        self.keys = keys
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in HEADERS}
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message = {**message, "headers": kept + HEADERS}
            await send(message)

        refusal = self.refusal(Request(scope))
        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def refusal(self, request: Request) -> Response | None:
        """The answer to a request that may not go on (403, or the token-for-cookie redirect); None: go on."""
        host = request.headers.get("host", "").lower()
        if host not in self.hosts:
            return PlainTextResponse(f"403 Forbidden: the viewer answers only to {sorted(self.hosts)}\n", 403)
        if request.method not in ("GET", "HEAD", "POST"):
            return PlainTextResponse("405 Method Not Allowed\n", 405)
        origin = request.headers.get("origin")
        foreign = origin is not None and origin.lower() not in {f"http://{h}" for h in self.hosts}
        if request.method == "POST" and foreign:
            return PlainTextResponse("403 Forbidden: a form from another site\n", 403)
        token = request.query_params.get("token")
        if token is not None and self.keys.redeem(token):
            if request.method != "GET":
                return None
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            target = URL(path=request.url.path, query=urlencode(rest))
            redirect = RedirectResponse(str(target), status_code=303)
            redirect.set_cookie(COOKIE, self.keys.session, httponly=True, samesite="strict", path="/")
            return redirect
        if same(request.cookies.get(COOKIE), self.keys.session):
            return None
        return PlainTextResponse(REFUSED, 403)
