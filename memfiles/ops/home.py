"""Opening and creating memory homes, and choosing the scope a command works on."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memfiles.errors import HomeError, ScopeError
from memfiles.format import layout
from memfiles.format.config import DEFAULT_TOML, Config, load_config
from memfiles.format.layout import Paths, Scope

GITATTRIBUTES = "# MEMORY.md files merge fact by fact (mem merge-driver), at every depth.\nMEMORY.md merge=mem\n"
GITIGNORE = "# Derived, rebuildable state (indexes, locks): never committed.\n.cache/\n*.tmp\n"


@dataclass(slots=True)
class HomeContext:
    """An opened home: its paths and validated settings."""

    paths: Paths
    config: Config

    @property
    def root(self) -> Path:
        return self.paths.root


def open_context(home: str | os.PathLike[str] | None = None) -> HomeContext:
    """Resolve and open an initialised home (raises HomeError with the fix when there is none)."""
    root = layout.require_home(layout.resolve_home(home))
    return HomeContext(Paths(root), load_config(root / layout.CONFIG_NAME))


def choose_scope(config: Config, user: str | None = None, scope: str | None = None) -> Scope:
    """`--user ID` or `--scope KIND:ID`, else `$MEM_USER`, else mem.toml's default_scope."""
    if user and scope:
        raise ScopeError("give either --user or --scope, not both")
    if user is not None:
        return Scope("user", layout.validate_id(user, "user id"))
    if scope is not None:
        return layout.parse_scope(scope)
    env = os.environ.get("MEM_USER", "").strip()
    if env:
        return layout.parse_scope(env) if ":" in env else Scope("user", layout.validate_id(env, "$MEM_USER"))
    if config.memory.default_scope:
        return layout.parse_scope(config.memory.default_scope)
    raise ScopeError("no scope given: pass --user ID or --scope user:ID, or set $MEM_USER or default_scope in mem.toml")


def init_home(root: Path) -> bool:
    """Create a memory home at `root` (git repo, mem.toml, .gitattributes, .gitignore, first commit).

    Returns False, changing nothing, when `root` already is a home.
    """
    from memfiles.store import gitrepo

    if (root / layout.CONFIG_NAME).is_file() and gitrepo.is_repo(root):
        return False
    if root.exists() and not root.is_dir():
        raise HomeError(f"{root} exists and is not a folder")
    root.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (
        (layout.CONFIG_NAME, DEFAULT_TOML),
        (".gitattributes", GITATTRIBUTES),
        (".gitignore", GITIGNORE),
    ):
        path = root / name
        if not path.exists():
            path.write_text(text, encoding="utf-8")
        written.append(name)
    gitrepo.init(root, written, "mem: init memory home")
    register_merge_driver(root)
    return True


def register_merge_driver(root: Path) -> None:
    """Tell this clone's git to merge MEMORY.md with `mem merge-driver` (git config is per clone)."""
    from memfiles.store import gitrepo

    gitrepo.set_config(root, "merge.mem.name", "memfiles fact-aware MEMORY.md merge")
    gitrepo.set_config(root, "merge.mem.driver", "mem merge-driver %O %A %B %P")
