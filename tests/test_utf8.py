"""Text that is not UTF-8 (issue 38): one line saying so and where, exit 2, nothing written — never a traceback.
A hook still exits 0, and records the failure for `mem doctor`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memfiles.api import open_home
from memfiles.errors import UsageError

BAD = b"caf\xe9"


def _mem(home: Path, *args: bytes | str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    mem = shutil.which("mem", path=str(Path(sys.executable).parent)) or "mem"
    env = os.environ | {"MEM_HOME": str(home)}
    return subprocess.run([mem, *args], capture_output=True, env=env, input=stdin)


def _head(home: Path) -> bytes:
    return subprocess.run(["git", "-C", str(home), "rev-parse", "HEAD"], capture_output=True, check=True).stdout


@pytest.mark.parametrize(
    "argv",
    [
        ("recall", BAD, "-u", "alice"),
        ("add", "-u", "alice", "city", BAD),
        ("add", "-u", "alice", BAD, "x"),
        ("episode", "-u", "alice", BAD),
        ("lint", BAD),
        ("show", "-u", "alice", "--key", BAD),
    ],
)
def test_an_argument_that_is_not_utf8_is_one_line_and_exit_2(home: Path, argv: tuple[bytes | str, ...]) -> None:
    before = _head(home)
    done = _mem(home, *argv)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count(b"\n") == 1 and b"Traceback" not in done.stderr
    assert (
        b"is not valid UTF-8 text (byte 0xe9 at character 4)" in done.stderr and b"mem: error: argument" in done.stderr
    )
    assert _head(home) == before


def test_a_hook_whose_input_is_not_utf8_exits_0_and_records_it(home: Path) -> None:
    open_home(home).user("alice").add("city", "Halifax")
    for stdin in (b'{"prompt": "' + BAD + b'"}', b'{"prompt": "caf\\udce9"}'):
        done = _mem(home, "recall", "--hook", "-u", "alice", stdin=stdin)
        assert done.returncode == 0 and done.stdout == b"" and b"Traceback" not in done.stderr
        assert b"not UTF-8" in done.stderr or b"not valid UTF-8" in done.stderr
    report = open_home(home).doctor()
    assert any("mem recall --hook" in p and "UTF-8" in p for p in report.problems)
    done = _mem(home, "capture", "--hook", "-u", "alice", stdin=b'{"session_id": "' + BAD + b'"}')
    assert done.returncode == 0 and b"Traceback" not in done.stderr and b"UTF-8" in done.stderr


def test_the_api_refuses_text_that_is_not_utf8(home: Path) -> None:
    alice = open_home(home).user("alice")
    text = BAD.decode("utf-8", "surrogateescape")
    with pytest.raises(UsageError, match="the query is not valid UTF-8 text"):
        alice.recall(text)
    for outcome in (alice.add("city", text), alice.episode(text)):
        assert outcome.kind == "refused" and "not valid UTF-8 text (byte 0xe9" in (outcome.why or "")
    assert alice.show() == []


def test_bytes_that_are_not_utf8_are_named_in_one_form_at_every_door(home: Path, tmp_path: Path) -> None:
    # The same words wherever bytes arrive: an episode batch, a hook's input, an import file.
    said = "is not valid UTF-8 text (byte 0xe9 at byte 4)"
    batch = _mem(home, "episode", "-u", "alice", "--from-json", "-", stdin=BAD)
    assert batch.returncode == 2 and f"<stdin>: {said}; save the episodes as UTF-8 JSON".encode() in batch.stderr
    hook = _mem(home, "recall", "--hook", "-u", "alice", stdin=BAD)
    assert hook.returncode == 0 and f"hook input {said}".encode() in hook.stderr
    export = tmp_path / "chat.json"
    export.write_bytes(BAD)
    imported = _mem(home, "import", "-u", "alice", "--from", "chatgpt", str(export))
    assert imported.returncode != 0 and said.encode() in imported.stderr, imported.stderr
