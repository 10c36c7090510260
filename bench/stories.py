"""Block precision on the finance and support stories (SCENARIOS.md 1-4): is what recall shows current and relevant?

Each story is written into a fresh home through the write path (facts one by one, so supersession
happens as it would; episodes in one batch), with filler sessions around the ones that matter. Each
question lists the items a careful person would want in the block (fact keys, episode sessions).
For `mem recall` with its defaults (5 facts, 3 episodes, threshold, decay) the bench reports:
- precision: the share of shown items that are current and relevant to the question;
- recall: the share of the relevant items shown;
- tokens: the block's estimated size.
Next to it, "top-8 similarity": BM25 over every stored memory, superseded facts included, cut to the
same 8 items and no threshold: the design the finance story was rebuilt from.

Then, with `--paraphrases`, the paraphrase set (tests/data/paraphrases.json): questions that share no
content word with the fact or episode they need, one home per scenario of SCENARIOS.md. It reports
found@3: the share of questions whose every needed fact is among the ranker's top 3 facts and every
needed episode among its top 3 episodes (and the share of needed items found). The lexical ranker is
`mem recall` with its defaults; another ranker (by meaning) plugs in through `paraphrase_report(ranker)`.

    python bench/stories.py [--paraphrases] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bm25 import BM25

from memfiles import clock
from memfiles.api import open_home
from memfiles.format.layout import Scope
from memfiles.format.model import Fact
from memfiles.ops.home import init_home
from memfiles.ops.record import NewEpisode, add_episodes
from memfiles.ops.writepath import NewFact, add_fact
from memfiles.recall.ranking import Item
from memfiles.recall.render import estimate_tokens
from memfiles.recall.retrieve import DEFAULT_K_EPISODES, DEFAULT_K_FACTS, read_episodes, recall, recall_options
from memfiles.store.files import read_memory


@dataclass(slots=True)
class Ask:
    """A question at a moment, and the items (fact keys, episode sessions) that belong in its block."""

    text: str
    now: str
    relevant: set[str]


@dataclass(slots=True)
class Story:
    name: str
    user: str
    facts: list[tuple[str, str, str, str]]  # (stated at, key, value, subject)
    episodes: list[tuple[str, str, str]]  # (at, session, summary)
    asks: list[Ask]


FINANCE_FILLER = [
    "Checked the current account balance and the direct debits due this month.",
    "Explained how the overdraft fee is charged and when it is waived.",
    "Walked through the annual tax statement for the savings interest.",
    "Updated the postal address after a typo on the last letter.",
    "Answered a question about the exchange rate on a card payment abroad.",
    "Reset online banking access after three wrong passcodes.",
    "Set up a standing order for the monthly rent payment.",
    "Disputed a duplicated card payment at a supermarket; refund requested.",
    "Discussed the household budget: groceries and utilities went up.",
    "Compared two credit cards for cashback on everyday spending.",
    "Cancelled an unused streaming subscription found on the statement.",
    "Reviewed car insurance renewal quotes; kept the current insurer.",
]
SUPPORT_FILLER = [
    "Reset the password for the admin console; the link had expired.",
    "Downloaded the July invoice as a PDF for the finance team.",
    "Added two seats for new team members.",
    "Explained the API rate limits and the retry headers.",
    "Fixed single sign-on after the identity provider rotated its certificate.",
    "Exported last quarter's audit log as CSV.",
    "Changed the billing contact to the new finance manager.",
    "Answered how to archive old projects without deleting them.",
]


def _filler(lines: list[str], start_month: int, year: int, prefix: str) -> list[tuple[str, str, str]]:
    return [
        (f"{year}-{start_month + n % 6:02d}-{3 + (5 * n) % 24:02d}T10:00:00Z", f"{prefix}-{n}", line)
        for n, line in enumerate(lines)
    ]


STORIES = [
    Story(
        "finance (story 3)",
        "dana",
        facts=[
            ("2026-03-14", "goal", "save for house deposit", "goal"),
            ("2026-03-14", "risk_tolerance", "moderate, happy investing in index funds", "user_attribute"),
            ("2026-03-14", "income_band", "80-100k a year", "user_attribute"),
            ("2026-03-20", "dependents", "two children, 6 and 9", "user_attribute"),
            ("2026-04-02", "account_type", "stocks and shares ISA plus a workplace pension", "account_state"),
            ("2026-04-02", "contribution_rate", "8% of salary into the workplace pension", "account_state"),
            ("2026-04-10", "display_currency", "show amounts in CAD", "user_preference"),
            ("2026-07-18", "goal", "build emergency fund", "goal"),
        ],
        episodes=[
            ("2026-03-14T11:00:00Z", "s-3", "Talked about saving for a house deposit; set up a monthly transfer."),
            ("2026-06-20T11:00:00Z", "s-19", "Reviewed the index fund portfolio: returns on track, no change."),
            ("2026-07-11T15:30:00Z", "s-27", "The user completed the purchase of their flat; the deposit was paid."),
            ("2026-07-18T11:00:00Z", "s-28", "Planned an emergency fund of six months of expenses after the move."),
            ("2026-08-14T11:00:00Z", "s-31", "Asked whether to raise the pension contribution after a pay rise."),
            *_filler(FINANCE_FILLER, 3, 2026, "f"),
        ],
        asks=[
            Ask("How should I invest my bonus?", "2026-08-20", {"risk_tolerance", "goal", "account_type", "s-19"}),
            Ask("What is my savings goal right now?", "2026-08-20", {"goal", "s-28"}),
            Ask("Did the flat purchase go through?", "2026-08-20", {"s-27"}),
            Ask("How much do I put into my pension?", "2026-08-20", {"contribution_rate", "account_type", "s-31"}),
            Ask("What did we talk about last week?", "2026-08-20", {"s-31"}),
            Ask("Which currency should amounts be shown in?", "2026-08-20", {"display_currency"}),
            Ask("How many children does the user have?", "2026-08-20", {"dependents"}),
        ],
    ),
    Story(
        "support (stories 1, 2, 4)",
        "alice",
        facts=[
            ("2026-03-14", "notification_channel", "SMS", "user_preference"),
            ("2026-06-02", "notification_channel", "email", "user_preference"),
            ("2026-09-01", "plan_tier", "Enterprise", "account_state"),
            ("2026-05-05", "language", "English, formal tone", "user_preference"),
            ("2026-05-05", "company", "Acme Logistics, 40 seats", "user_attribute"),
        ],
        episodes=[
            ("2026-08-03T14:02:00Z", "s-31", "Asked about order O-4471; the shipment is in transit, Toronto."),
            ("2026-09-01T09:00:00Z", "s-40", "Confirmed the Enterprise plan and email-only notifications."),
            *_filler(SUPPORT_FILLER, 3, 2026, "g"),
        ],
        asks=[
            Ask("Which notification channel does the user want?", "2026-09-02", {"notification_channel", "s-40"}),
            Ask("Where is order O-4471?", "2026-09-02", {"s-31"}),
            Ask("What plan tier is the account on?", "2026-09-02", {"plan_tier", "s-40"}),
            Ask("How do I export the audit log?", "2026-09-02", {"g-5"}),
            Ask("What did the user say about quantum computing?", "2026-09-02", set()),
        ],
    ),
]


def build(story: Story, root: Path) -> Scope:
    """Write the story's facts one by one and its episodes in one batch, each at its own time."""
    init_home(root)
    context = open_home(root)
    scope = Scope("user", story.user)
    for at, key, value, subject in sorted(story.facts):
        os.environ["MEM_NOW"] = at
        add_fact(context.paths, context.config, scope, NewFact(key, value, subject, at=at))
    batch = [NewEpisode(summary, session=session, at=at) for at, session, summary in story.episodes]
    add_episodes(context.paths, context.config, scope, batch)
    return scope


def name(item: Item) -> str:
    return item.episode.session or item.episode.id if item.episode else item.facts[0].key


def similarity_top(root: Path, scope: Scope, ask: Ask, k: int) -> tuple[list[str], int]:
    """BM25 top-k over every stored fact (superseded too) and episode: the design the story replaced."""
    context = open_home(root)
    facts: list[Fact] = read_memory(context.paths, scope).facts
    episodes, _ = read_episodes(context.paths, scope, until=clock.parse_when(ask.now))
    texts = [f"{f.key.replace('_', ' ')}: {f.value}" for f in facts] + [e.summary for e in episodes]
    names = [f.key for f in facts] + [e.session or e.id for e in episodes]
    top = BM25(texts).top(ask.text, k)
    return [names[n] for n in top], sum(estimate_tokens(texts[n]) + 8 for n in top)


def measure(story: Story, root: Path, scope: Scope) -> list[dict[str, Any]]:
    """Each question through `mem recall` (defaults) and through top-8 similarity."""
    context = open_home(root)
    rows = []
    for ask in story.asks:
        os.environ["MEM_NOW"] = ask.now
        found = recall(context.paths, [scope], ask.text, recall_options(context.config))
        shown = [name(i) for i in found.items]
        naive, naive_tokens = similarity_top(root, scope, ask, DEFAULT_K_FACTS + DEFAULT_K_EPISODES)
        rows.append(
            {
                "story": story.name,
                "question": ask.text,
                "relevant": sorted(ask.relevant),
                "mem": _score(shown, ask.relevant, found.rendered.tokens),
                "similarity": _score(naive, ask.relevant, naive_tokens),
            }
        )
    return rows


def _score(shown: list[str], relevant: set[str], tokens: int) -> dict[str, Any]:
    hits = [s for s in shown if s in relevant]
    return {
        "shown": shown,
        "precision": len(hits) / len(shown) if shown else (1.0 if not relevant else 0.0),
        "recall": len(set(hits)) / len(relevant) if relevant else (1.0 if not shown else 0.0),
        "tokens": tokens,
    }


def table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'question':<50} {'mem P':>6} {'R':>5} {'tok':>4} | {'top-8 P':>7} {'R':>5} {'tok':>4}"]
    for row in rows:
        mem, naive = row["mem"], row["similarity"]
        lines.append(
            f"{row['question'][:50]:<50} {mem['precision']:6.2f} {mem['recall']:5.2f} {mem['tokens']:4d} | "
            f"{naive['precision']:7.2f} {naive['recall']:5.2f} {naive['tokens']:4d}"
        )
    for system, label in (("mem", "mem recall"), ("similarity", "top-8 similarity")):
        cells = [row[system] for row in rows]
        lines.append(
            f"{label}: precision {100 * statistics.fmean(c['precision'] for c in cells):.0f}%, "
            f"recall {100 * statistics.fmean(c['recall'] for c in cells):.0f}%, "
            f"{statistics.fmean(c['tokens'] for c in cells):.0f} tokens per block ({len(cells)} questions)"
        )
    return "\n".join(lines)


PARAPHRASES = Path(__file__).resolve().parent.parent / "tests" / "data" / "paraphrases.json"
FOUND_AT = 3
# A ranker answers one question on a built home (root, scope, question, now as YYYY-MM-DD): the fact keys
# and the episode sessions it recalls, each list best first. `lexical_ranker` is mem recall's; a ranker by
# meaning is measured by passing it to `paraphrase_report`.
Ranker = Callable[[Path, Scope, str, str], tuple[list[str], list[str]]]


def lexical_ranker(root: Path, scope: Scope, question: str, now: str) -> tuple[list[str], list[str]]:
    """`mem recall` with its defaults (threshold, decay, k): what the block would show, per kind."""
    context = open_home(root)
    os.environ["MEM_NOW"] = now
    found = recall(context.paths, [scope], question, recall_options(context.config))
    facts = [i.facts[0].key for i in found.items if not i.episode]
    return facts, [i.episode.session or i.episode.id for i in found.items if i.episode]


def build_scenario(scenario: dict[str, Any], root: Path) -> Scope:
    """One scenario's home: its facts one by one in time order (supersession happens), another user's, episodes."""
    init_home(root)
    context = open_home(root)
    scope = Scope("user", scenario["user"])
    others = [(Scope("user", o["user"]), o["facts"]) for o in [scenario.get("other_user")] if o]
    for owner, facts in [(scope, scenario["facts"]), *others]:
        for fact in sorted(facts, key=lambda f: str(f["at"])):
            os.environ["MEM_NOW"] = fact["at"]
            add_fact(
                context.paths,
                context.config,
                owner,
                NewFact(fact["key"], fact["value"], fact["subject"], at=fact["at"]),
            )
    batch = [NewEpisode(e["summary"], session=e["session"], at=e["at"]) for e in scenario["episodes"]]
    if batch:
        add_episodes(context.paths, context.config, scope, batch)
    return scope


def paraphrase_report(ranker: Ranker = lexical_ranker, path: Path = PARAPHRASES) -> dict[str, Any]:
    """found@3 of `ranker` on the paraphrase set: per question, and in total."""
    scenarios = json.loads(path.read_text(encoding="utf-8"))["scenarios"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="mem-paraphrases-") as tmp:
        for scenario in scenarios:
            root = Path(tmp) / f"scenario-{scenario['scenario']}"
            scope = build_scenario(scenario, root)
            sessions = {e["session"] for e in scenario["episodes"]}
            for query in scenario["queries"]:
                facts, episodes = ranker(root, scope, query["text"], scenario["now"])
                top = set(facts[:FOUND_AT]) | set(episodes[:FOUND_AT])
                needs = query["needs"]
                found = [n for n in needs if n in top]
                shown = [f"{k}" for k in facts[:FOUND_AT]] + [f"episode {s}" for s in episodes[:FOUND_AT]]
                rows.append(
                    {
                        "scenario": scenario["scenario"],
                        "question": query["text"],
                        "needs": needs,
                        "found": found,
                        "all_found": len(found) == len(needs),
                        "shown": shown,
                        "episode_needs": [n for n in needs if n in sessions],
                        "held_out": bool(query.get("held_out")),
                    }
                )
    items = sum(len(r["needs"]) for r in rows)
    halves = {"design": [r for r in rows if not r["held_out"]], "held out": [r for r in rows if r["held_out"]]}
    return {
        "questions": len(rows),
        f"found@{FOUND_AT}": sum(r["all_found"] for r in rows) / len(rows),
        f"items found@{FOUND_AT}": sum(len(r["found"]) for r in rows) / items,
        "halves": {name: [sum(r["all_found"] for r in half), len(half)] for name, half in halves.items()},
        "rows": rows,
    }


def paraphrase_table(report: dict[str, Any], label: str = "lexical") -> str:
    lines = [f"{'scen':>4} {'question':<58} {'found':>5}  shown in the top {FOUND_AT}"]
    for row in report["rows"]:
        mark = "yes" if row["all_found"] else f"{len(row['found'])}/{len(row['needs'])}"
        question = ("(held out) " if row["held_out"] else "") + row["question"]
        lines.append(f"{row['scenario']:>4} {question[:58]:<58} {mark:>5}  {', '.join(row['shown']) or '-'}")
    halves = "; ".join(f"{name} {found} of {n}" for name, (found, n) in report["halves"].items())
    found, items = 100 * report[f"found@{FOUND_AT}"], 100 * report[f"items found@{FOUND_AT}"]
    lines.append(
        f"paraphrases ({label}): found@{FOUND_AT} {found:.0f}% of {report['questions']} questions ({halves}); "
        f"{items:.0f}% of the needed items"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paraphrases", action="store_true", help="also report found@3 on the paraphrase set")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON to this file ('-' = stdout)")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="mem-stories-") as tmp:
        for n, story in enumerate(STORIES):
            root = Path(tmp) / f"home-{n}"
            rows += measure(story, root, build(story, root))
    print(table(rows))
    result: Any = rows
    if args.paraphrases:
        report = paraphrase_report()
        print()
        print(paraphrase_table(report))
        result = {"stories": rows, "paraphrases": report}
    if args.json:
        text = json.dumps(result, indent=2) + "\n"
        sys.stdout.write(text) if str(args.json) == "-" else args.json.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
