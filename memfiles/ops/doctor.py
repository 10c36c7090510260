"""`mem doctor`: find what a crash, a hand edit or a bad merge left wrong in a home, and repair it.

Checks, each a Problem line: settings parse, mem.toml sets nothing a synced file may not (a command,
a relaxation of the guard) and mem.local.toml stays out of git; every MEMORY.md parses; no recall
index or vector cache is corrupt, foreign (not signed by this machine) or tracked by git; no temp
files from an interrupted write; no unfinished sync merge and no conflict markers; no stale git index
lock; no uncommitted memory changes; git's own fsck; no episode the guard holds back (`flagged`,
waiting for `mem review`; an accepted one it still finds something in is a note, not a problem); no
folder under users/, orgs/, agents/ that no scope can name (`users/Alice`); nothing under .cache/
tracked by git, and no link there; no fact the guard holds back (memfiles.ops.factguard: it
arrived by a pull, a hand edit or an import); with recall by meaning on, nothing without vectors and no
interrupted reindex; no hook whose last run failed unseen. Repairs (`--fix`) only what is safe: an
uncommitted file that parses is committed, one that does not is restored from the last commit; temp
files, a stale index lock and links under .cache/ are removed; a corrupt or foreign index or vector
cache is rebuilt, a tracked one deleted from git first (`--reindex` rebuilds every index: they are
caches of the files); what has no vectors is embedded; a home made before
mem.local.toml existed gets the file and its .gitignore entry. An unfinished merge, conflict
markers and settings a synced file may not set need a person.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memfiles import clock
from memfiles.errors import MemError
from memfiles.format import layout
from memfiles.format.layout import Paths, Scope
from memfiles.format.memoryfile import parse
from memfiles.store import gitrepo
from memfiles.store.files import git_lock, locked

if TYPE_CHECKING:
    from memfiles.format.model import Fact
    from memfiles.recall.embedder import Embedder

INTERRUPTED = "mem: doctor commits an interrupted write"


@dataclass(slots=True)
class Problem:
    """One thing wrong, where, and the repair `--fix` would make (None when a person must act)."""

    where: str
    what: str
    repair: Callable[[], str] | None = None
    before_locks: bool = False  # the repair removes what stands in the way of taking the locks (a link there)

    def line(self) -> str:
        return f"{self.where}: {self.what}" + ("" if self.repair else " (needs a person)")


def examine(paths: Paths, use_index: bool = False) -> list[Problem]:
    """Every problem found in the home, in a stable order (`use_index`: see `run`)."""
    from memfiles.ops import doctor_caches

    problems = _settings(paths)
    problems.extend(_strays(paths))
    for scope in paths.scopes():
        memory = paths.memory_file(scope)
        if memory.is_file():
            try:
                doc = parse(memory.read_bytes(), paths.relative(memory), str(scope))
            except MemError as exc:
                problems.append(Problem(paths.relative(memory), f"does not parse: {exc}"))
            else:
                problems.extend(_held_facts(paths, scope, doc.facts))
    problems.extend(_indexes(paths))
    problems.extend(doctor_caches.vector_caches(paths))
    problems.extend(doctor_caches.model_copies(paths))
    problems.extend(doctor_caches.tracked_caches(paths))
    problems.extend(_vectors(paths))
    problems.extend(_flagged(paths, use_index))
    problems.extend(_duplicate_episodes(paths))
    problems.extend(_capture_log(paths))
    problems.extend(_health(paths))
    problems.extend(_temp_files(paths))
    problems.extend(_cache_links(paths))
    problems.extend(_git_state(paths))
    return problems


def _strays(paths: Paths) -> list[Problem]:
    """Folders under users/, orgs/, agents/ that no scope can name (`users/Alice`): every command ignores them."""
    found = []
    for relpath in paths.strays():
        kind_folder, _, name = relpath.partition("/")
        lower = name.lower()
        valid = layout.ID_PATTERN.fullmatch(lower) is not None and ".." not in lower
        if valid and (paths.root / kind_folder / lower).exists():
            fix = f"it differs from {kind_folder}/{lower} only in case: move what it holds into {kind_folder}/{lower}"
        elif valid:
            fix = f"it differs from a scope id only in case: git -C {paths.root} mv {relpath} {kind_folder}/{lower}"
        else:
            fix = f"rename it to a valid id (git -C {paths.root} mv {relpath} {kind_folder}/NEW_ID) or remove it"
        what = (
            "is not a valid scope id (1-64 of a-z, 0-9, '.', '_', '-'), so every command ignores what it holds; " + fix
        )
        found.append(Problem(relpath, what))
    return found


def _cache_links(paths: Paths) -> list[Problem]:
    """Links under .cache/ (which only a tracked path, from a remote or a clone, could bring): removed by `--fix`."""
    if os.path.islink(paths.cache):
        return [Problem(layout.CACHE_DIR, "is a link; memfiles never follows it", _remover(paths.cache), True)]
    found = []
    for folder, dirs, files in os.walk(paths.cache):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            if path.is_symlink():
                what = f"is a link to {os.readlink(path)} in this machine's caches and locks; memfiles never follows it"
                found.append(Problem(paths.relative(path), what, _remover(path), True))
    return sorted(found, key=lambda p: p.where)


def _settings(paths: Paths) -> list[Problem]:
    """Both settings files parse; mem.toml sets no command or relaxation; git neither tracks nor would add
    mem.local.toml (this machine's settings)."""
    from memfiles.format.config import load_settings

    root, local = paths.root, layout.LOCAL_CONFIG_NAME
    repo = gitrepo.is_repo(root)
    tracked = repo and gitrepo.tracked(root, local)
    try:
        ignored = load_settings(root, lambda: tracked).left_out()
    except MemError as exc:
        where, _, what = str(exc).partition(": ")
        return [Problem(where, what)]
    problems = [Problem(i.file, f"{i.key} {i.what}: {i.why}") for i in ignored]
    if tracked:
        problems.append(
            Problem(
                local,
                f"git tracks it, so this machine's own settings are shared by every clone like {layout.CONFIG_NAME} "
                f"(a command or relaxation in it is not applied): untrack it with git -C {root} rm --cached {local}, "
                "then commit",
            )
        )
    elif repo and not gitrepo.ignored(root, local):
        fix = None if gitrepo.merge_in_progress(root) else _local_settings(paths)
        what = f"does not list {local}, so git would commit this machine's own settings"
        problems.append(Problem(".gitignore", what, fix))
    return problems


def _local_settings(paths: Paths) -> Callable[[], str]:
    def ensure() -> str:
        from memfiles.ops.home import ensure_local_settings

        return "; ".join(ensure_local_settings(paths.root)) or "nothing to do"

    return ensure


def _indexes(paths: Paths) -> list[Problem]:
    from memfiles.recall import index

    found = []
    for scope in paths.scopes():
        why = index.trouble(paths, scope)
        if why:
            what = f"recall index {why}: recall does not use it (`mem doctor --fix` rebuilds it from the files)"
            found.append(Problem(paths.relative(index.path_of(paths, scope)), what, _rebuilder(paths, scope)))
    return found


def _rebuilder(paths: Paths, scope: Scope) -> Callable[[], str]:
    def rebuild() -> str:
        from memfiles.recall import index

        return f"rebuilt from {index.rebuild(paths, scope)} episode file(s)"

    return rebuild


def reindex(paths: Paths, model: Embedder | None = None, tick: Callable[[int, int], None] | None = None) -> list[str]:
    """Rebuild the recall index of every scope with episodes (or an index) from its files (`--reindex`).

    With `model` (the semantic extra's), every scope's vectors are embedded again too, `tick(done, total)`
    reporting the progress. A mark in `.cache/` says a reindex is under way until it ends: an interrupted one
    is reported by `examine` (and finished by `--fix`).
    """

    mark = paths.reindex_mark
    mark.parent.mkdir(parents=True, exist_ok=True)
    if not mark.is_symlink():
        mark.write_text(clock.iso(clock.now()) + "\n", encoding="utf-8")
    done = _reindex(paths, model, tick)
    mark.unlink(missing_ok=True)
    return done


def _reindex(paths: Paths, model: Embedder | None, tick: Callable[[int, int], None] | None) -> list[str]:
    from memfiles.recall import index

    done = []
    for scope in paths.scopes():
        if paths.episodes_dir(scope).is_dir() or paths.index_files(scope):
            count = index.rebuild(paths, scope)
            done.append(f"{paths.relative(index.path_of(paths, scope))}: rebuilt from {count} episode file(s)")
        if model is not None:
            from memfiles.recall import vector_build
            from memfiles.recall.embedder import ModelUnavailable

            try:
                embedded = vector_build.rebuild(paths, scope, model, tick)
            except ModelUnavailable as exc:  # the int8 copy cannot be made: one line, never a traceback
                done.append(f"{scope}: vectors not rebuilt: {exc}")
                continue
            done.append(f"{scope}: {embedded} episode(s) and fact(s) embedded by meaning (memfiles[semantic])")
    return done


def _model(paths: Paths) -> Embedder | None:
    """The home's embedding model, loaded, when it ranks by meaning (None without the extra or when lexical)."""
    from memfiles.format.config import load_settings
    from memfiles.recall import embedder

    config = load_settings(paths.root).safe
    if not embedder.wanted(config):
        return None
    return embedder.load(embedder.model_files(config), cache=paths.cache)


def _vectors(paths: Paths) -> list[Problem]:
    """With recall by meaning on: an unfinished reindex, and facts or episodes that have no vectors yet (a pull,
    a hand edit, a write whose model failed, a home written before the extra): recall would rank them by
    words only. `--fix` embeds them (a reindex left unfinished is run again)."""
    from memfiles.format.config import load_settings
    from memfiles.recall import embedder

    try:
        config = load_settings(paths.root).safe
    except MemError:
        return []  # _settings reports it
    if not embedder.wanted(config):
        return []
    if paths.reindex_mark.exists() or paths.reindex_mark.is_symlink():

        def finish() -> str:
            return "; ".join(reindex(paths, _model(paths)))

        what = "`mem doctor --reindex` was interrupted: indexes and vectors are partly built"
        return [Problem(paths.relative(paths.reindex_mark), what, finish)]
    try:
        model_id = embedder.model_files(config).id
    except embedder.ModelUnavailable as exc:
        return [Problem(layout.LOCAL_CONFIG_NAME, f"recall by meaning cannot load its model: {exc}")]
    from memfiles.recall import vector_build

    found = []
    for scope in paths.scopes():
        facts, episodes = vector_build.missing(paths, scope, model_id)
        if facts or episodes:
            what = f"{facts} fact(s) and {episodes} episode(s) have no vectors yet, so recall finds them by words only"
            found.append(Problem(str(scope), what, _embedder(paths, scope)))
    return found


def _embedder(paths: Paths, scope: Scope) -> Callable[[], str]:
    def embed() -> str:
        from memfiles.recall import vector_build

        model = _model(paths)
        if model is None:
            return "nothing to embed"
        return f"embedded {vector_build.catch_up(paths, scope, model)} fact(s) and episode(s)"

    return embed


def _health(paths: Paths) -> list[Problem]:
    """A hook or the embedding of writes whose last run failed (memfiles.store.health): nobody saw it fail.
    `--fix` marks it as seen (the next run records its own outcome)."""
    from memfiles.store import health

    found = []
    for name, entry in health.read(paths).items():
        if health.failing(entry):
            what = f"{health.WHAT[name]} last failed at {entry.get('last_failure')}: {entry.get('why') or 'no reason'}"
            if entry.get("home"):
                what += f" (home {entry['home']}, found by {entry.get('found_by', '?')})"
            found.append(Problem(paths.relative(paths.health_file), what, _seen(paths, name)))
    return found


def _seen(paths: Paths, name: str) -> Callable[[], str]:
    def seen() -> str:
        from memfiles.store import health

        health.acknowledge(paths, name)
        return f"{name}: failure reported and marked as seen"

    return seen


def health_notes(paths: Paths) -> list[str]:
    """Each hook's last outcome, for the report (when it ran, whether it worked, which home it used)."""
    from memfiles.store import health

    notes = []
    for name, entry in sorted(health.read(paths).items()):
        if name == "embedding":
            continue
        line = f"{health.WHAT[name]}: last ran {entry.get('last_run', '?')} ({entry.get('last', '?')})"
        if entry.get("last_failure"):
            line += f"; last failed {entry['last_failure']}: {entry.get('why', '')}"
        if entry.get("home"):
            line += f"; home {entry['home']} ({entry.get('found_by', '?')})"
        notes.append(line)
    return notes


def _held_facts(paths: Paths, scope: Scope, facts: list[Fact]) -> list[Problem]:
    """Facts the guard holds back from every reader (arrived by a pull, a hand edit, an import): a person edits
    or forgets them."""
    from memfiles.ops.factguard import held

    relpath = paths.relative(paths.memory_file(scope))
    return [
        Problem(
            relpath,
            f"fact {one.fact.id} ({one.fact.key}) is held back by the guard "
            f"({'; '.join(f.line() for f in one.findings)}): edit it in {relpath}, "
            f"or mem forget -s {scope} {one.fact.id}",
        )
        for one in held(paths, scope, facts)
    ]


def _flagged(paths: Paths, use_index: bool) -> list[Problem]:
    """Episodes held back by the guard (stored flagged, or edited in by hand or `git pull`): a person settles them."""
    from memfiles.ops.quarantine import held

    found = []
    for scope in paths.scopes():
        for one in held(paths, scope, use_index=use_index):
            if one.review.state == "flagged":
                what = "; ".join(f.line() for f in one.review.findings) or "status: flagged"
                settle = f"mem review -s {scope}, then mem accept or mem reject {one.episode.id}"
                found.append(
                    Problem(one.relpath, f"episode {one.episode.id} is held back by the guard ({what}): {settle}")
                )
    return found


_EPISODE_ID = re.compile(rb"^id:[ \t]*[\"']?(e-[0-9a-f]{12})[\"']?[ \t]*\r?$", re.MULTILINE)


def _duplicate_episodes(paths: Paths) -> list[Problem]:
    """Episode files of one scope that carry the same id (a file copied by hand, or kept twice by a merge): recall
    shows one of them, and `mem accept`, `mem reject` and `mem show-episode` act on whichever they find first, so the
    other is never settled. A person keeps one."""
    found = []
    for scope in paths.scopes():
        seen: dict[str, str] = {}
        for path in paths.episode_files(scope):
            try:
                with path.open("rb") as file:
                    head = file.read(4096)  # the frontmatter's id line comes first
            except OSError:
                continue  # reported as a file that cannot be read
            match = _EPISODE_ID.search(head.partition(b"\n---")[0])
            if match is None:
                continue
            episode_id, relpath = match.group(1).decode(), paths.relative(path)
            if episode_id not in seen:
                seen[episode_id] = relpath
                continue
            found.append(
                Problem(
                    relpath,
                    f"holds episode {episode_id}, as {seen[episode_id]} does: commands act on one of the two, so the "
                    f"other is never settled; keep one (git -C {paths.root} rm {relpath}, or remove the other)",
                )
            )
    return found


def notes(paths: Paths, use_index: bool = False) -> list[str]:
    """Episodes a person accepted in which the guard still finds something: shown, but worth knowing about."""
    from memfiles.ops.quarantine import held

    found = []
    for scope in paths.scopes():
        for one in held(paths, scope, use_index=use_index):
            if one.review.state == "accepted" and one.review.findings:
                accepted = one.episode.accepted
                by = f" by {accepted.by} on {clock.iso(accepted.at)}" if accepted else ""
                what = "; ".join(f.line() for f in one.review.findings)
                found.append(f"{one.relpath}: episode {one.episode.id} was accepted{by} with findings: {what}")
    return found


def _capture_log(paths: Paths) -> list[Problem]:
    """What `mem capture --hook` could not tell anyone (.cache/capture.log); `--fix` clears the log once shown."""
    from memfiles.ops.capture import log_path, logged

    entries = logged(paths)
    if not entries:
        return []
    last = entries[-1]
    what = (
        f"{len(entries)} capture problem{'s' if len(entries) != 1 else ''}, the last at {last.get('at')} "
        f"({last.get('event')} {last.get('session')}): {last.get('what')}"
    )
    path = log_path(paths)

    def clear() -> str:
        path.unlink(missing_ok=True)
        return f"cleared after reporting {what}"

    return [Problem(paths.relative(path), what, clear)]


def _temp_files(paths: Paths) -> list[Problem]:
    found = []
    for folder, dirs, files in os.walk(paths.root):
        dirs[:] = [d for d in dirs if d not in (".git", layout.CACHE_DIR)]
        for name in files:
            if name.startswith(".") and name.endswith(".tmp"):
                temp = Path(folder) / name
                found.append(Problem(paths.relative(temp), "temp file left by an interrupted write", _remover(temp)))
    return sorted(found, key=lambda p: p.where)


def _remover(path: Path) -> Callable[[], str]:
    def remove() -> str:
        path.unlink(missing_ok=True)
        return f"removed {path.name}"

    return remove


def _git_state(paths: Paths) -> list[Problem]:
    root = paths.root
    if not gitrepo.is_repo(root):
        return [Problem(str(root), "is not a git repository; run `mem init` on it")]
    problems: list[Problem] = []
    lock = gitrepo.index_lock(root)
    merging = gitrepo.merge_in_progress(root)
    if merging:  # its changes are the merge's: a person finishes or aborts it, doctor commits nothing
        problems.append(
            Problem(
                ".git/MERGE_HEAD",
                "an unfinished `mem sync` merge (mem refuses writes until it is done): edit the files with "
                f"conflict markers, then run `mem sync --commit`; or give it up: git -C {root} merge --abort",
            )
        )
    elif lock.exists():
        problems.append(Problem(".git/index.lock", "stale git index lock (a git process was killed)", _remover(lock)))
    else:
        problems.extend(_uncommitted(paths))
    problems.extend(_markers(paths, gitrepo.unmerged(root) if merging else []))
    cached = gitrepo.tracked_under(root, layout.CACHE_DIR)
    if cached:
        shown = ", ".join(cached[:3]) + (f" and {len(cached) - 3} more" if len(cached) > 3 else "")
        problems.append(
            Problem(
                f"{layout.CACHE_DIR}/",
                f"git tracks {shown}: this machine's caches and locks, which every clone and sync would then carry "
                f"(a link there could point a lock at any file); untrack them: git -C {root} rm -r --cached "
                f"{layout.CACHE_DIR} && git -C {root} commit -m 'untrack .cache/'",
            )
        )
    trouble = gitrepo.fsck(root)
    if trouble:
        problems.append(Problem(".git", f"git fsck: {trouble}"))
    return problems


def _markers(paths: Paths, unmerged: list[str]) -> list[Problem]:
    """Conflict markers a merge left: in the files it left unmerged, and in any scope's MEMORY.md."""
    from memfiles.ops.sync import conflict_marker_line

    found = []
    candidates = {*unmerged, *(paths.relative(paths.memory_file(scope)) for scope in paths.scopes())}
    for relpath in sorted(candidates):
        try:
            line = conflict_marker_line((paths.root / relpath).read_bytes())
        except OSError:
            continue
        if line is not None:
            found.append(
                Problem(
                    f"{relpath}:{line}",
                    "conflict markers left by a merge: keep the right text and delete the <<<<<<< ======= >>>>>>> "
                    "lines" + (", then run `mem sync --commit`" if relpath in unmerged else ", then commit the file"),
                )
            )
    return found


def _uncommitted(paths: Paths) -> list[Problem]:
    problems = []
    for code, relpath in gitrepo.changed_files(paths.root):
        if layout.scope_from_relpath(relpath) is None and relpath not in (layout.CONFIG_NAME,):
            continue
        if relpath.endswith(".tmp"):
            continue
        problems.append(Problem(relpath, f"uncommitted change ({code.strip() or '?'})", _settler(paths, relpath)))
    return problems


def _settler(paths: Paths, relpath: str) -> Callable[[], str]:
    def settle() -> str:
        target = paths.root / relpath
        scope = layout.scope_from_relpath(relpath)
        if target.name == layout.MEMORY_NAME and target.is_file() and scope is not None:
            data = target.read_bytes()
            try:
                parse(data, relpath, str(scope))
            except MemError:
                kept = gitrepo.keep_blob(paths.root, data)  # a person's edit, maybe: never discarded for good
                gitrepo.restore(paths.root, relpath)
                return (
                    f"rolled back {relpath} to its last commit (the uncommitted version does not parse; it is kept "
                    f"in git: git -C {paths.root} cat-file -p {kept})"
                )
        gitrepo.commit(paths.root, [relpath], f"{INTERRUPTED}\n\n{relpath}\n")
        return f"committed {relpath}"

    return settle


def repair(paths: Paths, problems: list[Problem]) -> list[str]:
    """Apply the safe repairs while no writer runs: takes every lock a writer would, in writers' order."""
    done = [f"{p.where}: {p.repair()}" for p in problems if p.repair is not None and p.before_locks]
    with ExitStack() as stack:
        for scope in paths.scopes():
            stack.enter_context(locked(paths.scope_lock(scope)))
        stack.enter_context(git_lock(paths))
        for problem in problems:
            if problem.repair is not None and not problem.before_locks:
                done.append(f"{problem.where}: {problem.repair()}")
    return done


def run(paths: Paths, fix: bool, use_index: bool = False) -> tuple[list[str], list[Problem]]:
    """Examine the home; with `fix`, repair and look again (a repair can uncover the next problem).

    Doctor reads and reviews every episode file itself, since it examines the recall index too; with
    `use_index` (the indexes were rebuilt from the files in this same command) the index says which
    episodes are held back, as it does for `mem review`, instead of the guard reading every file again.
    """
    problems = examine(paths, use_index)
    done: list[str] = []
    for _ in range(3):
        if not fix or not any(p.repair for p in problems):
            break
        done.extend(repair(paths, problems))
        problems = examine(paths, use_index)
    return done, problems
