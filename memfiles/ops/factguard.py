"""The guard at the prompt boundary for facts (FORMAT.md, "Held facts"): a fact the guard finds
instruction-shaped is held back from every reader, however it reached MEMORY.md.

The write path refuses such a fact, but a fact also arrives by `git pull` and the merge driver, a hand edit,
an import or an edited proposal a person accepts. So every reader that puts facts into a prompt (recall,
render and `render --into`, the hooks, MCP `show`) reads them through `shown`, which leaves out each fact
whose `key`, `value`, `subject` or `source_ref` has an error finding of the write guard
(memfiles.ops.textfield.judge). `held` lists them for `mem review`, `mem doctor` and `mem sync`.

The decisions are kept in a memo per scope (`.cache/guard/`), keyed by a digest of the guard's rules and
of memfiles' version and by the hash of the fact's texts, so a later read does not run the rules again.
The memo is signed with this machine's key (memfiles.store.machine): a memo that arrived from elsewhere, or
was edited, is not believed, and the rules run again. A memo never adds content: it only says whether a
fact read from MEMORY.md now may be shown.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from memfiles.format.episodes import HeldFinding
from memfiles.format.layout import Paths, Scope
from memfiles.format.model import Fact

GUARDED = ("key", "value", "subject", "source_ref")
_MEMO = "memfiles fact guard memo 1"


def findings(fact: Fact) -> list[HeldFinding]:
    """The guard's error findings on a fact's texts now, one per field that has one."""
    from memfiles.ops.textfield import judge

    found: list[HeldFinding] = []
    for name in GUARDED:
        text = getattr(fact, name)
        hit = judge(text, field=name, key=fact.key, subject=fact.subject) if text else None
        if hit is not None:
            found.append(HeldFinding(code=hit.code, message=" ".join(f"{name}: {hit.message}".split())))
    return found


@dataclass(frozen=True, slots=True)
class HeldFact:
    """A fact the guard holds back from every reader, and what it found."""

    fact: Fact
    findings: list[HeldFinding]


@cache
def rules_digest() -> str:
    """What the memo's decisions depend on: every rule's code, severity, kinds and patterns, and memfiles'
    version (a change to a rule's code that its patterns do not show comes with a new version)."""
    from memfiles import __version__
    from memfiles.lint.findings import FirstOf
    from memfiles.lint.rules import RULES

    parts = [__version__]
    for rule in RULES:
        patterns = rule.check.patterns if isinstance(rule.check, FirstOf) else ()
        parts.append("\x00".join((rule.code, rule.severity, *rule.profiles, *patterns)))
    return hashlib.sha256("\x01".join(parts).encode("utf-8")).hexdigest()


def _text_hash(fact: Fact) -> str:
    return hashlib.sha256("\x00".join(getattr(fact, name) or "" for name in GUARDED).encode("utf-8")).hexdigest()


def _load(paths: Paths, scope: Scope, digest: str) -> dict[str, list[list[str]]]:
    """The scope's memo when this machine signed it for these rules; else nothing (the rules run again)."""
    from memfiles.store import machine

    try:
        data = json.loads(paths.guard_memo(scope).read_bytes())
        verdicts, signature = data["verdicts"], data["sig"]
        signed = machine.verify(signature, _MEMO, str(scope), digest, _canonical(verdicts))
        if data.get("rules") != digest or not signed:
            return {}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return verdicts if isinstance(verdicts, dict) else {}


def _canonical(verdicts: object) -> str:
    return json.dumps(verdicts, sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def _save(paths: Paths, scope: Scope, digest: str, verdicts: dict[str, list[list[str]]]) -> None:
    """Write the memo (signed); a cache that cannot be written is only slower."""
    from memfiles.store import machine
    from memfiles.store.files import atomic_write

    body = _canonical(verdicts)
    data = {"rules": digest, "verdicts": verdicts, "sig": machine.sign(_MEMO, str(scope), digest, body)}
    with contextlib.suppress(OSError):
        atomic_write(paths.guard_memo(scope), json.dumps(data, sort_keys=True).encode("utf-8"))


def decide(paths: Paths, scope: Scope, facts: Iterable[Fact]) -> dict[str, list[HeldFinding]]:
    """Fact id -> the findings that hold it back, for each of `facts` the guard holds back (memo first)."""
    listed = list(facts)
    if not listed:
        return {}
    digest = rules_digest()
    memo = _load(paths, scope, digest)
    kept: dict[str, list[list[str]]] = {}
    out: dict[str, list[HeldFinding]] = {}
    for fact in listed:
        key = _text_hash(fact)
        verdict = memo.get(key)
        if verdict is None:
            verdict = [[f.code, f.message] for f in findings(fact)]
        kept[key] = verdict
        if verdict:
            out[fact.id] = [HeldFinding(code=code, message=message) for code, message in verdict]
    if kept.keys() != memo.keys():
        _save(paths, scope, digest, kept)
    return out


def shown(paths: Paths, scope: Scope, facts: list[Fact]) -> list[Fact]:
    """`facts` without those the guard holds back: what a reader may put into a prompt."""
    withheld = decide(paths, scope, facts)
    return [f for f in facts if f.id not in withheld] if withheld else facts


def held(paths: Paths, scope: Scope, facts: list[Fact]) -> list[HeldFact]:
    """The facts of `facts` the guard holds back, with what it found, in the order given."""
    withheld = decide(paths, scope, facts)
    return [HeldFact(f, withheld[f.id]) for f in facts if f.id in withheld]
