"""The Python API: everything `mem` does, as functions and methods that return typed values and never print.

    import memfiles
    home = memfiles.open_home("/path/to/home")        # or None: as `mem` finds it ($MEM_HOME, .mem/, …)
    alice = home.user("alice")
    alice.add("notification_channel", "email").line()  # 'added f-…'
    print(alice.recall("how should I be notified?"))   # the <memories> block for a prompt

The CLI (memfiles.cli) and the MCP server (memfiles.mcp) call only this package; it is the one caller of
the services (memfiles.ops, memfiles.recall, memfiles.lint). What a write decides comes back as an
`Outcome`; what goes wrong raises a `memfiles.errors.MemError`. docs/API.md runs an example of each method.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# `capture` is the name of a function and of its module: the module is loaded here, so that the package's
# `capture` is the function whatever loads the module first.
from memfiles.api.capture import Captured, capture, capture_hook

if TYPE_CHECKING:
    from memfiles.api.assistants import (
        ExtractorSetup,
        SetupFile,
        SetupReport,
        extractor_recipe,
        setup,
        setup_extractor,
    )
    from memfiles.api.browse import Digest, DigestEntry, EpisodeMonth, EpisodePage, ListedEpisode
    from memfiles.api.guard import CheckResult, FindingModel, Where, check, explain_rule, lint
    from memfiles.api.home import Home, clone, extractor_schema, init, keep_warm, merge_driver, open_home
    from memfiles.api.inputs import EpisodeInput, episodes_from_json
    from memfiles.api.models import (
        Cloned,
        Consolidation,
        DoctorReport,
        EpisodeFile,
        Forgotten,
        HeldEpisode,
        HeldFact,
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

# Where each name lives. A module loads on the first use of one of its names: a write loads neither the browsing
# models nor the recall ranking they bring (a third of a write's own start-up).
_MODULES = {
    "memfiles.api.assistants": "ExtractorSetup SetupFile SetupReport extractor_recipe setup setup_extractor",
    "memfiles.api.browse": "Digest DigestEntry EpisodeMonth EpisodePage ListedEpisode",
    "memfiles.api.guard": "CheckResult FindingModel Where check explain_rule lint",
    "memfiles.api.home": "Home clone extractor_schema init keep_warm merge_driver open_home",
    "memfiles.api.inputs": "EpisodeInput episodes_from_json",
    "memfiles.api.models": (
        "Cloned Consolidation DoctorReport EpisodeFile Forgotten HeldEpisode HeldFact Initialised LogEntry RecallItem "
        "RecallResult Scores SyncReport WrittenInto"
    ),
    "memfiles.api.scope": "ScopeHandle",
    "memfiles.api.transfer": "ImportReport ImportRow export import_memory",
    "memfiles.format.episodes": "Episode",
    "memfiles.format.model": "Fact",
    "memfiles.outcome": "Outcome",
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names.split()}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'memfiles.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
    "ExtractorSetup",
    "Fact",
    "FindingModel",
    "Forgotten",
    "HeldEpisode",
    "HeldFact",
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
    "SetupFile",
    "SetupReport",
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
    "extractor_recipe",
    "extractor_schema",
    "import_memory",
    "init",
    "keep_warm",
    "lint",
    "merge_driver",
    "open_home",
    "setup",
    "setup_extractor",
]
