"""The viewer's actions (POST, each checked for the CSRF value): one API call each, so one guarded write and
one commit, exactly as the CLI makes it; then back to the scope's page with a line saying what was done."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import quote, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from memfiles.errors import UsageError
from memfiles.ui.security import check_csrf

if TYPE_CHECKING:
    from memfiles.api import Home, ScopeHandle
    from memfiles.ui.lintcache import LintCache

Form = dict[str, str]


def _accept(handle: ScopeHandle, form: Form) -> str:
    return f"accept {form['id']}: {handle.accept(form['id']).line()}"


def _reject(handle: ScopeHandle, form: Form) -> str:
    fact = handle.reject(form["id"])
    return f"rejected {fact.id} ({fact.key}): kept as {fact.status}"


def _resolve(handle: ScopeHandle, form: Form) -> str:
    ended = handle.resolve(form["key"], form["keep"])
    return f"kept {form['keep']} for {form['key']}; superseded {', '.join(f.id for f in ended) or 'nothing'}"


def _confirm(handle: ScopeHandle, form: Form) -> str:
    outcome = handle.confirm(form["key"])
    if outcome.refused:
        raise UsageError(f"confirm {form['key']}: {outcome.line()}")
    return f"confirmed {form['key']} today: {outcome.line()}"


def _expire(handle: ScopeHandle, form: Form) -> str:
    fact = handle.expire(form["id"])
    return f"expired {fact.id} ({fact.key}): kept as history"


def _forget(handle: ScopeHandle, form: Form) -> str:
    gone = handle.forget(form["target"])
    return f"forgot {', '.join(f.id for f in gone.facts)} (git history still holds it; purge erases it)"


def _purge(handle: ScopeHandle, form: Form) -> str:
    if form.get("confirm") != "purge":
        raise UsageError("purge not confirmed: tick the box that says you understand what purge does")
    gone = handle.forget(form["target"], purge=True)
    return f"purged {', '.join(f.id for f in gone.facts)}: rewrote {gone.purged_blobs} stored versions. {gone.advice}"


def _episode(verb: str) -> Callable[[ScopeHandle, Form], str]:
    def act(handle: ScopeHandle, form: Form) -> str:
        method = getattr(handle, f"{verb}_episode", None)
        if not callable(method):
            raise UsageError(f"this version of memfiles has no quarantine: cannot {verb} episode {form['id']}")
        method(form["id"])
        return f"{verb}ed episode {form['id']}"

    return act


ACTIONS: dict[str, tuple[Callable[[ScopeHandle, Form], str], tuple[str, ...]]] = {
    "accept": (_accept, ("id",)),
    "reject": (_reject, ("id",)),
    "resolve": (_resolve, ("key", "keep")),
    "confirm": (_confirm, ("key",)),
    "expire": (_expire, ("id",)),
    "forget": (_forget, ("target",)),
    "purge": (_purge, ("target",)),
    "accept-episode": (_episode("accept"), ("id",)),
    "reject-episode": (_episode("reject"), ("id",)),
}


async def _form(request: Request) -> Form:
    form = await request.form()
    check_csrf(request, form)
    return {k: v for k, v in form.items() if isinstance(v, str)}


async def scope_action(request: Request) -> Response:
    home: Home = request.app.state.home
    name = request.path_params["action"]
    if name not in ACTIONS:
        raise UsageError(f"no action {name!r}; the actions are {', '.join(ACTIONS)}")
    act, needed = ACTIONS[name]
    form = await _form(request)
    missing = [field for field in needed if not form.get(field)]
    if missing:
        raise UsageError(f"{name}: the form lacks {', '.join(missing)}")
    handle = home.scope(request.path_params["scope"])
    done = await run_in_threadpool(act, handle, form)
    lint: LintCache = request.app.state.lint
    lint.refresh()
    target = f"/s/{quote(str(handle), safe=':')}?{urlencode({'done': done})}"
    return RedirectResponse(target, status_code=303)


async def lint_refresh(request: Request) -> Response:
    await _form(request)
    lint: LintCache = request.app.state.lint
    lint.refresh()
    back = "/audit" if request.query_params.get("back") == "audit" else "/"
    return RedirectResponse(back, status_code=303)
