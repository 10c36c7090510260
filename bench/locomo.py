"""LoCoMo retrieval benchmark: does `mem recall` bring back the turns that answer a question — as users run it?

The headline is what a user gets: recall through the Python API (`Home.recall`, what `mem recall` runs) with
every default — the recency prior, the relevance threshold, the hybrid ranking when the `[semantic]` extra is
installed — on a home just written (vectors made by the writes themselves, no reindex), with "now"
($MEM_NOW) one day after the conversation's last session and every session at its real date. Beside it, in
the same run: the same defaults by words only (`lexical=True`), the lab settings earlier benchmarks used
(`--half-life 0 --min-score 0`), the old default (full decay: `--recency-weight 1`), and two plain BM25s.
Recall is scored against LoCoMo's evidence and against an audit's corrections of it
(`locomo_dev_corrections.json`: a WRONG_CITATION item's `correct_evidence` replaces its evidence).

Each LoCoMo conversation becomes a fresh memory home, written through the real guarded write path
(`memfiles.ops.record.add_episodes`, one batch and one commit per conversation), in one of two modes:
- `session`: each session is one episode (its real date, both speakers as entities, every turn a
  "Speaker: text" line of the body);
- `turn`: each turn is its own episode (its session's date plus 10 seconds per turn, the speaker as
  entity, the session number as `session`).
For every question with evidence, recall@k is the share of the episodes holding the evidence dialog ids
that are in the top k (k = 10 asked of recall; the default threshold may return fewer: an empty block
counts as a miss, and its rate is reported).
Two plain Okapi BM25 baselines (bench/bm25.py) over the same episode texts run in the same process:
`bm25` (lower-case words, no stop words) and `bm25+stop` (NLTK's English stop words, `[a-z0-9]+`
tokens: the standard one, the baseline to beat). Adversarial questions (category 5) have nothing to
find: they report how often the block is empty.

The ranker is tuned on the TUNING conversations only; every figure is also given for the held-out
ones and for all of them (the splits table), since a gain seen only on the tuning three is no gain.

    python bench/locomo.py [DATA] [--mode turn --mode session] [--conversations N] [--json FILE]

Built homes are cached under --cache (default /tmp/memfiles-bench-<uid>/locomo), keyed by the
conversation, the mode and BUILD; delete the folder (or bump BUILD) when the episode layout changes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bm25 import BM25, stop_tokens

from memfiles import clock
from memfiles.api import open_home
from memfiles.errors import RefusedError
from memfiles.format.layout import Scope
from memfiles.recall.ranking import Item, Relevance
from memfiles.recall.render import block
from memfiles.recall.retrieve import read_episodes
from memfiles.recall.vectors import VECTORS_VERSION

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo_dev.json"
DEFAULT_CACHE = Path("/tmp") / f"memfiles-bench-{os.getuid()}" / "locomo"
BUILD = "2"  # bump when the episodes a conversation becomes change: cached homes are then rebuilt
# "2": written with recall by meaning on when the extra is installed, so the writes made the vectors
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
ADVERSARIAL = 5
KS = (1, 3, 5, 10)
TURN_SECONDS = 10
MODES = ("turn", "session")
_DIA = re.compile(r"D:?(\d+):(\d+)")
TUNING = ("conv-26", "conv-30", "conv-41")  # the only conversations the ranker is tuned on
BASELINES = ("bm25", "bm25+stop")
CORRECTIONS = DEFAULT_DATA.parent / "locomo_dev_corrections.json"
# The systems of mem, each a Home.recall call: (name, keyword arguments beyond the query, scope, k and kind).
SYSTEMS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("mem defaults", {}),
    ("mem words", {"lexical": True}),
    ("mem lab", {"half_life_days": 0, "min_score": 0}),
    ("mem full decay", {"recency_weight": 1.0}),
)
HEADLINE = "mem defaults"


@dataclass(slots=True)
class Unit:
    """One episode as the bench writes it, and the dialog ids it holds."""

    session: str
    at: str
    speakers: list[str]
    text: str
    dia_ids: list[str]


@dataclass(slots=True)
class Built:
    """A conversation's home, its units, and which unit each recorded episode came from."""

    root: Path
    scope: Scope
    units: list[Unit]
    unit_of: dict[str, int]
    refused: list[str] = field(default_factory=list)


_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y", "%d %B, %Y", "%d %B %Y")


def parse_date(text: str) -> datetime:
    """LoCoMo's session time, e.g. '1:56 pm on 8 May, 2023' (or an ISO date), as a UTC datetime."""
    cleaned = " ".join(text.split())
    for layout in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, layout).replace(tzinfo=UTC)
        except ValueError:
            continue
    return clock.to_datetime(clock.parse_when(cleaned))  # raises a UsageError naming the text


def when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def sessions(conversation: dict[str, Any]) -> list[tuple[int, datetime, list[dict[str, Any]]]]:
    """(number, start, turns) of every session that has turns and a date, in order."""
    found = []
    for name, turns in conversation.items():
        match = re.fullmatch(r"session_(\d+)", name)
        date = conversation.get(f"{name}_date_time")
        if match and isinstance(turns, list) and turns and date:
            found.append((int(match.group(1)), parse_date(date), turns))
    return sorted(found, key=lambda s: s[0])


def units(sample: dict[str, Any], mode: str) -> list[Unit]:
    """The episodes one conversation becomes in `mode` (turn or session)."""
    out: list[Unit] = []
    for number, start, turns in sessions(sample["conversation"]):
        session = f"session-{number}"
        if mode == "session":
            speakers = list(dict.fromkeys(t["speaker"] for t in turns))
            text = "\n".join(f"{t['speaker']}: {t.get('text', '')}" for t in turns)
            out.append(Unit(session, when(start), speakers, text, [t["dia_id"] for t in turns]))
            continue
        for n, turn in enumerate(turns):
            at = when(start + timedelta(seconds=TURN_SECONDS * n))
            text = f"{turn['speaker']}: {turn.get('text', '')}"
            out.append(Unit(session, at, [turn["speaker"]], text, [turn["dia_id"]]))
    return out


def evidence_ids(evidence: list[str]) -> list[str]:
    """Dialog ids named by a QA item's evidence ('D8:6; D9:17' and 'D:11:26' are read too)."""
    return [f"D{a}:{b}" for item in evidence for a, b in _DIA.findall(item)]


def build(sample: dict[str, Any], mode: str, cache: Path) -> Built:
    """The conversation's home in `mode`, built through the write path or reused from the cache."""
    from memfiles.ops.home import init_home
    from memfiles.ops.record import NewEpisode, add_episodes, validate_episode

    found = units(sample, mode)
    digest = hashlib.sha256(json.dumps(sample["conversation"], sort_keys=True).encode()).hexdigest()[:12]
    # The vectors' format is part of the key: a home whose vectors an upgrade of memfiles no longer reads is no
    # home "just written" (its episodes would have no vectors, and the headline would measure words alone).
    folder = cache / f"{BUILD}-v{VECTORS_VERSION}-{mode}-{sample['sample_id']}-{digest}"
    scope = Scope("user", re.sub(r"[^a-z0-9._-]+", "-", str(sample["sample_id"]).lower()))
    table = folder / "units.json"
    if table.is_file():
        saved = json.loads(table.read_text())
        return Built(folder / "home", scope, found, saved["unit_of"], saved["refused"])
    shutil.rmtree(folder, ignore_errors=True)
    init_home(folder / "home")
    context = open_home(folder / "home")
    batch, origin, refused = [], [], []
    for n, unit in enumerate(found):
        new = NewEpisode(unit.text, session=unit.session, at=unit.at, entities=unit.speakers)
        try:
            validate_episode(new, context.config, scope)
        except RefusedError as exc:  # the guard refused it: its evidence cannot be found by anyone
            refused.append(f"{unit.dia_ids[0]}: {exc}")
            continue
        batch.append(new)
        origin.append(n)
    written = add_episodes(context.paths, context.config, scope, batch)
    unit_of = {w.episode.id: n for w, n in zip(written, origin, strict=True)}
    table.write_text(json.dumps({"unit_of": unit_of, "refused": refused}))
    return Built(folder / "home", scope, found, unit_of, refused)


@dataclass(slots=True)
class Answer:
    """One system's answer to one question: the units it ranked, its block's tokens, its time."""

    ranked: list[int]
    tokens: int
    seconds: float


@dataclass(slots=True)
class Question:
    category: int
    relevant: set[int]
    conversation: str = ""
    answers: dict[str, Answer] = field(default_factory=dict)
    corrected: set[int] | None = None  # the audit's evidence, where it corrected LoCoMo's citation


def corrections(path: Path = CORRECTIONS) -> dict[tuple[int, int], tuple[str, list[str]]]:
    """The audit's WRONG_CITATION items: (conversation index, qa index) -> (question, correct evidence)."""
    if not path.is_file():
        return {}
    found = {}
    for item in json.loads(path.read_text(encoding="utf-8")):
        match = re.fullmatch(r"locomo_(\d+)_qa(\d+)", str(item.get("question_id", "")))
        if match and item.get("error_type") == "WRONG_CITATION" and item.get("correct_evidence"):
            found[(int(match.group(1)), int(match.group(2)))] = (str(item["question"]), list(item["correct_evidence"]))
    return found


def evaluate(
    sample: dict[str, Any], built: Built, fixes: dict[int, tuple[str, list[str]]], systems: list[str]
) -> list[Question]:
    """Every question of one conversation, answered by the BM25s and by each of mem's `systems` (SYSTEMS)."""
    context = open_home(built.root)
    episodes, problems = read_episodes(context.paths, built.scope)
    if problems:
        raise SystemExit(f"{built.root}: {len(problems)} episode files do not parse: {problems[0]}")
    by_dia = {d: n for n, unit in enumerate(built.units) for d in unit.dia_ids}
    stored = sorted(set(built.unit_of.values()))
    texts = [built.units[n].text for n in stored]
    baselines = {"bm25": BM25(texts), "bm25+stop": BM25(texts, tokenize=stop_tokens)}
    last = max(clock.to_datetime(clock.parse_when(u.at)) for u in built.units)
    now = clock.parse_when(last + timedelta(days=1))
    os.environ["MEM_NOW"] = clock.iso(now)
    scope = str(built.scope)
    chosen = [(name, arguments) for name, arguments in SYSTEMS if name in systems]
    out: list[Question] = []
    for number, qa in enumerate(sample["qa"]):
        relevant = {by_dia[d] for d in evidence_ids(qa.get("evidence", [])) if d in by_dia}
        if not relevant:
            continue
        question = Question(int(qa["category"]), relevant, str(sample["sample_id"]))
        text = str(qa["question"])
        fixed = fixes.get(number)
        if fixed is not None and fixed[0].strip() == text.strip():
            question.corrected = {by_dia[d] for d in evidence_ids(fixed[1]) if d in by_dia} or None
        for name, baseline in baselines.items():
            start = time.perf_counter()
            top = [stored[n] for n in baseline.top(text, max(KS))]
            seconds = time.perf_counter() - start
            question.answers[name] = Answer(top, _bm25_tokens(scope, now, built, top, episodes), seconds)
        for name, arguments in chosen:
            start = time.perf_counter()
            found = context.recall(text, [scope], k=max(KS), kind="episodes", **arguments)
            seconds = time.perf_counter() - start
            ranked = [built.unit_of[i.id] for i in found.items if i.episode is not None and i.id in built.unit_of]
            shown = context.recall(text, [scope], kind="episodes", **arguments) if name == HEADLINE else found
            question.answers[name] = Answer(ranked, shown.tokens if shown.items else 0, seconds)
        out.append(question)
    return out


def _bm25_tokens(scope: str, now: clock.When, built: Built, top: list[int], episodes: list[Any]) -> int:
    """Tokens of the block BM25's top 3 would render as, for a like-for-like size comparison. An episode the guard
    holds back (a quarantined session) is not among `episodes` and would not be rendered: the next one is."""
    by_unit = {built.unit_of[e.id]: e for e in episodes}
    shown = [u for u in top if u in by_unit][:3]
    items = [Item("episode", scope, 1.0 / (n + 1), Relevance(1.0), episode=by_unit[u]) for n, u in enumerate(shown)]
    return block([scope], now, items).tokens if items else 0


def evidence(question: Question, corrected: bool) -> set[int]:
    return question.corrected if corrected and question.corrected else question.relevant


def recall_at(question: Question, system: str, k: int, corrected: bool = False) -> float:
    """The share of the question's evidence episodes in the system's top k (`corrected`: the audit's evidence)."""
    ranked = question.answers[system].ranked[:k]
    wanted = evidence(question, corrected)
    return len(wanted.intersection(ranked)) / len(wanted)


def hit_at(question: Question, system: str, k: int) -> float:
    """1 when at least one evidence episode is in the top k (the looser measure some papers report)."""
    return float(bool(question.relevant.intersection(question.answers[system].ranked[:k])))


def summary(questions: list[Question], systems: list[str]) -> dict[str, Any]:
    """Recall@k per category, the adversarial empty-block rate, block tokens and latency, per system."""
    result: dict[str, Any] = {}
    for system in systems:
        row: dict[str, Any] = {}
        groups = {name: [q for q in questions if q.category == c] for c, name in CATEGORIES.items()}
        groups["all (1-4)"] = [q for q in questions if q.category in CATEGORIES]
        for name, group in groups.items():
            row[name] = {"n": len(group)} | {
                f"R@{k}": statistics.fmean(recall_at(q, system, k) for q in group) if group else None for k in KS
            }
        everything = groups["all (1-4)"]
        row["any hit (1-4)"] = {"n": len(everything)} | {
            f"R@{k}": statistics.fmean(hit_at(q, system, k) for q in everything) if everything else None for k in KS
        }
        adversarial = [q for q in questions if q.category == ADVERSARIAL]
        row["adversarial"] = {
            "n": len(adversarial),
            "empty_block_rate": statistics.fmean(not q.answers[system].ranked for q in adversarial)
            if adversarial
            else None,
        }
        answers = [q.answers[system] for q in questions]
        row["block_tokens_mean"] = statistics.fmean(a.tokens for a in answers)
        row["latency_ms"] = _latency([a.seconds for a in answers])
        # questions whose evidence is stored but whose block is empty (the threshold dropped everything)
        row["empty_with_evidence"] = statistics.fmean(not q.answers[system].ranked for q in everything)
        result[system] = row
    return result


def _latency(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "p50": round(1000 * ordered[len(ordered) // 2], 2),
        "p95": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        "n": len(ordered),
    }


def table(mode: str, info: dict[str, Any], result: dict[str, Any], systems: list[str]) -> str:
    """The result of one mode as a plain-text table."""
    lines = [
        f"## {mode} mode: {info['episodes']} episodes in {info['conversations']} conversations "
        f"({info['refused']} refused by the guard); {info['questions']} questions with evidence",
        f"{'system':<16} {'category':<14} {'n':>4} " + " ".join(f"{'R@' + str(k):>6}" for k in KS),
    ]
    for system in systems:
        for name, cell in result[system].items():
            if isinstance(cell, dict) and "R@1" in cell:
                values = " ".join(f"{100 * cell[f'R@{k}']:6.1f}" if cell["n"] else f"{'-':>6}" for k in KS)
                lines.append(f"{system:<16} {name:<14} {cell['n']:>4} {values}")
    lines.append("")
    lines.append(
        f"{'system':<16} {'adversarial empty':>18} {'empty, evidence stored':>23} {'block tokens':>13} "
        f"{'ms p50/p95':>12}"
    )
    for system in systems:
        row = result[system]
        empty = row["adversarial"]["empty_block_rate"]
        rate = f"{100 * empty:.1f}% of {row['adversarial']['n']}" if empty is not None else "-"
        stored = f"{100 * row['empty_with_evidence']:.1f}%"
        latency = f"{row['latency_ms']['p50']:.1f}/{row['latency_ms']['p95']:.1f}"
        lines.append(f"{system:<16} {rate:>18} {stored:>23} {row['block_tokens_mean']:>13.0f} {latency:>12}")
    return "\n".join(lines)


def splits(questions: list[Question]) -> dict[str, list[Question]]:
    """The questions of the tuning conversations, of the held-out ones, and all of them."""
    return {
        "tuning": [q for q in questions if q.conversation in TUNING],
        "held-out": [q for q in questions if q.conversation not in TUNING],
        "all": questions,
    }


def split_summary(questions: list[Question], systems: list[str], corrected: bool = False) -> dict[str, Any]:
    """Recall@k over categories 1-4 per split and system (`corrected`: the audit's evidence)."""
    out: dict[str, Any] = {}
    for name, group in splits(questions).items():
        answered = [q for q in group if q.category in CATEGORIES]
        conversations = sorted({q.conversation for q in answered})
        cells = {
            system: {
                f"R@{k}": statistics.fmean(recall_at(q, system, k, corrected) for q in answered) if answered else None
                for k in KS
            }
            for system in systems
        }
        out[name] = {"conversations": conversations, "n": len(answered), "systems": cells}
    return out


def split_table(mode: str, result: dict[str, Any], systems: list[str], evidence: str = "LoCoMo's evidence") -> str:
    """Recall@k (categories 1-4) per split, with the lead over the stop-word BM25 in points."""
    lines = [f"## {mode} mode by split, {evidence} (categories 1-4; lead = points over bm25+stop)"]
    lines.append(
        f"{'split':<9} {'system':<16} {'n':>4} " + " ".join(f"{'R@' + str(k):>6}" for k in KS) + "   lead R@1   R@5"
    )
    for name, cell in result.items():
        base = cell["systems"]["bm25+stop"]
        for system in systems:
            row = cell["systems"][system]
            if row["R@1"] is None:
                continue
            values = " ".join(f"{100 * row[f'R@{k}']:6.1f}" for k in KS)
            lead = " ".join(f"{100 * (row[f'R@{k}'] - base[f'R@{k}']):+6.1f}" for k in (1, 5))
            lines.append(f"{name:<9} {system:<16} {cell['n']:>4} {values}   {lead}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA, help="a LoCoMo-format JSON file")
    parser.add_argument("--mode", action="append", choices=MODES, help="turn and/or session (default both)")
    parser.add_argument("--system", action="append", choices=[n for n, _ in SYSTEMS], help="mem systems (default all)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where built homes are kept")
    parser.add_argument("--conversations", type=int, default=0, help="only the first N conversations")
    parser.add_argument("--corrections", type=Path, default=CORRECTIONS, help="the audit's corrections (JSON)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this file ('-' = stdout)")
    args = parser.parse_args(argv)
    os.environ.pop("MEM_RANKING", None)  # as users run it: the setting's default (hybrid with the extra)
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    if args.conversations:
        samples = samples[: args.conversations]
    fixes = corrections(args.corrections) if args.data == DEFAULT_DATA else {}
    mine = args.system or [n for n, _ in SYSTEMS]
    systems = [*BASELINES, *mine]
    report: dict[str, Any] = {"data": str(args.data), "k": list(KS), "modes": {}}
    from memfiles.recall import embedder

    print(f"recall by meaning (the [semantic] extra): {'installed' if embedder.available() else 'not installed'}")
    for mode in args.mode or list(MODES):
        questions: list[Question] = []
        info = {"conversations": len(samples), "episodes": 0, "refused": 0, "questions": 0}
        for index, sample in enumerate(samples):
            built = build(sample, mode, args.cache)
            info["episodes"] += len(built.unit_of)
            info["refused"] += len(built.refused)
            fixed = {qa: v for (conversation, qa), v in fixes.items() if conversation == index}
            questions += evaluate(sample, built, fixed, mine)
            print(f"{mode} {sample['sample_id']}: {len(questions)} questions so far", file=sys.stderr, flush=True)
        info["questions"] = sum(q.category in CATEGORIES for q in questions)
        info["corrected"] = sum(q.corrected is not None for q in questions)
        result = summary(questions, systems)
        by_split = split_summary(questions, systems)
        by_split_corrected = split_summary(questions, systems, corrected=True)
        report["modes"][mode] = {"info": info, "systems": result, "splits": by_split, "corrected": by_split_corrected}
        print(table(mode, info, result, systems), end="\n\n", flush=True)
        print(split_table(mode, by_split, systems), end="\n\n", flush=True)
        label = f"the audit's corrections ({info['corrected']} questions' evidence replaced)"
        print(split_table(mode, by_split_corrected, systems, label), end="\n\n", flush=True)
    if args.json:
        text = json.dumps(report, indent=2) + "\n"
        sys.stdout.write(text) if str(args.json) == "-" else args.json.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
