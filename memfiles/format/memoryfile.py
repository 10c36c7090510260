"""Parse and write a scope's MEMORY.md: YAML frontmatter of facts, then the person's own notes.

The body below the frontmatter is kept as bytes and written back byte for byte. A file that does
not parse raises FileFormatError naming the line; nothing here ever writes a file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from memfiles import clock
from memfiles.errors import FileFormatError, UsageError
from memfiles.format import plainyaml
from memfiles.format.model import (
    CONFIDENCES,
    FIELD_ORDER,
    REQUIRED,
    STATUSES,
    SUBJECTS,
    WHEN_FIELDS,
    Fact,
    sort_facts,
)

if TYPE_CHECKING:
    import yaml


# PyYAML loads on first use (~15 ms): a recall answered from the index never parses YAML.
@cache
def _loader() -> type[yaml.SafeLoader]:
    """Safe YAML that leaves timestamps as text, so a bad date is reported by field, not as a crash."""
    import yaml

    try:  # the C loader is several times faster; fall back to pure Python where it is missing
        base: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
    except AttributeError:  # pragma: no cover - depends on how PyYAML was built
        base = yaml.SafeLoader

    class SafeTextLoader(base):  # type: ignore[valid-type, misc]
        pass

    SafeTextLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    return SafeTextLoader


@cache
def _dumper(libyaml: bool = False) -> type[yaml.SafeDumper]:
    """Plain, stable YAML: no line folding, timestamps as `YYYY-MM-DD` or `…THH:MM:SSZ`.

    `libyaml`: the C emitter (4-5 times faster) where PyYAML was built with it; see `_libyaml_safe`.
    """
    import yaml

    base: type[yaml.SafeDumper] = yaml.SafeDumper
    if libyaml:
        base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class Dumper(base):  # type: ignore[valid-type, misc]
        pass

    def represent_datetime(dumper: yaml.SafeDumper, value: datetime) -> yaml.ScalarNode:
        return dumper.represent_scalar("tag:yaml.org,2002:timestamp", value.strftime("%Y-%m-%dT%H:%M:%SZ"))

    Dumper.add_representer(datetime, represent_datetime)
    return Dumper


def _libyaml_safe(value: object) -> bool:
    """Whether libyaml's emitter writes `value` byte for byte as PyYAML's own emitter does.

    They differ only on characters outside the Basic Multilingual Plane (emoji) and on U+0085 (NEL),
    which one escapes and the other does not (tests/test_memoryfile.py compares the two on
    generated documents). Anything else takes the pure-Python emitter, so stored bytes never change.
    """
    if isinstance(value, str):
        return value.isascii() or (max(value) < "\U00010000" and "\x85" not in value)
    if isinstance(value, dict):
        return all(_libyaml_safe(k) and _libyaml_safe(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_libyaml_safe(item) for item in value)
    return True


BOM = b"\xef\xbb\xbf"
_OPEN = re.compile(rb"\A---[ \t]*\r?\n")
_CLOSE = re.compile(rb"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
KEY_PATTERN = re.compile(r"[a-z][a-z0-9_.-]{0,63}")
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
TOP_LEVEL = ("scope", "facts")
MAX_FILE_BYTES = 16 * 1024 * 1024


@dataclass(slots=True)
class MemoryDoc:
    """A parsed MEMORY.md: its scope line, its facts and the untouched bytes around them."""

    scope: str
    facts: list[Fact] = field(default_factory=list)
    body: bytes = b""
    bom: bytes = b""


def split_frontmatter(data: bytes) -> tuple[bytes, bytes | None, bytes, int]:
    """Split raw bytes into (bom, frontmatter or None, body, line number of the first YAML line)."""
    bom = BOM if data.startswith(BOM) else b""
    rest = data[len(bom) :]
    opened = _OPEN.match(rest)
    if not opened:
        return bom, None, rest, 0
    close = _CLOSE.search(rest, opened.end())
    if close is None:
        return bom, rest[opened.end() :], b"", -1
    return bom, rest[opened.end() : close.start()], rest[close.end() :], 2


def parse(data: bytes, path: str, expected_scope: str | None = None) -> MemoryDoc:
    """Parse MEMORY.md bytes into a MemoryDoc, or raise FileFormatError with `path:line`."""
    if len(data) > MAX_FILE_BYTES:
        raise FileFormatError(path, None, f"file is {len(data)} bytes, over the {MAX_FILE_BYTES} byte limit")
    bom, front, body, first_line = split_frontmatter(data)
    scope = expected_scope or ""
    if front is None:
        return MemoryDoc(scope=scope, body=body, bom=bom)
    fast = _parse_canonical(data, front, expected_scope, body, bom)
    if fast is not None:
        return fast
    text, raw = load_frontmatter(front, path, first_line)
    try:
        return _validate(raw, path, expected_scope, body, bom)
    except _Problem as problem:
        line = _locate(text, problem.where) + first_line
        raise FileFormatError(path, line, problem.message) from None


def read_canonical(data: bytes) -> MemoryDoc | None:
    """The MemoryDoc of MEMORY.md bytes exactly as `serialize` writes them, read without PyYAML; None for any other
    file, one that `parse` refuses included (memfiles.lint.rules_structure asks this first)."""
    if len(data) > MAX_FILE_BYTES:
        return None
    bom, front, body, _first = split_frontmatter(data)
    return None if front is None else _parse_canonical(data, front, None, body, bom)


def _parse_canonical(
    data: bytes, front: bytes, expected_scope: str | None, body: bytes, bom: bytes
) -> MemoryDoc | None:
    """The MemoryDoc of a file exactly as `serialize` writes it, read without PyYAML; None for any other file.

    Writing the result again must give the same bytes, which makes it what PyYAML would have read
    (memfiles.format.plainyaml); a person's own layout, an error or anything unusual takes PyYAML's way.
    """
    try:
        raw = plainyaml.load(front.decode("utf-8"))
        if raw is None:
            return None
        doc = _validate(raw, "", expected_scope, body, bom)
    except (UnicodeDecodeError, _Problem):
        return None
    return doc if serialize(doc) == data else None


def load_frontmatter(front: bytes, path: str, first_line: int) -> tuple[str, Any]:
    """Decode and load frontmatter (from split_frontmatter) as YAML, or raise FileFormatError with `path:line`."""
    if first_line < 0:
        raise FileFormatError(path, 1, "frontmatter opened with `---` is never closed by a `---` line")
    try:
        text = front.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = front[: exc.start].count(b"\n") + 2
        raise FileFormatError(path, line, "frontmatter is not valid UTF-8") from None
    import yaml

    try:
        return text, yaml.load(text, Loader=_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + first_line if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FileFormatError(path, line, f"frontmatter is not valid YAML: {problem}") from None
    except RecursionError:
        raise FileFormatError(path, 1, "frontmatter nests too deeply") from None
    except (ValueError, TypeError, OverflowError) as exc:
        raise FileFormatError(path, 1, f"frontmatter is not valid YAML: {exc}") from None


class _Problem(Exception):
    def __init__(self, where: tuple[Any, ...], message: str) -> None:
        self.where = where
        self.message = message


def _validate(raw: Any, path: str, expected_scope: str | None, body: bytes, bom: bytes) -> MemoryDoc:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise _Problem((), "frontmatter must be a mapping with `scope` and `facts`")
    for name in raw:
        if name not in TOP_LEVEL:
            raise _Problem((name,), f"unknown frontmatter field {name!r} (allowed: scope, facts)")
    scope = raw.get("scope", expected_scope or "")
    if not isinstance(scope, str):
        raise _Problem(("scope",), "`scope` must be a string such as user:alice")
    if expected_scope is not None and scope and scope != expected_scope:
        raise _Problem(("scope",), f"`scope: {scope}` does not match the folder's scope {expected_scope}")
    items = raw.get("facts") or []
    if not isinstance(items, list):
        raise _Problem(("facts",), "`facts` must be a list")
    facts: list[Fact] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        fact = _fact(item, index)
        if fact.id in seen:
            raise _Problem(("facts", index, "id"), f"duplicate fact id {fact.id!r}")
        seen.add(fact.id)
        facts.append(fact)
    return MemoryDoc(scope=expected_scope or scope, facts=facts, body=body, bom=bom)


def _fact(item: Any, index: int) -> Fact:
    where = ("facts", index)
    if not isinstance(item, dict):
        raise _Problem(where, f"fact #{index + 1} must be a mapping of fields")
    for name in item:
        if name not in FIELD_ORDER:
            raise _Problem((*where, name), f"unknown fact field {name!r}")
    for name in sorted(REQUIRED - set(item)):
        raise _Problem(where, f"fact #{index + 1} is missing `{name}`")
    values: dict[str, str | None] = {}
    for name in FIELD_ORDER:
        value = item.get(name)
        at = (*where, name)
        if name in WHEN_FIELDS:
            values[name] = _when(value, at, name)
        elif value is None:
            values[name] = None
        elif isinstance(value, bool | int | float) and name in ("value", "source_ref", "reason"):
            values[name] = str(value)
        elif isinstance(value, str):
            values[name] = value
        else:
            raise _Problem(at, f"`{name}` must be text, got {type(value).__name__}")
    checks = (
        ("id", ID_PATTERN.fullmatch(values["id"] or ""), "an id such as f-3f9a1c2e"),
        ("key", KEY_PATTERN.fullmatch(values["key"] or ""), "lower-case letters, digits, _ . -"),
        ("subject", values["subject"] in SUBJECTS, "one of " + ", ".join(SUBJECTS)),
        ("confidence", values["confidence"] in CONFIDENCES, "stated or inferred"),
        ("status", values["status"] in STATUSES, "one of " + ", ".join(STATUSES)),
        ("source", bool(values["source"]), "a non-empty source such as user_statement"),
    )
    for name, ok, expected in checks:
        if not ok:
            raise _Problem((*where, name), f"`{name}` is {values[name]!r}, expected {expected}")
    if "\n" in (values["value"] or "") or "\r" in (values["value"] or ""):
        raise _Problem((*where, "value"), "`value` must be one line")
    stated = values["stated_at"]
    assert stated is not None and values["id"] and values["key"] and values["subject"]
    return Fact(
        id=values["id"],
        key=values["key"],
        value=values["value"] or "",
        subject=values["subject"],
        confidence=values["confidence"] or "",
        source=values["source"] or "",
        stated_at=stated,
        valid_from=values["valid_from"] or stated,
        status=values["status"] or "",
        source_ref=values["source_ref"],
        expires_at=values["expires_at"],
        valid_to=values["valid_to"],
        superseded_by=values["superseded_by"],
        reason=values["reason"],
        last_confirmed=values["last_confirmed"],
        last_inferred=values["last_inferred"],
    )


def _when(value: Any, where: tuple[Any, ...], name: str) -> str | None:
    if value is None:
        return None
    try:
        return clock.when_from_value(value)
    except UsageError:
        raise _Problem(where, f"`{name}` is not a date: {value!r} (expected YYYY-MM-DD)") from None


def _locate(text: str, where: tuple[Any, ...]) -> int:
    """The 0-based YAML line of the node at `where` (a path of keys and indexes), best effort."""
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return 0
    line = node.start_mark.line if node is not None else 0
    for step in where:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == step:
                    child, line = value_node, key_node.start_mark.line
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            child = node.value[step]
            line = child.start_mark.line
        if child is None:
            break
        node = child
    return line


def yaml_when(when: str) -> date | datetime:
    """A When as the value YAML writes unquoted (`2026-06-02`, `2026-06-02T10:00:00Z`)."""
    return date.fromisoformat(when) if len(when) == 10 else clock.to_datetime(when)


def serialize(doc: MemoryDoc) -> bytes:
    """MemoryDoc to bytes: canonical frontmatter, then the body exactly as it was read."""
    facts = []
    for fact in sort_facts(doc.facts):
        entry: dict[str, Any] = dict(fact.to_dict())
        for name in WHEN_FIELDS:
            if entry.get(name) is not None:
                entry[name] = yaml_when(entry[name])
        facts.append(entry)
    return doc.bom + dump_frontmatter({"scope": doc.scope, "facts": facts}) + doc.body


def dump_frontmatter(data: dict[str, Any]) -> bytes:
    """`data` as a `---` fenced YAML block in insertion order: plain, stable, never folded."""
    text = plainyaml.dump(data)  # the usual shapes and text, without importing PyYAML
    if text is None:
        import yaml

        text = yaml.dump(
            data,
            Dumper=_dumper(_libyaml_safe(data)),
            sort_keys=False,
            allow_unicode=True,
            default_flow_style=False,
            width=1_000_000,
        )
    return b"---\n" + text.encode("utf-8") + b"---\n"


def new_body(scope: str) -> bytes:
    """The notes section of a fresh MEMORY.md."""
    return (
        f"# {scope}\n\nNotes written here by a person stay exactly as written; `mem lint` checks them too.\n"
    ).encode()
