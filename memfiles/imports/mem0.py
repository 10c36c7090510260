"""Mem0 memories as `Memory.get_all()` returns them: `{"results": [{"id", "memory", "user_id", "metadata",
"created_at", "updated_at", …}]}`, or the bare list. Each item's `memory` is one memory, said at its
`updated_at` (else `created_at`); other fields are ignored."""

from __future__ import annotations

from typing import Any

from memfiles.imports import Memory, Records


def read(raw: Any, where: str) -> Records:
    found = Records()
    items = raw.get("results", raw.get("memories")) if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        found.problems.append(f'{where}: expected {{"results": [...]}} or a list of memories')
        return found
    for number, item in enumerate(items, start=1):
        text = item.get("memory") if isinstance(item, dict) else None
        if not isinstance(text, str) or not text.strip():
            found.problems.append(f"{where}: memory #{number} has no `memory` text; skipped")
            continue
        assert isinstance(item, dict)
        ident = item.get("id")
        at = item.get("updated_at") or item.get("created_at")
        ref = f"mem0 {where} id {ident}" if ident else f"mem0 {where} #{number}"
        found.memories.append(Memory(" ".join(text.split()), ref, at if isinstance(at, str) else None))
    return found
