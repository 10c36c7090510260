"""How fast `mem ui` answers each page for a large scope: 500 facts (with history, conflicts and proposed ones)
and 10,000 episodes over 24 months (issue 28: median <= 200 ms a page).

    python bench/ui.py                 # builds the home in a temporary folder (about a minute), 20 rounds
    python bench/ui.py --rounds 50 --keep /tmp/uibench   # keep the home to look at it with `mem ui`

Pages are asked in process through Starlette's TestClient (the server's own time: routing, the API's reads,
templates; no network). The lint counts are the cached ones, as a person sees them after the first count;
the facts are read again only when MEMORY.md changes, so "first" is a page after a write (the YAML of 500 facts
parsed again) and the median is a page read again.
Needs the [ui] extra and httpx (the dev install has both).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import memfiles
from memfiles.api import Home

FACTS = 500
EPISODES = 10_000
MONTHS = 24
TOPICS = ["order", "invoice", "refund", "delivery", "password", "plan", "address", "card", "limit", "transfer"]


def build(root: Path, facts: int = FACTS, episodes: int = EPISODES) -> Home:
    """A home with one scope of `facts` facts (a fifth of them superseding an older value, a few in conflict and
    a few proposed) and `episodes` episodes spread over MONTHS months."""
    home = memfiles.open_home(root, create=True)
    alice = home.user("alice")
    start = datetime(2025, 1, 1, tzinfo=UTC)
    keys = int(facts * 0.8)
    for n in range(facts):
        key = f"preference_{n % keys:03d}"
        at = (start + timedelta(days=n % 600)).date().isoformat()
        alice.add(key, f"value {n} about {TOPICS[n % len(TOPICS)]}", at=at)
    for n in range(5):
        alice.add(f"preference_{n:03d}", f"inferred rival {n}", inferred=True, at="2026-11-01")
    config = root / "mem.toml"
    config.write_text(config.read_text().replace("review = []", 'review = ["agent_summary"]'))
    home = memfiles.open_home(root)
    alice = home.user("alice")
    for n in range(5):
        alice.add(f"proposed_{n}", f"a proposal {n}", inferred=True)
    spacing = timedelta(days=MONTHS * 30) / episodes
    for first in range(0, episodes, 1000):
        batch = [
            {
                "summary": f"Asked about the {TOPICS[n % len(TOPICS)]} number {n}; it was handled in the session.",
                "session": f"s-{n}",
                "started_at": (start + spacing * n).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "outcome": "success",
            }
            for n in range(first, min(first + 1000, episodes))
        ]
        alice.episodes(batch)
    return home


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20, help="requests per page (default 20)")
    parser.add_argument("--keep", type=Path, help="build the home here and keep it")
    parser.add_argument("--facts", type=int, default=FACTS)
    parser.add_argument("--episodes", type=int, default=EPISODES)
    args = parser.parse_args()

    from starlette.testclient import TestClient

    from memfiles.ui.app import create_app
    from memfiles.ui.security import Secrets

    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch) / "home"
        os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
        os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.invalid")
        os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
        os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@example.invalid")
        began = time.perf_counter()
        home = build(root, args.facts, args.episodes) if not (root / "mem.toml").exists() else memfiles.open_home(root)
        alice = home.user("alice")
        facts = alice.show(everything=True)
        months = alice.months()
        print(
            f"home: {len(facts)} facts ({sum(f.status == 'active' for f in facts)} active), "
            f"{sum(m.episodes for m in months)} episodes in {len(months)} months; built in "
            f"{time.perf_counter() - began:.0f} s"
        )
        keys = Secrets("bench")
        client = TestClient(create_app(home, keys, ["testserver"]))
        assert client.get("/?token=bench").status_code == 200
        lint = client.app.app.state.lint  # type: ignore[attr-defined]
        waited = time.perf_counter()
        lint.wait(timeout=600)
        print(f"lint of the home (in the background, cached): {time.perf_counter() - waited:.1f} s")
        episode_id = alice.episode_page(months[0].month, limit=1).items[0].episode.id
        pages = {
            "home": "/",
            "scope": "/s/user:alice",
            "timeline": "/s/user:alice/key/preference_000",
            "episodes (newest month)": "/s/user:alice/episodes",
            "episodes (month 2, page 2)": f"/s/user:alice/episodes?month={months[1].month}&page=2",
            "episodes search (recall)": "/s/user:alice/episodes?q=refund+number",
            "episode": f"/s/user:alice/episode/{episode_id}?month={months[0].month}",
            "audit": "/audit",
        }
        worst = 0.0
        print(f"{'page':30} {'first ms':>9} {'median ms':>10} {'p90 ms':>8} {'bytes':>8}")
        for name, path in pages.items():
            times = []
            size = 0
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                answer = client.get(path)
                times.append((time.perf_counter() - t0) * 1000)
                assert answer.status_code == 200, (path, answer.status_code, answer.text[:300])
                size = len(answer.content)
            median = statistics.median(times)
            p90 = sorted(times)[int(len(times) * 0.9) - 1]
            worst = max(worst, median)
            print(f"{name:30} {times[0]:9.1f} {median:10.1f} {p90:8.1f} {size:8}")
        print(f"slowest median: {worst:.1f} ms (target <= 200 ms)")
        return 0 if worst <= 200 else 1


if __name__ == "__main__":
    sys.exit(main())
