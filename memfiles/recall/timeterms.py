"""Dates as terms: when an episode happened, and the dates a query names, as words recall can match.

An episode holds `@YYYY`, `@YYYY-MM` and `@YYYY-MM-DD` for the day it started. A query naming a date
("on 8 May, 2023", "in March 2023", "May 2023", "2023-05-08", "in 2022") gets the same kind of term;
with a reference time, relative dates count too ("yesterday", "last week", "last May", "3 days ago").
A day also matches the days around it for part of the credit, and a span ("last week") is one query
term satisfied by any of its days, so dates stay ordinary matching terms (the index's invariant).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cache

from memfiles import clock
from memfiles.clock import When

PREFIX = "@"
WHEN = "@when"  # a question asking when, and a passage that says when something happened
NEAR_DAYS = 3  # a day also matches up to 3 days either side, for less credit the further away
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
MONTHS = {name: n for n, name in enumerate(_MONTHS, 1)} | {name[:3]: n for n, name in enumerate(_MONTHS, 1)}
MONTHS["sept"] = 9
_MON = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"  # noqa: E501
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_COUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "few": 3, "couple": 2}
# (pattern, the meaning of its groups): d day, m month name, n month number, y year, w which
# ("last", "this", "in"...), u unit (day, week...), q quantity.
_PATTERNS: list[tuple[str, str]] = [
    (rf"\b{_YEAR}-(\d\d)-(\d\d)\b", "ynd"),
    (rf"\b{_DAY}\s+(?:of\s+)?{_MON},?\s+{_YEAR}\b", "dmy"),
    (rf"\b{_MON}\s+{_DAY},?\s+{_YEAR}\b", "mdy"),
    (rf"\b{_MON},?\s+{_YEAR}\b", "my"),
    (rf"\b(?:on\s+)?(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MON}\b", "dm"),
    (rf"\b(?:on|from|between|since|until|by|before|after)\s+{_MON}\s+{_DAY}\b", "md"),
    (rf"\b(?!may\b){_MON}\s+{_DAY}\b", "md"),  # "may 5" alone may be the verb
    (rf"\b(last|in|during|since|early|late|mid|of)\s+{_MON}\b", "wm"),
    (rf"\b(?:in|during|since|of)\s+{_YEAR}\b", "y"),
    (r"\b(yesterday|today|tonight)\b", "w"),
    (r"\b(last|this|past)\s+(week|weekend|month|year)\b", "wu"),
    (rf"\b(\d{{1,3}}|{'|'.join(_COUNT)})\s+(?:of\s+)?(day|week|month|year)s?\s+ago\b", "qu"),
]


@cache
def _patterns() -> list[tuple[re.Pattern[str], str]]:
    """The date patterns, compiled on first need (most queries name no date, and start-up matters)."""
    return [(re.compile(pattern), meaning) for pattern, meaning in _PATTERNS]


_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_SAYS_WHEN = (
    r"\b(?:yesterday|today|tonight|tomorrow|ago|recently|(?:last|next|this|past)\s+(?:week|weekend|month|year|night|"
    rf"morning|summer|winter|spring|fall|autumn)|(?:{_WEEKDAYS})s?|{'|'.join(m for m in _MONTHS if m != 'may')}|"
    r"(?:in|last|next|early|late|mid|of)\s+may|may\s+\d|(?:19|20)\d\d)\b"
)
_ASKS_WHEN = re.compile(
    r"^\W*(?:when|what\s+(?:date|day|year|month|time)|how\s+long\s+ago|which\s+(?:year|month|day))\b"
)


@cache
def _says_when() -> re.Pattern[str]:
    return re.compile(_SAYS_WHEN)


def says_when(text: str) -> bool:
    """Whether `text` tells when something happened: a date, a month, a weekday, "yesterday", "2 weeks ago"…"""
    return _says_when().search(text.lower()) is not None


def asks_when(text: str) -> bool:
    """Whether a query asks when something happened ("When did…", "What year…", "How long ago…")."""
    return _ASKS_WHEN.search(text.lower()) is not None


_ASKS_LATEST = re.compile(
    r"\b(?:latest|newest|most\s+recent(?:ly)?|recently|lately|(?:the\s+)?last\s+time|these\s+days|nowadays)\b"
)


def asks_latest(text: str) -> bool:
    """Whether a query asks for the newest ("the latest on…", "what did we discuss recently", "last time") and
    names no date: then recency weighs more (memfiles.recall.ranking.recency_weight), and those words are no
    topic to match (`query_dates` leaves them out)."""
    if _ASKS_LATEST.search(text.lower()) is None:
        return False
    return not [term for term in query_dates(text).terms if term != WHEN]


def day_term(day: date) -> str:
    return f"{PREFIX}{day.isoformat()}"


def episode_terms(started_at: When) -> list[str]:
    """An episode's date terms: its year, month and day (`@2023`, `@2023-05`, `@2023-05-08`)."""
    day = clock.day(started_at).isoformat()
    return [f"{PREFIX}{day[:4]}", f"{PREFIX}{day[:7]}", f"{PREFIX}{day}"]


@dataclass(slots=True)
class Dates:
    """The dates a query names: terms, the stored terms each also accepts (with credit), the rest of the text."""

    terms: list[str] = field(default_factory=list)
    alternatives: dict[str, dict[str, float]] = field(default_factory=dict)
    text: str = ""


def query_dates(text: str, now: When | None = None) -> Dates:
    """The date terms of a query; relative dates ("last week") only when `now` (a When) is given."""
    lowered = _ASKS_LATEST.sub(lambda m: " " * len(m.group()), text.lower())  # a wish for recency, not a topic
    found = Dates(text=lowered if lowered != text.lower() else text)
    if asks_when(lowered):
        found.terms.append(WHEN)
    if not any(ch.isdigit() for ch in lowered) and not _maybe_date(lowered):
        return found  # most queries name no date: skip the patterns
    today = clock.day(now) if now is not None else None
    matches: list[tuple[int, int, dict[str, str]]] = []
    for pattern, meaning in _patterns():
        for match in pattern.finditer(lowered):
            groups = dict(zip(meaning, match.groups(), strict=True))
            if _valid(groups) and not any(start < match.end() and match.start() < end for start, end, _ in matches):
                matches.append((*match.span(), groups))
    matches.sort(key=lambda m: m[0])
    for (_, end, groups), (start, _, after) in itertools.pairwise(matches):
        if "d" in groups and "y" not in groups and "y" in after and _RANGE.fullmatch(lowered[end:start]):
            groups["y"] = after["y"]  # "between August 11 and August 15, 2023": one year for both
    taken = []
    n = 0
    while n < len(matches):
        start, end, groups = matches[n]
        if n + 1 < len(matches) and _range(found, lowered, matches[n], matches[n + 1], today):
            taken += [(start, end), matches[n + 1][:2]]
            n += 2
            continue
        if _add(found, groups, today):
            taken.append((start, end))
        n += 1
    kept = list(lowered)
    for start, end in taken:  # the words of a date are its term now, not words to match ("march", "2023")
        kept[start:end] = " " * (end - start)
    found.text = "".join(kept)
    return found


_RANGE = re.compile(r",?\s*(?:and|to|until|till|through|-|–)\s*")
_RANGE_START = re.compile(r"\b(?:between|from)\s+(?:the\s+)?$")


def _range(
    found: Dates,
    lowered: str,
    first: tuple[int, int, dict[str, str]],
    last: tuple[int, int, dict[str, str]],
    today: date | None,
) -> bool:
    """ "between 11 and 15 August", "from May 3 to May 9": one span of days, if the two dates make one."""
    starts = _RANGE_START.search(lowered[: first[0]]) or lowered.startswith(("between", "from"), first[0])
    if not (starts and _RANGE.fullmatch(lowered[first[1] : last[0]])):
        return False
    begin, end = _day_of(first[2], today), _day_of(last[2], today)
    if begin is None or end is None or not 0 < (end - begin).days <= 62:
        return False
    _span(found, begin, end)
    return True


def _valid(groups: dict[str, str]) -> bool:
    """False for a day that does not exist in its stated year (31 June 2023), so the month alone is read."""
    if "d" not in groups or "y" not in groups:
        return True
    month = MONTHS[groups["m"]] if "m" in groups else int(groups.get("n") or 0)
    try:
        date(int(groups["y"]), month, int(groups["d"]))
    except ValueError:
        return False
    return True


def _day_of(groups: dict[str, str], today: date | None) -> date | None:
    """The day a day-level date expression names, if it names one."""
    if "d" not in groups or "u" in groups:
        return None
    month = MONTHS[groups["m"]] if "m" in groups else int(groups.get("n") or 0)
    year = int(groups["y"]) if "y" in groups else _recent_year(month, today, None)
    try:
        return date(year, month, int(groups["d"])) if year else None
    except ValueError:
        return None


def _recent_year(month: int, today: date | None, which: str | None) -> int | None:
    """The year of the most recent such month ("in May"), or the one before this month ("last May")."""
    if today is None or not month:
        return None
    year = today.year if month <= today.month else today.year - 1
    return year - 1 if which == "last" and month == today.month else year


def _maybe_date(lowered: str) -> bool:
    return any(word in lowered for word in ("yesterday", "today", "tonight", "last", "this", "past", "ago")) or any(
        name in lowered for name in _MONTHS
    )


def _add(found: Dates, groups: dict[str, str], today: date | None) -> bool:
    """Add the terms one matched date expression means; False when it means no date (or needs `now`)."""
    which = groups.get("w")
    if "u" in groups:
        return _relative(found, groups, today)
    if which in ("yesterday", "today", "tonight"):
        if today is None:
            return False
        _day(found, today - timedelta(days=1 if which == "yesterday" else 0))
        return True
    month = MONTHS[groups["m"]] if "m" in groups else int(groups.get("n") or 0)
    year = int(groups["y"]) if "y" in groups else _recent_year(month, today, which)
    if year is None:
        return False
    if not month:
        found.terms.append(f"{PREFIX}{year}")
        return True
    if "d" not in groups:
        found.terms.append(f"{PREFIX}{year}-{month:02d}")
        return True
    try:
        _day(found, date(year, month, int(groups["d"])))
    except ValueError:
        return False  # 31 June is no date
    return True


def _day(found: Dates, day: date) -> None:
    term = day_term(day)
    found.terms.append(term)
    found.alternatives[term] = {
        day_term(day + timedelta(days=offset)): 1 - abs(offset) / (NEAR_DAYS + 1)
        for offset in range(-NEAR_DAYS, NEAR_DAYS + 1)
        if offset
    }


def _relative(found: Dates, groups: dict[str, str], today: date | None) -> bool:
    """`last week`, `this month`, `3 days ago`…, counted back from today."""
    if today is None:
        return False
    unit = groups["u"]
    if "q" in groups:
        quantity = _COUNT.get(groups["q"]) or int(groups["q"])
        if unit == "day":
            _day(found, today - timedelta(days=quantity))
        elif unit == "week":
            middle = today - timedelta(days=7 * quantity)
            _span(found, middle - timedelta(days=3), middle + timedelta(days=3))
        elif unit == "month":
            year, month = divmod(today.year * 12 + today.month - 1 - quantity, 12)
            found.terms.append(f"{PREFIX}{year}-{month + 1:02d}")
        else:
            found.terms.append(f"{PREFIX}{today.year - quantity}")
        return True
    back = groups["w"] in ("last", "past")
    if unit in ("week", "weekend"):
        _span(found, today - timedelta(days=7 if back else 6), today - timedelta(days=1 if back else 0))
    elif unit == "month":
        year, month = divmod(today.year * 12 + today.month - 1 - (1 if back else 0), 12)
        found.terms.append(f"{PREFIX}{year}-{month + 1:02d}")
    else:
        found.terms.append(f"{PREFIX}{today.year - (1 if back else 0)}")
    return True


def _span(found: Dates, first: date, last: date) -> None:
    """A run of days as one query term (`@2023-05-01/2023-05-07`) that any of its days satisfies."""
    term = f"{PREFIX}{first.isoformat()}/{last.isoformat()}"
    found.terms.append(term)
    days = (last - first).days
    found.alternatives[term] = {day_term(first + timedelta(days=n)): 1.0 for n in range(days + 1)}
