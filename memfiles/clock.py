"""The one clock: every "now" in memfiles comes from here, and `$MEM_NOW` sets it for replays and tests.

A moment is a `When`: a `date` (day-granular: "said on 2026-06-02") or an aware UTC `datetime` to the
second. Files write them as `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` (`iso`). A date-only When ties with
any time of its day (`compare`), so "stated 2026-06-02" is never before or after "2026-06-02T10:00:00Z".
"""

from __future__ import annotations

import os
import re
from datetime import UTC, date, datetime, timedelta

from memfiles.errors import UsageError

When = date | datetime

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DAYS = re.compile(r"^(\d{1,6})d$")
_MAX_DAYS = 36_500  # a hundred years: further is a typo, and past it dates overflow


def now() -> When:
    """Now: `$MEM_NOW` as given (a date or a datetime), else the UTC time to the second."""
    fixed = os.environ.get("MEM_NOW", "").strip()
    if fixed:
        try:
            return parse_when(fixed)
        except UsageError as exc:
            raise UsageError(f"$MEM_NOW: {exc}") from None
    return datetime.now(UTC).replace(microsecond=0)


def parse_when(value: str | date | datetime) -> When:
    """An ISO date or datetime (text, `date` or `datetime`) as a When: a date, or an aware UTC datetime."""
    if isinstance(value, datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return moment.astimezone(UTC).replace(microsecond=0)
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        raise UsageError(f"not a date: {value!r}")
    text = value.strip()
    if _DATE.match(text):
        try:
            return date.fromisoformat(text)
        except ValueError:
            raise UsageError(f"not a date: {text!r} (expected YYYY-MM-DD)") from None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T"))
    except ValueError:
        raise UsageError(f"not a date or datetime: {text!r} (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)") from None
    return parse_when(moment)


def iso(when: When) -> str:
    """A When as files write it: `YYYY-MM-DD`, or `YYYY-MM-DDTHH:MM:SSZ` in UTC."""
    if isinstance(when, datetime):
        return when.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"  # year 1 is 0001
    return when.isoformat()


def day(when: When) -> date:
    """The UTC day of a When."""
    return when.astimezone(UTC).date() if isinstance(when, datetime) else when


def order(when: When) -> tuple[date, bool, datetime]:
    """A sort key: by day, then a date-only When before the times of its day, then by time."""
    return day(when), isinstance(when, datetime), to_datetime(when)


def to_datetime(when: When) -> datetime:
    """A When as an aware UTC datetime (a date is midnight UTC)."""
    if isinstance(when, datetime):
        return when
    return datetime(when.year, when.month, when.day, tzinfo=UTC)


def compare(a: When, b: When) -> int:
    """Order two Whens: -1, 0 or 1. A date-only When is day-granular, so it ties with any time that day."""
    if not isinstance(a, datetime) or not isinstance(b, datetime):
        x, y = day(a), day(b)
        return (x > y) - (x < y)
    return (a > b) - (a < b)


def parse_date_or_days(text: str, start: When | None = None) -> When:
    """`--expires` values: an ISO date/datetime, or `Nd` meaning N days after `start` (default now)."""
    match = _DAYS.match(text.strip())
    if not match:
        return parse_when(text)
    return shift_days(start if start is not None else now(), days(match.group(1)))


def days(text: str) -> int:
    """A count of days from the command line, refused when it cannot be a real span (over a hundred years)."""
    count = int(text)
    if count > _MAX_DAYS:
        raise UsageError(f"{count} days is more than a hundred years; give a date or a shorter span")
    return count


def shift_days(when: When, count: int) -> When:
    """Move a When by a number of days, keeping its precision."""
    try:
        return when + timedelta(days=count)
    except OverflowError:
        raise UsageError(f"{count} days from {iso(when)} is outside the calendar") from None


def age_days(when: When, at: When) -> float:
    """Days from `when` to `at` (never negative)."""
    seconds = (to_datetime(at) - to_datetime(when)).total_seconds()
    return max(seconds / 86400.0, 0.0)
