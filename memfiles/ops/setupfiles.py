"""The edits `mem setup` makes to an assistant's own files (docs/SETUP.md), each a pure function from the
file's bytes to its new bytes, and what undoes them byte for byte.

- JSON settings (`.claude/settings.json`, `.mcp.json`, `.cursor/mcp.json`): hook commands added to an
  event's list, a server added under `mcpServers`; every other key kept, in its order, with the file's own
  indentation.
- TOML (`~/.codex/config.toml`): one `[mcp_servers.NAME]` table appended at the end, or removed; the rest of
  the file is never rewritten (the standard library reads TOML but does not write it).
- Markdown (AGENTS.md, a Cursor rule): the rendered memory between `mem:begin`/`mem:end` markers.

What a file held before `mem setup` first changed it is kept in this machine's state folder (never a home),
signed with the machine's key, with the digest of what setup wrote: `--remove` on a file nobody changed since
puts the old bytes back (or deletes a file setup made); a file changed since is edited back instead.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Any

from memfiles.errors import MemError
from memfiles.store import machine
from memfiles.store.files import atomic_write

Hook = tuple[str, str, int]  # (event, command, timeout in seconds)


class SetupError(MemError):
    """An assistant's file cannot be read or changed safely; nothing was written."""


# --- JSON ---------------------------------------------------------------------------------------------


def load_json(data: bytes | None, path: Path) -> dict[str, Any]:
    if data is None or not data.strip():
        return {}
    try:
        loaded = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SetupError(f"{path} is not valid JSON ({exc}); fix it, then run mem setup again") from None
    if not isinstance(loaded, dict):
        raise SetupError(f"{path} holds JSON that is not an object; fix it or move it aside")
    return loaded


def dump_json(value: dict[str, Any], like: bytes | None) -> bytes:
    """`value` as JSON, indented as `like` (the file's old bytes) was: its first indented line decides."""
    indent: int | str = 2
    if like:
        found = re.search(rb"\n([ \t]+)\S", like)
        if found:
            space = found.group(1).decode()
            indent = len(space) if set(space) == {" "} else space
    newline = "\r\n" if like and b"\r\n" in like else "\n"
    text = json.dumps(value, indent=indent, ensure_ascii=False) + "\n"
    return text.replace("\n", newline).encode("utf-8")


def add_hooks(settings: dict[str, Any], hooks: list[Hook], path: Path) -> list[str]:
    """Add each hook command to its event in Claude Code's `hooks` (one group each), unless the event has it."""
    table = settings.setdefault("hooks", {})
    if not isinstance(table, dict):
        raise SetupError(f"{path}: `hooks` is not an object; fix it by hand, then run mem setup again")
    said = []
    for event, command, timeout in hooks:
        groups = table.setdefault(event, [])
        if not isinstance(groups, list):
            raise SetupError(f"{path}: `hooks.{event}` is not a list; fix it by hand, then run mem setup again")
        if command in _commands(groups):
            continue
        groups.append({"hooks": [{"type": "command", "command": command, "timeout": timeout}]})
        said.append(f"+ hooks.{event}: {command}")
    if not table:
        del settings["hooks"]
    return said


def remove_hooks(settings: dict[str, Any], ours: re.Pattern[str]) -> list[str]:
    """Take out every hook command `ours` matches, and the groups, events and `hooks` it leaves empty."""
    table = settings.get("hooks")
    if not isinstance(table, dict):
        return []
    said = []
    for event in list(table):
        groups = table[event]
        if not isinstance(groups, list):
            continue
        for group in list(groups):
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                continue
            for hook in list(inner):
                command = hook.get("command") if isinstance(hook, dict) else None
                if isinstance(command, str) and ours.fullmatch(command):
                    inner.remove(hook)
                    said.append(f"- hooks.{event}: {command}")
            if not inner:
                groups.remove(group)
        if not groups:
            del table[event]
    if not table:
        del settings["hooks"]
    return said


def _commands(groups: list[Any]) -> set[str]:
    found = set()
    for group in groups:
        for hook in group.get("hooks", []) if isinstance(group, dict) else []:
            if isinstance(hook, dict) and isinstance(hook.get("command"), str):
                found.add(hook["command"])
    return found


def add_server(settings: dict[str, Any], name: str, server: dict[str, Any], path: Path) -> tuple[list[str], str]:
    """Register the MCP server under `mcpServers.NAME`; a different server already there is kept (a note)."""
    servers = settings.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise SetupError(f"{path}: `mcpServers` is not an object; fix it by hand, then run mem setup again")
    if name in servers:
        same = servers[name] == server or _is_ours(servers[name], server)
        return [], "" if same else f"{path}: kept the server {name!r} already there (not mem's; --name sets another)"
    servers[name] = server
    return [f"+ mcpServers.{name}: {_shown(server)}"], ""


def remove_server(settings: dict[str, Any], name: str, server: dict[str, Any]) -> list[str]:
    servers = settings.get("mcpServers")
    if not isinstance(servers, dict) or not _is_ours(servers.get(name), server):
        return []
    del servers[name]
    if not servers:
        del settings["mcpServers"]
    return [f"- mcpServers.{name}: {_shown(server)}"]


def _is_ours(found: Any, server: dict[str, Any]) -> bool:
    """mem's server: the same command running `mcp` (whatever scope it was given)."""
    args = found.get("args") if isinstance(found, dict) else None
    return (
        isinstance(found, dict)
        and found.get("command") == server["command"]
        and isinstance(args, list)
        and args[:1] == ["mcp"]
    )


def _shown(server: dict[str, Any]) -> str:
    return " ".join([server["command"], *server.get("args", [])])


# --- TOML ---------------------------------------------------------------------------------------------


def toml_table(name: str, server: dict[str, Any]) -> str:
    """`[mcp_servers.NAME]` with `command` and `args`, as TOML basic strings (JSON's escapes are TOML's)."""
    args = ", ".join(json.dumps(a, ensure_ascii=False) for a in server["args"])
    return f"[mcp_servers.{name}]\ncommand = {json.dumps(server['command'], ensure_ascii=False)}\nargs = [{args}]\n"


def load_toml(data: bytes | None, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode("utf-8")) if data else {}
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SetupError(f"{path} is not valid TOML ({exc}); fix it, then run mem setup again") from None


def add_toml_server(data: bytes | None, name: str, server: dict[str, Any], path: Path) -> tuple[bytes, list[str], str]:
    """The file with the table appended (unchanged when an equal one is there; a different one is kept)."""
    found = load_toml(data, path).get("mcp_servers", {}).get(name)
    if found is not None:
        same = found == server or _is_ours(found, server)
        return data or b"", [], "" if same else f"{path}: kept [mcp_servers.{name}] already there (not mem's)"
    text = (data or b"").decode("utf-8")
    newline = "\r\n" if "\r\n" in text else "\n"
    if text and not text.endswith("\n"):
        text += newline
    if text.strip():
        text += newline
    updated = (text + toml_table(name, server).replace("\n", newline)).encode("utf-8")
    if load_toml(updated, path).get("mcp_servers", {}).get(name) != server:  # e.g. a dotted key elsewhere
        raise SetupError(f"{path}: cannot add [mcp_servers.{name}] after what the file holds; add it by hand")
    return updated, [f"+ [mcp_servers.{name}]: {_shown(server)}"], ""


def remove_toml_server(data: bytes | None, name: str, server: dict[str, Any], path: Path) -> tuple[bytes, list[str]]:
    """The file without mem's `[mcp_servers.NAME]` table (its header up to the next table or the end)."""
    if not data or not _is_ours(load_toml(data, path).get("mcp_servers", {}).get(name), server):
        return data or b"", []
    lines = data.decode("utf-8").splitlines(keepends=True)
    header = re.compile(rf"\s*\[\s*mcp_servers\s*\.\s*\"?{re.escape(name)}\"?\s*\]\s*(#.*)?$")
    start = next((i for i, line in enumerate(lines) if header.match(line.rstrip("\r\n"))), None)
    if start is None:
        return data, []
    end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
    while start > 0 and not lines[start - 1].strip():  # the blank line setup put before it
        start -= 1
    kept = "".join(lines[:start] + lines[end:])
    return kept.encode("utf-8"), [f"- [mcp_servers.{name}]"]


# --- markdown: the rendered section -----------------------------------------------------------------

_BEGIN = re.compile(rb"^<!-- mem:begin scope=\S+ -->[ \t]*\r?$")
_END = re.compile(rb"^<!-- mem:end -->[ \t]*\r?$")


def remove_sections(data: bytes | None) -> tuple[bytes, list[str]]:
    """The file without its `mem:begin`…`mem:end` sections (markers in fenced code are text)."""
    if not data:
        return data or b"", []
    lines = data.splitlines(keepends=True)
    kept: list[bytes] = []
    fenced, inside, said = False, False, []
    for line in lines:
        bare = line.rstrip(b"\n")
        if not inside and line.lstrip().startswith((b"```", b"~~~")):
            fenced = not fenced
        if not fenced and not inside and _BEGIN.match(bare):
            inside = True
            said.append("- " + bare.decode("utf-8", "replace").strip())
            continue
        if inside:
            inside = not _END.match(bare)
            continue
        kept.append(line)
    while said and kept and not kept[-1].strip():  # the blank line render put before an appended section
        kept.pop()
    return b"".join(kept), said


# --- what a file held before setup changed it --------------------------------------------------------


def _record_path(path: Path) -> Path:
    digest = hashlib.sha256(str(path.absolute()).encode("utf-8")).hexdigest()[:32]
    return machine.state_dir() / "setup" / f"{digest}.json"


def _digest(data: bytes | None) -> str:
    return "-" if data is None else hashlib.sha256(data).hexdigest()


def remember(path: Path, before: bytes | None, after: bytes | None, made: list[Path]) -> None:
    """Note what `path` held before setup first changed it (and the folders setup made for it); a later change
    by setup keeps that first state."""
    first = _recall(path, before)
    kept, dirs = (before, [str(d) for d in made]) if first is None else first
    encoded = None if kept is None else base64.b64encode(kept).decode()
    where, digest = str(path.absolute()), _digest(after)
    signature = machine.sign(where, encoded or "-", digest, *dirs)
    record = {"path": where, "before": encoded, "after": digest, "dirs": dirs, "signature": signature}
    atomic_write(_record_path(path), json.dumps(record).encode())


def original(path: Path, current: bytes | None) -> tuple[bytes | None, list[str]] | None:
    """What `path` held before setup, and the folders setup made for it, if setup's own bytes are still there
    untouched (else None)."""
    return _recall(path, current)


def forget(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        _record_path(path).unlink()


def _recall(path: Path, current: bytes | None) -> tuple[bytes | None, list[str]] | None:
    try:
        record = json.loads(_record_path(path).read_bytes())
        before, after, signature, dirs = record.get("before"), record["after"], record["signature"], record["dirs"]
        if record.get("path") != str(path.absolute()) or after != _digest(current):
            return None
        if not all(isinstance(d, str) for d in dirs):
            return None
        if not machine.verify(signature, record["path"], before or "-", after, *dirs):
            return None
        return (None if before is None else base64.b64decode(before), list(dirs))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
