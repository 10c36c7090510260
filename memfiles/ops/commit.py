"""Writing a scope's files and committing them: atomic writes under the scope's lock, then ONE commit,
undone when git fails, refused while a `mem sync` merge is unfinished. Every writer ends here
(memfiles.ops.writepath for facts, memfiles.ops.record for episodes, consolidation for whole scopes).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from memfiles.errors import GitError, HandEditError, MemError
from memfiles.format.layout import Paths, Scope
from memfiles.store import gitrepo
from memfiles.store.files import atomic_write, git_lock, scope_lock

if TYPE_CHECKING:
    from memfiles.ops.scopefiles import Progress, ScopeFiles

T = TypeVar("T")
# Files a write in a process without the recall index leaves to the next recall (note_written).
_LEFT_TO_RECALL = 20


@dataclass(slots=True)
class FileChanges:
    """Whole files to write and files to remove in one scope, committed together with one message."""

    writes: list[tuple[Path, str, bytes]]
    removes: list[tuple[Path, str]]
    message: str


def apply_files(
    paths: Paths,
    scope: Scope,
    decide: Callable[[ScopeFiles], tuple[T, FileChanges | None]],
    write: bool = True,
    progress: Progress | None = None,
) -> T:
    """Read the scope, let `decide` plan its changes, then write them all and make ONE commit, under the lock.

    Digests are written first and episode files removed last, so an interrupted run never leaves an
    episode without its digest line (and `mem doctor` finds the uncommitted rest). With `write=False`
    nothing is locked, written or committed (a dry run).
    """
    from memfiles.ops import scopefiles

    if not write:
        return decide(scopefiles.read(paths, scope, progress))[0]
    with scope_lock(paths, scope):
        result, changes = decide(scopefiles.read(paths, scope, progress))
        if changes is None or not (changes.writes or changes.removes):
            return result
        refuse_during_merge(paths)
        touched = [(path, relpath) for path, relpath, _data in changes.writes] + changes.removes
        before = {relpath: (path, current(path)) for path, relpath in touched}
        for path, _relpath, data in changes.writes:
            atomic_write(path, data)
        for path, _relpath in changes.removes:
            path.unlink(missing_ok=True)
        commit_or_undo(paths, before, changes.message)
        note_written(paths, scope, list(before))  # marked, folded and removed episodes leave the recall index now
    return result


def refuse_during_merge(paths: Paths) -> None:
    """Refuse a write while `mem sync` has a merge unfinished: its conflict markers would be committed."""
    if gitrepo.merge_in_progress(paths.root):
        root = paths.root
        raise MemError(
            f"an earlier `mem sync` left a merge unfinished in {root}, and nothing is written until it is done: "
            "edit the files with conflict markers (`mem doctor` lists them), then run `mem sync --commit`; "
            f"or give the merge up: git -C {root} merge --abort"
        )


def refuse_hand_edits(paths: Paths, files: Iterable[Path], doing: str) -> None:
    """Raise HandEditError if any of `files` (those that exist) has changes git has not committed.

    Every writer that replaces a file with content not read from it, or removes one, asks this first, under
    the scope's lock: a person's uncommitted edit is in no commit, so replacing it would lose it for good.
    """
    present = [paths.relative(path) for path in files if os.path.lexists(path)]
    kept = gitrepo.uncommitted(paths.root, present) if present else []
    if kept:
        raise HandEditError(str(paths.root), kept, doing)


def current(path: Path) -> bytes | None:
    """A file's bytes before a write, to put back if the commit fails (None: it did not exist)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def commit_or_undo(paths: Paths, before: Mapping[str, tuple[Path, bytes | None]], message: str) -> None:
    """Commit the written files (relpath -> (path, bytes before)); if git fails, put each back as it was.

    A write left in place after a failed commit would go into the next write's commit, under that
    write's message, and the history would lie about who changed what.
    """
    try:
        with git_lock(paths):
            gitrepo.commit(paths.root, list(before), message)
    except MemError as failed:  # git failed, or its lock could not be taken (stuck holder, a planted link)
        for path, data in before.values():
            if data is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write(path, data)
        shown = ", ".join(list(before)[:3]) + (f" and {len(before) - 3} more" if len(before) > 3 else "")
        undone = f"{failed}. The write was undone: {shown} {'is' if len(before) == 1 else 'are'} as before"
        raise (GitError(undone) if isinstance(failed, GitError) else MemError(undone)) from None


def note_written(paths: Paths, scope: Scope, relpaths: list[str]) -> None:
    """The scope's recall index (a cache) follows the write; it never fails the write.

    Most writes go to scopes that have no index yet (the first recall builds it): then the index module,
    with SQLite and the scorer, is not even imported. A process that has not loaded it either (a one-shot
    `mem episode` or `mem capture`) leaves a few written files to the next recall, which finds them by their
    stat as it finds a `git pull`'s: loading the module here costs 50-70 ms, reading a file there about
    1 ms. A batch (consolidation, an import) and a process that recalls (`mem mcp`, `mem ui`) update it now.
    """
    loaded = "memfiles.recall.index" in sys.modules
    if paths.index_files(scope) and (loaded or len(relpaths) > _LEFT_TO_RECALL):
        from memfiles.recall import index

        index.note_written(paths, scope, relpaths)
    from memfiles.format.config import load_settings
    from memfiles.recall import embedder  # light: the extra loads only if this home ranks by meaning

    try:
        config = load_settings(paths.root).safe
    except MemError:
        return  # settings broken after the write: `mem doctor` says so, and the next read catches up
    if embedder.wanted(config):
        from memfiles.recall import vector_build

        vector_build.after_write(paths, scope, relpaths, config)
