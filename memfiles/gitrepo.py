"""Everything memfiles does with git. The only module that runs git or imports gitpython.

Commits drive the git command line (fast at any repository size); gitpython is used where a
repository object is convenient and speed does not matter (init, history).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from memfiles.errors import GitError
from memfiles.faults import crash_point

FALLBACK_NAME = "mem"
FALLBACK_EMAIL = "mem@localhost"


def _run(
    root: Path, *args: str, env: dict[str, str] | None = None, check: bool = True, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    try:
        result = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            env=env,
            input=stdin,
            stdin=subprocess.DEVNULL if stdin is None else None,
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH; memfiles needs git to keep history") from None
    if check and result.returncode != 0:
        words = (result.stderr or result.stdout).strip().splitlines()
        raise GitError(f"git {' '.join(args[:2])} failed in {root}: {' '.join(words[-3:])}")
    return result


def identity_env(root: Path) -> dict[str, str]:
    """The environment for a commit: the user's git identity, or `mem <mem@localhost>` when none is set."""
    env = dict(os.environ)
    found = _run(root, "config", "--get-regexp", r"^user\.(name|email)$", check=False).stdout
    names = {line.split(" ", 1)[0] for line in found.splitlines()}
    for var, key, fallback in (
        ("GIT_AUTHOR_NAME", "user.name", FALLBACK_NAME),
        ("GIT_AUTHOR_EMAIL", "user.email", FALLBACK_EMAIL),
    ):
        if key not in names and var not in env:
            env[var] = fallback
            env[var.replace("AUTHOR", "COMMITTER")] = fallback
    return env


def is_repo(root: Path) -> bool:
    """Whether `root` is the top of a git work tree."""
    return (root / ".git").exists()


def init(root: Path, files: list[str], message: str) -> None:
    """Make `root` a git repository (if it is not one) and commit `files` as the first commit."""
    import git  # gitpython: only here, only when a home is created

    if not is_repo(root):
        git.Repo.init(root)
    commit(root, files, message)


def set_config(root: Path, key: str, value: str) -> None:
    """Set a repository-local git setting."""
    _run(root, "config", key, value)


def commit(root: Path, paths: list[str], message: str) -> bool:
    """Commit exactly `paths` (additions, changes and deletions) with `message`; False if nothing changed.

    Paths and message never go on the command line, so a commit of thousands of files (consolidation
    folding episodes into digests) stays under the OS argument limit: the paths are read from a
    NUL-separated file, the message from stdin. Paths are literal (no glob magic).
    """
    env = {**identity_env(root), "GIT_LITERAL_PATHSPECS": "1"}
    fd, listing = tempfile.mkstemp(prefix="mem-pathspec-", suffix=".txt")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("".join(f"{path}\0" for path in paths))
        spec = (f"--pathspec-from-file={listing}", "--pathspec-file-nul")
        _run(root, "add", "--all", *spec, env=env)
        staged = _run(root, "diff", "--cached", "--name-only", "--no-renames", "-z", env=env).stdout.split("\0")
        if not set(staged) & set(paths):
            return False
        crash_point("mid-commit")
        _run(root, "commit", "--quiet", "--no-verify", "--file=-", *spec, env=env, stdin=message)
    finally:
        os.unlink(listing)
    return True


def log(root: Path, path: str | None = None, limit: int = 50) -> list[dict[str, str]]:
    """Recent commits (newest first), optionally only those touching `path`."""
    import git

    repo = git.Repo(root)
    out = []
    for item in repo.iter_commits(paths=path, max_count=limit) if path else repo.iter_commits(max_count=limit):
        out.append(
            {
                "commit": item.hexsha,
                "date": item.committed_datetime.isoformat(),
                "author": f"{item.author.name} <{item.author.email}>",
                "message": str(item.message).strip(),
            }
        )
    return out


def changed_files(root: Path) -> list[tuple[str, str]]:
    """Uncommitted changes as (two-letter status, path), untracked files included, ignored ones not."""
    out = _run(root, "status", "--porcelain=v1", "-z", "--untracked-files=all").stdout
    entries = out.split("\0")
    changes: list[tuple[str, str]] = []
    index = 0
    while index < len(entries):
        entry = entries[index]
        index += 1
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        if code[0] in "RC":  # a rename carries its source path as the next entry
            index += 1
        changes.append((code, path))
    return changes


def restore(root: Path, relpath: str) -> None:
    """Put a file back as it is in HEAD (or remove it when HEAD does not have it)."""
    known = _run(root, "cat-file", "-e", f"HEAD:{relpath}", check=False).returncode == 0
    _run(root, "reset", "--quiet", "--", relpath, check=False)
    if known:
        _run(root, "checkout", "HEAD", "--", relpath)
    else:
        (root / relpath).unlink(missing_ok=True)


def fsck(root: Path) -> str | None:
    """git's own consistency check; None when clean, else its complaint."""
    result = _run(root, "fsck", "--full", "--no-dangling", check=False)
    if result.returncode == 0 and not result.stdout.strip():
        return None
    return (
        (result.stderr or result.stdout).strip().splitlines()[0]
        if (result.stderr or result.stdout).strip()
        else "failed"
    )


def index_lock(root: Path) -> Path:
    """Where git keeps its index lock (left behind when a git process is killed mid-commit)."""
    return root / ".git" / "index.lock"


def rewrite_blobs(root: Path, transform: Callable[[bytes], bytes]) -> int:
    """Rewrite every blob in every commit of every ref through `transform` (git fast-export | fast-import).

    Returns how many blobs changed. Commits whose trees are unchanged keep their content; their ids
    change only where an ancestor changed. Old objects stay in the object store until `purge_unreachable`.
    """
    exported = subprocess.run(
        ["git", "-C", str(root), "fast-export", "--all", "--signed-tags=strip", "--reencode=yes"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    if exported.returncode != 0:
        raise GitError(f"git fast-export failed in {root}: {exported.stderr.decode(errors='replace').strip()}")
    stream, changed = _transform_stream(exported.stdout, transform)
    imported = subprocess.run(
        ["git", "-C", str(root), "fast-import", "--force", "--quiet"], input=stream, capture_output=True
    )
    if imported.returncode != 0:
        raise GitError(f"git fast-import failed in {root}: {imported.stderr.decode(errors='replace').strip()}")
    _run(root, "reset", "--quiet")  # the index follows the rewritten HEAD; the working tree is untouched
    return changed


def _transform_stream(data: bytes, transform: Callable[[bytes], bytes]) -> tuple[bytes, int]:
    out: list[bytes] = []
    changed = 0
    position = 0
    in_blob = False
    while position < len(data):
        end = data.find(b"\n", position)
        end = len(data) if end < 0 else end
        line = data[position:end]
        position = end + 1
        if line == b"blob":
            in_blob = True
        if line.startswith(b"data "):
            size = int(line[5:])
            payload = data[position : position + size]
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


def purge_unreachable(root: Path) -> None:
    """Drop every object no ref reaches any more (reflogs expired, then gc with immediate prune)."""
    _run(root, "reflog", "expire", "--expire=now", "--all")
    _run(root, "gc", "--quiet", "--prune=now")


def all_objects_text(root: Path) -> bytes:
    """The content of every object in the store (reachable or not), for purge checks."""
    listed = _run(root, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").stdout.split()
    result = subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch"], input="\n".join(listed).encode() + b"\n", capture_output=True
    )
    return result.stdout


def removed_file(root: Path, relpath: str) -> tuple[str, bytes] | None:
    """The last committed version of a file that a later commit removed: (removing commit, bytes), or None."""
    found = _run(root, "log", "-1", "--format=%H", "--diff-filter=D", "--", relpath, check=False).stdout.strip()
    if not found:
        return None
    shown = subprocess.run(
        ["git", "-C", str(root), "cat-file", "blob", f"{found}^:{relpath}"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    if shown.returncode != 0:
        raise GitError(f"git cat-file failed for {relpath} before {found[:10]}: {shown.stderr.decode().strip()}")
    return found, shown.stdout
