"""Recall by meaning (issue 26): the memfiles[semantic] extra's hybrid ranking, its vectors, and its absence.

Tests that need the extra are skipped, with the reason shown, when it is not installed (`pip install -e
'.[semantic]'`; .ci/run installs it). The tests of its absence run everywhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memfiles.api import open_home
from memfiles.recall import embedder

needs_extra = pytest.mark.skipif(
    not embedder.available(), reason="memfiles[semantic] is not installed: pip install -e '.[semantic]'"
)
PARAPHRASES = Path(__file__).parent / "data" / "paraphrases.json"
# The issue asks for 90 %: 55 of 61 are found (34 of the 37 written first, 21 of the 24 held out), with questions
# and facts embedded by the model as shipped and episodes by its int8 copy. docs/FORMAT.md, "Recall by meaning".
PARAPHRASES_FOUND_AT_3 = 0.90
EXTRA_MODULES = ("onnxruntime", "tokenizers", "numpy", "memfiles.recall.hybrid", "memfiles.recall.vectors")


@pytest.fixture(autouse=True)
def hybrid_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """conftest.py makes every other test rank by words only; here the default applies."""
    monkeypatch.delenv("MEM_RANKING", raising=False)


def _support_home(root: Path, vectors: bool = True) -> None:
    """SCENARIOS.md story 1, session 1: two facts told in one message, and an episode; every write embeds what
    it stores. `vectors=False`: written with recall by meaning off, as a home written before the extra was
    installed (or pulled from another machine) has no vectors."""
    home = open_home(root)
    alice = home.user("alice")
    os.environ["MEM_NOW"] = "2026-09-01T10:00:00Z"
    if not vectors:
        os.environ["MEM_RANKING"] = "lexical"
    try:
        alice.add("plan_tier", "Enterprise", subject="account_state", ref="session s-1, turn 1")
        alice.add("notification_channel", "email", ref="session s-1, turn 1")
        alice.episode("Asked where order O-4471 is; looked it up: in transit, last scanned in Toronto.", session="s-1")
    finally:
        os.environ.pop("MEM_RANKING", None)
    os.environ["MEM_NOW"] = "2026-09-02T09:00:00Z"


def _imported_after(code: str, root: Path) -> list[str]:
    """The extra's modules a fresh interpreter has imported after running `code` on the home at `root`."""
    script = f"import sys\nfrom memfiles.api import open_home\nhome = open_home({str(root)!r})\n{code}\n"
    script += f"print(' '.join(m for m in {EXTRA_MODULES!r} if m in sys.modules))"
    env = {**os.environ, "MEM_NOW": "2026-09-02T09:00:00Z"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


# --- without the extra, or with it turned off: nothing changes, nothing is imported ---


def test_without_the_extra_recall_imports_nothing_of_it(home: Path) -> None:
    _support_home(home, vectors=False)
    code = "from memfiles.recall import embedder\nembedder.available = lambda: False\n"
    code += "print(home.user('alice').recall('Where is order O-4471?').text, file=sys.stderr)"
    assert _imported_after(code, home) == []


def test_lexical_flag_and_setting_import_nothing_of_it(home: Path) -> None:
    _support_home(home, vectors=False)
    assert _imported_after("home.user('alice').recall('order', lexical=True)", home) == []
    (home / "mem.toml").write_text('[recall]\nranking = "lexical"\n', encoding="utf-8")
    assert _imported_after("home.user('alice').recall('order')", home) == []


def test_a_synced_mem_toml_may_not_name_a_model(home: Path) -> None:
    (home / "mem.toml").write_text('[semantic]\nmodel = "/tmp/evil.onnx"\n', encoding="utf-8")
    opened = open_home(home)
    assert opened.settings.safe.semantic.model == ""
    assert any("[semantic] model" in line for line in opened.ignored)


def test_without_the_extra_results_are_the_lexical_ones(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _support_home(home, vectors=False)
    monkeypatch.setattr(embedder, "available", lambda: False)
    plain = open_home(home).user("alice").recall("Where is order O-4471?")
    lexical = open_home(home).user("alice").recall("Where is order O-4471?", lexical=True)
    assert plain.model_dump() == lexical.model_dump()
    assert all(item.scores.semantic is None and item.scores.lexical is None for item in plain.items)


# --- with the extra ---


@needs_extra
def test_set_up_an_alert_recalls_the_channel_and_the_plan(home: Path) -> None:
    """SCENARIOS.md story 9: "alert" shares no word with notification_channel; by meaning it is found."""
    _support_home(home)
    found = open_home(home).user("alice").recall("Set up an alert for me")
    keys = [item.facts[0].key for item in found.items if item.facts]
    assert "notification_channel" in keys and "plan_tier" in keys
    assert 'value="email"' in found.text and 'value="Enterprise"' in found.text
    lexical = open_home(home).user("alice").recall("Set up an alert for me", lexical=True)
    assert lexical.items == []  # words alone find nothing: the gain is the meaning


@needs_extra
def test_a_question_about_nothing_stored_returns_an_empty_block(home: Path) -> None:
    _support_home(home, vectors=False)  # the lexical side is asked too, vectors or not
    for question in ("What is the capital of Mongolia?", "Recipe for sourdough bread", "How far away is the moon?"):
        assert open_home(home).user("alice").recall(question).items == [], question


@needs_extra
def test_explain_shows_both_scores_and_lexical_turns_it_off(home: Path) -> None:
    _support_home(home)
    env = {**os.environ, "MEM_USER": "alice", "MEM_HOME": str(home)}
    mem = [sys.executable, "-m", "memfiles"]
    shown = subprocess.run(
        [*mem, "recall", "Set up an alert for me", "--explain"], capture_output=True, text=True, env=env
    )
    assert shown.returncode == 0, shown.stderr
    assert (
        "lexical 0.000, semantic 0." in shown.stdout.replace("\n", " ").replace("│", " ") or "semantic" in shown.stdout
    )
    as_json = subprocess.run(
        [*mem, "recall", "where is order O-4471", "--format", "json"], capture_output=True, text=True, env=env
    )
    items = json.loads(as_json.stdout)
    assert items and all(isinstance(i["semantic"], float) and isinstance(i["lexical"], float) for i in items)
    off = subprocess.run(
        [*mem, "recall", "where is order O-4471", "--format", "json", "--lexical"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert json.loads(off.stdout) and all(i["semantic"] is None for i in json.loads(off.stdout))


@needs_extra
def test_vectors_live_in_the_cache_never_in_git(home: Path) -> None:
    _support_home(home)
    open_home(home).user("alice").recall("Set up an alert for me")
    files = list((home / ".cache" / "index").glob("user-alice.vectors*.sqlite3"))
    assert files
    tracked = subprocess.run(["git", "ls-files"], cwd=home, capture_output=True, text=True, check=True).stdout
    assert "vectors" not in tracked and ".cache" not in tracked
    assert (
        "vectors"
        not in subprocess.run(["git", "status", "--porcelain"], cwd=home, capture_output=True, text=True).stdout
    )


@needs_extra
def test_a_read_embeds_every_fact_and_episodes_within_its_budget(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A home written without vectors (before the extra, or pulled): the read embeds every fact whatever its
    budget, ranks the episodes it had no time for by words, says so with the fix, and doctor reports them."""
    from memfiles.recall import hybrid

    _support_home(home, vectors=False)
    monkeypatch.setattr(hybrid, "READ_BUDGET_S", 0.0)
    found = open_home(home).user("alice").recall("Set up an alert for me")
    assert [i.facts[0].key for i in found.items if i.kind == "fact"][:1] == ["notification_channel"]
    assert all(i.scores.semantic is not None for i in found.items if i.kind == "fact")
    assert any("1 of 1 episodes" in note and "mem doctor --fix" in note for note in found.notes)
    report = open_home(home).doctor()
    assert not report.healthy and any("0 fact(s) and 1 episode(s) have no vectors" in p for p in report.problems)
    monkeypatch.undo()
    assert open_home(home).doctor(fix=True).healthy
    again = open_home(home).user("alice").recall("where is order O-4471")
    assert again.notes == [] and again.items[0].scores.semantic is not None


@needs_extra
def test_a_read_embeds_episodes_without_vectors_within_its_default_budget(home: Path) -> None:
    """ "Each recall embeds some": with the default budget, a read of a home whose one episode has no vector embeds
    it (the budget counts from when the model is loaded), and says nothing; the next read has nothing to embed."""
    _support_home(home, vectors=False)
    assert any("1 episode(s) have no vectors" in p for p in open_home(home).doctor().problems)
    found = open_home(home).user("alice").recall("where is order O-4471")
    assert found.notes == [] and found.items[0].kind == "episode" and found.items[0].scores.semantic is not None
    assert open_home(home).doctor().healthy


def _mem(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`mem` as a person runs it: its own process, the extra installed, recall by meaning on (the default)."""
    env = {k: v for k, v in os.environ.items() if k != "MEM_RANKING"} | {"MEM_HOME": str(home)}
    mem = shutil.which("mem", path=str(Path(sys.executable).parent)) or "mem"
    return subprocess.run([mem, *args], capture_output=True, text=True, env=env, input=stdin)


@needs_extra
def test_a_fact_just_added_is_found_by_meaning_in_a_fresh_home_with_no_warning(home: Path) -> None:
    added = _mem(home, "add", "-u", "carol", "goal", "build an emergency fund")
    assert added.returncode == 0 and added.stderr == "", added.stderr
    found = _mem(home, "recall", "investing a bonus", "-u", "carol")
    assert found.returncode == 0 and found.stderr == "", found.stderr
    assert "key=goal" in found.stdout and "build an emergency fund" in found.stdout
    assert _mem(home, "doctor").returncode == 0


@needs_extra
def test_every_writer_embeds_what_it_stores(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`mem add`, `mem episode`, capture, import and MCP's remember: nothing is left for a read to embed."""
    from memfiles.format.layout import Scope
    from memfiles.recall import vector_build

    transcript = home.parent / "session.jsonl"
    lines = [
        {
            "type": "user",
            "sessionId": "s-9",
            "cwd": str(home.parent),
            "timestamp": "2026-09-01T10:00:00Z",
            "message": {"role": "user", "content": "Our dog Biscuit needs a vet appointment next week."},
        },
        {
            "type": "assistant",
            "sessionId": "s-9",
            "timestamp": "2026-09-01T10:00:05Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Booked the vet for Tuesday."}]},
        },
    ]
    transcript.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    memories = home.parent / "mem0.json"
    memories.write_text(json.dumps({"results": [{"id": "m-1", "memory": "Prefers window seats on long flights"}]}))
    steps = [
        ("add", "-u", "alice", "goal", "build an emergency fund"),
        ("episode", "-u", "alice", "Moved the team standup to Thursdays at 9."),
        ("capture", str(transcript), "-u", "alice"),
        ("import", str(memories), "-u", "alice", "--from", "mem0"),
    ]
    paths = open_home(home).paths
    model_id = embedder.ModelFiles.default().id
    for step in steps:
        done = _mem(home, *step)
        assert done.returncode == 0 and "not embedded" not in done.stderr, (step, done.stderr)
        assert vector_build.missing(paths, Scope("user", "alice"), model_id) == (0, 0), step
    from memfiles.mcp import Tools  # the MCP server's tools, over the same API

    Tools(open_home(home), "alice").remember("seat_preference", "aisle")
    assert vector_build.missing(paths, Scope("user", "alice"), model_id) == (0, 0)


@needs_extra
def test_a_write_whose_model_is_broken_is_stored_says_so_once_and_doctor_catches_up(home: Path) -> None:
    broken = home.parent / "not-a-model.onnx"
    broken.write_text("this is not an ONNX model\n", encoding="utf-8")
    local = home / "mem.local.toml"
    kept = local.read_text(encoding="utf-8") if local.exists() else ""
    local.write_text(kept + f'[semantic]\nmodel = "{broken}"\n', encoding="utf-8")
    first = _mem(home, "add", "-u", "alice", "goal", "build an emergency fund")
    second = _mem(home, "add", "-u", "alice", "city", "Halifax")
    assert first.returncode == 0 and second.returncode == 0
    assert "not embedded for recall by meaning" in first.stderr and second.stderr == ""
    shown = _mem(home, "show", "-u", "alice")
    assert "build an emergency fund" in shown.stdout and "Halifax" in shown.stdout
    sick = _mem(home, "doctor")
    assert sick.returncode == 1 and "embedding what a write stored" in sick.stdout + sick.stderr
    local.write_text(kept, encoding="utf-8")  # the model is repaired
    assert _mem(home, "doctor", "--fix").returncode == 0
    assert _mem(home, "doctor").returncode == 0
    found = _mem(home, "recall", "investing a bonus", "-u", "alice")
    assert "emergency fund" in found.stdout and found.stderr == ""


@needs_extra
def test_an_interrupted_reindex_is_unhealthy_until_fixed(home: Path) -> None:
    _support_home(home)
    paths = open_home(home).paths
    paths.reindex_mark.parent.mkdir(parents=True, exist_ok=True)
    paths.reindex_mark.write_text("2026-09-02T09:00:00Z\n")  # what a reindex killed midway leaves
    for path in (home / ".cache" / "index").glob("*vectors*"):
        path.unlink()
    report = open_home(home).doctor()
    assert not report.healthy and any("--reindex` was interrupted" in p for p in report.problems)
    assert open_home(home).doctor(fix=True).healthy
    assert not paths.reindex_mark.exists()
    found = open_home(home).user("alice").recall("where is order O-4471")
    assert found.notes == [] and found.items[0].scores.semantic is not None


@needs_extra
def test_a_reindex_embeds_episodes_by_an_int8_copy_and_reads_by_the_model_as_shipped(home: Path) -> None:
    """The reindex's episodes run through an int8 copy kept in .cache/models/ (never in git), whose vectors agree
    with the float model's; a read embeds its question by the model as shipped and never makes or opens the copy."""
    files = embedder.ModelFiles.default()
    if not files.int8:
        pytest.skip("onnx is not installed, so everything runs in float: pip install -e '.[semantic]'")
    _support_home(home, vectors=False)
    _imported_after("home.doctor(reindex=True)", home)  # a fresh process loads the model for this home
    models = home / ".cache" / "models"
    assert [p.name for p in models.glob("*.onnx")] == [f"{files.id}-int8.onnx"]
    tracked = subprocess.run(["git", "ls-files"], cwd=home, capture_output=True, text=True, check=True).stdout
    assert ".cache" not in tracked
    shutil.rmtree(models)
    ask = "found = home.user('alice').recall('Set up an alert for me')\n"
    ask += "assert found.notes == [] and all(i.scores.semantic is not None for i in found.items), found\n"
    assert "onnxruntime" in _imported_after(ask, home)
    assert not models.exists()  # the read used the model as shipped
    texts = ["Set up an alert for me", "The notification channel is email.", "Asked where order O-4471 is."]
    model = embedder.Embedder(files, home / ".cache")
    assert min((model.embed_bulk(texts) * model.embed(texts)).sum(axis=1)) > 0.97
    assert [p.name for p in models.glob("*.onnx")] == [f"{files.id}-int8.onnx"]


@needs_extra
def test_a_model_loaded_for_one_question_or_for_many_gives_the_same_vectors() -> None:
    """A one-shot read loads the model without onnxruntime's graph optimizations (quicker to load), a long-lived
    process (keep_warm) with them (quicker to run): the same products in another order, so the same vectors."""
    files = embedder.ModelFiles.default()
    texts = ["Set up an alert for me", "The notification channel is email.", "how should I invest my bonus"]
    quick = embedder.Embedder(files).embed(texts)
    embedder.optimize_at_load(True)
    try:
        optimized = embedder.Embedder(files).embed(texts)
    finally:
        embedder.optimize_at_load(False)
    assert abs(quick - optimized).max() < 1e-5


@needs_extra
def test_a_model_file_that_cannot_be_loaded_ranks_by_words_and_says_why(home: Path) -> None:
    _support_home(home, vectors=False)
    broken = home.parent / "not-a-model.onnx"
    broken.write_text("this is not an ONNX model\n", encoding="utf-8")
    (home / "mem.local.toml").write_text(f'[semantic]\nmodel = "{broken}"\n', encoding="utf-8")
    found = open_home(home).user("alice").recall("where is order O-4471")
    assert [i.kind for i in found.items] == ["episode"] and found.items[0].scores.semantic is None
    assert any("ranked by words only: cannot load the embedding model" in n and str(broken) in n for n in found.notes)


@needs_extra
def test_a_hand_edit_is_embedded_anew(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memfiles.recall import hybrid

    monkeypatch.setattr(hybrid, "READ_BUDGET_S", 600.0)  # the edited file is embedded by the next read
    _support_home(home)
    alice = open_home(home).user("alice")
    assert alice.recall("Where is my parcel?", kind="episodes").items  # by meaning: "parcel" is not in it
    (episode,) = list((home / "users" / "alice" / "episodes").rglob("*.md"))
    text = episode.read_text(encoding="utf-8").replace("in transit, last scanned in Toronto", "a recipe for pancakes")
    text = text.replace("Asked where order O-4471 is; looked it up:", "Talked about breakfast:")
    episode.write_text(text, encoding="utf-8")
    assert alice.recall("Where is my parcel?", kind="episodes").items == []


@needs_extra
def test_time_range_and_as_of_hold_for_meaning(home: Path) -> None:
    _support_home(home)
    alice = open_home(home).user("alice")
    assert alice.recall("Where is my parcel?", kind="episodes").items
    assert alice.recall("Where is my parcel?", kind="episodes", since="2026-09-02").items == []
    assert alice.recall("Set up an alert for me", as_of="2026-08-01").items == []  # nothing was known then


@needs_extra
def test_a_long_lived_process_finds_by_meaning_what_it_wrote_after_its_last_query(home: Path) -> None:
    from memfiles.api import keep_warm

    _support_home(home)
    alice = open_home(home).user("alice")
    keep_warm()  # as mem mcp runs: listings and the window's vector rows kept between queries
    try:
        assert alice.recall("Where is my parcel?", kind="episodes").items  # builds and keeps the window
        alice.episode("Adopted a kitten from the shelter; named her Miso.", session="s-2")
        found = alice.recall("Do they have a pet cat?", kind="episodes").items  # no word in common
        assert [i.episode.session for i in found if i.episode][:1] == ["s-2"]
    finally:
        keep_warm(restat_s=0, documents=0, optimize_model=False)


@needs_extra
def test_the_paraphrase_set(tmp_path: Path) -> None:
    """At least PARAPHRASES_FOUND_AT_3 of the questions have every needed item in the top 3 of its kind."""
    sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
    try:
        import semantic  # bench/semantic.py: builds one home per scenario through the write path
        import stories
    finally:
        sys.path.pop(0)
    report = stories.paraphrase_report(semantic.hybrid_ranker)
    missed = [row["question"] for row in report["rows"] if not row["all_found"]]
    assert report["found@3"] >= PARAPHRASES_FOUND_AT_3, missed


@needs_extra
def test_the_model_never_stops_on_text_that_was_not_utf8() -> None:
    model = embedder.load()
    vectors = model.embed([b"caf\xe9".decode("utf-8", "surrogateescape"), "cafe"])
    assert vectors.shape[0] == 2


@needs_extra
def test_a_home_cloned_from_someone_else_is_found_by_meaning_at_once(home: Path, tmp_path: Path) -> None:
    """`mem init --clone` embeds what arrived (a clone has no .cache/), so its first recall ranks by meaning."""
    from memfiles import api
    from memfiles.format.layout import Scope
    from memfiles.recall import vector_build

    _support_home(home)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    subprocess.run(["git", "-C", str(home), "remote", "add", "origin", str(remote)], check=True)
    open_home(home).sync(warn=lambda message: None)
    cloned = api.clone(str(remote), tmp_path / "second")
    paths = open_home(cloned.root).paths
    assert vector_build.missing(paths, Scope("user", "alice"), embedder.ModelFiles.default().id) == (0, 0)
    found = open_home(cloned.root).user("alice").recall("Set up an alert for me")
    assert found.notes == [] and "notification_channel" in found.text
