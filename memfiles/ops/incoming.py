"""What `mem sync` and `mem init --clone` take from a remote (docs/SECURITY.md): nothing a remote may never change.

A remote is anyone who can push to it. Before a merge, and over a fresh clone's tree, these checks refuse —
naming each path — anything under `.cache/` (this machine's locks and caches), a `mem.local.toml` (its own
settings), a link or submodule, a `.gitattributes` that names a program or stops routing MEMORY.md to the
`mem` merge driver, and a MEMORY.md that does not parse; after a merge, before its commit, every MEMORY.md
it touched is parsed again.
"""

from __future__ import annotations

import fnmatch

from memfiles.errors import MemError
from memfiles.format import layout
from memfiles.format.layout import Paths
from memfiles.store import gitrepo


def expected_scope(relpath: str) -> str | None:
    """The scope a MEMORY.md path names (`users/alice/MEMORY.md` -> user:alice), if it is a scope's own."""
    scope = layout.scope_from_relpath(relpath)
    if scope is None or relpath != f"{scope.relpath}/{layout.MEMORY_NAME}":
        return None
    return str(scope)


_DRIVER_ATTRIBUTES = ("filter", "diff", "merge")  # each names a program from git's config when given a value


def check(paths: Paths, where: str, theirs: str) -> None:
    """Refuse, before merging, what a remote must never change in a home: anything under `.cache/` (this
    machine's locks and caches), `mem.local.toml` (its own settings), a link or submodule anywhere, a
    `.gitattributes` that names a filter, diff or merge program or stops routing MEMORY.md to `mem`, and a
    MEMORY.md that does not parse (a fast-forward would take it as it is)."""
    root = paths.root
    refused = forbidden(paths, gitrepo.incoming(root, "HEAD", theirs), theirs)
    if refused:
        raise MemError(
            f"refusing to merge {where}: it changes what a remote never may in a memory home: {'; '.join(refused)}. "
            f"Nothing was merged and {root} is as it was; whoever pushed this should undo it on the remote "
            f"(remove the path, e.g. git rm --cached PATH, or fix the file, then push)"
        )


def forbidden(paths: Paths, entries: list[tuple[str, str]], commit: str) -> list[str]:
    """Which of `entries` ((mode, path) as `commit` has them) a remote may never bring, each with the reason."""
    from memfiles.format.memoryfile import parse

    root = paths.root
    refused: list[str] = []
    for mode, relpath in entries:
        name = relpath.rsplit("/", 1)[-1]
        if relpath.split("/", 1)[0] == layout.CACHE_DIR:
            refused.append(f"{relpath} (under {layout.CACHE_DIR}/, this machine's locks and caches)")
        elif name == layout.LOCAL_CONFIG_NAME:
            refused.append(f"{relpath} (this machine's own settings)")
        elif mode in ("120000", "160000"):
            refused.append(f"{relpath} (a {'symbolic link' if mode == '120000' else 'submodule'})")
        elif name == ".gitattributes":
            problem = _attributes_problem(relpath, gitrepo.blob(root, commit, relpath))
            if problem:
                refused.append(f"{relpath} ({problem})")
        elif name == layout.MEMORY_NAME and mode != "000000":
            data = gitrepo.blob(root, commit, relpath) or b""
            try:
                parse(data, relpath, expected_scope(relpath))
            except MemError as exc:
                refused.append(f"{relpath} (does not parse: {exc})")
    return refused


def _attributes_problem(relpath: str, data: bytes | None) -> str | None:
    """Why an incoming `.gitattributes` is refused, or None: one below the top, one naming a filter, diff or
    merge program (or defining a macro), one after which MEMORY.md no longer merges with `mem`."""
    if relpath != ".gitattributes":
        return "a .gitattributes below the top of the home"
    routed = None
    for raw in (data or b"").decode("utf-8", "replace").splitlines():
        fields = raw.split()
        if not fields or fields[0].startswith("#"):
            continue
        if fields[0].startswith("[attr]"):
            return f"defines an attribute macro: {raw.strip()}"
        pattern, attributes = fields[0], fields[1:]
        for attribute in attributes:
            name, _, value = attribute.lstrip("-!").partition("=")
            if name in _DRIVER_ATTRIBUTES and value and attribute != "merge=mem":
                return f"names a {name} program: {raw.strip()}"
        if _matches_memory(pattern):
            for attribute in attributes:
                if attribute == "merge=mem":
                    routed = True
                elif attribute in ("binary", "-merge", "!merge", "merge") or attribute.startswith("merge="):
                    routed = False
    return None if routed else f"MEMORY.md would no longer merge with `mem` (the line `{layout.MEMORY_NAME} merge=mem`)"


def _matches_memory(pattern: str) -> bool:
    """Whether a .gitattributes pattern matches a MEMORY.md file (the one a scope holds, or any)."""
    sample = f"users/example/{layout.MEMORY_NAME}"
    pattern = pattern.removeprefix("/")
    if "/" not in pattern:
        return fnmatch.fnmatchcase(layout.MEMORY_NAME, pattern)
    return fnmatch.fnmatchcase(sample, pattern.replace("**/", "*/").replace("/**", "/*")) or pattern == "**"


def check_merged(paths: Paths, where: str, touched: list[str]) -> None:
    """Parse every MEMORY.md the merge changed before it is committed (and pushed); undo the merge if one fails."""
    from memfiles.format.memoryfile import parse

    for relpath in touched:
        path = paths.root / relpath
        if path.name != layout.MEMORY_NAME or not path.is_file() or path.is_symlink():
            continue
        try:
            parse(path.read_bytes(), relpath, expected_scope(relpath))
        except MemError as exc:
            gitrepo.merge_abort(paths.root)
            raise MemError(
                f"merging {where} made a MEMORY.md that does not parse ({exc}); the merge was undone, nothing "
                "was committed or pushed"
            ) from None
