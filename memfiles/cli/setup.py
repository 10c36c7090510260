"""`mem setup`: wire memfiles into an assistant (hooks, MCP server, rendered memory) in one command, or undo it;
`mem setup extractor NAME`: approve one of the shipped extractor recipes on this machine."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memfiles import output
from memfiles.cli.app import JsonOpt, ScopeOpt, UserOpt, app, home_option

setup_app = typer.Typer(
    help="Wire memfiles into an assistant in one command (see docs/SETUP.md); --remove undoes it.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(setup_app, name="setup")

RemoveOpt = Annotated[
    bool, typer.Option("--remove", help="Take out what mem setup added (the file's exact old bytes if untouched).")
]
DryOpt = Annotated[bool, typer.Option("--dry-run", help="Show what would change; write nothing.")]
LevelOpt = Annotated[
    bool,
    typer.Option(
        "--user-level/--project",
        help="Your user settings under ~ (every project) instead of the current project's (the default).",
    ),
]
ProjectDirOpt = Annotated[
    Path | None, typer.Option("--dir", help="The project folder (default: the current folder).", file_okay=False)
]
CommandOpt = Annotated[str, typer.Option("--command", help="How the assistant runs mem (e.g. a full path).")]
NameOpt = Annotated[str, typer.Option("--name", help="The MCP server's name.")]


def _run(
    ctx: typer.Context,
    assistant: str,
    user_level: bool,
    folder: Path | None,
    user: str | None,
    scope: str | None,
    command: str,
    name: str,
    remove: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    from memfiles.api.assistants import setup

    home = home_option(ctx)
    report = setup(
        assistant,
        level="user" if user_level else "project",
        project=folder,
        user=user,
        scope=scope,
        home=home,
        command=command,
        name=name,
        remove=remove,
        dry_run=dry_run,
    )
    output.setup_report(report, as_json)


@setup_app.command("claude-code")
def claude_code(
    ctx: typer.Context,
    user_level: LevelOpt = False,
    folder: ProjectDirOpt = None,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    command: CommandOpt = "mem",
    name: NameOpt = "memory",
    remove: RemoveOpt = False,
    dry_run: DryOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Claude Code: hooks in .claude/settings.json and the MCP server in .mcp.json.

    SessionStart and UserPromptSubmit run `mem recall --hook` (its stdout is added to Claude's context);
    PreCompact and SessionEnd run `mem capture --hook` (the session becomes an episode). With
    --user-level: ~/.claude/settings.json and ~/.claude.json. Every other setting is kept; running it again
    changes nothing; --remove takes out exactly this.

    \b
    Examples:
      mem setup claude-code -u alice
      mem setup claude-code -u alice --dry-run
      mem setup claude-code --remove
    """
    _run(ctx, "claude-code", user_level, folder, user, scope, command, name, remove, dry_run, as_json)


@setup_app.command()
def codex(
    ctx: typer.Context,
    user_level: LevelOpt = False,
    folder: ProjectDirOpt = None,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    command: CommandOpt = "mem",
    name: NameOpt = "memory",
    remove: RemoveOpt = False,
    dry_run: DryOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Codex: the scope's memory rendered between markers in AGENTS.md, and [mcp_servers.memory] in
    .codex/config.toml (with --user-level: both in $CODEX_HOME, default ~/.codex).

    Codex reads AGENTS.md at the start of a session; run this again (or `mem render --into AGENTS.md`)
    to refresh it after memory changes.

    \b
    Examples:
      mem setup codex -u alice
      mem setup codex --user-level -u alice
    """
    _run(ctx, "codex", user_level, folder, user, scope, command, name, remove, dry_run, as_json)


@setup_app.command()
def cursor(
    ctx: typer.Context,
    user_level: LevelOpt = False,
    folder: ProjectDirOpt = None,
    user: UserOpt = None,
    scope: ScopeOpt = None,
    command: CommandOpt = "mem",
    name: NameOpt = "memory",
    remove: RemoveOpt = False,
    dry_run: DryOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Cursor: the scope's memory in the rule .cursor/rules/memory.mdc (alwaysApply) and the MCP server in
    .cursor/mcp.json (with --user-level: ~/.cursor/mcp.json only).

    \b
    Examples:
      mem setup cursor -u alice
    """
    _run(ctx, "cursor", user_level, folder, user, scope, command, name, remove, dry_run, as_json)


@setup_app.command()
def extractor(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The recipe: claude-code, codex, llm or ollama.")],
    model: Annotated[str | None, typer.Option(help="The model the tool uses (ollama: default llama3.2).")] = None,
    timeout: Annotated[float | None, typer.Option(min=0, help="Seconds it may run (default 300).")] = None,
    dry_run: DryOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Use the LLM you already have as the consolidation extractor, on this machine only.

    Writes [consolidate] extractor in the home's mem.local.toml (never synced): the tool reads the request
    memfiles ships (the prompt, the facts, the episodes, the answer's schema) on stdin and prints the answer;
    every fact it proposes still goes through the guard. Then `mem consolidate` and `mem capture --extract`
    ask it. See docs/SETUP.md.

    \b
    Examples:
      mem setup extractor claude-code
      mem setup extractor llm --model gpt-4o-mini
      mem setup extractor ollama --model qwen2.5:7b
    """
    from memfiles.api.assistants import setup_extractor

    output.extractor_setup(
        setup_extractor(name, home=home_option(ctx), model=model, timeout=timeout, dry_run=dry_run), as_json
    )
