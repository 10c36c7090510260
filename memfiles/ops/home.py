"""Creating memory homes (opening one, and choosing a scope, is the door's: memfiles.api.home)."""

from __future__ import annotations

from pathlib import Path

from memfiles.errors import HomeError
from memfiles.format import layout
from memfiles.format.config import DEFAULT_TOML

GITATTRIBUTES = "# MEMORY.md files merge fact by fact (mem merge-driver), at every depth.\nMEMORY.md merge=mem\n"
GITIGNORE = "# Derived, rebuildable state (indexes, locks): never committed.\n.cache/\n*.tmp\n"


def init_home(root: Path, force: bool = False) -> bool:
    """Create a memory home at `root` (git repo, mem.toml, .gitattributes, .gitignore, first commit).

    Returns False, changing nothing, when `root` already is a home. Refuses the filesystem root and
    the user's home folder unless `force`: a home is a git repository of its own.
    """
    from memfiles.store import gitrepo

    if (root / layout.CONFIG_NAME).is_file() and gitrepo.is_repo(root):
        return False
    if not force:
        _refuse_whole_tree(root)
    try:
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
    except OSError as exc:
        raise HomeError(
            f"cannot create a memory home at {root}: {_blocker(root, exc)}; "
            "choose another folder: mem init PATH (or set $MEM_HOME)"
        ) from None
    gitrepo.init(root, written, "mem: init memory home")
    register_merge_driver(root)
    return True


def _refuse_whole_tree(root: Path) -> None:
    """Refuse `/` and the user's home folder as a home: git would then watch every file below it."""
    where = root.resolve()
    if where == Path(where.anchor):
        what = "the filesystem root"
    elif where == Path.home().resolve():
        what = "your home folder"
    else:
        return
    raise HomeError(
        f"refusing to make {root} ({what}) a memory home: a memory home is a git repository of its own, and "
        f"making {what} one would put every file under it in git's view; choose a folder of its own "
        "(e.g. mem init ~/memory), or pass --force if you really mean it"
    )


def _blocker(root: Path, exc: OSError) -> str:
    """What stands in the way of creating `root`: the nearest existing part of the path that is not a folder."""
    for part in (root, *root.parents):
        if part.is_symlink() and not part.exists():
            return f"{part} is a link to something that does not exist"
        if part.exists():
            if not part.is_dir():
                return f"{part} is a file, not a folder"
            break
    return f"{exc.strerror or exc}: {exc.filename or root}"


def register_merge_driver(root: Path) -> None:
    """Tell this clone's git to merge MEMORY.md with `mem merge-driver` (git config is per clone)."""
    from memfiles.store import gitrepo

    gitrepo.set_config(root, "merge.mem.name", "memfiles fact-aware MEMORY.md merge")
    gitrepo.set_config(root, "merge.mem.driver", "mem merge-driver %O %A %B %P")
