"""The recall index: same results as reading the files, sees every change made outside mem, rebuilds itself."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import hypothesis
import pytest
from hypothesis import strategies as st
from typer.testing import CliRunner

from memfiles import clock
from memfiles.api import Home, RecallItem, keep_warm, open_home
from memfiles.cli import app
from memfiles.format import episodes
from memfiles.format.episodes import CandidateFact, Episode, Invalidation
from memfiles.format.layout import Paths, Scope
from memfiles.recall import index, index_file, index_records, indexed, retrieve
from memfiles.recall.ranking import episode_document

NOW = "2026-11-29T12:00:00Z"
ALICE = Scope("user", "alice")
ACME = Scope("org", "acme")
WORDS = [
    "refund",
    "order",
    "parcel",
    "courier",
    "invoice",
    "warranty",
    "exchange",
    "billing",
    "Toronto",
    "Lisbon",
    "Osaka",
    "invest",
    "bonus",
    "pension",
    "mortgage",
    "dividend",
    "budget",
    "flight",
    "hotel",
    "visa",
    "museum",
    "deployment",
    "migration",
    "webhook",
    "scheduler",
    "latency",
    "marathon",
    "knee",
    "protein",
    "allergy",
    "sleep",
    "caffeine",
    "discount",
    "gift",
    "checkout",
    "delivery",
    "durability",
    "résumé",
    "café",
    "naïve",
]
QUERIES = [
    "refund",
    "toronto invoice",
    "warranty claim",
    "investing bonus",
    "",
    "recieve refnd",
    "café",
    "what is it",
    "when did we talk about the refund in May 2026?",  # date terms (hex-spelled in the index)
    "invoice last week",  # a relative date, counted from now or --as-of
]
RANGES = [
    {},
    {"since": "90d"},
    {"since": "2026-03-01", "until": "2026-09-15"},
    {"as_of": "2026-06-01"},
    {"as_of": "2026-06-01T10:00:00Z", "since": "2026-05-20T08:00:00Z"},
    {"kind": "episodes", "half_life": 0.0, "k": 7},
    {"min_score": 0.0},
]


def make_episode(rng: random.Random, scope: Scope, number: int) -> Episode:
    day = 1 + rng.randrange(700)
    when: clock.When = clock.shift_days(
        clock.parse_when(f"2025-01-01T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00Z"), day
    )
    if rng.random() < 0.15:
        when = clock.day(when)  # date-only starts cover their whole day
    summary = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(5, 30))) + "."
    session = f"s-{number // 4}" if number % 9 else None  # several turns a session: recall's session context
    return Episode(
        id=episodes.episode_id(str(scope), session, when, summary),
        scope=str(scope),
        started_at=when,
        summary=summary,
        session=session,
        entities=[rng.choice(WORDS)] if rng.random() < 0.5 else [],
        events=[" ".join(rng.sample(WORDS, 3))],
        outcome=rng.choice(episodes.OUTCOMES),
        facts=[CandidateFact(key="notification_channel", value=rng.choice(["email", "sms"]))]
        if rng.random() < 0.2
        else [],
        invalidates=[Invalidation(key="plan_tier", reason="downgraded")] if rng.random() < 0.05 else [],
    )


def write_episode(paths: Paths, scope: Scope, episode: Episode, attempt: int = 1) -> Path:
    folder = paths.episode_month_dir(scope, clock.day(episode.started_at))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / episodes.file_name(episode, attempt)
    path.write_bytes(episodes.serialize(episode))
    return path


def age(path: Path, seconds: int = 3600) -> None:
    """Backdate a file (and its folder) so it is not racy: an index written now trusts its stat."""
    past = time.time() - seconds
    os.utime(path, (past, past))
    os.utime(path.parent, (past, past))


@pytest.fixture
def store(home: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    """A home with 300 episodes over two years in user:alice and 60 in org:acme, plus one broken file."""
    monkeypatch.setenv("MEM_NOW", NOW)
    context = open_home(home)
    rng = random.Random(5)
    for scope, count in ((ALICE, 300), (ACME, 60)):
        for number in range(count):
            path = write_episode(context.paths, scope, make_episode(rng, scope, number))
            age(path)
    broken = context.paths.episode_month_dir(ALICE, date(2026, 4, 1)) / "2026-04-02T00-00-00Z-broken.md"
    broken.write_bytes(b"---\nid: nope\n---\nnot an episode\n")
    age(broken)
    return context


def recall(
    context: Home, query: str, use_index: bool, scopes: list[Scope] | None = None, **given: object
) -> tuple[list[dict[str, object]], str, list[str]]:
    options = retrieve.recall_options(
        context.config,
        given.get("k"),  # type: ignore[arg-type]
        str(given.get("kind", "all")),
        given.get("since"),  # type: ignore[arg-type]
        given.get("until"),  # type: ignore[arg-type]
        given.get("as_of"),  # type: ignore[arg-type]
        given.get("min_score"),  # type: ignore[arg-type]
        given.get("half_life"),  # type: ignore[arg-type]
    )
    found = retrieve.recall(context.paths, scopes or [ALICE], query, options, use_index=use_index)
    items = [RecallItem.of(item, len(found.scopes) > 1).to_dict() for item in found.items]
    return items, found.rendered.text, [str(p) for p in found.problems]


def same(context: Home, query: str, scopes: list[Scope] | None = None, **given: object) -> list[dict[str, object]]:
    indexed = recall(context, query, True, scopes, **given)
    scanned = recall(context, query, False, scopes, **given)
    assert indexed == scanned, (query, given)
    return indexed[0]


@pytest.mark.parametrize("query", QUERIES)
def test_indexed_recall_equals_reading_the_files(store: Home, query: str) -> None:
    shown = 0
    for given in RANGES:
        shown += len(same(store, query, **given))
        shown += len(same(store, query, [ALICE, ACME], **given))
    assert query == "what is it" or shown > 0  # the queries do find things, so the equality means something


def test_broken_files_are_reported_the_same_way(store: Home) -> None:
    _items, _text, problems = recall(store, "refund", True)
    assert problems == ["users/alice/episodes/2026/04/2026-04-02T00-00-00Z-broken.md:2: episode is missing `scope`"]
    assert recall(store, "refund", True, since="2026-05-01")[2] == []  # its month is out of range


def test_the_index_lives_in_the_ignored_cache(store: Home) -> None:
    same(store, "refund")
    path = index.path_of(store.paths, ALICE)
    assert path.is_file() and path.is_relative_to(store.paths.cache)
    status = subprocess.run(
        ["git", "-C", str(store.root), "status", "--porcelain", "--ignored"], capture_output=True, text=True
    )
    assert ".cache" not in status.stdout.replace("!! .cache/\n", "") and "!! .cache/\n" in status.stdout


def indexed_ids(context: Home, query: str, **given: object) -> list[str]:
    return [str(item["id"]) for item in same(context, query, **given)]


def aged_episode(context: Home, number: int, started_at: str, summary: str) -> tuple[Episode, Path]:
    """One more episode of user:alice, written and backdated so that its stat is trusted."""
    episode = make_episode(random.Random(number), ALICE, number)
    episode.started_at = started_at
    episode.summary = summary
    path = write_episode(context.paths, ALICE, episode)
    age(path)
    return episode, path


def edit_in_place(path: Path, old: bytes, new: bytes) -> None:
    """Same inode, same size (`old` and `new` are as long), other words: the folder's own mtime does not move."""
    data = path.read_bytes()
    with open(path, "r+b") as handle:
        handle.write(data.replace(old, new))
    assert path.stat().st_size == len(data)


def test_hand_edit_in_place_same_size_is_seen(store: Home) -> None:
    episode, path = aged_episode(store, 999, "2026-11-28T09:00:00Z", "zebra lamp " + "x" * 40)
    assert indexed_ids(store, "zebra") == [episode.id]
    edit_in_place(path, b"zebra lamp", b"quokka map")
    assert indexed_ids(store, "zebra") == []
    assert indexed_ids(store, "quokka") == [episode.id]


@pytest.fixture
def long_lived() -> Iterator[None]:
    """A process that trusts a month folder's listing for an hour unless the folder changes (as `mem mcp`, for 1 s)."""
    keep_warm(restat_s=3600)
    try:
        yield
    finally:
        keep_warm(restat_s=0, documents=0, optimize_model=False)


def indexed_only(context: Home, query: str) -> list[str]:
    return [str(item["id"]) for item in recall(context, query, True)[0]]


def test_a_long_lived_process_sees_an_edit_in_place_only_when_told_to(store: Home, long_lived: None) -> None:
    episode, path = aged_episode(store, 996, "2026-11-27T09:00:00Z", "ocelot lamp " + "x" * 40)
    assert indexed_only(store, "ocelot") == [episode.id]
    edit_in_place(path, b"ocelot lamp", b"tapirs map")
    assert indexed_only(store, "ocelot") == [episode.id]  # the listing is trusted for the interval
    keep_warm(restat_s=0)  # every recall stats every file again: the default
    assert indexed_only(store, "ocelot") == []
    assert indexed_only(store, "tapirs") == [episode.id]


def test_kept_documents_give_the_same_results(store: Home) -> None:
    keep_warm(restat_s=0, documents=64)  # fewer than a query reads: some kept, some dropped, some read again
    try:
        for _round in range(2):
            for query in QUERIES:
                same(store, query)
    finally:
        keep_warm(restat_s=0, documents=0, optimize_model=False)


def test_a_long_lived_process_sees_a_new_file_at_once(store: Home, long_lived: None) -> None:
    assert indexed_only(store, "pangolin") == []
    episode = make_episode(random.Random(4), ALICE, 995)
    episode.started_at = "2026-11-26T09:00:00Z"
    episode.summary = "pangolin sighting near the depot"
    assert store.paths.episode_month_dir(ALICE, date(2026, 11, 26)).is_dir()  # listed by the first recall
    age(write_episode(store.paths, ALICE, episode), seconds=60)  # the folder changed after the last listing
    assert indexed_only(store, "pangolin") == [episode.id]


def test_edit_within_the_same_clock_tick_is_seen(store: Home) -> None:
    episode = make_episode(random.Random(3), ALICE, 998)
    episode.summary = "walrus " * 5
    path = write_episode(store.paths, ALICE, episode)
    before = path.stat()
    assert indexed_ids(store, "walrus") == [episode.id]
    with open(path, "r+b") as handle:
        handle.write(path.read_bytes().replace(b"walrus", b"narwal"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # as if written in the same tick: stat unchanged
    assert indexed_ids(store, "walrus") == []
    assert indexed_ids(store, "narwal") == [episode.id]


def test_files_added_removed_and_renamed_outside_mem_are_seen(store: Home) -> None:
    assert indexed_ids(store, "pangolin") == []
    episode = make_episode(random.Random(4), ALICE, 997)
    episode.summary = "pangolin sighting near the depot"
    path = write_episode(store.paths, ALICE, episode)
    assert indexed_ids(store, "pangolin") == [episode.id]
    renamed = path.with_name("renamed-by-hand.md")
    path.rename(renamed)
    assert indexed_ids(store, "pangolin") == [episode.id]
    renamed.unlink()
    assert indexed_ids(store, "pangolin") == []
    month = store.paths.episode_month_dir(ALICE, date(2025, 6, 1))
    gone = {p.name for p in month.iterdir()}
    assert gone
    for child in month.iterdir():
        child.unlink()
    month.rmdir()  # a whole month removed, e.g. by a git pull
    same(store, "refund", half_life=0.0, k=50, min_score=0.0)


def test_a_git_checkout_of_older_files_is_seen(store: Home) -> None:
    root = store.root
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "episodes"], check=True)
    path = next(store.paths.episode_month_dir(ALICE, date(2026, 10, 1)).iterdir())
    original = path.read_bytes()
    path.write_bytes(original.rstrip(b"\n") + b" platypus\n")
    subprocess.run(["git", "-C", str(root), "commit", "-qam", "hand edit"], check=True)
    assert len(indexed_ids(store, "platypus", k=10)) == 1
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "HEAD~1", "--", "."], check=True)
    assert indexed_ids(store, "platypus", k=10) == []


def test_writes_through_mem_update_the_index(store: Home) -> None:
    same(store, "refund")  # builds the index
    runner = CliRunner()
    done = runner.invoke(app, ["episode", "okapi spotted at the river", "-u", "alice", "--at", "2026-11-20T10:00:00Z"])
    assert done.exit_code == 0, done.output
    conn = sqlite3.connect(index.path_of(store.paths, ALICE))
    rows = conn.execute(
        "SELECT name FROM files WHERE name LIKE '2026/11/%okapi%' OR name LIKE '2026/11/2026-11-20%'"
    ).fetchall()
    conn.close()
    assert len(rows) == 1  # recorded by the write itself, before any recall: this process recalls
    assert len(indexed_ids(store, "okapi")) == 1


def test_a_one_shot_write_is_left_to_the_next_recall_which_finds_it(store: Home) -> None:
    same(store, "refund")  # builds the index
    mem = [sys.executable, "-m", "memfiles"]
    env = {**os.environ, "MEM_HOME": str(store.root)}
    episode = [*mem, "episode", "wombat seen near the bridge", "-u", "alice", "--at", "2026-11-21T10:00:00Z"]
    subprocess.run(episode, env=env, check=True, capture_output=True, timeout=60)
    conn = sqlite3.connect(index.path_of(store.paths, ALICE))
    assert conn.execute("SELECT name FROM files WHERE name LIKE '%wombat%'").fetchall() == []  # not loaded to write
    conn.close()
    found = subprocess.run([*mem, "recall", "wombat", "-u", "alice"], env=env, capture_output=True, text=True)
    assert "wombat seen near the bridge" in found.stdout, found.stdout + found.stderr
    assert len(indexed_ids(store, "wombat")) == 1


def test_corrupt_index_is_rebuilt(store: Home) -> None:
    expected = same(store, "refund")
    path = index.path_of(store.paths, ALICE)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"this is not a database" * 100)
    assert index.trouble(store.paths, ALICE) is not None
    assert recall(store, "refund", True)[0] == expected
    assert index.trouble(store.paths, ALICE) is None


def test_a_reader_that_opened_the_index_first_sees_it_set_up(store: Home) -> None:
    """Readers arriving together all open the file first (sqlite makes it empty); the one that sets it up
    must not replace it, or a connection on the old file would meet the new one's WAL (a mix of both)."""
    path = index.path_of(store.paths, ALICE)
    path.parent.mkdir(parents=True, exist_ok=True)
    early = index_file.open_file(path)
    assert early.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)
    index_file.connect(store.paths, ALICE).close()
    assert early.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == (str(index_file.INDEX_VERSION),)
    assert early.execute("SELECT count(*) FROM postings").fetchone() == (0,)
    early.close()


def test_doctor_reports_and_repairs_a_corrupt_index(store: Home) -> None:
    same(store, "refund")
    path = index.path_of(store.paths, ALICE)
    path.write_bytes(b"garbage" * 1000)
    runner = CliRunner()
    found = runner.invoke(app, ["doctor"])
    assert "recall index is corrupt" in found.output and found.exit_code == 1
    fixed = runner.invoke(app, ["doctor", "--fix"])
    assert (
        f".cache/index/user-alice.{index_file.INDEX_VERSION}.sqlite3: rebuilt from 301 episode file(s)" in fixed.output
    )
    assert index.trouble(store.paths, ALICE) is None


def test_doctor_reindex_rebuilds_every_index(store: Home) -> None:
    same(store, "refund", [ALICE, ACME])
    done = CliRunner().invoke(app, ["doctor", "--reindex", "--json"])
    assert "fixed" in done.output
    assert (
        f".cache/index/user-alice.{index_file.INDEX_VERSION}.sqlite3: rebuilt from 301 episode file(s)" in done.output
    )
    assert f".cache/index/org-acme.{index_file.INDEX_VERSION}.sqlite3: rebuilt from 60 episode file(s)" in done.output
    same(store, "refund", [ALICE, ACME])


def test_an_index_of_another_version_is_rebuilt(store: Home) -> None:
    expected = same(store, "invoice")
    conn = sqlite3.connect(index.path_of(store.paths, ALICE))
    conn.execute("UPDATE meta SET value = 'old' WHERE key = 'version'")
    conn.execute("DELETE FROM docs")  # what an old version stored no longer counts
    conn.commit()
    conn.close()
    assert recall(store, "invoice", True)[0] == expected


def test_a_new_index_version_gets_its_own_file_built_from_the_files(
    store: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = same(store, "refund")
    old = index.path_of(store.paths, ALICE)
    monkeypatch.setattr(index_file, "INDEX_VERSION", index_file.INDEX_VERSION + 1)
    new = index.path_of(store.paths, ALICE)
    assert new != old and not new.exists()
    assert recall(store, "refund", True)[0] == expected
    conn = sqlite3.connect(new)
    assert conn.execute("SELECT count(*) FROM files").fetchone() == (301,)  # built again from every file
    conn.close()
    assert old.is_file()  # the other version's, unused for less than a week, is left alone
    assert store.paths.index_files(ALICE) == sorted([old, new])


# What the index stores for one fixed episode, by INDEX_VERSION. When this changes, the index's format has
# changed: bump INDEX_VERSION (memfiles/recall/index_file.py) and record the new digest under the new version.
# 6: episodes and facts as their models JSON; 7: episodes' review fields, and `files.held` (issue 25);
# 8: the same bytes, but the guard's rules changed, so which episodes `files.held` holds back did too;
# 9: the same again, for the rules of the second guard round (GUARD_RULES below); 10: episodes' `source_ref`;
# 11 to 25: the same bytes, the rules changed again; 26: each episode and fact list signed by this machine;
# 27: MEM117-MEM122, and words joined by `-`, `_` or percent-encoding read as words; 28: each document's number
# of passages in its row (recall bounds a candidate's score before reading it); 29: MEM123 persona-with-request,
# MEM124 task-hijack, MEM125 scenario-as-fact; 30: an episode's proposed goal judged as the fact it would become;
# 31: MEM126 persuasion-stack, and limits claimed lifted and the prompt asked for by a short name (MEM124, MEM106);
# 32: more of the small collections' classes (MEM106, MEM107, MEM123, MEM124), MEM105 narrowed to the reader's policy;
# 33: a line reporting a request (`Task:`, `asked:`) is history to MEM104 and MEM113; 34: a developer's own
# content filter or safety checks turned off are not the reader's (MEM105, MEM124); 35: rules out of force elsewhere
# than here ("during exam week") are not an override (MEM103)
STORED = {
    5: "41379930bfc5c89e",
    6: "fbbb787f0f01c0fd",
    7: "8fb5f8ab4d18472c",
    8: "8fb5f8ab4d18472c",
    9: "8fb5f8ab4d18472c",
    10: "dc67420510453817",
    11: "dc67420510453817",
    12: "dc67420510453817",
    13: "dc67420510453817",
    14: "dc67420510453817",
    15: "dc67420510453817",
    16: "dc67420510453817",
    17: "dc67420510453817",
    18: "dc67420510453817",
    19: "dc67420510453817",
    20: "dc67420510453817",
    21: "dc67420510453817",
    22: "dc67420510453817",
    23: "dc67420510453817",
    24: "dc67420510453817",
    25: "dc67420510453817",
    26: "c5485de03e70afe3",
    27: "c5485de03e70afe3",
    28: "2933997584cc8eb1",
    29: "2933997584cc8eb1",
    30: "2933997584cc8eb1",
    31: "2933997584cc8eb1",
    32: "2933997584cc8eb1",
    33: "2933997584cc8eb1",
    34: "2933997584cc8eb1",
    35: "2933997584cc8eb1",
}
# The guard's rules each version of the index decided `files.held` with (a digest of every rule's code, severity,
# kinds and patterns). The index stores the decision, so rules that catch more need a new version.
GUARD_RULES = {
    9: "cc15b23e4e3fc299",
    10: "cc15b23e4e3fc299",
    11: "70b6535aef436d84",
    12: "39ebabb025627452",
    13: "dd13470c0626a1d0",
    14: "9afe9349f35f6e26",
    15: "065ceea33a52c69d",
    16: "26a489b2cdca0549",
    17: "6ea3f8b7d79be009",
    18: "059ec75a314ce4e7",
    19: "aaaaaea6b94e9143",
    20: "aaaaaea6b94e9143",  # the same rules; the folded view they read changed
    21: "76487e16a60462a5",
    22: "373d7283cadd1b5b",
    23: "0ea9bbccaf024839",
    24: "9d2035f40800eb2f",
    25: "199bff85c5857f0f",
    26: "199bff85c5857f0f",  # the same rules; rows now signed
    27: "476662c9ac1897dc",
    28: "476662c9ac1897dc",
    29: "3f915db3cb39ee1b",
    30: "3f915db3cb39ee1b",
    31: "f50af89047983c61",
    32: "fb3f9903fc0c83f6",
    33: "fb3f9903fc0c83f6",  # the same rules; a reported request is history to MEM104 and MEM113
    34: "3b645d0bb6a9299d",
    35: "480f8f1a6e783d74",
}


def test_the_guard_rules_change_only_with_the_index_version() -> None:
    import hashlib

    from memfiles.lint.findings import FirstOf
    from memfiles.lint.rules import RULES

    parts = []
    for rule in RULES:
        patterns = rule.check.patterns if isinstance(rule.check, FirstOf) else getattr(rule.check, "patterns", ())
        parts.append("\x00".join((rule.code, rule.severity, *rule.profiles, *patterns)))
    digest = hashlib.sha256("\x01".join(parts).encode()).hexdigest()[:16]
    assert GUARD_RULES.get(index_file.INDEX_VERSION) == digest, (
        f"the guard's rules changed ({digest}): which episodes an index holds back may differ, so bump "
        "INDEX_VERSION (memfiles/recall/index_file.py) and record the new digest in GUARD_RULES and STORED"
    )


def test_what_the_index_stores_changes_only_with_its_version() -> None:
    import hashlib
    import zlib

    from memfiles.format.model import Fact

    episode = Episode(
        id="e-000000000000",
        scope="user:canary",
        started_at="2026-01-02T03:04:05Z",
        summary="Shipped the Café order O-4471 to Zürich; invoices and investing plans, 2 résumés.",
        entities=["order O-4471"],
        events=["asked about delivery"],
        facts=[CandidateFact(key="notification_channel", value="email")],
        invalidates=[Invalidation(key="plan_tier", reason="downgraded")],
    )
    stored = b"\n".join(
        [
            zlib.decompress(index_records.encode_episode(episode)),
            zlib.decompress(index_records.encode_document(episode_document(episode))),
            index_records.postings_text(episode_document(episode)).encode(),
            " ".join(Fact.model_fields).encode(),  # MEMORY.md's facts are stored by field
            index_file.SCHEMA.encode(),
        ]
    )
    digest = hashlib.sha256(stored).hexdigest()[:16]
    assert STORED.get(index_file.INDEX_VERSION) == digest, (
        f"what the index stores changed ({digest}): bump INDEX_VERSION"
    )


def test_without_a_usable_index_recall_reads_the_files(store: Home) -> None:
    store.paths.cache.mkdir(exist_ok=True)
    (store.paths.cache / "index").write_text("a file where the index folder should be")
    with pytest.raises(index.IndexUnavailable):
        indexed.open_episodes(store.paths, [ALICE], indexed.Window.of(None, clock.parse_when(NOW), None))
    assert recall(store, "refund", True) == recall(store, "refund", False)


def test_documents_and_episodes_round_trip_through_the_index_encoding() -> None:
    episode = make_episode(random.Random(1), ALICE, 1)
    episode.facts = [CandidateFact(key="diet", value="vegan", subject="user_preference", confidence="inferred")]
    blob = index_records.encode_episode(episode)
    conn = sqlite3.connect(":memory:")
    assert index_records.decode_episode(conn, blob, index_file.sign_row(conn, "episode", blob)) == episode
    with pytest.raises(index_file.IndexTampered):  # only what this machine stored is decoded
        index_records.decode_episode(conn, blob, "0" * 64)
    conn.close()
    doc = episode_document(episode)
    assert index_records.decode_document(index_records.encode_document(doc)) == doc


@hypothesis.given(st.text(alphabet="ab.\n\x00-_MDdm é", max_size=8), st.sampled_from(["", ".md", "md", "DIGEST.md"]))
def test_episode_names_are_recognised_as_the_file_scan_does(start: str, end: str) -> None:
    from memfiles.format.layout import _EPISODE_FILE, DIGEST_NAME, is_episode_name

    name = start + end
    assert is_episode_name(name) == (_EPISODE_FILE.fullmatch(name) is not None and name != DIGEST_NAME)


def test_session_context_is_the_same_with_the_index(store: Home) -> None:
    """Episodes gain from their session's neighbours; the index finds the same neighbours as the files."""
    lifted = [
        item
        for query in ("refund", "toronto invoice", "warranty claim")
        for item in same(store, query, kind="episodes", half_life=0.0, k=20)
        if item.get("context")
    ]
    assert lifted, "no recalled episode was lifted by its session: the equality above would not cover context"


def test_a_scope_without_episodes_gets_no_index_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_NOW", NOW)
    assert CliRunner().invoke(app, ["add", "plan_tier", "Enterprise", "-u", "carol"]).exit_code == 0
    context = open_home(home)
    carol = Scope("user", "carol")
    items = same(context, "plan", [carol])
    assert [item["value"] for item in items] == ["Enterprise"]
    assert not index.path_of(context.paths, carol).exists()


def test_another_versions_index_is_left_alone_and_forgotten_after_a_week(store: Home) -> None:
    expected = same(store, "refund")
    other = store.paths.index_file(ALICE, "1-0badcafe")
    other.write_bytes(b"an index written by another version of mem")
    legacy = store.paths.index_file(ALICE)  # before versions were in the name
    legacy.write_bytes(b"an old index")
    assert recall(store, "refund", True)[0] == expected
    assert other.exists() and legacy.exists()  # still in use by the other version, perhaps
    week_ago = time.time() - 8 * 86400
    for path in (other, legacy):
        os.utime(path, (week_ago, week_ago))
    index.path_of(store.paths, ALICE).unlink()  # the next recall builds this version's index again
    assert recall(store, "refund", True)[0] == expected
    assert store.paths.index_files(ALICE) == [index.path_of(store.paths, ALICE)]
    assert store.paths.index_files(Scope("user", "ali")) == []  # names of other scopes never match


def test_reindex_removes_every_versions_index_of_the_scope(store: Home) -> None:
    same(store, "refund")
    store.paths.index_file(ALICE, "1-0badcafe").write_bytes(b"other")
    assert CliRunner().invoke(app, ["doctor", "--reindex"]).exit_code in (0, 1)
    assert store.paths.index_files(ALICE) == [index.path_of(store.paths, ALICE)]
