"""The one typer app of `mem`, its global options, the options commands share, and the one error handler.

A command module registers its commands with `@app.command()`; each command parses its options, calls one
method of memfiles.api (imported inside the command, so `mem --version` loads none of it) and prints
through memfiles.output. A MemError raised anywhere becomes one line on stderr and its exit code.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from memfiles import __version__, output
from memfiles.errors import MemError

if TYPE_CHECKING:  # the API is imported by each command, when it runs
    from memfiles.api import Home, ScopeHandle


class MemGroup(TyperGroup):
    """Maps MemError to its exit code and a one-line `mem: error: …` (tracebacks only with --debug)."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except MemError as exc:
            if ctx.meta.get("mem.debug"):
                raise
            output.error(str(exc))
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            output.error("interrupted")
            raise typer.Exit(130) from None
        except MemoryError:  # writes are atomic: what ran out of memory wrote nothing half-way
            if ctx.meta.get("mem.debug"):
                raise
            output.error("out of memory: the input is too large to handle; nothing was written")
            raise typer.Exit(1) from None


app = typer.Typer(
    cls=MemGroup,
    name="mem",
    help="Long-term memory for AI agents in plain markdown files, kept in git.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

UserOpt = Annotated[str | None, typer.Option("--user", "-u", help="User id; same as --scope user:ID.")]
ScopeOpt = Annotated[str | None, typer.Option("--scope", "-s", help="Scope: user:ID, org:ID or agent:ID.")]
UsersOpt = Annotated[list[str] | None, typer.Option("--user", "-u", metavar="ID", help="User id (repeatable).")]
ScopesOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--scope", "-s", metavar="SCOPE", help="user:ID, org:ID or agent:ID (repeatable: a user plus their org)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


def _version(value: bool) -> None:
    if value:
        output.line(f"mem {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    home: Annotated[
        Path | None,
        typer.Option(
            "--home",
            help="Memory home to use (else $MEM_HOME, the nearest .mem/, the platform data dir).",
            envvar="MEM_HOME",
            show_envvar=False,
        ),
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Long-term memory for AI agents in plain markdown files, kept in git."""
    ctx.meta["mem.home"] = home
    ctx.meta["mem.debug"] = debug
    output.show_warnings()  # e.g. a command in mem.toml, which is never run


def home_option(ctx: typer.Context) -> Path | None:
    """The global `--home` (or $MEM_HOME), None when neither is given."""
    home: Path | None = ctx.meta.get("mem.home")
    return home


def open_home(ctx: typer.Context) -> Home:
    """The home the command works on (`--home`, $MEM_HOME, the nearest .mem/, the platform data dir)."""
    from memfiles.api import open_home as opened

    return opened(home_option(ctx))


def open_scope(ctx: typer.Context, user: str | None, scope: str | None) -> ScopeHandle:
    """The scope the command works on: --user or --scope, else $MEM_USER, else mem.toml's default_scope."""
    return open_home(ctx).choose(user, scope)


def exit_with(code: int) -> None:
    """End the command with `code` (0: carry on)."""
    if code:
        raise typer.Exit(code)


def warn_unknown(home: Home, scopes: list[str]) -> None:
    """Say on stderr which of `scopes` the home has no memory for, with the close names it has (a typo)."""
    for name, close in home.unknown_scopes(scopes).items():
        kind, _, ident = name.partition(":")
        shown = [c.partition(":")[2] if kind == "user" else c for c in close]
        hint = f"; did you mean {' or '.join(shown)}?" if shown else ""
        what = f"user {ident!r}" if kind == "user" else f"scope {name!r}"
        output.warn(f"no memory for {what} in {home.root}{hint}")
