"""Field types the file formats share, and how a validation error becomes `path:line: what is wrong`.

The models (`Fact`, `Episode`, the settings) are pydantic models with `extra="forbid"`; their errors
carry a location such as `("facts", 3, "stated_at")`, which `problems` turns into a line of the
frontmatter (`memfiles.format.yamlio.locate`) and a sentence a person can act on.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated, Any, Literal, get_args

from pydantic import BeforeValidator, PlainSerializer, PlainValidator, ValidationError, ValidationInfo, WithJsonSchema

from memfiles import clock
from memfiles.errors import UsageError

Subject = Literal["user_preference", "user_attribute", "account_state", "constraint", "past_action", "goal"]
Confidence = Literal["stated", "inferred"]
Status = Literal["active", "proposed", "conflict", "superseded", "expired", "retracted"]
SUBJECTS: tuple[str, ...] = get_args(Subject)
CONFIDENCES: tuple[str, ...] = get_args(Confidence)
STATUSES: tuple[str, ...] = get_args(Status)

KEY_PATTERN = re.compile(r"[a-z][a-z0-9_.-]{0,63}")
KEY_RULE = "lower-case letters, digits, _ . -"


def sha256_hex(text: str) -> str:
    """The SHA-256 of `text` (UTF-8) in hex: what fact and episode ids and an acceptance's hash are made of."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _when(value: Any, info: ValidationInfo) -> date | datetime:
    if isinstance(value, date | str):
        try:
            return clock.parse_when(value)
        except UsageError:
            pass
    raise ValueError(f"`{info.field_name}` is not a date: {value!r} (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)")


# A moment as the formats hold it: a date, or a UTC datetime to the second (memfiles.clock); text in JSON.
When = Annotated[
    date | datetime,
    PlainValidator(_when),
    PlainSerializer(clock.iso, when_used="json"),
    WithJsonSchema({"type": "string", "description": "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)"}),
]


def _key(value: Any, info: ValidationInfo) -> Any:
    if isinstance(value, str) and not KEY_PATTERN.fullmatch(value):
        raise ValueError(f"`{info.field_name}` is {value!r}, expected {KEY_RULE}")
    return value


def _one_line(value: Any, info: ValidationInfo) -> Any:
    if isinstance(value, str) and ("\n" in value or "\r" in value):
        raise ValueError(f"`{info.field_name}` must be one line")
    return value


Key = Annotated[str, BeforeValidator(_key)]
OneLine = Annotated[str, BeforeValidator(_one_line)]

# What a text field cannot hold as written: control characters (line breaks among them), line and paragraph
# separators, and the lone surrogates that stand for bytes a file name had that were not UTF-8.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def printable_line(text: str, limit: int | None = None) -> str:
    """`text` (a path, an id from another tool) as one line that any text field holds (FORMAT.md, "Capture"):
    each control character, line separator or undecodable byte is written as `\\xNN` / `\\uNNNN`, so
    the line names what it named and survives YAML; over `limit` characters, the start is cut to `…`."""

    def escaped(found: re.Match[str]) -> str:
        code = ord(found.group())
        if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (os.fsdecode's surrogateescape)
            return f"\\x{code - 0xDC00:02x}"
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    line = _UNPRINTABLE.sub(escaped, text)
    if limit is not None and len(line) > limit:
        line = "…" + line[len(line) - limit + 1 :]
    return line


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in a file: where (a path of keys and indexes), what kind, and the sentence."""

    where: tuple[Any, ...]
    kind: Literal["unknown-field", "missing", "duplicate-id", "format"]
    message: str


def problems(exc: ValidationError, describe: Callable[[tuple[Any, ...], str], str]) -> list[Problem]:
    """Every error of a validation, located and worded; `describe(loc, sentence)` adds the context."""
    found = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        found.append(Problem(loc, _kind(error), describe(loc, _sentence(error))))
    return found


def _kind(error: Any) -> Literal["unknown-field", "missing", "format"]:
    if error["type"] == "extra_forbidden":
        return "unknown-field"
    if error["type"] == "missing" or (error.get("input") is None and error["type"].endswith("_type")):
        return "missing"
    return "format"


def _sentence(error: Any) -> str:
    """What one pydantic error says, in the words of docs/FORMAT.md."""
    name = str(error["loc"][-1]) if error["loc"] else "frontmatter"
    kind, value = error["type"], error.get("input")
    if kind == "value_error":
        return str(error["ctx"]["error"])
    if kind == "missing" or (value is None and kind.endswith("_type")):
        return f"missing `{name}`"
    if kind == "extra_forbidden":
        return f"unknown field {name!r}"
    if kind == "literal_error":
        return f"`{name}` is {value!r}, expected one of {error['ctx']['expected'].replace(chr(39), '')}"
    if kind == "bool_parsing" or kind == "bool_type":
        return f"`{name}` must be true or false, got {value!r}"
    if kind == "list_type":
        return f"`{name}` must be a list"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"`{name}` must be a mapping of fields"
    if kind == "string_type":
        return f"`{name}` must be text, got {type(value).__name__}"
    return f"`{name}`: {error['msg']}"
