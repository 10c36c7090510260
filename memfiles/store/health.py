"""What happened where nobody was watching: the hooks' last runs and the embedding of writes (`.cache/health.json`).

A hook never blocks a session (it exits 0 whatever happens), and a write never fails because the model of
the `[semantic]` extra is missing: so their failures would be silent. Each run records here when it last
ran, when it last succeeded, and when and why it last failed; `mem doctor` reports a failure newer than
the last success as a problem, and every hook's last outcome as a note. The file is a cache: small, rewritten
whole, never followed through a link, and recording never raises.
"""

from __future__ import annotations

import contextlib
import json

from memfiles import clock
from memfiles.errors import MemError
from memfiles.format.layout import Paths

MAX_BYTES = 64 * 1024
MAX_WHY = 500
WHAT = {
    "recall-hook": "`mem recall --hook` (the prompt hook)",
    "capture-hook": "`mem capture --hook` (the session-end hook)",
    "embedding": "embedding what a write stored (memfiles[semantic])",
}


def read(paths: Paths) -> dict[str, dict[str, str]]:
    """Every recorded entry by name (see WHAT); {} when there is none or the file is not ours to trust."""
    from memfiles.store.files import read_regular

    if paths.health_file.is_symlink():
        return {}  # a planted link: its target is not read
    try:
        found = json.loads(read_regular(paths.health_file, MAX_BYTES))  # a FIFO or a device is refused, not read
    except (MemError, OSError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {
        str(name): {str(k): str(v) for k, v in entry.items()}
        for name, entry in found.items()
        if name in WHAT and isinstance(entry, dict)
    }


def record(paths: Paths, name: str, ok: bool, why: str = "", **facts: str) -> bool:
    """Record one run of `name` (a key of WHAT); `facts` are kept as they are (the home a hook used…).

    Returns whether this failure is news: the last run did not fail for the same reason (so a caller says it
    once, not at every write). Never raises: a home that cannot record still works.
    """
    with contextlib.suppress(MemError, OSError, ValueError):
        entries = read(paths)
        entry = entries.get(name, {})
        why = " ".join(why.split())[:MAX_WHY]
        news = not ok and (entry.get("last") != "failed" or entry.get("why") != why)
        at = clock.iso(clock.now())
        entry["last_run"] = at
        entry["last"] = "ok" if ok else "failed"
        if ok:
            entry["last_ok"] = at
        else:
            entry["last_failure"] = at
            entry["why"] = why
        entry.update({k: " ".join(str(v).split())[:MAX_WHY] for k, v in facts.items()})
        entries[name] = entry
        _write(paths, json.dumps(entries, indent=1, sort_keys=True).encode("utf-8"))
        return news
    return not ok


def _write(paths: Paths, data: bytes) -> None:
    """The file rewritten whole (store.files.atomic_write refuses a link there); never into a linked `.cache/`."""
    from memfiles.store.files import atomic_write

    if paths.health_file.parent.is_symlink():
        return
    atomic_write(paths.health_file, data)


def acknowledge(paths: Paths, name: str) -> None:
    """Mark `name`'s last failure as seen by a person (`mem doctor --fix`): reported, no longer a problem."""
    with contextlib.suppress(MemError, OSError, ValueError):
        entries = read(paths)
        if name in entries and entries[name].get("last") == "failed":
            entries[name]["last"] = "failed, seen"
            _write(paths, json.dumps(entries, indent=1, sort_keys=True).encode("utf-8"))


def failing(entry: dict[str, str]) -> bool:
    """Whether an entry's last run failed."""
    return entry.get("last") == "failed"
