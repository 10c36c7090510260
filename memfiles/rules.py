"""Text rules shared by `mem lint` and the write guard: one implementation, one set of codes.

Each rule looks at one line of text and yields findings. `severity="error"` findings are what the
write path refuses; warnings are reported by lint but never block a write.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule hit: code, severity, message, 1-based line and column, and the text it matched."""

    code: str
    severity: str
    message: str
    line: int
    col: int
    excerpt: str


@dataclass(frozen=True, slots=True)
class Rule:
    """A named text rule: what it catches, why it matters and how to fix it (`mem lint --explain`)."""

    code: str
    severity: str
    name: str
    catches: str
    why: str
    fix: str
    check: Callable[[str], Iterator[tuple[int, int, str]]]


def normalise(text: str) -> str:
    """Fold case, compatibility forms (full-width, ligatures) and whitespace runs for matching."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _regex_check(*patterns: str) -> Callable[[str], Iterator[tuple[int, int, str]]]:
    compiled = [re.compile(p, re.IGNORECASE) for p in patterns]

    def check(line: str) -> Iterator[tuple[int, int, str]]:
        for pattern in compiled:
            match = pattern.search(line)
            if match:
                yield match.start(), match.end(), match.group(0)
                return

    return check


_CLAUSE = r"[^.;!?\n]"
RULES: list[Rule] = [
    Rule(
        "MEM101",
        "error",
        "approve-without-checking",
        "text telling the agent to always approve, skip, bypass or act without confirming",
        "a stored 'always approve … without confirming' becomes a standing order in every future prompt",
        "store the user's preference as a fact about them, and keep approval policy in the system prompt",
        _regex_check(
            rf"\balways\b{_CLAUSE}{{0,80}}?\b(approve|accept|authori[sz]e|skip|bypass|without)\b",
            rf"\b(approve|authori[sz]e|accept|execute|transfer|pay|refund|grant)\w*\b{_CLAUSE}{{0,60}}?"
            rf"\bwithout\b{_CLAUSE}{{0,25}}?\b(confirm|check|verif|ask|review|approv|consent|authori)\w*",
        ),
    ),
    Rule(
        "MEM102",
        "error",
        "withhold-or-skip-check",
        "text telling the agent not to mention, check, confirm, verify or ask",
        "hiding fees or skipping verification is how a poisoned memory turns into harm",
        "record what the user prefers (e.g. 'prefers short answers'), not what the agent must withhold",
        _regex_check(
            r"\b(do not|don't|dont|never|must not|mustn't|should not|shouldn't|stop)\b"
            rf"{_CLAUSE}{{0,20}}?\b(mention|disclose|reveal|tell|inform|warn|notify|check|confirm|verify|ask|validate)\w*",
        ),
    ),
    Rule(
        "MEM103",
        "error",
        "ignore-instructions",
        "text asking to ignore, disregard or override instructions, rules, policies or earlier text",
        "the classic prompt-injection opener; memory must never carry it into a prompt",
        "delete the line; if it quotes an attack for a note, describe it instead of quoting it",
        _regex_check(
            r"\b(ignore|disregard|forget|override|bypass|skip)\b"
            rf"{_CLAUSE}{{0,40}}?\b(instructions?|rules?|polic(y|ies)|guidelines?|prompts?|previous|prior|above|system)\b",
        ),
    ),
]


def check_line(line: str, lineno: int = 1, rules: list[Rule] | None = None) -> list[Finding]:
    """Every finding of the text rules on one line (matching on its normalised form)."""
    text = normalise(line)
    found: list[Finding] = []
    for rule in rules if rules is not None else RULES:
        for start, _end, excerpt in rule.check(text):
            found.append(Finding(rule.code, rule.severity, rule.catches, lineno, start + 1, excerpt))
    return found


def check_text(text: str) -> list[Finding]:
    """Findings for every line of a text, in line order."""
    found: list[Finding] = []
    for number, line in enumerate(text.splitlines() or [""], start=1):
        found.extend(check_line(line, number))
    return found


def guard(text: str) -> Finding | None:
    """The write guard: the first error-severity finding in `text`, or None when it may be stored."""
    for finding in check_text(text):
        if finding.severity == "error":
            return finding
    return None
