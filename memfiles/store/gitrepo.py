"""Everything memfiles does with git: the only module that runs git or imports GitPython.

Every command is git's own command line run through GitPython (`git.Git(root).<command>(…)`), so git
writes its own objects, honours the user's settings (identity, filters, shared repositories) and runs its
own maintenance after a commit. GitPython is imported on first use, in `_gitpython`: the read-only
commands (recall, render, lint, show) import modules that import this one, and must never load git.

A home's content arrives from elsewhere (a remote, a clone, a project's `.mem/`), so no git call lets it
choose what runs (docs/SECURITY.md): every call names the repository (`--git-dir=<root>/.git
--work-tree=<root>`, `<root>/.git` a real folder, never a link or a `gitdir:` file, and never the folder
itself taken as a git directory), overrides the GIT_DIR-like variables a git hook exports, and runs with
`_SAFE_CONFIG`: no hooks (`--no-verify` skips only two of them), no fsmonitor command, no signing program,
no `ext::` transport, and the MEMORY.md merge driver pinned to `mem merge-driver`.
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import IO, TYPE_CHECKING

from memfiles.errors import GitError
from memfiles.store.faults import crash_point

if TYPE_CHECKING:
    import git

FALLBACK_NAME = "mem"
FALLBACK_EMAIL = "mem@localhost"
_NO_GIT = "git is not installed or not on PATH; memfiles needs git to keep a home's history"
_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}  # a path is a name, never a glob
# the given paths alone; no hooks (mem's own commits); the message exactly as written
_COMMIT_ONLY = ("--only", "--quiet", "--no-verify", "--cleanup=verbatim")
_PATHS_PER_CALL = 200
MERGE_DRIVER = "mem merge-driver %O %A %B %P"
MERGE_DRIVER_NAME = "memfiles fact-aware MEMORY.md merge"
# `git -c` settings on every call (git help config): what would otherwise run a program a home's content,
# or a folder shaped like a git directory, could name.
_SAFE_CONFIG = (
    "core.hooksPath=/dev/null",  # no hook at all (pre-commit, post-commit, post-merge, reference-transaction…)
    "core.fsmonitor=false",  # no fsmonitor hook command
    "commit.gpgSign=false",  # no signing program (gpg.program) on mem's commits and merges
    "tag.gpgSign=false",
    "push.gpgSign=false",
    "protocol.ext.allow=never",  # no `ext::COMMAND` remote
    "core.pager=cat",
    "core.editor=true",
    "sequence.editor=true",
    f"merge.mem.name={MERGE_DRIVER_NAME}",
    f"merge.mem.driver={MERGE_DRIVER}",  # whatever .git/config says: MEMORY.md merges with mem
)
# What a git hook exports to its children (and what would point git elsewhere), named again for the home.
_REPOSITORY_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR")


def _gitpython() -> ModuleType:
    """GitPython, imported here and nowhere else (it runs `git version` as it loads)."""
    try:
        import git
    except ImportError as exc:
        import shutil

        if shutil.which("git") is None:
            raise GitError(_NO_GIT) from None
        raise GitError(f"GitPython could not be loaded: {' '.join(str(exc).split())}") from None
    return git


def git_dir(root: Path) -> Path:
    """`root`'s own git folder, `<root>/.git`: GitError unless it is a real folder (not a link, not a file).

    A `.git` link or `gitdir:` file would let the home's content choose the repository git opens, and
    a folder shaped like a git directory (HEAD, objects/, refs/, config) is never taken as one.
    """
    folder = root / ".git"
    try:
        mode = os.lstat(folder).st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise GitError(f"{root} is not a git repository; create a memory home there with `mem init`") from None
    if not stat.S_ISDIR(mode):
        what = "a link" if stat.S_ISLNK(mode) else "not a folder"
        raise GitError(
            f"{folder} is {what}: a memory home keeps its own git folder in {folder}, and memfiles runs git in "
            f"no other; make the home a repository of its own (mem init NEW_PATH, then copy its files over)"
        )
    return folder


def _environment(root: Path | None) -> dict[str, str]:
    """The variables every git call gets: the repository named again (a hook's GIT_DIR… never leaks in), and
    no `-c` settings or GIT_CONFIG_COUNT pairs inherited from a calling git."""
    env = {"GIT_CONFIG_PARAMETERS": "", "GIT_CONFIG_COUNT": "0", "GIT_ALTERNATE_OBJECT_DIRECTORIES": ""}
    if root is None:
        return env
    folder = str(root / ".git")
    paths = (folder, str(root), os.path.join(folder, "index"), os.path.join(folder, "objects"), folder)
    return {**env, **dict(zip(_REPOSITORY_VARIABLES, paths, strict=True))}


def _runner(root: Path | None, where: Path | None = None) -> git.Git:
    """A GitPython command runner for the repository at `root` (None: no repository, e.g. `git clone`)."""
    library = _gitpython()
    runner: git.Git = library.Git(where or root)
    options: dict[str, object] = {"c": list(_SAFE_CONFIG)}
    if root is not None:
        options = {"git_dir": str(git_dir(root)), "work_tree": str(root), **options}
    runner.set_persistent_git_options(**options)
    runner.update_environment(**_environment(root))
    return runner


@dataclass(frozen=True, slots=True)
class _Done:
    """A finished git command: its exit status and what it printed (`raw`: the bytes, when asked for)."""

    status: int
    out: str
    err: str
    raw: bytes = b""


def _call(
    runner: git.Git,
    where: Path,
    command: str,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: IO[bytes] | None = None,
    check: bool = True,
    binary: bool = False,
) -> _Done:
    """Run `git COMMAND ARGS…` through GitPython; GitError with git's own words if it fails and `check`."""
    try:
        status, out, err = getattr(runner, command)(
            *args,
            env=env,
            istream=stdin,
            with_extended_output=True,
            with_exceptions=False,  # checked below: the error then quotes git as git wrote it
            stdout_as_string=not binary,
            strip_newline_in_stdout=False,
        )
    except _gitpython().GitCommandNotFound:
        raise GitError(_NO_GIT) from None
    done = _Done(status, "", err, out) if binary else _Done(status, out, err)
    if check and status != 0:
        raise GitError(_failure(where, command, done))
    return done


def _run(
    root: Path,
    command: str,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: IO[bytes] | None = None,
    check: bool = True,
    binary: bool = False,
) -> _Done:
    """Run a git command in the repository at `root`."""
    return _call(_runner(root), root, command, *args, env=env, stdin=stdin, check=check, binary=binary)


def _failure(root: Path, command: str, done: _Done) -> str:
    """What went wrong, in git's whole message, and what to do when the cause is a known one."""
    said = " ".join((done.err.strip() or done.out.strip() or f"exit status {done.status}").split())
    message = f"git {command} failed in {root}: {said}"
    if "index.lock" in said:
        message += (
            f" — another git process seems to be running in {root}; if none is, remove "
            f"{root}/.git/index.lock (`mem doctor --fix` does) and try again"
        )
    return message


def identity_env(root: Path) -> dict[str, str]:
    """Environment for a commit: `mem <mem@localhost>` for whatever identity neither git nor the environment gives."""
    wanted = {f"GIT_{role}_{part.upper()}": part for role in ("AUTHOR", "COMMITTER") for part in ("name", "email")}
    if all(var in os.environ for var in wanted):
        return {}
    found = _run(root, "config", "--get-regexp", r"^(user|author|committer)\.(name|email)$", check=False).out
    keys = {line.partition(" ")[0].lower() for line in found.splitlines()}
    env = {}
    for var, part in wanted.items():
        role = var.split("_")[1].lower()
        given = var in os.environ or (part == "email" and "EMAIL" in os.environ)
        if not given and f"user.{part}" not in keys and f"{role}.{part}" not in keys:
            env[var] = FALLBACK_NAME if part == "name" else FALLBACK_EMAIL
    return env


def is_repo(root: Path) -> bool:
    """Whether `root` is the top of a git work tree of its own (`<root>/.git` a real folder, see `git_dir`)."""
    try:
        return stat.S_ISDIR(os.lstat(root / ".git").st_mode)
    except OSError:
        return False


def init(root: Path, files: list[str], message: str) -> None:
    """Make `root` a git repository (if it is not one) and commit `files` as the first commit."""
    if not is_repo(root):
        runner = _runner(None, root)
        runner.update_environment(**_environment(root))  # GIT_DIR=<root>/.git: never a calling hook's repository
        _call(runner, root, "init", "--quiet")
    commit(root, files, message)


def set_config(root: Path, key: str, value: str) -> None:
    """Set a repository-local git setting (in `<root>/.git/config`, named)."""
    _run(root, "config", "--file", str(git_dir(root) / "config"), key, value)


def commit(root: Path, paths: list[str], message: str) -> bool:
    """Commit exactly `paths` (additions, changes and deletions) with `message`; False if nothing changed.

    `git add` stages the paths and `git commit --only` commits them alone, so whatever else a person
    has staged stays staged and out of the commit. The paths reach git NUL-separated in a file and
    the message in another: a consolidation commits thousands of files, more than a command line
    holds. A path that is neither on disk nor known to git (removed before it was ever committed) is
    left out. GitError with git's message if git fails; mem's paths are then unstaged again.
    """
    runner = _runner(root)
    wanted = _known(runner, root, sorted(set(paths)))
    if not wanted:
        return False
    env = {**identity_env(root), **_LITERAL}
    with tempfile.TemporaryDirectory(prefix="mem-commit-") as folder:
        listing, note = Path(folder, "paths"), Path(folder, "message")
        listing.write_text("".join(f"{path}\0" for path in wanted), encoding="utf-8")
        note.write_text(message, encoding="utf-8")
        spec = (f"--pathspec-from-file={listing}", "--pathspec-file-nul")
        _call(runner, root, "add", "--all", *spec, env=env)
        crash_point("mid-commit")  # mem's paths are staged; the commit is not made
        done = _call(runner, root, "commit", *_COMMIT_ONLY, f"--file={note}", *spec, env=env, check=False)
        if done.status == 0:
            return True
        if not _staged(runner, root, wanted):
            return False  # git had nothing to commit: the paths are as HEAD has them
        _call(runner, root, "reset", "--quiet", *spec, env=_LITERAL, check=False)
    raise GitError(_failure(root, "commit", done))


def _known(runner: git.Git, root: Path, paths: list[str]) -> list[str]:
    """`paths` without those that are neither on disk nor in git's index (git refuses to add them)."""
    gone = [path for path in paths if not os.path.lexists(root / path)]
    if not gone:
        return paths
    tracked = set(_call(runner, root, "ls-files", "-z").out.split("\0"))
    return [path for path in paths if path not in gone or path in tracked]


def _staged(runner: git.Git, root: Path, paths: list[str]) -> bool:
    """Whether the index holds any of `paths` otherwise than HEAD does."""
    out = _call(runner, root, "diff", "--cached", "--name-only", "--no-renames", "-z").out
    return not set(paths).isdisjoint(out.split("\0"))


def log(root: Path, path: str | None = None, limit: int = 50) -> list[dict[str, str]]:
    """Recent commits (newest first), optionally only those touching `path`."""
    spec = ("--", path) if path else ()
    out = _run(root, "log", "-z", f"--max-count={limit}", "--format=%H%n%cI%n%an <%ae>%n%B", *spec, env=_LITERAL).out
    entries = []
    for record in out.split("\0"):
        if not record.strip():
            continue
        commit, date, author, message = ([*record.split("\n", 3), ""])[:4]
        entries.append({"commit": commit, "date": date, "author": author, "message": message.strip()})
    return entries


def changed_files(root: Path) -> list[tuple[str, str]]:
    """Uncommitted changes as (two-letter status, path), untracked files included, ignored ones not."""
    return _status_entries(_run(root, "status", "--porcelain=v1", "-z", "--untracked-files=all").out)


def uncommitted(root: Path, relpaths: list[str]) -> list[str]:
    """Which of `relpaths` hold changes git has not committed: changed or staged since HEAD, or not in git at all
    (untracked and not ignored). A writer never replaces or removes such a file: it may be a person's edit."""
    found: set[str] = set()
    wanted = sorted(set(relpaths))
    for start in range(0, len(wanted), _PATHS_PER_CALL):  # a command line holds a few hundred paths safely
        chunk = wanted[start : start + _PATHS_PER_CALL]
        out = _run(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *chunk, env=_LITERAL).out
        found.update(path for _code, path in _status_entries(out))
    return [path for path in wanted if path in found]


def _status_entries(out: str) -> list[tuple[str, str]]:
    """`git status --porcelain=v1 -z` as (two-letter status, path)."""
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


def tracked(root: Path, relpath: str) -> bool:
    """Whether git's index holds `relpath`: git carries it to every clone, whatever .gitignore says."""
    return bool(_run(root, "ls-files", "-z", "--", relpath, env=_LITERAL).out)


def tracked_under(root: Path, relpath: str) -> list[str]:
    """Every path git's index holds at or under `relpath`."""
    return sorted(name for name in _run(root, "ls-files", "-z", "--", relpath, env=_LITERAL).out.split("\0") if name)


def files_containing(root: Path, text: str, relpath: str) -> list[str]:
    """The files under `relpath` (tracked, or untracked and not ignored) whose bytes hold `text`, relative to
    `root`: `git grep`, which reads them on every core, several times faster than reading them one by one."""
    done = _run(root, "grep", "-l", "-z", "-F", "--untracked", "-e", text, "--", relpath, env=_LITERAL, check=False)
    if done.status > 1:
        raise GitError(_failure(root, "grep", done))
    return [name for name in done.out.split("\0") if name]


def ignored(root: Path, relpath: str) -> bool:
    """Whether .gitignore (or this clone's excludes) keeps `relpath` out of git while git does not track it."""
    done = _run(root, "check-ignore", "--quiet", "--no-index", "--", relpath, check=False)  # takes no literal spec
    if done.status > 1:
        raise GitError(_failure(root, "check-ignore", done))
    return done.status == 0


def keep_blob(root: Path, data: bytes) -> str:
    """Write `data` into the repository's object store (`git hash-object -w`) and return its id, so bytes about
    to be discarded stay retrievable (`git cat-file -p ID`) until git prunes unreachable objects (two weeks)."""
    with tempfile.TemporaryFile(prefix="mem-blob-") as handle:
        handle.write(data)
        handle.seek(0)
        return _run(root, "hash-object", "-w", "--stdin", stdin=handle).out.strip()


def restore(root: Path, relpath: str) -> None:
    """Put a file back as it is in HEAD (or remove it when HEAD does not have it)."""
    known = _run(root, "cat-file", "-e", f"HEAD:{relpath}", check=False).status == 0
    _run(root, "reset", "--quiet", "--", relpath, env=_LITERAL, check=False)
    if known:
        _run(root, "checkout", "HEAD", "--", relpath, env=_LITERAL)
    else:
        (root / relpath).unlink(missing_ok=True)


def fsck(root: Path) -> str | None:
    """git's own consistency check; None when clean, else its complaint."""
    done = _run(root, "fsck", "--full", "--no-dangling", check=False)
    said = (done.err or done.out).strip()
    if done.status == 0 and not done.out.strip():
        return None
    return said.splitlines()[0] if said else "failed"


def index_lock(root: Path) -> Path:
    """Where git keeps its index lock (left behind when a git process is killed mid-commit)."""
    return git_dir(root) / "index.lock"


def export_history(root: Path) -> bytes:
    """Every commit of every ref as one `git fast-export` stream (signatures dropped, messages in UTF-8)."""
    return _run(root, "fast-export", "--all", "--signed-tags=strip", "--reencode=yes", binary=True).raw


def import_history(root: Path, stream: bytes) -> None:
    """Replace the refs with those of a `git fast-import` stream; the index follows the new HEAD.

    Old objects stay in the object store until `purge_unreachable`; the working tree is untouched.
    """
    with tempfile.TemporaryFile(prefix="mem-history-") as handle:
        handle.write(stream)
        handle.seek(0)
        _run(root, "fast-import", "--force", "--quiet", stdin=handle)
    _run(root, "reset", "--quiet")


def purge_unreachable(root: Path) -> None:
    """Drop every object no ref reaches any more (reflogs expired, then gc with immediate prune)."""
    _run(root, "reflog", "expire", "--expire=now", "--all")
    _run(root, "gc", "--quiet", "--prune=now")


def all_objects_text(root: Path) -> bytes:
    """The content of every object in the store (reachable or not), for purge checks."""
    return _run(root, "cat-file", "--batch-all-objects", "--batch", binary=True).raw


# --- sync (issue 6): fetch, merge, push and what they need to know -------------------------------


def get_config(root: Path, key: str, local: bool = False) -> str | None:
    """A git setting as this repository sees it (`local`: as its own .git/config has it), or None when unset."""
    where = ["--file", str(git_dir(root) / "config")] if local else []
    found = _run(root, "config", *where, "--get", key, check=False)
    return found.out.strip() if found.status == 0 else None


def remotes(root: Path) -> list[str]:
    """The names of the configured remotes, sorted."""
    return sorted(_run(root, "remote").out.split())


def current_branch(root: Path) -> str | None:
    """The checked-out branch's short name, or None on a detached HEAD."""
    found = _run(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    return (found.out.strip() or None) if found.status == 0 else None


def rev(root: Path, ref: str) -> str | None:
    """The commit `ref` names, or None when it does not exist (an unborn branch, a missing remote branch)."""
    found = _run(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    return (found.out.strip() or None) if found.status == 0 else None


def count(root: Path, since: str | None, until: str) -> int:
    """How many commits `until` has that `since` has not (all of `until`'s history when `since` is None)."""
    span = until if since is None else f"{since}..{until}"
    return int(_run(root, "rev-list", "--count", span).out.strip() or 0)


def merge_base(root: Path, a: str, b: str) -> str | None:
    """The best common ancestor of two commits, or None when their histories are unrelated."""
    found = _run(root, "merge-base", a, b, check=False)
    return (found.out.strip() or None) if found.status == 0 else None


def changed_since_base(root: Path, ours: str, theirs: str) -> list[str]:
    """Paths `theirs` changed since its common ancestor with `ours` (what merging it can touch)."""
    out = _run(root, "diff", "--name-only", "--no-renames", "-z", f"{ours}...{theirs}").out
    return sorted({p for p in out.split("\0") if p})


def attribute(root: Path, relpath: str, name: str) -> str | None:
    """The value .gitattributes gives attribute `name` for `relpath` (None when unspecified)."""
    out = _run(root, "check-attr", "-z", name, "--", relpath).out.split("\0")
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
    out = _run(root, "diff", "--name-only", "--diff-filter=U", "-z").out
    return sorted({p for p in out.split("\0") if p})


def fetch(root: Path, remote: str) -> None:
    """Download the remote's branches into refs/remotes/<remote>/."""
    _run(root, "fetch", "--quiet", "--prune", remote)


def incoming(root: Path, ours: str, theirs: str) -> list[tuple[str, str]]:
    """What `theirs` changed since its common ancestor with `ours`, as (new mode, path): `000000` for a removal,
    `120000` a symbolic link, `160000` a submodule, `100644`/`100755` a file."""
    out = _run(root, "diff", "--raw", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", f"{ours}...{theirs}").out
    fields = out.split("\0")
    found = []
    for header, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = header.lstrip(":").split()
        if len(parts) >= 2 and path:
            found.append((parts[1], path))
    return found


def tree(root: Path, commit: str) -> list[tuple[str, str]]:
    """Every file `commit` holds, as (mode, path) like `incoming`."""
    out = _run(root, "ls-tree", "-r", "-z", "--full-tree", commit).out
    found = []
    for entry in out.split("\0"):
        header, _, path = entry.partition("\t")
        parts = header.split()
        if parts and path:
            found.append((parts[0], path))
    return found


def blob(root: Path, commit: str, relpath: str) -> bytes | None:
    """A file's bytes as `commit` has it, or None when it has no such file."""
    done = _run(root, "cat-file", "blob", f"{commit}:{relpath}", check=False, binary=True)
    return done.raw if done.status == 0 else None


def merge(root: Path, ref: str, message: str) -> tuple[bool, str]:
    """Merge `ref` into the current branch (the `mem` merge driver runs), stopping before the merge commit
    (`commit_everything` makes it) so what the merge made can be checked first; (clean, git's messages).
    A fast-forward has no merge commit: HEAD moves to `ref` at once."""
    # --ff overrides a user's merge.ff=only/false: fast-forward when possible, else a merge commit.
    options = ("--ff", "--no-commit", "--no-edit", "--no-verify", "--no-stat", "-m", message)
    done = _run(root, "merge", *options, ref, env=identity_env(root), check=False)
    return done.status == 0, (done.out + done.err).strip()


def conclude_merge(root: Path) -> None:
    """Make the merge commit of a merge that stopped before it (git's own message, naming the merged branch)."""
    _run(root, "commit", "--quiet", "--no-verify", "--no-edit", env=identity_env(root))


def merge_abort(root: Path) -> None:
    """Undo a merge that stopped with conflicts, restoring the state before it."""
    _run(root, "merge", "--abort")


def push(root: Path, remote: str, branch: str, set_upstream: bool) -> tuple[bool, str]:
    """Push the current branch to `remote`'s branch of the same name; (pushed, git's messages).

    The messages are git's `--porcelain` report: a line starting with `!` names a ref the remote
    refused (another machine pushed first).
    """
    args = ["--quiet", "--porcelain", *(["--set-upstream"] if set_upstream else [])]
    done = _run(root, "push", *args, remote, f"refs/heads/{branch}:refs/heads/{branch}", check=False)
    return done.status == 0, (done.out + done.err).strip()


def commit_everything(root: Path, message: str) -> bool:
    """Stage every change (untracked files included) and commit it; also concludes a resolved merge."""
    env = identity_env(root)
    _run(root, "add", "--all", env=env)
    if merge_in_progress(root):  # keep git's own merge message (it names the merged branch)
        _run(root, "commit", "--quiet", "--no-verify", "--no-edit", env=env)
        return True
    if _run(root, "diff", "--cached", "--quiet", check=False).status == 0:
        return False
    _run(root, "commit", "--quiet", "--no-verify", "-m", message, env=env)
    return True


def clone(url: str, path: Path) -> None:
    """Clone `url` into `path` (which must not exist or be empty)."""
    _call(_runner(None, Path.cwd()), Path.cwd(), "clone", "--quiet", "--", url, str(path))


def checkout_tracking(root: Path, remote: str, branch: str) -> None:
    """Create and check out `branch` tracking `remote`/`branch` (for a clone whose remote HEAD is unset)."""
    _run(root, "checkout", "--quiet", "-B", branch, "--track", f"{remote}/{branch}")


def remote_branches(root: Path, remote: str) -> list[str]:
    """The branch names fetched from `remote` (refs/remotes/<remote>/*, without HEAD)."""
    out = _run(root, "for-each-ref", "--format=%(refname)", f"refs/remotes/{remote}/").out
    prefix = f"refs/remotes/{remote}/"
    return sorted(name[len(prefix) :] for name in out.split() if name != prefix + "HEAD")


def merge_file(base: bytes, ours: bytes, theirs: bytes, labels: tuple[str, str, str]) -> tuple[bytes, bool]:
    """Git's own three-way text merge (`git merge-file`): (merged bytes, whether conflict markers were left)."""
    with tempfile.TemporaryDirectory(prefix="mem-merge-") as tmp:
        folder = Path(tmp)
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            (folder / name).write_bytes(data)
        runner = _runner(None, folder)  # no repository needed: git merges three files
        done = _call(
            runner,
            folder,
            "merge-file",
            "-L",
            labels[0],
            "-L",
            labels[1],
            "-L",
            labels[2],
            "ours",
            "base",
            "theirs",
            check=False,
        )
        if done.status < 0 or done.status > 127:  # 0: clean; 1-127: how many conflicts; else git failed
            raise GitError(_failure(folder, "merge-file", done))
        return (folder / "ours").read_bytes(), done.status > 0


def removed_file(root: Path, relpath: str) -> tuple[str, bytes] | None:
    """The last committed version of a file that a later commit removed: (removing commit, bytes), or None."""
    found = _run(
        root, "log", "-1", "--format=%H", "--diff-filter=D", "--", relpath, env=_LITERAL, check=False
    ).out.strip()
    if not found:
        return None
    return found, _run(root, "cat-file", "blob", f"{found}^:{relpath}", binary=True).raw


def commit_removal(root: Path, relpaths: list[str], message: str) -> None:
    """Commit the removal of tracked files already deleted from disk, even under an ignored folder (`git add`
    refuses those: `git commit --only` records their deletion alone). GitError if git fails."""
    env = {**identity_env(root), **_LITERAL}
    _call(_runner(root), root, "commit", *_COMMIT_ONLY, "-m", message, "--", *relpaths, env=env)
