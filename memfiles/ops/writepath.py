"""The guarded write path: the one way facts and episodes enter or change in a memory home.

Every writer (CLI, Python API, consolidation, MCP) calls these functions. Each write:
1. validates key, value, subject, source and limits before any file is opened;
2. runs the guard (the error rules of `memfiles.lint.rules`) on every text field, refusing the write;
3. settles the fact against the key's current facts (`memfiles.ops.supersession`);
4. writes MEMORY.md atomically under the scope's lock and makes one git commit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from memfiles import clock
from memfiles.clock import When
from memfiles.errors import GitError, MemError, NotFoundError, RefusedError
from memfiles.format.config import Config
from memfiles.format.fields import KEY_PATTERN, SUBJECTS
from memfiles.format.layout import Paths, Scope
from memfiles.format.memoryfile import MemoryDoc, serialize
from memfiles.format.model import Fact, fact_id
from memfiles.lint.rules import guard
from memfiles.ops import supersession
from memfiles.outcome import Outcome
from memfiles.store import gitrepo
from memfiles.store.files import atomic_write, git_lock, read_memory, scope_lock

if TYPE_CHECKING:  # episode writes and whole-scope changes import these (a fact's write does not: 3 ms)
    from memfiles.format.episodes import Episode
    from memfiles.ops.scopefiles import Progress, ScopeFiles

T = TypeVar("T")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(slots=True)
class NewFact:
    """A fact as a writer proposes it, before validation and settlement."""

    key: str
    value: str
    subject: str = "user_preference"
    inferred: bool = False
    source: str | None = None
    ref: str | None = None
    at: str | When | None = None
    expires: str | When | None = None


def check_text_field(name: str, text: str, limit: int, one_line: bool = True) -> None:
    """Refuse text that is empty, over `limit`, has control characters (or breaks if one_line) or fails the guard."""
    if len(text) > limit:
        raise RefusedError(
            "MEM602", f"{name} is {len(text)} characters, over the limit of {limit} (mem.toml max_value_chars)"
        )
    if not text.strip():
        raise RefusedError("MEM604", f"{name} is empty")
    if one_line and ("\n" in text or "\r" in text):
        raise RefusedError("MEM604", f"{name} must be one line of text without control characters")
    # The guard runs before the control-character check so that a refusal carries the same code
    # that `mem lint` reports for the same text (MEM204 for a control character, for example).
    finding = guard(text)
    if finding is not None:
        raise RefusedError(finding.code, f"{name} {finding.message}: {finding.excerpt!r}")
    if _CONTROL.search(text):
        raise RefusedError("MEM604", f"{name} must be text without control characters")


def validate(new: NewFact, config: Config) -> Fact:
    """Turn a NewFact into a Fact, or raise RefusedError/MemError saying what is wrong. Opens no file."""
    if not KEY_PATTERN.fullmatch(new.key):
        raise MemError(
            f"invalid key {new.key!r}: keys are 1-64 characters of a-z, 0-9, '_', '.' or '-', starting with a letter"
        )
    if new.subject not in SUBJECTS:
        raise MemError(f"invalid subject {new.subject!r}: use one of {', '.join(SUBJECTS)}")
    source = new.source or ("agent_summary" if new.inferred else "user_statement")
    if source not in config.sources.allowed:
        raise RefusedError(
            "MEM601",
            f"source {source!r} is not allowed (mem.toml [sources] allowed: {', '.join(config.sources.allowed)}); "
            "text an agent read from the web or a tool is how injected instructions become memory",
        )
    check_text_field("value", new.value, config.memory.max_value_chars)
    if new.ref:
        check_text_field("source_ref", new.ref, config.memory.max_value_chars)
    stated_at = clock.parse_when(new.at) if new.at else clock.now()
    expires = _expiry(new.expires, stated_at)
    confidence = "inferred" if new.inferred else "stated"
    return Fact.model_validate(
        {
            "id": fact_id(new.key, new.value, stated_at, confidence, set()),
            "key": new.key,
            "value": new.value.strip(),
            "subject": new.subject,
            "confidence": confidence,
            "source": source,
            "source_ref": new.ref,
            "stated_at": stated_at,
            "valid_from": stated_at,
            "expires_at": expires,
            "status": "active",
        }
    )


def _expiry(expires: str | When | None, stated_at: When) -> When | None:
    """`--expires`: a date, a datetime, or `Nd` after the fact was stated."""
    if expires is None or expires == "":
        return None
    if isinstance(expires, str):
        return clock.parse_date_or_days(expires, start=stated_at)
    return clock.parse_when(expires)


def transaction(paths: Paths, scope: Scope, change: Callable[[MemoryDoc], tuple[T, str | None]]) -> T:
    """Read, change, write and commit one scope under its lock. `change` returns (result, commit message or None)."""
    with scope_lock(paths, scope):
        doc = read_memory(paths, scope)
        result, message = change(doc)
        if message is None:
            return result
        path = paths.memory_file(scope)
        _refuse_during_merge(paths)
        before = {paths.relative(path): (path, _current(path))}
        atomic_write(path, serialize(doc))
        _commit_or_undo(paths, before, message)
        return result


def add_fact(paths: Paths, config: Config, scope: Scope, new: NewFact) -> Outcome:
    """Validate, guard, settle, write and commit one fact; the Outcome says what happened."""
    fact = validate(new, config)  # refuse before taking any lock or opening any file

    def change(doc: MemoryDoc) -> tuple[Outcome, str | None]:
        outcome = settle(doc.facts, fact, config, str(scope))
        return outcome, f"mem: add {scope} {fact.key}\n\n{outcome.line()}\n"

    return transaction(paths, scope, change)


def settle(facts: list[Fact], fact: Fact, config: Config, scope: str) -> Outcome:
    """Settle a validated fact into a scope's facts, in place: the fact limit, review mode, then supersession."""
    if len(facts) >= config.memory.max_facts_per_scope:
        raise RefusedError("MEM603", f"{scope} holds {len(facts)} facts, the limit (mem.toml max_facts_per_scope)")
    fact.id = fact_id(fact.key, fact.value, fact.stated_at, fact.confidence, {f.id for f in facts})
    if fact.source in config.sources.review:
        fact.status = "proposed"
        facts.append(fact)
        return Outcome(kind="proposed", scope=scope, key=fact.key, fact_id=fact.id)
    return supersession.add(facts, fact, scope)


def _find(doc: MemoryDoc, fact_id: str) -> Fact:
    for fact in doc.facts:
        if fact.id == fact_id:
            return fact
    raise NotFoundError(f"no fact {fact_id!r} in {doc.scope} (see `mem show --all`)")


def forget(paths: Paths, scope: Scope, target: str) -> list[Fact]:
    """Remove a fact (by id) or every fact of a key (history included) from MEMORY.md; one commit."""

    def change(doc: MemoryDoc) -> tuple[list[Fact], str | None]:
        gone = [f for f in doc.facts if f.id == target] or [f for f in doc.facts if f.key == target]
        if not gone:
            raise NotFoundError(f"no fact with id or key {target!r} in {scope} (see `mem show --all`)")
        doc.facts = [f for f in doc.facts if f not in gone]
        ids = ", ".join(f.id for f in gone)
        return gone, f"mem: forget {scope} {gone[0].key}\n\nremoved {ids} from the working tree\n"

    return transaction(paths, scope, change)


def resolve(paths: Paths, scope: Scope, key: str, keep: str) -> list[Fact]:
    """End a conflict on `key`: keep one fact, supersede the others with reason "resolved by person"."""

    def change(doc: MemoryDoc) -> tuple[list[Fact], str | None]:
        kept = _find(doc, keep)
        if kept.key != key:
            raise MemError(f"fact {keep} is about {kept.key!r}, not {key!r}")
        if not kept.is_current:
            raise MemError(f"fact {keep} is {kept.status}; keep one of the current facts of {key!r} (`mem show --all`)")
        ended = supersession.resolve(doc.facts, key, keep, clock.now())
        if not ended and kept.status == "active":
            raise MemError(f"{key!r} has no conflict in {scope}: {keep} is already its only current fact")
        return ended, f"mem: resolve {scope} {key}\n\nkept {keep}; superseded {', '.join(f.id for f in ended)}\n"

    return transaction(paths, scope, change)


def accept(paths: Paths, scope: Scope, target: str) -> Outcome:
    """A person accepts a proposed fact: it is settled like a new write (same supersession rules)."""

    def change(doc: MemoryDoc) -> tuple[Outcome, str | None]:
        fact = _find(doc, target)
        if fact.status != "proposed":
            raise MemError(f"fact {target} is {fact.status}, not proposed")
        doc.facts.remove(fact)
        outcome = supersession.add(doc.facts, fact, str(scope))
        return outcome, f"mem: accept {scope} {fact.key}\n\n{outcome.line()}\n"

    return transaction(paths, scope, change)


def reject(paths: Paths, scope: Scope, target: str) -> Fact:
    """A person rejects a proposed fact: it stays as history with status `retracted`."""

    def change(doc: MemoryDoc) -> tuple[Fact, str | None]:
        fact = _find(doc, target)
        if fact.status != "proposed":
            raise MemError(f"fact {target} is {fact.status}, not proposed")
        fact.status = "retracted"
        fact.reason = "rejected by person"
        fact.valid_to = clock.now()
        return fact, f"mem: reject {scope} {fact.key}\n\nretracted {fact.id}\n"

    return transaction(paths, scope, change)


# --- episodes (FORMAT.md, "Episodes"): the same guard and policy as facts, one new file per episode ---

_LISTED_FILES = 50  # files named in a commit message; the rest are counted


@dataclass(slots=True)
class NewEpisode:
    """An episode as a writer records it (`mem episode`, `--from-json`), before validation."""

    summary: str
    session: str | None = None
    at: str | When | None = None
    ended: str | When | None = None
    entities: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    outcome: str = "unknown"
    facts: list[NewCandidate] = field(default_factory=list)
    invalidates: list[NewInvalidation] = field(default_factory=list)
    source: str | None = None


@dataclass(slots=True)
class NewCandidate:
    """A candidate fact a writer puts in an episode (`--fact KEY=VALUE`), before validation."""

    key: str
    value: str
    subject: str | None = None
    confidence: str | None = None


@dataclass(slots=True)
class NewInvalidation:
    """A key a writer says the episode makes stale (`--invalidates KEY=REASON`), before validation."""

    key: str
    reason: str


@dataclass(slots=True)
class EpisodeWrite:
    """What recording one episode did: `recorded` (a new file) or `exists` (the same episode is already there)."""

    kind: str
    episode: Episode
    path: str

    def line(self) -> str:
        return f"{self.kind} {self.episode.id} {self.path}"

    def to_dict(self) -> dict[str, object]:
        return {"outcome": self.kind, "id": self.episode.id, "path": self.path, "scope": self.episode.scope}


def validate_episode(new: NewEpisode, config: Config, scope: Scope) -> Episode:
    """Turn a NewEpisode into an Episode, or raise RefusedError/MemError saying what is wrong. Opens no file."""
    from memfiles.format.episodes import DEFAULT_SOURCE, OUTCOMES, Episode, episode_id

    source = new.source or DEFAULT_SOURCE
    if source not in config.sources.allowed:
        raise RefusedError(
            "MEM601",
            f"source {source!r} is not allowed (mem.toml [sources] allowed: {', '.join(config.sources.allowed)})",
        )
    summary = new.summary.replace("\r\n", "\n").strip()
    size = len(summary) + sum(len(e) for e in new.events)
    if size > config.memory.max_episode_chars:
        raise RefusedError(
            "MEM602",
            f"episode is {size} characters (summary plus events), over the limit of {config.memory.max_episode_chars} "
            "(mem.toml max_episode_chars)",
        )
    check_text_field("summary", summary, config.memory.max_episode_chars, one_line=False)
    if new.session is not None:
        check_text_field("session", new.session, config.memory.max_value_chars)
    for entity in new.entities:
        check_text_field("entity", entity, config.memory.max_value_chars)
    for event in new.events:
        check_text_field("event", event, config.memory.max_value_chars)
    if new.outcome not in OUTCOMES:
        raise MemError(f"invalid outcome {new.outcome!r}: use one of {', '.join(OUTCOMES)}")
    for candidate in new.facts:
        _check_key(candidate.key)
        check_text_field(f"fact {candidate.key}", candidate.value, config.memory.max_value_chars)
        if candidate.subject is not None and candidate.subject not in SUBJECTS:
            raise MemError(f"invalid subject {candidate.subject!r}: use one of {', '.join(SUBJECTS)}")
        if candidate.confidence not in (None, "stated", "inferred"):
            raise MemError(f"invalid confidence {candidate.confidence!r}: use stated or inferred")
    for stale in new.invalidates:
        _check_key(stale.key)
        check_text_field(f"reason for invalidating {stale.key}", stale.reason, config.memory.max_value_chars)
    started = clock.parse_when(new.at) if new.at else clock.now()
    ended = clock.parse_when(new.ended) if new.ended else None
    if ended is not None and clock.compare(ended, started) < 0:
        raise MemError(f"the episode ends ({ended}) before it starts ({started}); check --at and --ended")
    return Episode.model_validate(
        {
            "id": episode_id(str(scope), new.session, started, summary),
            "scope": str(scope),
            "started_at": started,
            "summary": summary,
            "session": new.session.strip() if new.session else None,
            "ended_at": ended,
            "entities": [e.strip() for e in new.entities],
            "outcome": new.outcome,
            "events": [e.strip() for e in new.events],
            "source": source,
            "facts": [
                {"key": c.key, "value": c.value.strip(), "subject": c.subject, "confidence": c.confidence}
                for c in new.facts
            ],
            "invalidates": [{"key": i.key, "reason": i.reason.strip()} for i in new.invalidates],
        }
    )


def _check_key(key: str) -> None:
    if not KEY_PATTERN.fullmatch(key):
        raise MemError(
            f"invalid key {key!r}: keys are 1-64 characters of a-z, 0-9, '_', '.' or '-', starting with a letter"
        )


def _place(paths: Paths, scope: Scope, episode: Episode) -> tuple[Path, bool]:
    """The free file name for `episode` (`-2`, `-3`… on a collision), or the file that already holds it."""
    from memfiles.format import episodes

    folder = paths.episode_month_dir(scope, clock.day(episode.started_at))
    attempt = 1
    while True:
        path = folder / episodes.file_name(episode, attempt)
        if not path.exists() and not path.is_symlink():
            return path, False
        try:
            if episodes.parse(path.read_bytes(), paths.relative(path), str(scope)).id == episode.id:
                return path, True
        except (OSError, MemError):
            pass  # a broken or unreadable file keeps its name and its bytes; take the next name
        attempt += 1


def add_episodes(paths: Paths, config: Config, scope: Scope, batch: list[NewEpisode]) -> list[EpisodeWrite]:
    """Validate and guard every episode, then write each as a new file and make one commit for the batch."""
    if not batch:
        raise MemError("no episode to record")
    from memfiles.format import episodes

    checked = [validate_episode(new, config, scope) for new in batch]  # all or nothing: refuse before writing
    results: list[EpisodeWrite] = []
    with scope_lock(paths, scope):
        _refuse_during_merge(paths)
        for episode in checked:
            path, exists = _place(paths, scope, episode)
            if not exists:
                atomic_write(path, episodes.serialize(episode))
            results.append(EpisodeWrite("exists" if exists else "recorded", episode, paths.relative(path)))
        written = [r for r in results if r.kind == "recorded"]
        if written:
            new_files = {r.path: (paths.root / r.path, None) for r in written}
            _commit_or_undo(paths, new_files, _episode_message(scope, written))
            _note_written(paths, scope, [r.path for r in written])
    return results


def _episode_message(scope: Scope, written: list[EpisodeWrite]) -> str:
    if len(written) == 1:
        episode = written[0].episode
        title = f"mem: episode {scope} {episode.session or episode.id}"
    else:
        title = f"mem: episodes {scope} ({len(written)})"
    # The message is one argument to git; listing thousands of files would exceed the OS limit (128 KiB).
    listed = "".join(f"recorded {r.path}\n" for r in written[:_LISTED_FILES])
    more = f"… and {len(written) - _LISTED_FILES} more\n" if len(written) > _LISTED_FILES else ""
    return title + "\n\n" + listed + more


# --- consolidation (FORMAT.md, "Consolidation"): a whole scope read, then changed in one commit ---


@dataclass(slots=True)
class FileChanges:
    """Whole files to write and files to remove in one scope, committed together with one message."""

    writes: list[tuple[Path, str, bytes]]
    removes: list[tuple[Path, str]]
    message: str


def apply_files(
    paths: Paths,
    scope: Scope,
    decide: Callable[[ScopeFiles], tuple[T, FileChanges | None]],
    write: bool = True,
    progress: Progress | None = None,
) -> T:
    """Read the scope, let `decide` plan its changes, then write them all and make ONE commit, under the lock.

    Digests are written first and episode files removed last, so an interrupted run never leaves an
    episode without its digest line (and `mem doctor` finds the uncommitted rest). With `write=False`
    nothing is locked, written or committed (a dry run).
    """
    from memfiles.ops import scopefiles

    if not write:
        return decide(scopefiles.read(paths, scope, progress))[0]
    with scope_lock(paths, scope):
        result, changes = decide(scopefiles.read(paths, scope, progress))
        if changes is None or not (changes.writes or changes.removes):
            return result
        _refuse_during_merge(paths)
        touched = [(path, relpath) for path, relpath, _data in changes.writes] + changes.removes
        before = {relpath: (path, _current(path)) for path, relpath in touched}
        for path, _relpath, data in changes.writes:
            atomic_write(path, data)
        for path, _relpath in changes.removes:
            path.unlink(missing_ok=True)
        _commit_or_undo(paths, before, changes.message)
        _note_written(paths, scope, list(before))  # marked, folded and removed episodes leave the recall index now
    return result


def _refuse_during_merge(paths: Paths) -> None:
    """Refuse a write while `mem sync` has a merge unfinished: its conflict markers would be committed."""
    if gitrepo.merge_in_progress(paths.root):
        root = paths.root
        raise MemError(
            f"an earlier `mem sync` left a merge unfinished in {root}, and nothing is written until it is done: "
            "edit the files with conflict markers (`mem doctor` lists them), then run `mem sync --commit`; "
            f"or give the merge up: git -C {root} merge --abort"
        )


def _current(path: Path) -> bytes | None:
    """A file's bytes before a write, to put back if the commit fails (None: it did not exist)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _commit_or_undo(paths: Paths, before: Mapping[str, tuple[Path, bytes | None]], message: str) -> None:
    """Commit the written files (relpath -> (path, bytes before)); if git fails, put each back as it was.

    A write left in place after a failed commit would go into the next write's commit, under that
    write's message, and the history would lie about who changed what.
    """
    try:
        with git_lock(paths):
            gitrepo.commit(paths.root, list(before), message)
    except GitError as failed:
        for path, data in before.values():
            if data is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write(path, data)
        shown = ", ".join(list(before)[:3]) + (f" and {len(before) - 3} more" if len(before) > 3 else "")
        raise GitError(
            f"{failed}. The write was undone: {shown} {'is' if len(before) == 1 else 'are'} as before"
        ) from None


def _note_written(paths: Paths, scope: Scope, relpaths: list[str]) -> None:
    """The scope's recall index (a cache) follows the write; it never fails it.

    Most writes go to scopes that have no index yet (the first recall builds it): then the index
    module, with SQLite and the scorer, is not even imported (10 ms of every `mem episode`).
    """
    if paths.index_files(scope):
        from memfiles.recall import index

        index.note_written(paths, scope, relpaths)
