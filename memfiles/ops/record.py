"""Recording episodes (FORMAT.md, "Episodes"): one new file per episode, one commit per batch.

Every episode is validated before any file is written, and a refusal (a source not allowed, a limit,
an empty or malformed field) refuses the whole batch. The guard does not refuse an episode: one whose
text it finds instruction-shaped is stored `status: flagged` with its findings and held back from
every reader until a person accepts it (memfiles.ops.quarantine), so the rest of a batch is stored.
`[guard] episodes = "refuse"` in mem.toml refuses such an episode (and its batch) instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from memfiles import clock
from memfiles.clock import When
from memfiles.errors import MemError, RefusedError
from memfiles.format import episodes
from memfiles.format.config import Config
from memfiles.format.episodes import DEFAULT_SOURCE, OUTCOMES, Episode, episode_id
from memfiles.format.fields import KEY_PATTERN, SUBJECTS, printable_line
from memfiles.format.layout import Paths, Scope
from memfiles.ops import quarantine
from memfiles.ops.commit import commit_or_undo, note_written, refuse_during_merge
from memfiles.ops.textfield import check_text_field
from memfiles.store.files import atomic_write, scope_lock

if TYPE_CHECKING:
    from memfiles.capture.summary import Draft

_LISTED_FILES = 50  # files named in a commit message; the rest are counted
# How much one episode may carry (docs/FORMAT.md, "Episodes"): a writer (an assistant over MCP, a JSON file)
# could otherwise send 100,000 candidate facts, and every later consolidation would read them all.
MAX_EPISODE_FACTS = 100
MAX_EPISODE_INVALIDATIONS = 100
MAX_EPISODE_ENTITIES = 100
MAX_EPISODE_EVENTS = 500


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
    transcript: bool = False  # declared by the writer (capture, import, --transcript), never guessed
    ref: str | None = None  # `source_ref`: where it came from (a session and transcript, a file and record)


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
    """What recording one episode did: `recorded` (a new file), `quarantined` (a new file, held back with its
    findings) or `exists` (the same episode is already there); `masked`: the distinct secrets its texts held, masked
    before anything was written."""

    kind: str
    episode: Episode
    path: str
    masked: int = 0


def masked_episode(new: NewEpisode) -> tuple[NewEpisode, int]:
    """`new` with every secret in every text masked (`<masked>`): summary, session, entities, events, source_ref,
    candidate facts and reasons; and how many distinct secrets it held. An episode is stored with its secrets
    masked, never held back with them inside: a held-back file is still committed, synced and kept in history."""
    from memfiles.capture.secrets import Masker, masked_id

    clean = Masker()
    session = new.session
    if session is not None and clean(session) != session:
        session = masked_id(session)
    masked = replace(
        new,
        summary=clean(new.summary),
        session=session,
        entities=[clean(e) for e in new.entities],
        events=[clean(e) for e in new.events],
        ref=clean(new.ref) if new.ref else new.ref,
        facts=[replace(c, value=clean(c.value)) for c in new.facts],
        invalidates=[replace(i, reason=clean(i.reason)) for i in new.invalidates],
    )
    return masked, clean.count


def validate_episode(new: NewEpisode, config: Config, scope: Scope) -> Episode:
    """Turn a NewEpisode into an Episode, or raise RefusedError/MemError saying what is wrong. Opens no file.
    Secrets are masked first (`masked_episode`)."""
    return _validated(masked_episode(new)[0], config, scope)


def _validated(new: NewEpisode, config: Config, scope: Scope) -> Episode:
    """`validate_episode` of an episode whose secrets are already masked."""
    source = new.source or DEFAULT_SOURCE
    if source not in config.sources.allowed:
        raise RefusedError(
            "MEM601",
            f"source {source!r} is not allowed ([sources] allowed: {', '.join(config.sources.allowed)}; "
            "a source is added in mem.local.toml)",
        )
    for what, items, most in (
        ("candidate facts", new.facts, MAX_EPISODE_FACTS),
        ("invalidations", new.invalidates, MAX_EPISODE_INVALIDATIONS),
        ("entities", new.entities, MAX_EPISODE_ENTITIES),
        ("events", new.events, MAX_EPISODE_EVENTS),
    ):
        if len(items) > most:
            raise RefusedError(
                "MEM602", f"episode has {len(items)} {what}, over the limit of {most} per episode; record fewer"
            )
    summary = new.summary.replace("\r\n", "\n").strip()
    size = len(summary) + sum(len(e) for e in new.events)
    if size > config.memory.max_episode_chars:
        raise RefusedError(
            "MEM602",
            f"episode is {size} characters (summary plus events), over the limit of {config.memory.max_episode_chars} "
            "(mem.toml max_episode_chars)",
        )
    most = config.memory.max_value_chars
    check_text_field("summary", summary, config.memory.max_episode_chars, one_line=False, guarded=False)
    if new.session is not None:
        check_text_field("session", new.session, most, guarded=False)
    if new.ref:  # as for a fact, an empty ref is no ref
        check_text_field("source_ref", new.ref, most, guarded=False)
    for entity in new.entities:
        check_text_field("entity", entity, most, guarded=False)
    for event in new.events:
        check_text_field("event", event, most, guarded=False)
    if new.outcome not in OUTCOMES:
        raise MemError(f"invalid outcome {new.outcome!r}: use one of {', '.join(OUTCOMES)}")
    for candidate in new.facts:
        _check_key(candidate.key)
        check_text_field(f"fact {candidate.key}", candidate.value, most, guarded=False)
        if candidate.subject is not None and candidate.subject not in SUBJECTS:
            raise MemError(f"invalid subject {candidate.subject!r}: use one of {', '.join(SUBJECTS)}")
        if candidate.confidence not in (None, "stated", "inferred"):
            raise MemError(f"invalid confidence {candidate.confidence!r}: use stated or inferred")
    for stale in new.invalidates:
        _check_key(stale.key)
        check_text_field(f"reason for invalidating {stale.key}", stale.reason, most, guarded=False)
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
            "source_ref": new.ref or None,
            "transcript": new.transcript,
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


def _recorded_today(paths: Paths, scope: Scope, episode: Episode) -> tuple[Episode, Path] | None:
    """An episode recorded without `--at` takes its start from the clock, so running the same `mem episode`
    again gives it a new time and a new id: the same session and summary already recorded that UTC day is it."""
    day = clock.day(episode.started_at)
    folder = paths.episode_month_dir(scope, day)
    words = " ".join(episode.summary.split())
    named = f"{day.isoformat()}T*-{episodes.slug(episode)}*.md"  # the same words make the same slug: few files read
    for path in sorted(folder.glob(named)) if folder.is_dir() else []:
        try:
            stored = episodes.parse(path.read_bytes(), paths.relative(path), str(scope))
        except (OSError, MemError):
            continue
        if stored.session == episode.session and " ".join(stored.summary.split()) == words:
            return stored, path
    return None


def from_draft(made: Draft, source: str, limit: int) -> NewEpisode:
    """The episode a captured or imported transcript becomes: declared a transcript, with its real times, and
    its `source_ref` cut to `limit` characters (mem.toml max_value_chars) so that a long path never refuses it."""
    return NewEpisode(
        summary=made.summary,
        session=made.session,
        at=clock.iso(made.started) if made.started else None,
        ended=clock.iso(made.ended) if made.ended else None,
        entities=made.entities,
        events=made.events,
        outcome=made.outcome,
        source=source,
        transcript=True,
        ref=printable_line(made.ref, limit) if made.ref else None,
    )


def hold(episode: Episode, config: Config) -> bool:
    """Run the guard on a validated episode: with an error finding it is flagged (quarantined) with its findings,
    or refused under `[guard] episodes = "refuse"`. True when it is held back."""
    held = quarantine.findings(episode)
    secret = next((f for f in held if f.code.startswith("MEM3")), None)
    if secret is not None:  # masking missed it: a held-back file is still committed, so nothing is written
        raise RefusedError(secret.code, f"{secret.message}; a secret is never stored, remove it and record again")
    if held and config.guard.episodes == "refuse":
        where = '[guard] episodes = "refuse" in mem.toml; the default quarantines it for `mem review`'
        raise RefusedError(held[0].code, f"{held[0].message} ({where})")
    if held:
        episode.status, episode.findings = "flagged", held
    return bool(held)


def add_episodes(paths: Paths, config: Config, scope: Scope, batch: list[NewEpisode]) -> list[EpisodeWrite]:
    """Validate and guard every episode, then write each as a new file and make one commit for the batch."""
    if not batch:
        raise MemError("no episode to record")
    masked = [masked_episode(new) for new in batch]  # each count is told: what is stored is not what was given
    checked = [_validated(clean, config, scope) for clean, _count in masked]  # refusals first: all or nothing
    for episode in checked:
        hold(episode, config)
    results: list[EpisodeWrite] = []
    with scope_lock(paths, scope):
        refuse_during_merge(paths)
        for new, episode, (_clean, secrets) in zip(batch, checked, masked, strict=True):
            same = None if new.at else _recorded_today(paths, scope, episode)
            if same is not None:  # no time given: the same words recorded today are this episode
                results.append(EpisodeWrite("exists", same[0], paths.relative(same[1]), secrets))
                continue
            path, exists = _place(paths, scope, episode)
            if not exists:
                atomic_write(path, episodes.serialize(episode))
            kind = "exists" if exists else "quarantined" if episode.status == "flagged" else "recorded"
            results.append(EpisodeWrite(kind, episode, paths.relative(path), secrets))
        written = [r for r in results if r.kind != "exists"]
        if written:
            new_files = {r.path: (paths.root / r.path, None) for r in written}
            commit_or_undo(paths, new_files, _episode_message(scope, written))
            note_written(paths, scope, [r.path for r in written])
    return results


def _episode_message(scope: Scope, written: list[EpisodeWrite]) -> str:
    if len(written) == 1:
        episode = written[0].episode
        title = f"mem: episode {scope} {episode.session or episode.id}"
    else:
        title = f"mem: episodes {scope} ({len(written)})"
    # The message is one argument to git; listing thousands of files would exceed the OS limit (128 KiB).
    listed = "".join(f"{r.kind} {r.path}\n" for r in written[:_LISTED_FILES])
    more = f"… and {len(written) - _LISTED_FILES} more\n" if len(written) > _LISTED_FILES else ""
    return title + "\n\n" + listed + more
