"""The on-disk layout of a memory home: where the home is, what a scope is, and every path inside it.

This is the only module that knows the layout (`users/<id>/MEMORY.md`, `episodes/YYYY/MM/…`,
`.cache/`). Isolation between scopes is enforced here: a path is only ever built from a parsed,
validated `Scope`, and is checked to stay inside the home after symlinks are resolved.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memfiles.errors import HomeError, ScopeError

KINDS = {"user": "users", "org": "orgs", "agent": "agents"}
ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
CONFIG_NAME = "mem.toml"
LOCAL_CONFIG_NAME = "mem.local.toml"  # this machine's settings: git-ignored, never synced
MEMORY_NAME = "MEMORY.md"
EPISODES_DIR = "episodes"
DIGEST_NAME = "DIGEST.md"
CACHE_DIR = ".cache"
LOCAL_HOME = ".mem"
_YEAR = re.compile(r"\d{4}")
_MONTH = re.compile(r"\d{2}")
_EPISODE_FILE = re.compile(r"[^.].*\.md")


@dataclass(frozen=True, slots=True)
class Scope:
    """A validated scope such as `user:alice`: one directory of the home."""

    kind: str
    id: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.id}"

    @property
    def relpath(self) -> str:
        """The scope's directory relative to the home, with forward slashes (`users/alice`)."""
        return f"{KINDS[self.kind]}/{self.id}"


def validate_id(value: str, what: str = "id") -> str:
    """Return `value` if it is a valid scope id, else raise ScopeError saying what is allowed."""
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value) or ".." in value:
        raise ScopeError(
            f"invalid {what} {value!r}: ids are 1-64 characters of a-z, 0-9, '.', '_' or '-', "
            "starting with a letter or digit (no '..', slashes, spaces, capitals or non-ASCII)"
        )
    return value


def parse_scope(text: str) -> Scope:
    """Parse `user:ID`, `org:ID` or `agent:ID` into a Scope, refusing anything else."""
    kind, sep, ident = text.partition(":")
    if not sep or kind not in KINDS:
        raise ScopeError(f"invalid scope {text!r}: write user:ID, org:ID or agent:ID (for example user:alice)")
    return Scope(kind, validate_id(ident, f"{kind} id"))


def scope_from_relpath(relpath: str) -> Scope | None:
    """The scope a home-relative path belongs to (`users/alice/MEMORY.md` → user:alice), if any."""
    parts = relpath.replace("\\", "/").split("/")
    if len(parts) < 2:
        return None
    kinds = {folder: kind for kind, folder in KINDS.items()}
    if parts[0] not in kinds or not ID_PATTERN.fullmatch(parts[1]) or ".." in parts[1]:
        return None
    return Scope(kinds[parts[0]], parts[1])


def platform_home() -> Path:
    """The platform data directory used when nothing else names a home."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "mem"
    if os.name == "nt":
        return Path(os.environ.get("APPDATA", Path.home())) / "mem"
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "mem"


def resolve_home(explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path:
    """Find the home: `--home`, then `$MEM_HOME`, then the nearest `.mem/` above cwd, then the platform dir."""
    if explicit:
        return Path(explicit).expanduser().absolute()
    env = os.environ.get("MEM_HOME", "").strip()
    if env:
        return Path(env).expanduser().absolute()
    found = walked_home(cwd)
    return found if found is not None else platform_home()


def walked_home(cwd: Path | None = None) -> Path | None:
    """The nearest `.mem/` folder at or above `cwd`: a project's folder, whose content the project chose."""
    start = (cwd or Path.cwd()).absolute()
    for folder in (start, *start.parents):
        candidate = folder / LOCAL_HOME
        if candidate.is_dir():
            return candidate
    return None


def is_home(root: Path) -> bool:
    """Whether `root` is a memory home: `mem.toml` there and `.git` a real folder of its own (see require_home)."""
    try:
        return stat.S_ISDIR(os.lstat(root / ".git").st_mode) and (root / CONFIG_NAME).is_file()
    except OSError:
        return False


def require_home(root: Path, found_above: Path | None = None) -> Path:
    """Return `root` if it is a memory home, else raise HomeError with the fix (`found_above`: the folder a
    walk up to `.mem/` started from, named in the message).

    A home is a folder with `mem.toml` and its own git folder, `.git`, a real folder: never a link or a
    `gitdir:` file, and a folder shaped like a git directory (a project's committed `.mem/` with HEAD,
    objects/ and a config naming commands) is never taken for one. git cannot check out a `.git` folder,
    so a clone or a project never brings a home with it: only `mem init` (or `mem init --clone`) makes one.
    """
    if not (root / CONFIG_NAME).is_file():
        raise HomeError(
            f"no memory home at {root} (no {CONFIG_NAME}): run `mem init {root}` first, "
            "or point --home / $MEM_HOME at an existing home"
        )
    if not is_home(root):
        found = f" (the nearest {LOCAL_HOME}/ above {found_above}: the project's content)" if found_above else ""
        raise HomeError(
            f"{root}{found} is not a memory home: it has {CONFIG_NAME} but no git folder of its own "
            f"({root / '.git'} is missing, a link or a file), and memfiles runs git only in a home `mem init` "
            "made; nothing was written. If it came with a project or a download, do not use it: point --home "
            "or $MEM_HOME at your own home"
        )
    return root


@dataclass(frozen=True, slots=True)
class Paths:
    """Every path of one memory home, built only from validated scopes."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / CONFIG_NAME

    @property
    def local_config(self) -> Path:
        return self.root / LOCAL_CONFIG_NAME

    @property
    def cache(self) -> Path:
        return self.root / CACHE_DIR

    @property
    def locks(self) -> Path:
        return self.cache / "locks"

    @property
    def reindex_mark(self) -> Path:
        """There while `mem doctor --reindex` runs: left behind, it says the reindex was interrupted."""
        return self.cache / "reindex-unfinished"

    @property
    def health_file(self) -> Path:
        """What the hooks and the embedding of writes last did (memfiles.store.health), for `mem doctor`."""
        return self.cache / "health.json"

    def scope_dir(self, scope: Scope) -> Path:
        return self._inside(self.root / KINDS[scope.kind] / scope.id)

    def memory_file(self, scope: Scope) -> Path:
        return self._inside(self.scope_dir(scope) / MEMORY_NAME)

    def episodes_dir(self, scope: Scope) -> Path:
        return self._inside(self.scope_dir(scope) / EPISODES_DIR)

    def episode_month_dir(self, scope: Scope, when: date) -> Path:
        """The folder of one month's episodes (`episodes/YYYY/MM`) for the UTC day an episode started."""
        return self._inside(self.episodes_dir(scope) / f"{when.year:04d}" / f"{when.month:02d}")

    def episode_files(self, scope: Scope, first_month: str | None = None, last_month: str | None = None) -> list[Path]:
        """The scope's episode files (`episodes/YYYY/MM/*.md`, not DIGEST.md), oldest month first.

        Only the scope's own folder is listed (isolation); links are skipped, never followed.
        `first_month`/`last_month` ("YYYY-MM") skip whole months outside a time range without opening them.
        """
        found: list[Path] = []
        for _stamp, folder in self.episode_months(scope, first_month, last_month):
            found.extend(folder / name for name in _entries(folder, _EPISODE_FILE, want_dir=False))
        return found

    def episode_months(
        self, scope: Scope, first_month: str | None = None, last_month: str | None = None
    ) -> list[tuple[str, Path]]:
        """The scope's month folders as ("YYYY-MM", folder), oldest first, within the optional range."""
        base = self.episodes_dir(scope)
        found: list[tuple[str, Path]] = []
        for year in _entries(base, _YEAR):
            for month in _entries(base / year, _MONTH):
                stamp = f"{year}-{month}"
                if (first_month and stamp < first_month) or (last_month and stamp > last_month):
                    continue
                found.append((stamp, base / year / month))
        return found

    def index_file(self, scope: Scope, version: str = "") -> Path:
        """The scope's derived recall index (rebuildable, git-ignored): `.cache/index/<kind>-<id>.<version>.sqlite3`.

        Each version of the index has its own file, so two versions of mem sharing a home (an upgraded
        CLI beside an older MCP server) do not rebuild each other's index on every recall.
        """
        return self.cache / "index" / f"{scope.kind}-{scope.id}{'.' + version if version else ''}.sqlite3"

    def guard_memo(self, scope: Scope) -> Path:
        """The guard's signed decisions on the scope's facts (rebuildable, git-ignored): `.cache/guard/<kind>-<id>.json`
        (memfiles.ops.factguard)."""
        return self.cache / "guard" / f"{scope.kind}-{scope.id}.json"

    def index_files(self, scope: Scope) -> list[Path]:
        """Every index file of the scope, of any version (see index_file)."""
        folder = self.cache / "index"
        # Versions are numbers; before INDEX_VERSION 5 they were `<n>-<8 hex digits>`, and at first absent.
        pattern = re.compile(re.escape(f"{scope.kind}-{scope.id}") + r"(?:\.[0-9]+(?:-[0-9a-f]{8})?)?\.sqlite3")
        try:
            names = os.listdir(folder)
        except OSError:
            return []
        return sorted(folder / name for name in names if pattern.fullmatch(name))

    def digest_file(self, episode_file: Path) -> Path:
        """The DIGEST.md of the month folder that holds `episode_file` (where consolidation folds it)."""
        return self._inside(episode_file.parent / DIGEST_NAME)

    def digest_files(self, scope: Scope) -> list[Path]:
        """The scope's monthly digests (`episodes/YYYY/MM/DIGEST.md`), oldest month first; links are skipped."""
        base = self.episodes_dir(scope)
        found: list[Path] = []
        for year in _entries(base, _YEAR):
            for month in _entries(base / year, _MONTH):
                path = base / year / month / DIGEST_NAME
                if path.is_file() and not path.is_symlink():
                    found.append(path)
        return found

    def lock_file(self, name: str) -> Path:
        return self.locks / f"{name}.lock"

    def scope_lock(self, scope: Scope) -> Path:
        return self.lock_file(f"{scope.kind}-{scope.id}")

    def relative(self, path: Path) -> str:
        """`path` relative to the home, with forward slashes (for git and messages)."""
        return path.relative_to(self.root).as_posix()

    def scopes(self) -> list[Scope]:
        """Every scope that has a directory in the home, sorted."""
        found: list[Scope] = []
        for kind, folder in sorted(KINDS.items()):
            base = self.root / folder
            if not base.is_dir():
                continue
            for entry in sorted(os.listdir(base)):
                if ID_PATTERN.fullmatch(entry) and ".." not in entry and (base / entry).is_dir():
                    found.append(Scope(kind, entry))
        return found

    def strays(self) -> list[str]:
        """Entries of `users/`, `orgs/` and `agents/` that are not a valid scope id (`users/Alice`, `users/a b`),
        home-relative: no command reads them, as no scope can name them."""
        found: list[str] = []
        for folder in sorted(KINDS.values()):
            try:
                names = os.listdir(self.root / folder)
            except (FileNotFoundError, NotADirectoryError):
                continue
            found.extend(f"{folder}/{name}" for name in sorted(names) if not ID_PATTERN.fullmatch(name) or ".." in name)
        return found

    def _inside(self, path: Path) -> Path:
        # Isolation by path: a symlinked scope folder or file that leads out of the home is refused.
        real_root = os.path.realpath(self.root)
        real = os.path.realpath(path)
        if real != real_root and not real.startswith(real_root + os.sep):
            raise ScopeError(f"{self.relative(path)} leads outside the memory home ({real}); refusing")
        return path


def is_episode_name(name: str) -> bool:
    """Whether a month folder's entry is named like an episode file: `*.md`, not hidden, not DIGEST.md.

    The same test as `_EPISODE_FILE` (a test checks it), in string methods: it runs 100,000 times a recall.
    """
    return name.endswith(".md") and len(name) > 3 and name[0] != "." and "\n" not in name[1:] and name != DIGEST_NAME


def _entries(folder: Path, pattern: re.Pattern[str], want_dir: bool = True) -> list[str]:
    """Sorted names in `folder` matching `pattern` that are real folders (or real files), never links."""
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    names = [
        e.name
        for e in entries
        if pattern.fullmatch(e.name)
        and e.name != DIGEST_NAME
        and not e.is_symlink()
        and (e.is_dir(follow_symlinks=False) if want_dir else e.is_file(follow_symlinks=False))
    ]
    return sorted(names)
