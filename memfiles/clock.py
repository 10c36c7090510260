"""The one clock: every "now" in memfiles comes from here, and `$MEM_NOW` sets it for replays and tests."""

from __future__ import annotations

import os
import re
from datetime import UTC, date, datetime, timedelta

from memfiles.errors import UsageError

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DAYS = re.compile(r"^(\d{1,6})d$")


def now() -> str:
    """Now as a canonical When: `$MEM_NOW` as given (a date or a datetime), else the UTC time to the second."""
    fixed = os.environ.get("MEM_NOW", "").strip()
    if fixed:
        try:
            return parse_when(fixed)
        except UsageError as exc:
            raise UsageError(f"$MEM_NOW: {exc}") from None
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def today() -> str:
    """Today's date (per `now()`) as YYYY-MM-DD."""
    return now()[:10]


def parse_when(text: str) -> str:
    """Normalise an ISO date or datetime to a canonical When: `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` (UTC)."""
    text = text.strip()
    if _DATE.match(text):
        try:
            date.fromisoformat(text)
        except ValueError:
            raise UsageError(f"not a date: {text!r} (expected YYYY-MM-DD)") from None
        return text
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T"))
    except ValueError:
        raise UsageError(f"not a date or datetime: {text!r} (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def when_from_value(value: object) -> str:
    """Normalise a date/datetime/str read from YAML to a canonical When (raises UsageError)."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        return parse_when(value)
    raise UsageError(f"not a date: {value!r}")


def parse_date_or_days(text: str, start: str | None = None) -> str:
    """`--expires`/`--since` values: an ISO date/datetime, or `Nd` meaning N days after (or before) `start`."""
    match = _DAYS.match(text.strip())
    if not match:
        return parse_when(text)
    base = start or now()
    return shift_days(base, int(match.group(1)))


def shift_days(when: str, days: int) -> str:
    """Move a When by a number of days, keeping its precision."""
    if len(when) == 10:
        return (date.fromisoformat(when) + timedelta(days=days)).isoformat()
    moved = to_datetime(when) + timedelta(days=days)
    return moved.strftime("%Y-%m-%dT%H:%M:%SZ")


def to_datetime(when: str) -> datetime:
    """A When as an aware UTC datetime (a date is midnight UTC)."""
    if len(when) == 10:
        return datetime.fromisoformat(when).replace(tzinfo=UTC)
    return datetime.fromisoformat(when.replace("Z", "+00:00"))


def compare(a: str, b: str) -> int:
    """Order two Whens: -1, 0 or 1. A date-only When is day-granular, so it ties with any time that day."""
    if len(a) == 10 or len(b) == 10:
        a, b = a[:10], b[:10]
    return (a > b) - (a < b)


def age_days(when: str, at: str) -> float:
    """Days from `when` to `at` (never negative)."""
    seconds = (to_datetime(at) - to_datetime(when)).total_seconds()
    return max(seconds / 86400.0, 0.0)
