"""`mem ui`: a local viewer of a memory home in the browser (the optional extra `memfiles[ui]`).

It binds 127.0.0.1 only and prints an address with a random single-use token, which the first page
exchanges for an HttpOnly, SameSite=Strict cookie; every request needs one or the other. The browser is
opened on a private launcher file that holds the address, never on the address itself, so the token is
not on any command line (`ps` shows every process's arguments to every user). Pages read through
memfiles.api; every action is a POST with a CSRF value and is one API call, so one guarded write and one
commit, as the CLI makes it. The templates, CSS and JS ship in this package: no CDN, no network.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memfiles.errors import UsageError

if TYPE_CHECKING:
    from memfiles.ui.security import Secrets

INSTALL = "pip install 'memfiles[ui]'"
NEEDED = ("starlette", "uvicorn", "jinja2", "multipart")


def require_extra() -> None:
    """Raise a UsageError (exit 2) naming the extra when the web stack is not installed."""
    import importlib.util

    missing = [name for name in NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        raise UsageError(
            f"mem ui needs the optional extra 'ui' ({', '.join(missing)} not installed): {INSTALL} "
            "(into the same environment as mem: pipx inject memfiles starlette uvicorn jinja2 python-multipart)"
        )


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:`port` (0: any free port)."""
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be 0-65535, not {port}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if os.name != "nt":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}; choose another --port (0: any)") from None
    sock.listen(64)
    return sock


def serve(
    home: str | os.PathLike[str] | None,
    port: int = 0,
    *,
    announce: Callable[[str], None],
    open_browser: bool = True,
    token: str | None = None,
) -> None:
    """Serve the home until interrupted; `announce` hears the address (with its token) once it listens."""
    require_extra()
    import uvicorn

    from memfiles.api import keep_warm, open_home
    from memfiles.ui.app import create_app
    from memfiles.ui.security import Secrets

    opened = open_home(home)
    # A server answers many searches: keep decoded episodes and load the semantic extra's model optimized, as
    # `mem mcp` does, but stat every file at each search, so a file a person just edited in place shows at once.
    keep_warm(restat_s=0)
    sock = bind(port)
    actual = sock.getsockname()[1]
    keys = Secrets(token)
    app: Any = create_app(opened, keys, [f"127.0.0.1:{actual}", f"localhost:{actual}"])
    url = f"http://127.0.0.1:{actual}/?token={keys.token}"
    announce(url)
    launcher = open_in_browser(url, keys) if open_browser else None
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", server_header=False)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        if launcher is not None:
            shutil.rmtree(launcher.parent, ignore_errors=True)


def open_in_browser(url: str, keys: Secrets) -> Path:
    """Open `url` in the browser without putting it on a command line: the browser is given a launcher file
    (`file://…/open.html`, in a folder only this user can read, the file 0600) whose page sends it on to `url`;
    the file is removed when the token is used (`Secrets.after_use`). Returns the file."""
    import tempfile
    import webbrowser
    from html import escape

    folder = Path(tempfile.mkdtemp(prefix="mem-ui-"))  # 0700
    launcher = folder / "open.html"
    fd = os.open(launcher, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        target = escape(url, quote=True)
        handle.write(
            '<!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
            f'<meta http-equiv="refresh" content="0;url={target}"><title>mem ui</title></head>'
            f'<body><a href="{target}">Open the memory viewer</a></body></html>\n'
        )
    keys.after_use(lambda: shutil.rmtree(folder, ignore_errors=True))
    webbrowser.open(launcher.as_uri())
    return launcher
