"""Everything consolidation reads of one scope, at once: MEMORY.md, every episode file, every digest.

Episode files that do not parse are listed, never rewritten; each episode knows whether git has its
current bytes (a file with uncommitted changes is never folded away) and which DIGEST.md it belongs to.
An episode the guard holds back (memfiles.ops.quarantine) is left out: never applied, given to the
extractor or folded into a digest, until a person accepts it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memfiles.errors import MemError
from memfiles.format import episodes
from memfiles.format.episodes import Episode
from memfiles.format.layout import Paths, Scope
from memfiles.format.memoryfile import MemoryDoc
from memfiles.format.memoryfile import parse as parse_memory
from memfiles.ops.quarantine import withheld
from memfiles.store import gitrepo
from memfiles.store.files import read_memory

Progress = Callable[[int, int], None]  # (done, total), for a progress bar on long runs


@dataclass(slots=True)
class StoredEpisode:
    """One episode file as read: where it is, its bytes, the parsed episode, and where it would be digested."""

    path: Path
    relpath: str
    data: bytes
    episode: Episode
    uncommitted: bool  # the file differs from git's last commit (or is not in git): never folded away
    digest: Path
    digest_relpath: str


@dataclass(slots=True)
class ScopeFiles:
    """Everything consolidation reads of one scope: MEMORY.md, episode files and digests, with their sizes."""

    scope: Scope
    memory_path: Path
    memory_relpath: str
    memory: MemoryDoc
    memory_size: int
    episodes: list[StoredEpisode]
    digests: dict[str, tuple[Path, bytes]]  # home-relative path -> (path, bytes) of existing DIGEST.md files
    problems: list[MemError]  # episode files that did not parse or are held back: reported, never rewritten or folded
    unparsed_size: int = 0


def read(paths: Paths, scope: Scope, progress: Progress | None = None) -> ScopeFiles:
    """Read a scope's MEMORY.md, every episode file and every digest (episode files that do not parse are listed)."""
    memory_path = paths.memory_file(scope)
    try:
        raw = memory_path.read_bytes()
        memory = parse_memory(raw, paths.relative(memory_path), expected_scope=str(scope))
    except FileNotFoundError:
        raw, memory = b"", read_memory(paths, scope)
    files = paths.episode_files(scope)
    dirty = {path for _code, path in gitrepo.changed_files(paths.root)} if files else set()
    found: list[StoredEpisode] = []
    problems: list[MemError] = []
    unparsed = 0
    digests_of: dict[Path, tuple[Path, str]] = {}
    for number, path in enumerate(files, start=1):
        if progress is not None:
            progress(number, len(files))
        relpath = paths.relative(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            problems.append(MemError(f"{relpath}: cannot read: {exc.strerror}"))
            continue
        try:
            episode = episodes.parse(data, relpath, expected_scope=str(scope))
        except MemError as exc:
            problems.append(exc)
            unparsed += len(data)
            continue
        if withheld(episode):
            problems.append(MemError(f"{relpath}: episode {episode.id} is held back by the guard (see `mem review`)"))
            continue
        if path.parent not in digests_of:  # one check per month folder, not per file
            digest = paths.digest_file(path)
            digests_of[path.parent] = (digest, paths.relative(digest))
        digest, digest_relpath = digests_of[path.parent]
        found.append(StoredEpisode(path, relpath, data, episode, relpath in dirty, digest, digest_relpath))
    digests = {paths.relative(p): (p, p.read_bytes()) for p in paths.digest_files(scope)}
    return ScopeFiles(
        scope, memory_path, paths.relative(memory_path), memory, len(raw), found, digests, problems, unparsed
    )
