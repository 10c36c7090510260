"""Creating memory homes (opening one, and choosing a scope, is the door's: memfiles.api.home)."""

from __future__ import annotations

from pathlib import Path

from memfiles.errors import HomeError
from memfiles.format import layout
from memfiles.format.config import DEFAULT_TOML

GITATTRIBUTES = "# MEMORY.md files merge fact by fact (mem merge-driver), at every depth.\nMEMORY.md merge=mem\n"
GITIGNORE = "# Derived, rebuildable state (indexes, locks): never committed.\n.cache/\n*.tmp\n"


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
