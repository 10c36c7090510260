"""The one exception family of memfiles: every error a person can act on is a `MemError`."""

from __future__ import annotations


class MemError(Exception):
    """A domain error with a message a person can act on; the CLI maps it to an exit code."""

    exit_code = 1


class UsageError(MemError):
    """The call itself is wrong (bad option value, unknown scope form): exit 2."""

    exit_code = 2


class HomeError(MemError):
    """No memory home where one was expected, or a home that cannot be used."""


class ScopeError(MemError):
    """A scope or id outside the allowed form (`user:<id>`, `[a-z0-9][a-z0-9._-]{0,63}`)."""


class FileFormatError(MemError):
    """A memory file that does not parse; the file is reported and never rewritten."""

    def __init__(self, path: str, line: int | None, problem: str) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {problem}")


class ConfigError(MemError):
    """mem.toml is unreadable or has a bad setting."""

    exit_code = 2


class RefusedError(MemError):
    """The write path refused a value (guard rule, policy or limit); nothing was written."""

    def __init__(self, rule: str, why: str) -> None:
        self.rule = rule
        self.why = why
        super().__init__(f"refused: {rule}: {why}")


class NotFoundError(MemError):
    """A fact id or key that the scope does not hold."""


class GitError(MemError):
    """A git command failed; the message carries git's own words."""


class HandEditError(MemError):
    """A write would replace or remove files holding changes git has not committed (a person's edit, most
    likely): nothing was written. `kept` names them, relative to the home."""

    def __init__(self, root: str, kept: list[str], doing: str) -> None:
        self.kept = kept
        shown = ", ".join(kept[:3]) + (f" and {len(kept) - 3} more" if len(kept) > 3 else "")
        super().__init__(
            f"{doing} would replace or remove {shown}, which {'has' if len(kept) == 1 else 'have'} changes not "
            "committed (a hand edit?), so nothing was written: commit them (`mem doctor --fix` does) or discard "
            f"them (git -C {root} checkout -- PATH), then try again"
        )
