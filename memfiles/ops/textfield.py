"""What every text a write stores must be (FORMAT.md, "Facts" and "Episodes"): within its limit, not empty, one
line where the format says so, without control characters and, for a fact's text, passing the guard.

Both write paths use it: memfiles.ops.writepath for facts (the guard refuses) and memfiles.ops.record for
episodes (`guarded=False`: the guard's findings quarantine an episode instead, memfiles.ops.quarantine).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memfiles.errors import RefusedError

if TYPE_CHECKING:
    from memfiles.lint.findings import Finding

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def check_text_field(
    name: str,
    text: str,
    limit: int,
    one_line: bool = True,
    guarded: bool = True,
    *,
    key: str = "",
    subject: str = "",
) -> None:
    """Refuse text that is empty, over `limit`, has control characters (or breaks if one_line) or, when `guarded`,
    fails the guard as a fact value. Episodes pass `guarded=False`: their text is quarantined, not refused
    (memfiles.ops.quarantine)."""
    if len(text) > limit:
        raise RefusedError(
            "MEM602", f"{name} is {len(text)} characters, over the limit of {limit} (mem.toml max_value_chars)"
        )
    undecodable = not_utf8(text)
    if undecodable:
        raise RefusedError("MEM604", f"{name} {undecodable}")
    if not text.strip():
        raise RefusedError("MEM604", f"{name} is empty")
    if one_line and ("\n" in text or "\r" in text):
        raise RefusedError("MEM604", f"{name} must be one line of text without control characters")
    # The guard runs before the control-character check so that a refusal carries the same code
    # that `mem lint` reports for the same text (MEM204 for a control character, for example).
    if guarded or _CONTROL.search(text):
        _guard(name, text, key, subject)
    if _CONTROL.search(text):
        raise RefusedError("MEM604", f"{name} must be text without control characters")


def not_utf8(text: str) -> str | None:
    """What is wrong with `text` if it holds bytes that were not UTF-8 (Python keeps them as lone surrogates:
    arguments, file names, `surrogateescape` reads), else None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raw = text[exc.start].encode("utf-8", "surrogateescape")
        byte = f"byte 0x{raw[0]:02x}" if len(raw) == 1 else f"character U+{ord(text[exc.start]):04X}"
        return f"is not valid UTF-8 text ({byte} at character {exc.start + 1}); give it as UTF-8"
    return None


def undecodable(error: UnicodeDecodeError) -> str:
    """What is wrong with the bytes `error` found decoding them, in the words `not_utf8` uses for text: "is not valid
    UTF-8 text (byte 0xff at byte 1)"."""
    return f"is not valid UTF-8 text (byte 0x{error.object[error.start]:02x} at byte {error.start + 1})"


def judge(text: str, field: str = "value", *, key: str = "", subject: str = "") -> Finding | None:
    """The guard's verdict on one text of a fact (`field`: its value, key, subject or source_ref): the first error
    finding, or None. The one judgement the write path refuses by and every reader holds a fact back by
    (memfiles.ops.factguard), so a stricter rule applies to both at once (memfiles.lint.rules.judge_fact)."""
    from memfiles.lint.rules import judge_fact

    return judge_fact(text, field=field, key=key, subject=subject)


def _guard(name: str, text: str, key: str = "", subject: str = "") -> None:
    from memfiles.lint.rules import BY_CODE

    finding = judge(text, field=name, key=key, subject=subject)
    if finding is not None:
        fix = BY_CODE[finding.code].fix if finding.code in BY_CODE else ""
        hint = f" (fix: {fix})" if fix else ""
        raise RefusedError(finding.code, f"{name} {finding.message}: {finding.excerpt!r}{hint}")
