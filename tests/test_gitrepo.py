"""gitrepo.commit: exactly the paths given, one commit, whatever else a person has staged or changed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfiles.errors import GitError
from memfiles.store import gitrepo


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


def consistent(root: Path) -> None:
    """The index's tree is HEAD's and nothing is left uncommitted: git sees what the commit's own trees say."""
    assert git(root, "write-tree") == git(root, "rev-parse", "HEAD^{tree}")
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(root, "fsck", "--full", "--no-dangling", "--strict") == ""


def test_new_folders_and_a_folder_emptied_by_a_removal(home: Path) -> None:
    names = ["users/a/MEMORY.md", "users/a/episodes/2026/08/one.md", "users/b/MEMORY.md"]
    for name in names:
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(f"{name}\n")
    assert gitrepo.commit(home, names, "mem: add\n")
    consistent(home)
    (home / names[1]).unlink()
    assert gitrepo.commit(home, [names[1]], "mem: remove\n")
    consistent(home)
    assert git(home, "ls-tree", "-r", "--name-only", "HEAD", "users").split() == [names[0], names[2]]
    assert changed_in_head(home) == [names[1]]


def test_the_commit_is_made_on_head_not_on_what_a_person_staged(home: Path) -> None:
    (home / "users" / "a").mkdir(parents=True)
    (home / "users" / "a" / "MEMORY.md").write_text("one\n")
    (home / "users" / "a" / "notes.md").write_text("a person's notes\n")
    git(home, "add", "users/a/notes.md")  # in the same folder as mem's file
    assert gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: add\n")
    assert git(home, "ls-tree", "--name-only", "HEAD", "users/a/") == "users/a/MEMORY.md\n"
    assert git(home, "diff", "--cached", "--name-only") == "users/a/notes.md\n"


def test_a_clean_filter_applies_to_what_is_committed(home: Path) -> None:
    git(home, "config", "filter.upper.clean", "tr a-z A-Z")
    (home / ".gitattributes").write_text("*.md filter=upper\n")
    git(home, "add", ".gitattributes")
    git(home, "commit", "--quiet", "-m", "attributes")
    (home / "users" / "a").mkdir(parents=True)
    (home / "users" / "a" / "MEMORY.md").write_text("lower case\n")
    assert gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: add\n")
    assert git(home, "show", "HEAD:users/a/MEMORY.md") == "LOWER CASE\n"
    assert git(home, "status", "--porcelain") == ""


def test_a_sha256_repository(isolated: Path) -> None:
    root = isolated / "sha256"
    root.mkdir()
    git(root, "init", "--quiet", "--object-format=sha256")
    for round_ in range(3):  # the first commit takes the porcelain way, the others the trees
        (root / "users" / f"u{round_}").mkdir(parents=True)
        (root / "users" / f"u{round_}" / "MEMORY.md").write_text(f"{round_}\n")
        assert gitrepo.commit(root, [f"users/u{round_}/MEMORY.md"], f"mem: add {round_}\n")
        consistent(root)
    assert commits(root) == 3


@pytest.mark.parametrize("case", ["executable", "symlink", "filemode", "shared"])
def test_what_needs_the_porcelain_way_is_committed_as_well(
    home: Path, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gitrepo, "_settings_of", {})  # the home's first commit learnt its settings
    taken: list[str] = []
    porcelain = gitrepo._commit_paths
    monkeypatch.setattr(gitrepo, "_commit_paths", lambda *a: taken.append("porcelain") or porcelain(*a))
    (home / "users" / "a").mkdir(parents=True)
    path = home / "users" / "a" / "MEMORY.md"
    path.write_text("x\n")
    if case == "executable":
        path.chmod(0o755)
    elif case == "symlink":
        path.unlink()
        path.symlink_to("elsewhere.md")
    else:
        git(
            home,
            "config",
            "core.filemode" if case == "filemode" else "core.sharedRepository",
            "false" if case == "filemode" else "group",
        )
    assert gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: add\n")
    assert taken == ["porcelain"]
    assert changed_in_head(home) == ["users/a/MEMORY.md"]
    assert git(home, "status", "--porcelain") == ""


def test_the_usual_way_is_taken_on_a_plain_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gitrepo, "_commit_paths", lambda *a: pytest.fail("took the porcelain way"))
    (home / "users" / "a").mkdir(parents=True)
    (home / "users" / "a" / "MEMORY.md").write_text("x\n")
    assert gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: add\n")
    consistent(home)


FILES = [f"users/{user}/{name}" for user in ("a", "b") for name in ("MEMORY.md", "episodes/2026/08/e.md", "x/y/z.md")]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rounds=st.lists(
        st.dictionaries(st.sampled_from(FILES), st.sampled_from(["", "one\n", "two\n"]), min_size=1),
        min_size=1,
        max_size=4,
    )
)
def test_any_sequence_of_writes_and_removals_leaves_head_equal_to_the_index(
    home: Path, rounds: list[dict[str, str]]
) -> None:
    """Each round writes ("one", "two") or removes ("") some files and commits them: HEAD is the index's tree."""
    for round_ in rounds:
        for name, text in round_.items():
            path = home / name
            if text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            else:
                path.unlink(missing_ok=True)
        before = git(home, "rev-parse", "HEAD")
        made = gitrepo.commit(home, sorted(round_), "mem: round\n")
        assert made == (git(home, "rev-parse", "HEAD") != before)
        consistent(home)
    for name in FILES:  # leave the home as the next example expects to find it
        (home / name).unlink(missing_ok=True)
    gitrepo.commit(home, FILES, "mem: clean\n")


def test_a_worktree_whose_git_folder_is_elsewhere(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    worktree = home.parent / "worktree"
    git(home, "worktree", "add", "--quiet", str(worktree))
    assert (worktree / ".git").is_file()
    (worktree / "users" / "a").mkdir(parents=True)
    (worktree / "users" / "a" / "MEMORY.md").write_text("x\n")
    assert gitrepo.commit(worktree, ["users/a/MEMORY.md"], "mem: add\n")
    assert changed_in_head(worktree) == ["users/a/MEMORY.md"]
    assert git(worktree, "status", "--porcelain") == ""
