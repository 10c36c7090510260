"""The consolidation extractor (FORMAT.md, "Extractor"): any command that reads a JSON request on stdin
and prints JSON of the published schema (`mem schema extractor`).

Runs the command (split like a shell would, never through one) with a timeout and a cap on what it may
print (OUTPUT_LIMIT), stopping it and every process it started at either, then validates what it
printed: bad JSON, schema errors and ids the request did not contain are errors, and nothing is applied.
What it proposes is still only a proposal: consolidation puts every change through the guarded write path.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Iterable
from importlib import resources
from typing import TYPE_CHECKING, Any

from memfiles import clock
from memfiles.clock import When
from memfiles.errors import MemError, UsageError
from memfiles.format.episodes import Episode
from memfiles.format.model import Fact

if TYPE_CHECKING:
    from memfiles.format.extractor import ExtractorOutput

REQUEST_VERSION = 1
PROMPT_RESOURCE = "templates/consolidate.md"
OUTPUT_LIMIT = 16 << 20  # bytes an extractor may print on stdout: an answer is a few KB, a runaway is stopped
_STDERR_TAIL = 600  # characters of the extractor's stderr quoted in an error
_STDERR_KEPT = 4 * _STDERR_TAIL  # bytes of stderr kept (the end): enough for _STDERR_TAIL characters
_CHUNK = 1 << 16  # bytes read or written at a time
_OUTPUT_HEAD = 200  # characters of bad output quoted in an error
_MARK = "MEM_EXTRACTOR_RUN"  # the environment variable marking every process of one extractor run
_STOP_ROUNDS = 5
_ENVIRON_LIMIT = 1 << 20  # bytes of a process's environment read when looking for the mark


class ExtractorError(MemError):
    """The extractor failed or printed something unusable; nothing it proposed was applied."""


def prompt() -> str:
    """The consolidation prompt shipped inside the package (templates/consolidate.md at the repository root)."""
    return resources.files("memfiles").joinpath(PROMPT_RESOURCE).read_text(encoding="utf-8")


def request(scope: str, now: When, facts: Iterable[Fact], episodes: Iterable[Episode]) -> dict[str, Any]:
    """The JSON request an extractor reads: the prompt, the current facts, the new episodes and the answer schema."""
    from memfiles.format.extractor import extractor_schema

    return {
        "version": REQUEST_VERSION,
        "scope": scope,
        "now": clock.iso(now),
        "prompt": prompt(),
        "facts": [f.to_dict() for f in facts],
        "episodes": [e.to_dict() for e in episodes],
        "response_schema": extractor_schema(),
    }


def run(command: str, payload: dict[str, Any], timeout: float) -> ExtractorOutput:
    """Run the extractor with `payload` on stdin and return its validated answer (or raise ExtractorError)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise UsageError(f"extractor command {command!r} cannot be split into words: {exc}") from None
    if not argv:
        raise UsageError("no extractor command: pass --extractor CMD or set [consolidate] extractor in mem.toml")
    name = argv[0]
    mark = secrets.token_hex(16)  # in the environment of everything the extractor starts: see _stop
    try:
        process = subprocess.Popen(
            argv,
            env={**os.environ, _MARK: mark},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,  # raw pipes: read by _exchange as bytes arrive
            start_new_session=True,  # its own process group, so a timeout stops its children too
        )
    except OSError as exc:
        raise ExtractorError(
            f"cannot run extractor {name!r}: {exc.strerror} (mem.toml [consolidate] extractor or --extractor); "
            "nothing was applied"
        ) from None
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    try:
        out, err = _exchange(process, data, timeout)
    except BaseException as why:  # stopped here, or this process is (Ctrl-C): the extractor never outlives it
        _stop(process, mark)
        if not isinstance(why, _Stopped):
            raise
        if why.args[0] == "output":
            raise ExtractorError(
                f"extractor {name!r} printed more than {OUTPUT_LIMIT >> 20} MiB on stdout; "
                "it was stopped and nothing was applied"
            ) from None
        raise ExtractorError(
            f"extractor {name!r} did not finish within {timeout:g} s (mem.toml [consolidate] extractor_timeout); "
            "it was stopped and nothing was applied"
        ) from None
    if process.returncode != 0:
        tail = err.decode("utf-8", errors="replace").strip()[-_STDERR_TAIL:]
        said = f"; its stderr ended with: {tail}" if tail else " and printed nothing on stderr"
        raise ExtractorError(f"extractor {name!r} exited with status {process.returncode}{said}; nothing was applied")
    return parse_output(out.decode("utf-8", errors="replace"), name)


class _Stopped(Exception):
    """The extractor must be stopped: it ran out of time ("time") or printed too much ("output")."""


def _exchange(process: subprocess.Popen[bytes], data: bytes, timeout: float) -> tuple[bytes, bytes]:
    """Send `data` on the extractor's stdin and gather its stdout and the end of its stderr until it exits.

    What `Popen.communicate` does, with bounds: stdout may hold at most OUTPUT_LIMIT bytes and only the
    last _STDERR_KEPT bytes of stderr are kept, so an extractor that prints without end costs no memory.
    Raises _Stopped at the timeout (0: none) or past the limit; the caller stops the process group.
    """
    assert process.stdin and process.stdout and process.stderr  # opened as pipes above
    deadline = time.monotonic() + timeout if timeout else None
    out, err = bytearray(), bytearray()
    sent = 0
    with selectors.DefaultSelector() as selector:
        os.set_blocking(process.stdin.fileno(), False)  # a write takes what the pipe holds and never waits
        selector.register(process.stdin, selectors.EVENT_WRITE)
        selector.register(process.stdout, selectors.EVENT_READ)
        selector.register(process.stderr, selectors.EVENT_READ)
        while selector.get_map():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise _Stopped("time")
            for key, _ in selector.select(left):
                if key.fileobj is process.stdin:
                    try:
                        sent += os.write(key.fd, data[sent : sent + _CHUNK])
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # it stopped reading: what it prints decides
                        sent = len(data)
                    if sent >= len(data):
                        selector.unregister(process.stdin)
                        process.stdin.close()
                    continue
                pipe = process.stdout if key.fileobj is process.stdout else process.stderr
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(pipe)
                    pipe.close()
                    continue
                if pipe is process.stdout:
                    out += chunk
                    if len(out) > OUTPUT_LIMIT:
                        raise _Stopped("output")
                else:
                    err += chunk
                    if len(err) > 2 * _STDERR_KEPT:  # only its end is ever quoted
                        del err[:-_STDERR_KEPT]
    try:  # both pipes closed: it has ended, or is about to
        process.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise _Stopped("time") from None
    return bytes(out), bytes(err[-_STDERR_KEPT:])


def _stop(process: subprocess.Popen[bytes], mark: str) -> None:
    """Stop the extractor and every process it started, and reap it: its process group, then every process
    that left the group (`setsid`, a double fork) but still carries the run's mark in its environment."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    _stop_marked(mark)
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


def _stop_marked(mark: str) -> None:
    """SIGKILL every process of this user whose environment holds `MEM_EXTRACTOR_RUN=mark`, until none is left.

    A process group does not hold a descendant that made its own session, and an orphan is re-parented away
    from its ancestors, but each inherits the environment it was started with, which Linux shows in
    `/proc/PID/environ` (as Jenkins finds a build's processes). A process started with a cleaned environment,
    and systems without `/proc`, are out of reach: there the process group is all that is stopped.
    """
    entry = f"{_MARK}={mark}".encode()
    for _ in range(_STOP_ROUNDS):  # a process may fork while the last round was killing its parent
        found = [pid for pid in _user_pids() if entry in _environment(pid)]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def _user_pids() -> list[int]:
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    return [int(name) for name in names if name.isdigit() and int(name) != os.getpid()]


def _environment(pid: int) -> list[bytes]:
    """The environment `pid` was started with, one `NAME=value` each ([] when it is not ours to read, or gone)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read(_ENVIRON_LIMIT).split(b"\0")
    except OSError:
        return []


def parse_output(text: str, name: str = "extractor") -> ExtractorOutput:
    """Validate an extractor's printed answer against the published schema (or raise ExtractorError)."""
    from pydantic import ValidationError

    from memfiles.format.extractor import ExtractorOutput

    try:
        raw = json.loads(_unfenced(text))
    except json.JSONDecodeError as exc:
        head = text.strip()[:_OUTPUT_HEAD]
        raise ExtractorError(
            f"extractor {name!r} printed invalid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            f"nothing was applied. Its output began: {head!r}"
        ) from None
    except RecursionError:
        raise ExtractorError(
            f"extractor {name!r} printed JSON nested too deeply to read; nothing was applied "
            "(the answer is one object of facts and changes: `mem schema extractor`)"
        ) from None
    try:
        return ExtractorOutput.model_validate(raw, strict=True)
    except RecursionError:
        raise ExtractorError(f"extractor {name!r} printed JSON nested too deeply to check; nothing applied") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}" for e in exc.errors()[:5])
        more = f" (and {exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
        raise ExtractorError(
            f"extractor {name!r} printed JSON that does not match the schema (`mem schema extractor`): "
            f"{problems}{more}; nothing was applied"
        ) from None


_FENCED = re.compile(r"\A\s*```[A-Za-z]*[ \t]*\r?\n(.*?)\r?\n```\s*\Z", re.S)


def _unfenced(text: str) -> str:
    """An answer that is one fenced code block (as LLM command-line tools often print JSON) is its content."""
    found = _FENCED.match(text)
    return found.group(1) if found else text


def check_ids(answer: ExtractorOutput, fact_ids: set[str], episode_ids: set[str]) -> None:
    """Refuse an answer that names a fact or an episode the request did not contain (nothing is applied)."""
    seen: dict[str, str] = {}
    for kind, decisions in (("supersede", answer.supersede), ("expire", answer.expire)):
        for number, decision in enumerate(decisions, start=1):
            where = f"{kind} #{number}"
            if decision.id not in fact_ids:
                raise ExtractorError(
                    f"extractor answer {where} names fact {decision.id!r}, which is not one of the current facts "
                    "it was given; nothing was applied"
                )
            if decision.id in seen:
                raise ExtractorError(
                    f"extractor answer names fact {decision.id!r} twice ({seen[decision.id]} and {where}); "
                    "nothing was applied"
                )
            seen[decision.id] = where
            _check_episode(decision.episode, episode_ids, where)
    for number, fact in enumerate(answer.new, start=1):
        _check_episode(fact.episode, episode_ids, f"new #{number}")


def _check_episode(episode: str | None, episode_ids: set[str], where: str) -> None:
    if episode is not None and episode not in episode_ids:
        raise ExtractorError(
            f"extractor answer {where} names episode {episode!r}, which is not one of the episodes it was given; "
            "nothing was applied"
        )
