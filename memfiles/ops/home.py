"""Creating memory homes (opening one, and choosing a scope, is the door's: memfiles.api.home)."""

from __future__ import annotations

import os
from pathlib import Path

from memfiles.errors import HomeError
from memfiles.format import layout
from memfiles.format.config import DEFAULT_TOML, LOCAL_TOML

GITATTRIBUTES = "# MEMORY.md files merge fact by fact (mem merge-driver), at every depth.\nMEMORY.md merge=mem\n"
IGNORE_LOCAL = (
    "# This machine's own settings (commands such as the extractor, relaxations): never synced.\n"
    f"/{layout.LOCAL_CONFIG_NAME}\n"
)
GITIGNORE = "# Derived, rebuildable state (indexes, locks): never committed.\n.cache/\n*.tmp\n" + IGNORE_LOCAL
IGNORED_LOCAL_MESSAGE = f"mem: git-ignore {layout.LOCAL_CONFIG_NAME}, this machine's own settings\n"


def init_home(root: Path, force: bool = False) -> bool:
    """Create a memory home at `root` (git repo, mem.toml, .gitattributes, .gitignore, first commit), and this
    machine's mem.local.toml, which .gitignore keeps out of git.

    Returns False, changing nothing, when `root` already is a home. Refuses the filesystem root and
    the user's home folder unless `force`: a home is a git repository of its own.
    """
    from memfiles.store import gitrepo

    if (root / layout.CONFIG_NAME).is_file() and gitrepo.is_repo(root):
        return False
    if not force:
        _refuse_whole_tree(root)
    _refuse_another_repository(root)
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
    ensure_local_settings(root)  # a .gitignore that was there before lacks the entry: it is added then
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


def _refuse_another_repository(root: Path) -> None:
    """A home is always a git repository of its own: never commit into a project's history nor edit its files."""
    from memfiles.store import gitrepo

    dot = root / ".git"
    if not os.path.lexists(dot):
        return
    if not gitrepo.is_repo(root):
        gitrepo.git_dir(root)  # raises GitError: .git is a link or a file
    if gitrepo.rev(root, "HEAD") is None and not gitrepo.changed_files(root):
        return  # an empty repository made for the home: it becomes one
    raise HomeError(
        f"{root} is already a git repository, and not a memory home: a memory home is always a git repository of "
        f"its own, so `mem init` never commits into another one nor edits its .gitignore; make the home in a "
        f"folder of its own, e.g. mem init {root / layout.LOCAL_HOME}"
    )


def enclosing_repository(root: Path) -> Path | None:
    """The nearest folder above `root` with a `.git` (a project the home sits inside), if any."""
    for folder in root.absolute().parents:
        if os.path.lexists(folder / ".git"):
            return folder
    return None


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


def ensure_local_settings(root: Path) -> list[str]:
    """Give a home made before mem.local.toml existed (or a clone) that file, and git-ignore it; what was done.

    The .gitignore entry is committed, so every clone ignores the file from its next sync on.
    """
    from memfiles.store import gitrepo

    done = []
    name = layout.LOCAL_CONFIG_NAME
    if not gitrepo.ignored(root, name):
        gitignore = root / ".gitignore"
        text = gitignore.read_text(encoding="utf-8") if gitignore.is_file() else ""
        gitignore.write_text(text + ("\n" if text and not text.endswith("\n") else "") + IGNORE_LOCAL, encoding="utf-8")
        gitrepo.commit(root, [".gitignore"], IGNORED_LOCAL_MESSAGE)
        done.append(f"listed {name} in .gitignore (committed)")
    local = root / name
    if not local.exists() and not local.is_symlink():
        local.write_text(LOCAL_TOML, encoding="utf-8")
        done.append(f"wrote {name}, this machine's settings (all commented out)")
    return done


def register_merge_driver(root: Path) -> None:
    """Tell this clone's git to merge MEMORY.md with `mem merge-driver` (git config is per clone)."""
    from memfiles.store import gitrepo

    gitrepo.set_config(root, "merge.mem.name", gitrepo.MERGE_DRIVER_NAME)
    gitrepo.set_config(root, "merge.mem.driver", gitrepo.MERGE_DRIVER)  # mem's own git calls pin it anyway
