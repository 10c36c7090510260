"""Sync across machines (DESIGN.md, "Sync across machines"): `mem sync`, `mem init --clone`, `mem merge-driver`.

Git is the distributed engine. Pre-checks come first and raise MemError with the fix (a configured
remote, a checked-out branch, no hand edits unless asked to commit them, no unfinished merge);
then fetch, merge (git runs the MEMORY.md merge driver registered by `mem init`) and push, all
through `memfiles.store.gitrepo`; when another machine pushed in between, the three run again
(`SYNC_ATTEMPTS`, a random pause before each). The merge rules themselves live in `memfiles.ops.merge`.
"""

from __future__ import annotations

import contextlib
import random
import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memfiles.errors import GitError, HomeError, MemError, UsageError
from memfiles.format import layout
from memfiles.format.layout import Paths
from memfiles.ops import incoming
from memfiles.store import gitrepo

HAND_EDITS_MESSAGE = "mem: commit hand edits"
SYNC_ATTEMPTS = 5  # another machine may push between our fetch and our push: fetch, merge, push again
BACKOFF_SECONDS = (0.05, 0.5)  # a random pause before each new attempt
_MARKER = re.compile(rb"^(<<<<<<<|>>>>>>>)( |$)", re.MULTILINE)
_NOT_ON_PATH = (
    "`mem` is not on PATH, so git cannot run the MEMORY.md merge driver (`mem merge-driver`): a MEMORY.md "
    "changed on both machines would be left unmerged; put the folder holding `mem` on PATH (e.g. activate "
    "its virtualenv) before syncing"
)


@dataclass(slots=True)
class SyncResult:
    """What one `mem sync` did."""

    remote: str
    branch: str
    received: int = 0
    sent: int = 0
    committed_hand_edits: bool = False
    set_upstream: bool = False
    held: list[str] = field(default_factory=list)  # `scope id key: CODE: …` for each fact received that is held back

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def sync(
    paths: Paths, remote: str = "origin", commit: bool = False, warn: Callable[[str], None] | None = None
) -> SyncResult:
    """Fetch `remote`, merge its copy of the current branch, push the result; hand edits need `commit`."""
    root = paths.root
    say = warn or (lambda _message: None)
    if not gitrepo.is_repo(root):
        raise HomeError(f"{root} is not a git repository; create the home with `mem init` to sync it")
    branch = gitrepo.current_branch(root)
    if branch is None:
        raise MemError(f"{root} has no branch checked out (detached HEAD); check one out: git -C {root} switch BRANCH")
    known = gitrepo.remotes(root)
    if remote not in known:
        raise MemError(_no_remote(root, remote, known))
    _check_driver(root, say)
    result = SyncResult(remote, branch)
    with _locked(paths, []):
        result.committed_hand_edits = _prepare(paths, commit)
    tracking, said = f"refs/remotes/{remote}/{branch}", ""
    for attempt in range(1, SYNC_ATTEMPTS + 1):
        gitrepo.fetch(root, remote)
        theirs = gitrepo.rev(root, tracking)
        if theirs is not None:
            result.received += _merge(paths, remote, branch, theirs, result.held)
        ahead = gitrepo.count(root, theirs, "HEAD")
        if ahead == 0:
            return result
        first = gitrepo.upstream(root, branch) is None
        pushed, said = gitrepo.push(root, remote, branch, set_upstream=first)
        if pushed:
            result.sent, result.set_upstream = ahead, first
            return result
        if not _refused_ref(said):  # not a race (no access, no such remote…): trying again would not help
            raise GitError(f"git push to {remote} failed in {root}: {_tail(said)}")
        if attempt < SYNC_ATTEMPTS:
            time.sleep(random.uniform(*BACKOFF_SECONDS))  # jittered, so racing machines fall out of step
    raise GitError(
        f"{remote} kept moving: another machine pushed to {remote}/{branch} between mem's fetch and push "
        f"{SYNC_ATTEMPTS} times in a row (git said: {_tail(said)}); every commit is still here in {root}, "
        "nothing is lost: run `mem sync` again"
    )


def _held_facts(paths: Paths, scopes: list[str]) -> dict[tuple[str, str], str]:
    """(scope, fact id) -> `scope id key: CODE: …` for every fact the guard holds back in `scopes`
    (memfiles.ops.factguard): what a sync names when a merge brought new ones."""
    from memfiles.ops.factguard import held
    from memfiles.store.files import read_memory

    found: dict[tuple[str, str], str] = {}
    for scope in map(layout.parse_scope, scopes):
        try:
            facts = read_memory(paths, scope).facts
        except MemError:
            continue  # a file that does not parse is reported by the merge and by doctor
        for one in held(paths, scope, facts):
            what = "; ".join(f.line() for f in one.findings)
            found[(str(scope), one.fact.id)] = f"{scope} {one.fact.id} {one.fact.key}: {what}"
    return found


def _refused_ref(said: str) -> bool:
    """Whether git's `--porcelain` push report names a ref the remote refused (`!`): rejected as not a
    fast-forward, or refused by the remote because another push was updating it at that moment."""
    return any(line.startswith("!") for line in said.splitlines())


def _no_remote(root: Path, remote: str, known: list[str]) -> str:
    have = f"it has {', '.join(known)}" if known else "it has none"
    return (
        f"no git remote named {remote!r} in {root} ({have}); add one with "
        f"`git -C {root} remote add {remote} URL` (an empty repository is fine: the first sync pushes to it), "
        "or name another: mem sync REMOTE"
    )


def _check_driver(root: Path, say: Callable[[str], None]) -> None:
    """Make sure git will merge MEMORY.md with `mem merge-driver`, and warn when it cannot."""
    from memfiles.ops.home import register_merge_driver

    if gitrepo.get_config(root, "merge.mem.driver", local=True) is None:
        register_merge_driver(root)  # git config is per clone: a plain `git clone` does not carry it
        say(f"registered the MEMORY.md merge driver in {root}/.git/config (it was missing)")
    if gitrepo.attribute(root, f"users/example/{layout.MEMORY_NAME}", "merge") != "mem":
        raise MemError(
            f"{root}/.gitattributes does not route MEMORY.md to the `mem` merge driver, so git would merge facts "
            f"as plain text (or by union) and could commit a broken MEMORY.md; nothing was synced. Put the line "
            f"`MEMORY.md merge=mem` back in {root}/.gitattributes (and no later line overriding it), commit it "
            f"(git -C {root} commit -m 'mem: route MEMORY.md to mem' .gitattributes), then sync again"
        )
    if shutil.which("mem") is None:
        say(_NOT_ON_PATH)


@contextlib.contextmanager
def _locked(paths: Paths, touched: list[str]) -> Iterator[None]:
    """Hold the write locks of the scopes a merge will touch, then git's: no `mem` write lands mid-merge."""
    from memfiles.store.files import git_lock, scope_lock

    scopes = {layout.scope_from_relpath(relpath) for relpath in touched}
    with contextlib.ExitStack() as stack:
        for scope in sorted((s for s in scopes if s is not None), key=str):  # sorted, then git: no deadlock
            stack.enter_context(scope_lock(paths, scope))
        stack.enter_context(git_lock(paths))
        yield


def _prepare(paths: Paths, commit: bool) -> bool:
    """Refuse an unfinished merge or hand edits (or, with `commit`, commit them); True if a commit was made."""
    root = paths.root
    if gitrepo.merge_in_progress(root):
        conflicted = gitrepo.unmerged(root)
        marked = [f for f in conflicted if _MARKER.search(_read(root / f))]
        if marked or (conflicted and not commit):
            raise MemError(f"an earlier sync's merge is unfinished: {_finish_hint(root, marked or conflicted)}")
        if not commit:
            raise MemError(
                f"an earlier sync's merge is resolved but not committed in {root}: run `mem sync --commit` to "
                f"commit it and go on, or `git -C {root} merge --abort` to give it up"
            )
    changed = sorted(path for _code, path in gitrepo.changed_files(root))
    if not changed and not gitrepo.merge_in_progress(root):
        return False
    if not commit:
        shown = ", ".join(changed[:10]) + (f" and {len(changed) - 10} more" if len(changed) > 10 else "")
        raise MemError(
            f"{len(changed)} uncommitted change(s) in {root}: {shown}; sync merges commits only. "
            f"Commit them with `mem sync --commit` (message {HAND_EDITS_MESSAGE!r}), "
            f"or undo them with `git -C {root} restore -- PATH`"
        )
    _check_files(paths, changed)
    return gitrepo.commit_everything(root, HAND_EDITS_MESSAGE)


def _check_files(paths: Paths, changed: list[str]) -> None:
    """Refuse to commit a MEMORY.md that does not parse, any text left with conflict markers, or mem.local.toml."""
    from memfiles.format.memoryfile import parse

    local = layout.LOCAL_CONFIG_NAME  # this machine's settings: committing them would sync them to every clone
    tracked = local in changed and gitrepo.tracked(paths.root, local)
    if tracked or (local in changed and not gitrepo.ignored(paths.root, local)):
        fix = f"untrack it: git -C {paths.root} rm --cached {local}" if tracked else "`mem doctor --fix` git-ignores it"
        raise MemError(
            f"{local} holds this machine's own settings, which are never committed, and git would commit it: "
            f"{fix}; then run `mem sync --commit` again"
        )
    for relpath in changed:
        path = paths.root / relpath
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        line = conflict_marker_line(data) if relpath.endswith(".md") else None
        if line is not None:
            raise MemError(
                f"{relpath}:{line}: conflict markers are still there; keep the right text, delete the "
                "<<<<<<< ======= >>>>>>> lines, then run `mem sync --commit` again"
            )
        if path.name == layout.MEMORY_NAME:
            parse(data, relpath, incoming.expected_scope(relpath))  # raises FileFormatError naming path:line


def _merge(paths: Paths, remote: str, branch: str, theirs: str, held: list[str]) -> int:
    """Merge the fetched commit into the current branch; the number of commits received. Each fact the merge
    brought that the guard holds back is added to `held`."""
    root = paths.root
    received = gitrepo.count(root, "HEAD", theirs)
    if received == 0:
        return 0
    if gitrepo.merge_base(root, "HEAD", theirs) is None:
        raise MemError(
            f"{remote}/{branch} shares no history with {root} (were both homes made by `mem init`?); "
            f"combine them once by hand: git -C {root} merge --allow-unrelated-histories {remote}/{branch}, "
            f"or start this machine from the remote: mem init --clone URL NEW_PATH"
        )
    incoming.check(paths, f"{remote}/{branch}", theirs)
    touched = gitrepo.changed_since_base(root, "HEAD", theirs)
    with _locked(paths, touched):
        scopes = [s for s in map(incoming.expected_scope, touched) if s is not None]
        before = _held_facts(paths, scopes)
        clean, said = gitrepo.merge(root, f"refs/remotes/{remote}/{branch}", f"mem: sync with {remote}/{branch}")
        if clean:
            if gitrepo.merge_in_progress(root):  # not a fast-forward: what the merge made is checked, then committed
                incoming.check_merged(paths, f"{remote}/{branch}", touched)
                gitrepo.conclude_merge(root)
            held += [line for key, line in _held_facts(paths, scopes).items() if key not in before]
            return received
        left = gitrepo.unmerged(root)
        if not left:  # git refused to start (e.g. an untracked file in the way): nothing to undo
            raise GitError(f"git merge {remote}/{branch} failed in {root}: {_tail(said)}")
        failed = [line.removeprefix("mem: error: ") for line in said.splitlines() if line.startswith("mem: error:")]
        if failed or shutil.which("mem") is None:
            # The merge driver did not run or refused a file: git left "ours" in place without
            # markers, and committing that would drop the remote's facts. Undo the merge.
            gitrepo.merge_abort(root)
            raise MemError(
                f"merging {remote}/{branch} needs the MEMORY.md merge driver (`mem merge-driver`), which failed: "
                f"{'; '.join(failed) or '`mem` is not on PATH'}; the merge was undone, nothing changed"
            )
    raise MemError(f"merging {remote}/{branch} left conflicts in {root}: {_finish_hint(root, left)}")


def _finish_hint(root: Path, files: list[str]) -> str:
    notes = [f for f in files if Path(f).name == layout.MEMORY_NAME and _MARKER.search(_read(root / f))]
    where = ", ".join(files)
    if notes and len(notes) == len(files):
        where += " (only in the notes below the frontmatter; the facts merged cleanly)"
    return (
        f"conflicts in {where}. To finish: edit each file, keep the right text between the <<<<<<< and >>>>>>> "
        f"markers and delete the marker lines, then run `mem sync --commit` (it commits the merge and pushes); "
        f"to give the merge up instead: git -C {root} merge --abort"
    )


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _tail(text: str) -> str:
    return " ".join(text.strip().splitlines()[-3:])


def clone_home(url: str, root: Path) -> bool:
    """Set up another machine: clone `url` into `root` and register the merge driver.

    Returns True when the remote was empty and a fresh home was started in the clone (the first
    `mem sync` pushes it).
    """
    from memfiles.ops.home import ensure_local_settings, init_home, register_merge_driver

    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise HomeError(
            f"{root} already exists and is not an empty folder; give the clone a new path: mem init --clone URL PATH"
        )
    gitrepo.clone(url, root)
    if gitrepo.rev(root, "HEAD") is None:
        branches = gitrepo.remote_branches(root, "origin")
        if len(branches) == 1:  # the remote's HEAD names a branch it does not have (common with bare repos)
            gitrepo.checkout_tracking(root, "origin", branches[0])
        elif branches:
            raise HomeError(
                f"cloned {url} into {root}, but the remote does not say which branch to use; check one out: "
                f"git -C {root} switch BRANCH (one of {', '.join(branches)})"
            )
    if gitrepo.rev(root, "HEAD") is None:
        init_home(root)
        return True
    if not (root / layout.CONFIG_NAME).is_file():
        raise HomeError(
            f"{url} is a git repository but not a memory home (no {layout.CONFIG_NAME}); the clone is left at {root}"
        )
    refused = incoming.forbidden(Paths(root), gitrepo.tree(root, "HEAD"), "HEAD")
    if refused:  # mem refuses locks through links and distrusts a tracked mem.local.toml; still, say so now
        raise HomeError(
            f"cloned {url} into {root}, but it holds what a memory home never may: {'; '.join(refused)}. Do not "
            f"use this clone: have these undone on the remote (e.g. git rm --cached PATH, commit, push), then remove "
            f"{root} and clone again"
        )
    register_merge_driver(root)
    ensure_local_settings(root)  # this clone's own settings file, git-ignored (an older home's .gitignore gains it)
    return False


def run_merge_driver(base: Path, ours: Path, theirs: Path, relpath: str) -> bool:
    """Git's merge driver for MEMORY.md (%O %A %B %P): write the merge into `ours`; False if the notes conflict.

    A side that does not parse raises FileFormatError naming it, and `ours` is left untouched.
    """
    from memfiles.format import memoryfile
    from memfiles.ops import merge
    from memfiles.store.files import atomic_write

    expected = incoming.expected_scope(relpath)
    raw = {side: _version(side, path) for side, path in (("base", base), ("ours", ours), ("theirs", theirs))}
    docs = {side: memoryfile.parse(data, f"{relpath} ({side})", expected) for side, data in raw.items()}

    def merge_text(old: bytes, mine: bytes, other: bytes) -> tuple[bytes, bool]:
        return gitrepo.merge_file(old, mine, other, ("ours", "base", "theirs"))

    result = merge.merge(docs["base"], docs["ours"], docs["theirs"], merge_text)
    if any(memoryfile.has_frontmatter(data) for data in raw.values()):
        data = memoryfile.serialize(result.doc)
    else:  # notes only, no facts on any side: do not add a frontmatter nobody wrote
        data = result.doc.bom + result.doc.body
    atomic_write(ours, data)
    return not result.body_conflict


def _version(side: str, path: Path) -> bytes:
    """One of the three versions git hands the merge driver; UsageError naming it when it cannot be read."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(
            f"mem merge-driver: cannot read the {side} version {path}: {exc.strerror or exc}; git runs "
            "`mem merge-driver %O %A %B %P` itself during a merge, with three files it has just written"
        ) from None


def conflict_marker_line(data: bytes) -> int | None:
    """The line of the first conflict marker (`<<<<<<<` or `>>>>>>>` at a line's start) a merge left, if any."""
    marker = _MARKER.search(data)
    return None if marker is None else data[: marker.start()].count(b"\n") + 1
