"""`mem lint`: walk files, run the text rules and the conflict-marker rule (and structure rules on MEMORY.md),
apply suppressions.

I/O lives here (reading files); the rules themselves are pure (memfiles.lint.rules, rules_structure).
Suppression is per line and visible: `<!-- mem: allow MEM101 reason -->` (or `# mem: allow …` in
YAML frontmatter) on the line itself or alone on the line above.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from memfiles.errors import UsageError
from memfiles.lint import rules, rules_structure
from memfiles.lint.findings import ERROR, Finding, Rule

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

MARKDOWN_SUFFIXES = (".md", ".mdc", ".markdown")
SKIP_DIRS = frozenset((".git", ".cache", "__pycache__", "node_modules"))
MEMORY_NAME = "MEMORY.md"
_ALLOW = re.compile(r"(?:<!--|#)\s*mem:\s*allow\s+(?P<codes>MEM\d+(?:\s*,\s*MEM\d+)*)\b(?P<reason>.*?)\s*(?:-->|$)")


class Reported(NamedTuple):  # not a dataclass: see memfiles.lint.findings
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


class LintReport:
    """What one `mem lint` run found: reported findings, suppressed ones, and how many files it read."""

    __slots__ = ("files", "findings", "suppressed")

    def __init__(self) -> None:
        self.findings: list[Reported] = []
        self.suppressed: list[Reported] = []
        self.files = 0

    @property
    def errors(self) -> int:
        return sum(r.finding.severity == ERROR for r in self.findings)

    @property
    def warnings(self) -> int:
        return len(self.findings) - self.errors


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


INSTRUCTION_FILES = frozenset(("CLAUDE.md", "AGENTS.md"))
_VALUE_LINE = re.compile(r"\s*(?:-\s+)?value\s*:")  # a fact's value in MEMORY.md's frontmatter
_ITEM_START = re.compile(r"\s*-\s")  # a fact's first line in MEMORY.md's frontmatter list
_FIELD = re.compile(r"\s*(?:-\s+)?(key|subject)\s*:\s*['\"]?([^'\"#\n]*?)['\"]?\s*$")


def _key_and_subject(lines: list[str], n: int) -> tuple[str, str]:
    """The `key` and `subject` of the fact whose value is on line `n` (0-based) of a MEMORY.md: the lines of its
    list item, up to the next item or the end of the frontmatter."""
    start = n
    while start > 0 and not _ITEM_START.match(lines[start]) and lines[start].strip() != "---":
        start -= 1
    end = n + 1
    while end < len(lines) and not _ITEM_START.match(lines[end]) and lines[end].strip() != "---":
        end += 1
    found = {"key": "", "subject": ""}
    for line in lines[start:end]:
        match = _FIELD.match(line)
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found["key"], found["subject"]


_TRANSCRIPT = re.compile(r"^transcript:\s*(?:true|yes)\s*$", re.MULTILINE)


def kind_of(path: str, text: str) -> str:
    """The kind of text a file holds, which decides the rules it gets (docs/LINT.md, "Kinds of text"): MEMORY.md
    holds fact values and notes (`fact`, the strictest); CLAUDE.md, AGENTS.md and `.cursor/rules/*` instructions
    for agents (`instructions`); a file under `episodes/` an episode, or a `transcript` when its frontmatter says
    `transcript: true`; any other markdown an `episode`."""
    posix = path.replace(os.sep, "/")
    name = posix.rsplit("/", 1)[-1]
    if name == MEMORY_NAME:
        return "fact"
    if name in INSTRUCTION_FILES or "/.cursor/rules/" in f"/{posix}":
        return "instructions"
    if "/episodes/" in f"/{posix}" and text.startswith("---"):
        end = text.find("\n---", 3)
        if _TRANSCRIPT.search(text, 0, end if end > 0 else len(text)):
            return "transcript"
    return "episode"


# What memfiles itself writes in an episode's frontmatter about the guard (FORMAT.md, "Quarantine"): its own
# metadata, never text an agent reads, so lint does not read it.
_OWN_METADATA = re.compile(r"^(?:findings|accepted):", re.MULTILINE)


def _without_own_metadata(text: str) -> str:
    """`text` with the lines of its frontmatter's `findings:` and `accepted:` blocks blanked (lines kept)."""
    end = text.find("\n---", 3)
    if not text.startswith("---") or end < 0 or not _OWN_METADATA.search(text, 0, end):
        return text
    lines = text[:end].split("\n")
    inside = False
    for index, line in enumerate(lines):
        if line[:1] not in (" ", "-", "\t") or not line:
            inside = bool(_OWN_METADATA.match(line))
        if inside:
            lines[index] = ""
    return "\n".join(lines) + text[end:]


def lint_text(text: str, path: str, memory: bool = False, kind: str | None = None) -> list[Finding]:
    """Findings for one file's text read as `kind` (default: as kind_of says): the text rules and conflict markers,
    plus structure rules in a MEMORY.md. In an episode, the guard's findings and acceptance memfiles records in the
    frontmatter are its own metadata and are not read."""
    kind = kind or kind_of(path, text)
    if kind in ("episode", "transcript") and not memory:
        text = _without_own_metadata(text)
    found = rules.check_text(text, kind=kind, frontmatter=True)
    if kind == "fact" and os.path.basename(path) == MEMORY_NAME and any(f.code in rules.VALUE_ONLY for f in found):
        # an order is wrong in a fact's value, not in its source_ref (which may quote the user) or in a note
        lines = text.split("\n")
        found = [
            f
            for f in found
            if f.code not in rules.VALUE_ONLY
            or (_VALUE_LINE.match(lines[f.line - 1]) and not rules.names_a_goal(*_key_and_subject(lines, f.line - 1)))
        ]
    found += rules_structure.check_markers(text)
    if memory:
        seen = {(f.line, f.code) for f in found}
        structure = rules_structure.check_memory(text.encode("utf-8"), path)
        found.extend(f for f in structure if (f.line, f.code) not in seen)  # a value's line and it as parsed
    return sorted(found, key=lambda f: (f.line, f.col, f.code))


def lint_file(
    path: str, shown: str, select: list[str], ignore: list[str], report: LintReport, kind: str | None = None
) -> None:
    """Lint one file into `report` (unreadable or non-UTF-8 files are findings, not crashes)."""
    report.files += 1
    try:
        data = _read(path)
        # A byte-order mark is dropped as "utf-8-sig" would: that codec runs in Python, 1.3 µs a file against 0.4.
        text = (data[3:] if data.startswith(_BOM) else data).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problem = f"cannot read as UTF-8 text: {exc}"
        report.findings.append(Reported(shown, Finding("MEM501", ERROR, problem, 1, 1, "")))
        return
    allowed = _suppressions(text.split("\n")) if "mem:" in text else {}
    for finding in lint_text(text, shown, os.path.basename(path) == MEMORY_NAME, kind or kind_of(path, text)):
        if not _wanted(finding.code, select, ignore):
            continue
        codes, reason, (start, end) = allowed.get(finding.line, (set(), "", (0, 0)))
        if start <= finding.col - 1 < end and not finding.code.startswith("MEM2"):
            continue  # a hit inside the suppression comment itself
        if finding.code in codes:
            report.suppressed.append(Reported(shown, finding, reason))
        else:
            report.findings.append(Reported(shown, finding))


_BOM = b"\xef\xbb\xbf"
_READ = 1 << 16  # bytes asked for by each read: more than a memory file holds


def _read(path: str) -> bytes:
    """The bytes of a file, read by its descriptor until a read gives nothing (a pipe, `mem lint <(…)`, may give
    less than it will hold before its end). A file object per file cost 20 ms at 5,000 files; asking the file's
    size first (fstat) cost more than the empty read at its end (8.8 against 7.5 µs a file)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, _READ):
            chunks.append(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


def markdown_files(paths: Iterable[Path], base: Path | None = None) -> list[tuple[str, str]]:
    """Files to lint, each with the path to report it by (relative to `base`, default the current folder):
    each given file as is, markdown files under each given folder (sorted). Paths are strings: a Path
    object per file cost 15 ms at 10,000 files, all before the work is shared out."""
    root = os.path.abspath(base or Path.cwd())
    out: list[tuple[str, str]] = []
    for path in paths:
        if path.is_dir():
            for folder, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                shown = _shown(folder, root)
                at, shown_at = os.path.join(folder, ""), f"{shown}/" if shown != "." else ""
                out.extend((at + name, shown_at + name) for name in sorted(names) if name.endswith(MARKDOWN_SUFFIXES))
        elif path.exists():
            out.append((str(path), _shown(str(path), root)))
        else:
            raise UsageError(f"{path}: no such file or folder")
    return out


def _shown(path: str, root: str) -> str:
    absolute = os.path.abspath(path)
    if absolute == root or absolute.startswith(root.rstrip(os.sep) + os.sep):
        return Path(os.path.relpath(absolute, root)).as_posix()
    return Path(path).as_posix()


# Below this much text, starting more processes costs more than it saves: each of the pool's processes
# starts afresh and loads the rules (on 2 CPUs, 6 MB of episodes took as long in two processes as in
# one, 10 MB 20 % less).
_PARALLEL_BYTES = 8_000_000
_SAMPLE = 200  # files whose size stands for all of them when deciding how many processes to start
_CHUNKS_A_PROCESS = 8  # chunks of files per process: enough to even out unequal CPUs, few enough to cost nothing


def lint_paths(
    paths: list[Path],
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    base: Path | None = None,
    jobs: int | None = None,
    kind: str | None = None,
) -> LintReport:
    """Lint files and folders; paths in the report are relative to `base` (default: the current folder). `kind`
    reads every file as that kind of text (`mem lint --as`); by default each file's path decides (kind_of).

    Large runs are shared out among `jobs` processes (default: one per CPU); the report is the same.
    """
    if kind is not None and kind not in rules.KINDS:
        raise UsageError(f"--as {kind!r}: use one of {', '.join(rules.KINDS)}")
    files = markdown_files(paths, base)
    jobs = _jobs(files, jobs or os.cpu_count() or 1)
    if jobs > 1:
        report = _lint_shared(files, select or [], ignore or [], jobs, kind)
    else:
        report = _lint_files(files, select or [], ignore or [], kind)
    report.findings.sort(key=lambda r: (r.path, r.finding.line, r.finding.col, r.finding.code))
    report.suppressed.sort(key=lambda r: (r.path, r.finding.line, r.finding.col, r.finding.code))
    return report


def _jobs(files: list[tuple[str, str]], most: int) -> int:
    """How many processes to share `files` among: one per _PARALLEL_BYTES / 2 of text, up to `most`.

    The text's size is estimated from a sample spread over the list: a stat of every file took 8 ms
    at 10,000 files, all before the work is shared out.
    """
    if most == 1 or len(files) < 2 * most:
        return 1
    sample = files[:: max(1, len(files) // _SAMPLE)]
    size = sum(_size(path) for path, _ in sample) * len(files) // len(sample)
    return min(most, max(1, size * 2 // max(_PARALLEL_BYTES, 1)))


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _lint_files(
    files: list[tuple[str, str]], select: list[str], ignore: list[str], kind: str | None = None
) -> LintReport:
    report = LintReport()
    for path, shown in files:
        lint_file(path, shown, select, ignore, report, kind)
    return report


def _lint_shared(
    files: list[tuple[str, str]], select: list[str], ignore: list[str], jobs: int, kind: str | None = None
) -> LintReport:
    """Lint `files` in a pool of `jobs` processes and gather their reports in the order of `files`.

    The files are cut into several chunks a process, which the pool hands to each process as it
    becomes free: a process that gets less of the machine (a shared host's CPUs do not run at one
    speed) does less of the work. A chunk whose process failed is linted here: the report is never
    short of a file, and a fault in the rules themselves is raised here as in a one-process run.
    """
    from concurrent.futures import ProcessPoolExecutor

    size = -(-len(files) // (jobs * _CHUNKS_A_PROCESS))
    chunks = [files[start : start + size] for start in range(0, len(files), size)]
    report = LintReport()
    with ProcessPoolExecutor(jobs, mp_context=_context()) as pool:
        futures = [pool.submit(_lint_files, chunk, select, ignore, kind) for chunk in chunks]
        for chunk, future in zip(chunks, futures, strict=True):
            try:
                part = future.result()
            except Exception:  # its process failed, or died (BrokenProcessPool): done here
                part = _lint_files(chunk, select, ignore, kind)
            report.findings.extend(part.findings)
            report.suppressed.extend(part.suppressed)
            report.files += part.files
    return report


def _context() -> BaseContext:
    """How the pool starts its processes: from a clean server process, never by forking this one, which
    may run threads (a library caller's, the MCP server's) whose locks a forked child would inherit held."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
