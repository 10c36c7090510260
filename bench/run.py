"""Measure memfiles against the performance targets of issue 24, each beside a baseline timed in the same run.

    python bench/run.py                       # every row, with the 100k-episode corpus (made once: minutes)
    python bench/run.py --quick               # skip the 100k corpus and the 10k reindex
    python bench/run.py --only version,add    # some rows (names below)
    python bench/run.py --runs 11 --json      # more runs per median; the rows as JSON

Rows (--only names): version, recall200, recall10k, add, episode, recall100k (with its peak RSS),
lint1k, lint10k; and the memfiles[semantic] extra's cost on an install with it (bench/semantic_cost.py):
reindex10k (minutes), semantic. Each figure is the median of --runs whole processes; ours and the baseline run
interleaved (A B A B ...) after one warm-up each, so a busy machine slows both alike, and the ratio is
ours / baseline of the same run. `mem` is a regular install of this checkout (`pip install .`) in
WORK/venv, and the baselines run on that venv's python. Recall is timed warm: one recall builds the
scope's index first; what that first build, and catching up after one new file, cost is reported on
note rows (no target). Corpora are generated under --work and kept. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus
from timing import BASELINES, ROOT, Bench, Row, budget_row, environment, note_row, ratio_row, settle

ROWS = (
    "version",
    "recall200",
    "recall10k",
    "add",
    "episode",
    "recall100k",
    "lint1k",
    "lint10k",
    "reindex10k",
    "semantic",
)
WORDS = ("toronto", "warranty")  # a city in ~15% of the episodes, a support word in ~30%


def recall(bench: Bench, count: int, against: str, limit: float, strict: bool = False) -> list[Row]:
    """mem recall on a scope of `count` episodes, warm, against baseline T/R or `rg -i -l` over the same files."""
    name = f"{count // 1000}k" if count >= 1000 else str(count)
    home = corpus.scope_home(bench.work / f"scope-{name}", count)
    env = environment(home)
    wait_for_gc(home)

    def query(word: str) -> Callable[[int], list[str]]:
        return lambda _n: [bench.mem, "recall", word, "-u", "bench"]

    index = home / ".cache" / "index"
    if count < 100_000 or not index.exists():  # at 100k the first build takes minutes: once per corpus
        shutil.rmtree(index, ignore_errors=True)
        settle()
        notes = [note_row(f"  first recall, {name}: builds the index", bench.once(query(WORDS[0])(0), env)[0], "ms")]
    else:
        notes = []
    extra = corpus.write_episode(home, count)  # one file more, as a sync brings it
    try:
        took = bench.once(query(WORDS[0])(0), env)[0]
        notes.append(note_row(f"  first recall, {name}, after 1 new file", took, "ms"))
    finally:
        extra.unlink()
    settle()
    bench.once(query(WORDS[0])(0), env)  # the index forgets the file again
    rows, peak = [], 0
    for word in WORDS:
        base = ["rg", "-i", "-l", word, "users/bench"] if against == "rg" else bench.baseline(against)
        ours, theirs, rss = bench.paired(query(word), base, env, home)
        peak = max(peak, rss)
        rows.append(ratio_row(f"mem recall {word}, {name} episodes", ours, theirs, against, limit, strict))
    if count >= 100_000:
        rows.append(budget_row(f"peak RSS of recall, {name}", peak / 1024, 200, "MiB", strict=True))
    return rows + notes


def writes(bench: Bench, what: str) -> list[Row]:
    """mem add or mem episode, a whole process with its commit, on a home of 10,000 users' MEMORY.md."""
    home = corpus.tenant_home(bench.work / "tenants-10k", 10_000, 50)
    env = environment(home)
    token = time.strftime("%Y%m%d%H%M%S")  # new values on every bench run: a repeat would only reinforce

    def write(n: int) -> list[str]:
        if what == "add":
            return [bench.mem, "add", f"bench_{n}", f"value {token} {n}", "-u", f"u{n * 37 % 10_000:05d}"]
        return [bench.mem, "episode", f"Bench {token} {n}: refund issued", "-u", f"u{n * 53 % 10_000:05d}"]

    wait_for_gc(home)
    before = commits(home)
    ours, theirs, _ = bench.paired(write, bench.baseline("W"), env)
    if commits(home) - before != bench.runs + 1:
        raise SystemExit(f"bench: {bench.runs + 1} `mem {what}` made {commits(home) - before} commits, not one each")
    wait_for_gc(home)
    return [ratio_row(f"mem {what}, 10,000-file home, with its commit", ours, theirs, "W", 1.5)]


def commits(home: Path) -> int:
    done = subprocess.run(["git", "-C", str(home), "rev-list", "--count", "HEAD"], capture_output=True, text=True)
    return int(done.stdout)


def wait_for_gc(home: Path, limit: float = 300) -> None:
    """Wait for a gc that git started in the background (`gc --auto` after a commit) to end, so that it
    does not share the machine with the next rows."""
    deadline = time.monotonic() + limit
    while (home / ".git" / "gc.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.2)


def lint(bench: Bench, count: int, limit_s: float) -> list[Row]:
    """mem lint over a whole home: `count` episodes and a MEMORY.md, against an absolute budget."""
    name = f"{count // 1000}k"
    home = corpus.scope_home(bench.work / f"scope-{name}", count)
    took = bench.median([bench.mem, "lint"], environment(home))
    what = "1,000 small files" if count == 1000 else f"the {name}-episode corpus"
    return [budget_row(f"mem lint, {what}", took / 1000, limit_s, "s")]


def measure(bench: Bench, name: str) -> list[Row]:
    if name in ("reindex10k", "semantic"):  # the semantic extra's cost, on an install with it
        import semantic_cost

        return semantic_cost.measure(bench.work, bench.runs, name)
    if name == "version":
        ours, theirs, _ = bench.paired(
            lambda _n: [bench.mem, "--version"], bench.baseline("T"), environment(bench.work)
        )
        return [ratio_row("mem --version", ours, theirs, "T", 1.3)]
    if name == "recall200":
        return recall(bench, 200, "R", 1.3)
    if name == "recall10k":
        return recall(bench, 10_000, "R", 1.6)
    if name == "recall100k":
        return recall(bench, 100_000, "rg", 1, strict=True)
    if name in ("add", "episode"):
        return writes(bench, name)
    return lint(bench, 1000, 1) if name == "lint1k" else lint(bench, 10_000, 10)


def machine(bench: Bench) -> dict[str, str]:
    """What the figures were measured on."""
    cpu = next((line.split(":", 1)[1].strip() for line in cpuinfo() if line.startswith("model name")), "?")

    def first_line(*cmd: str) -> str:
        try:
            done = subprocess.run(cmd, capture_output=True, text=True)
        except OSError:
            return "not installed"
        return done.stdout.splitlines()[0] if done.returncode == 0 and done.stdout else "?"

    return {
        "cpu": f"{cpu}, nproc {os.cpu_count()}",
        "os": f"{platform.system()} {platform.release()}",
        "python": first_line(bench.python, "--version"),
        "git": first_line("git", "--version"),
        "ripgrep": first_line("rg", "--version"),
        "code": first_line("git", "-C", str(ROOT), "describe", "--always", "--dirty=+uncommitted"),
        "mem": f"{bench.mem} (regular install of this checkout)",
        "runs per median": str(bench.runs),
        "load average at start": load(),
    }


def cpuinfo() -> list[str]:
    try:
        return Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return []


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def table(rows: list[Row]) -> str:
    def cell(value: float | None, unit: str) -> str:
        return "—" if value is None else f"{value:,.{0 if unit == 'ms' else 2}f} {unit}"

    head = ["metric", "ours", "baseline", "ratio", "target", "ok"]
    lines = [
        [
            row.metric,
            cell(row.ours, row.unit),
            cell(row.baseline, row.unit) + (f" ({row.against})" if row.against else ""),
            "—" if row.ratio is None else f"{row.ratio:.3f}",  # 1.603 never reads as 1.60
            row.target or "(note)",
            "" if row.ok is None else ("yes" if row.ok else "NO"),
        ]
        for row in rows
    ]
    widths = [max(len(x) for x in column) for column in zip(head, *lines, strict=True)]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |"]
    out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    out += ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + " |" for line in lines]
    return "\n".join(out)


LEGEND = "\n".join(f"{k} = python -c {v!r}" for k, v in BASELINES.items()) + "\nrg = rg -i -l WORD users/bench"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=f"rows: {', '.join(ROWS)}")
    parser.add_argument("--only", metavar="NAME[,NAME]", help="run only these rows")
    parser.add_argument("--quick", action="store_true", help="skip the 100k-episode corpus and the 10k reindex")
    parser.add_argument("--runs", type=int, default=7, help="runs per median (default 7)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--work", type=Path, default=Path("/tmp/mem-bench"), help="where corpora and the venv live")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",")] if args.only else list(ROWS)
    unknown = [n for n in names if n not in ROWS]
    if unknown:
        parser.error(f"unknown row {', '.join(unknown)}; rows: {', '.join(ROWS)}")
    if args.quick:
        names = [n for n in names if n not in ("recall100k", "reindex10k")]
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if "recall100k" in names and shutil.which("rg") is None:
        raise SystemExit("bench: recall100k compares with ripgrep, which is not installed: apt-get install -y ripgrep")
    args.work.mkdir(parents=True, exist_ok=True)
    bench = Bench(args.work, args.runs)
    about = machine(bench)
    rows: list[Row] = []
    for name in (n for n in ROWS if n in names):
        started = time.perf_counter()
        got = measure(bench, name)
        rows += got
        print(f"bench: {name} measured in {time.perf_counter() - started:.0f} s, load {load()}", file=sys.stderr)
        print(table(got), file=sys.stderr)  # as it goes: a long run that is stopped still says something
    about["load average at end"] = load()
    if args.json:
        report = {"machine": about, "baselines": BASELINES, "rows": [asdict(r) | {"ratio": r.ratio} for r in rows]}
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print("\n".join(f"- {k}: {v}" for k, v in about.items()), end="\n\n")
        print(table(rows), LEGEND, sep="\n\n")
    return 0 if all(r.ok is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
