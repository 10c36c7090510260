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

import json
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
    """Append one line (`time event session: what`) to `.cache/capture.log`; keeps the newest lines. Never raises."""
    line = json.dumps({"at": clock.iso(clock.now()), "event": event, "session": session, "what": what})
    path = log_path(paths)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")
        if path.stat().st_size > 256 * 1024:
            kept = path.read_text(encoding="utf-8", errors="replace").splitlines()[-_LOG_KEEP:]
            atomic_write(path, ("\n".join(kept) + "\n").encode("utf-8"))
    except OSError:
        pass  # the log is where errors go; failing to write it must not become another error


def logged(paths: Paths) -> list[dict[str, str]]:
    """The capture log's entries, oldest first (lines that are not entries are skipped)."""
    try:
        text = log_path(paths).read_text(encoding="utf-8", errors="replace")
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
