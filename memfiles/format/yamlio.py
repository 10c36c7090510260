"""Frontmatter as memfiles reads and writes it: python-frontmatter's YAML handler, our Loader and our Dumper.

- **Reading** keeps the text a person typed: plain scalars are strings (`no`, `on`, `0777`, `1:30` and
  `12.50` stay as written; YAML 1.1 would turn them into booleans and numbers), except `null`, `~` and
  nothing, which are null. Types are the models' business (`memfiles.format.model`), which is where a
  date or a flag is checked and reported by field. A mapping that repeats a key is an error with the
  line of the second one, never "last key wins". Only safe YAML, and no explicit tags at all (`!!binary`,
  `!!python/…`, `!anything`): a tag would turn the text a person reads into another value than the one a
  reader gets. A value holding a control character (typed as a double-quoted escape, `"\\e"`, `"\\x1b"`) is
  refused too: it would hide text from a person and from `mem lint`. Both errors name the line.
- **Writing** is one canonical Dumper: keys in the order given (`sort_keys=False`), never folded, dates
  as `YYYY-MM-DD` and times as `YYYY-MM-DDTHH:MM:SSZ`, so diffs stay small and files stable.
- **Splitting** finds the fences with the handler's boundary (a line of three or more dashes). The body
  after the closing line is kept as bytes by our own code, exactly as read (line endings, a BOM,
  invalid UTF-8): python-frontmatter's own `loads`/`dumps` strip it and sort keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

import yaml
from frontmatter.default_handlers import YAMLHandler
from yaml.constructor import ConstructorError, SafeConstructor

from memfiles.errors import FileFormatError

HANDLER = YAMLHandler()
BOM = b"\xef\xbb\xbf"
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")


# The tags our Loader resolves by itself (plain scalars are text, `null`/`~`/nothing is null): a node with any
# other tag was given one explicitly in the file.
_IMPLICIT_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("str", "null", "map", "seq"))
# Control characters a value may not hold (tab and line feed are text; C1 controls and DEL are not).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class Refused(ConstructorError):
    """Frontmatter that is YAML but that memfiles will not read: an explicit tag, a control character."""


class _TextConstructor(SafeConstructor):
    """Safe construction that refuses a mapping holding the same key twice (a hand edit that would lose facts),
    any explicit tag, and text holding a control character."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node.tag not in _IMPLICIT_TAGS:
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            problem = f"explicit YAML tag {tag!r}: memfiles reads values as plain text; remove the tag"
            raise Refused(None, None, problem, node.start_mark)
        return super().construct_object(node, deep=deep)

    def construct_scalar(self, node: yaml.ScalarNode | yaml.MappingNode) -> Any:
        value = super().construct_scalar(node)
        found = CONTROL.search(value) if isinstance(value, str) else None
        if found is not None:
            code = f"U+{ord(found.group()):04X}"
            problem = f"a control character ({code}) in a value, hidden from a person reading the file; remove it"
            raise Refused(None, None, problem, node.start_mark)
        return value

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                continue  # PyYAML's own construct_mapping refuses a key that is a mapping or a list
            if key in seen:
                raise ConstructorError(
                    "while reading a mapping", node.start_mark, f"the key {key!r} appears twice", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# libyaml's parser where PyYAML was built with it (several times faster), else PyYAML's own; as PyYAML's
# documentation picks it. (`yaml.CParser` does not exist: `hasattr(yaml, "CParser")` was always false.)
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Loader(_TextConstructor, _SafeLoader):  # type: ignore[misc]
    """Safe loading where plain scalars stay text: of the implicit types only null is resolved (added below)."""

    yaml_implicit_resolvers: ClassVar[dict[Any, Any]] = {}


Loader.add_implicit_resolver("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""])


class Dumper(yaml.SafeDumper):
    """The one canonical way memfiles writes YAML (PyYAML's own emitter, so the bytes never depend on libyaml).

    Plain values only: two equal values (a fact's `stated_at` and `valid_from`) are each written out, never as
    an anchor and an alias (`&id001` / `*id001`), which a person reading the file should not have to decode."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_datetime(dumper: yaml.SafeDumper, value: datetime) -> yaml.ScalarNode:
    text = value.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"  # year 1 is 0001
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", text)


Dumper.add_representer(datetime, _represent_datetime)


@dataclass(frozen=True, slots=True)
class Split:
    """A file cut at its frontmatter fences: the BOM, the YAML text (None: no frontmatter) and the body bytes."""

    bom: bytes
    front: str | None
    body: bytes
    first_line: int  # the file line of the YAML text's first line (2: after the opening fence)


def split(data: bytes, path: str) -> Split:
    """Cut `data` at its fences; a frontmatter that is never closed or is not UTF-8 is a FileFormatError."""
    bom = BOM if data.startswith(BOM) else b""
    rest = data[len(bom) :]
    text = rest.decode("utf-8", "surrogateescape")  # surrogates stand for bytes that are not UTF-8
    if not HANDLER.detect(text):
        return Split(bom, None, rest, 0)
    fences = HANDLER.FM_BOUNDARY.finditer(text)
    opening = next(fences)
    closing = next(fences, None)
    if closing is None:
        raise FileFormatError(path, 1, "frontmatter opened with `---` is never closed by a `---` line")
    start = _line_end(text, opening.start())
    end = _line_end(text, closing.start())
    front = text[start : closing.start()]
    try:
        front.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise FileFormatError(path, front.count("\n", 0, exc.start) + 2, "frontmatter is not valid UTF-8") from None
    return Split(bom, front, rest[len(text[:end].encode("utf-8", "surrogateescape")) :], 2)


def _line_end(text: str, start: int) -> int:
    """The index just past the line that starts at `start` (its newline included)."""
    newline = text.find("\n", start)
    return len(text) if newline < 0 else newline + 1


def load(front: str, path: str, first_line: int = 2) -> Any:
    """The YAML text of a frontmatter as Python values (see the module docstring), or a FileFormatError."""
    try:
        return HANDLER.load(front, Loader=Loader)
    except Refused as exc:
        mark = exc.problem_mark
        raise FileFormatError(path, (mark.line if mark else 0) + first_line, exc.problem or "refused") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + first_line if mark is not None else first_line
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FileFormatError(path, line, f"frontmatter is not valid YAML: {problem}") from None
    except RecursionError:
        raise FileFormatError(path, first_line, "frontmatter nests too deeply") from None


def dump(data: dict[str, Any]) -> bytes:
    """`data` as a `---` fenced YAML block, in the order given: plain, stable, never folded."""
    text = HANDLER.export(data, Dumper=Dumper, sort_keys=False, width=1_000_000)
    return b"---\n" + text.encode("utf-8") + b"\n---\n"


def locate(front: str, where: tuple[Any, ...]) -> int:
    """The 0-based line, within `front`, of the node at `where` (keys and list indexes); as deep as it exists."""
    try:
        node = yaml.compose(front, Loader=Loader)
    except (yaml.YAMLError, RecursionError):
        return 0
    line = node.start_mark.line if node is not None else 0
    for step in where:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == step:
                    child, line = value_node, key_node.start_mark.line
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
            child = node.value[step]
            line = child.start_mark.line
        if child is None:
            break
        node = child
    return int(line)


def item_lines(front: str, name: str) -> list[int]:
    """The 0-based line of each item of the top-level list `name` (for findings about one fact)."""
    try:
        node = yaml.compose(front, Loader=Loader)
    except (yaml.YAMLError, RecursionError):
        return []
    if not isinstance(node, yaml.MappingNode):
        return []
    for key_node, value_node in node.value:
        if key_node.value == name and isinstance(value_node, yaml.SequenceNode):
            return [int(item.start_mark.line) for item in value_node.value]
    return []
