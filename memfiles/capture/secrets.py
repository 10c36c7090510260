"""Masking secrets in text that arrives from outside (a transcript, an episode, an import), before anything
is written. `mask(text)` masks one text; a `Masker` masks many and counts the distinct secrets it found.
Importers call the same: `Masker()(title)` for a conversation's title, id or path.

The shapes are the guard's own (memfiles.lint.rules_secrets: API keys, private key headers, credential
assignments and command-line passwords, high-entropy tokens), used through each rule's public `check`, and
a few looser ones a guard would not refuse but a transcript must not keep: a password of any length in a
URL (`postgres://u:pw@db`), after `password=`/`pwd=` (a connection string's `Pwd=ab;`). A secret becomes
`<masked>`, a placeholder the guard reads as one. Mask before cutting: a cut secret is no longer its shape.
"""

from __future__ import annotations

import re

from memfiles.lint import rules_secrets

MASK = "<masked>"
_PASSES = 8  # a rule reports one match per line per pass; a line with more secrets takes more passes
_LOOSE = (
    # the user too: a masked password (`u:<masked>@`) would still be a URL password to the guard
    re.compile(r"(?i)\b[a-z][a-z0-9+.-]{0,30}://(?P<value>[^\s:/@]+:[^\s/@]+)@"),
    re.compile(
        r"(?i)(?<![\w-])(?:[a-z][a-z0-9_]*)?(?:password|passwd|pwd|secret|token|api_?key)\s*[=:]\s*[\"']?"
        r"(?P<value>[^;\s\"',]+)"
    ),
)
_VARIABLE = ("$", "%", "{", "<", "*")  # `$PW`, `${{ secrets.PW }}`, `%PW%`, `<password>`, `***`
_NOT_SECRET = {"none", "null", "true", "false", "required", "optional", MASK}


def mask(text: str) -> tuple[str, list[str]]:
    """`text` with every secret replaced by `<masked>`, and the secrets masked (to count, never to show)."""
    found: list[str] = []
    lines = text.split("\n")
    for index, line in enumerate(lines):
        for _ in range(_PASSES):
            spans = sorted(set(_spans(line)), reverse=True)
            if not spans:
                break
            start, end = spans[0]  # one at a time, right to left: the other spans move when one is cut
            found.append(line[start:end])
            line = line[:start] + MASK + line[end:]
        if "-----BEGIN" in line and "PRIVATE KEY" in line:
            found.append(line)
            line = MASK
        lines[index] = line
    return "\n".join(lines), found


def _spans(line: str) -> list[tuple[int, int]]:
    spans = [span for rule in rules_secrets.RULES for span in rule.check(line) if line[span[0] : span[1]] != MASK]
    for pattern in _LOOSE:
        for match in pattern.finditer(line):
            value = match.group("value")
            if value.lower() not in _NOT_SECRET and not value.startswith(_VARIABLE) and MASK not in value:
                spans.append(match.span("value"))
    return [(start, end) for start, end in spans if MASK not in line[start:end]]


class Masker:
    """Masks each text it is given and remembers the distinct secrets, so one key quoted twice counts once."""

    def __init__(self) -> None:
        self.secrets: set[str] = set()
        self._masked: dict[str, str] = {}  # each distinct text is read once: a session runs one command many times

    @property
    def count(self) -> int:
        return len(self.secrets)

    def __call__(self, text: str) -> str:
        clean = self._masked.get(text)
        if clean is None:
            clean, found = mask(text)
            self.secrets.update(found)
            self._masked[text] = clean
        return clean


def masked_id(value: str) -> str:
    """An id that held a secret (a session's, a conversation's), as `session-` and 16 hex digits of this machine's
    signature of it: the same id each time on this machine, and nothing of the secret shows."""
    from memfiles.store import machine

    return "session-" + machine.sign("masked id", value)[:16]
