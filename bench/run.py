"""Run every performance target of memfiles against a baseline measured in the same run, and report.

    python bench/run.py                 # 200, 10k and 100k episodes (the 100k corpus takes minutes once)
    python bench/run.py --quick         # skip the 100k corpus
    python bench/run.py --runs 9        # more runs per median

Each timed figure is the median of `--runs` whole-process runs, ours and the baseline interleaved
(A B A B …) so that a busy machine slows both alike; the ratio is ours / baseline. Corpora are
generated under --work (default /tmp/mem-bench) and reused. The table is printed and written as JSON
to bench/results/ (git-ignored). See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DEV_MEM = str(BIN / "mem") if (BIN / "mem").exists() else shutil.which("mem") or "mem"
MEM, PY = DEV_MEM, sys.executable  # main() points them at a regular install of this checkout (unless --dev)
RESULTS = Path(__file__).resolve().parent / "results"
WORDS = ("toronto", "warranty")  # a city in ~15% of episodes, a support word in ~30%


@dataclass
class Row:
    metric: str
    ours: float | None
    baseline: float | None
    unit: str
    target: str
    ok: bool | None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return self.ours / self.baseline if self.ours is not None and self.baseline else None


def run_once(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one whole process."""
    started = time.perf_counter()
    child = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    stderr = child.stderr.read().decode() if child.stderr else ""
    if child.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({child.returncode}): {stderr[-500:]}")
    return elapsed, usage.ru_maxrss


def paired(
    ours: list[str], baseline: list[str], env: dict[str, str], runs: int, cwd: Path | None = None
) -> tuple[float, float, int]:
    """Medians (ms) of `ours` and `baseline`, interleaved after one warm-up each; and our peak RSS (KiB)."""
    run_once(ours, env, cwd)
    run_once(baseline, env, cwd)
    mine, theirs, peak = [], [], 0
    for _ in range(runs):
        took, rss = run_once(ours, env, cwd)
        mine.append(took)
        peak = max(peak, rss)
        theirs.append(run_once(baseline, env, cwd)[0])
    return statistics.median(mine) * 1000, statistics.median(theirs) * 1000, peak


def environment(home: Path) -> dict[str, str]:
    # As a user runs it: bytecode caches written and used (a developer's shell may turn them off).
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(MEM_HOME=str(home), MEM_NOW=corpus.NOW, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@localhost")
    env.update(GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@localhost")
    return env


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        memory = f"{int(Path('/proc/meminfo').read_text().split()[1]) // 1024 // 1024} GiB"
    except (OSError, ValueError, IndexError):
        memory = "?"

    def version(*cmd: str) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "not installed"

    return {
        "os": f"{platform.system()} {platform.release()}",
        "cpu": f"{cpu} × {os.cpu_count()}",
        "memory": memory,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "git": version("git", "--version"),
        "ripgrep": version("rg", "--version"),
        "code": version("git", "-C", str(ROOT), "describe", "--always", "--dirty=+uncommitted changes"),
        "load average at start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def regular_install(work: Path) -> tuple[str, str]:
    """`mem` and `python` of a regular install of this checkout, as the README's first command makes one
    (`pip install .`), in WORK/venv: installed once with its dependencies, then this code again each run.

    The development install (`pip install -e`) puts an import hook in front of every start (15 ms
    here) that a user's install does not have.
    """
    venv = work / "venv"
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([*pip, str(ROOT)], check=True)
    else:
        subprocess.run([*pip, "--no-deps", "--force-reinstall", str(ROOT)], check=True)
    return str(venv / "bin" / "mem"), str(venv / "bin" / "python")


def start_up(work: Path, runs: int) -> list[Row]:
    home = corpus.scope_home(work / "scope-200", 200)
    env = environment(home)
    typer = [PY, "-c", "import typer"]
    rows = []
    ours, base, _ = paired([MEM, "--version"], typer, env, runs)
    rows.append(Row("mem --version", ours, base, "ms", "≤ 1.3 × import typer", ours <= 1.3 * base))
    recall = [MEM, "recall", WORDS[0], "-u", "bench"]
    ours, base, _ = paired(recall, typer, env, runs)
    rows.append(Row("mem recall, 200 episodes", ours, base, "ms", "≤ 1.6 × import typer", ours <= 1.6 * base))
    return rows


def recall_at(work: Path, count: int, runs: int, limit: float) -> list[Row]:
    name = f"{count // 1000}k" if count >= 1000 else str(count)
    started = time.perf_counter()
    home = corpus.scope_home(work / f"scope-{name}", count)
    generated = time.perf_counter() - started
    env = environment(home)
    started = time.perf_counter()
    took, build_rss = run_once([MEM, "doctor", "--reindex"], env)  # builds the index from scratch
    newest = max((home / ".cache" / "index").glob("user-bench.*.sqlite3"), key=lambda p: p.stat().st_mtime)
    size = sum(Path(f"{newest}{s}").stat().st_size for s in ("", "-wal") if Path(f"{newest}{s}").exists()) / 2**20
    note = f"corpus {'reused' if generated < 5 else f'made in {generated:.0f}s'}"
    rows = [
        Row(
            f"index build, {name} episodes",
            took * 1000,
            None,
            "ms",
            "(informative)",
            None,
            f"{size:.0f} MiB, peak RSS {build_rss / 1024:.0f} MiB; {note}",
        )
    ]
    peak_all = 0
    for word in WORDS:
        ours, base, peak = paired(
            [MEM, "recall", word, "-u", "bench"], ["rg", "-i", "-l", word, "users/bench/episodes"], env, runs, home
        )
        peak_all = max(peak_all, peak)
        target = f"< {limit:g} × rg -i -l" if limit == 1 else f"≤ {limit:g} × rg -i -l"
        ok = ours < limit * base if limit == 1 else ours <= limit * base
        rows.append(Row(f"mem recall {word}, {name} episodes", ours, base, "ms", target, ok))
    if count >= 100_000:
        rows.append(
            Row(f"peak RSS of recall, {name}", peak_all / 1024, None, "MiB", "< 200 MiB", peak_all < 200 * 1024)
        )
    if count == 10_000:
        rows.append(same_results(home, env))
    return rows


SAME_RESULTS = """
import json, sys
from memfiles.recall import retrieve
from memfiles.api import open_home
from memfiles.format.layout import Scope
context = open_home(sys.argv[1])
checked = differ = 0
for query in ("toronto", "warranty claim", "investing bonus", "recieve refnd", "", "what is it", "knee injury"):
    for given in ({}, {"since": "90d"}, {"as_of": "2026-03-01"}, {"until": "2025-06-01"}, {"half_life_days": 0.0}):
        options = retrieve.recall_options(context.config, None, "all", given.get("since"), given.get("until"),
                                          given.get("as_of"), None, given.get("half_life_days"))
        a = retrieve.recall(context.paths, [Scope("user", "bench")], query, options, use_index=True)
        b = retrieve.recall(context.paths, [Scope("user", "bench")], query, options, use_index=False)
        checked += 1
        differ += [i.to_dict() for i in a.items] != [i.to_dict() for i in b.items] or a.rendered.text != b.rendered.text
print(json.dumps({"checked": checked, "differ": differ}))
"""


def same_results(home: Path, env: dict[str, str]) -> Row:
    done = subprocess.run([PY, "-c", SAME_RESULTS, str(home)], env=env, capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    return Row(
        "recall with index == without (10k)",
        found["checked"] - found["differ"],
        found["checked"],
        "queries",
        "all identical",
        found["differ"] == 0,
        "7 queries × 5 ranges",
    )


def writes(work: Path, runs: int) -> list[Row]:
    """mem add and mem episode, each a whole process with its commit, on the home of 10,000 users."""
    tenants = corpus.tenant_home(work / "tenants-10k", 10_000, 50)
    env = environment(tenants)
    token = time.strftime("%H%M%S")  # new values each bench run: a repeat would only reinforce
    base = [PY, "-c", "import typer"]
    rows = []

    def write(mem: str, what: str, n: int) -> list[str]:
        """The n-th write: new values each bench run (a repeat would only reinforce), spread over the users."""
        tag = " dev" if mem != MEM else ""
        if what == "add":
            return [mem, "add", f"bench_{n}", f"value{tag} {token} {n}", "-u", f"u{n * 37 % 10_000:05d}"]
        return [mem, "episode", f"Bench{tag} {token} {n}: refund issued", "-u", f"u{n * 53 % 10_000:05d}"]

    for what in ("add", "episode"):
        ours, theirs = timed_writes(partial(write, MEM, what), base, env, runs)
        rows.append(Row(f"mem {what}, home of 10,000 files", ours, theirs, "ms", "≤ 150 ms", ours <= 150))
    if MEM != DEV_MEM:  # the same two through the development install, beside the same baseline
        for what in ("add", "episode"):
            ours, theirs = timed_writes(partial(write, DEV_MEM, what), base, env, runs)
            note = "pip install -e: its import hook runs first"
            rows.append(Row(f"mem {what}, development install", ours, theirs, "ms", "(informative)", None, note))
    rows += add_loop(tenants, env, token)
    wait_for_gc(tenants)
    return rows


def timed_writes(
    make: Callable[[int], list[str]], base: list[str], env: dict[str, str], runs: int
) -> tuple[float, float]:
    """Medians (ms) of `runs` writes `make(n)` and of the baseline, interleaved, after one warm-up write."""
    mine, theirs = [], []
    run_once(make(runs), env)
    for n in range(runs):
        mine.append(run_once(make(n), env)[0] * 1000)
        theirs.append(run_once(base, env)[0] * 1000)
    return statistics.median(mine), statistics.median(theirs)


ADD_LOOP = """
import json, os, subprocess, sys, time
from memfiles.api import open_home
from memfiles.format.layout import Scope
from memfiles.format.memoryfile import parse
from memfiles.ops.writepath import NewFact, add_fact
context = open_home(sys.argv[1])
token = sys.argv[3]
fixed = (context.paths.root / "users" / "u00001" / "MEMORY.md").read_bytes()
gc_lock = os.path.join(sys.argv[1], ".git", "gc.pid")
adds, references, gc = [], [], []
for n in range(int(sys.argv[2])):
    started = time.perf_counter()
    scope = Scope("user", f"u{n * 7919 % 10000:05d}")
    add_fact(context.paths, context.config, scope, NewFact(f"loop_{n}", f"v{token}-{n}"))
    adds.append(time.perf_counter() - started)
    gc.append(os.path.exists(gc_lock))  # a gc git started in the background (gc --auto) shares the machine
    started = time.perf_counter()
    subprocess.run(["git", "-C", sys.argv[1], "hash-object", "--stdin"], input=fixed, capture_output=True, check=True)
    parse(fixed, "reference")
    references.append(time.perf_counter() - started)
print(json.dumps([adds, references, gc]))
"""


def add_loop(home: Path, env: dict[str, str], token: str, count: int = 1000) -> list[Row]:
    """Whether an add's time grows with the count: the last 100 against the first 100 of `count` adds.

    Over the minute the loop takes, the shared host's speed drifts by up to 1.3 × with nothing of
    ours changing. So each add is also divided by a reference timed right after it: one git process
    and the parse of a fixed MEMORY.md, the two kinds of work an add does, neither of which grows.
    Every few thousand loose objects git starts a gc in the background (as after `git commit`), which
    runs for a few hundred adds wherever in the loop it falls: the judged ratio leaves out the adds
    that ended while it ran (the first and last 100 of the others), and says how many there were.
    """
    # New values each bench run: with the same ones (and MEM_NOW fixed) every add would change nothing
    # and commit nothing, so the loop would time no-op writes.
    done = subprocess.run([PY, "-c", ADD_LOOP, str(home), str(count), token], env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr)
    adds, references, gc = json.loads(done.stdout)
    during = [n for n, running in enumerate(gc) if running]
    gc_note = f"; left out: {len(during)} adds that ended while git's background gc ran"
    if during:
        gc_note += f" (adds {during[0]}-{during[-1]})"
    first = statistics.median(adds[:100]) * 1000
    last = statistics.median(adds[-100:]) * 1000
    shares = [add / reference for add, reference, running in zip(adds, references, gc, strict=True) if not running]
    share_first, share_last = statistics.median(shares[:100]), statistics.median(shares[-100:])
    return [
        Row(
            f"{count} adds in a loop: last 100 vs first 100",
            last,
            first,
            "ms",
            "(informative: host drift included)",
            None,
            "in-process writepath.add_fact, spread over users",
        ),
        Row(
            f"{count} adds in a loop: last 100 vs first 100, each over a reference timed after it",
            share_last,
            share_first,
            "×",
            "ratio ≤ 1.25 (no growth)",
            share_last <= 1.25 * share_first,
            "reference: git hash-object and parsing a fixed MEMORY.md" + gc_note,
        ),
    ]


def wait_for_gc(home: Path, limit: float = 300) -> None:
    """Wait until a gc that git started in the background (as `git commit` does, every few thousand
    loose objects) has finished, so that it does not share the machine with the next rows."""
    lock = home / ".git" / "gc.pid"
    deadline = time.monotonic() + limit
    while lock.exists() and time.monotonic() < deadline:
        time.sleep(0.2)


def lint(work: Path, runs: int) -> list[Row]:
    env = environment(work / "scope-10k")
    probe = subprocess.run([MEM, "lint", "--help"], env=env, capture_output=True, text=True)
    if probe.returncode != 0:
        print("lint: not available", file=sys.stderr)
        return [Row("mem lint", None, None, "", "≥ 20 MB/s; 1,000 files ≤ 1 s", None, "lint: not available")]
    big = corpus.scope_home(work / "scope-10k", 10_000)
    files = [str(p) for p in sorted((big / "users").rglob("*.md"))]
    size = sum(Path(f).stat().st_size for f in files) / 1e6
    scan = ["rg", "-c", "-i", "ignore (all|previous) instructions", "users"]
    ours, base, _ = paired([MEM, "lint", "users"], scan, env, runs, big)
    rate = size / (ours / 1000)
    rows = [Row("mem lint throughput", rate, size / (base / 1000), "MB/s", "≥ 20 MB/s", rate >= 20, f"{size:.0f} MB")]
    one, _, _ = paired([MEM, "lint", "--jobs", "1", "users"], scan, env, max(3, runs // 2), big)
    rows.append(Row("mem lint throughput, one process", size / (one / 1000), None, "MB/s", "(informative)", None))
    small = corpus.scope_home(work / "scope-1k", 1000)
    ours, base, _ = paired([MEM, "lint", "users"], scan, environment(small), runs, small)
    rows.append(Row("mem lint, 1,000 small files", ours, base, "ms", "≤ 1000 ms", ours <= 1000, "vs rg scan"))
    return rows


def table(rows: list[Row]) -> str:
    head = ["metric", "ours", "baseline", "ratio", "target", "result"]
    lines = []
    for row in rows:
        ours = "—" if row.ours is None else f"{row.ours:,.1f} {row.unit}"
        base = "—" if row.baseline is None else f"{row.baseline:,.1f} {row.unit}"
        ratio = "—" if row.ratio is None else f"{row.ratio:.3f}"  # enough digits that 1.603 never reads as 1.60
        result = "—" if row.ok is None else ("pass" if row.ok else "FAIL")
        lines.append([row.metric + (f" ({row.note})" if row.note else ""), ours, base, ratio, row.target, result])
    widths = [max(len(str(x)) for x in column) for column in zip(head, *lines, strict=False)]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |"]
    out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    out += ["| " + " | ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)) + " |" for line in lines]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/mem-bench"), help="where corpora are made and kept")
    parser.add_argument("--runs", type=int, default=7, help="runs per median (≥ 5)")
    parser.add_argument("--quick", action="store_true", help="skip the 100k-episode corpus")
    parser.add_argument("--only", choices=("startup", "recall", "writes", "lint"), help="one group of targets")
    parser.add_argument("--dev", action="store_true", help="time the development install's mem, not a regular one")
    args = parser.parse_args(argv)
    global MEM, PY
    if shutil.which("rg") is None:
        raise SystemExit("bench needs ripgrep: apt-get install ripgrep hyperfine")
    args.work.mkdir(parents=True, exist_ok=True)
    if not args.dev:
        MEM, PY = regular_install(args.work)
    about = machine()
    about["mem"] = f"{MEM} ({'development install' if MEM == DEV_MEM else 'regular install of this checkout'})"
    rows: list[Row] = []
    if args.only in (None, "startup"):
        rows += start_up(args.work, args.runs)
    if args.only in (None, "recall"):
        rows += recall_at(args.work, 10_000, args.runs, 3)
        if not args.quick:
            rows += recall_at(args.work, 100_000, args.runs, 1)
    if args.only in (None, "writes"):
        rows += writes(args.work, args.runs)
    if args.only in (None, "lint"):
        rows += lint(args.work, args.runs)
    about["load average at end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    text = table(rows)
    print("\n".join(f"- {k}: {v}" for k, v in about.items()))
    print(f"- runs per median: {args.runs}\n")
    print(text)
    RESULTS.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    report = {"machine": about, "runs": args.runs, "rows": [asdict(r) | {"ratio": r.ratio} for r in rows]}
    for name in (f"{stamp}.json", "latest.json"):
        (RESULTS / name).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return 0 if all(r.ok is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
