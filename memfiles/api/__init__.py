"""The Python API: everything `mem` does, as functions and methods that return typed values and never print.

    import memfiles
    home = memfiles.open_home("/path/to/home")        # or None: as `mem` finds it ($MEM_HOME, .mem/, …)
    alice = home.user("alice")
    alice.add("notification_channel", "email").line()  # 'added f-…'
    print(alice.recall("how should I be notified?"))   # the <memories> block for a prompt

The CLI (memfiles.cli) and the MCP server (memfiles.mcp) call only this package; it is the one caller of
the services (memfiles.ops, memfiles.recall, memfiles.lint). What a write decides comes back as an
`Outcome`; what goes wrong raises a `memfiles.errors.MemError`. docs/API.md runs an example of each method.

Each name but the capture functions loads its module on first use, so a command pays for what it uses:
`mem capture --hook` loads no recall, browse or sync code.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Loaded now: `capture` is both this module's name and its function's, and importing the module later would
# make `memfiles.api.capture` the module.
from memfiles.api.capture import Captured, capture, capture_hook

if TYPE_CHECKING:
    from memfiles.api.browse import Digest, DigestEntry, EpisodeMonth, EpisodePage, ListedEpisode
    from memfiles.api.guard import CheckResult, FindingModel, Where, check, explain_rule, lint
    from memfiles.api.home import Home, clone, extractor_schema, init, merge_driver, open_home
    from memfiles.api.inputs import EpisodeInput, episodes_from_json
    from memfiles.api.models import (
        Cloned,
        Consolidation,
        DoctorReport,
        EpisodeFile,
        Forgotten,
        HeldEpisode,
        Initialised,
        LogEntry,
        RecallItem,
        RecallResult,
        Scores,
        SyncReport,
        WrittenInto,
    )
    from memfiles.api.scope import ScopeHandle
    from memfiles.api.transfer import ImportReport, ImportRow, export, import_memory
    from memfiles.format.episodes import Episode
    from memfiles.format.model import Fact
    from memfiles.outcome import Outcome

# Where each name of the API lives.
_WHERE = {
    "CheckResult": "memfiles.api.guard",
    "Cloned": "memfiles.api.models",
    "Consolidation": "memfiles.api.models",
    "Digest": "memfiles.api.browse",
    "DigestEntry": "memfiles.api.browse",
    "DoctorReport": "memfiles.api.models",
    "Episode": "memfiles.format.episodes",
    "EpisodeFile": "memfiles.api.models",
    "EpisodeInput": "memfiles.api.inputs",
    "EpisodeMonth": "memfiles.api.browse",
    "EpisodePage": "memfiles.api.browse",
    "Fact": "memfiles.format.model",
    "FindingModel": "memfiles.api.guard",
    "Forgotten": "memfiles.api.models",
    "HeldEpisode": "memfiles.api.models",
    "Home": "memfiles.api.home",
    "ImportReport": "memfiles.api.transfer",
    "ImportRow": "memfiles.api.transfer",
    "Initialised": "memfiles.api.models",
    "ListedEpisode": "memfiles.api.browse",
    "LogEntry": "memfiles.api.models",
    "Outcome": "memfiles.outcome",
    "RecallItem": "memfiles.api.models",
    "RecallResult": "memfiles.api.models",
    "ScopeHandle": "memfiles.api.scope",
    "Scores": "memfiles.api.models",
    "SyncReport": "memfiles.api.models",
    "Where": "memfiles.api.guard",
    "WrittenInto": "memfiles.api.models",
    "check": "memfiles.api.guard",
    "clone": "memfiles.api.home",
    "episodes_from_json": "memfiles.api.inputs",
    "explain_rule": "memfiles.api.guard",
    "export": "memfiles.api.transfer",
    "extractor_schema": "memfiles.api.home",
    "import_memory": "memfiles.api.transfer",
    "init": "memfiles.api.home",
    "lint": "memfiles.api.guard",
    "merge_driver": "memfiles.api.home",
    "open_home": "memfiles.api.home",
}

__all__ = [
    "Captured",
    "CheckResult",
    "Cloned",
    "Consolidation",
    "Digest",
    "DigestEntry",
    "DoctorReport",
    "Episode",
    "EpisodeFile",
    "EpisodeInput",
    "EpisodeMonth",
    "EpisodePage",
    "Fact",
    "FindingModel",
    "Forgotten",
    "HeldEpisode",
    "Home",
    "ImportReport",
    "ImportRow",
    "Initialised",
    "ListedEpisode",
    "LogEntry",
    "Outcome",
    "RecallItem",
    "RecallResult",
    "ScopeHandle",
    "Scores",
    "SyncReport",
    "Where",
    "WrittenInto",
    "capture",
    "capture_hook",
    "check",
    "clone",
    "episodes_from_json",
    "explain_rule",
    "export",
    "extractor_schema",
    "import_memory",
    "init",
    "lint",
    "merge_driver",
    "open_home",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        found = getattr(import_module(_WHERE[name]), name)
        globals()[name] = found  # the next use is a plain lookup
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
