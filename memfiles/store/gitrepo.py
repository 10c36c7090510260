"""Everything memfiles does with git. The only module that runs git or imports gitpython.

Commits drive the git command line (fast at any repository size); gitpython is used where a
repository object is convenient and speed does not matter (init, history).
"""

from __future__ import annotations

import os
import stat
import subprocess
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memfiles.errors import GitError
from memfiles.store import gittree
from memfiles.store.faults import crash_point

FALLBACK_NAME = "mem"
FALLBACK_EMAIL = "mem@localhost"


def _run(
    root: Path,
    *args: str,
    env: dict[str, str] | None = None,
    check: bool = True,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    return _Running(root, *args, env=env, stdin=stdin).result(check)


_EARLY_INPUT = 16_384  # input written as a command starts, well under a pipe's 64 KiB


def _start(
    root: Path, args: tuple[str, ...], piped: bool, text: bool, env: dict[str, str] | None = None
) -> subprocess.Popen[Any]:
    """Start `git -C root ARGS` with its output (and, if `piped`, its input) as pipes."""
    try:
        return subprocess.Popen(
            ["git", "-C", str(root), *args],
            stdin=subprocess.PIPE if piped else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=text,
            env=env,
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH; memfiles needs git to keep history") from None


class _Running:
    """A git command started and not yet waited for: a commit runs two at once where one needs no
    other's output (the machine has cores to spare while git reads a 10,000-entry index)."""

    def __init__(
        self,
        root: Path,
        *args: str,
        env: dict[str, str] | None = None,
        stdin: str | None = None,
        later: bool = False,
    ):
        """`later`: the input comes later, from `feed`; git starts up meanwhile and waits for it."""
        self.root, self.args, self.stdin = root, args, stdin
        piped = stdin is not None or later
        self.process: subprocess.Popen[str] = _start(root, args, piped=piped, text=True, env=env)
        if stdin is not None and len(stdin) <= _EARLY_INPUT:
            self.feed(stdin)  # fits the pipe: the command starts on it at once

    def feed(self, text: str) -> None:
        """Give a command started with `later` (or small input) its whole input, without waiting for it."""
        if self.process.stdin:
            self.process.stdin.write(text)
            self.process.stdin.close()
        self.process.stdin = self.stdin = None  # communicate() then only reads

    def result(self, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Wait for the command (writing what is left of its input first); GitError if it failed and `check`."""
        out, err = self.process.communicate(self.stdin)
        result = subprocess.CompletedProcess(self.process.args, self.process.returncode, out, err)
        if check and result.returncode != 0:
            words = (err or out).strip().splitlines()
            raise GitError(f"git {' '.join(self.args[:2])} failed in {self.root}: {' '.join(words[-3:])}")
        return result


def identity_env(root: Path, asked: _Running | None = None) -> dict[str, str]:
    """The environment for a commit: the user's git identity, or `mem <mem@localhost>` when none is set.

    `asked`: the settings query from `_ask_settings`, started earlier (None: asked here, if need be).
    """
    env = dict(os.environ)
    names = _settings(root, asked)
    for var, key, fallback in (
        ("GIT_AUTHOR_NAME", "user.name", FALLBACK_NAME),
        ("GIT_AUTHOR_EMAIL", "user.email", FALLBACK_EMAIL),
    ):
        if key not in names and var not in env:
            env[var] = fallback
            env[var.replace("AUTHOR", "COMMITTER")] = fallback
    return env


_SETTINGS = ("config", "--get-regexp", r"^(user\.(name|email)|commit\.gpgsign|core\.(sharedrepository|filemode))$")
_settings_of: dict[Path, frozenset[str]] = {}  # asked once per process


def _ask_settings(root: Path) -> _Running | None:
    """Start asking git for the settings `_settings` reads (None when this process knows them)."""
    return None if root in _settings_of else _Running(root, *_SETTINGS)


def _settings(root: Path, asked: _Running | None = None) -> frozenset[str]:
    """Which of these the repository has: user.name, user.email, and (by its name) a setting that makes a
    commit take the porcelain way: commit.gpgsign true, core.sharedrepository set, core.filemode false."""
    if root not in _settings_of:
        found = (asked or _Running(root, *_SETTINGS)).result(check=False).stdout
        names = set()
        for line in found.splitlines():
            key, _, value = line.partition(" ")
            value = value.strip().lower()
            if key == "commit.gpgsign" and value not in _TRUE:
                continue
            if key == "core.sharedrepository" and value in ("", "umask", *_FALSE):
                continue
            if key == "core.filemode" and value not in _FALSE:
                continue
            names.add(key)
        _settings_of[root] = frozenset(names)
    elif asked is not None:
        asked.result(check=False)
    return _settings_of[root]


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_PORCELAIN = frozenset({"commit.gpgsign", "core.sharedrepository", "core.filemode"})


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
    folding episodes into digests) stays under the OS argument limit: paths go to git NUL-separated on
    stdin or in a file, the message on stdin. Paths are literal (no glob magic).

    The usual way costs the same at any home size. The index is staged for `paths` (so that git
    sees them unchanged), while the commit's tree is HEAD's with only `paths` changed: HEAD's trees
    along them are read, the new ones written (memfiles.store.gittree), and the commit made on them. So a
    person's own staged work stays staged and out of the commit. `git write-tree` would instead write
    the tree of a 10,000-user home's `users` folder from the index's 10,000 entries (25 ms), and
    `git commit PATH…` stats every tracked file more than once (0.1 s). A first commit, a signing
    setup, a shared repository, core.filemode false, or a path that is not a plain file on disk take
    the porcelain way, which commits only `paths` too.
    """
    wanted = sorted(set(paths))
    configured = _ask_settings(root)  # the identity and the settings that need the porcelain way
    staging = _Running(
        root, "update-index", "--add", "--remove", "-z", "--stdin", stdin="".join(f"{p}\0" for p in wanted)
    )
    files = _plain_files(root, wanted)
    present = [path for path, there in (files or {}).items() if there]
    hashing = _Running(root, "hash-object", "-w", "--stdin-paths", stdin="".join(f"{p}\n" for p in present))
    subject = message.splitlines()[0] if message.strip() else ""
    env = {**identity_env(root, configured), "GIT_LITERAL_PATHSPECS": "1"}
    moving = _Running(root, "update-ref", "-m", f"commit: {subject}", "--stdin", "-z", env=env, later=True)
    try:
        objects = _objects(root)
        head = _head_trees(root, _folders(wanted)) if files is not None and objects else None
        if head is None or objects is None or _settings(root) & _PORCELAIN:
            staging.result()
            return _commit_paths(root, paths, message, env)
        blobs = dict(zip(present, (bytes.fromhex(i) for i in hashing.result().stdout.split()), strict=True))
        tree = _new_tree(objects, head, {p: blobs.get(p) for p in wanted})
        if tree == head.tree:
            staging.result()
            return False
        made = _run(root, "commit-tree", tree.hex(), "-p", head.commit, "-F", "-", env=env, stdin=message)
        staging.result()  # the index names the new files before HEAD does
        crash_point("mid-commit")  # the commit object exists; HEAD does not name it yet
        moving.feed(f"update HEAD\0{made.stdout.strip()}\0{head.commit}\0")
        moving.result()
    finally:
        for waiting in (staging, hashing, moving):
            if waiting.process.returncode is None:
                waiting.feed("")  # no input (or no more): it exits having done nothing
                waiting.result(check=False)
    _maintain(root, env)
    return True


def _plain_files(root: Path, paths: list[str]) -> dict[str, bool] | None:
    """Which of `paths` are plain files on disk (True) and which are gone (False); None if one is anything
    else (a symbolic link, a folder, an executable), or cannot be named in git's line-based input."""
    found: dict[str, bool] = {}
    for path in paths:
        if "\n" in path or path.startswith(("/", "../")) or "/../" in path:
            return None
        try:
            mode = os.lstat(root / path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            found[path] = False
            continue
        if not stat.S_ISREG(mode) or mode & 0o111:
            return None
        found[path] = True
    return found


def _objects(root: Path) -> Path | None:
    """Where the commit's trees are written: the repository's own object folder (None: a `.git` file, as in
    a worktree, or git told by the environment to look elsewhere)."""
    if any(name in os.environ for name in ("GIT_DIR", "GIT_OBJECT_DIRECTORY", "GIT_INDEX_FILE")):
        return None
    objects = root / ".git" / "objects"
    return objects if objects.is_dir() else None


def _folders(paths: list[str]) -> list[str]:
    """Every folder holding one of `paths`, the top one ("") included."""
    folders = {""}
    for path in paths:
        parts = path.split("/")[:-1]
        folders.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    return sorted(folders)


@dataclass
class _Head:
    """HEAD's commit, its tree's raw id, and the trees of some folders: folder -> (raw id, bytes), None if absent."""

    commit: str
    tree: bytes
    trees: dict[str, tuple[bytes, bytes] | None]


def _head_trees(root: Path, folders: list[str]) -> _Head | None:
    """HEAD and its trees of `folders` (from one `git cat-file --batch`); None when HEAD does not exist yet,
    or a folder is something other than a tree there."""
    process: subprocess.Popen[bytes] = _start(root, ("cat-file", "--batch"), piped=True, text=False)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"HEAD\n")  # first HEAD, then the trees of the commit it names (whatever HEAD does)
    process.stdin.flush()
    header = process.stdout.readline().split()
    if len(header) != 3 or header[1] != b"commit":
        process.communicate(b"")
        return None
    commit, body = header[0].decode(), process.stdout.read(int(header[2]) + 1)
    tree = body.split(b"\n", 1)[0].removeprefix(b"tree ").decode()
    out, err = process.communicate("".join(f"{tree}:{f}\n" if f else f"{tree}\n" for f in folders).encode())
    if process.returncode != 0:
        raise GitError(f"git cat-file failed in {root}: {err.decode(errors='replace').strip()}")
    trees: dict[str, tuple[bytes, bytes] | None] = {}
    position = 0
    for folder in folders:
        end = out.index(b"\n", position)
        found = out[position:end].split()
        position = end + 1
        if found[-1] == b"missing":
            trees[folder] = None
            continue
        if found[1] != b"tree":
            return None
        size = int(found[2])
        trees[folder] = (bytes.fromhex(found[0].decode()), out[position : position + size])
        position += size + 1
    return _Head(commit, bytes.fromhex(tree), trees)


def _new_tree(objects: Path, head: _Head, files: dict[str, bytes | None]) -> bytes:
    """Write the trees of HEAD's with `files` (path -> new blob id, None: removed) and return the top one's id.

    Deepest folders first: each new tree's id goes into its parent's changes. A folder left empty is
    removed from its parent, as git never stores one.
    """
    id_size = len(head.tree)
    changes: dict[str, gittree.Changes] = {folder: {} for folder in head.trees}
    for path, blob in files.items():
        folder, _, name = path.rpartition("/")
        changes[folder][name.encode()] = None if blob is None else (gittree.FILE, blob)
    for folder in sorted(head.trees, key=lambda f: -f.count("/") - (f != "")):
        old = head.trees[folder]
        subfolders = {
            name: found[0]
            for name in changes[folder]
            if (found := head.trees.get(f"{folder}/{name.decode()}" if folder else name.decode())) is not None
        }
        data = gittree.change(old[1] if old else None, changes[folder], subfolders, id_size)
        if folder == "":
            return _store(objects, data, id_size) if old is None or data != old[1] else old[0]
        parent, _, name = folder.rpartition("/")
        if not data:
            changes[parent][name.encode()] = None
        elif old is None or data != old[1]:
            changes[parent][name.encode()] = (gittree.FOLDER, _store(objects, data, id_size))
    raise AssertionError("the top folder is always among the folders")


def _store(objects: Path, data: bytes, id_size: int) -> bytes:
    """Write a tree as a loose object (unless git has it) and return its raw id.

    Stored uncompressed: at 10,000 scopes the `users` tree is 330 kB, mostly object ids that zlib
    barely shrinks, and deflating it cost 8 ms of every commit. Loose objects are temporary: gc packs
    them with the usual compression.
    """
    found = gittree.object_id(b"tree", data, id_size)
    name = found.hex()
    target = objects / name[:2] / name[2:]
    if not target.exists():
        target.parent.mkdir(exist_ok=True)
        temporary = target.parent / f"tmp_obj_mem_{os.getpid()}"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o444)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(zlib.compress(b"tree %d\0%s" % (len(data), data), 0))
        os.replace(temporary, target)
    return found


def _maintain(root: Path, env: dict[str, str]) -> None:
    """Pack loose objects now and then, as `git commit` does (`git maintenance run --auto`).

    git itself decides by counting loose objects in `.git/objects/17` (gc.auto / 256 of them, 27 by
    default): looking there first saves starting a git process on every commit.
    """
    try:
        loose = len(os.listdir(root / ".git" / "objects" / "17"))
    except OSError:
        loose = 27  # not a plain repository layout: let git decide
    if loose >= 27:
        _run(root, "maintenance", "run", "--auto", "--quiet", env=env, check=False)


def _commit_paths(root: Path, paths: list[str], message: str, env: dict[str, str]) -> bool:
    """`git add` + `git commit --only PATH…`: commits exactly `paths` whatever else is staged."""
    import tempfile  # the porcelain way only: tempfile costs a millisecond on every write

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


# --- sync (issue 6): fetch, merge, push and the plumbing around them -------------------------------


def get_config(root: Path, key: str) -> str | None:
    """A git setting as this repository sees it, or None when unset."""
    found = _run(root, "config", "--get", key, check=False)
    return found.stdout.strip() if found.returncode == 0 else None


def remotes(root: Path) -> list[str]:
    """The names of the configured remotes, sorted."""
    return sorted(_run(root, "remote").stdout.split())


def current_branch(root: Path) -> str | None:
    """The checked-out branch's short name, or None on a detached HEAD."""
    found = _run(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    if found.returncode != 0:
        return None
    return found.stdout.strip() or None


def rev(root: Path, ref: str) -> str | None:
    """The commit `ref` names, or None when it does not exist (an unborn branch, a missing remote branch)."""
    found = _run(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    if found.returncode != 0:
        return None
    return found.stdout.strip() or None


def count(root: Path, since: str | None, until: str) -> int:
    """How many commits `until` has that `since` has not (all of `until`'s history when `since` is None)."""
    span = until if since is None else f"{since}..{until}"
    return int(_run(root, "rev-list", "--count", span).stdout.strip() or 0)


def merge_base(root: Path, a: str, b: str) -> str | None:
    """The best common ancestor of two commits, or None when their histories are unrelated."""
    found = _run(root, "merge-base", a, b, check=False)
    if found.returncode != 0:
        return None
    return found.stdout.strip() or None


def changed_since_base(root: Path, ours: str, theirs: str) -> list[str]:
    """Paths `theirs` changed since its common ancestor with `ours` (what merging it can touch)."""
    out = _run(root, "diff", "--name-only", "--no-renames", "-z", f"{ours}...{theirs}").stdout
    return sorted({p for p in out.split("\0") if p})


def attribute(root: Path, relpath: str, name: str) -> str | None:
    """The value .gitattributes gives attribute `name` for `relpath` (None when unspecified)."""
    out = _run(root, "check-attr", "-z", name, "--", relpath).stdout.split("\0")
    value = out[2] if len(out) > 2 else "unspecified"
    return None if value == "unspecified" else value


def upstream(root: Path, branch: str) -> str | None:
    """The remote a branch tracks (branch.<name>.remote), if any."""
    return get_config(root, f"branch.{branch}.remote")


def merge_in_progress(root: Path) -> bool:
    """Whether a merge was started and not yet committed (MERGE_HEAD exists)."""
    return rev(root, "MERGE_HEAD") is not None


def unmerged(root: Path) -> list[str]:
    """Paths a merge left in conflict."""
    out = _run(root, "diff", "--name-only", "--diff-filter=U", "-z").stdout
    return sorted({p for p in out.split("\0") if p})


def fetch(root: Path, remote: str) -> None:
    """Download the remote's branches into refs/remotes/<remote>/."""
    _run(root, "fetch", "--quiet", "--prune", remote)


def merge(root: Path, ref: str, message: str) -> tuple[bool, str]:
    """Merge `ref` into the current branch (configured merge drivers run); (clean, git's messages)."""
    # --ff overrides a user's merge.ff=only/false: fast-forward when possible, else a merge commit.
    result = _run(
        root,
        "merge",
        "--ff",
        "--no-edit",
        "--no-verify",
        "--no-stat",
        "-m",
        message,
        ref,
        env=identity_env(root),
        check=False,
    )
    return result.returncode == 0, (result.stdout + result.stderr).strip()


def merge_abort(root: Path) -> None:
    """Undo a merge that stopped with conflicts, restoring the state before it."""
    _run(root, "merge", "--abort")


def push(root: Path, remote: str, branch: str, set_upstream: bool) -> tuple[bool, str]:
    """Push the current branch to `remote`'s branch of the same name; (pushed, git's messages)."""
    args = ["push", "--quiet", "--porcelain"]
    if set_upstream:
        args.append("--set-upstream")
    result = _run(root, *args, remote, f"refs/heads/{branch}:refs/heads/{branch}", check=False)
    return result.returncode == 0, (result.stdout + result.stderr).strip()


def commit_everything(root: Path, message: str) -> bool:
    """Stage every change (untracked files included) and commit it; also concludes a resolved merge."""
    env = identity_env(root)
    _run(root, "add", "--all", env=env)
    if merge_in_progress(root):  # keep git's own merge message (it names the merged branch)
        _run(root, "commit", "--quiet", "--no-verify", "--no-edit", env=env)
        return True
    if _run(root, "diff", "--cached", "--quiet", check=False).returncode == 0:
        return False
    _run(root, "commit", "--quiet", "--no-verify", "-m", message, env=env)
    return True


def clone(url: str, path: Path) -> None:
    """Clone `url` into `path` (which must not exist or be empty)."""
    _run(Path.cwd(), "clone", "--quiet", "--", url, str(path))


def checkout_tracking(root: Path, remote: str, branch: str) -> None:
    """Create and check out `branch` tracking `remote`/`branch` (for a clone whose remote HEAD is unset)."""
    _run(root, "checkout", "--quiet", "-B", branch, "--track", f"{remote}/{branch}")


def remote_branches(root: Path, remote: str) -> list[str]:
    """The branch names fetched from `remote` (refs/remotes/<remote>/*, without HEAD)."""
    out = _run(root, "for-each-ref", "--format=%(refname)", f"refs/remotes/{remote}/").stdout
    prefix = f"refs/remotes/{remote}/"
    return sorted(name[len(prefix) :] for name in out.split() if name != prefix + "HEAD")


def merge_file(base: bytes, ours: bytes, theirs: bytes, labels: tuple[str, str, str]) -> tuple[bytes, bool]:
    """Git's own three-way text merge (`git merge-file`): (merged bytes, whether conflict markers were left)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="mem-merge-") as tmp:
        folder = Path(tmp)
        files = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            (folder / name).write_bytes(data)
            files.append(name)
        result = _run(folder, "merge-file", "-L", labels[0], "-L", labels[1], "-L", labels[2], *files, check=False)
        if result.returncode < 0 or result.returncode > 127:
            raise GitError(f"git merge-file failed: {(result.stderr or result.stdout).strip()}")
        return (folder / "ours").read_bytes(), result.returncode > 0


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
