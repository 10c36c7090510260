"""memfiles.format.plainyaml writes what PyYAML writes, reads back only that, and hands everything else to PyYAML."""

from __future__ import annotations

import re
from datetime import date, datetime

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memfiles.format import plainyaml
from memfiles.format.memoryfile import _dumper, _loader, parse, serialize

# Text heavy in what YAML gives a meaning to: indicators, quotes, digits, the words of its resolvers.
_TRICKY = st.text(
    st.sampled_from(list(" :#-?'\",[]{}&*!|>%@`.~=<+_/0123456789eExXbyYnNtTfFoOlLsSuU\t\né\u2028\ufeff🙂")),
    max_size=12,
)
_WORDS = st.sampled_from(
    [
        "yes",
        "No",
        "null",
        "~",
        "true",
        "FALSE",
        "on",
        "0x1f",
        "0o7",
        "017",
        "1_000",
        "1:30",
        "-1",
        ".5",
        ".inf",
        "2026-06-02",
        "2026-06-02T10:00:00Z",
        "2026-6-2 1:00:00",
        "<<",
        "=",
        "---x",
        "...",
        "- x",
        "a: b",
        "a:b",
        "a #b",
        "a#b",
        "#a",
        "'q'",
        "it's",
        "x:",
        "? x",
        ":x",
        "",
        " lead",
        "trail ",
    ]
)
_TEXT = st.one_of(_TRICKY, _WORDS, st.text(max_size=8), st.builds("".join, st.lists(st.one_of(_TRICKY, _WORDS))))
_SCALARS = st.one_of(
    _TEXT,
    st.none(),
    st.booleans(),
    st.dates(),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)),
    st.integers(),
)
_KEYS = st.one_of(st.from_regex(r"[a-z_][a-z0-9_]{0,11}", fullmatch=True), st.sampled_from(["on", "no", "null", "y"]))
_VALUES = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=3),
    st.lists(st.dictionaries(_KEYS, _SCALARS, max_size=4), max_size=3),
)
_DATA = st.dictionaries(_KEYS, _VALUES, max_size=5)
_OPTIONS: dict[str, object] = {"sort_keys": False, "allow_unicode": True, "default_flow_style": False}


def _pyyaml(data: object) -> str:
    return yaml.dump(data, Dumper=_dumper(False), width=1_000_000, **_OPTIONS)


@settings(max_examples=1500, deadline=None)
@given(_DATA)
def test_dump_writes_exactly_what_pyyaml_writes(data: dict[str, object]) -> None:
    written = plainyaml.dump(data)
    if written is not None:
        assert written == _pyyaml(data)


@settings(max_examples=3000, deadline=None)
@given(_SCALARS, st.sampled_from(["value", "- value", "- x: 1\n  value"]))
def test_each_value_is_written_as_pyyaml_writes_it(value: object, where: str) -> None:
    # One value at a time: a document is left to PyYAML when any of its values is unusual.
    data = (
        {"value": value}
        if where == "value"
        else {"facts": [value] if where == "- value" else [{"x": "1", "value": value}]}
    )
    written = plainyaml.dump(data)
    if written is not None:
        assert written == _pyyaml(data)
        assert plainyaml.load(written) == yaml.load(written, Loader=_loader())


@settings(max_examples=1500, deadline=None)
@given(_DATA)
def test_what_dump_writes_loads_back_as_pyyaml_reads_it(data: dict[str, object]) -> None:
    written = plainyaml.dump(data)
    if written is not None:
        assert plainyaml.load(written) == yaml.load(written, Loader=_loader())


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("email", "email"),
        ("prefers dark mode, not light", "prefers dark mode, not light"),
        ("user:alice", "user:alice"),
        ("café au lait", "café au lait"),
        ("a: b", "'a: b'"),
        ("it's tag#1", "it's tag#1"),
        ("see #3", "'see #3'"),
        ("yes", "'yes'"),
        ("42", "'42'"),
        ("2026-06-02", "'2026-06-02'"),
        ("'quoted'", "'''quoted'''"),
        ("- item", "'- item'"),
        (None, "null"),
        (True, "true"),
        (date(2026, 6, 2), "2026-06-02"),
        (datetime(2026, 6, 2, 10, 0, 0), "2026-06-02T10:00:00Z"),
    ],
)
def test_common_values_are_written_without_pyyaml(value: object, written: str) -> None:
    assert plainyaml.dump({"value": value}) == f"value: {written}\n" == _pyyaml({"value": value})


@pytest.mark.parametrize(
    "data",
    [
        {"value": "tab\there"},
        {"value": "two\nlines"},
        {"value": "party 🎉"},
        {"value": ""},
        {"value": 3},
        {"value": 1.5},
        {"facts": [[1]]},
        {"facts": [{}]},
        {"facts": [{"tags": ["a"]}]},
        {"value": "x" * 100_001},
        {"Value": "x"},
        {},
    ],
)
def test_anything_else_is_left_to_pyyaml(data: dict[str, object]) -> None:
    assert plainyaml.dump(data) is None


@pytest.mark.parametrize(
    "text",
    [
        "value: a # a comment\n",
        "value: 12\n",
        'value: "double"\n',
        "facts: [a, b]\n",
        "facts:\n  - a\n",
        "facts:\n- a: 1\n- b\n  c: d\n",
        "- a\n",
        "value: yes\n",
        "value: 'open\n",
        "value: x\nvalue: y\n",
        "value:\t x\n",
    ],
)
def test_load_gives_up_on_what_dump_does_not_write(text: str) -> None:
    loaded = plainyaml.load(text)
    assert loaded is None or plainyaml.dump(loaded) != text


CANONICAL = b"""---
scope: user:alice
facts:
- id: f-1a2b3c4d
  key: diet
  value: vegetarian
  subject: user_preference
  confidence: stated
  source: user_statement
  source_ref: null
  stated_at: 2026-06-02T10:00:00Z
  valid_from: 2026-06-02T10:00:00Z
  expires_at: null
  status: active
---
# user:alice
"""


def test_a_hand_edit_is_read_by_pyyaml_and_means_the_same() -> None:
    canonical = parse(CANONICAL, "MEMORY.md", "user:alice")
    assert serialize(canonical) == CANONICAL
    commented = CANONICAL.replace(b"value: vegetarian", b"value: vegetarian   # since May")
    reordered = CANONICAL.replace(b"  key: diet\n  value: vegetarian\n", b"  value: vegetarian\n  key: diet\n")
    quoted = CANONICAL.replace(b"value: vegetarian", b'value: "vegetarian"')
    for edited in (commented, reordered, quoted):
        assert parse(edited, "MEMORY.md", "user:alice") == canonical
    truthy = CANONICAL.replace(b"value: vegetarian", b"value: yes")
    assert parse(truthy, "MEMORY.md", "user:alice").facts[0].value == "True"  # as PyYAML reads it


def test_the_characters_written_as_they_are_are_exactly_pyyamls_printable_ones() -> None:
    every = "".join(map(chr, range(0x110000)))
    printable = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]")
    assert set(plainyaml._NOT_PRINTABLE.findall(every)) == set(every) - set(printable.findall(every))
