"""The guard as a library: check a text for the kind of place it is going (`check`), lint files (`lint`),
explain a rule (`explain_rule`). The same rules as the write path and `mem lint` (docs/LINT.md)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from memfiles.lint.engine import LintReport
    from memfiles.lint.findings import Finding, Rule

Where = Literal["fact", "episode", "transcript", "instructions"]
# What each kind of text is checked for (docs/LINT.md, "Kinds of text"): a fact value is strict; an episode or
# note gets every text rule; a declared transcript the same, its speaker labels read as structure; an agent
# instruction file (CLAUDE.md, AGENTS.md, .cursor/rules), orders by design, only the injection classes (hidden
# text, secrets, exfiltration, overrides, fake boundaries). Each rule names its kinds (memfiles.lint.rules).
WHERE: tuple[Where, ...] = ("fact", "episode", "transcript", "instructions")


class FindingModel(BaseModel):
    """One rule hit: its code, severity, message, 1-based line and column, and the text it matched."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    code: str
    severity: Literal["error", "warning"]
    message: str
    line: int
    col: int
    excerpt: str

    @classmethod
    def of(cls, finding: Finding) -> FindingModel:
        return cls.model_validate(finding._asdict())


class CheckResult(BaseModel):
    """What the guard found in a text, and whether a write of that kind would be refused (an error finding)."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    where: Where
    findings: list[FindingModel]

    @property
    def refused(self) -> bool:
        return any(f.severity == "error" for f in self.findings)

    @property
    def rule(self) -> str | None:
        """The code a refusal names: the first error finding's."""
        return next((f.code for f in self.findings if f.severity == "error"), None)


def check(text: str, *, where: Where = "fact") -> CheckResult:
    """Run the guard on `text` as the kind of text `where` names; findings sorted by line, column and code.

    The text is checked line by line and as it is rendered (the lines of a paragraph joined with spaces), so an
    instruction split across lines is found at the line where it starts. Suppression comments do not apply here:
    they silence `mem lint`'s report, never the guard."""
    from memfiles.errors import UsageError
    from memfiles.lint.rules import check_text

    if where not in WHERE:
        raise UsageError(f"where={where!r}: use one of {', '.join(WHERE)}")
    return CheckResult(where=where, findings=[FindingModel.of(f) for f in check_text(text, kind=where)])


def lint(
    paths: Sequence[str | os.PathLike[str]] | None = None,
    *,
    home: str | os.PathLike[str] | None = None,
    select: str | None = None,
    ignore: str | None = None,
    jobs: int | None = None,
    kind: Where | None = None,
) -> LintReport:
    """Lint files and folders (paths relative to the working directory); none given: the memory home (found as
    `open_home` finds it), with mem.toml's ignored codes. `select`/`ignore`: codes or prefixes, `MEM1,MEM301`.
    `kind` reads every file as that kind of text (`mem lint --as`); by default each file's path decides."""
    from memfiles.errors import HomeError, UsageError
    from memfiles.lint import engine

    ignored = engine.parse_codes(ignore)
    if paths:
        found = engine.lint_paths([Path(p) for p in paths], engine.parse_codes(select), ignored, Path.cwd(), jobs, kind)
        return settle_accepted(found, Path.cwd())
    from memfiles.api.home import open_home

    try:
        opened = open_home(home)
    except HomeError as exc:
        raise UsageError(f"mem lint: give files or folders to check, or a memory home ({exc})") from None
    return opened.lint(select=select, ignore=ignore, jobs=jobs, kind=kind)


# The codes of the text rules (MEM1xx-MEM4xx): what the guard found and a person accepted. Structure (MEM5xx) and
# conflict markers are never settled by an acceptance.
_TEXT_RULES = ("MEM1", "MEM2", "MEM3", "MEM4")


def settle_accepted(report: LintReport, base: Path) -> LintReport:
    """`report` with each episode a person accepted (FORMAT.md, "Quarantine": this text, this acceptance) reported
    once, as a warning naming who accepted it, instead of the text rules' errors on it: `mem lint` (and the
    pre-commit hook) pass on a home whose only findings are accepted episodes, and still show them."""
    from memfiles.errors import MemError
    from memfiles.format import episodes
    from memfiles.lint.engine import Reported
    from memfiles.lint.findings import ERROR, WARNING
    from memfiles.lint.findings import Finding as LintFinding
    from memfiles.ops.quarantine import review

    erred = {r.path for r in report.findings if r.finding.severity == ERROR and r.finding.code.startswith(_TEXT_RULES)}
    for path in sorted(p for p in erred if "episodes/" in p.replace(os.sep, "/") and p.endswith(".md")):
        try:
            episode = episodes.parse((base / path).read_bytes(), path)
        except (OSError, MemError):
            continue
        decided = review(episode)
        if decided.state != "accepted" or episode.accepted is None:
            continue
        settled = [r for r in report.findings if r.path == path and r.finding.code.startswith(_TEXT_RULES)]
        codes = ", ".join(sorted({r.finding.code for r in settled}))
        by = f"{episode.accepted.by} on {episode.accepted.at:%Y-%m-%d}"
        message = (
            f"episode {episode.id} accepted by {by}: the guard's findings ({codes}) are settled (mem review --settled)"
        )
        first = min(r.finding.line for r in settled)
        report.findings = [r for r in report.findings if r not in settled]
        report.findings.append(Reported(path, LintFinding(settled[0].finding.code, WARNING, message, first, 1, "")))
    report.findings.sort(key=lambda r: (r.path, r.finding.line, r.finding.col))
    return report


def explain_rule(code: str) -> Rule:
    """What a rule catches, why it matters, how to fix it, and an example of each side (`mem lint --explain`)."""
    from memfiles.lint import engine

    return engine.explain(code)
