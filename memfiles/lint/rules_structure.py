"""MEM5xx: structure of a MEMORY.md (FORMAT.md, "Facts"): what makes a memory file wrong, not dangerous.

Pure: takes the file's bytes and returns findings. A file that does not parse is a finding with
its line (never an exception), so `mem lint` reports every broken file and goes on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from memfiles import clock
from memfiles.errors import FileFormatError, UsageError
from memfiles.lint.findings import ERROR, WARNING, Finding, Rule

if TYPE_CHECKING:
    from memfiles.format.model import Fact

OVERSIZE_BYTES = 256 * 1024


def _none(line: str) -> Iterator[tuple[int, int]]:
    return iter(())


def _rule(code: str, severity: str, name: str, catches: str, why: str, fix: str, example: str, near: str) -> Rule:
    return Rule(code, severity, name, catches, why, fix, _none, view="file", example=example, near_miss=near)


RULES: list[Rule] = [
    _rule(
        "MEM501",
        ERROR,
        "invalid-frontmatter",
        "frontmatter that does not parse or does not follow the MEMORY.md format",
        "mem refuses to write a file it cannot read; the facts in it are invisible to recall",
        "fix the line named in the finding (see docs/FORMAT.md); `git diff` shows what changed",
        "---\nfacts: [unclosed\n---",
        "---\nscope: user:alice\nfacts: []\n---",
    ),
    _rule(
        "MEM502",
        ERROR,
        "unknown-field",
        "frontmatter or fact fields that the format does not define",
        "unknown fields are usually typos (`stated_on`) that silently drop provenance",
        "rename the field to one of the documented ones or delete it",
        "  valeu: email",
        "  value: email",
    ),
    _rule(
        "MEM503",
        ERROR,
        "duplicate-id",
        "two facts with the same id",
        "ids are how supersession, `mem forget` and `mem resolve` name a fact; duplicates make them ambiguous",
        "give one of them a new id, or delete the duplicate",
        "two facts with id: f-3f9a1c2e",
        "ids f-3f9a1c2e and f-0b1d2e3f",
    ),
    _rule(
        "MEM504",
        ERROR,
        "two-active-facts",
        "two active facts on one key",
        "recall would show both as current; the write path never produces this (it marks a conflict)",
        "mark the older one superseded, or both `conflict` and run `mem resolve KEY --keep ID`",
        "notification_channel = email (active) and = SMS (active)",
        "notification_channel = SMS (superseded) and = email (active)",
    ),
    _rule(
        "MEM505",
        WARNING,
        "active-but-expired",
        "active facts whose expires_at is in the past",
        "an expired fact still renders as current until consolidation runs",
        "run `mem consolidate`, or update expires_at",
        "status: active with expires_at: 2020-01-01",
        "status: expired with expires_at: 2020-01-01",
    ),
    _rule(
        "MEM506",
        WARNING,
        "missing-provenance",
        "active inferred facts without source_ref (what the inference was drawn from)",
        "an inference nobody can trace cannot be checked or trusted; a user's statement is its own source",
        "add source_ref, e.g. 'session s-12, turn 4' (mem add --inferred --ref …)",
        "confidence: inferred with source_ref: null",
        "source_ref: session s-12, turn 4",
    ),
    _rule(
        "MEM507",
        ERROR,
        "dangling-supersession",
        "superseded_by naming a fact id that is not in the file",
        "the history chain is broken: `mem history` cannot show what replaced the fact",
        "point superseded_by at the replacing fact's id, or clear it",
        "superseded_by: f-00000000 (no such fact)",
        "superseded_by: f-3f9a1c2e (present)",
    ),
    _rule(
        "MEM508",
        WARNING,
        "oversize-file",
        f"memory files over {OVERSIZE_BYTES // 1024} KiB",
        "an oversize memory costs tokens in every prompt and slows every read",
        "run `mem consolidate`, forget stale facts, move notes elsewhere",
        "a 2 MB MEMORY.md",
        "a 20 KB MEMORY.md",
    ),
]
BY_CODE = {rule.code: rule for rule in RULES}


def _finding(code: str, line: int, message: str, excerpt: str = "") -> Finding:
    rule = BY_CODE[code]
    return Finding(code, rule.severity, message, max(line, 1), 1, excerpt)


def _line_of(node: Any) -> int:
    return int(node.start_mark.line) if node is not None else 0


def _fact_nodes(root: Any) -> list[tuple[Any, dict[str, Any]]]:
    """(mapping node, {field: value node}) for every fact item of the frontmatter's node tree."""
    import yaml

    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        if key.value == "facts" and isinstance(value, yaml.SequenceNode):
            items = []
            for item in value.value:
                fields = {k.value: v for k, v in item.value} if isinstance(item, yaml.MappingNode) else {}
                items.append((item, fields))
            return items
    return []


def _may_find(facts: list[Fact]) -> bool:
    """Whether the fact checks of check_memory may report something about `facts`, read from a file as memfiles
    writes it (so no field is unknown, no id twice and the file parses: MEM501-503 cannot apply). It may say yes
    where they find nothing (an active fact that expires later), never the other way round."""
    ids = {fact.id for fact in facts}
    keys: set[str] = set()
    for fact in facts:
        if fact.superseded_by and fact.superseded_by != "null" and fact.superseded_by not in ids:
            return True  # MEM507
        if fact.status != "active":
            continue
        if fact.key in keys or fact.expires_at:  # MEM504, MEM505
            return True
        keys.add(fact.key)
        if fact.confidence == "inferred" and (not fact.source_ref or fact.source_ref == "null"):
            return True  # MEM506
    return False


def check_memory(data: bytes, path: str) -> list[Finding]:
    """Structure findings (MEM5xx) for the bytes of one MEMORY.md.

    A file exactly as memfiles writes it, whose facts give no check below anything to report (`_may_find`), is
    done without PyYAML: the checks read PyYAML's nodes only for the lines of what they report. Importing it
    took 18 ms of the process that meets a MEMORY.md, and composing the nodes more.
    """
    # Imported here: the file format takes 14 ms to load (PyYAML 18 more), which a lint run would pay before
    # sharing out its files, though only the process that meets a MEMORY.md needs it.
    from memfiles.format.memoryfile import TOP_LEVEL, parse, read_canonical, split_frontmatter
    from memfiles.format.model import FIELD_ORDER

    found: list[Finding] = []
    if len(data) > OVERSIZE_BYTES:
        found.append(_finding("MEM508", 1, f"file is {len(data)} bytes, over {OVERSIZE_BYTES}"))
    _bom, front, _body, first = split_frontmatter(data)
    if front is None:
        return found
    doc = read_canonical(data)
    if doc is not None and not _may_find(doc.facts):
        return found
    import yaml

    try:
        loader: Any = yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - depends on how PyYAML was built
        loader = yaml.SafeLoader
    offset = max(first, 1)
    try:
        root = yaml.compose(front.decode("utf-8"), Loader=loader)
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError):
        root = None  # parse() below names the line
    # Field-level checks on the node tree come first: they can name every problem, not just the first.
    if isinstance(root, yaml.MappingNode):
        for key, _value in root.value:
            if key.value not in TOP_LEVEL:
                found.append(_finding("MEM502", _line_of(key) + offset, f"unknown frontmatter field {key.value!r}"))
    facts = _fact_nodes(root)
    seen: dict[str, int] = {}
    active: dict[str, int] = {}
    now = clock.now()
    ids = {str(f["id"].value) for _, f in facts if "id" in f}
    for item, fields in facts:
        line = _line_of(item) + offset
        for name, value in fields.items():
            if name not in FIELD_ORDER:
                found.append(_finding("MEM502", _line_of(value) + offset, f"unknown fact field {name!r}"))
        get = {name: getattr(node, "value", None) for name, node in fields.items()}
        fact_id = str(get.get("id"))
        if fact_id in seen:
            found.append(_finding("MEM503", line, f"duplicate fact id {fact_id!r} (first at line {seen[fact_id]})"))
        seen.setdefault(fact_id, line)
        if get.get("status") == "active":
            key = str(get.get("key"))
            if key in active:
                found.append(
                    _finding("MEM504", line, f"second active fact on key {key!r} (other at line {active[key]})")
                )
            active.setdefault(key, line)
            expires = get.get("expires_at")
            try:
                if expires and clock.compare(clock.when_from_value(expires), now) < 0:
                    found.append(_finding("MEM505", line, f"active fact {fact_id} expired on {expires}"))
            except UsageError:
                pass  # not a date: parse() reports it
            inferred = get.get("confidence") == "inferred"
            if inferred and (not get.get("source_ref") or get.get("source_ref") == "null"):
                found.append(_finding("MEM506", line, f"active inferred fact {fact_id} has no source_ref"))
        target = get.get("superseded_by")
        if target and target != "null" and str(target) not in ids:
            found.append(
                _finding("MEM507", line, f"fact {fact_id} is superseded_by {target!r}, which is not in the file")
            )
    try:
        if doc is None:  # a file read_canonical read parses
            parse(data, path)
    except FileFormatError as exc:
        line = exc.line or 1
        known = {(f.line, f.code) for f in found}
        if not any(code in ("MEM502", "MEM503") and at == line for at, code in known):
            found.append(_finding("MEM501", line, exc.problem))
    return found
