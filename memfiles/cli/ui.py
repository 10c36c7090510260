"""`mem ui`: the memory home in the browser, served on 127.0.0.1 (the optional extra `memfiles[ui]`)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from memfiles import output
from memfiles.cli.app import app, home_option


def _announce(url: str) -> None:
    output.line(f"mem ui: serving {url}")
    output.line("mem ui: keep this address private (it lets in whoever has it); Ctrl-C stops the server")
    sys.stdout.flush()


@app.command("ui")
def ui(
    ctx: typer.Context,
    port: Annotated[
        int, typer.Option("--port", "-p", min=0, max=65535, help="Port on 127.0.0.1 (0: any free one).")
    ] = 0,
    no_open: Annotated[bool, typer.Option("--no-open", help="Print the address only; do not open a browser.")] = False,
) -> None:
    """Browse and settle your memory in the browser: scopes, facts with provenance, conflicts, the review queue,
    each key's timeline, episodes by month, the audit trail and lint findings.

    It listens on 127.0.0.1 only and prints an address with a random token (opened in your browser unless
    --no-open, through a private file, so the token is on no command line); the first page swaps the token for
    a cookie, the token then works no more, and nothing is answered without one or the other.
    Every action (accept, reject, keep this one, forget, purge) is a POST through the same guarded write
    path as the CLI: one commit each, visible in `mem log`. Needs the optional extra: pip install 'memfiles[ui]'.

    \b
    Examples:
      mem ui                       # any free port, opens the browser
      mem ui --port 8765 --no-open # a fixed port; open the printed address yourself
      mem --home ~/notes/.mem ui   # another home
    """
    from memfiles.ui import serve

    try:
        serve(home_option(ctx), port, announce=_announce, open_browser=not no_open)
    except KeyboardInterrupt:
        output.line("mem ui: stopped")
