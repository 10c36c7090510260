"""docs/FORMAT.md and the code agree: its examples parse, and re-serialise to themselves."""

from __future__ import annotations

import re
from pathlib import Path

from memfiles import clock
from memfiles.format.config import DEFAULT_TOML
from memfiles.format.memoryfile import parse, serialize
from memfiles.ops.supersession import valid_at

DOC = Path(__file__).resolve().parent.parent / "docs" / "FORMAT.md"


def examples() -> list[bytes]:
    text = DOC.read_text(encoding="utf-8")
    return [m.encode() for m in re.findall(r"```markdown memory-example\n(.*?)```", text, re.S)]


def test_memory_examples_parse_and_are_canonical() -> None:
    found = examples()
    assert found, "FORMAT.md has no memory-example block"
    for example in found:
        doc = parse(example, "FORMAT.md", "user:alice")
        assert serialize(doc) == example
        assert [f.value for f in doc.facts if valid_at(f, clock.parse_when("2026-05-01"))] == ["sms"]
        assert [f.value for f in doc.facts if f.status == "active"] == ["email"]


def test_every_setting_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = ""
    for line in DEFAULT_TOML.splitlines():
        if line.startswith("["):
            section = line
        elif "=" in line and not line.startswith("#"):
            name = line.split("=")[0].strip()
            wanted = f"`{section} {name}`" if section != "[ttl]" else "`[ttl] <subject>`"
            assert wanted in text, f"FORMAT.md does not document {wanted}"
