"""Reading memory for recall and render: only the chosen scopes' files are opened, then scored and rendered.

The read side of memfiles: nothing here imports git or the write path, writes a file or reads a hook's
input, so `mem recall` and `mem render` start fast. Isolation is by path: a scope's episodes are listed
from that scope's folder only, so a recall for user:a never opens user:b's files, whatever the query.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memfiles import clock
from memfiles.clock import When
from memfiles.errors import FileFormatError, UsageError
from memfiles.format import episodes
from memfiles.format.config import Config
from memfiles.format.episodes import Episode
from memfiles.format.layout import Paths, Scope
from memfiles.recall.ranking import MIN_SCORE, Item, Options, Relevance, ScopeMemory, believed, decay, fact_items, rank
from memfiles.recall.render import Rendered, block
from memfiles.recall.stale import stale_since
from memfiles.store.files import read_memory

if TYPE_CHECKING:
    from memfiles.format.model import Fact
    from memfiles.recall.hybrid import Semantic
    from memfiles.recall.indexed import IndexedEpisodes

RENDER_EPISODES = 5
DEFAULT_K_FACTS = 5
DEFAULT_K_EPISODES = 3
_WHOLE = Relevance(1.0, 1.0, 1.0)  # render shows everything current: no query to score against


def read_episodes(
    paths: Paths,
    scope: Scope,
    since: When | None = None,
    until: When | None = None,
    newest: int | None = None,
) -> tuple[list[Episode], list[FileFormatError]]:
    """The scope's episodes (oldest first) and the files that did not parse, which are reported, not fixed.

    Opens only files under the scope's own episodes folder; months outside `since`/`until` are not
    opened at all, and `newest` stops after the most recent N episodes in range. An episode the guard
    holds back (memfiles.ops.quarantine: flagged, rejected, or instruction-shaped and not accepted) is
    left out, as the index leaves it out.
    """
    from memfiles.ops.quarantine import withheld

    files = paths.episode_files(scope, _month(since), _month(until))
    found: list[Episode] = []
    problems: list[FileFormatError] = []
    for path in reversed(files):  # names start with the time, so newest first
        if newest is not None and len(found) >= newest:
            break
        relpath = paths.relative(path)
        try:
            episode = episodes.parse(path.read_bytes(), relpath, expected_scope=str(scope))
        except FileFormatError as exc:
            problems.append(exc)
            continue
        except OSError as exc:
            problems.append(FileFormatError(relpath, None, f"cannot read: {exc.strerror}"))
            continue
        if (
            (since is None or clock.compare(episode.started_at, since) >= 0)
            and (until is None or clock.compare(episode.started_at, until) <= 0)
            and not withheld(episode)
        ):
            found.append(episode)
    found.reverse()
    return found, problems


def recall_options(
    config: Config,
    k: int | None = None,
    kind: str = "all",
    since: str | When | None = None,
    until: str | When | None = None,
    as_of: str | When | None = None,
    min_score: float | None = None,
    half_life_days: float | None = None,
    recency_weight: float | None = None,
) -> Options:
    """Recall options from command-line values: dates parsed, `Nd` counted back from --as-of (or now).

    An explicit `half_life_days` (`--half-life`) asks for that decay in full (recency weight 1) unless a
    `recency_weight` is given too; otherwise mem.toml's `half_life_days` and `recency_weight` apply."""
    if kind not in ("all", "facts", "episodes"):
        raise UsageError(f"--kind {kind!r}: use all, facts or episodes")
    moment = clock.parse_when(as_of) if as_of else None
    return Options(
        k_facts=k or DEFAULT_K_FACTS,
        k_episodes=k or DEFAULT_K_EPISODES,
        kind=kind,
        min_score=MIN_SCORE if min_score is None else min_score,
        half_life_days=config.memory.half_life_days if half_life_days is None else half_life_days,
        recency_weight=_weight(config, half_life_days, recency_weight),
        since=_since(since, moment or clock.now()) if since else None,
        until=clock.parse_when(until) if until else None,
        as_of=moment,
        stale_after=config.stale_after(),
    )


def _weight(config: Config, half_life_days: float | None, recency_weight: float | None) -> float:
    if recency_weight is not None:
        if not 0 <= recency_weight <= 1:
            raise UsageError(f"--recency-weight {recency_weight:g}: give 0 (no recency) to 1 (full decay)")
        return recency_weight
    return 1.0 if half_life_days is not None else config.memory.recency_weight


def _since(value: str | When, reference: When) -> When:
    """`--since`: an ISO date, or `Nd` meaning N days before `reference`."""
    if not isinstance(value, str):
        return clock.parse_when(value)
    days = value.strip()
    if days.endswith("d") and days[:-1].isdigit():
        try:
            return clock.shift_days(reference, -int(days[:-1]))
        except (UsageError, ValueError):  # before the year 1, or more digits than int() reads
            raise UsageError(f"--since {value!r}: that is before the year 1; give fewer days or a date") from None
    return clock.parse_when(days)


def _month(when: When | None) -> str | None:
    """The `YYYY-MM` of a When, to skip whole month folders outside a range."""
    return None if when is None else clock.day(when).isoformat()[:7]


@dataclass(slots=True)
class Recalled:
    """What recall or render found: the items shown, the rendered block, and files that did not parse."""

    scopes: list[str]
    as_of: When
    rendered: Rendered
    problems: list[FileFormatError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the hybrid ranking tells (vectors not built yet)

    @property
    def items(self) -> list[Item]:
        return self.rendered.shown


def recall(
    paths: Paths,
    scopes: list[Scope],
    query: str,
    options: Options,
    budget: int | None = None,
    max_chars: int | None = None,
    use_index: bool = True,
    semantic: Semantic | None = None,
) -> Recalled:
    """Recall facts and episodes relevant to `query` from `scopes`, ranked and rendered within the budget.

    Episodes come from the recall index (memfiles.recall.index) when it can be used, else from reading the
    files; both give the same items. Facts the guard holds back are left out (memfiles.ops.factguard). With
    `semantic` (the extra's model, memfiles.recall.hybrid) the ranking is hybrid; its notes (vectors not built
    yet) are in `Recalled.notes`. What is shown always comes from the files or from index entries this machine
    stored: an index holding anything else (a planted one) is thrown away, this recall reads the files instead
    (the next one builds the index anew), and the notes say so.
    """
    from memfiles.recall.index_file import IndexTampered, remove

    notes: list[str] = []
    try:
        return _recall(paths, scopes, query, options, budget, max_chars, use_index, semantic, notes)
    except IndexTampered as exc:
        remove(exc.path)
        if semantic is not None:
            semantic.notes.clear()  # said again by the second pass
        notes.append(
            f"recall: the recall index {paths.relative(exc.path)} holds content this machine did not store; "
            "it was removed and this recall read the files (the next one rebuilds it)"
        )
        return _recall(paths, scopes, query, options, budget, max_chars, False, semantic, notes)


def _recall(
    paths: Paths,
    scopes: list[Scope],
    query: str,
    options: Options,
    budget: int | None,
    max_chars: int | None,
    use_index: bool,
    semantic: Semantic | None,
    notes: list[str],
) -> Recalled:
    from memfiles.ops.factguard import shown

    now = clock.now()
    reference = options.as_of or now
    indexed = _indexed(paths, scopes, options, reference, notes) if use_index and options.kind != "facts" else None
    memories: list[ScopeMemory] = []
    problems: list[FileFormatError] = []
    try:
        for scope in scopes:
            facts: list[Fact] = []
            if options.kind != "episodes":
                facts = shown(paths, scope, indexed.facts(paths, scope) if indexed else read_memory(paths, scope).facts)
            found: list[Episode] = []
            if options.kind != "facts" and indexed is None:
                found, broken = read_episodes(paths, scope, options.since, reference)  # rank applies --until
                problems += broken
            memories.append(ScopeMemory(str(scope), facts, found))
        if semantic is not None:
            items = semantic.rank(memories, query, now, options, indexed)
        else:
            items = rank(memories, query, now, options, indexed)
        if indexed is not None:
            problems += indexed.problems
    finally:
        if indexed is not None:
            indexed.close()
    names = [str(s) for s in scopes]
    told = notes + (semantic.notes if semantic is not None else [])
    mark_stale(items, options.stale_after, reference)
    return Recalled(names, reference, block(names, reference, one_each(items), budget, max_chars), problems, told)


def _indexed(
    paths: Paths, scopes: list[Scope], options: Options, reference: When, notes: list[str]
) -> IndexedEpisodes | None:
    """The scopes' recall indexes, up to date; None when they cannot be used (then the files are read)."""
    from memfiles.recall import index, indexed

    try:
        window = indexed.Window.of(options.since, reference, options.until)
        return indexed.open_episodes(paths, scopes, window, notes)
    except index.IndexUnavailable:
        return None


def render_memory(
    paths: Paths,
    config: Config,
    scopes: list[Scope],
    newest: int = RENDER_EPISODES,
    budget: int | None = None,
    max_chars: int | None = None,
) -> Recalled:
    """The whole current memory: active facts (by key), then conflicts, then each scope's newest episodes.
    A fact or an episode the guard holds back is left out, as in recall (memfiles.ops.factguard, .quarantine)."""
    from memfiles.ops.factguard import shown

    now = clock.now()
    facts: list[Item] = []
    conflicts: list[Item] = []
    recent: list[Item] = []
    problems: list[FileFormatError] = []
    for scope in scopes:
        for item in fact_items(str(scope), believed(shown(paths, scope, read_memory(paths, scope).facts), now, False)):
            item.score, item.relevance = 1.0, _WHOLE
            (facts if item.kind == "fact" else conflicts).append(item)
        found, broken = read_episodes(paths, scope, until=now, newest=newest) if newest else ([], [])
        problems += broken
        for episode in reversed(found):
            age = clock.age_days(episode.started_at, now)
            weight = decay(age, config.memory.half_life_days)
            recent.append(Item("episode", str(scope), weight, _WHOLE, weight, age, episode=episode))
    names = [str(s) for s in scopes]
    mark_stale(facts, config.stale_after(), now)
    return Recalled(names, now, block(names, now, one_each(facts + conflicts + recent), budget, max_chars), problems)


def one_each(items: list[Item]) -> list[Item]:
    """`items` with each episode once: two files holding one id (a copy, or a planted twin) show the first ranked
    only (`mem accept` and `mem reject` refuse to pick one of them)."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for item in items:
        if item.episode is not None:
            if (item.scope, item.episode.id) in seen:
                continue
            seen.add((item.scope, item.episode.id))
        kept.append(item)
    return kept


def mark_stale(items: list[Item], stale_after: Mapping[str, int], as_of: When) -> None:
    """Mark each fact item not confirmed within its subject's [stale_after_days] (FORMAT.md, "Staleness")."""
    for item in items:
        if item.kind == "fact":
            item.stale = stale_since(item.facts[0], stale_after, as_of)
