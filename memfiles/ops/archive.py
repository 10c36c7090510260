"""Finding an episode wherever it is: its file in the scope's folder or, once consolidation folded it
into a digest, the last version git holds of that file (FORMAT.md, "Digests"). Nothing is lost.

Only the scope's own files are read; git is asked only when the episode is not in the working tree.
"""

from __future__ import annotations

from dataclasses import dataclass

from memfiles.errors import MemError, NotFoundError, UsageError
from memfiles.format import digest, episodes
from memfiles.format.episodes import Episode
from memfiles.format.layout import Paths, Scope


@dataclass(slots=True)
class Found:
    """An episode's original file: where it was, its bytes, and the commit that removed it (None: still there)."""

    relpath: str
    data: bytes
    episode: Episode | None  # None when the file no longer parses (its bytes are still shown)
    removed_by: str | None = None
    digest: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.relpath,
            "removed_by": self.removed_by,
            "digest": self.digest,
            "episode": self.episode.to_dict() if self.episode else None,
            "text": self.data.decode("utf-8", errors="replace"),
        }


def find(paths: Paths, scope: Scope, episode_id: str) -> Found:
    """The original file of episode `episode_id` of `scope`, from the working tree or from git history."""
    if not episodes.ID_PATTERN.fullmatch(episode_id):
        raise UsageError(f"{episode_id!r} is not an episode id: e- and 12 hex digits (see `mem recall --format json`)")
    needle = episode_id.encode()
    for path in paths.episode_files(scope):
        data = path.read_bytes()
        if needle in data:
            parsed = _parse(data, paths.relative(path), scope)
            if parsed is not None and parsed.id == episode_id:
                return Found(paths.relative(path), data, parsed)
    for path in paths.digest_files(scope):
        for entry in digest.entries(path.read_bytes()):
            if entry.id == episode_id:
                return _from_history(paths, scope, entry, paths.relative(path))
    raise NotFoundError(f"no episode {episode_id} in {scope}: not among its episode files nor in a digest")


def _from_history(paths: Paths, scope: Scope, entry: digest.Entry, digest_relpath: str) -> Found:
    from memfiles.store import gitrepo  # only when the file is gone: reading the working tree needs no git

    relpath = digest_relpath.rsplit("/", 1)[0] + "/" + entry.file
    found = gitrepo.removed_file(paths.root, relpath)
    if found is None:
        raise NotFoundError(
            f"{digest_relpath} lists {entry.id} as {entry.file}, but git history has no removed file at {relpath}"
        )
    commit, data = found
    return Found(relpath, data, _parse(data, relpath, scope), commit, digest_relpath)


def _parse(data: bytes, relpath: str, scope: Scope) -> Episode | None:
    try:
        return episodes.parse(data, relpath, expected_scope=str(scope))
    except MemError:
        return None
