"""What bench/run.py and its cost rows share: rows, the whole-process timer, the regular installs of this checkout."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import corpus

ROOT = Path(__file__).resolve().parent.parent
BASELINES = {
    "T": "import typer; typer.run(lambda: None)",  # a minimal typer app
    "R": "import typer, rich.console, pydantic, yaml, rapidfuzz, sqlite3",  # what a read may need
    "W": "import typer, rich.console, pydantic, yaml, git",  # what a write may need
}


@dataclass
class Row:
    metric: str
    ours: float
    baseline: float | None  # None: an absolute budget, or a note
    unit: str
    target: str  # "" on a note row
    ok: bool | None  # None on a note row
    against: str = ""  # what the baseline is: T, R, W or rg

    @property
    def ratio(self) -> float | None:
        return self.ours / self.baseline if self.baseline else None


def ratio_row(metric: str, ours: float, base: float, against: str, limit: float, strict: bool = False) -> Row:
    """ours ≤ limit × base (or < when strict)."""
    ok = ours < limit * base if strict else ours <= limit * base
    return Row(metric, ours, base, "ms", f"{'<' if strict else '≤'} {limit:g} × {against}", ok, against)


def budget_row(metric: str, ours: float, limit: float, unit: str, strict: bool = False) -> Row:
    ok = ours < limit if strict else ours <= limit
    return Row(metric, ours, None, unit, f"{'<' if strict else '≤'} {limit:g} {unit}", ok)


def note_row(metric: str, ours: float, unit: str) -> Row:
    return Row(metric, ours, None, unit, "", None)


class Bench:
    """The installed `mem` and `python`, the runs per median, and the whole-process timers."""

    def __init__(self, work: Path, runs: int, extra: str | None = None) -> None:
        self.work, self.runs = work, runs
        self.mem, self.python = regular_install(work, extra)

    def baseline(self, name: str) -> list[str]:
        return [self.python, "-c", BASELINES[name]]

    def once(
        self, cmd: list[str], env: dict[str, str], cwd: Path | None = None, stdin: bytes | None = None
    ) -> tuple[float, int]:
        """Wall milliseconds and peak RSS (KiB) of one whole process (`stdin` written to it, as a hook's JSON);
        exit 0 or 1 (lint's findings) only."""
        started = time.perf_counter()
        child = subprocess.Popen(
            cmd,
            env=env,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        )
        if stdin is not None and child.stdin is not None:
            child.stdin.write(stdin)
            child.stdin.close()
        _pid, status, usage = os.wait4(child.pid, 0)
        took = (time.perf_counter() - started) * 1000
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            stderr = child.stderr.read().decode(errors="replace") if child.stderr else ""
            raise SystemExit(f"bench: `{' '.join(cmd)}` exited {code}:\n{stderr[-800:]}")
        if child.stderr:
            child.stderr.close()
        return took, usage.ru_maxrss

    def paired(
        self, ours: Callable[[int], list[str]], base: list[str], env: dict[str, str], cwd: Path | None = None
    ) -> tuple[float, float, int]:
        """Medians (ms) of ours(n) and of base, interleaved after one warm-up each; and our peak RSS (KiB)."""
        self.once(ours(self.runs), env, cwd)
        self.once(base, env, cwd)
        mine, theirs, peak = [], [], 0
        for n in range(self.runs):
            took, rss = self.once(ours(n), env, cwd)
            mine.append(took)
            peak = max(peak, rss)
            theirs.append(self.once(base, env, cwd)[0])
        return statistics.median(mine), statistics.median(theirs), peak

    def median(self, cmd: list[str], env: dict[str, str]) -> float:
        """Median (ms) of cmd alone, after one warm-up: for absolute budgets."""
        self.once(cmd, env)
        return statistics.median(self.once(cmd, env)[0] for _ in range(self.runs))


def environment(home: Path) -> dict[str, str]:
    """As a user runs mem: bytecode caches written and used (a developer's shell may turn them off)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(MEM_HOME=str(home), MEM_NOW=corpus.NOW)
    for who in ("AUTHOR", "COMMITTER"):
        env.update({f"GIT_{who}_NAME": "bench", f"GIT_{who}_EMAIL": "bench@localhost"})
    return env


def regular_install(work: Path, extra: str | None = None) -> tuple[str, str]:
    """`mem` and `python` of a regular install of this checkout (`pip install .`, as a user makes one) in
    WORK/venv (with `extra`: `pip install '.[extra]'` in WORK/venv-EXTRA, so the other rows keep running
    without it): made once with its dependencies, then this code reinstalled on every run.

    Not the development install (`pip install -e`): its import hook runs before every start.
    """
    venv = work / (f"venv-{extra}" if extra else "venv")
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([*pip, f"{ROOT}[{extra}]" if extra else str(ROOT)], check=True)
        else:
            subprocess.run([*pip, "--no-deps", "--force-reinstall", str(ROOT)], check=True)
    except subprocess.CalledProcessError as exc:
        raise SystemExit(
            f"bench: installing this checkout into {venv} failed ({exc}); remove {venv} and retry"
        ) from exc
    return str(venv / "bin" / "mem"), str(python)


def settle(seconds: float = 2.1) -> None:
    """Wait out the index's racy window (files changed within 2 s are re-checked by content on each use)."""
    time.sleep(seconds)
