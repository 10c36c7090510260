"""The vocabulary of the text rules: a Rule (what it catches, why, how to fix) and a Finding (one hit).

Kept apart from `memfiles.lint.rules` so that each rule family module can import these types without
importing the module that assembles the families.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

ERROR = "error"
WARNING = "warning"


class LazyPattern:
    """A regular expression compiled the first time it is used, with the methods the rules call.

    A guarded write checks one short value, on which most rules never run: compiling all their
    expressions as the rule modules load was 3-4 ms of every `mem add`.
    """

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().match(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled().findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled().sub(repl, string, count)


# A check takes one line of text (the view named by Rule.view) and yields (start, end) spans in it.
Check = Callable[[str], Iterator[tuple[int, int]]]


# The records of a lint run are plain classes and named tuples, not dataclasses: importing `dataclasses` (and
# `inspect` with it) and making these six classes took 21 ms of every `mem lint`, before it shares out its files.


class Finding(NamedTuple):
    """One rule hit: code, severity, message, 1-based line and column, and the text it matched."""

    code: str
    severity: str
    message: str
    line: int
    col: int
    excerpt: str


# The kinds of text, strictest first: a fact value (short and declarative), an episode or note, a declared
# transcript (speaker labels are structure), an agent instruction file (orders by design: only the injection
# classes apply). Each rule names the kinds it applies to (Rule.profiles).
KINDS = ("fact", "episode", "transcript", "instructions")
EVERYWHERE = KINDS
ADDRESSED = ("fact", "episode", "transcript")  # text stored as data, where an order to the agent is out of place


class Rule:
    """A named text rule: what it catches, why it matters and how to fix it (`mem lint --explain`).

    `view` is the form of the line the check reads: "folded" (NFKC, case-folded, homoglyphs and
    leetspeak mapped, zero-width removed, spaced letters joined) or "raw" (the line as written).
    `mask` hides most of the excerpt (secrets must not be copied into reports or logs).
    `example` is caught by the rule, `near_miss` is not (both shown by --explain and in docs/LINT.md); `caught` and
    `not_caught` are more of each, kept beside the patterns they test (tests/test_rules.py runs every one: changing a
    rule and its cases is one place). `example` and `near_miss` default to the first of each.
    `anchors` are what every match of the rule contains, one of them at least (memfiles.lint.gate runs the
    rule only on lines that hold one): a word prefix (`ignor` for ignore, ignored, ignoring), a whole word
    (`pin$`), or a string of symbols (`//`, `<|`) anywhere. Folded-view rules name words of the folded view.
    A rule whose check is made of anchored patterns (`first_of(anchored(…), …)`) takes the anchors of its
    patterns, and the gate runs each pattern only on the lines that hold one of its own.
    `profiles` are the kinds of text the rule applies to (KINDS).

    Rules compare and hash by identity (fast set membership); they are not changed once made.
    """

    __slots__ = (
        "anchors", "catches", "caught", "check", "code", "example", "fix", "mask", "name", "near_miss", "not_caught",
        "parts", "profiles", "severity", "view", "why",
    )  # fmt: skip

    def __init__(
        self,
        code: str,
        severity: str,
        name: str,
        catches: str,
        why: str,
        fix: str,
        check: Check,
        view: str = "folded",
        mask: bool = False,
        example: str = "",
        near_miss: str = "",
        anchors: tuple[str, ...] = (),
        profiles: tuple[str, ...] = ADDRESSED,
        caught: tuple[str, ...] = (),
        not_caught: tuple[str, ...] = (),
    ) -> None:
        self.code, self.severity, self.name, self.catches, self.why, self.fix = code, severity, name, catches, why, fix
        self.caught, self.not_caught = caught, not_caught
        example, near_miss = example or next(iter(caught), ""), near_miss or next(iter(not_caught), "")
        self.check, self.view, self.mask, self.example, self.near_miss = check, view, mask, example, near_miss
        self.parts: tuple[Anchored, ...] = check.parts if isinstance(check, FirstOf) else ()
        if self.parts:
            own = tuple(dict.fromkeys(anchor for part in self.parts for anchor in part.anchors))
            if anchors and anchors != own:
                raise ValueError(f"{code}: a rule of anchored patterns takes its anchors from them")
            anchors = own
        self.anchors, self.profiles = anchors, profiles

    def __repr__(self) -> str:
        return f"Rule({self.code!r}, {self.name!r})"

    def hits(self, text: str, parts: Sequence[Anchored] | None = None) -> Iterator[tuple[int, int]]:
        """The (start, end) spans the check finds in `text` (the rule's view of a line); of a rule made of anchored
        patterns, searching only `parts` of them when given (the others hold no anchor there, memfiles.lint.gate)."""
        if parts is None:
            return self.check(text)
        if not isinstance(self.check, FirstOf):
            raise TypeError(f"{self.code} has no anchored patterns")
        return self.check.among(text, parts)

    def with_anchors(self, anchors: tuple[str, ...], profiles: tuple[str, ...] | None = None) -> Rule:
        """The same rule with `anchors` (and `profiles`): a new object, rules are not changed once made."""
        return Rule(
            self.code, self.severity, self.name, self.catches, self.why, self.fix, self.check,
            self.view, self.mask, self.example, self.near_miss, anchors, profiles or self.profiles, self.caught,
            self.not_caught,
        )  # fmt: skip


# What can split a pattern into its alternatives: an escape, a character set (which may hold `|`, `(`
# and, first, `]`), a group's edge, a `|`. Everything else is passed over in C.
_SPLITTERS = re.compile(r"\\.|\[\^?\]?(?:\\.?|[^\]\\])*(?:\]|\Z)|[()|]", re.DOTALL)


def _branches(pattern: str) -> list[str]:
    """The top-level alternatives of `pattern` (`a|b(c|d)` -> `a`, `b(c|d)`)."""
    branches: list[str] = []
    depth, start = 0, 0
    for match in _SPLITTERS.finditer(pattern):
        token = match.group()
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif token == "|" and depth == 0:
            branches.append(pattern[start : match.start()])
            start = match.end()
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


class Anchored:
    """One pattern of a rule, or a run of consecutive ones, with its own anchors (memfiles.lint.gate syntax, `+` for
    a space: one of them is in every match of the patterns) and an example they match (tests/test_prefilter.py
    checks both). Its expression is compiled the first time a line holding one of its anchors reaches it."""

    __slots__ = ("_compiled", "anchors", "example", "flags", "patterns")

    def __init__(self, anchors: str, patterns: tuple[str, ...], example: str) -> None:
        self.anchors = tuple(anchor.replace("+", " ") for anchor in anchors.split())
        self.patterns, self.example = patterns, example
        self.flags = re.MULTILINE
        self._compiled: re.Pattern[str] | None = None

    def __repr__(self) -> str:
        return f"Anchored({self.example!r})"

    def search(self, line: str) -> re.Match[str] | None:
        if self._compiled is None:
            self._compiled = re.compile(alternation(self.patterns), self.flags)
        return self._compiled.search(line)


def anchored(anchors: str, pattern: str | Sequence[str], example: str) -> Anchored:
    """A pattern for first_of (or a run of consecutive patterns of it, as a list) with the anchors one of which
    every match of it holds, and an example it matches."""
    return Anchored(anchors, (pattern,) if isinstance(pattern, str) else tuple(pattern), example)


class FirstOf:
    """A check that reports only the earliest match among its patterns (one finding per line), compiled on first
    use (start-up matters).

    Plain patterns are joined, top-level alternatives and all, in one expression. Anchored patterns (all of a
    check's or none; a run of consecutive ones may share anchors) are searched one by one, and only those a line
    holds anchors for (`among`): the earliest match wins, and of two at one place the earlier pattern's, as in
    the joined expression."""

    def __init__(self, *patterns: str | Anchored, flags: int = 0) -> None:
        self.parts = tuple(p for p in patterns if isinstance(p, Anchored))
        if self.parts and len(self.parts) != len(patterns):
            raise ValueError("anchor every pattern of a check, or none")
        self.patterns = tuple(q for p in patterns for q in (p.patterns if isinstance(p, Anchored) else (p,)))
        self.flags = flags | re.MULTILINE
        for part in self.parts:
            part.flags = self.flags
        self._all: re.Pattern[str] | None = None

    @property
    def branches(self) -> tuple[str, ...]:
        """The patterns' top-level alternatives, in order."""
        return tuple(branch for pattern in self.patterns for branch in _branches(pattern))

    def compiled(self) -> int:
        """How many expressions this check has compiled so far."""
        return sum(part._compiled is not None for part in self.parts) + (self._all is not None)

    def __call__(self, line: str) -> Iterator[tuple[int, int]]:
        if self.parts:
            yield from self.among(line, self.parts)
            return
        if self._all is None:
            self._all = re.compile(alternation(self.branches), self.flags)
        match = self._all.search(line)
        if match:
            yield match.start(), max(match.end(), match.start() + 1)

    def among(self, line: str, parts: Sequence[Anchored]) -> Iterator[tuple[int, int]]:
        """The earliest match of `parts` (some of this check's, in its order) on `line`: what the whole check finds
        when the other patterns cannot match, as a line without their anchors shows."""
        best: re.Match[str] | None = None
        for part in parts:
            match = part.search(line)
            if match and (best is None or match.start() < best.start()):
                best = match
        if best:
            yield best.start(), max(best.end(), best.start() + 1)


def first_of(*patterns: str | Anchored, flags: int = 0) -> FirstOf:
    """A check that reports only the earliest match among all patterns (one finding per line)."""
    return FirstOf(*patterns, flags=flags)


def words(text: str) -> list[str]:
    """The whitespace-separated words of `text` (keeps long anchor lists readable in the rule modules)."""
    return text.split()


def combos(*parts: str, spaced: bool = False) -> str:
    """Anchors (memfiles.lint.gate syntax) made of one word of each of `parts` in turn (each part a
    whitespace-separated list): `combos("act talk", "as like")` is "act+as act+like talk+as talk+like".
    `spaced`: also with no space between the parts (`[insert` and `[+insert`)."""
    found = [""]
    for number, part in enumerate(parts):
        gaps = ("",) if number == 0 else ("", "+") if spaced else ("+",)
        found = [f"{head}{gap}{word}" for head in found for gap in gaps for word in part.split()]
    return " ".join(found)
