"""Git's tree objects, for a commit that changes a few paths of HEAD's tree (memfiles.store.gitrepo.commit).

A tree lists its entries as `<mode> <name>\\0<raw object id>`, sorted by name, a folder's name
compared as if it ended in `/`. Its id is the hash (SHA-1, or SHA-256 in such repositories) of
`tree <size>\\0` followed by those bytes. Pure functions: reading HEAD's trees and storing the new
ones is memfiles.store.gitrepo's work.
"""

from __future__ import annotations

import hashlib
import re

FOLDER = b"40000"
FILE = b"100644"
Entry = tuple[bytes, bytes]  # (mode, raw object id)
Changes = dict[bytes, Entry | None]  # name -> its new entry, or None to remove it


def object_id(kind: bytes, data: bytes, id_size: int) -> bytes:
    """The raw id git gives an object of `kind` holding `data`, in a repository whose ids have `id_size` bytes."""
    return bytes(
        getattr(hashlib, "sha1" if id_size == 20 else "sha256")(b"%s %d\0%s" % (kind, len(data), data)).digest()
    )


def parse(data: bytes, id_size: int) -> dict[bytes, Entry]:
    """A tree's entries by name; ValueError if `data` is not a well-formed tree."""
    entry = re.compile(rb"([0-7]+) ([^\0/]+)\0(.{%d})" % id_size, re.DOTALL)
    entries: dict[bytes, Entry] = {}
    end = 0
    for match in entry.finditer(data):
        if match.start() != end:
            raise ValueError("not a tree: an entry does not start where the one before ends")
        entries[match[2]] = (match[1], match[3])
        end = match.end()
    if end != len(data):
        raise ValueError("not a tree: bytes left after the last entry")
    return entries


def serialize(entries: dict[bytes, Entry]) -> bytes:
    """A tree's bytes, its entries in git's order."""

    def order(name: bytes) -> bytes:
        return name + b"/" if entries[name][0] == FOLDER else name

    return b"".join(b"%s %s\0%s" % (entries[name][0], name, entries[name][1]) for name in sorted(entries, key=order))


def change(data: bytes | None, changes: Changes, old_folders: dict[bytes, bytes], id_size: int) -> bytes:
    """The bytes of tree `data` (None: a new, empty one) with `changes` made.

    `old_folders`: name -> the raw id a folder entry has in `data`, for the names of `changes` that
    are folders there. When every change gives such a folder a new id, the entries are replaced where
    they stand: a home of 10,000 users has a 330 kB `users` tree, which takes 16 ms to read and write
    again entry by entry, and every commit changes it. Anything else is done entry by entry.
    """
    if data is not None and all(
        name in old_folders and new is not None and new[0] == FOLDER for name, new in changes.items()
    ):
        spliced = _replace_folders(data, {name: (old_folders[name], new[1]) for name, new in changes.items() if new})
        if spliced is not None:
            return spliced
    entries = parse(data, id_size) if data is not None else {}
    for name, new in changes.items():
        if new is None:
            entries.pop(name, None)
        else:
            entries[name] = new
    return serialize(entries)


def _replace_folders(data: bytes, ids: dict[bytes, tuple[bytes, bytes]]) -> bytes | None:
    """`data` with each folder entry `name` (holding the old id) holding the new id; None if one is not found
    exactly once. No mode but a folder's ends in `40000`, and a match elsewhere than at the entry would
    need the old id's bytes twice in the tree."""
    for name, (old, new) in ids.items():
        needle = b"%s %s\0%s" % (FOLDER, name, old)
        at = data.find(needle)
        if at < 0 or data.find(needle, at + 1) >= 0:
            return None
        start = at + len(needle) - len(old)
        data = data[:start] + new + data[start + len(old) :]
    return data
