"""Parse and write a scope's MEMORY.md: YAML frontmatter of facts, then the person's own notes.

The body below the frontmatter is kept as bytes and written back byte for byte. A file that does
not parse raises FileFormatError naming the line; nothing here ever writes a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from memfiles.errors import FileFormatError
from memfiles.format import yamlio
from memfiles.format.fields import Problem, problems
from memfiles.format.model import ALWAYS_WRITTEN, Fact, sort_facts

TOP_LEVEL = ("scope", "facts")
MAX_FILE_BYTES = 16 * 1024 * 1024


class Frontmatter(BaseModel):
    """What a MEMORY.md frontmatter may hold: the scope it belongs to and its facts."""

    model_config = ConfigDict(extra="forbid")

    scope: str | None = None
    facts: list[Fact] | None = None


@dataclass(slots=True)
class MemoryDoc:
    """A parsed MEMORY.md: its scope line, its facts and the untouched bytes around them."""

    scope: str
    facts: list[Fact] = field(default_factory=list)
    body: bytes = b""
    bom: bytes = b""


@dataclass(slots=True)
class Checked:
    """A MEMORY.md read for `mem lint`: the document when it parses, else every problem, each on its line.

    `facts` are the facts that read as facts on their own (their unknown fields set aside), with their
    lines, so the checks about what facts say (two active on a key, expired, …) run on a broken file too.
    """

    doc: MemoryDoc | None
    problems: list[tuple[int, Problem]]
    facts: list[tuple[int, Fact]]
    ids: set[str]  # every id the file's facts name, readable or not
    front: str | None = None  # the YAML text (to locate a field: `field_line`)
    first_line: int = 2

    def field_line(self, index: int, name: str) -> int:
        """The file line of field `name` of the `index`th fact (its item's line when it cannot be located)."""
        if self.front is None:
            return 1
        return yamlio.locate(self.front, ("facts", index, name)) + self.first_line


def parse(data: bytes, path: str, expected_scope: str | None = None) -> MemoryDoc:
    """Parse MEMORY.md bytes into a MemoryDoc, or raise FileFormatError with `path:line` (the first problem)."""
    checked = check(data, path, expected_scope)
    if checked.doc is None:
        line, problem = checked.problems[0]
        raise FileFormatError(path, line, problem.message)
    return checked.doc


def check(data: bytes, path: str, expected_scope: str | None = None) -> Checked:
    """Read MEMORY.md bytes, collecting every problem with its line instead of stopping at the first.

    A file that cannot be read as YAML at all (unclosed fences, bad UTF-8, a YAML error) raises
    FileFormatError, since nothing past that point can be located.
    """
    if len(data) > MAX_FILE_BYTES:
        raise FileFormatError(path, None, f"file is {len(data)} bytes, over the {MAX_FILE_BYTES} byte limit")
    cut = yamlio.split(data, path)
    if cut.front is None:
        return Checked(MemoryDoc(scope=expected_scope or "", body=cut.body, bom=cut.bom), [], [], set())
    raw = yamlio.load(cut.front, path, cut.first_line)
    found = _problems(raw, expected_scope)
    lines = [line + cut.first_line for line in yamlio.item_lines(cut.front, "facts")]
    items = raw.get("facts") if isinstance(raw, dict) else None
    items = items if isinstance(items, list) else []
    ids = {str(item["id"]) for item in items if isinstance(item, dict) and item.get("id") is not None}
    if found:
        located = sorted(((yamlio.locate(cut.front, p.where) + cut.first_line, p) for p in found), key=_by_line)
        readable = [(line, fact) for line, item in zip(lines, items, strict=False) if (fact := _lenient(item))]
        return Checked(None, located, readable, ids, cut.front, cut.first_line)
    front = Frontmatter.model_validate(raw or {})
    facts = front.facts or []
    doc = MemoryDoc(scope=expected_scope or front.scope or "", facts=facts, body=cut.body, bom=cut.bom)
    return Checked(doc, [], list(zip(lines, facts, strict=False)), ids, cut.front, cut.first_line)


def _lenient(item: Any) -> Fact | None:
    """A fact item read without its unknown fields; None when it still is no fact."""
    if not isinstance(item, dict):
        return None
    try:
        return Fact.model_validate({k: v for k, v in item.items() if k in Fact.model_fields})
    except ValidationError:
        return None


def _by_line(located: tuple[int, Problem]) -> tuple[int, int, str]:
    """Problems in file order; on one line unknown fields first, then missing ones (by name), then the rest."""
    line, problem = located
    rank = {"unknown-field": 0, "missing": 1}.get(problem.kind, 2)
    return line, rank, problem.message if problem.kind == "missing" else ""


def _problems(raw: Any, expected_scope: str | None) -> list[Problem]:
    if raw is not None and not isinstance(raw, dict):
        return [Problem((), "format", "frontmatter must be a mapping with `scope` and `facts`")]
    found: list[Problem] = []
    try:
        front = Frontmatter.model_validate(raw or {})
    except ValidationError as exc:
        found += problems(exc, _describe)
    else:
        if expected_scope is not None and front.scope and front.scope != expected_scope:
            message = f"`scope: {front.scope}` does not match the folder's scope {expected_scope}"
            found.append(Problem(("scope",), "format", message))
    items = (raw or {}).get("facts")
    seen: set[str] = set()
    for index, item in enumerate(items if isinstance(items, list) else []):
        fact_id = item.get("id") if isinstance(item, dict) else None
        if isinstance(fact_id, str) and fact_id in seen:
            found.append(Problem(("facts", index, "id"), "duplicate-id", f"duplicate fact id {fact_id!r}"))
        seen.add(str(fact_id))
    return found


def _describe(loc: tuple[Any, ...], sentence: str) -> str:
    """A validation error of MEMORY.md's frontmatter in the words of docs/FORMAT.md."""
    if loc == ("scope",):
        return "`scope` must be a string such as user:alice"
    if loc == ("facts",):
        return "`facts` must be a list"
    if len(loc) == 1:
        return f"unknown frontmatter field {loc[0]!r} (allowed: {', '.join(TOP_LEVEL)})"
    number = loc[1] + 1 if isinstance(loc[1], int) else loc[1]
    if len(loc) == 2:
        return f"fact #{number} must be a mapping of fields"
    if sentence.startswith("unknown field "):
        return f"unknown fact field {loc[2]!r}"
    if sentence.startswith("missing "):
        return f"fact #{number} is {sentence}"
    return sentence


def has_frontmatter(data: bytes) -> bool:
    """Whether MEMORY.md bytes open with a frontmatter fence (a file without one is all notes)."""
    return yamlio.split(data, "MEMORY.md").front is not None


def serialize(doc: MemoryDoc) -> bytes:
    """MemoryDoc to bytes: canonical frontmatter, then the body exactly as it was read."""
    facts = [_written(fact) for fact in sort_facts(doc.facts)]
    return doc.bom + yamlio.dump({"scope": doc.scope, "facts": facts}) + doc.body


def _written(fact: Fact) -> dict[str, Any]:
    """A fact's fields as the file holds them: canonical order, dates as dates, optional empty ones left out."""
    return {name: value for name, value in fact.model_dump().items() if value is not None or name in ALWAYS_WRITTEN}


def new_body(scope: str) -> bytes:
    """The notes section of a fresh MEMORY.md."""
    return (
        f"# {scope}\n\nNotes written here by a person stay exactly as written; `mem lint` checks them too.\n"
    ).encode()
