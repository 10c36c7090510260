"""`mem sync`, `mem init --clone` and `mem merge-driver` with real git: two clones of one home and a bare remote.

git runs the merge driver as the command `mem merge-driver …`, so the `mem` installed next to this
interpreter is put first on PATH (the `machines` fixture).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from memfiles.cli import app
from memfiles.format import yamlio
from memfiles.format.memoryfile import parse
from memfiles.format.model import fact_id
from memfiles.ops.home import init_home

BIN = os.path.dirname(sys.executable)
MEMORY = "users/alice/MEMORY.md"
runner = CliRunner()


def mem(home: Path, *args: str, code: int = 0) -> Result:
    result = runner.invoke(app, ["--home", str(home), *args])
    assert result.exit_code == code, result.output
    return result


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True).stdout


def branch(home: Path) -> str:
    return git(home, "symbolic-ref", "--short", "HEAD").strip()


def facts(home: Path, path: str = MEMORY) -> dict[str, tuple[str, str, str]]:
    doc = parse((home / path).read_bytes(), path)
    return {f.id: (f.key, f.value, f.status) for f in doc.facts}


def current(home: Path, key: str) -> list[tuple[str, str]]:
    return sorted((value, status) for k, value, status in facts(home).values() if k == key and status != "superseded")


@pytest.fixture
def on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Put this environment's `mem` first on PATH, where git looks for the merge driver."""
    if shutil.which("mem", path=BIN) is None:
        pytest.skip("the mem script is not installed next to this interpreter")
    monkeypatch.setenv("PATH", BIN + os.pathsep + os.environ.get("PATH", ""))


@pytest.fixture
def machines(isolated: Path, on_path: None) -> tuple[Path, Path, Path]:
    """A bare remote, machine one (the home that was pushed first) and machine two (its clone)."""
    remote, one, two = isolated / "remote.git", isolated / "one", isolated / "two"
    git(isolated, "init", "--quiet", "--bare", str(remote))
    init_home(one)
    git(one, "remote", "add", "origin", str(remote))
    mem(one, "add", "-u", "alice", "plan_tier", "Pro", "--at", "2026-05-01")
    mem(one, "add", "-u", "alice", "notification_channel", "email", "--at", "2026-05-01")
    first = mem(one, "sync")
    assert first.stdout.endswith("sent 3 commits (first push: upstream set)\n")
    result = runner.invoke(app, ["init", "--clone", str(remote), str(two)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"cloned {remote} into {two}; MEMORY.md merge driver registered\n"
    return remote, one, two


def test_memory_md_merges_with_the_driver_at_every_depth(home: Path) -> None:
    out = git(home, "check-attr", "merge", "--", MEMORY, "orgs/acme/MEMORY.md", "a/b/c/d/MEMORY.md", "notes.md")
    assert out.splitlines() == [
        f"{MEMORY}: merge: mem",
        "orgs/acme/MEMORY.md: merge: mem",
        "a/b/c/d/MEMORY.md: merge: mem",
        "notes.md: merge: unspecified",
    ]
    assert git(home, "config", "merge.mem.driver").strip() == "mem merge-driver %O %A %B %P"


def test_two_machines_converge_without_markers_and_lose_nothing(machines: tuple[Path, Path, Path]) -> None:
    remote, one, two = machines
    assert git(two, "config", "merge.mem.driver").strip() == "mem merge-driver %O %A %B %P"
    for args in (
        ("notification_channel", "sms", "--at", "2026-06-01"),  # superseded later by two's push
        ("timezone", "UTC", "--at", "2026-06-01"),  # a key only one machine knows
        ("plan_tier", "Enterprise", "--at", "2026-06-03"),  # contradicts two, same day
    ):
        mem(one, "add", "-u", "alice", *args)
    mem(one, "add", "-u", "bob", "language", "en", "--at", "2026-06-01")
    for args in (
        ("notification_channel", "push", "--at", "2026-06-05"),
        ("language", "fr", "--at", "2026-06-02"),
        ("plan_tier", "Team", "--at", "2026-06-03"),
    ):
        mem(two, "add", "-u", "alice", *args)
    mem(two, "add", "-u", "carol", "language", "de", "--at", "2026-06-01")
    ids = facts(one).keys() | facts(two).keys()

    for _ in range(2):
        mem(one, "sync")
        mem(two, "sync")

    merged = (one / MEMORY).read_bytes()
    assert merged == (two / MEMORY).read_bytes()
    assert b"<<<<<<<" not in merged and b">>>>>>>" not in merged
    assert facts(one).keys() == ids  # no fact lost, none invented
    assert current(one, "notification_channel") == [("push", "active")]
    assert current(one, "timezone") == [("UTC", "active")] and current(one, "language") == [("fr", "active")]
    assert current(one, "plan_tier") == [("Enterprise", "conflict"), ("Team", "conflict")]
    statuses = [status for _key, _value, status in facts(one).values()]
    assert statuses.count("conflict") == 2  # the one genuine contradiction, nothing else
    history = {value: status for key, value, status in facts(one).values() if key == "notification_channel"}
    assert history == {"email": "superseded", "sms": "superseded", "push": "active"}
    for path in ("users/bob/MEMORY.md", "users/carol/MEMORY.md"):
        assert (one / path).read_bytes() == (two / path).read_bytes()
    heads = {git(home, "rev-parse", "HEAD").strip() for home in (one, two, remote)}
    assert len(heads) == 1
    assert mem(one, "sync").stdout == f"{branch(one)} is in sync with origin/{branch(one)}\n"


def test_notes_edited_on_both_machines_conflict_only_in_the_notes(machines: tuple[Path, Path, Path]) -> None:
    _remote, one, two = machines
    for home, note in ((one, b"written on one\n"), (two, b"written on two\n")):
        with (home / MEMORY).open("ab") as handle:
            handle.write(note)
    mem(one, "add", "-u", "alice", "language", "fr", "--at", "2026-06-01")
    mem(two, "add", "-u", "alice", "timezone", "CET", "--at", "2026-06-01")
    mem(one, "sync", "--commit")
    result = mem(two, "sync", "--commit", code=1)
    assert result.stderr.startswith(f"mem: error: merging origin/{branch(two)} left conflicts in {two}: ")
    assert f"conflicts in {MEMORY} (only in the notes below the frontmatter; the facts merged cleanly)" in result.stderr
    assert "run `mem sync --commit`" in result.stderr
    assert git(two, "diff", "--name-only", "--diff-filter=U").split() == [MEMORY]
    data = (two / MEMORY).read_bytes()
    cut = yamlio.split(data, MEMORY)
    front, body = cut.front, cut.body
    assert front is not None and "<<<<<<<" not in front
    assert parse(data, MEMORY).facts  # the frontmatter is merged and valid
    assert {"timezone", "language"} <= {key for key, _value, _status in facts(two).values()}
    assert re.search(rb"^<<<<<<< ours\nwritten on two\n=======\nwritten on one\n>>>>>>> theirs\n\Z", body, re.MULTILINE)
    again = mem(two, "sync", "--commit", code=1)  # markers still there: refused, merge kept
    assert "an earlier sync's merge is unfinished: conflicts in users/alice/MEMORY.md" in again.stderr

    (two / MEMORY).write_bytes(re.sub(rb"(?m)^(<<<<<<< ours|=======|>>>>>>> theirs)\n", b"", data))
    finished = mem(two, "sync", "--commit")
    assert finished.stdout.startswith(f"committed hand edits\nsynced {branch(two)} with origin/{branch(two)}")
    mem(one, "sync")
    assert (one / MEMORY).read_bytes() == (two / MEMORY).read_bytes()
    assert (one / MEMORY).read_bytes().endswith(b"written on two\nwritten on one\n")


def test_merge_driver_exit_codes_and_markers_only_in_the_body(isolated: Path, on_path: None) -> None:
    def version(body: str, *extra: str) -> bytes:
        lines = ["---", "scope: user:alice", "facts:"]
        for key, value in (("plan", "Pro"), *(tuple(e.split("=")) for e in extra)):
            lines += [
                f"- id: {fact_id(key, value, '2026-06-01', 'stated', set())}",
                f"  key: {key}",
                f"  value: {value}",
                "  subject: user_preference",
                "  confidence: stated",
                "  source: user_statement",
                "  stated_at: 2026-06-01",
                "  status: active",
            ]
        return ("\n".join([*lines, "---", body]) + "\n").encode()

    base, ours, theirs = isolated / "O", isolated / "A", isolated / "B"
    base.write_bytes(version("notes"))
    ours.write_bytes(version("notes\nmine", "tz=UTC"))
    theirs.write_bytes(version("notes\ntheirs", "lang=fr"))
    run = [shutil.which("mem"), "merge-driver", str(base), str(ours), str(theirs), MEMORY]
    done = subprocess.run(run, capture_output=True, text=True)  # type: ignore[arg-type]
    assert done.returncode == 1
    assert (
        done.stderr
        == f"mem: warning: {MEMORY}: the notes below the frontmatter conflict (markers left there); the facts merged\n"
    )
    merged = ours.read_bytes()
    cut = yamlio.split(merged, MEMORY)
    front, body = cut.front, cut.body
    assert front is not None and "<<<<<<<" not in front
    assert {f.key for f in parse(merged, MEMORY).facts} == {"plan", "tz", "lang"}
    assert body == b"notes\n<<<<<<< ours\nmine\n=======\ntheirs\n>>>>>>> theirs\n"

    ours.write_bytes(version("notes", "tz=UTC"))  # only facts changed on both sides: clean, exit 0
    theirs.write_bytes(version("notes", "lang=fr"))
    assert subprocess.run(run, capture_output=True).returncode == 0  # type: ignore[arg-type]
    assert parse(ours.read_bytes(), MEMORY).facts and ours.read_bytes().endswith(b"---\nnotes\n")


def test_merge_driver_refuses_a_side_that_does_not_parse_and_leaves_ours_untouched(
    isolated: Path, on_path: None
) -> None:
    base, ours, theirs = isolated / "O", isolated / "A", isolated / "B"
    base.write_bytes(b"---\nscope: user:alice\nfacts: []\n---\nnotes\n")
    ours.write_bytes(b"---\nscope: user:alice\nfacts: []\n---\nnotes, mine\n")
    theirs.write_bytes(b"---\nscope: user:alice\nfacts: [\n---\nnotes, theirs\n")
    before = ours.read_bytes()
    run = [shutil.which("mem"), "merge-driver", str(base), str(ours), str(theirs), MEMORY]
    done = subprocess.run(run, capture_output=True, text=True)  # type: ignore[arg-type]
    assert done.returncode == 1
    assert done.stderr.startswith(f"mem: error: {MEMORY} (theirs):")
    assert ours.read_bytes() == before


def test_a_failing_driver_undoes_the_merge(machines: tuple[Path, Path, Path]) -> None:
    _remote, one, two = machines
    mem(one, "add", "-u", "alice", "timezone", "UTC", "--at", "2026-06-01")
    mem(one, "sync")
    (two / MEMORY).write_bytes((two / MEMORY).read_bytes().replace(b"facts:\n", b"facts: [\n", 1))
    git(two, "commit", "--quiet", "-am", "a bad hand edit, committed with plain git")
    before = (two / MEMORY).read_bytes()
    result = mem(two, "sync", code=1)
    assert result.stderr.startswith(
        f"mem: error: merging origin/{branch(two)} needs the MEMORY.md merge driver (`mem merge-driver`), "
        f"which failed: {MEMORY} (ours):"
    )
    assert result.stderr.endswith("; the merge was undone, nothing changed\n")
    assert (two / MEMORY).read_bytes() == before and git(two, "status", "--porcelain") == ""


def test_a_remote_memory_md_that_does_not_parse_is_refused_before_merging(machines: tuple[Path, Path, Path]) -> None:
    _remote, one, two = machines
    (one / MEMORY).write_bytes((one / MEMORY).read_bytes().replace(b"facts:\n", b"facts: [\n", 1))
    git(one, "commit", "--quiet", "-am", "a bad hand edit, committed with plain git")
    git(one, "push", "--quiet")
    head, before = git(two, "rev-parse", "HEAD"), (two / MEMORY).read_bytes()
    result = mem(two, "sync", code=1)
    assert result.stderr.startswith(f"mem: error: refusing to merge origin/{branch(two)}: it changes what a remote")
    assert f"{MEMORY} (does not parse: {MEMORY}:" in result.stderr
    assert git(two, "rev-parse", "HEAD") == head and (two / MEMORY).read_bytes() == before


def test_without_mem_on_path_sync_warns_and_undoes_the_merge(
    machines: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _remote, one, two = machines
    mem(one, "add", "-u", "alice", "timezone", "UTC", "--at", "2026-06-01")
    mem(one, "sync")
    mem(two, "add", "-u", "alice", "language", "fr", "--at", "2026-06-01")
    git_dir = os.path.dirname(shutil.which("git") or "/usr/bin/git")
    monkeypatch.setenv("PATH", git_dir)
    if shutil.which("mem"):
        pytest.skip("mem is installed next to git")
    result = mem(two, "sync", code=1)
    assert "mem: warning: `mem` is not on PATH, so git cannot run the MEMORY.md merge driver" in result.stderr
    assert "which failed: `mem` is not on PATH; the merge was undone, nothing changed" in result.stderr
    assert git(two, "status", "--porcelain") == ""


def test_no_remote_says_how_to_add_one(home: Path) -> None:
    result = mem(home, "sync", code=1)
    assert result.stderr == (
        f"mem: error: no git remote named 'origin' in {home} (it has none); add one with "
        f"`git -C {home} remote add origin URL` (an empty repository is fine: the first sync pushes to it), "
        "or name another: mem sync REMOTE\n"
    )


def test_hand_edits_are_refused_unless_committed(machines: tuple[Path, Path, Path]) -> None:
    _remote, one, _two = machines
    with (one / MEMORY).open("ab") as handle:
        handle.write(b"a note\n")
    (one / "scratch.txt").write_text("x\n")
    result = mem(one, "sync", code=1)
    assert result.stderr == (
        f"mem: error: 2 uncommitted change(s) in {one}: scratch.txt, {MEMORY}; sync merges commits only. "
        "Commit them with `mem sync --commit` (message 'mem: commit hand edits'), "
        f"or undo them with `git -C {one} restore -- PATH`\n"
    )
    name = branch(one)
    assert mem(one, "sync", "--commit").stdout == (
        f"committed hand edits\nsynced {name} with origin/{name}: received 0 commits, sent 1 commit\n"
    )
    assert git(one, "log", "-1", "--format=%s").strip() == "mem: commit hand edits"
    assert git(one, "status", "--porcelain") == ""


def test_commit_refuses_a_hand_edit_that_does_not_parse(machines: tuple[Path, Path, Path]) -> None:
    _remote, one, _two = machines
    (one / MEMORY).write_bytes(b"---\nscope: user:alice\nfacts: 7\n---\n")
    result = mem(one, "sync", "--commit", code=1)
    assert result.stderr == f"mem: error: {MEMORY}:3: `facts` must be a list\n"
    assert git(one, "log", "-1", "--format=%s").strip() != "mem: commit hand edits"


def test_plain_git_clone_gets_the_driver_registered_by_sync(machines: tuple[Path, Path, Path]) -> None:
    remote, _one, _two = machines
    three = remote.parent / "three"
    git(remote.parent, "clone", "--quiet", str(remote), str(three))
    result = mem(three, "sync")
    assert (
        result.stderr
        == f"mem: warning: registered the MEMORY.md merge driver in {three}/.git/config (it was missing)\n"
    )
    assert git(three, "config", "merge.mem.driver").strip() == "mem merge-driver %O %A %B %P"


def test_clone_of_an_empty_remote_starts_a_home_and_first_sync_pushes_it(isolated: Path, on_path: None) -> None:
    remote, home = isolated / "empty.git", isolated / "laptop"
    git(isolated, "init", "--quiet", "--bare", str(remote))
    result = runner.invoke(app, ["init", "--clone", str(remote), str(home)])
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(
        f"the remote was empty: started a new memory home there; `mem --home {home} sync` pushes it\n"
    )
    assert (home / "mem.toml").is_file()
    name = branch(home)
    out = mem(home, "sync").stdout
    assert out == f"synced {name} with origin/{name}: received 0 commits, sent 1 commit\n"  # clone set upstream
    assert git(home, "config", f"branch.{name}.remote").strip() == "origin"
    assert git(remote, "rev-parse", name) == git(home, "rev-parse", "HEAD")


def test_clone_refuses_a_folder_that_is_not_empty(isolated: Path) -> None:
    target = isolated / "busy"
    target.mkdir()
    (target / "file").write_text("x")
    result = runner.invoke(app, ["init", "--clone", str(isolated / "nowhere.git"), str(target)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"mem: error: {target} already exists and is not an empty folder; "
        "give the clone a new path: mem init --clone URL PATH\n"
    )


def test_homes_with_unrelated_histories_are_not_merged_silently(
    machines: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    remote, _one, _two = machines
    other = remote.parent / "other"
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Someone Else")  # else its first commit is the same commit
    init_home(other)
    git(other, "remote", "add", "origin", str(remote))
    result = mem(other, "sync", code=1)
    name = branch(other)
    assert result.stderr.startswith(f"mem: error: origin/{name} shares no history with {other}")
    assert f"merge --allow-unrelated-histories origin/{name}" in result.stderr


def test_a_push_that_loses_a_race_fetches_merges_and_pushes_again(
    machines: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memfiles.store import gitrepo

    _remote, one, two = machines
    real_push = gitrepo.push
    raced: list[bool] = []

    def push_after_one(root: Path, remote: str, branch: str, set_upstream: bool) -> tuple[bool, str]:
        if root == two and not raced:  # machine one pushes between two's fetch and two's push
            raced.append(True)
            mem(one, "add", "-u", "alice", "timezone", "UTC", "--at", "2026-06-01")
            mem(one, "sync")
        return real_push(root, remote, branch, set_upstream)

    monkeypatch.setattr(gitrepo, "push", push_after_one)
    mem(two, "add", "-u", "alice", "language", "fr", "--at", "2026-06-01")
    result = mem(two, "sync")
    name = branch(two)
    assert raced and result.stdout == f"synced {name} with origin/{name}: received 1 commit, sent 2 commits\n"
    mem(one, "sync")
    assert (one / MEMORY).read_bytes() == (two / MEMORY).read_bytes()
    assert {"timezone", "language"} <= {key for key, _value, _status in facts(one).values()}


def notes_conflict(one: Path, two: Path) -> None:
    """Both machines edited the same notes line: two's sync stops with markers in MEMORY.md's notes."""
    for home, note in ((one, b"written on one\n"), (two, b"written on two\n")):
        with (home / MEMORY).open("ab") as handle:
            handle.write(note)
    mem(one, "sync", "--commit")
    mem(two, "sync", "--commit", code=1)
    assert b"<<<<<<< ours" in (two / MEMORY).read_bytes()


def test_no_write_during_an_unfinished_merge(machines: tuple[Path, Path, Path]) -> None:
    _remote, one, two = machines
    notes_conflict(one, two)
    before, head = (two / MEMORY).read_bytes(), git(two, "rev-parse", "HEAD")
    for args in (
        ("add", "-u", "alice", "timezone", "UTC"),
        ("add", "-u", "bob", "timezone", "UTC"),  # a scope the merge did not touch
        ("episode", "Refund issued for order O-1", "-u", "alice"),
        ("forget", "-u", "alice", "plan_tier"),
    ):
        refused = mem(two, *args, code=1)
        assert refused.stderr.startswith(f"mem: error: an earlier `mem sync` left a merge unfinished in {two}")
        assert "then run `mem sync --commit`" in refused.stderr and f"git -C {two} merge --abort" in refused.stderr
    assert (two / MEMORY).read_bytes() == before and git(two, "rev-parse", "HEAD") == head
    assert not (two / "users" / "bob").exists() and not (two / "users" / "alice" / "episodes").exists()

    (two / MEMORY).write_bytes(re.sub(rb"(?m)^(<<<<<<< ours|=======|>>>>>>> theirs)\n", b"", before))
    mem(two, "sync", "--commit")
    mem(two, "add", "-u", "alice", "timezone", "UTC")  # writes again once the merge is done
    assert b"<<<<<<<" not in git(two, "show", "HEAD:" + MEMORY).encode()


def test_doctor_reports_an_unfinished_merge_and_its_markers(machines: tuple[Path, Path, Path]) -> None:
    _remote, one, two = machines
    notes_conflict(one, two)
    line = (two / MEMORY).read_bytes().split(b"\n").index(b"<<<<<<< ours") + 1
    report = mem(two, "doctor", code=1)
    assert ".git/MERGE_HEAD: an unfinished `mem sync` merge" in report.stdout
    assert f"{MEMORY}:{line}: conflict markers left by a merge" in report.stdout
    assert "uncommitted change" not in report.stdout  # the merge's changes are not doctor's to commit
    fixed = mem(two, "doctor", "--fix", code=1)
    assert b"<<<<<<< ours" in (two / MEMORY).read_bytes() and "MERGE_HEAD" in fixed.stdout
    git(two, "merge", "--abort")
    assert mem(two, "doctor").stdout == "healthy\n"


def test_markers_committed_by_hand_are_reported_by_doctor(home: Path) -> None:
    mem(home, "add", "-u", "alice", "plan_tier", "Pro")
    with (home / MEMORY).open("ab") as handle:
        handle.write(b"<<<<<<< ours\nmine\n=======\ntheirs\n>>>>>>> theirs\n")
    git(home, "commit", "--quiet", "-am", "a merge finished by hand, markers and all")
    report = mem(home, "doctor", code=1)
    assert f"{MEMORY}:" in report.stdout and "conflict markers left by a merge" in report.stdout


@pytest.mark.parametrize("missing", ["base", "ours", "theirs"])
def test_merge_driver_with_a_missing_file_says_which(isolated: Path, missing: str) -> None:
    files = {side: isolated / side for side in ("base", "ours", "theirs")}
    for side, path in files.items():
        if side != missing:
            path.write_bytes(b"---\nscope: user:alice\nfacts: []\n---\nnotes\n")
    result = runner.invoke(app, ["merge-driver", *(str(p) for p in files.values()), MEMORY])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        f"mem: error: mem merge-driver: cannot read the {missing} version {files[missing]}: "
    )
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_concurrent_syncs_of_five_clones_all_succeed_and_lose_nothing(
    machines: tuple[Path, Path, Path],
) -> None:
    """Five machines write, then sync at the same moment against one remote: each sync fetches, merges
    and pushes again until its push lands (docs/RELIABILITY.md, "Sync")."""
    remote, one, _two = machines
    clones = [one] + [remote.parent / f"clone{n}" for n in range(4)]
    for clone in clones[1:]:
        assert runner.invoke(app, ["init", "--clone", str(remote), str(clone)]).exit_code == 0
    for n, clone in enumerate(clones):
        mem(clone, "add", "-u", "alice", f"from_clone_{n}", f"value {n}", "--at", "2026-06-01")
        mem(clone, "add", "-u", f"user{n}", "timezone", f"UTC+{n}", "--at", "2026-06-01")
    wanted: dict[str, dict[str, tuple[str, str, str]]] = {}
    for n, clone in enumerate(clones):
        for path in (MEMORY, f"users/user{n}/MEMORY.md"):
            wanted.setdefault(path, {}).update(facts(clone, path))
    syncs = [
        subprocess.Popen(
            [shutil.which("mem") or "mem", "--home", str(c), "sync"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for c in clones
    ]
    said = [p.communicate(timeout=120)[1] for p in syncs]
    assert [p.returncode for p in syncs] == [0] * len(clones), said
    for clone in clones:  # the first to push has not yet seen the others' commits
        mem(clone, "sync")
    for clone in clones:
        for path, expected in wanted.items():
            assert expected.items() <= facts(clone, path).items(), (clone, path)
        assert (clone / MEMORY).read_bytes() == (clones[-1] / MEMORY).read_bytes()
    assert len({git(c, "rev-parse", "HEAD") for c in [*clones, remote]}) == 1


def test_a_remote_that_keeps_moving_stops_after_a_few_attempts_and_says_so(
    machines: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memfiles.ops import sync
    from memfiles.store import gitrepo

    _remote, one, two = machines
    real_push = gitrepo.push
    pushes: list[int] = []

    def always_second(root: Path, remote: str, branch: str, set_upstream: bool) -> tuple[bool, str]:
        if root == two:  # machine one pushes between each of two's fetches and its push
            pushes.append(1)
            mem(one, "add", "-u", "alice", f"race_{len(pushes)}", "v", "--at", "2026-06-01")
            mem(one, "sync")
        return real_push(root, remote, branch, set_upstream)

    monkeypatch.setattr(gitrepo, "push", always_second)
    monkeypatch.setattr(sync, "BACKOFF_SECONDS", (0.0, 0.0))
    mem(two, "add", "-u", "alice", "language", "fr", "--at", "2026-06-01")
    result = mem(two, "sync", code=1)
    assert len(pushes) == sync.SYNC_ATTEMPTS
    name = branch(two)
    assert result.stderr.startswith(
        f"mem: error: origin kept moving: another machine pushed to origin/{name} between mem's fetch and push "
        f"{sync.SYNC_ATTEMPTS} times in a row (git said: "
    )
    assert result.stderr.endswith("nothing is lost: run `mem sync` again\n")
    monkeypatch.setattr(gitrepo, "push", real_push)
    mem(two, "sync")  # once the remote stands still, the same commits go through
    mem(one, "sync")
    assert (one / MEMORY).read_bytes() == (two / MEMORY).read_bytes()
    assert {"language", "race_1", f"race_{sync.SYNC_ATTEMPTS}"} <= {key for key, _v, _s in facts(one).values()}
