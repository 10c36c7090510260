"""gitrepo.commit: exactly the paths given, one commit, whatever else a person has staged or changed;
and a write whose commit fails is undone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from memfiles.cli import app
from memfiles.errors import GitError
from memfiles.format.layout import Paths, Scope
from memfiles.ops import commit
from memfiles.store import gitrepo

runner = CliRunner()


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
    assert git(home, "log", "-1", "--format=%B") == "mem: second\n\n"  # the message as mem wrote it


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
    for round_ in range(3):
        (root / "users" / f"u{round_}").mkdir(parents=True)
        (root / "users" / f"u{round_}" / "MEMORY.md").write_text(f"{round_}\n")
        assert gitrepo.commit(root, [f"users/u{round_}/MEMORY.md"], f"mem: add {round_}\n")
        consistent(root)
    assert commits(root) == 3


@pytest.mark.parametrize("case", ["executable", "symlink", "filemode", "shared"])
def test_modes_links_and_repository_settings_are_committed_as_git_sees_them(home: Path, case: str) -> None:
    (home / "users" / "a").mkdir(parents=True)
    path = home / "users" / "a" / "MEMORY.md"
    path.write_text("x\n")
    if case == "executable":
        path.chmod(0o755)
    elif case == "symlink":
        path.unlink()
        path.symlink_to("elsewhere.md")
    elif case == "filemode":
        git(home, "config", "core.filemode", "false")
    else:
        git(home, "config", "core.sharedRepository", "group")
    assert gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: add\n")
    assert changed_in_head(home) == ["users/a/MEMORY.md"]
    mode = git(home, "ls-tree", "HEAD", "users/a/MEMORY.md").split()[0]
    assert mode == {"executable": "100755", "symlink": "120000"}.get(case, "100644")
    assert git(home, "status", "--porcelain") == ""


def test_thousands_of_paths_with_any_characters_in_one_commit(home: Path) -> None:
    """More paths than a command line holds, named literally: `*` and `[x]` are names, not patterns."""
    names = [f"users/u{n % 20:02d}/episodes/2026/08/e {n:04d} é.md" for n in range(2000)]
    names += ["users/a/*.md", "users/a/[x].md"]
    for name in names:
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(f"{name}\n")
    (home / "users" / "a" / "other.md").write_text("a person's, matched by the glob *.md\n")
    assert gitrepo.commit(home, names, "mem: episodes (2002)\n")
    assert sorted(named_in_head(home)) == sorted(names)
    assert git(home, "status", "--porcelain", "--untracked-files=all") == "?? users/a/other.md\n"
    (home / names[0]).unlink()
    assert gitrepo.commit(home, names[:1], "mem: remove\n")
    assert named_in_head(home) == names[:1] == ["users/u00/episodes/2026/08/e 0000 é.md"]
    assert names[0] not in git(home, "ls-tree", "-r", "-z", "--name-only", "HEAD").split("\0")


def named_in_head(root: Path) -> list[str]:
    return [p for p in git(root, "show", "--name-only", "-z", "--format=", "HEAD").strip("\n").split("\0") if p]


def test_a_path_git_never_knew_and_that_is_gone_is_nothing_to_commit(home: Path) -> None:
    before = commits(home)
    assert not gitrepo.commit(home, ["users/a/never.md"], "mem: remove\n")
    assert commits(home) == before


def test_git_missing_from_path_is_a_git_error(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (home / "users" / "a").mkdir(parents=True)
    (home / "users" / "a" / "MEMORY.md").write_text("x\n")
    monkeypatch.setenv("PATH", str(home / "nowhere"))
    with pytest.raises(GitError, match="git is not installed or not on PATH"):
        gitrepo.commit(home, ["users/a/MEMORY.md"], "mem: add\n")


# --- a failed commit leaves nothing written (issue 29, item 5) -------------------------------------


def stale_lock(home: Path) -> None:
    (home / ".git" / "index.lock").write_text("")  # what a killed git process leaves behind


def test_a_failed_commit_undoes_the_write_and_says_what_to_do(home: Path) -> None:
    assert runner.invoke(app, ["add", "-u", "a", "channel", "sms", "--at", "2026-03-14"]).exit_code == 0
    memory = home / "users" / "a" / "MEMORY.md"
    before, head = memory.read_bytes(), git(home, "rev-parse", "HEAD")
    stale_lock(home)
    failed = runner.invoke(app, ["add", "-u", "a", "diet", "vegan", "--at", "2026-03-15"])
    assert failed.exit_code == 1
    assert failed.stderr.startswith(f"mem: error: git add failed in {home}: fatal: Unable to create ")
    assert f"remove {home}/.git/index.lock" in failed.stderr and "try again" in failed.stderr
    assert failed.stderr.endswith("The write was undone: users/a/MEMORY.md is as before\n")
    assert memory.read_bytes() == before and git(home, "rev-parse", "HEAD") == head
    (home / ".git" / "index.lock").unlink()
    assert git(home, "status", "--porcelain", "--untracked-files=all") == ""

    assert runner.invoke(app, ["add", "-u", "a", "tz", "UTC", "--at", "2026-03-16"]).exit_code == 0
    change = git(home, "show", "--format=%s", "HEAD")
    assert change.startswith("mem: add user:a tz\n")
    assert "+  value: UTC" in change and "vegan" not in change


def test_a_failed_commit_of_episodes_leaves_no_episode_file(home: Path) -> None:
    stale_lock(home)
    failed = runner.invoke(app, ["episode", "Refund issued for order O-1", "-u", "a", "--at", "2026-03-14"])
    assert failed.exit_code == 1 and "index.lock" in failed.stderr
    assert not list((home / "users").rglob("*.md"))
    (home / ".git" / "index.lock").unlink()
    assert git(home, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_failed_consolidation_commit_puts_every_file_back(home: Path) -> None:
    scope = Scope("user", "a")
    paths = Paths(home)
    for name, text in (("MEMORY.md", "---\nscope: user:a\nfacts: []\n---\n# notes\n"), ("episodes/e1.md", "one\n")):
        (home / "users/a" / name).parent.mkdir(parents=True, exist_ok=True)
        (home / "users/a" / name).write_text(text)
    gitrepo.commit(home, ["users/a/MEMORY.md", "users/a/episodes/e1.md"], "test: seed\n")
    before = {p: p.read_bytes() for p in (home / "users").rglob("*") if p.is_file()}
    changes = commit.FileChanges(
        writes=[
            (home / "users/a/MEMORY.md", "users/a/MEMORY.md", b"---\nscope: user:a\nfacts: []\n---\n# changed\n"),
            (home / "users/a/DIGEST.md", "users/a/DIGEST.md", b"# digest\n"),
        ],
        removes=[(home / "users/a/episodes/e1.md", "users/a/episodes/e1.md")],
        message="mem: consolidate user:a\n",
    )
    stale_lock(home)
    with pytest.raises(GitError, match=r"index\.lock.*The write was undone: users/a/MEMORY\.md, users/a/DIGEST\.md"):
        commit.apply_files(paths, scope, lambda _files: (None, changes))
    assert {p: p.read_bytes() for p in (home / "users").rglob("*") if p.is_file()} == before
    (home / ".git" / "index.lock").unlink()
    assert git(home, "status", "--porcelain", "--untracked-files=all") == ""


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


def test_a_worktree_whose_git_folder_is_elsewhere_is_refused(home: Path) -> None:
    # A `.git` file (a worktree, a submodule, or one planted in a clone) would let the folder choose the
    # repository git opens: a home keeps its own git folder, and memfiles runs git in no other.
    worktree = home.parent / "worktree"
    git(home, "worktree", "add", "--quiet", str(worktree))
    assert (worktree / ".git").is_file()
    (worktree / "users" / "a").mkdir(parents=True)
    (worktree / "users" / "a" / "MEMORY.md").write_text("x\n")
    before = git(home, "rev-parse", "HEAD")
    with pytest.raises(GitError, match=r"\.git is not a folder: a memory home keeps its own git folder"):
        gitrepo.commit(worktree, ["users/a/MEMORY.md"], "mem: add\n")
    assert git(home, "rev-parse", "HEAD") == before
    assert git(worktree, "status", "--porcelain") == "?? users/\n"
