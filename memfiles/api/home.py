"""An opened memory home (`Home`): its scopes, reading across several of them, and the operations on the whole
home (lint, consolidate, sync, doctor, the audit log); `open_home`, `init` and `clone` make one."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memfiles.api.inputs import When, when_text
from memfiles.api.scope import ScopeHandle
from memfiles.errors import ScopeError, UsageError
from memfiles.format import layout
from memfiles.format.config import Config, Ignored, Settings, load_settings
from memfiles.format.layout import Paths, Scope

if TYPE_CHECKING:
    from memfiles.api.models import (  # loaded by the methods that make them: a write needs none
        Cloned,
        Consolidation,
        DoctorReport,
        Initialised,
        LogEntry,
        RecallKind,
        RecallResult,
        SyncReport,
    )
    from memfiles.lint.engine import LintReport
    from memfiles.recall.embedder import Embedder
    from memfiles.recall.hybrid import Semantic

Progress = Callable[[int, int], None]  # tick(done, total), for a progress bar
_CLOSE_NAME = 60  # rapidfuzz ratio (0-100) from which a scope's name is offered as "did you mean"
MAX_QUERY_CHARS = 4000  # the longest recall query (docs/FORMAT.md, "Recall"); the hook asks with a prompt's start
log = logging.getLogger("memfiles")  # a settings value left out is a warning (the CLI prints it on stderr)


def choose_scope(config: Config, user: str | None = None, scope: str | None = None) -> Scope:
    """`--user ID` or `--scope KIND:ID`, else `$MEM_USER`, else mem.toml's default_scope."""
    if user and scope:
        raise ScopeError("give either --user or --scope, not both")
    if user is not None:
        return Scope("user", layout.validate_id(user, "user id"))
    if scope is not None:
        return layout.parse_scope(scope)
    env = os.environ.get("MEM_USER", "").strip()
    if env:
        return layout.parse_scope(env) if ":" in env else Scope("user", layout.validate_id(env, "$MEM_USER"))
    if config.memory.default_scope:
        return layout.parse_scope(config.memory.default_scope)
    raise ScopeError("no scope given: pass --user ID or --scope user:ID, or set $MEM_USER or default_scope in mem.toml")


class Home:
    """An opened memory home: its folder (`root`), settings (`config`, from `settings`) and layout (`paths`)."""

    def __init__(self, paths: Paths, settings: Settings) -> None:
        # Reading methods use `settings.safe`: the same as `config` in every setting they read, and it
        # never asks git whether it tracks mem.local.toml, so reading commands never start git.
        self.paths = paths
        self.settings = settings

    @property
    def config(self) -> Config:
        """The settings in effect: mem.toml as far as a synced file may set them, mem.local.toml on top."""
        return self.settings.config

    @property
    def ignored(self) -> list[str]:
        """Each settings value left out (a command, or a relaxation, in a synced file), as a line to show."""
        return [ignored.line() for ignored in self.settings.left_out()]

    def __repr__(self) -> str:
        return f"Home({str(self.root)!r})"

    @property
    def root(self) -> Path:
        return self.paths.root

    def scopes(self) -> list[str]:
        """Every scope with a folder in the home, sorted."""
        return [str(s) for s in self.paths.scopes()]

    def unknown_scopes(self, scopes: Sequence[str]) -> dict[str, list[str]]:
        """The scopes given that have no folder in the home (a typo, `-u alcie`), each with the close names of
        the same kind that do (at most three, closest first: `user:alice`); the known ones are left out."""
        from rapidfuzz import fuzz, process

        there = self.paths.scopes()
        unknown: dict[str, list[str]] = {}
        for name in scopes:
            wanted = layout.parse_scope(name)
            if wanted in there:
                continue
            kin = {s.id: str(s) for s in there if s.kind == wanted.kind}
            close = process.extract(wanted.id, list(kin), scorer=fuzz.ratio, score_cutoff=_CLOSE_NAME, limit=3)
            unknown[str(wanted)] = [kin[match] for match, _, _ in close]
        return unknown

    def scope(self, scope: str) -> ScopeHandle:
        """A handle on `user:ID`, `org:ID` or `agent:ID` (validated; raises ScopeError)."""
        return ScopeHandle(self, layout.parse_scope(scope))

    def user(self, user_id: str) -> ScopeHandle:
        """Shorthand for `scope("user:" + user_id)`."""
        return self.scope(f"user:{user_id}")

    def choose(self, user: str | None = None, scope: str | None = None) -> ScopeHandle:
        """The scope a command works on: `user` or `scope` (not both), else `$MEM_USER`, else default_scope."""
        return ScopeHandle(self, choose_scope(self.settings.safe, user, scope))

    def choose_scopes(self, users: Sequence[str] = (), scopes: Sequence[str] = ()) -> list[str]:
        """Every user and scope given, in order (a user plus their org), without repeats; else the default one."""
        chosen = [choose_scope(self.settings.safe, user=u) for u in users]
        chosen += [choose_scope(self.settings.safe, scope=s) for s in scopes]
        return [str(s) for s in dict.fromkeys(chosen)] or [str(choose_scope(self.settings.safe))]

    def recall(
        self,
        query: str,
        scopes: Sequence[str],
        *,
        k: int | None = None,
        kind: RecallKind = "all",
        since: When | None = None,
        until: When | None = None,
        as_of: When | None = None,
        min_score: float | None = None,
        budget: int | None = None,
        half_life_days: float | None = None,
        max_chars: int | None = None,
        lexical: bool = False,
        recency_weight: float | None = None,
    ) -> RecallResult:
        """Recall from several scopes at once (a user plus their org), like `mem recall -u ID -s org:ID`.

        `since` may also be `Nd` (the last N days); `budget` is in estimated tokens, `max_chars` in characters.
        Recency is a bounded prior (`recency_weight`, mem.toml's by default); an explicit `half_life_days` alone
        asks for full decay (docs/FORMAT.md, "Recency").
        With the extra memfiles[semantic] installed the ranking is hybrid (words and meaning) unless
        `lexical=True` or mem.toml's `[recall] ranking = "lexical"`; `notes` then says what it could not do.
        """
        from memfiles.api.inputs import utf8_text
        from memfiles.api.models import RecallResult
        from memfiles.recall import retrieve

        utf8_text(query, "the query")
        if len(query) > MAX_QUERY_CHARS:  # a 5 MB query once took 12 s of word folding before any ranking
            raise UsageError(
                f"the query is {len(query)} characters, over the limit of {MAX_QUERY_CHARS}; ask about less"
            )
        chosen = _parse_scopes(scopes)
        dates = when_text(since), when_text(until), when_text(as_of)
        options = retrieve.recall_options(
            self.settings.safe, k, kind, *dates, min_score, half_life_days, recency_weight
        )
        semantic, notes = self._semantic(lexical)
        found = retrieve.recall(
            self.paths, chosen, query, options, budget=budget, max_chars=max_chars, semantic=semantic
        )
        found.notes[:0] = notes
        return RecallResult.of(found)

    def _semantic(self, lexical: bool) -> tuple[Semantic | None, list[str]]:
        """The hybrid ranking's model when it applies; nothing of the extra is imported otherwise."""
        from memfiles.recall import embedder

        if lexical or not embedder.wanted(self.settings.safe):
            return None, []
        from memfiles.recall import hybrid

        try:
            return hybrid.open_session(self.paths, embedder.model_files(self.settings.safe)), []
        except embedder.ModelUnavailable as exc:
            return None, [f"recall: ranked by words only: {exc}"]

    def render(
        self,
        scopes: Sequence[str],
        *,
        episodes: int = 5,
        budget: int | None = None,
        markdown: bool = False,
        max_chars: int | None = None,
    ) -> RecallResult:
        """Several scopes' whole current memory as one block (`markdown=True`: a markdown list), like `mem render`."""
        from memfiles.api.models import RecallResult
        from memfiles.recall import retrieve
        from memfiles.recall.render import estimate_tokens
        from memfiles.recall.render import markdown as as_markdown

        chosen = _parse_scopes(scopes)
        found = retrieve.render_memory(self.paths, self.settings.safe, chosen, episodes, budget, max_chars)
        result = RecallResult.of(found)
        if not markdown:
            return result
        text = as_markdown(found.scopes, found.as_of, found.items)
        return result.model_copy(update={"text": text, "tokens": estimate_tokens(text)})

    def lint(
        self, *, select: str | None = None, ignore: str | None = None, jobs: int | None = None, kind: str | None = None
    ) -> LintReport:
        """Lint the whole home (not .git/ or .cache/) with mem.local.toml's ignored codes added to `ignore`; `kind`
        reads every file as that kind of text (default: each file's path decides, docs/LINT.md).

        An episode the guard holds back (flagged) in which lint's line-by-line reading finds no error is
        reported too, with the guard's findings (FORMAT.md, "Quarantine")."""
        from memfiles.lint import engine
        from memfiles.lint.findings import Finding
        from memfiles.ops.quarantine import unsettled

        # Git is asked whether it tracks mem.local.toml only when that file widens [lint] itself.
        settings = self.config if self.settings.widens("lint") else self.settings.safe
        ignored = engine.parse_codes(ignore) + engine.parse_codes(",".join(settings.lint.ignore))
        chosen = engine.parse_codes(select)
        report = engine.lint_paths([self.root], chosen, ignored, self.root, jobs, kind)
        erred = {r.path for r in report.findings if r.finding.severity == "error"}
        before = len(report.findings)
        for relpath, line, held in unsettled(self.paths):
            wanted = (not chosen or held.code.startswith(tuple(chosen))) and not held.code.startswith(tuple(ignored))
            if relpath not in erred and wanted:
                message = f"episode held back by the guard (mem review): {held.message}"
                report.findings.append(engine.Reported(relpath, Finding(held.code, "error", message, line, 1, "")))
        if len(report.findings) > before:
            report.findings.sort(key=lambda r: (r.path, r.finding.line, r.finding.col))
        from memfiles.api.guard import settle_accepted

        return settle_accepted(report, self.root)

    def consolidate(
        self,
        scopes: Sequence[str] | None = None,
        *,
        dry_run: bool = False,
        older_than_days: float | None = None,
        extractor: str | None = None,
        progress: Progress | None = None,
    ) -> list[Consolidation]:
        """Consolidate the given scopes (None: every scope of the home), one commit each, like `mem consolidate`."""
        from memfiles.api.models import Consolidation
        from memfiles.ops import consolidate

        chosen = self.paths.scopes() if scopes is None else _parse_scopes(scopes)
        options = consolidate.Options(dry_run, older_than_days, extractor)
        return [Consolidation.of(plan) for plan in consolidate.run(self.paths, self.config, chosen, options, progress)]

    def sync(
        self,
        remote: str = "origin",
        *,
        commit: bool = False,
        warn: Callable[[str], None] | None = None,
        progress: Progress | None = None,
    ) -> SyncReport:
        """Fetch, merge and push `remote`; `commit=True` commits hand edits first; `warn` hears what needs care.

        With recall by meaning on, what arrived is embedded before it returns (`progress`), as every write's is."""
        from memfiles.api.models import SyncReport
        from memfiles.ops.sync import sync

        report = SyncReport.model_validate(sync(self.paths, remote, commit, warn=warn).to_dict())
        self.embed_missing(progress, warn)
        return report

    def embed_missing(self, progress: Progress | None = None, warn: Callable[[str], None] | None = None) -> int:
        """Embed every fact and episode of the home that has no vector yet (recall by meaning; nothing when it is
        off). A model that cannot load is said through `warn`; `mem doctor` reports what is left."""
        from memfiles.recall import embedder

        if not embedder.wanted(self.settings.safe):
            return 0
        from memfiles.recall import vector_build

        try:
            model = embedder.load(embedder.model_files(self.settings.safe), cache=self.paths.cache)
            return sum(vector_build.catch_up(self.paths, scope, model, progress) for scope in self.paths.scopes())
        except embedder.ModelUnavailable as exc:
            if warn is not None:
                warn(f"not embedded for recall by meaning: {exc}; `mem doctor --fix` embeds it later")
            return 0

    def doctor(self, *, fix: bool = False, reindex: bool = False, progress: Progress | None = None) -> DoctorReport:
        """Check files, git state, recall indexes and leftovers of interrupted writes; `fix` repairs what is safe.

        `reindex` rebuilds the recall indexes, and with memfiles[semantic] every scope's vectors (`progress`).
        """
        from memfiles.api.models import DoctorReport
        from memfiles.ops import doctor

        rebuilt: list[str] = []
        if reindex:
            model, notes = self._model()
            rebuilt = doctor.reindex(self.paths, model, progress) + notes
        done, problems = doctor.run(self.paths, fix, use_index=reindex)
        accepted = doctor.notes(self.paths, use_index=reindex) + doctor.health_notes(self.paths)
        return DoctorReport(fixed=rebuilt + done, problems=[p.line() for p in problems], notes=accepted)

    def _model(self) -> tuple[Embedder | None, list[str]]:
        """The extra's model, loaded, for a reindex (None, and why, when it cannot be)."""
        semantic, notes = self._semantic(lexical=False)
        if semantic is None:
            return None, notes
        from memfiles.recall.embedder import ModelUnavailable

        try:
            return semantic.embedder, notes
        except ModelUnavailable as exc:
            return None, [*notes, f"vectors not rebuilt: {exc}"]

    def read_text(self, relpath: str) -> str:
        """A file of the home as text (`users/alice/MEMORY.md`), for viewers; not in .git/ or .cache/, no links."""
        from memfiles.api.browse import read_text

        return read_text(self.paths, relpath)

    def log(self, limit: int = 20) -> list[LogEntry]:
        """The audit trail: the home's most recent commits, newest first."""
        from memfiles.api.models import LogEntry
        from memfiles.store import gitrepo

        return [LogEntry.model_validate(entry) for entry in gitrepo.log(self.root, limit=limit)]


def _parse_scopes(scopes: Sequence[str]) -> list[Scope]:
    if isinstance(scopes, str) or not scopes:
        raise UsageError("give a list of scopes, e.g. ['user:alice', 'org:acme']")
    return list(dict.fromkeys(layout.parse_scope(s) for s in scopes))


def open_home(
    path: str | os.PathLike[str] | None = None, *, create: bool = False, cwd: str | os.PathLike[str] | None = None
) -> Home:
    """Open the memory home at `path`, else the one `mem` would use: `$MEM_HOME`, the nearest `.mem/` above `cwd`
    (default: the working directory), the platform data folder. `create=True` runs `mem init` first."""
    start = Path(cwd) if cwd else None
    root = layout.resolve_home(path, cwd=start)
    if create:
        init(root)
    layout.require_home(root, found_above=(start or Path.cwd()).absolute() if project_home(path, start) else None)
    return Home(Paths(root), load_settings(root, lambda: _tracked(root), _warn))


def project_home(path: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path | None:
    """The `.mem/` folder above `cwd` that `open_home(path, cwd=cwd)` opens when neither `path` nor `$MEM_HOME`
    names a home (None otherwise): a project's folder, whose content came with the project."""
    if path or os.environ.get("MEM_HOME", "").strip():
        return None
    return layout.walked_home(cwd)


def keep_warm(*, restat_s: float = 1.0, documents: int = 1024, optimize_model: bool = True) -> None:
    """For a process that answers many recalls (`mem mcp` calls it): keep, between recalls, what one costs to
    find again. It holds for the whole process; `keep_warm(restat_s=0, documents=0, optimize_model=False)` is the
    default again.

    - `restat_s`: by default every recall stats every episode file in range, so a file edited in place is seen
      by the next recall; at 10,000 episodes that is about 35 ms, most of a query in a process that keeps the
      semantic extra's model loaded. With `restat_s` > 0 a month folder is listed again sooner only when a
      file was added, removed or renamed in it (every memfiles write, `git pull`, and editors that save by
      renaming do that), so only an edit in place may be seen up to `restat_s` seconds late.
    - `documents`: the last decoded episode documents are kept (about 50 KB each for a 300-word episode):
      recall reads the index newest first, so one query's documents are mostly the next one's.
    - `optimize_model`: the semantic extra's model, when loaded, gets onnxruntime's graph optimizations: about
      0.15 s more to load, about 15 ms less a query. A one-shot process loads it without them, for its one question.
    """
    from memfiles.recall import embedder, index

    index.keep_warm(restat_s, documents)
    embedder.optimize_at_load(optimize_model)


def _tracked(root: Path) -> bool:
    """Whether git tracks the home's mem.local.toml (then it is synced like mem.toml, and trusted no more)."""
    from memfiles.store import gitrepo

    return gitrepo.is_repo(root) and gitrepo.tracked(root, layout.LOCAL_CONFIG_NAME)


def _warn(ignored: Ignored) -> None:
    log.warning("%s", ignored.line())


def init(path: str | os.PathLike[str] | None = None, *, force: bool = False) -> Initialised:
    """Create a memory home (a git repository with mem.toml, .gitattributes and a first commit), like `mem init`.

    The filesystem root and the user's home folder are refused unless `force`.
    """
    from memfiles.api.models import Initialised
    from memfiles.ops.home import enclosing_repository, init_home

    root = layout.resolve_home(path)
    return Initialised(root=root, created=init_home(root, force=force), inside=enclosing_repository(root))


def clone(url: str, path: str | os.PathLike[str] | None = None, *, progress: Progress | None = None) -> Cloned:
    """Set up another machine: clone the home at `url` and register the merge driver (`mem init --clone`); with
    recall by meaning on, its memory is embedded before it returns (`progress`)."""
    from memfiles.api.models import Cloned
    from memfiles.ops.sync import clone_home

    root = layout.resolve_home(path)
    cloned = Cloned(url=url, root=root, started=clone_home(url, root))
    open_home(root).embed_missing(progress)
    return cloned


def merge_driver(
    base: str | os.PathLike[str], ours: str | os.PathLike[str], theirs: str | os.PathLike[str], path: str
) -> bool:
    """git's merge driver for MEMORY.md (%O %A %B %P): the merge is written to `ours`; False if the notes conflict."""
    from memfiles.ops.sync import run_merge_driver

    return run_merge_driver(Path(base), Path(ours), Path(theirs), path)


def extractor_schema() -> dict[str, object]:
    """The JSON Schema of what a consolidation extractor must print (`mem schema extractor`)."""
    from memfiles.format.extractor import extractor_schema as schema

    return schema()
