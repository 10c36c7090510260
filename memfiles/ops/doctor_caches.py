"""`mem doctor`'s checks of the caches it would not use (issues 38 and 39): a vector file that is corrupt or was
not made on this machine, a model copy in `.cache/models/` without this machine's signed sidecar, and any cache
file git tracks (recall indexes, vectors, model copies: pushed into
`.cache/` by someone, so never this machine's). The recall index's own check is memfiles.recall.index.trouble,
run by memfiles.ops.doctor. Each is a Problem with the fix to run; `--fix` rebuilds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memfiles.format.layout import Paths, Scope
from memfiles.ops.doctor import Problem
from memfiles.store import gitrepo


def vector_caches(paths: Paths) -> list[Problem]:
    """Vector files (memfiles[semantic]) of this version that are corrupt or were not made on this machine."""
    from memfiles.recall import vectors

    found = []
    for scope in paths.scopes():
        for path in vectors.files_of(paths, scope):
            why = vectors.trouble(path) if vectors.is_current(path) else None
            if why:
                what = f"vector cache {why}: recall does not use it (`mem doctor --fix` rebuilds it)"
                found.append(Problem(paths.relative(path), what, _vectors_rebuilder(paths, scope, path)))
    return found


def _vectors_rebuilder(paths: Paths, scope: Scope, path: Path) -> Callable[[], str]:
    def rebuild() -> str:
        from memfiles.recall import embedder, vector_build, vectors

        vectors.remove(path)
        if embedder.available():
            try:
                model = embedder.load(cache=paths.cache)
            except embedder.ModelUnavailable as exc:
                return f"removed; not embedded again ({exc})"
            if vectors.path_of(paths, scope, model.id) == path:
                return f"rebuilt: {vector_build.rebuild(paths, scope, model)} episode(s) and fact(s) embedded"
        return "removed; the next reads embed again (or `mem doctor --reindex`)"

    return rebuild


def tracked_caches(paths: Paths) -> list[Problem]:
    """Cache files (recall indexes, vectors, model copies) that git tracks: pushed into `.cache/` by someone,
    so never this machine's; `--fix` removes them, commits their removal, and rebuilds the index."""
    root = paths.root
    cache = paths.relative(paths.cache)
    if not gitrepo.is_repo(root) or not gitrepo.tracked(root, cache):
        return []
    found = []
    for folder in (paths.cache / "index", paths.cache / "models"):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            relpath = paths.relative(path)
            if gitrepo.tracked(root, relpath):
                what = (
                    "a cache file git tracks: it came from a clone or a pull, not from this machine, so it is not "
                    "used (`mem doctor --fix` deletes it, commits the deletion and rebuilds the cache)"
                )
                found.append(Problem(relpath, what, _untracker(paths, path)))
    return found


def _untracker(paths: Paths, path: Path) -> Callable[[], str]:
    def untrack() -> str:
        from memfiles.recall import index

        relpath = paths.relative(path)
        path.unlink(missing_ok=True)
        gitrepo.commit_removal(
            paths.root, [relpath], f"mem: doctor removes a cache file git must never track\n\n{relpath}\n"
        )
        for scope in paths.scopes():
            if path == index.path_of(paths, scope):
                return f"removed from git and rebuilt from {index.rebuild(paths, scope)} episode file(s)"
        return "removed from git (rebuilt when next used)"

    return untrack


def model_copies(paths: Paths) -> list[Problem]:
    """Model files in `.cache/models/` this machine did not make (never loaded; `--fix` removes them)."""
    from memfiles.recall.embedder import copy_trouble

    folder = paths.cache / "models"
    found = []
    for path in sorted(folder.glob("*.onnx")) if folder.is_dir() else []:
        why = copy_trouble(path)
        if why:
            what = f"model copy {why}: it is never loaded (`mem doctor --fix` removes it; the next reindex makes one)"
            found.append(Problem(paths.relative(path), what, _model_remover(path)))
    return found


def _model_remover(path: Path) -> Callable[[], str]:
    def remove() -> str:
        path.unlink(missing_ok=True)
        path.with_name(path.name + ".sig").unlink(missing_ok=True)
        return "removed"

    return remove
