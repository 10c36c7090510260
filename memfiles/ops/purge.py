"""`mem forget ID --purge`: remove a fact's value from the working tree and from all of git history.

Every version of the scope's MEMORY.md in history is rewritten without the fact (parsed, the fact
dropped, written back; a version that does not parse gets the value masked as `[purged]`).
Unrelated facts, notes and episodes are kept. Then reflogs are expired and unreachable objects
pruned, so the local object store no longer holds the value. Clones and remotes are out of reach:
`PURGE_ADVICE` says what a person must do there.
"""

from __future__ import annotations

from collections.abc import Callable

from memfiles.errors import MemError
from memfiles.format.layout import Paths, Scope
from memfiles.format.memoryfile import parse, serialize
from memfiles.format.model import Fact
from memfiles.ops.writepath import forget
from memfiles.store import gitrepo
from memfiles.store.files import git_lock, scope_lock

PURGED = b"[purged]"
PURGE_ADVICE = (
    "History of this home was rewritten. Clones and remotes still hold the value: force-push "
    "(`git -C HOME push --force --all`), have every other machine re-clone (`mem init --clone`), "
    "and ask hosted remotes to run garbage collection; backups are out of mem's reach."
)


def scrubber(scope: Scope, facts: list[Fact]) -> Callable[[bytes], bytes]:
    """A blob transform for versions of the scope's MEMORY.md: drop the facts by id.

    A version that holds one of the ids but does not parse gets the values masked as `[purged]`.
    Blobs without the ids are left alone: purge removes the fact, not other text that happens to
    contain the same words (find those with `git grep`).
    """
    ids = [f.id.encode() for f in facts]
    values = sorted({f.value.encode("utf-8") for f in facts if f.value}, key=len, reverse=True)
    drop = {f.id for f in facts}

    def scrub(blob: bytes) -> bytes:
        if not any(i in blob for i in ids):
            return blob
        try:
            doc = parse(blob, "MEMORY.md", None)
        except MemError:
            doc = None
        if doc is not None and doc.scope in ("", str(scope)):
            doc.facts = [f for f in doc.facts if f.id not in drop]
            return serialize(doc)
        for value in values:
            blob = blob.replace(value, PURGED)
        return blob

    return scrub


def purge(paths: Paths, scope: Scope, target: str) -> tuple[list[Fact], int]:
    """Forget `target` (id or key) and erase it from history; returns the facts and the blobs rewritten."""
    if gitrepo.changed_files(paths.root):
        raise MemError("the home has uncommitted changes; commit or discard them (see `mem doctor`) before --purge")
    gone = forget(paths, scope, target)
    with scope_lock(paths, scope), git_lock(paths):
        stream, changed = rewrite_blobs(gitrepo.export_history(paths.root), scrubber(scope, gone))
        gitrepo.import_history(paths.root, stream)
        gitrepo.purge_unreachable(paths.root)
    return gone, changed


def rewrite_blobs(stream: bytes, transform: Callable[[bytes], bytes]) -> tuple[bytes, int]:
    """A `git fast-export` stream with every blob passed through `transform`, and how many blobs changed.

    Commits whose trees are unchanged keep their content; their ids change only where an ancestor changed.
    """
    out: list[bytes] = []
    changed = 0
    position = 0
    in_blob = False
    while position < len(stream):
        end = stream.find(b"\n", position)
        end = len(stream) if end < 0 else end
        line = stream[position:end]
        position = end + 1
        if line == b"blob":
            in_blob = True
        if line.startswith(b"data "):
            size = int(line[5:])
            payload = stream[position : position + size]
            position += size
            if in_blob:
                new = transform(payload)
                changed += new != payload
                payload = new
                in_blob = False
            out.append(b"data %d\n" % len(payload) + payload)
            continue
        out.append(line + b"\n")
    return b"".join(out), changed
