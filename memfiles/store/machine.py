"""This machine's secret: how memfiles tells what it made here from what arrived (docs/SECURITY.md).

A home is shared content: anyone who can push to its remote, publish the project that holds it, or hand
someone an export file controls its bytes, caches and acceptances included. What memfiles must be able to
trust (a cache entry this machine wrote, an acceptance a person gave here) is therefore signed with a key
that never lives in a home: `machine.key` in memfiles' state folder — `$MEM_STATE_DIR`, else
`$XDG_STATE_HOME/memfiles`, else `~/.local/state/memfiles` — 32 random bytes, made on first use, readable
by its owner only. Losing it costs nothing but work: signed caches are rebuilt, signed acceptances are
asked for again.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

KEY_NAME = "machine.key"
KEY_BYTES = 32


def state_dir() -> Path:
    """memfiles' folder for this machine's state (never inside a home)."""
    explicit = os.environ.get("MEM_STATE_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser().absolute()
    xdg = os.environ.get("XDG_STATE_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".local" / "state"
    return (base / "memfiles").absolute()


_cached: dict[Path, bytes] = {}


def key() -> bytes:
    """This machine's key, made on first use (a race between two first uses keeps one of them for both)."""
    path = state_dir() / KEY_NAME
    if path in _cached:
        return _cached[path]
    found = _read(path)
    if found is None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temp = path.with_name(f".{KEY_NAME}.{os.getpid()}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(secrets.token_bytes(KEY_BYTES))
                handle.flush()
                os.fsync(handle.fileno())
            try:
                os.link(temp, path)  # never replaces a good key another process made first
            except FileExistsError:
                if _read(path) is None:  # a broken key (wrong size, a link): replaced
                    os.replace(temp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
        found = _read(path)
        if found is None:
            raise OSError(f"cannot make this machine's key at {path}")
    _cached[path] = found
    return found


def _read(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except (FileNotFoundError, OSError):
        return None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(KEY_BYTES + 1)
    return data if len(data) == KEY_BYTES else None


def sign(*parts: str | bytes) -> str:
    """An HMAC-SHA256 of `parts` (each length-prefixed, so parts cannot be shifted into each other), in hex."""
    mac = hmac.new(key(), digestmod=hashlib.sha256)
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        mac.update(len(data).to_bytes(8, "big"))
        mac.update(data)
    return mac.hexdigest()


def verify(signature: str, *parts: str | bytes) -> bool:
    """Whether `signature` is this machine's `sign(*parts)` (compared in constant time)."""
    return isinstance(signature, str) and hmac.compare_digest(signature, sign(*parts))
