"""The vocabulary of the text rules: a Rule (what it catches, why, how to fix) and a Finding (one hit).

Kept apart from `memfiles.rules` so that each rule family module can import these types without
importing the module that assembles the families.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
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
    `anchors` are words (prefixes; `$` = whole word), phrases or symbols one of which every match
    contains: memfiles.prefilter runs the rule only on lines that contain one (syntax there).
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


def _branches(pattern: str) -> list[str]:
    """The top-level alternatives of `pattern` (`a|b(c|d)` -> `a`, `b(c|d)`)."""
    branches: list[str] = []
    depth, index, start, in_class = 0, 0, 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            index += 1 if pattern[index + 1 : index + 2] == "^" else 0
            index += 1 if pattern[index + 1 : index + 2] == "]" else 0
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            branches.append(pattern[start:index])
            start = index + 1
        index += 1
    return [*branches, pattern[start:]]


def alternation(patterns: Sequence[str]) -> str:
    """One regular expression matching what any of `patterns` matches, leftmost first, earlier patterns first.

    Consecutive alternatives that start with `\\b` share one `\\b` test: the regex engine then tries
    them only at word boundaries instead of each in turn at every position (2-3 times faster).
    """
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) >= 2:
            out.append(r"\b(?:" + "|".join(f"(?:{p[2:]})" for p in run) + ")")
        else:
            out.extend(f"(?:{p})" for p in run)
        run.clear()

    for pattern in patterns:
        for branch in _branches(pattern):
            if branch.startswith(r"\b"):
                run.append(branch)
            else:
                flush()
                out.append(f"(?:{branch})")
    flush()
    return "|".join(out)


def first_of(*patterns: str, flags: int = 0, gated: tuple[Callable[[str], bool], Sequence[str]] | None = None) -> Check:
    """A check that reports only the earliest match among all patterns (one finding per line).

    `gated` is (gate, more patterns): the more patterns count only on lines for which `gate` is true
    (a cheap test that spares every line the cost of patterns that cannot match it).
    """
    compiled: tuple[re.Pattern[str], re.Pattern[str] | None] | None = None  # on first use: start-up matters

    def check(line: str) -> Iterator[tuple[int, int]]:
        nonlocal compiled
        if compiled is None:
            extra_patterns = gated[1] if gated else None
            compiled = (
                re.compile(alternation(patterns), flags | re.MULTILINE),
                re.compile(alternation(extra_patterns), flags | re.MULTILINE) if extra_patterns else None,
            )
        main, extra = compiled
        match = main.search(line)
        if extra is not None and gated is not None and gated[0](line):
            other = extra.search(line)
            if other and (match is None or other.start() < match.start()):
                match = other
        if match:
            yield match.start(), max(match.end(), match.start() + 1)

    return check


def words(text: str) -> list[str]:
    """The whitespace-separated words of `text` (keeps long anchor lists readable in the rule modules)."""
    return text.split()
