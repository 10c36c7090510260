"""Markdown memories: Claude Code's auto memory (the `memory/` folder of a project under
`~/.claude/projects/`, a `MEMORY.md` index and topic files), CLAUDE.md-style files, and Codex's memory
files. Each list item (`- `, `* `, `+ `, `1. `) is one memory, about the heading above it; frontmatter,
paragraphs, code blocks and links-only items are skipped. A folder is read file by file (`*.md`, sorted).
"""

from __future__ import annotations

import re
from pathlib import Path

from memfiles.imports import Memory, Records

_ITEM = re.compile(r"^\s{0,6}(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(?P<text>\S.*)$")
_HEADING = re.compile(r"^#{1,6}\s+(?P<text>.+?)\s*#*\s*$")
_LINK_ONLY = re.compile(r"^\[[^\]]*\]\([^)]*\)\s*(?:[-—:]\s*.*)?$")


MAX_FOLDER_BYTES = 64 * 1024 * 1024  # all the markdown files of a folder together


def read(path: Path, data: bytes | None, where: str, limit: int = MAX_FOLDER_BYTES) -> Records:
    """The memories of one markdown file (`data`) or of every `*.md` file in the folder `path`: regular files
    inside it only (a link that leads out of the folder is skipped and said), at most `limit` bytes in all."""
    from memfiles.errors import UsageError
    from memfiles.store.files import TooLarge, read_regular

    found = Records()
    if data is not None:
        _file(data, where, found)
        return found
    if not path.is_dir():
        try:
            _file(read_regular(path, limit), where, found)
        except OSError as exc:
            raise UsageError(f"{path}: cannot read it: {exc.strerror}") from None
        return found
    root, left = path.resolve(), limit
    for file in sorted(path.rglob("*.md")):
        target = file.resolve()
        if not target.is_relative_to(root):
            found.problems.append(f"{file}: a link out of {where}; skipped")
            continue
        if not target.is_file():
            continue
        try:
            text = read_regular(target, left)
        except TooLarge:
            raise UsageError(f"{where}: its markdown files are over the limit of {limit} bytes in all") from None
        except UsageError as exc:  # a FIFO, a device, a socket named *.md
            found.problems.append(f"{exc}; skipped")
            continue
        except OSError as exc:
            found.problems.append(f"{file}: cannot read it ({exc.strerror}); skipped")
            continue
        left -= len(text)
        _file(text, str(file), found)
    return found


def _file(data: bytes, where: str, found: Records) -> None:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        from memfiles.ops.textfield import undecodable

        found.problems.append(f"{where}: {undecodable(exc)}; skipped")
        return
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "---":  # frontmatter (a Claude Code memory file's name and description)
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        start = end + 1 if end is not None else 0
    heading, fenced = "", False
    for number in range(start, len(lines)):
        line = lines[number]
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        title = _HEADING.match(line)
        if title:
            heading = title.group("text")
            continue
        item = _ITEM.match(line)
        if item and not _LINK_ONLY.match(item.group("text")):
            memory = " ".join(item.group("text").split())
            found.memories.append(Memory(memory, f"{where}:{number + 1}", about=heading))
