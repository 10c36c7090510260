"""The deterministic extractor (memfiles.capture.statements) on the dev conversations: how many facts it
proposes, and a seeded random sample of them to label by hand.

Each turn of a person is read as that person's own words (LoCoMo: both speakers are people talking
about themselves, each read as "the user" of their turns; MemoryBank: the `query` side; dialogs_dev:
every speaker of the Taskmaster, MELD and Topical-Chat dialogs, a stress test of precision). The turns are
read one by one, as capture reads prompts. Writes the sample to bench/extractor_sample.jsonl (one
proposal a line, with the turn it came from); the hand labels live in bench/extractor_labels.json,
keyed by the sample's `n`. With labels present, prints the precision of the labelled sample.

    python bench/extractor.py                 # counts by key, writes the sample (seed 41, 120 rows)
    python bench/extractor.py --score         # the precision of the labels
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
from pathlib import Path

from memfiles.capture.statements import from_text

DATA = Path(os.environ.get("MEM_BENCH_DATA") or Path(__file__).resolve().parent.parent.parent / "shared" / "data")
HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "extractor_sample.jsonl"
LABELS = HERE / "extractor_labels.json"


def turns() -> list[tuple[str, str, str]]:
    """(source, speaker, text) for every person's turn of the dev conversations."""
    found: list[tuple[str, str, str]] = []
    for sample in json.loads((DATA / "locomo_dev.json").read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        for name, session in conversation.items():
            if name.startswith("session_") and isinstance(session, list):
                for turn in session:
                    found.append((f"locomo {sample['sample_id']} {turn['dia_id']}", turn["speaker"], turn["text"]))
    for user, data in json.loads((DATA / "memory_bank_en.json").read_text(encoding="utf-8")).items():
        for day, exchanges in data.get("history", {}).items():
            for number, exchange in enumerate(exchanges):
                found.append((f"memorybank {user} {day} #{number}", user, exchange["query"]))
    # Whole benign dialogs (Taskmaster, MELD, Topical-Chat): every speaker's line, as a precision stress.
    for number, line in enumerate((DATA / "dialogs_dev.jsonl").read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        for spoken in row["text"].splitlines():
            speaker, _, text = spoken.partition(":")
            if text.strip():
                found.append((f"dialogs #{number} {row.get('source', '')[:40]}", speaker.strip(), text.strip()))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--size", type=int, default=120)
    parser.add_argument("--score", action="store_true", help="score the hand labels of the sample")
    args = parser.parse_args()
    if args.score:
        score()
        return
    rows = []
    said = turns()
    for source, speaker, text in said:
        for proposal in from_text(text):
            rows.append(
                {"source": source, "speaker": speaker, "key": proposal.key, "value": proposal.value, "turn": text}
            )
    by_key = collections.Counter(r["key"] for r in rows)
    by_source = collections.Counter(r["source"].split()[0] for r in rows)
    print(f"{len(said)} turns read, {len(rows)} proposals ({dict(by_source)})")
    for key, count in by_key.most_common():
        print(f"  {key:24} {count}")
    sample = random.Random(args.seed).sample(rows, min(args.size, len(rows)))
    with SAMPLE.open("w", encoding="utf-8") as out:
        for n, row in enumerate(sample):
            out.write(json.dumps({"n": n, **row}, ensure_ascii=False) + "\n")
    print(f"wrote {len(sample)} to {SAMPLE.relative_to(HERE.parent)}")


def score() -> None:
    labels = json.loads(LABELS.read_text(encoding="utf-8"))
    sample = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    judged = [(row, labels[str(row["n"])]) for row in sample if str(row["n"]) in labels]
    correct = sum(1 for _row, label in judged if label["correct"])
    print(f"labelled {len(judged)} of {len(sample)}: {correct} correct ({100 * correct / max(len(judged), 1):.1f} %)")
    for row, label in judged:
        if not label["correct"]:
            print(f"  wrong #{row['n']} {row['key']}={row['value']!r}: {label.get('why', '')}")


if __name__ == "__main__":
    main()
