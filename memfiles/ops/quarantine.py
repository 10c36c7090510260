"""Quarantine (FORMAT.md, "Quarantine"): an episode whose text the guard finds instruction-shaped is stored,
held back from every reader, and settled by a person.

`review` decides, for an episode as it is now, whether a reader may see it: never when it is
`rejected`; when a person accepted exactly this text (`accepted.sha256`) on this machine (the acceptance
signed with its key); never while it is `flagged`;
otherwise when the guard finds no error in its text as render and recall show it. The same decision
holds for an episode written by `mem episode` and for one that arrived by hand edit or `git pull`, so
recall, render, the hook and consolidation all call `withheld`. `accept` and `reject` settle a held
episode: one commit each.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from memfiles import clock
from memfiles.errors import MemError, NotFoundError
from memfiles.format import episodes
from memfiles.format.episodes import Acceptance, Episode, HeldFinding, guarded_lines, text_sha256
from memfiles.format.layout import Paths, Scope

if TYPE_CHECKING:
    from memfiles.api.guard import Where

State = Literal["shown", "flagged", "accepted", "rejected"]


def findings(episode: Episode) -> list[HeldFinding]:
    """The guard's error findings on `episode` now: its text as a transcript or an episode, its fact values strictly.

    Each is recorded as its rule's code and where it is (`summary, column 12`), never the rule's words or the
    text matched: the frontmatter that holds them is read by `mem lint` too (`mem lint --explain CODE` says more)."""
    from memfiles.lint.rules import ERROR, check_text, fact_errors

    lines = guarded_lines(episode)
    where: Where = "transcript" if episode.transcript else "episode"
    found: list[HeldFinding] = []
    if lines:
        for f in check_text("\n".join(text for _, text in lines), kind=where):
            if f.severity == ERROR:
                name = lines[f.line - 1][0] if 0 < f.line <= len(lines) else "text"
                found.append(HeldFinding(code=f.code, message=_one_line(f"{name}, column {f.col}")))
    for fact in episode.facts:  # judged as the fact it proposes would be (a goal is said in the imperative)
        for f in fact_errors(fact.value, key=fact.key, subject=fact.subject or ""):
            found.append(HeldFinding(code=f.code, message=_one_line(f"fact {fact.key}, column {f.col}")))
    unique: dict[tuple[str, str], HeldFinding] = {}
    for held in found:
        unique.setdefault((held.code, held.message), held)
    return list(unique.values())


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class Review:
    """What a reader may see of one episode: its state, and the findings that hold it (or that a person accepted)."""

    state: State
    findings: list[HeldFinding] = field(default_factory=list)

    @property
    def withheld(self) -> bool:
        """Never rendered, recalled, given to a hook or an extractor, nor consolidated."""
        return self.state in ("flagged", "rejected")


def review(episode: Episode, *, full: bool = False) -> Review:
    """The episode's state now. `full`: also run the guard on an accepted episode (doctor lists what it still finds)."""
    if episode.status == "rejected":
        return Review("rejected", list(episode.findings))
    if episode.accepted is not None and episode.accepted.sha256 == text_sha256(episode) and accepted_here(episode):
        return Review("accepted", findings(episode) if full else list(episode.findings))
    if episode.status == "flagged":
        return Review("flagged", list(episode.findings) or findings(episode))
    found = findings(episode)
    return Review("flagged", found) if found else Review("shown")


def _signed(episode: Episode, sha256: str) -> tuple[str, ...]:
    return ("memfiles episode acceptance", episode.scope, episode.id, sha256)


def signature(episode: Episode) -> str:
    """This machine's signature of a person's acceptance of `episode`'s text now (what `accept` records)."""
    from memfiles.store import machine

    return machine.sign(*_signed(episode, text_sha256(episode)))


def accepted_here(episode: Episode) -> bool:
    """Whether a person accepted this episode's recorded hash on this machine: an acceptance is text anyone who
    can push to the remote or hand over an export can write, so only one signed with this machine's key
    (memfiles.store.machine) counts; any other leaves the decision to the guard, as if never accepted."""
    from memfiles.store import machine

    accepted = episode.accepted
    if accepted is None:
        return False
    return any(machine.verify(sig, *_signed(episode, accepted.sha256)) for sig in accepted.signatures)


def withheld(episode: Episode) -> bool:
    """Whether no reader may see `episode` (see `review`)."""
    return review(episode).withheld


_Change = Callable[[Episode, Review], str]  # changes a held episode in place; returns the commit's verb


@dataclass(frozen=True, slots=True)
class Held:
    """An episode waiting for a person, or settled by one: where its file is, the episode, its review."""

    relpath: str
    episode: Episode
    review: Review


def _locate(paths: Paths, scope: Scope, episode_id: str) -> tuple[Path, bytes, Episode]:
    if not episodes.ID_PATTERN.fullmatch(episode_id):
        raise MemError(f"invalid episode id {episode_id!r}: expected e- and 12 hex digits (see `mem review`)")
    needle = episode_id.encode()
    found_in: list[tuple[Path, bytes, Episode]] = []
    for path in reversed(paths.episode_files(scope)):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if needle not in data:
            continue
        try:
            found = episodes.parse(data, paths.relative(path), str(scope))
        except MemError:
            continue
        if found.id == episode_id:
            found_in.append((path, data, found))
    if len(found_in) > 1:  # a copy (or a planted twin): a decision on one would leave the other as it was
        names = ", ".join(sorted(paths.relative(path) for path, _data, _episode in found_in))
        raise MemError(
            f"episode {episode_id} is in {len(found_in)} files ({names}): one id names one episode, so nothing was "
            "decided; remove the copies you do not want (git rm), then try again"
        )
    if found_in:
        return found_in[0]
    raise NotFoundError(f"no episode {episode_id} in {scope}'s episodes folder (see `mem review`)")


def held(paths: Paths, scope: Scope, use_index: bool = True) -> list[Held]:
    """Every episode of the scope whose file is not an ordinary one: flagged, accepted or rejected, oldest first.

    The recall index says which files to read (it reviews each file when its bytes change); without a usable
    index, or with `use_index=False` (doctor, which examines the index itself), every file is read and reviewed."""
    from memfiles.recall import index

    files: list[Path] | None = None
    if use_index:
        with contextlib.suppress(index.IndexUnavailable, MemError):  # else the files are read
            files = [paths.episodes_dir(scope) / name for name in index.reviewed(paths, scope)]
    if files is None:
        files = paths.episode_files(scope)
    out: list[Held] = []
    for path in files:
        try:
            episode = episodes.parse(path.read_bytes(), paths.relative(path), str(scope))
        except (OSError, MemError):
            continue  # reported by recall, lint and doctor as a file that does not parse
        decided = review(episode, full=episode.status == "accepted")
        if decided.state != "shown":
            out.append(Held(paths.relative(path), episode, decided))
    return out


def unsettled(paths: Paths) -> list[tuple[str, int, HeldFinding]]:
    """(path, line of its summary, finding) for each flagged episode of the home: what `mem lint` adds to its
    report, since the guard reads an episode as it is shown (lines joined) and lint reads its lines."""
    out: list[tuple[str, int, HeldFinding]] = []
    for scope in paths.scopes():
        for one in held(paths, scope):
            if one.review.state != "flagged":
                continue
            try:
                data = (paths.root / one.relpath).read_bytes()
            except OSError:
                continue
            body = data.rfind(b"\n---", 0, len(data) - len(one.episode.summary.encode("utf-8")))
            line = data.count(b"\n", 0, body + 1) + 2 if body >= 0 else 1
            found = one.review.findings or [HeldFinding(code="MEM1", message="status: flagged")]
            out += [(one.relpath, line, finding) for finding in found]
    return out


def accept(paths: Paths, scope: Scope, episode_id: str, by: str) -> Held:
    """A person lets a held episode in: `status: accepted` and `accepted:` with the hash of this text; one commit."""

    def change(episode: Episode, decided: Review) -> str:
        if decided.state == "shown":
            raise MemError(f"episode {episode_id} is not flagged: the guard finds nothing in it, so nothing to accept")
        if decided.state == "accepted":
            raise MemError(f"episode {episode_id} is already accepted (its text has not changed since)")
        sha256 = text_sha256(episode)
        # Accepted on another machine (a teammate, a restored export): this machine's signature is added beside
        # theirs, so each machine honours the acceptances its own people gave.
        before = episode.accepted.signatures if episode.accepted and episode.accepted.sha256 == sha256 else []
        episode.findings = findings(episode) or list(decided.findings)
        episode.status = "accepted"
        mine = signature(episode)
        episode.accepted = Acceptance(
            sha256=sha256, at=clock.now(), by=" ".join(by.split()) or "person", signatures=[*before, mine]
        )
        return "accept"

    return _settle(paths, scope, episode_id, change)


def reject(paths: Paths, scope: Scope, episode_id: str) -> Held:
    """A person rejects an episode: `status: rejected`; it stays in its file and is never shown; one commit."""

    def change(episode: Episode, decided: Review) -> str:
        if decided.state == "rejected":
            raise MemError(f"episode {episode_id} is already rejected")
        episode.findings = list(decided.findings) or findings(episode)
        episode.status = "rejected"
        episode.accepted = None
        return "reject"

    return _settle(paths, scope, episode_id, change)


def _settle(paths: Paths, scope: Scope, episode_id: str, change: _Change) -> Held:
    from memfiles.ops.commit import commit_or_undo, note_written, refuse_during_merge, refuse_hand_edits
    from memfiles.store.files import atomic_write, scope_lock

    with scope_lock(paths, scope):
        refuse_during_merge(paths)
        path, data, episode = _locate(paths, scope, episode_id)
        refuse_hand_edits(paths, [path], f"settling episode {episode_id}")  # decide on committed text only
        verb = change(episode, review(episode))
        relpath = paths.relative(path)
        atomic_write(path, episodes.serialize(episode))
        commit_or_undo(paths, {relpath: (path, data)}, f"mem: {verb} episode {scope} {episode_id}\n\n{relpath}\n")
        note_written(paths, scope, [relpath])
    return Held(relpath, episode, review(episode))
