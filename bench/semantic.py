"""The semantic extra: paraphrase found@3, and LoCoMo recall beside mem's lexical ranker and a stop-word BM25.

- Paraphrases (tests/data/paraphrases.json): found@3 of the hybrid ranking and of the lexical one.
- LoCoMo (--locomo): turn recall@5 and session recall@1, `--half-life 0`, for three rankers in one run:
  a standard BM25 with NLTK's English stop words (../shared/data/stopwords_en.txt, read at run time;
  `[a-z0-9]+` lower-case tokens, k1 1.2, b 0.75), mem's lexical ranker, and the hybrid. Conversations
  conv-26, conv-30 and conv-41 tuned the fusion; conv-42 and conv-43 are reported apart (held out).
  Homes are built by bench/locomo.py's `build` (same cache); vectors are embedded once per home.

What the extra costs (reindex, whole-process and in-process recall, RSS, install size) is measured by
bench/run.py's rows `reindex10k` and `semantic` (bench/semantic_cost.py).

    python bench/semantic.py [--locomo] [--mode turn|session] [--no-paraphrases] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from stories import paraphrase_report, paraphrase_table

from memfiles.api import open_home
from memfiles.format.layout import Scope
from memfiles.recall.ranking import Options, ScopeMemory, rank

_BUILT: set[Path] = set()


def hybrid_ranker(root: Path, scope: Scope, question: str, now: str) -> tuple[list[str], list[str]]:
    """`mem recall` with its defaults and the extra's hybrid ranking (what the block would show, per kind).

    Each home's vectors are built first (`mem doctor --reindex`), as a home used for a while has them.
    """
    os.environ["MEM_NOW"] = now
    if root not in _BUILT:
        open_home(root).doctor(reindex=True)
        _BUILT.add(root)
    found = open_home(root).recall(question, [str(scope)])
    facts = [i.facts[0].key for i in found.items if not i.episode]
    return facts, [i.episode.session or i.episode.id for i in found.items if i.episode]


STOPWORDS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "stopwords_en.txt"
TUNED = ("conv-26", "conv-30", "conv-41")
HELD_OUT = ("conv-42", "conv-43")


class StopBM25:
    """Okapi BM25 (k1 1.2, b 0.75, Lucene's idf) over `[a-z0-9]+` lower-case tokens less the stop words."""

    def __init__(self, documents: list[str], stop: frozenset[str]) -> None:
        import math
        import re
        from collections import Counter

        self._word, self._stop, self._log = re.compile(r"[a-z0-9]+"), stop, math.log
        self.counts = [Counter(self.tokens(d)) for d in documents]
        self.lengths = [sum(c.values()) for c in self.counts]
        self.average = sum(self.lengths) / max(len(self.lengths), 1)
        self.df: Counter[str] = Counter(t for c in self.counts for t in c)

    def tokens(self, text: str) -> list[str]:
        return [t for t in self._word.findall(text.lower()) if t not in self._stop]

    def top(self, query: str, k: int) -> list[int]:
        n = len(self.counts)
        scores: dict[int, float] = {}
        for term in self.tokens(query):
            idf = self._log(1 + (n - self.df[term] + 0.5) / (self.df[term] + 0.5))
            for doc, counts in enumerate(self.counts):
                tf = counts.get(term, 0)
                if tf:
                    norm = 1.2 * (1 - 0.75 + 0.75 * self.lengths[doc] / self.average)
                    scores[doc] = scores.get(doc, 0.0) + idf * tf * 2.2 / (tf + norm)
        return [d for d, _ in sorted(scores.items(), key=lambda p: (-p[1], p[0]))[:k]]


def locomo_report(data: Path, cache: Path, modes: tuple[str, ...] = ("turn", "session")) -> dict[str, Any]:
    """Turn R@5 and session R@1 per conversation for stop-word BM25, mem lexical and mem hybrid."""
    from datetime import timedelta

    import locomo

    from memfiles import clock
    from memfiles.recall import hybrid

    stop = frozenset(w.strip().replace("'", "") for w in STOPWORDS.read_text().split() if w.strip())
    stop |= frozenset(w.strip() for w in STOPWORDS.read_text().split() if w.strip())
    samples = json.loads(data.read_text(encoding="utf-8"))
    out: dict[str, Any] = {}
    for mode, k in (("turn", 5), ("session", 1)):
        if mode not in modes:
            continue
        for sample in samples:
            built = locomo.build(sample, mode, cache)
            context = open_home(built.root)
            episodes, _ = locomo.read_episodes(context.paths, built.scope)
            by_dia = {d: n for n, unit in enumerate(built.units) for d in unit.dia_ids}
            stored = sorted(set(built.unit_of.values()))
            bm25 = StopBM25([built.units[n].text for n in stored], stop)
            now = clock.parse_when(
                locomo.when(max(clock.to_datetime(clock.parse_when(u.at)) for u in built.units) + timedelta(hours=1))
            )
            memory = [ScopeMemory(str(built.scope), [], episodes)]
            options = Options(k_episodes=10, kind="episodes", half_life_days=0)
            semantic = hybrid.open_session(context.paths, budget_s=10**6)  # embed the whole home once
            hits: dict[str, list[float]] = {"bm25+stop": [], "mem lexical": [], "mem hybrid": []}
            for qa in sample["qa"]:
                relevant = {by_dia[d] for d in locomo.evidence_ids(qa.get("evidence", [])) if d in by_dia}
                if not relevant or int(qa["category"]) not in locomo.CATEGORIES:
                    continue
                text = str(qa["question"])
                ranked = {
                    "bm25+stop": [stored[n] for n in bm25.top(text, k)],
                    "mem lexical": [built.unit_of[i.episode.id] for i in rank(memory, text, now, options) if i.episode],
                    "mem hybrid": [
                        built.unit_of[i.episode.id]
                        for i in semantic.rank(memory, text, now, options, None)
                        if i.episode
                    ],
                }
                for system, top in ranked.items():
                    hits[system].append(len(relevant.intersection(top[:k])) / len(relevant))
            out.setdefault(mode, {})[sample["sample_id"]] = {s: (sum(v) / len(v), len(v)) for s, v in hits.items()}
            print(
                mode,
                sample["sample_id"],
                {s: round(100 * r[0], 1) for s, r in out[mode][sample["sample_id"]].items()},
                file=sys.stderr,
            )
    return out


def locomo_table(report: dict[str, Any]) -> str:
    lines = []
    for mode, k in (("turn", 5), ("session", 1)):
        if mode not in report:
            continue
        rows = report[mode]
        for label, names in (("tuned 26/30/41", TUNED), ("held out 42/43", HELD_OUT), ("all five", tuple(rows))):
            chosen = [rows[n] for n in names if n in rows]
            if not chosen:
                continue
            cells = []
            for system in ("bm25+stop", "mem lexical", "mem hybrid"):
                total = sum(r[system][1] for r in chosen)
                mean = sum(r[system][0] * r[system][1] for r in chosen) / total
                cells.append(f"{system} {100 * mean:5.1f}")
            lines.append(f"{mode:<7} R@{k} {label:<15} " + "  ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the report as JSON to this file ('-' = stdout)")
    parser.add_argument("--locomo", action="store_true", help="also LoCoMo turn R@5 and session R@1 (dev data)")
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "locomo_dev.json",
    )
    parser.add_argument("--cache", type=Path, default=Path("/tmp") / f"memfiles-bench-{os.getuid()}" / "locomo")
    parser.add_argument("--mode", action="append", choices=("turn", "session"), help="LoCoMo modes (default both)")
    parser.add_argument("--normalise", choices=("minmax", "max"), help="how cosines are scaled (hybrid.NORMALISE)")
    parser.add_argument("--weight", type=float, help="the lexical share of the fusion (hybrid.WEIGHT)")
    parser.add_argument("--no-paraphrases", action="store_true", help="skip the paraphrase set")
    args = parser.parse_args(argv)
    from memfiles.recall import hybrid

    hybrid.NORMALISE = args.normalise or hybrid.NORMALISE
    hybrid.WEIGHT = hybrid.WEIGHT if args.weight is None else args.weight
    result: dict[str, Any] = {}
    if args.locomo:
        result["locomo"] = locomo_report(args.data, args.cache, tuple(args.mode or ("turn", "session")))
        print(locomo_table(result["locomo"]))
    if args.no_paraphrases:
        if args.json:
            text = json.dumps(result, indent=2) + "\n"
            sys.stdout.write(text) if str(args.json) == "-" else args.json.write_text(text)
        return 0
    lexical = paraphrase_report()
    hybrid = paraphrase_report(hybrid_ranker)
    print(paraphrase_table(hybrid, "hybrid"))
    print(f"paraphrases (lexical): found@3 {100 * lexical['found@3']:.0f}% of {lexical['questions']} questions")
    result |= {"lexical": lexical, "hybrid": hybrid}
    if args.json:
        text = json.dumps(result, indent=2) + "\n"
        sys.stdout.write(text) if str(args.json) == "-" else args.json.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
