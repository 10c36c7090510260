"""Monthly episode digests (FORMAT.md, "Digests"): what `mem consolidate` leaves of old episodes.

One line per folded episode, in the month folder's DIGEST.md:

    - 2026-03-14 · session s-3 · success · Saved for a deposit. · e-5d1c0a9b2f31 · 2026-03-14T00-00-00Z-s-3.md

Pure: episodes in, lines and file bytes out. Stored text is put on one visible line (newlines,
control and invisible characters neutralised), so no summary can start a line of its own or forge
another episode's entry. The id and the file name end the line, so the original can be found in git
history (`mem show-episode ID`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memfiles import clock
from memfiles.format.episodes import Episode
from memfiles.recall.render import clean, shorten

SUMMARY_CHARS = 200  # a digest keeps the summary's first sentence, at most about this long
SEPARATOR = " · "
_LINE = re.compile(
    r"- (?P<date>\d{4}-\d{2}-\d{2}) · session (?P<session>.+?) · (?P<outcome>success|failure|partial|unknown)"
    r" · (?P<summary>.*) · (?P<id>e-[0-9a-f]{12}) · (?P<file>[^/]+\.md)"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
NO_SESSION = "-"


@dataclass(frozen=True, slots=True)
class Entry:
    """One folded episode as its digest line records it."""

    date: str
    session: str | None
    outcome: str
    summary: str
    id: str
    file: str

    def line(self) -> str:
        """The entry as one markdown list line (no newline)."""
        session = self.session or NO_SESSION
        return "- " + SEPARATOR.join((self.date, f"session {session}", self.outcome, self.summary, self.id, self.file))


def first_sentence(text: str, limit: int = SUMMARY_CHARS) -> str:
    """The first sentence of `text` on one clean line, cut at a word to about `limit` characters."""
    flat = clean(text[: 4 * limit])  # the first sentence is cut to `limit` anyway: clean no more than needed
    return shorten(_SENTENCE_END.split(flat, maxsplit=1)[0], limit) if flat else "(no summary)"


def entry(episode: Episode, file_name: str) -> Entry:
    """The digest entry of an episode stored as `file_name`."""
    session = clean(episode.session).replace("·", "-") if episode.session else None
    return Entry(
        date=clock.day(episode.started_at).isoformat(),
        session=session or None,
        outcome=episode.outcome,
        summary=first_sentence(episode.summary),
        id=episode.id,
        file=file_name,
    )


def parse_line(text: str) -> Entry | None:
    """The entry a digest line records, or None when the line is not an entry (headings, notes)."""
    match = _LINE.fullmatch(text.rstrip("\r\n"))
    if match is None:
        return None
    session = match["session"]
    return Entry(
        match["date"],
        None if session == NO_SESSION else session,
        match["outcome"],
        match["summary"],
        match["id"],
        match["file"],
    )


def entries(data: bytes) -> list[Entry]:
    """Every entry of a DIGEST.md, in file order (other lines are skipped)."""
    found = (parse_line(line) for line in data.decode("utf-8", errors="replace").splitlines())
    return [e for e in found if e is not None]


def header(scope: str, month: str) -> str:
    """The top of a new DIGEST.md."""
    return (
        f"# Episode digest: {scope}, {month}\n\n"
        "Episodes folded by `mem consolidate`, one per line: date · session · outcome · first sentence · id · "
        "file.\nEach original file is in git history: `mem show-episode ID` prints it.\n\n"
    )


def fold(existing: bytes | None, scope: str, month: str, new: list[Entry]) -> bytes:
    """DIGEST.md with `new` entries appended (ids already listed are not added twice).

    An existing digest keeps every byte (a person's notes included); entries are only appended, so
    a digest is a log in the order episodes were folded.
    """
    data = existing if existing is not None else header(scope, month).encode("utf-8")
    listed = {e.id for e in entries(data)} if existing is not None else set()
    lines = []
    for item in new:
        if item.id not in listed:
            listed.add(item.id)
            lines.append(item.line() + "\n")
    if not lines:
        return data
    if data and not data.endswith(b"\n"):
        data += b"\n"
    return data + "".join(lines).encode("utf-8")
