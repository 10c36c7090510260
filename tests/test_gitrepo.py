"""gitrepo.commit: exactly the paths given, one commit, whatever else a person has staged or changed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memfiles import gitrepo
from memfiles.errors import GitError


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def commits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD"))


def changed_in_head(root: Path) -> list[str]:
    return git(root, "show", "--name-only", "--format=", "HEAD").split()


def test_commits_new_changed_and_removed_files_in_one_commit(home: Path) -> None:
    (home / "users" / "a").mkdir(parents=True)
    (home / "users" / "a" / "MEMORY.md").write_text("one\n")
    (home / "users" / "a" / "new.md").write_text("two\n")
    assert gitrepo.commit(home, ["users/a/MEMORY.md", "users/a/new.md"], "mem: first\n\nbody\n")
    before = commits(home)
    (home / "users" / "a" / "MEMORY.md").write_text("one, changed\n")
    (home / "users" / "a" / "new.md").unlink()
    assert gitrepo.commit(home, ["users/a/MEMORY.md", "users/a/new.md"], "mem: second\n")
    assert commits(home) == before + 1
    assert sorted(changed_in_head(home)) == ["users/a/MEMORY.md", "users/a/new.md"]
    assert git(home, "log", "-1", "--format=%s%n%an <%ae>") == "mem: second\nTest Person <test@example.invalid>\n"
    assert git(home, "status", "--porcelain") == ""
    assert "commit: mem: second" in git(home, "reflog", "-1")


def test_nothing_changed_makes_no_commit(home: Path) -> None:
    before = commits(home)
    assert not gitrepo.commit(home, ["mem.toml"], "mem: nothing\n")
    assert commits(home) == before


def test_a_persons_staged_and_unstaged_work_stays_out(home: Path) -> None:
    (home / "notes.txt").write_text("staged by a person\n")
    git(home, "add", "notes.txt")
    (home / ".gitattributes").write_text("changed by hand, not staged\n")
    (home / "users" / "a").mkdir(parents=True)
    (home / "users" / "a" / "MEMORY.md").write_text("mem's\n")
    assert gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: add\n")
    assert changed_in_head(home) == ["users/a/MEMORY.md"]
    assert git(home, "diff", "--cached", "--name-only") == "notes.txt\n"
    assert git(home, "diff", "--name-only") == ".gitattributes\n"


def test_a_persons_staged_work_with_nothing_of_mems_changed_makes_no_commit(home: Path) -> None:
    (home / "users" / "a").mkdir(parents=True)
    (home / "users" / "a" / "MEMORY.md").write_text("mem's\n")
    assert gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: add\n")
    before = commits(home)
    (home / "notes.txt").write_text("staged by a person\n")
    git(home, "add", "notes.txt")
    assert not gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: add again\n")
    assert commits(home) == before
    assert git(home, "diff", "--cached", "--name-only") == "notes.txt\n"


def test_mems_own_file_staged_by_a_person_is_committed_as_mem_wrote_it(home: Path) -> None:
    (home / "users" / "a").mkdir(parents=True)
    memory = home / "users" / "a" / "MEMORY.md"
    memory.write_text("one\n")
    assert gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: add\n")
    memory.write_text("a person's edit\n")
    git(home, "add", "users/a/MEMORY.md")
    memory.write_text("two\n")
    assert gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: change\n")
    assert git(home, "show", "HEAD:users/a/MEMORY.md") == "two\n"
    assert git(home, "status", "--porcelain") == ""


def test_the_fallback_identity_is_used_when_git_has_none(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(var)
    (home / "users" / "b").mkdir(parents=True)
    (home / "users" / "b" / "MEMORY.md").write_text("x\n")
    assert gitrepo.commit(home, ["users/b/MEMORY.md"], "mem: add\n")
    assert git(home, "log", "-1", "--format=%an <%ae>|%cn <%ce>") == "mem <mem@localhost>|mem <mem@localhost>\n"


def test_the_trees_a_commit_writes_are_stored_uncompressed_and_valid(home: Path) -> None:
    # Deflating a 10,000-scope home's top tree (mostly object ids) was 8 ms of every commit.
    names = [f"users/u{n:05d}/MEMORY.md" for n in range(300)]
    for name in names:
        (home / name).parent.mkdir(parents=True)
        (home / name).write_text(f"{name}\n" + "x\n" * 2000)
    assert gitrepo.commit(home, names, "mem: add\n")
    tree = git(home, "rev-parse", "HEAD:users").strip()
    stored = home / ".git" / "objects" / tree[:2] / tree[2:]
    assert stored.stat().st_size > int(git(home, "cat-file", "-s", tree))  # zlib's stored blocks, no deflate
    blob = git(home, "rev-parse", f"HEAD:{names[0]}").strip()
    assert (home / ".git" / "objects" / blob[:2] / blob[2:]).stat().st_size < 400  # files are still deflated
    assert git(home, "fsck", "--full", "--no-dangling") == ""


def test_a_head_moved_during_the_commit_is_not_overwritten(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (home / "users" / "a").mkdir(parents=True)
    (home / "users" / "a" / "MEMORY.md").write_text("mem's\n")

    def someone_commits(name: str) -> None:  # between writing the commit object and moving HEAD
        git(home, "commit", "--quiet", "--allow-empty", "-m", "someone else")

    monkeypatch.setattr(gitrepo, "crash_point", someone_commits)
    with pytest.raises(GitError, match="update-ref"):
        gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: add\n")
    assert git(home, "log", "-1", "--format=%s") == "someone else\n"
