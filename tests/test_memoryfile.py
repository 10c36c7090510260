"""MEMORY.md parsing and writing: canonical output, body preserved byte for byte, broken files reported."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfiles import clock
from memfiles.errors import FileFormatError
from memfiles.format.memoryfile import MemoryDoc, parse, serialize
from memfiles.format.model import Fact

GOOD = b"""---
scope: user:alice
facts:
- id: f-3f9a1c2e
  key: notification_channel
  value: email
  subject: user_preference
  confidence: stated
  source: user_statement
  source_ref: session s-12, turn 4
  stated_at: 2026-06-02
  valid_from: 2026-06-02
  expires_at: null
  status: active
---
# alice
Anything a person writes here stays as written.
"""


def fact(**changes: str | None) -> Fact:
    base = Fact(
        id="f-00000001",
        key="k",
        value="v",
        subject="user_preference",
        confidence="stated",
        source="user_statement",
        stated_at="2026-01-01",
        valid_from="2026-01-01",
    )
    for name, value in changes.items():
        setattr(base, name, value)
    return base


def test_parse_reads_facts_and_keeps_the_body() -> None:
    doc = parse(GOOD, "users/alice/MEMORY.md", "user:alice")
    assert [(f.key, f.value, f.source_ref) for f in doc.facts] == [
        ("notification_channel", "email", "session s-12, turn 4")
    ]
    assert doc.body == b"# alice\nAnything a person writes here stays as written.\n"


def test_serialize_of_a_canonical_file_is_identical() -> None:
    assert serialize(parse(GOOD, "m", "user:alice")) == GOOD


def test_a_file_without_frontmatter_keeps_all_its_text_as_body() -> None:
    doc = parse(b"just notes\n---\nnot yaml: [\n", "m", "user:a")
    assert doc.facts == [] and doc.body == b"just notes\n---\nnot yaml: [\n"
    assert serialize(doc).endswith(b"---\njust notes\n---\nnot yaml: [\n")


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        (b"---\nscope: user:a\nfacts: [\n---\n", 4, "not valid YAML"),
        (b"---\nscope: user:a\nfacts:\n- id: f-1\n  key: k\n", 1, "never closed"),
        (b"---\nscope: user:a\ncolour: red\n---\n", 3, "unknown frontmatter field 'colour'"),
        (GOOD.replace(b"  stated_at: 2026-06-02", b"  stated_at: 2026-13-01"), 11, "`stated_at` is not a date"),
        (GOOD.replace(b"  status: active", b"  status: maybe"), 14, "`status` is 'maybe'"),
        (GOOD.replace(b"  expires_at: null", b"  expires_at: null\n  colour: red"), 14, "unknown fact field 'colour'"),
        (GOOD.replace(b"  source: user_statement\n", b""), 4, "missing `source`"),
        (
            GOOD.replace(
                b"- id: f-3f9a1c2e",
                b"- id: f-3f9a1c2e\n  key: a\n  value: b\n  subject: goal\n"
                b"  confidence: stated\n  source: x\n  stated_at: 2026-01-01\n  status: active\n- id: f-3f9a1c2e",
            ),
            12,
            "duplicate fact id",
        ),
        (b"---\nscope: user:bob\n---\n", 2, "does not match the folder's scope user:alice"),
        (b"---\nscope: user:alice\nfacts:\n- id: f-1\n  key: k\n  value: [1]\n", 1, "never closed"),
    ],
)
def test_broken_files_are_reported_with_path_and_line(text: bytes, line: int, problem: str) -> None:
    with pytest.raises(FileFormatError) as caught:
        parse(text, "users/alice/MEMORY.md", "user:alice")
    assert caught.value.line == line, str(caught.value)
    assert problem in caught.value.problem
    assert str(caught.value).startswith(f"users/alice/MEMORY.md:{line}: ")


def test_unsafe_yaml_tags_are_refused_not_executed() -> None:
    text = b"---\nscope: !!python/object/apply:os.system ['echo hi']\n---\n"
    with pytest.raises(FileFormatError, match="explicit YAML tag"):
        parse(text, "m", "user:a")


FACT_HEAD = "---\nscope: user:a\nfacts:\n- id: f-1\n  key: k\n"
FACT_TAIL = "  subject: user_preference\n  confidence: stated\n  source: user_statement\n  stated_at: 2026-01-02\n---\n"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("!!binary SWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnM=", "explicit YAML tag '!!binary'"),
        ("!!python/name:os.system ''", "explicit YAML tag '!!python/name:os.system'"),
        ("!secret text", "explicit YAML tag '!secret'"),
        ("!!int 42", "explicit YAML tag '!!int'"),
        ('"plain \\e[8mhidden"', "control character (U+001B)"),
        ('"\\x1b[8mhidden"', "control character (U+001B)"),
        ('"bell \\a"', "control character (U+0007)"),
        ('"next \\x85line"', "control character (U+0085)"),
    ],
)
def test_tags_and_control_characters_in_values_are_refused_naming_the_line(value: str, problem: str) -> None:
    """A value a person reads as one thing and a reader gets as another (a tag decodes it, an escape hides
    text) never parses: the error names the value's line (6)."""
    text = f"{FACT_HEAD}  value: {value}\n{FACT_TAIL}".encode()
    with pytest.raises(FileFormatError, match=re.escape(problem)) as caught:
        parse(text, "users/a/MEMORY.md", "user:a")
    assert caught.value.line == 6
    assert str(caught.value).startswith("users/a/MEMORY.md:6: ")


def test_a_written_file_holds_no_anchor_or_alias() -> None:
    """Equal values (stated_at and valid_from, two facts of one day) are each written out, never `&id001`/`*id001`."""
    same = {"stated_at": "2026-09-02", "valid_from": "2026-09-02", "last_confirmed": "2026-09-02"}
    doc = MemoryDoc("user:a", [fact(id="f-1", key="a", **same), fact(id="f-2", key="b", **same)], b"")
    written = serialize(doc)
    assert b"&" not in written and b"*" not in written
    assert written.count(b"2026-09-02") == 6
    assert parse(written, "m", "user:a").facts == doc.facts


def test_facts_are_written_in_canonical_order() -> None:
    doc = MemoryDoc("user:a", [fact(id="f-2", key="b"), fact(id="f-1", key="a", stated_at="2026-02-01")], b"")
    out = serialize(doc).decode()
    assert out.index("key: a") < out.index("key: b")


def test_datetimes_are_written_as_utc_iso() -> None:
    doc = MemoryDoc("user:a", [fact(stated_at="2026-01-01T10:00:00Z", valid_from="2026-01-01T10:00:00Z")], b"")
    text = serialize(doc)
    assert b"stated_at: 2026-01-01T10:00:00Z\n" in text
    assert parse(text, "m", "user:a").facts[0].stated_at == clock.parse_when("2026-01-01T10:00:00Z")


line_text = st.text(
    alphabet=st.characters(blacklist_categories=["Cc", "Cs", "Zl", "Zp"], blacklist_characters="\x85"),
    min_size=1,
    max_size=40,
).filter(lambda s: s.strip() == s and s != "")


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(st.tuples(line_text, line_text), max_size=4),
    body=st.binary(max_size=200),
)
def test_round_trip_keeps_every_fact_and_every_body_byte(values: list[tuple[str, str]], body: bytes) -> None:
    facts = [fact(id=f"f-{i:08x}", value=value, source_ref=ref) for i, (value, ref) in enumerate(values)]
    doc = MemoryDoc("user:a", facts, body)
    again = parse(serialize(doc), "m", "user:a")
    assert again.body == body
    assert [(f.id, f.value, f.source_ref) for f in again.facts] == [(f.id, f.value, f.source_ref) for f in facts]
    assert serialize(again) == serialize(doc)
