"""The `mem` console script. `mem add`, `mem episode`, `mem recall` and `mem lint` start here without typer;
everything else goes to memfiles.cli.

An agent runs the first three on every turn (recall as a prompt hook), pre-commit runs lint on every
commit, and importing typer costs 40-60 ms of a write's 150 ms budget. So `quick` reads their command
lines here, but only the plain ones, exactly as typer reads them: options spelt out (`--user alice`,
`--user=alice`, `-u alice`), in any order among the arguments, the last of a repeated option winning (a
repeatable one collects), numbers written as plain digits (`5`, `0.5`). Any line it is not sure of goes
to typer, which explains what is wrong in its own words: help, `--version`, an unknown, malformed or
abbreviated option, a missing or extra argument, a value that starts with `-`, a number out of range or
written otherwise, `--`, `--from-json`, shell completion.
tests/test_launch.py compares what both read on many command lines, and these tables with typer's.
"""

from __future__ import annotations

import gc
import os
import re
import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

_NO_OPTIONS: Mapping[str, Any] = MappingProxyType({})


class Spec(NamedTuple):  # named tuples, not dataclasses: importing `dataclasses` costs every `mem lint` (findings.py)
    """The part of a command's line `quick` reads: arguments in order, then options by spelling."""

    arguments: tuple[str, ...] = ()
    required: int = 0  # how many of the arguments must be given
    variadic: bool = False  # the last argument takes all the others (a list)
    values: Mapping[str, str] = _NO_OPTIONS  # option spelling -> parameter taking one value
    flags: Mapping[str, str] = _NO_OPTIONS  # option spelling -> parameter set to True
    negations: Mapping[str, str] = _NO_OPTIONS  # option spelling (`--no-…`) -> parameter set to False
    repeatable: frozenset[str] = frozenset()  # parameters that collect every value given
    choices: Mapping[str, tuple[str, ...]] = _NO_OPTIONS  # parameter -> the values it accepts
    numbers: Mapping[str, tuple[type, float | None]] = _NO_OPTIONS  # parameter -> (int or float, min)


_SCOPE = {"--user": "user", "-u": "user", "--scope": "scope", "-s": "scope"}
GLOBAL = Spec(values={"--home": "home"}, flags={"--debug": "debug"})
COMMANDS = {
    "add": Spec(
        arguments=("key", "value"),
        required=2,
        values={"--subject": "subject", "--source": "source", "--ref": "ref", "--at": "at", "--expires": "expires"}
        | _SCOPE,
        flags={"--inferred": "inferred", "--json": "as_json"},
    ),
    "episode": Spec(
        arguments=("summary",),
        values={
            "--session": "session",
            "--at": "at",
            "--ended": "ended",
            "--entity": "entity",
            "--event": "event",
            "--outcome": "outcome",
            "--fact": "fact",
            "--invalidates": "invalidates",
            "--source": "source",
        }
        | _SCOPE,
        flags={"--json": "as_json"},
        repeatable=frozenset({"entity", "event", "fact", "invalidates"}),
        choices={"outcome": ("success", "failure", "partial", "unknown")},
    ),
    "recall": Spec(
        arguments=("query",),
        values={
            "-k": "k",
            "--kind": "kind",
            "--since": "since",
            "--until": "until",
            "--as-of": "as_of",
            "--min-score": "min_score",
            "--budget": "budget",
            "--format": "fmt",
            "--half-life": "half_life",
        }
        | _SCOPE,
        flags={"--explain": "explain", "--hook": "hook"},
        repeatable=frozenset({"user", "scope"}),
        choices={"kind": ("all", "facts", "episodes"), "fmt": ("block", "json", "table")},
        numbers={"k": (int, 1), "min_score": (float, None), "budget": (int, 1), "half_life": (float, 0)},
    ),
    "lint": Spec(
        arguments=("paths",),
        variadic=True,
        values={"--format": "fmt", "--select": "select", "--ignore": "ignore", "--explain": "explain"}
        | {"--jobs": "jobs", "-j": "jobs"},
        flags={"--show-suppressed": "show_suppressed"},
        negations={"--no-show-suppressed": "show_suppressed"},
        numbers={"jobs": (int, 1)},
    ),
}
_DIGITS = {int: re.compile(r"[0-9]+"), float: re.compile(r"[0-9]+(?:\.[0-9]+)?")}


class Quick(NamedTuple):
    """A command line read here: the command, its parameters, and the global options."""

    command: str
    params: dict[str, Any]
    home: str | None
    debug: bool


def quick(argv: list[str]) -> Quick | None:
    """Read `argv` (without the program name) as typer would, or None when typer should read it."""
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return None
    read = _read(argv, GLOBAL, stop_at_argument=True)
    if read is None:
        return None
    given, rest = read
    if not rest or rest[0] not in COMMANDS or given.get("home") == "":  # typer reads `--home ""` as "."
        return None
    spec = COMMANDS[rest[0]]
    read = _read(rest[1:], spec, stop_at_argument=False)
    if read is None:
        return None
    params, arguments = read
    if spec.variadic:
        if arguments:
            params[spec.arguments[-1]] = arguments
    elif not spec.required <= len(arguments) <= len(spec.arguments):
        return None
    else:
        params.update(zip(spec.arguments, arguments, strict=False))
    home = given.get("home") or os.environ.get("MEM_HOME") or None  # typer: an empty $MEM_HOME is unset
    return Quick(rest[0], params, home, bool(given.get("debug")))


def _read(tokens: list[str], spec: Spec, stop_at_argument: bool) -> tuple[dict[str, Any], list[str]] | None:
    """The options in `tokens` and the arguments among them (all the rest, with `stop_at_argument`, from
    the first argument on); None at anything typer may read otherwise."""
    params: dict[str, Any] = {}
    arguments: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "-" or not token.startswith("-"):
            if stop_at_argument:
                return params, tokens[index - 1 :]
            arguments.append(token)
            continue
        spelling, equals, attached = token.partition("=")
        if spelling in spec.flags and not equals:
            params[spec.flags[spelling]] = True
            continue
        if spelling in spec.negations and not equals:
            params[spec.negations[spelling]] = False
            continue
        name = spec.values.get(spelling)
        if name is None or (equals and not spelling.startswith("--")):
            return None  # not an option of this command, or `-u=x`, which typer reads as the value "=x"
        if equals:
            value = attached
        elif index < len(tokens) and not tokens[index].startswith("-"):
            value, index = tokens[index], index + 1
        else:
            return None
        if name in spec.choices and value not in spec.choices[name]:
            return None
        if name in spec.numbers:
            kind, least = spec.numbers[name]
            if not _DIGITS[kind].fullmatch(value) or (least is not None and kind(value) < least):
                return None
            value = kind(value)
        if name in spec.repeatable:
            params.setdefault(name, []).append(value)
        else:
            params[name] = value
    return params, arguments


def run_quick(found: Quick) -> int:
    """Run a command read by `quick` as memfiles.cli runs it: an error is one line and its exit code."""
    from memfiles import commands, output
    from memfiles.errors import MemError

    run: dict[str, Callable[..., int]] = {
        "add": commands.add,
        "episode": commands.episode,
        "recall": commands.recall,
        "lint": commands.lint,
    }
    try:
        return run[found.command](found.home, **found.params)
    except MemError as exc:
        if found.debug:
            raise
        output.error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        output.error("interrupted")
        return 130


def entry() -> None:
    """Console-script entry point: run the command, then leave without tearing the interpreter down.

    Teardown costs ~12 ms with rapidfuzz, sqlite and typer loaded; every file and connection is
    closed by then, so only the output needs flushing.
    """
    import contextlib

    found = quick(sys.argv[1:])
    if found is not None:
        # Each of these commands is one short process, which leaves almost no reference cycles for the cyclic
        # garbage collector: 48 objects after linting the bench's 10,001 files, 423 after a recall over 100,000
        # episodes, about 400 after `mem add`. Its passes were 4 % of `mem add`'s instructions (over the modules
        # imported) and 1 % of a lint run's (over the prefilter's caches). Paused and resumed inside lint, the
        # first pass after resuming walked everything the run had made: 51 ms. The server (`mem mcp`) and the
        # other commands keep it.
        gc.disable()
    code: object = 0
    try:
        if found is not None:
            code = run_quick(found)
        else:
            from memfiles.cli import run

            run()
    except SystemExit as exc:
        code = exc.code
    if code is not None and not isinstance(code, int):
        sys.stderr.write(f"{code}\n")
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BrokenPipeError, ValueError):  # a reader that stopped early (`| head -1`)
            stream.flush()
    os._exit(code or 0)
