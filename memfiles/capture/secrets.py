"""Masking secrets in text taken from a transcript, before anything is written.

The shapes are the guard's own (memfiles.lint.rules_secrets: API keys, private key headers, credential
assignments, high-entropy tokens), used through each rule's public `check`: what the guard would refuse
is exactly what is masked. A secret becomes `<masked>`, a placeholder the guard reads as one.
"""

from __future__ import annotations

from memfiles.lint import rules_secrets

MASK = "<masked>"
_PASSES = 8  # a rule reports one match per line per pass; a line with more secrets takes more passes


def mask(text: str) -> tuple[str, list[str]]:
    """`text` with every secret replaced by `<masked>`, and the secrets masked (to count, never to show)."""
    found: list[str] = []
    lines = text.split("\n")
    for index, line in enumerate(lines):
        for _ in range(_PASSES):
            spans = sorted({span for rule in rules_secrets.RULES for span in rule.check(line)}, reverse=True)
            if not spans:
                break
            start, end = spans[0]  # one at a time, right to left: the other spans move when one is cut
            if line[start:end] == MASK:
                break
            found.append(line[start:end])
            line = line[:start] + MASK + line[end:]
        if "-----BEGIN" in line and "PRIVATE KEY" in line:
            found.append(line)
            line = MASK
        lines[index] = line
    return "\n".join(lines), found
