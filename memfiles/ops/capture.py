"""Writing a captured session (docs/FORMAT.md, "Capture"): one episode per session of a scope, replaced by
each later capture of that session, one commit each time.

The episode is validated exactly as `mem episode` validates one (memfiles.ops.record.validate_episode:
the allowed sources, the limits, the guard). The earlier capture of the same session is the episode
file of the scope with `source: capture` and the same `session`; the new episode takes its place (its
file name when the start is the same, else its own) and the old file is removed in the same commit. An
earlier capture with changes not committed (a person's edit) is never replaced: the capture is skipped.
The same transcript captured twice writes nothing (`exists`). Failures a hook cannot show a person go
to `.cache/capture.log`, which `mem doctor` reports.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from memfiles import clock
from memfiles.errors import MemError
from memfiles.format import episodes, layout
from memfiles.format.config import Config
from memfiles.format.episodes import Episode
from memfiles.format.layout import Paths, Scope
from memfiles.ops.commit import commit_or_undo, current, note_written, refuse_during_merge, refuse_hand_edits
from memfiles.ops.record import NewEpisode, hold, validate_episode
from memfiles.store import gitrepo
from memfiles.store.files import atomic_write, scope_lock

SOURCE = "capture"
LOG_NAME = "capture.log"
_LOG_KEEP = 200  # lines the log keeps (the newest)
LOG_LIMIT = 256 * 1024  # bytes past which the log is cut to its newest lines


@dataclass(slots=True)
class CaptureWrite:
    """What saving a capture did: `recorded` (new, or `replaced` earlier files), `quarantined`, or `exists`."""

    kind: Literal["recorded", "quarantined", "exists"]
    episode: Episode
    path: str
    replaced: list[str] = field(default_factory=list)


def save(paths: Paths, config: Config, scope: Scope, new: NewEpisode) -> CaptureWrite:
    """Validate and guard the captured episode, then write it in place of the session's earlier capture: one commit."""
    episode = validate_episode(new, config, scope)
    held = hold(episode, config)
    with scope_lock(paths, scope):
        refuse_during_merge(paths)
        earlier = earlier_captures(paths, scope, episode.session or "")
        if [old.id for _path, old in earlier] == [episode.id]:
            return CaptureWrite("exists", earlier[0][1], paths.relative(earlier[0][0]))
        # A hand edit of an earlier capture is in no commit: replacing it would lose it for good (HandEditError).
        refuse_hand_edits(paths, [path for path, _old in earlier], f"capturing session {episode.session} again")
        target = _target(paths, scope, episode, [path for path, _old in earlier])
        removed = [path for path, _old in earlier if path != target]
        relpath = paths.relative(target)
        before = {paths.relative(p): (p, current(p)) for p in [target, *removed]}
        atomic_write(target, episodes.serialize(episode))
        for path in removed:
            path.unlink(missing_ok=True)
        replaced = [paths.relative(path) for path, _old in earlier]
        commit_or_undo(paths, before, _message(scope, episode, relpath, replaced))
        note_written(paths, scope, list(before))
    return CaptureWrite("quarantined" if held else "recorded", episode, relpath, replaced)


def earlier_captures(paths: Paths, scope: Scope, session: str) -> list[tuple[Path, Episode]]:
    """The scope's episode files captured from `session` (`source: capture`), oldest first.

    Only the files whose bytes hold the session id (found by `git grep`) are parsed, so a scope of thousands of
    episodes costs no parse of each; a file that does not parse is left alone (mem doctor reports it).
    """
    folder = paths.episodes_dir(scope)
    if not session or not folder.is_dir():
        return []
    found = []
    for relpath in sorted(gitrepo.files_containing(paths.root, session, paths.relative(folder))):
        path = paths.root / relpath
        if path.parent.parent.parent != folder or not layout.is_episode_name(path.name):
            continue  # as Paths.episode_files: episodes/YYYY/MM/*.md only (git grep reads no link)
        try:
            episode = episodes.parse(path.read_bytes(), relpath, str(scope))
        except (OSError, MemError):
            continue
        if episode.session == session and episode.source == SOURCE:
            found.append((path, episode))
    return found


def _target(paths: Paths, scope: Scope, episode: Episode, earlier: list[Path]) -> Path:
    """The file for the new version: its own name, unless another episode holds it (`-2`, `-3`…)."""
    folder = paths.episode_month_dir(scope, clock.day(episode.started_at))
    attempt = 1
    while True:
        path = folder / episodes.file_name(episode, attempt)
        if path in earlier or (not path.exists() and not path.is_symlink()):
            return path
        attempt += 1


def _message(scope: Scope, episode: Episode, relpath: str, replaced: list[str]) -> str:
    title = f"mem: capture {scope} {episode.session or episode.id}"
    body = f"recorded {relpath}\n" + "".join(f"replaced {path}\n" for path in replaced)
    return title + "\n\n" + body


# --- the capture log: what a hook could not tell anyone ---


def log_path(paths: Paths) -> Path:
    return paths.cache / LOG_NAME


def log(paths: Paths, event: str, session: str, what: str) -> None:
    """Append one line (`time event session: what`, secrets masked) to `.cache/capture.log`; past LOG_LIMIT
    bytes it keeps the newest _LOG_KEEP lines. Never follows a link (a planted `.cache` or `capture.log`
    link would make the hook write anywhere), never waits on a FIFO, and never raises: the log is where
    errors go, and failing to write it must not become another error."""
    try:
        from memfiles.capture.secrets import mask

        entry = {"at": clock.iso(clock.now()), "event": event, "session": session, "what": what}
        line = json.dumps({k: mask(v)[0] for k, v in entry.items()}) + "\n"
        fd = _open_log(paths, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        if fd is None:
            return
        try:
            os.write(fd, line.encode("utf-8"))
            size = os.fstat(fd).st_size
            if size > LOG_LIMIT:
                kept = os.pread(fd, LOG_LIMIT, size - LOG_LIMIT).split(b"\n")[1:-1][-_LOG_KEEP:]
                os.ftruncate(fd, 0)
                os.write(fd, b"".join(k + b"\n" for k in kept))
        finally:
            os.close(fd)
    except Exception:  # documented never to raise: a hook must finish whatever the log does
        return


def _open_log(paths: Paths, flags: int) -> int | None:
    """The log opened with `flags` inside the home's real `.cache` folder, never through a link, or None when
    the folder or the file is anything but a real folder and a regular file of one name (or cannot be made)."""
    home = os.open(paths.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        if flags & os.O_CREAT:
            with contextlib.suppress(FileExistsError):
                os.mkdir(layout.CACHE_DIR, 0o755, dir_fd=home)
        folder = os.open(layout.CACHE_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=home)
    finally:
        os.close(home)
    try:
        fd = os.open(LOG_NAME, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644, dir_fd=folder)
    finally:
        os.close(folder)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:  # a FIFO, a device, or a hard link to another file
        os.close(fd)
        return None
    return fd


def logged(paths: Paths) -> list[dict[str, str]]:
    """The capture log's entries, oldest first (lines that are not entries are skipped)."""
    try:
        fd = _open_log(paths, os.O_RDONLY)
        if fd is None:
            return []
        try:
            size = os.fstat(fd).st_size
            text = os.pread(fd, LOG_LIMIT, max(0, size - LOG_LIMIT)).decode("utf-8", errors="replace")
        finally:
            os.close(fd)
    except OSError:
        return []
    entries = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict):
            entries.append({k: str(v) for k, v in entry.items()})
    return entries
