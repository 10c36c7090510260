"""Browsing a scope's episodes a page at a time, its monthly digests, and a home's files as text (for viewers
such as `mem ui`): listing only, nothing is written, git is not started.

A month's page opens only the files on that page, so a scope of 10,000 episodes is browsed as fast as one
of ten; what does not parse is reported with the page (`problems`), not raised.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from memfiles.api.models import EpisodeFile
from memfiles.errors import FileFormatError, NotFoundError, ScopeError
from memfiles.format import digest, episodes
from memfiles.format.episodes import Episode
from memfiles.format.layout import DIGEST_NAME, is_episode_name

if TYPE_CHECKING:
    from memfiles.format.layout import Paths, Scope

_FROZEN = ConfigDict(extra="forbid", defer_build=True, frozen=True)
PAGE = 50


class EpisodeMonth(BaseModel):
    """One month folder of a scope: `month` ("YYYY-MM"), how many episode files it holds, whether it has a digest."""

    model_config = _FROZEN

    month: str
    episodes: int
    digest: bool


class ListedEpisode(BaseModel):
    """An episode file on a page: its path in the home and the parsed episode."""

    model_config = _FROZEN

    path: str
    episode: Episode


class EpisodePage(BaseModel):
    """One page of a month's episodes, newest first: `total` files that month, the `items` from `offset`."""

    model_config = _FROZEN

    month: str
    offset: int
    limit: int
    total: int
    items: list[ListedEpisode]
    problems: list[str]  # files on this page that did not parse, as `path:line: what`


class DigestEntry(BaseModel):
    """One folded episode as its month's DIGEST.md records it."""

    model_config = _FROZEN

    date: str
    session: str | None
    outcome: str
    summary: str
    id: str
    file: str


class Digest(BaseModel):
    """A month's DIGEST.md: its path and entries (what `mem consolidate` left of older episodes)."""

    model_config = _FROZEN

    month: str
    path: str
    entries: list[DigestEntry]


def months(paths: Paths, scope: Scope, only: str | None = None) -> list[EpisodeMonth]:
    """The scope's month folders (or only the month `only`), newest first, with their episode counts."""
    found = []
    for stamp, folder in reversed(paths.episode_months(scope, only, only)):
        with os.scandir(folder) as entries:  # counted by name, as episode_files lists them, without a Path each
            count = sum(1 for e in entries if is_episode_name(e.name) and e.is_file(follow_symlinks=False))
        found.append(EpisodeMonth(month=stamp, episodes=count, digest=(folder / DIGEST_NAME).is_file()))
    return found


def find_in_month(paths: Paths, scope: Scope, episode_id: str, month: str) -> EpisodeFile | None:
    """The episode `episode_id` among one month's files (None: not there), opening only files that name it."""
    needle = episode_id.encode()
    for path in paths.episode_files(scope, month, month):
        data = path.read_bytes()
        if needle not in data:
            continue
        relpath = paths.relative(path)
        try:
            episode = episodes.parse(data, relpath, str(scope))
        except FileFormatError:
            continue
        if episode.id == episode_id:
            return EpisodeFile(path=relpath, episode=episode, text=data.decode("utf-8", errors="replace"))
    return None


def page(paths: Paths, scope: Scope, month: str, offset: int = 0, limit: int = PAGE) -> EpisodePage:
    """A page of one month's episodes, newest first; only the files on the page are opened."""
    if offset < 0 or limit < 1:
        raise ValueError("offset must be >= 0 and limit >= 1")
    files = list(reversed(paths.episode_files(scope, month, month)))
    items: list[ListedEpisode] = []
    problems: list[str] = []
    for path in files[offset : offset + limit]:
        relpath = paths.relative(path)
        try:
            items.append(ListedEpisode(path=relpath, episode=episodes.parse(path.read_bytes(), relpath, str(scope))))
        except FileFormatError as exc:
            problems.append(str(exc))
        except OSError as exc:
            problems.append(f"{relpath}: cannot read: {exc.strerror}")
    return EpisodePage(month=month, offset=offset, limit=limit, total=len(files), items=items, problems=problems)


def digests(paths: Paths, scope: Scope) -> list[Digest]:
    """The scope's monthly digests, newest first."""
    found = []
    for path in reversed(paths.digest_files(scope)):
        month = f"{path.parent.parent.name}-{path.parent.name}"
        entries = [DigestEntry.model_validate(e, from_attributes=True) for e in digest.entries(path.read_bytes())]
        found.append(Digest(month=month, path=paths.relative(path), entries=entries))
    return found


def memory_stamp(paths: Paths, scope: Scope) -> tuple[int, int, int]:
    """(inode, size, mtime in ns) of the scope's MEMORY.md, (0, 0, 0) without one: a value that changes with
    every write (an atomic replace is a new inode) and every hand edit."""
    try:
        found = paths.memory_file(scope).stat()
    except FileNotFoundError:
        return (0, 0, 0)
    return (found.st_ino, found.st_size, found.st_mtime_ns)


def read_text(paths: Paths, relpath: str) -> str:
    """A file of the home as text, by its path relative to the home: never one in .git/ or .cache/, never
    one reached through a link, never one outside the home."""
    parts = relpath.replace("\\", "/").split("/")
    hidden = parts[0] in (".git", ".cache")
    if not relpath or relpath.startswith("/") or hidden or any(p in ("", ".", "..") for p in parts):
        raise ScopeError(f"{relpath!r} is not a path of a file in the memory home")
    path = paths.root.joinpath(*parts)
    real_root = os.path.realpath(paths.root)
    if os.path.realpath(path) != os.path.join(real_root, *parts) or not path.is_file():
        raise NotFoundError(f"no file {relpath!r} in the memory home {paths.root} (links are not followed)")
    return path.read_bytes().decode("utf-8", errors="replace")
