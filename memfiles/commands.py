"""What the commands run most often do once their command line is read: `mem add`, `mem episode` and
`mem recall` (with its hook mode), which an agent runs on every turn, and `mem lint`, which pre-commit
runs on every commit. Each calls the core once, prints, and returns an exit code.

Both readers of the command line call these: memfiles.cli (typer, for help and every other command) and
memfiles.launch (the quick start of these commands). Nothing here imports typer, and `recall` imports
nothing that writes (no git). A MemError goes up to the caller, which prints it as one line with its
exit code. The defaults here are the command line's: tests/test_launch.py compares them with typer's.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO

from memfiles import output


def add(
    home: str | os.PathLike[str] | None,
    key: str,
    value: str,
    subject: str = "user_preference",
    inferred: bool = False,
    source: str | None = None,
    ref: str | None = None,
    at: str | None = None,
    expires: str | None = None,
    user: str | None = None,
    scope: str | None = None,
    as_json: bool = False,
) -> int:
    """`mem add`: remember one keyed fact through the guarded write path; 1 when it was refused."""
    from memfiles.errors import RefusedError
    from memfiles.format.model import Outcome
    from memfiles.ops.home import choose_scope, open_context
    from memfiles.ops.writepath import NewFact, add_fact

    context = open_context(home)
    chosen = choose_scope(context.config, user, scope)
    try:
        if value == "-":
            value = read_stdin(context.config.memory.max_value_chars)
        result = add_fact(
            context.paths, context.config, chosen, NewFact(key, value, subject, inferred, source, ref, at, expires)
        )
    except RefusedError as exc:
        output.outcome(Outcome("refused", str(chosen), key, rule=exc.rule, why=exc.why), as_json)
        return 1
    output.outcome(result, as_json)
    return 0


def read_stdin(limit: int) -> str:
    """A value from standard input, read only up to just past `limit`, so a huge paste is refused cheaply."""
    from memfiles.errors import RefusedError

    text = sys.stdin.read(limit + 2)
    text = text[:-1] if text.endswith("\n") else text
    if len(text) > limit:
        raise RefusedError("MEM602", f"value from standard input is over the limit of {limit} characters")
    return text


def episode(
    home: str | os.PathLike[str] | None,
    summary: str | None = None,
    session: str | None = None,
    at: str | None = None,
    ended: str | None = None,
    entity: list[str] | None = None,
    event: list[str] | None = None,
    outcome: str = "unknown",
    fact: list[str] | None = None,
    invalidates: list[str] | None = None,
    source: str | None = None,
    user: str | None = None,
    scope: str | None = None,
    as_json: bool = False,
    from_json: TextIO | None = None,
) -> int:
    """`mem episode`: record one episode file (one commit); 1 when it was refused.

    `from_json`: the file of --from-json (read only when it is the only input), instead of SUMMARY and options.
    """
    from memfiles.errors import RefusedError, UsageError
    from memfiles.format.episodes import split_pair
    from memfiles.ops.home import choose_scope, open_context
    from memfiles.ops.writepath import NewCandidate, NewEpisode, NewInvalidation, add_episodes

    context = open_context(home)
    chosen = choose_scope(context.config, user, scope)
    if from_json is not None:
        if any([summary, session, at, ended, entity, event, fact, invalidates, source]) or outcome != "unknown":
            raise UsageError("give either SUMMARY with options or --from-json, not both")
        from memfiles.schema import episodes_from_json

        batch = episodes_from_json(from_json.read(), from_json.name)
    elif summary is None:
        raise UsageError("give the episode's SUMMARY, or --from-json FILE (- for stdin)")
    else:
        facts = [NewCandidate(*split_pair(f, "--fact")) for f in fact or []]
        stale = [NewInvalidation(*split_pair(i, "--invalidates")) for i in invalidates or []]
        batch = [NewEpisode(summary, session, at, ended, entity or [], event or [], outcome, facts, stale, source)]
    try:
        results = add_episodes(context.paths, context.config, chosen, batch)
    except RefusedError as exc:
        output.refused(exc.rule, exc.why, as_json)
        return 1
    output.episodes_recorded(results, as_json)
    return 0


def recall(
    home: str | os.PathLike[str] | None,
    query: str | None = None,
    user: list[str] | None = None,
    scope: list[str] | None = None,
    k: int | None = None,
    kind: str = "all",
    since: str | None = None,
    until: str | None = None,
    as_of: str | None = None,
    min_score: float | None = None,
    budget: int | None = None,
    fmt: str = "block",
    explain: bool = False,
    half_life: float | None = None,
    hook: bool = False,
) -> int:
    """`mem recall`: the facts and episodes relevant to `query`, printed as a block (or JSON, or a table)."""
    if hook:
        return _hook(home, user, scope)
    from memfiles.errors import UsageError
    from memfiles.ops.home import open_context
    from memfiles.recall import retrieve

    if query is None:
        raise UsageError('give a QUERY ("" for everything in range), or --hook')
    context = open_context(home)
    scopes = retrieve.choose_scopes(context.config, user, scope)
    options = retrieve.recall_options(context.config, k, kind, since, until, as_of, min_score, half_life)
    found = retrieve.recall(context, scopes, query, options, budget=budget)
    output.problems(found.problems)
    output.recalled(found, fmt, explain)
    return 0


def _hook(home: str | os.PathLike[str] | None, user: list[str] | None, scope: list[str] | None) -> int:
    """`mem recall --hook`: a Claude Code hook's block for its JSON on stdin; always 0, so a broken memory
    never blocks a session (the problem is reported on stderr)."""
    try:
        from memfiles.recall import retrieve

        text = retrieve.hook_block(sys.stdin.read(), home, user or [], scope or [])
    except Exception as exc:
        output.error(f"hook: {exc}")
        return 0
    output.block(text)
    return 0


def lint(
    home: str | os.PathLike[str] | None,
    paths: Sequence[str | os.PathLike[str]] | None = None,
    fmt: str = "text",
    select: str | None = None,
    ignore: str | None = None,
    explain: str | None = None,
    show_suppressed: bool = False,
    jobs: int | None = None,
) -> int:
    """`mem lint`: check files and folders (none given: the memory home, with mem.toml's ignored codes); 1 with
    findings."""
    from pathlib import Path

    from memfiles.errors import UsageError
    from memfiles.lint import engine as linting

    if explain:
        output.lint_explain(linting.explain(explain))
        return 0
    if fmt not in ("text", "json", "github"):
        raise UsageError(f"--format {fmt!r}: use text, json or github")
    ignored = linting.parse_codes(ignore)
    base = Path.cwd()
    if not paths:
        from memfiles.errors import HomeError
        from memfiles.format.config import load_config
        from memfiles.format.layout import CONFIG_NAME, require_home, resolve_home

        try:
            base = require_home(resolve_home(home))
        except HomeError as exc:
            raise UsageError(f"mem lint: give files or folders to check, or a memory home ({exc})") from None
        ignored += linting.parse_codes(",".join(load_config(base / CONFIG_NAME).lint.ignore))
        paths = [base]
    report = linting.lint_paths([Path(path) for path in paths], linting.parse_codes(select), ignored, base, jobs)
    output.lint_report(report, fmt, show_suppressed)
    return 1 if report.findings else 0
