"""Seeded generator of realistic memory homes for the benchmarks (never used by the test suite).

    python bench/corpus.py scope /tmp/mem-bench/scope-10k --episodes 10000
    python bench/corpus.py tenants /tmp/mem-bench/tenants --users 10000 --facts 50

A scope home holds one user with facts in supersession chains (MEMORY.md) and N episodes spread over
two years before `NOW`, in varied English (support, finance, travel, software, health, shopping),
with entities, events, candidate facts and invalidations. Files are written directly with
`episodes.serialize` / `memoryfile.serialize` and committed once, not through `mem` item by item.
The same seed gives byte-identical files.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path

from memfiles.format import episodes, memoryfile
from memfiles.format.episodes import CandidateFact, Episode, Invalidation
from memfiles.format.layout import Paths, Scope
from memfiles.format.model import Fact, fact_id
from memfiles.ops.home import init_home

NOW = "2026-11-29T12:00:00Z"  # the bench sets $MEM_NOW to this
SPAN_DAYS = 730
SCOPE = Scope("user", "bench")


def _words(text: str, sep: str | None = None) -> list[str]:
    """The items of a word list written as text (words, or phrases between `sep`)."""
    return [" ".join(item.split()) for item in text.split(sep)]


CITIES = _words(
    """
    Toronto Lisbon Osaka Nairobi Denver Krakow Austin Dublin Mumbai Santiago Oslo Hanoi Perth Quito
    """
)
PEOPLE = _words(
    """
    Alice Bruno Chiara Dmitri Esther Farid Greta Hiro Ines Jonas Keiko Lars Mei Nadia Omar Priya
    """
)
PRODUCTS = _words(
    """
    standing desk, noise cancelling headphones, espresso machine, trail running shoes, mechanical keyboard,
    air purifier, travel backpack, electric kettle, winter jacket, smart thermostat, road bike, yoga mat
    """,
    ",",
)
TOPICS = {
    "support": (
        "The user contacted support about order {order}, which was delayed in {city}.",
        "They asked whether the {product} could be exchanged for a different size before the return window closed.",
        "The agent checked the shipment tracking and found the parcel waiting at the {city} depot.",
        "A replacement was offered, but the user preferred a refund to the original card.",
        "The billing address on the account was out of date and had to be corrected first.",
        "They were frustrated that the first reply had ignored the invoice number they gave.",
        "The courier confirmed a new delivery window for Thursday afternoon.",
        "The agent escalated the ticket because the warranty claim needed a supervisor.",
    ),
    "finance": (
        "The user wanted to know how to invest an annual bonus of about {amount} dollars.",
        "They mentioned an emergency fund covering roughly {months} months of expenses.",
        "The conversation compared index funds with paying down the remaining mortgage.",
        "Their risk tolerance is moderate and they dislike individual stock picking.",
        "They asked about raising the pension contribution rate to {rate} percent.",
        "A property purchase in {city} had closed earlier, so the house deposit goal is complete.",
        "The agent explained the tax treatment of dividends held in a brokerage account.",
        "They plan to review the budget again after the quarterly statement arrives.",
    ),
    "travel": (
        "The user is planning a trip to {city} in the spring with {person}.",
        "They prefer aisle seats, vegetarian meals and hotels close to the train station.",
        "The outbound flight was rebooked after a cancellation caused by a storm.",
        "They asked for museums and quiet restaurants within walking distance.",
        "A visa requirement for the connecting stop had to be checked twice.",
        "The agent found a cheaper fare by shifting the return by one day.",
        "Travel insurance was added because the itinerary includes a hiking week.",
        "They want the itinerary exported to the shared calendar.",
    ),
    "software": (
        "The user debugged a failing deployment of the billing service to the staging cluster.",
        "The root cause was a missing environment variable for the database migration.",
        "They asked for a review of the pull request that adds retry logic to the webhook handler.",
        "Unit tests for the parser were flaky because of a timezone assumption.",
        "The agent suggested pinning the dependency until the upstream fix is released.",
        "They are migrating the scheduler from cron jobs to a queue with {person}.",
        "Latency on the search endpoint improved after adding an index on the customer table.",
        "The release checklist now includes a rollback rehearsal.",
    ),
    "health": (
        "The user asked for a weekly training plan leading up to a half marathon in {city}.",
        "They recently recovered from a knee injury and avoid downhill running.",
        "Meal ideas should be high in protein and free of peanuts because of an allergy.",
        "Sleep has been irregular since the new project started.",
        "They track resting heart rate every morning and shared the last readings.",
        "The physiotherapist recommended strength exercises twice a week.",
        "Hydration reminders were set for long afternoon meetings.",
        "They want to reduce caffeine after lunch.",
    ),
    "shopping": (
        "The user compared three models of {product} and asked which one is quieter.",
        "A discount code from the newsletter did not apply at checkout.",
        "They want gift ideas under {amount} dollars for {person}'s birthday.",
        "Delivery must arrive before the holiday because they travel to {city} afterwards.",
        "The agent found a refurbished {product} with a two year warranty.",
        "They prefer brands with repairable parts and good reviews for durability.",
        "The basket was saved so the user can decide after payday.",
        "Price alerts were created for the {product}.",
    ),
}
FILLER = _words(
    """
    time people way year day thing man world life hand part child eye woman place work week case point
    government company number group problem fact home water room mother area money story month lot right
    study book job word business issue side kind head house service friend father power hour game line
    end member law car city community name president team minute idea kid body information back parent
    face others level office door health person art war history party result change morning reason
    research girl guy moment air teacher force education foot boy age policy process music market sense
    nation plan college interest death experience effect use class control care field development role
    effort rate heart drug show leader light voice wife police mind price report decision son view
    relationship town road arm difference value building action model season society tax director
    position player record paper space ground form event official matter center couple site project
    activity star table need court oil situation cost industry figure street image phone data picture
    practice piece land product doctor wall patient worker news test movie north love support technology
    step baby computer type attention film tree source organization hair window evidence population
    truth song size red choice fire dog basis subject quickly carefully later usually finally clearly
    probably certainly mostly already simply mainly nearly quietly gladly briefly
    """
)
OPENERS = ("Notes on", "They also mentioned", "Later the talk turned to", "A side remark about", "Open questions:")
OUTCOMES = ("success", "success", "success", "partial", "failure", "unknown")
FACT_KEYS = {
    "notification_channel": ("user_preference", ["email", "sms", "push notification", "phone call"]),
    "plan_tier": ("account_state", ["Free", "Pro", "Team", "Enterprise"]),
    "home_city": ("user_attribute", CITIES),
    "diet": ("user_preference", ["vegetarian", "vegan", "pescatarian", "no restrictions"]),
    "risk_tolerance": ("user_attribute", ["low", "moderate", "high"]),
    "goal": ("goal", ["save for house deposit", "build emergency fund", "run a half marathon", "learn Portuguese"]),
    "seat_preference": ("user_preference", ["aisle", "window"]),
    "language": ("user_preference", ["English", "Portuguese", "Japanese", "German"]),
    "budget_limit": ("constraint", ["under 500 dollars", "under 2000 dollars", "no limit"]),
    "timezone": ("user_attribute", ["UTC-5", "UTC+0", "UTC+1", "UTC+9"]),
}


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _fill(rng: random.Random, template: str) -> str:
    return template.format(
        order=f"O-{rng.randrange(1000, 99999)}",
        city=rng.choice(CITIES),
        product=rng.choice(PRODUCTS),
        person=rng.choice(PEOPLE),
        amount=rng.choice((150, 400, 2000, 5000, 12000)),
        months=rng.randrange(2, 12),
        rate=rng.randrange(3, 15),
    )


SYLLABLES = _words(
    """
    ka lo mi ren tor va shi bel dan qu ex or pra nel sto wi gar fen lu tis mar ko ve zan
    """
)


def _rare_word(rng: random.Random) -> str:
    """A name from a large pool (Zipf-like), so the vocabulary grows with the store as real text does."""
    rank = int(200_000 * rng.random() ** 2.5)
    local = random.Random(rank)
    return "".join(local.choice(SYLLABLES) for _ in range(local.randrange(2, 4))).capitalize()


def _filler_sentence(rng: random.Random) -> str:
    # Zipf-like: early words of FILLER are far more common than late ones, as in real text.
    count = rng.randrange(6, 14)
    words = [FILLER[int(len(FILLER) * rng.random() ** 2.2)] for _ in range(count)]
    words += [_rare_word(rng) for _ in range(rng.randrange(0, 3))]
    rng.shuffle(words)
    return rng.choice(OPENERS) + " " + " ".join(words) + "."


def make_episode(rng: random.Random, scope: str, number: int, end: datetime) -> Episode:
    """One episode: a topic's sentences in random order, some filler, entities, events and facts."""
    topic = rng.choice(list(TOPICS))
    sentences = [_fill(rng, s) for s in rng.sample(TOPICS[topic], k=rng.randrange(4, 8))]
    second = rng.choice(list(TOPICS))
    sentences += [_fill(rng, s) for s in rng.sample(TOPICS[second], k=rng.randrange(1, 4))]
    sentences += [_filler_sentence(rng) for _ in range(rng.randrange(4, 20))]
    rng.shuffle(sentences)
    paragraphs = [" ".join(sentences[i : i + 4]) for i in range(0, len(sentences), 4)]
    started = end - timedelta(seconds=rng.randrange(SPAN_DAYS * 86400))
    when = started.strftime("%Y-%m-%d") if rng.random() < 0.05 else _when(started)  # some date-only records
    entities = [f"order O-{rng.randrange(1000, 99999)}"] if topic == "support" else []
    entities += rng.sample(CITIES, k=rng.randrange(0, 3)) + rng.sample(PEOPLE, k=rng.randrange(0, 2))
    events = [_fill(rng, s).rstrip(".") for s in rng.sample(TOPICS[topic], k=rng.randrange(1, 4))]
    facts = []
    invalidates = []
    if rng.random() < 0.2:
        key = rng.choice(list(FACT_KEYS))
        subject, values = FACT_KEYS[key]
        facts.append(CandidateFact(key=key, value=rng.choice(values), subject=subject))
    if rng.random() < 0.05:
        invalidates.append(Invalidation(key=rng.choice(list(FACT_KEYS)), reason="the user said this changed"))
    summary = "\n\n".join(paragraphs)
    session = f"s-{number}"
    return Episode(
        id=episodes.episode_id(scope, session, when, summary),
        scope=scope,
        started_at=when,
        summary=summary,
        session=session,
        ended_at=_when(started + timedelta(minutes=rng.randrange(2, 90))) if len(when) > 10 else None,
        entities=entities,
        outcome=rng.choice(OUTCOMES),
        events=events,
        facts=facts,
        invalidates=invalidates,
        consolidated=rng.random() < 0.3,
    )


def make_facts(rng: random.Random, count: int, end: datetime) -> list[Fact]:
    """About `count` facts: keys with chains of 1-4 values, the older ones superseded by the newer."""
    facts: list[Fact] = []
    keys = list(FACT_KEYS) + [f"preference_{n}" for n in range(count)]
    for key in keys:
        if len(facts) >= count:
            break
        subject, values = FACT_KEYS.get(key, ("user_preference", ["morning calls", "short answers", "bullet lists"]))
        chain = rng.randrange(1, 5)
        moments = sorted(end - timedelta(days=rng.randrange(SPAN_DAYS)) for _ in range(chain))
        previous: Fact | None = None
        for moment in moments:
            value = rng.choice(values)
            stated = moment.strftime("%Y-%m-%d")
            confidence = "stated" if rng.random() < 0.8 else "inferred"
            fact = Fact(
                id=fact_id(key, value, stated, confidence, {f.id for f in facts}),
                key=key,
                value=value,
                subject=subject,
                confidence=confidence,
                source="user_statement" if confidence == "stated" else "agent_summary",
                source_ref=f"session s-{rng.randrange(1, 9999)}",
                stated_at=stated,
                valid_from=stated,
            )
            if previous is not None:
                previous.status = "superseded"
                previous.valid_to = stated
                previous.superseded_by = fact.id
                previous.reason = "newer stated value"
            facts.append(fact)
            previous = fact
    return facts


def _write_episodes(args: tuple[str, str, int, int, int]) -> int:
    root, scope_text, start, stop, seed = args
    for number in range(start, stop):
        write_episode(Path(root), number, seed, Scope(*scope_text.split(":")))
    return stop - start


def write_episode(root: Path, number: int, seed: int = 7, scope: Scope = SCOPE) -> Path:
    """Write the `number`-th episode of `seed` into the scope's folder, as a sync would bring it (no commit)."""
    rng = random.Random(seed * 1_000_003 + number)
    episode = make_episode(rng, str(scope), number, datetime.fromisoformat(NOW.replace("Z", "+00:00")))
    folder = Paths(root).episode_month_dir(scope, episode.started_at)
    folder.mkdir(parents=True, exist_ok=True)
    data = episodes.serialize(episode)
    attempt = 1
    while True:  # claim the name atomically: two workers may pick the same second
        path = folder / episodes.file_name(episode, attempt)
        try:
            with open(path, "xb") as handle:
                handle.write(data)
            return path
        except FileExistsError:
            attempt += 1


def _commit(root: Path, message: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost"}
    env.update(GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@localhost")
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
    # Packed here, once: else this commit (and the first `mem` one) starts `git gc --auto` over every loose
    # object in the background, for minutes, while recall and the writes are timed.
    commit = ["git", "-C", str(root), "-c", "gc.auto=0", "commit", "-q", "--no-verify", "-m", message]
    subprocess.run(commit, check=True, env=env)
    subprocess.run(["git", "-C", str(root), "gc", "--quiet"], check=True, env=env)


def scope_home(root: Path, count: int, seed: int = 7, facts: int = 60, jobs: int = 2) -> Path:
    """A home with one scope (user:bench) holding `facts` facts and `count` episodes; reused if complete."""
    marker = root / ".cache" / f"corpus-{count}-{seed}-{facts}"
    if marker.exists():
        return root
    if root.exists():
        raise SystemExit(f"{root} exists but is not a finished corpus; remove it first")
    init_home(root)
    paths = Paths(root)
    rng = random.Random(seed)
    end = datetime.fromisoformat(NOW.replace("Z", "+00:00"))
    doc = memoryfile.MemoryDoc(str(SCOPE), make_facts(rng, facts, end), memoryfile.new_body(str(SCOPE)))
    paths.memory_file(SCOPE).parent.mkdir(parents=True, exist_ok=True)
    paths.memory_file(SCOPE).write_bytes(memoryfile.serialize(doc))
    # Months are filled in parallel; each episode has its own seeded generator, so the result is the same.
    step = max(1, count // (jobs * 8))
    chunks = [(str(root), str(SCOPE), s, min(s + step, count), seed) for s in range(0, count, step)]
    with ProcessPoolExecutor(jobs) as pool:
        written = sum(pool.map(_write_episodes, chunks))
    _commit(root, f"bench: {written} episodes and {len(doc.facts)} facts for {SCOPE}")
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.touch()
    return root


def _write_tenants(args: tuple[str, int, int, int, int]) -> int:
    root, start, stop, facts, seed = args
    paths = Paths(Path(root))
    end = datetime.fromisoformat(NOW.replace("Z", "+00:00"))
    for number in range(start, stop):
        scope = Scope("user", f"u{number:05d}")
        rng = random.Random(seed * 1_000_003 + number)
        doc = memoryfile.MemoryDoc(str(scope), make_facts(rng, facts, end), memoryfile.new_body(str(scope)))
        path = paths.memory_file(scope)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(memoryfile.serialize(doc))
    return stop - start


def tenant_home(root: Path, users: int = 10_000, facts: int = 50, seed: int = 11, jobs: int = 2) -> Path:
    """A multi-tenant home: `users` users (u00000…) with about `facts` facts each; reused if complete."""
    marker = root / ".cache" / f"tenants-{users}-{facts}-{seed}"
    if marker.exists():
        return root
    if root.exists():
        raise SystemExit(f"{root} exists but is not a finished corpus; remove it first")
    init_home(root)
    step = max(1, users // (jobs * 8))
    chunks = [(str(root), s, min(s + step, users), facts, seed) for s in range(0, users, step)]
    with ProcessPoolExecutor(jobs) as pool:
        written = sum(pool.map(_write_tenants, chunks))
    _commit(root, f"bench: {written} users with {facts} facts each")
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.touch()
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="kind", required=True)
    one = sub.add_parser("scope", help="one scope with N episodes")
    one.add_argument("root", type=Path)
    one.add_argument("--episodes", type=int, default=1000)
    one.add_argument("--facts", type=int, default=60)
    one.add_argument("--seed", type=int, default=7)
    many = sub.add_parser("tenants", help="many users with facts")
    many.add_argument("root", type=Path)
    many.add_argument("--users", type=int, default=10_000)
    many.add_argument("--facts", type=int, default=50)
    many.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.kind == "scope":
        scope_home(args.root, args.episodes, args.seed, args.facts)
    else:
        tenant_home(args.root, args.users, args.facts, args.seed)
    print(f"{args.root}: ready in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
