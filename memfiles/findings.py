"""The vocabulary of the text rules: a Rule (what it catches, why, how to fix) and a Finding (one hit).

Kept apart from `memfiles.rules` so that each rule family module can import these types without
importing the module that assembles the families.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"

# A check takes one line of text (the view named by Rule.view) and yields (start, end) spans in it.
Check = Callable[[str], Iterator[tuple[int, int]]]


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule hit: code, severity, message, 1-based line and column, and the text it matched."""

    code: str
    severity: str
    message: str
    line: int
    col: int
    excerpt: str


@dataclass(frozen=True, slots=True, eq=False)  # rules compare and hash by identity (fast set membership)
class Rule:
    """A named text rule: what it catches, why it matters and how to fix it (`mem lint --explain`).

    `view` is the form of the line the check reads: "folded" (NFKC, case-folded, homoglyphs and
    leetspeak mapped, zero-width removed, spaced letters joined) or "raw" (the line as written).
    `mask` hides most of the excerpt (secrets must not be copied into reports or logs).
    `example` is caught by the rule, `near_miss` is not (both shown by --explain and in docs/LINT.md).
    `anchors` are words (prefixes; `$` = whole word) or symbols one of which every match contains:
    the prefilter in memfiles.rules runs the rule only on lines that contain one.
    """

    code: str
    severity: str
    name: str
    catches: str
    why: str
    fix: str
    check: Check
    view: str = "folded"
    mask: bool = False
    example: str = ""
    near_miss: str = ""
    anchors: tuple[str, ...] = ()


def regex_check(*patterns: str, flags: int = 0) -> Check:
    """A check that reports the first match of each pattern (one finding per pattern per line at most)."""
    compiled = [re.compile(p, flags) for p in patterns]

    def check(line: str) -> Iterator[tuple[int, int]]:
        seen: set[int] = set()
        for pattern in compiled:
            match = pattern.search(line)
            if match and match.start() not in seen:
                seen.add(match.start())
                yield match.start(), max(match.end(), match.start() + 1)

    return check


def first_of(*patterns: str, flags: int = 0) -> Check:
    """A check that reports only the earliest match among all patterns (one finding per line)."""
    # One alternation finds the leftmost match of any pattern in a single scan.
    compiled = re.compile("|".join(f"(?:{p})" for p in patterns), flags | re.MULTILINE)

    def check(line: str) -> Iterator[tuple[int, int]]:
        match = compiled.search(line)
        if match:
            yield match.start(), max(match.end(), match.start() + 1)

    return check


def words(text: str) -> list[str]:
    """The whitespace-separated words of `text` (keeps long anchor lists readable in the rule modules)."""
    return text.split()
