"""Creating and finding memory homes, scopes and settings."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memfiles.api.home import choose_scope
from memfiles.cli import app
from memfiles.errors import ConfigError, ScopeError
from memfiles.format import layout
from memfiles.format.config import DEFAULT_TOML, Config, MemorySettings, parse_config

runner = CliRunner()


def test_init_creates_a_committed_home_and_is_idempotent(isolated: Path) -> None:
    target = isolated / "new-home"
    result = runner.invoke(app, ["init", str(target)])
    assert result.exit_code == 0 and result.output == f"created memory home at {target}\n"
    assert sorted(p.name for p in target.iterdir()) == [".git", ".gitattributes", ".gitignore", "mem.toml"]
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
    assert forced.exit_code == 0 and forced.output == f"created memory home at {folder}\n"
    assert (folder / ".git").is_dir() and (folder / "mem.toml").is_file()
    assert runner.invoke(app, ["init", str(folder)]).output == f"{folder} is already a memory home; nothing changed\n"
