"""What the pages show, computed from the API's results (pure: no request, no file): a scope's counts and
conflicts, a key's timeline as positions along time, what was believed on a day, stored text made visible.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

if TYPE_CHECKING:
    from memfiles.api import Fact

TIMELINE_WIDTH = 760  # the drawing's width in SVG units (it scales with the page)
LABEL_WIDTH = 0
ROW = 30
_KEEP = {"\n", "\t"}


def visible(text: str) -> str:
    """`text` with every control, format (bidi overrides, zero-width) or separator character shown as
    ⟦U+XXXX⟧, so a stored value can neither reorder nor hide what is shown around it."""
    if text.isprintable():
        return text
    out = []
    for char in text:
        if char in _KEEP or char == " " or unicodedata.category(char) not in ("Cc", "Cf", "Co", "Cn", "Zl", "Zp"):
            out.append(char)
        else:
            out.append(f"⟦U+{ord(char):04X}⟧")
    return "".join(out)


def shown(value: Any) -> Any:
    """Jinja's `finalize`: every `{{ … }}` that is text is made visible and escaped (markup already built
    by the templates passes as it is)."""
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return escape(visible(value))
    if value is None:
        return ""
    if isinstance(value, datetime):  # as the files write it: 2026-06-02T10:00:00Z
        return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value.utcoffset() == timedelta(0) else value.isoformat()
    return value


def day(when: date | datetime | None) -> date | None:
    """The UTC day of a moment (a date is its own day)."""
    if when is None:
        return None
    return when.date() if isinstance(when, datetime) else when


def ended(fact: Fact) -> date | None:
    """The day a fact stopped being believed: valid_to or expires_at, whichever is first (None: still)."""
    ends = [d for d in (day(fact.valid_to), day(fact.expires_at)) if d is not None]
    return min(ends) if ends else None


def believed_on(facts: list[Fact], on: date) -> list[Fact]:
    """The facts believed on a day (world time: valid_from <= day < end), never proposed or retracted ones."""
    found = []
    for fact in facts:
        start, end = day(fact.valid_from), ended(fact)
        if fact.status in ("proposed", "retracted") or start is None or start > on:
            continue
        if end is None or on < end:
            found.append(fact)
    return found


@dataclass
class Counts:
    active: int = 0
    conflicts: int = 0  # keys in conflict
    proposed: int = 0


def counts(facts: list[Fact]) -> Counts:
    """A scope's active facts, keys in conflict and proposed facts."""
    found = Counts()
    found.active = sum(1 for f in facts if f.status == "active")
    found.conflicts = len({f.key for f in facts if f.status == "conflict"})
    found.proposed = sum(1 for f in facts if f.status == "proposed")
    return found


def conflicts(facts: list[Fact]) -> dict[str, list[Fact]]:
    """The keys in conflict, each with its rival facts (oldest first)."""
    found: dict[str, list[Fact]] = {}
    for fact in facts:
        if fact.status == "conflict":
            found.setdefault(fact.key, []).append(fact)
    return found


@dataclass
class Bar:
    fact: Fact
    start: date
    end: date | None
    x: float
    width: float
    y: int
    kind: str  # "stated" or "inferred"
    label: str


@dataclass
class Timeline:
    first: date
    last: date
    bars: list[Bar] = field(default_factory=list)
    ticks: list[tuple[float, str]] = field(default_factory=list)
    height: int = 0
    width: int = TIMELINE_WIDTH

    @property
    def days(self) -> int:
        return (self.last - self.first).days

    def x(self, on: date) -> float:
        span = max(self.days, 1)
        return round((on - self.first).days / span * self.width, 1)


def timeline(history: list[Fact], today: date) -> Timeline:
    """A key's facts as bars along time: from valid_from to the day it ended (or today), one row each."""
    starts = [day(f.valid_from) or today for f in history] or [today]
    first = min(*starts, today) - timedelta(days=1)
    ends = [ended(f) for f in history]
    last = max([today, *[e for e in ends if e is not None]]) + timedelta(days=1)
    drawn = Timeline(first=first, last=last)
    for row, fact in enumerate(history):
        start = day(fact.valid_from) or today
        end = ended(fact)
        x0 = drawn.x(start)
        x1 = drawn.x(end if end is not None else last)
        label = fact.value if len(fact.value) <= 60 else fact.value[:59] + "…"
        drawn.bars.append(Bar(fact, start, end, x0, max(x1 - x0, 3.0), 8 + row * ROW, fact.confidence, label))
    drawn.height = 8 + len(history) * ROW + 24
    drawn.ticks = _ticks(drawn)
    return drawn


def _ticks(drawn: Timeline) -> list[tuple[float, str]]:
    """About six labelled days along the axis, on month starts when the span is long enough."""
    span = max(drawn.days, 1)
    step = max(span // 6, 1)
    found = []
    on = drawn.first
    while on <= drawn.last:
        found.append((drawn.x(on), on.isoformat()))
        on += timedelta(days=step)
    return [(x, label) for x, label in found if x <= drawn.width - 90]  # a label must fit before the edge
