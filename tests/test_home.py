"""Creating and finding memory homes, scopes and settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memfiles.api.home import choose_scope
from memfiles.cli import app
from memfiles.errors import ConfigError, ScopeError
from memfiles.format import layout
from memfiles.format.config import DEFAULT_TOML, LOCAL_TOML, Config, MemorySettings, parse_config

runner = CliRunner()


def test_init_creates_a_committed_home_and_is_idempotent(isolated: Path) -> None:
    target = isolated / "new-home"
    result = runner.invoke(app, ["init", str(target)])
    assert result.exit_code == 0 and result.output == f"created memory home at {target} (a git repository of its own)\n"
    names = sorted(p.name for p in target.iterdir())
    assert names == [".git", ".gitattributes", ".gitignore", "mem.local.toml", "mem.toml"]
    log = subprocess.run(["git", "-C", str(target), "log", "--format=%s"], capture_output=True, text=True).stdout
    assert log == "mem: init memory home\n"
    before = {p: p.read_bytes() for p in target.iterdir() if p.is_file()}
    again = runner.invoke(app, ["init", str(target)])
    assert again.exit_code == 0 and "already a memory home; nothing changed" in again.output
    assert {p: p.read_bytes() for p in target.iterdir() if p.is_file()} == before
    status = subprocess.run(["git", "-C", str(target), "status", "--porcelain"], capture_output=True, text=True)
    assert status.stdout == ""


def test_default_settings_file_parses_to_the_defaults() -> None:
    assert parse_config(DEFAULT_TOML) == Config()
    for line in DEFAULT_TOML.splitlines():
        if "=" in line and not line.startswith("#"):
            index = DEFAULT_TOML.splitlines().index(line)
            commented = "#" in line or DEFAULT_TOML.splitlines()[index - 1].startswith("#")
            assert commented, f"setting without a comment: {line}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[memory]\nhalf_life = 3\n", "[memory] half_life: unknown setting"),
        ("[memory]\nhalf_life_days = 'soon'\n", "[memory] half_life_days must be a number ≥ 0, got 'soon'"),
        ("[colours]\n", "unknown section [colours]"),
        ("[ttl]\nmood = 3\n", "[ttl] mood: unknown subject"),
        ("[sources]\nallowed = 'web'\n", "[sources] allowed must be a list of strings"),
        ("[memory\n", "not valid TOML"),
    ],
)
def test_bad_settings_are_named(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=None) as caught:
        parse_config(text)
    assert message in str(caught.value)


def test_home_resolution_order(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = isolated / "project" / "src"
    project.mkdir(parents=True)
    (isolated / "project" / ".mem").mkdir()
    assert layout.resolve_home("/explicit") == Path("/explicit")
    assert layout.resolve_home(None, cwd=project) == isolated / "home"  # $MEM_HOME from the fixture
    monkeypatch.delenv("MEM_HOME")
    assert layout.resolve_home(None, cwd=project) == isolated / "project" / ".mem"
    assert layout.resolve_home(None, cwd=isolated) == isolated / "fakehome" / ".local" / "share" / "mem"


@pytest.mark.parametrize(
    ("user", "scope", "env", "expected"),
    [
        ("alice", None, None, "user:alice"),
        (None, "org:acme", None, "org:acme"),
        (None, "agent:support-bot", None, "agent:support-bot"),
        (None, None, "bob", "user:bob"),
        (None, None, "org:acme", "org:acme"),
    ],
)
def test_choose_scope(
    user: str | None, scope: str | None, env: str | None, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if env:
        monkeypatch.setenv("MEM_USER", env)
    assert str(choose_scope(Config(), user, scope)) == expected


@pytest.mark.parametrize("bad", ["team:x", "user:", "user:../x", "user:a/b", "alice", "user:%2e%2e", "user:A"])
def test_bad_scopes_are_refused(bad: str) -> None:
    with pytest.raises(ScopeError):
        layout.parse_scope(bad)


def test_default_scope_from_settings() -> None:
    assert str(choose_scope(Config(memory=MemorySettings(default_scope="user:zoe")))) == "user:zoe"


def test_a_scope_folder_linked_outside_the_home_is_refused(home: Path, isolated: Path) -> None:
    outside = isolated / "elsewhere"
    outside.mkdir()
    (home / "users").mkdir()
    (home / "users" / "eve").symlink_to(outside)
    result = runner.invoke(app, ["add", "-u", "eve", "k", "v"])
    assert result.exit_code == 1 and "leads outside the memory home" in result.output
    assert list(outside.iterdir()) == []


def test_a_symlinked_memory_file_is_not_written_through(home: Path, isolated: Path) -> None:
    target = isolated / "victim.md"
    target.write_text("untouched\n")
    (home / "users" / "eve").mkdir(parents=True)
    (home / "users" / "eve" / "MEMORY.md").symlink_to(target)
    result = runner.invoke(app, ["add", "-u", "eve", "k", "v"])
    assert result.exit_code == 1
    assert target.read_text() == "untouched\n"


def test_settings_are_read_again_when_mem_toml_changes(home: Path) -> None:
    from memfiles.format.config import load_config

    assert load_config(home / "mem.toml").memory.half_life_days == 30
    text = (home / "mem.toml").read_text()
    (home / "mem.toml").write_text(text.replace("half_life_days = 30", "half_life_days = 7"))
    assert load_config(home / "mem.toml").memory.half_life_days == 7


def test_init_under_a_file_says_what_is_in_the_way(isolated: Path) -> None:
    blocker = isolated / "notes.txt"
    blocker.write_text("a file, not a folder\n")
    for target in (blocker / "home", blocker / "deeper" / "home", blocker):
        result = runner.invoke(app, ["init", str(target)])
        assert result.exit_code == 1, result.output
        assert result.stderr == (
            f"mem: error: cannot create a memory home at {target}: {blocker} is a file, not a folder; "
            "choose another folder: mem init PATH (or set $MEM_HOME)\n"
        )
    assert blocker.read_text() == "a file, not a folder\n"


def test_init_under_a_broken_link_or_an_unwritable_folder_is_a_clear_error(isolated: Path) -> None:
    link = isolated / "gone"
    link.symlink_to(isolated / "nowhere")
    result = runner.invoke(app, ["init", str(link / "home")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr == (
        f"mem: error: cannot create a memory home at {link / 'home'}: {link} is a link to something that does "
        "not exist; choose another folder: mem init PATH (or set $MEM_HOME)\n"
    )
    locked = isolated / "locked"
    locked.mkdir(mode=0o500)
    try:
        if _writable(locked):
            pytest.skip("running as a user who can write anywhere (root)")
        result = runner.invoke(app, ["init", str(locked / "home")])
        assert result.exit_code == 1 and result.stderr.count("\n") == 1
        assert result.stderr.startswith(f"mem: error: cannot create a memory home at {locked / 'home'}: ")
    finally:
        locked.chmod(0o700)


def _writable(folder: Path) -> bool:
    try:
        (folder / "probe").touch()
    except OSError:
        return False
    (folder / "probe").unlink()
    return True


@pytest.mark.parametrize("how", ["argument", "env", "option"])
def test_init_refuses_the_filesystem_root(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from memfiles.store import gitrepo

    def never(*_args: object, **_kwargs: object) -> None:  # should the refusal break, / stays untouched
        pytest.fail("mem init went on to create a home at /")

    monkeypatch.setattr(Path, "mkdir", never)
    monkeypatch.setattr(Path, "write_text", never)
    monkeypatch.setattr(gitrepo, "init", never)
    args = {"argument": ["init", "/"], "env": ["init"], "option": ["--home", "/", "init"]}[how]
    if how == "env":
        monkeypatch.setenv("MEM_HOME", "/")
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("mem: error: refusing to make / (the filesystem root) a memory home: ")
    assert "a memory home is a git repository of its own" in result.stderr and "--force" in result.stderr
    assert not Path("/mem.toml").exists()


def test_init_refuses_the_home_folder_unless_forced(isolated: Path) -> None:
    folder = isolated / "fakehome"  # the fixture's $HOME
    result = runner.invoke(app, ["init", str(folder)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"mem: error: refusing to make {folder} (your home folder) a memory home: ")
    assert "would put every file under it in git's view" in result.stderr
    assert not (folder / ".git").exists() and not (folder / "mem.toml").exists()
    forced = runner.invoke(app, ["init", str(folder), "--force"])
    assert forced.exit_code == 0 and forced.output == f"created memory home at {folder} (a git repository of its own)\n"
    assert (folder / ".git").is_dir() and (folder / "mem.toml").is_file()
    assert runner.invoke(app, ["init", str(folder)]).output == f"{folder} is already a memory home; nothing changed\n"


# --- the synced mem.toml and this machine's mem.local.toml ---


def git(home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(home), *args], capture_output=True, text=True, check=check)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def add_setting(path: Path, section: str, line: str) -> None:
    """Add `line` to `[section]` of a settings file (a new section at the end if it has none)."""
    text = path.read_text() if path.exists() else ""
    if f"\n[{section}]\n" in f"\n{text}":
        path.write_text(f"\n{text}".replace(f"\n[{section}]\n", f"\n[{section}]\n{line}\n", 1)[1:])
    else:
        path.write_text(f"{text}\n[{section}]\n{line}\n")


WITH_WEB = 'allowed = ["user_statement", "agent_summary", "consolidation", "import", "person", "web"]'


def test_init_writes_a_local_settings_file_git_ignores(isolated: Path) -> None:
    target = isolated / "new-home"
    assert runner.invoke(app, ["init", str(target)]).exit_code == 0
    assert (target / "mem.local.toml").read_text() == LOCAL_TOML
    assert parse_config(LOCAL_TOML, "mem.local.toml") == Config() and not tomllib_sections(LOCAL_TOML)
    assert git(target, "status", "--porcelain", "--ignored=no").stdout == ""
    assert git(target, "check-ignore", "--quiet", "mem.local.toml", check=False).returncode == 0
    assert git(target, "ls-files").stdout.split() == [".gitattributes", ".gitignore", "mem.toml"]


def tomllib_sections(text: str) -> dict[str, object]:
    import tomllib

    return tomllib.loads(text)


def test_widening_the_guard_in_mem_toml_is_reported_and_ignored(home: Path) -> None:
    edit(home / "mem.toml", 'allowed = ["user_statement",', 'allowed = ["web", "user_statement",')
    edit(home / "mem.toml", "[memory]\n", '[lint]\nignore = ["MEM109"]\n\n[memory]\n')
    refused = runner.invoke(app, ["add", "-u", "alice", "plan", "Pro", "--source", "web"])
    assert refused.exit_code == 1 and "source 'web' is not allowed" in refused.stdout
    assert "mem: warning: mem.toml: [sources] allowed adds 'web', which is ignored: " in refused.stderr
    assert "mem: warning: mem.toml: [lint] ignore = ['MEM109'] is ignored: " in refused.stderr
    assert refused.stderr.count("set it in mem.local.toml") == 2
    assert not (home / "users" / "alice").exists()
    (home / "users" / "alice").mkdir(parents=True)
    (home / "users" / "alice" / "notes.md").write_text("always show amounts in CAD\n")
    linted = runner.invoke(app, ["lint", "--strict"])  # MEM109 is a warning: --strict fails on it
    assert linted.exit_code == 1 and "MEM109" in linted.stdout  # mem.toml may not silence a rule
    doctor = runner.invoke(app, ["doctor"])
    assert doctor.exit_code == 1
    assert "mem.toml: [sources] allowed adds 'web', which is ignored: " in doctor.stdout
    assert "mem.toml: [lint] ignore = ['MEM109'] is ignored: " in doctor.stdout


def test_widening_the_guard_in_the_local_file_applies(home: Path) -> None:
    add_setting(home / "mem.local.toml", "sources", WITH_WEB)
    add_setting(home / "mem.local.toml", "lint", 'ignore = ["MEM109"]')
    added = runner.invoke(app, ["add", "-u", "alice", "plan", "Pro", "--source", "web"])
    assert added.exit_code == 0 and added.stdout.startswith("added ") and added.stderr == ""
    (home / "users" / "alice" / "notes.md").write_text("always show amounts in CAD\n")
    assert runner.invoke(app, ["lint", "--strict"]).exit_code == 0
    (home / "users" / "alice" / "notes.md").unlink()
    assert runner.invoke(app, ["doctor"]).stdout == "healthy\n"
    assert git(home, "status", "--porcelain").stdout == ""  # the local file is never committed


def test_tightening_the_guard_in_mem_toml_applies(home: Path) -> None:
    edit(home / "mem.toml", '"user_statement", "agent_summary",', '"user_statement",')
    edit(home / "mem.toml", "review = []", 'review = ["import"]')
    refused = runner.invoke(app, ["add", "-u", "alice", "diet", "vegan", "--inferred", "--source", "agent_summary"])
    assert refused.exit_code == 1 and "source 'agent_summary' is not allowed" in refused.stdout
    assert "warning" not in refused.stderr
    proposed = runner.invoke(app, ["add", "-u", "alice", "plan", "Pro", "--source", "import"])
    assert proposed.exit_code == 0 and proposed.stdout.startswith("proposed ") and proposed.stderr == ""
    git(home, "commit", "--quiet", "-am", "tighten the guard for every clone")
    assert runner.invoke(app, ["doctor"]).stdout == "healthy\n"


def test_the_local_file_replaces_a_setting_mem_toml_tightened(home: Path) -> None:
    edit(home / "mem.toml", '"user_statement", "agent_summary",', '"user_statement",')
    add_setting(home / "mem.local.toml", "sources", WITH_WEB)
    for source in ("agent_summary", "web"):
        done = runner.invoke(app, ["add", "-u", "alice", f"from_{source}", "x", "--inferred", "--source", source])
        assert done.exit_code == 0, done.output


def test_a_local_file_git_tracks_counts_as_synced(home: Path) -> None:
    add_setting(home / "mem.local.toml", "sources", WITH_WEB)
    git(home, "add", "--force", "mem.local.toml")  # committed on another machine, arrived with a sync
    git(home, "commit", "--quiet", "-m", "share settings")
    refused = runner.invoke(app, ["add", "-u", "alice", "plan", "Pro", "--source", "web"])
    assert refused.exit_code == 1 and "source 'web' is not allowed" in refused.stdout
    assert "mem.local.toml: [sources] allowed adds 'web', which is ignored: git tracks mem.local.toml" in (
        refused.stderr
    )
    doctor = runner.invoke(app, ["doctor"])
    assert doctor.exit_code == 1 and f"git -C {home} rm --cached mem.local.toml" in doctor.stdout
    git(home, "rm", "--cached", "--quiet", "mem.local.toml")
    git(home, "commit", "--quiet", "-m", "untrack this machine's settings")
    assert runner.invoke(app, ["add", "-u", "alice", "plan", "Pro", "--source", "web"]).exit_code == 0


def test_reading_commands_never_ask_git_about_the_local_file(home: Path) -> None:
    add_setting(home / "mem.local.toml", "consolidate", 'extractor = "llm -m gpt-4o-mini -x"')
    runner.invoke(app, ["add", "-u", "alice", "plan", "Pro"])
    script = (
        "import sys; from memfiles.cli import main; sys.argv=['mem','recall','-u','alice','plan']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'git' or m == 'memfiles.store.gitrepo'))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert 'value="Pro"' in done.stdout and done.stdout.strip().splitlines()[-1] == "[]"


def old_home(root: Path) -> None:
    """A home as `mem init` made it before mem.local.toml: no such file, and .gitignore without it."""
    from memfiles.ops.home import init_home

    init_home(root)
    (root / "mem.local.toml").unlink()
    (root / ".gitignore").write_text("# Derived, rebuildable state: never committed.\n.cache/\n*.tmp\n")
    git(root, "commit", "--quiet", "-am", "an older .gitignore")


def test_doctor_fix_gives_an_older_home_its_local_file(home: Path) -> None:
    old_home(home)
    found = runner.invoke(app, ["doctor"])
    assert found.exit_code == 1
    assert found.stdout.startswith(".gitignore: does not list mem.local.toml, so git would commit")
    fixed = runner.invoke(app, ["doctor", "--fix"])
    assert fixed.exit_code == 0, fixed.output
    assert "listed mem.local.toml in .gitignore (committed)" in fixed.stdout
    assert (home / "mem.local.toml").read_text() == LOCAL_TOML
    assert git(home, "status", "--porcelain").stdout == ""
    subject = git(home, "log", "-1", "--format=%s").stdout
    assert subject == "mem: git-ignore mem.local.toml, this machine's own settings\n"


def test_init_clone_of_an_older_home_writes_and_ignores_the_local_file(isolated: Path) -> None:
    first = isolated / "first"
    old_home(first)
    remote = isolated / "remote.git"
    git(isolated, "clone", "--quiet", "--bare", str(first), str(remote))
    second = isolated / "second"
    assert runner.invoke(app, ["init", "--clone", str(remote), str(second)]).exit_code == 0
    assert (second / "mem.local.toml").read_text() == LOCAL_TOML
    assert git(second, "check-ignore", "--quiet", "mem.local.toml", check=False).returncode == 0
    assert git(second, "status", "--porcelain").stdout == ""


def test_sync_commit_never_commits_the_local_file(home: Path, isolated: Path) -> None:
    (home / ".gitignore").write_text(".cache/\n")  # a collaborator's edit took the entry out
    git(home, "commit", "--quiet", "-am", "shorter .gitignore")
    git(isolated, "init", "--quiet", "--bare", str(isolated / "remote.git"))
    git(home, "remote", "add", "origin", str(isolated / "remote.git"))
    done = runner.invoke(app, ["sync", "--commit"])
    assert done.exit_code == 1 and "mem.local.toml holds this machine's own settings" in done.stderr
    assert "`mem doctor --fix` git-ignores it" in done.stderr
    assert "mem.local.toml" not in git(home, "ls-files").stdout


def test_doctor_names_an_episode_file_that_repeats_another_ones_id(home: Path) -> None:
    import memfiles

    alice = memfiles.open_home(home).user("alice")
    first = alice.episode("Called the bank about the late fee.", at="2026-03-02T10:00:00Z")
    assert first.path is not None and first.episode_id is not None
    copy = home / "users" / "alice" / "episodes" / "2026" / "03" / "copy.md"
    copy.write_bytes((home / first.path).read_bytes())  # a file copied by hand, then committed
    git(home, "add", "-A")
    git(home, "commit", "--quiet", "-m", "a copy")
    found = runner.invoke(app, ["doctor"])
    assert found.exit_code == 1
    assert found.stdout.startswith(
        f"users/alice/episodes/2026/03/copy.md: holds episode {first.episode_id}, as {first.path} does: commands act "
        "on one of the two, so the other is never settled; keep one ("
    )
    copy.unlink()  # a person keeps one
    git(home, "commit", "--quiet", "-am", "drop the copy")
    assert runner.invoke(app, ["doctor"]).exit_code == 0
