"""Hostile MEMORY.md and mem.toml: a clear error naming file and line, or a correct parse; never a crash."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from memfiles.cli import app
from memfiles.errors import ConfigError, FileFormatError
from memfiles.format.config import parse_config
from memfiles.format.memoryfile import parse

runner = CliRunner()
FRONT = b"---\nscope: user:a\nfacts:\n"


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_parse_or_fail_cleanly(data: bytes) -> None:
    for candidate in (data, FRONT + data, FRONT + data + b"\n---\n"):
        try:
            parse(candidate, "users/a/MEMORY.md", "user:a")
        except FileFormatError as exc:
            assert str(exc).startswith("users/a/MEMORY.md")


yaml_ish = st.text(alphabet="-:[]{}!&*|>'\"#%@` \n\tabcdefkvyz0123456789.", max_size=300)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_ish)
@example("{}: ")  # a mapping as a key: the duplicate-key check once hashed it (TypeError)
@example("[a]: 1\n[a]: 2")
def test_yaml_shaped_noise_parses_or_fails_cleanly(text: str) -> None:
    with contextlib.suppress(FileFormatError):
        parse(FRONT + text.encode() + b"\n---\nbody\n", "m", "user:a")


@pytest.mark.parametrize(
    "payload",
    [
        b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        b"e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
        b"facts: " + b"[" * 5000 + b"]" * 5000 + b"\n",
        b"scope: !!python/object/new:os.system [echo pwned]\n",
        b"facts:\n- id: f-1\n  key: k\n  value: " + b"x" * (10 * 1024 * 1024) + b"\n",
        b"facts:\n- !!binary aGVsbG8=\n",
        b"\xff\xfe\xfa invalid utf-8\n",
    ],
    ids=["alias-bomb", "deep-nesting", "python-tag", "10mb-line", "binary-tag", "invalid-utf8"],
)
def test_known_attacks_fail_cleanly(payload: bytes) -> None:
    with pytest.raises(FileFormatError) as caught:
        parse(b"---\n" + payload + b"---\nbody\n", "users/a/MEMORY.md", "user:a")
    assert str(caught.value).startswith("users/a/MEMORY.md:")


def test_crlf_and_bom_files_parse_and_keep_their_bytes() -> None:
    text = b"\xef\xbb\xbf---\r\nscope: user:a\r\nfacts: []\r\n---\r\nnotes\r\n"
    doc = parse(text, "m", "user:a")
    assert doc.body == b"notes\r\n" and doc.bom == b"\xef\xbb\xbf"


def test_a_hostile_file_is_never_written(home: Path) -> None:
    path = home / "users/a/MEMORY.md"
    path.parent.mkdir(parents=True)
    hostile = b"---\nscope: !!python/object/new:os.system [echo pwned]\n---\n"
    path.write_bytes(hostile)
    result = runner.invoke(app, ["add", "-u", "a", "k", "v"])
    assert result.exit_code == 1 and "users/a/MEMORY.md:2: explicit YAML tag" in result.output
    assert path.read_bytes() == hostile


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_random_settings_parse_or_fail_cleanly(text: str) -> None:
    try:
        parse_config(text)
    except ConfigError as exc:
        assert str(exc).startswith("mem.toml")


def test_a_broken_settings_file_is_a_usage_error(home: Path) -> None:
    (home / "mem.toml").write_text("[memory]\nhalf_life_days = -3\n")
    result = runner.invoke(app, ["show", "-u", "a"])
    assert result.exit_code == 2
    assert "mem.toml: [memory] half_life_days must be a number ≥ 0, got -3" in result.output
