"""gittree: tree bytes and ids exactly as git makes them, and a splice that equals the entry-by-entry way."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfiles.store import gittree
from memfiles.store.gittree import FILE, FOLDER

NAMES = ["a", "a.b", "a-b", "a0", "a/", "b", "MEMORY.md", "episodes", "u00001", "u00010", "z", "é"]


def git(root: Path, *args: str, given: bytes | None = None) -> bytes:
    return subprocess.run(["git", "-C", str(root), *args], input=given, capture_output=True, check=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "--quiet")
    return tmp_path


def blob(repo: Path, text: str) -> bytes:
    return bytes.fromhex(git(repo, "hash-object", "-w", "--stdin", given=text.encode()).decode().strip())


def mktree(repo: Path, entries: dict[bytes, gittree.Entry]) -> bytes:
    """The id git's own mktree gives these entries."""
    kinds = {FOLDER: "tree", FILE: "blob", b"100755": "blob"}
    lines = "".join(
        f"{mode.decode()} {kinds[mode]} {oid.hex()}\t{name.decode()}\n" for name, (mode, oid) in entries.items()
    )
    return bytes.fromhex(git(repo, "mktree", given=lines.encode()).decode().strip())


def test_bytes_and_id_are_gits_own_whatever_the_names(repo: Path) -> None:
    file_id = blob(repo, "x\n")
    folder_id = mktree(repo, {b"inner": (FILE, file_id)})
    # Folders sort as if their name ended in "/": `a` the folder goes after `a.b` and `a-b` but before `a0`.
    entries = {
        name.encode(): (FOLDER, folder_id) if i % 2 else (FILE, file_id)
        for i, name in enumerate(NAMES)
        if "/" not in name
    }
    entries[b"a"] = (FOLDER, folder_id)
    data = gittree.serialize(entries)
    made = mktree(repo, entries)
    assert gittree.object_id(b"tree", data, 20) == made
    assert git(repo, "cat-file", "tree", made.hex()) == data
    assert gittree.parse(data, 20) == entries


def test_sha256_ids(tmp_path: Path) -> None:
    git(tmp_path, "init", "--quiet", "--object-format=sha256")
    file_id = blob(tmp_path, "x\n")
    assert len(file_id) == 32
    entries = {b"MEMORY.md": (FILE, file_id)}
    assert gittree.object_id(b"tree", gittree.serialize(entries), 32) == mktree(tmp_path, entries)


@pytest.mark.parametrize(
    "data",
    [b"100644 name", b"100644 name\0" + b"x" * 19, b"100644 name\0" + b"x" * 21, b"junk100644 a\0" + b"x" * 20],
)
def test_a_malformed_tree_is_refused(data: bytes) -> None:
    with pytest.raises(ValueError, match="not a tree"):
        gittree.parse(data, 20)


def test_a_new_tree_and_removals() -> None:
    one, two = b"\x01" * 20, b"\x02" * 20
    data = gittree.change(None, {b"b": (FILE, one), b"a": (FOLDER, two)}, {}, 20)
    assert gittree.parse(data, 20) == {b"a": (FOLDER, two), b"b": (FILE, one)}
    assert gittree.change(data, {b"a": None, b"b": None, b"absent": None}, {}, 20) == b""


ids = st.binary(min_size=20, max_size=20)


@settings(max_examples=200, deadline=None)
@given(
    names=st.lists(st.text("abu0123456789.-_", min_size=1, max_size=8), min_size=1, max_size=30, unique=True),
    data=st.data(),
)
def test_replacing_folders_in_place_equals_entry_by_entry(names: list[str], data: st.DataObject) -> None:
    entries = {name.encode(): (data.draw(st.sampled_from([FOLDER, FILE])), data.draw(ids)) for name in names}
    tree = gittree.serialize(entries)
    folders = [name for name, (mode, _) in entries.items() if mode == FOLDER]
    chosen = data.draw(st.lists(st.sampled_from(folders), unique=True)) if folders else []
    changes: gittree.Changes = {name: (FOLDER, data.draw(ids)) for name in chosen}
    old = {name: entries[name][1] for name in chosen}
    expected = gittree.serialize({**entries, **{name: new for name, new in changes.items() if new}})
    assert gittree.change(tree, changes, old, 20) == expected


def test_a_folder_whose_old_id_is_not_found_once_is_changed_entry_by_entry() -> None:
    old, new, other = b"\x01" * 20, b"\x02" * 20, b"\x03" * 20
    tree = gittree.serialize({b"u1": (FOLDER, old), b"u2": (FOLDER, other)})
    # Told a wrong old id, the splice finds nothing and the entry-by-entry way still gives the right tree.
    assert gittree.change(tree, {b"u1": (FOLDER, new)}, {b"u1": other}, 20) == gittree.serialize(
        {b"u1": (FOLDER, new), b"u2": (FOLDER, other)}
    )
