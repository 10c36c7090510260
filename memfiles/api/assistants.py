"""`setup()`: memfiles wired into an assistant (Claude Code, Codex, Cursor) in one call, and undone in one
(`mem setup`, docs/SETUP.md); `setup_extractor()`: one of the shipped extractor recipes approved on this
machine (`mem setup extractor NAME`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from memfiles.errors import UsageError

_FROZEN = ConfigDict(extra="forbid", defer_build=True, frozen=True)


class SetupFile(BaseModel):
    """One file `setup` changed (or would, on a dry run): `create`, `update`, `delete` or `unchanged`."""

    model_config = _FROZEN

    path: str  # as shown: relative to the project, or `~/…`
    action: Literal["create", "update", "delete", "unchanged"]
    changes: list[str]  # `+ hooks.SessionStart: mem recall --hook --user alice`, `- mcpServers.memory: mem mcp`
    notes: list[str]  # what was kept and why


class SetupReport(BaseModel):
    """What `setup` did: the files, in order; `changed` is False when there was nothing to do."""

    model_config = _FROZEN

    assistant: str
    level: Literal["project", "user"]
    remove: bool
    dry_run: bool
    files: list[SetupFile]

    @property
    def changed(self) -> bool:
        return any(f.action != "unchanged" for f in self.files)

    def to_dict(self) -> dict[str, object]:
        return {**self.model_dump(mode="json"), "changed": self.changed}


def setup(
    assistant: str,
    *,
    level: Literal["project", "user"] = "project",
    project: str | os.PathLike[str] | None = None,
    user: str | None = None,
    scope: str | None = None,
    home: str | os.PathLike[str] | None = None,
    command: str = "mem",
    name: str = "memory",
    remove: bool = False,
    dry_run: bool = False,
) -> SetupReport:
    """Install (or with `remove=True` take out) memfiles' hooks, MCP server and rendered memory in the files of
    `assistant` ("claude-code", "codex", "cursor"), at `level` "project" (the folder `project`, default the
    working directory) or "user" (`~`). Idempotent: a second run changes nothing. Everything else in each file
    is kept; a removal puts back the file's exact bytes when nothing else changed it since.

    `user`/`scope` is the scope the hooks and the server serve (else theirs to find: $MEM_USER, default_scope);
    `home` is passed to every command as `--home` (else `mem` finds the project's `.mem/` or $MEM_HOME). Codex
    and Cursor get the scope's memory rendered (run again to refresh it), so they need a home.
    """
    from memfiles.ops import setup as ops

    if user and scope:
        raise UsageError("give either --user or --scope, not both")
    folder = Path(project or Path.cwd()).absolute()
    if home and Path(home).resolve() == (folder / ".mem").resolve():
        home = None  # the project's own home: mem finds it from the session's folder, wherever it is checked out
    wanted = ops.Wanted(
        assistant=ops.check_assistant(assistant),
        level=level,
        project=folder,
        user_home=Path.home(),
        command=command,
        home=str(Path(home).absolute()) if home else None,
        scope_args=["--user", user] if user else ["--scope", scope] if scope else [],
        name=name,
    )
    if not remove and ops.needs_section(wanted):
        _render(wanted, user, scope)
    changes = ops.plan(wanted, remove)
    if not dry_run:
        ops.apply(changes, remove)
    files = [
        SetupFile(path=c.shown, action=c.action, changes=c.lines, notes=c.notes)  # type: ignore[arg-type]
        for c in changes
    ]
    return SetupReport(assistant=assistant, level=level, remove=remove, dry_run=dry_run, files=files)


def _render(wanted: object, user: str | None, scope: str | None) -> None:
    """The scope's memory as markdown, for AGENTS.md or the Cursor rule."""
    from memfiles.api.home import open_home
    from memfiles.ops.setup import Wanted

    assert isinstance(wanted, Wanted)
    opened = open_home(wanted.home, cwd=wanted.project)
    handle = opened.choose(user, scope)
    wanted.scope = str(handle)
    wanted.section = handle.render(markdown=True).text


class ExtractorSetup(BaseModel):
    """What `setup_extractor` wrote: the recipe, the command line, the file, whether it changed, and whether the
    tool is on this machine's PATH (a recipe for a tool not installed is written, and said)."""

    model_config = _FROZEN

    recipe: str
    command: str
    path: str
    changed: bool
    dry_run: bool
    found: bool
    docs: str


def extractor_recipe(name: str) -> str:
    """`name` when it is a shipped extractor recipe, else a UsageError naming them."""
    from memfiles.ops import recipes

    return recipes.recipe(name).name


def setup_extractor(
    name: str,
    *,
    home: str | os.PathLike[str] | None = None,
    model: str | None = None,
    timeout: float | None = None,
    dry_run: bool = False,
) -> ExtractorSetup:
    """Approve a shipped extractor recipe on this machine: `[consolidate] extractor` (and `extractor_timeout`) in
    the home's mem.local.toml, which git never carries. `name` is "claude-code", "codex", "llm" or "ollama";
    `model` is passed to the tool (ollama: default llama3.2). Every other line of the file is kept."""
    from memfiles.api.home import open_home
    from memfiles.ops import recipes
    from memfiles.store.files import atomic_write

    chosen = recipes.recipe(name)
    opened = open_home(home)
    path = opened.paths.local_config
    line = recipes.command(name, model)
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    after = recipes.set_extractor(before, line, recipes.TIMEOUT if timeout is None else timeout)
    if after != before and not dry_run:
        atomic_write(path, after.encode("utf-8"))
    return ExtractorSetup(
        recipe=name,
        command=line,
        path=str(path),
        changed=after != before,
        dry_run=dry_run,
        found=recipes.on_path(name),
        docs=chosen.docs,
    )
