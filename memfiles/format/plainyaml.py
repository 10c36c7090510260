"""The YAML memfiles writes, written and read back without PyYAML (15 ms to import on every write).

`dump` gives exactly the text `yaml.dump(data, sort_keys=False, allow_unicode=True,
default_flow_style=False, width=1_000_000)` gives with memoryfile's dumper, for the shapes frontmatter
has: a mapping of scalars, of empty lists, and of lists of scalars or of flat mappings of scalars.
It returns None for anything else (a tab, a line break, an emoji, a nested list, a very long value),
and the caller asks PyYAML. tests/test_plainyaml.py compares the two on generated data.

`load` reads back only that shape. A caller must accept what it gives only when dumping it again
gives the same text (memoryfile.parse does): anything a person laid out differently, comments,
flow style, other quoting, goes to PyYAML, so what is read never depends on which reader read it.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

# One line of characters PyYAML writes as they are (allow_unicode): no tab, no line break (U+0085,
# U+2028, U+2029), no BOM; nothing outside the Basic Multilingual Plane, where libyaml differs. What
# PyYAML writes is [\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]; the expression
# holds the other characters, whose class compiles in a fifth of the time (3 ms of every write).
_NOT_PRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff\U00010000-\U0010ffff]")
_LONGEST = 100_000  # far below the width, so PyYAML never folds a line
# PyYAML's implicit resolvers (yaml/resolver.py) for plain scalars that do not read as a string.
_BOOL = frozenset(
    (
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
    )
)
_NULL = frozenset(("~", "null", "Null", "NULL"))
_NUMBER = re.compile(
    r"""[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN)
    |[-+]?0b[0-1_]+
    |[-+]?0[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+""",
    re.X,
)
_TIMESTAMP = re.compile(
    r"""[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
     (?:[Tt]|[ \t]+)[0-9][0-9]?
     :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?""",
    re.X,
)
_WHEN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)?")
_NAME = re.compile(r"[a-z_][a-z0-9_]*")
_FIELD = re.compile(f"({_NAME.pattern}): (.*)")


def _reads_as_text(text: str) -> bool:
    """Whether PyYAML's dumper reads `text`, written plain, back as a string (not a bool, number, date…)."""
    first = text[0]
    if first in "yYnNtTfFoO" and text in _BOOL:
        return False
    if first in "~nN" and text in _NULL:
        return False
    if first in "-+.0123456789" and _NUMBER.fullmatch(text):
        return False
    if first in "0123456789" and _TIMESTAMP.fullmatch(text):
        return False
    return text not in ("<<", "=", "!", "&", "*")


def _plain(text: str) -> bool:
    """Whether PyYAML writes one-line printable `text` without quotes (its analyze_scalar, block context)."""
    if text[0] == " " or text[-1] == " " or text.startswith(("---", "...")):
        return False
    first = text[0]
    if first in "#,[]{}&*!|>'\"%@`":
        return False
    if first in "?:-" and (len(text) == 1 or text[1] == " "):
        return False
    if ": " in text[1:] or (len(text) > 1 and text[-1] == ":") or " #" in text:
        return False
    return _reads_as_text(text)


def scalar(value: object) -> str | None:
    """`value` as PyYAML writes it in block context, or None when this module does not know how."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        if not value or len(value) > _LONGEST or _NOT_PRINTABLE.search(value):
            return None
        if _plain(value):
            return value
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, datetime):
        text = value.strftime("%Y-%m-%dT%H:%M:%SZ")  # memoryfile's representer: the zone is not written
        return text if _WHEN.fullmatch(text) else None
    if isinstance(value, date):
        text = value.isoformat()
        return text if _WHEN.fullmatch(text) else None
    return None


def _key(name: object) -> str | None:
    """A mapping key PyYAML writes plain and as a simple key (under 128 characters)."""
    if isinstance(name, str) and len(name) < 128 and _NAME.fullmatch(name) and _reads_as_text(name):
        return name
    return None


def dump(data: dict[str, Any]) -> str | None:
    """`data` as PyYAML writes it (see the module docstring), or None for anything outside that shape."""
    out: list[str] = []
    for name, value in data.items():
        if _key(name) is None:
            return None
        if isinstance(value, list):
            if not value:
                out.append(f"{name}: []\n")
                continue
            out.append(f"{name}:\n")
            for item in value:
                if not isinstance(item, dict):
                    text = scalar(item)
                    if text is None:
                        return None
                    out.append(f"- {text}\n")
                    continue
                if not item:
                    return None
                lead = "- "
                for field, inner in item.items():
                    text = scalar(inner)
                    if _key(field) is None or text is None:
                        return None
                    out.append(f"{lead}{field}: {text}\n")
                    lead = "  "
            continue
        text = scalar(value)
        if text is None:
            return None
        out.append(f"{name}: {text}\n")
    return "".join(out) if out else None


class _Unknown(Exception):
    """Text outside the shape `dump` writes."""


def _read(text: str) -> object:
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'"):
            raise _Unknown
        return text[1:-1].replace("''", "'")
    if text == "null":
        return None
    if text in ("true", "false"):
        return text == "true"
    if not text or _NOT_PRINTABLE.search(text) or not (_plain(text) or _TIMESTAMP.fullmatch(text)):
        raise _Unknown
    return text  # a date stays text, as memoryfile's loader leaves it


def load(text: str) -> dict[str, Any] | None:
    """The data of frontmatter in the shape `dump` writes (dates as text), or None for any other YAML.

    Check the result by dumping it again (see the module docstring): this reader trusts the layout.
    """
    data: dict[str, Any] = {}
    items: list[Any] | None = None
    try:
        for line in text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"):
            if line.startswith("- "):
                if items is None:
                    return None
                rest = line[2:]
                field = None if rest.startswith("'") else _FIELD.fullmatch(rest)
                if field:
                    items.append({field[1]: _read(field[2])})
                else:
                    items.append(_read(rest))
            elif line.startswith("  "):
                field = _FIELD.fullmatch(line[2:])
                if not field or not items or not isinstance(items[-1], dict) or field[1] in items[-1]:
                    return None
                items[-1][field[1]] = _read(field[2])
            else:
                items = None
                value: object
                if line.endswith(":") and _NAME.fullmatch(line[:-1]):
                    name = line[:-1]
                    value = items = []
                else:
                    field = _FIELD.fullmatch(line)
                    if not field:
                        return None
                    name = field[1]
                    value = [] if field[2] == "[]" else _read(field[2])
                if name in data:
                    return None
                data[name] = value
    except _Unknown:
        return None
    return data
