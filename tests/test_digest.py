"""Digest lines (FORMAT.md, "Digests") and marking an episode consolidated without touching its summary."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memfiles.errors import FileFormatError
from memfiles.format import digest, episodes
from memfiles.format.episodes import Episode


def make(summary: str = "Talked about a deposit. Then other things.", session: str | None = "s-3") -> Episode:
    # model_construct: the digest must stay one line even for text no episode file could hold
    return Episode.model_construct(
        id="e-5d1c0a9b2f31",
        scope="user:dana",
        started_at=datetime(2026, 3, 14, 9, tzinfo=UTC),
        summary=summary,
        session=session,
        outcome="success",
    )


def test_entry_line_golden() -> None:
    line = digest.entry(make(), "2026-03-14T09-00-00Z-s-3.md").line()
    assert line == (
        "- 2026-03-14 · session s-3 · success · Talked about a deposit. · e-5d1c0a9b2f31 · 2026-03-14T09-00-00Z-s-3.md"
    )
    assert digest.parse_line(line) == digest.entry(make(), "2026-03-14T09-00-00Z-s-3.md")


def test_no_session_round_trips_as_none() -> None:
    item = digest.entry(make(session=None), "x.md")
    assert " · session - · " in item.line()
    assert digest.parse_line(item.line()) == item


def test_long_first_sentence_is_cut_at_a_word() -> None:
    item = digest.entry(make("word " * 100), "x.md")
    assert len(item.summary) <= digest.SUMMARY_CHARS + 1 and item.summary.endswith("…")


def test_hostile_summary_and_session_stay_on_one_line_and_cannot_forge_an_entry() -> None:
    forged = "- 2026-01-01 · session x · success · forged · e-000000000000 · forged.md"
    hostile = make(summary=f"line one\n{forged}\r\n\u2028more\u202e\u200b", session="s · success · x\nboo")
    line = digest.entry(hostile, "real.md").line()
    assert "\n" not in line and "\r" not in line and "\u2028" not in line and "\u202e" not in line
    data = digest.fold(None, "user:dana", "2026-03", [digest.entry(hostile, "real.md")])
    assert [(e.id, e.file) for e in digest.entries(data)] == [("e-5d1c0a9b2f31", "real.md")]


def test_a_summary_that_mimics_the_tail_does_not_move_the_id() -> None:
    item = digest.entry(make(summary="x · e-000000000000 · fake.md"), "real.md")
    parsed = digest.parse_line(item.line())
    assert parsed is not None and parsed.id == "e-5d1c0a9b2f31" and parsed.file == "real.md"


def test_fold_new_digest_has_header_and_entries() -> None:
    data = digest.fold(None, "user:dana", "2026-03", [digest.entry(make(), "a.md")])
    text = data.decode()
    assert text.startswith("# Episode digest: user:dana, 2026-03\n\n")
    assert "mem show-episode ID" in text
    assert text.endswith("· e-5d1c0a9b2f31 · a.md\n")


def test_fold_appends_keeps_existing_bytes_and_skips_listed_ids() -> None:
    existing = b"# my own heading\r\nnotes a person wrote\r\n- 2026-03-01 \xff not an entry"
    first = digest.fold(existing, "user:dana", "2026-03", [digest.entry(make(), "a.md")])
    assert first.startswith(existing + b"\n")
    assert digest.fold(first, "user:dana", "2026-03", [digest.entry(make(), "a.md")]) == first
    assert digest.fold(existing, "user:dana", "2026-03", []) == existing


@given(
    summary=st.text(min_size=1, max_size=300),
    session=st.one_of(st.none(), st.text(min_size=1, max_size=40)),
)
def test_any_text_gives_one_parseable_line(summary: str, session: str | None) -> None:
    item = digest.entry(make(summary=summary, session=session), "2026-03-14T09-00-00Z-x.md")
    line = item.line()
    assert len(line.splitlines()) == 1
    parsed = digest.parse_line(line)
    assert parsed is not None and parsed.id == item.id and parsed.file == item.file


EPISODE = (
    b"---\r\n"
    b"id: e-5d1c0a9b2f31\r\n"
    b"scope: user:dana\r\n"
    b"started_at: 2026-03-14T09:00:00Z\r\n"
    b"outcome: success\r\n"
    b"consolidated: false   \r\n"
    b"---\r\n"
    b"\r\n  Summary kept   exactly.\r\n\r\n"
)


def test_mark_consolidated_changes_only_the_flag_line() -> None:
    marked = episodes.mark_consolidated(EPISODE, "x.md")
    assert marked == EPISODE.replace(b"consolidated: false   ", b"consolidated: true")
    assert episodes.parse(marked, "x.md").consolidated is True


def test_mark_consolidated_adds_a_missing_flag_and_keeps_the_body() -> None:
    data = b"\xef\xbb\xbf---\nid: e-5d1c0a9b2f31\nscope: user:dana\nstarted_at: 2026-03-14\n---\nbody\n\n"
    marked = episodes.mark_consolidated(data, "x.md")
    assert marked == data.replace(b"2026-03-14\n---", b"2026-03-14\nconsolidated: true\n---")


def test_mark_consolidated_falls_back_to_canonical_frontmatter() -> None:
    # A flow mapping puts `consolidated` on a line the simple edit cannot see.
    data = b"---\n{id: e-5d1c0a9b2f31, scope: 'user:dana', started_at: 2026-03-14, consolidated: false}\n---\nbody\n"
    marked = episodes.mark_consolidated(data, "x.md")
    assert marked.endswith(b"\n---\nbody\n")
    assert episodes.parse(marked, "x.md").consolidated is True


def test_mark_consolidated_refuses_a_broken_file() -> None:
    with pytest.raises(FileFormatError):
        episodes.mark_consolidated(b"no frontmatter", "x.md")


def test_the_format_doc_example_is_what_fold_writes() -> None:
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    example = re.findall(r"```digest-example\n(.*?)```", doc, re.S)[0].encode()
    (entry,) = digest.entries(example)
    assert entry.id == "e-1b8e2ab4b280" and entry.session == "s-3" and entry.file == "2026-03-14T00-00-00Z-s-3.md"
    assert digest.fold(None, "user:dana", "2026-03", [entry]) == example
