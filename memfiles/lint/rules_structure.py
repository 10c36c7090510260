"""MEM5xx: structure of a MEMORY.md (FORMAT.md, "Facts"): what makes a memory file wrong, not dangerous;
and (MEM509, in every file lint reads) the conflict markers a merge left.

Pure: takes the file's bytes and returns findings. A file that does not parse is a finding with
its line (never an exception), so `mem lint` reports every broken file and goes on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from memfiles import clock
from memfiles.errors import FileFormatError
from memfiles.lint.findings import ERROR, WARNING, Finding, Rule

if TYPE_CHECKING:
    from memfiles.format.memoryfile import Checked

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
    _rule(
        "MEM509",
        ERROR,
        "conflict-marker",
        "the lines of a merge conflict git left in a file (`<<<<<<< `, `=======`, `>>>>>>> `), in any file lint reads",
        "both sides of an unfinished merge are in the file: in MEMORY.md's facts it does not parse, in notes, episodes "
        "and instruction files both versions reach the prompt, and a commit would sync the markers to every clone",
        "keep the right text and delete the marker lines, then run `mem sync --commit` (while a sync's merge is "
        "unfinished) or commit the file",
        "<<<<<<< ours\nprefers email\n=======\nprefers SMS\n>>>>>>> theirs",
        "Notes\n=======\n(a heading underline: not between <<<<<<< and >>>>>>> lines)",
    ),
]
BY_CODE = {rule.code: rule for rule in RULES}


def _finding(code: str, line: int, message: str, excerpt: str = "") -> Finding:
    rule = BY_CODE[code]
    return Finding(code, rule.severity, message, max(line, 1), 1, excerpt)


_CODES = {"unknown-field": "MEM502", "duplicate-id": "MEM503", "missing": "MEM501", "format": "MEM501"}


def check_memory(data: bytes, path: str) -> list[Finding]:
    """Structure findings (MEM5xx) for the bytes of one MEMORY.md.

    MEM501-503 are the problems the file format itself reports (memfiles.format.memoryfile.check, the
    same validation every command uses); MEM504-507 look at what the facts that read as facts say.
    """
    from memfiles.format.memoryfile import check

    found: list[Finding] = []
    if len(data) > OVERSIZE_BYTES:
        found.append(_finding("MEM508", 1, f"file is {len(data)} bytes, over {OVERSIZE_BYTES}"))
    try:
        checked = check(data, path)
    except FileFormatError as exc:
        return [*found, _finding("MEM501", exc.line or 1, exc.problem)]
    found += [_finding(_CODES[problem.kind], line, problem.message) for line, problem in checked.problems]
    active: dict[str, int] = {}
    now = clock.now()
    for line, fact in checked.facts:
        if fact.status == "active":
            if fact.key in active:
                other = active[fact.key]
                found.append(
                    _finding("MEM504", line, f"second active fact on key {fact.key!r} (other at line {other})")
                )
            active.setdefault(fact.key, line)
            if fact.expires_at and clock.compare(fact.expires_at, now) < 0:
                expired = clock.iso(fact.expires_at)
                found.append(_finding("MEM505", line, f"active fact {fact.id} expired on {expired}"))
            if fact.confidence == "inferred" and not fact.source_ref:
                found.append(_finding("MEM506", line, f"active inferred fact {fact.id} has no source_ref"))
        if fact.superseded_by and fact.superseded_by not in checked.ids:
            target = fact.superseded_by
            message = f"fact {fact.id} is superseded_by {target!r}, which is not in the file"
            found.append(_finding("MEM507", line, message))
    if checked.doc is not None:
        found += _parsed_values(checked)
    return found


GUARDED_FIELDS = ("key", "value", "source_ref")


def _parsed_values(checked: Checked) -> list[Finding]:
    """The write guard on each fact's fields as a reader gets them (YAML quoting and escapes undone, a folded
    value joined): what the lines of the file show is read by the text rules already, so `lint_text` keeps
    a finding here only where the line's own reading missed it."""
    from memfiles.lint.rules import judge_fact

    found: list[Finding] = []
    for index, (_line, fact) in enumerate(checked.facts):
        for name in GUARDED_FIELDS:
            text = getattr(fact, name)
            hit = judge_fact(text, field=name, key=fact.key, subject=fact.subject) if text else None
            if hit is not None:
                message = f"{hit.message} (fact {fact.id} `{name}` as parsed)"
                found.append(hit._replace(line=checked.field_line(index, name), col=1, message=message))
    return found


# git writes a conflict as `<<<<<<< label`, the ours side, (`||||||| label`, the base, in diff3 style),
# `=======`, the theirs side, `>>>>>>> label`: markers of 7 characters alone or before a space, at a
# line's start. `<<<<<<<` and `>>>>>>>` lines are markers wherever they are (as `mem sync` and `mem
# doctor` read them); `=======` and `|||||||` only between them, since `=======` alone underlines a
# heading.
_OPEN, _CLOSE = re.compile(r"<{7}(?: |$)"), re.compile(r">{7}(?: |$)")
_INSIDE = re.compile(r"(?:={7}|\|{7}(?: .*)?)$")
_PARTS = {
    "<": "the start of a merge conflict (this side follows)",
    "|": "the base of a merge conflict",
    "=": "the middle of a merge conflict (the other side follows)",
    ">": "the end of a merge conflict",
}


def check_markers(text: str) -> list[Finding]:
    """MEM509 for each line of a merge conflict (docs/LINT.md): linear in the text, nothing but the markers read."""
    if "<<<<<<<" not in text and ">>>>>>>" not in text:
        return []
    found: list[Finding] = []
    inside = False
    for number, line in enumerate(text.split("\n"), 1):
        if line[:1] not in _PARTS:
            continue
        line = line.removesuffix("\r")
        if _OPEN.match(line):
            inside = True
        elif _CLOSE.match(line):
            inside = False
        elif not (inside and _INSIDE.match(line)):
            continue
        message = f"conflict marker, {_PARTS[line[0]]}: keep the right text and delete the marker lines"
        found.append(Finding("MEM509", ERROR, message, number, 1, line[:60]))
    return found
