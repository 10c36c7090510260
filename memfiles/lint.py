"""`mem lint`: walk files, run the text rules (and structure rules on MEMORY.md), apply suppressions.

I/O lives here (reading files); the rules themselves are pure (memfiles.rules, rules_structure).
Suppression is per line and visible: `<!-- mem: allow MEM101 reason -->` (or `# mem: allow …` in
YAML frontmatter) on the line itself or alone on the line above.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memfiles import rules, rules_structure
from memfiles.errors import UsageError
from memfiles.findings import ERROR, Finding, Rule

MARKDOWN_SUFFIXES = (".md", ".mdc", ".markdown")
SKIP_DIRS = frozenset((".git", ".cache", "__pycache__", "node_modules"))
MEMORY_NAME = "MEMORY.md"
_ALLOW = re.compile(r"(?:<!--|#)\s*mem:\s*allow\s+(?P<codes>MEM\d+(?:\s*,\s*MEM\d+)*)\b(?P<reason>.*?)\s*(?:-->|$)")


@dataclass(frozen=True, slots=True)
class Reported:
    """One finding in one file; `reason` is set when a suppression comment silenced it."""

    path: str
    finding: Finding
    reason: str | None = None

    def to_dict(self) -> dict[str, object]:
        """The finding as a flat, key-stable dict (JSON output)."""
        out: dict[str, object] = {
            "path": self.path,
            "line": self.finding.line,
            "col": self.finding.col,
            "code": self.finding.code,
            "severity": self.finding.severity,
            "message": self.finding.message,
            "excerpt": self.finding.excerpt,
        }
        if self.reason is not None:
            out["suppressed"] = self.reason
        return out


@dataclass(slots=True)
class LintReport:
    """What one `mem lint` run found: reported findings, suppressed ones, and how many files it read."""

    findings: list[Reported] = field(default_factory=list)
    suppressed: list[Reported] = field(default_factory=list)
    files: int = 0

    @property
    def errors(self) -> int:
        return sum(r.finding.severity == ERROR for r in self.findings)


def all_rules() -> list[Rule]:
    """Every rule mem lint knows, text rules then structure rules, in code order."""
    return sorted([*rules.RULES, *rules_structure.RULES], key=lambda r: r.code)


def explain(code: str) -> Rule:
    """The rule with `code`, or UsageError naming the known codes."""
    for rule in all_rules():
        if rule.code == code.upper():
            return rule
    raise UsageError(f"unknown rule code {code!r}: known codes are {', '.join(r.code for r in all_rules())}")


def parse_codes(text: str | None) -> list[str]:
    """`MEM101,MEM3` -> ['MEM101', 'MEM3']; each item is a code or a code prefix."""
    if not text:
        return []
    codes = [part.strip().upper() for part in text.split(",") if part.strip()]
    for code in codes:
        if not re.fullmatch(r"MEM\d{0,3}", code):
            raise UsageError(f"invalid rule code {code!r}: write codes or prefixes such as MEM101 or MEM3")
    return codes


def _wanted(code: str, select: list[str], ignore: list[str]) -> bool:
    if select and not any(code.startswith(prefix) for prefix in select):
        return False
    return not any(code.startswith(prefix) for prefix in ignore)


def _suppressions(lines: list[str]) -> dict[int, tuple[set[str], str, tuple[int, int]]]:
    """1-based line -> (codes, reason, span of the comment on that line) for every allow comment."""
    found: dict[int, tuple[set[str], str, tuple[int, int]]] = {}
    for index, line in enumerate(lines):
        if "mem:" not in line:
            continue
        match = _ALLOW.search(line)
        if not match:
            continue
        codes = {c.strip() for c in match.group("codes").split(",")}
        reason = match.group("reason").strip() or "no reason given"
        found[index + 1] = (codes, reason, match.span())
        if not line[: match.start()].strip(" \t-*>"):  # a comment alone on its line covers the next line
            found.setdefault(index + 2, (codes, reason, (0, 0)))
    return found


def lint_text(text: str, path: str, memory: bool = False) -> list[Finding]:
    """Findings for one file's text: the text rules, plus structure rules when it is a MEMORY.md."""
    found = rules.check_text(text)
    if memory:
        found.extend(rules_structure.check_memory(text.encode("utf-8"), path))
    return sorted(found, key=lambda f: (f.line, f.col, f.code))


def lint_file(path: Path, shown: str, select: list[str], ignore: list[str], report: LintReport) -> None:
    """Lint one file into `report` (unreadable or non-UTF-8 files are findings, not crashes)."""
    report.files += 1
    try:
        data = path.read_bytes()
        text = data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        problem = f"cannot read as UTF-8 text: {exc}"
        report.findings.append(Reported(shown, Finding("MEM501", ERROR, problem, 1, 1, "")))
        return
    lines = text.split("\n")
    allowed = _suppressions(lines) if "mem:" in text else {}
    for finding in lint_text(text, shown, memory=path.name == MEMORY_NAME):
        if not _wanted(finding.code, select, ignore):
            continue
        codes, reason, (start, end) = allowed.get(finding.line, (set(), "", (0, 0)))
        if start <= finding.col - 1 < end and not finding.code.startswith("MEM2"):
            continue  # a hit inside the suppression comment itself
        if finding.code in codes:
            report.suppressed.append(Reported(shown, finding, reason))
        else:
            report.findings.append(Reported(shown, finding))


def markdown_files(paths: Iterable[Path]) -> list[Path]:
    """Files to lint: each given file as is, markdown files under each given folder (sorted)."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            for folder, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                out.extend(Path(folder) / n for n in sorted(names) if n.endswith(MARKDOWN_SUFFIXES))
        elif path.exists():
            out.append(path)
        else:
            raise UsageError(f"{path}: no such file or folder")
    return out


def _shown(path: Path, base: Path) -> str:
    try:
        return path.absolute().relative_to(base.absolute()).as_posix()
    except ValueError:
        return path.as_posix()


def lint_paths(
    paths: list[Path], select: list[str] | None = None, ignore: list[str] | None = None, base: Path | None = None
) -> LintReport:
    """Lint files and folders; paths in the report are relative to `base` (default: the current folder)."""
    report = LintReport()
    root = base or Path.cwd()
    for path in markdown_files(paths):
        lint_file(path, _shown(path, root), select or [], ignore or [], report)
    report.findings.sort(key=lambda r: (r.path, r.finding.line, r.finding.col, r.finding.code))
    report.suppressed.sort(key=lambda r: (r.path, r.finding.line, r.finding.col, r.finding.code))
    return report
