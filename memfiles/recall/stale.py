"""Staleness (FORMAT.md, "Staleness"): a current fact not confirmed for longer than its subject's
`[stale_after_days]` is *possibly stale*: recall and render mark it, `mem stale` lists it and `mem consolidate`
proposes expiring it. Pure: nothing here changes a file; `mem confirm KEY` (the write path) settles it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from memfiles import clock
from memfiles.clock import When
from memfiles.format.model import Fact


def confirmed(fact: Fact) -> When:
    """When the fact was last confirmed: said again or confirmed by a person (`last_confirmed`), else first said.

    An inference repeating a stated value (`last_inferred`) does not confirm it.
    """
    return fact.last_confirmed or fact.stated_at


def stale_since(fact: Fact, stale_after: Mapping[str, int], as_of: When) -> When | None:
    """The day `fact` was last confirmed when that is more than its subject's days before `as_of`, else None.

    Only current facts (active or in conflict) can be stale; a subject with 0 days never is.
    """
    days = int(stale_after.get(fact.subject, 0))
    if not days or not fact.is_current:
        return None
    last = confirmed(fact)
    return last if (clock.day(as_of) - clock.day(last)).days > days else None


def stale_facts(facts: Iterable[Fact], stale_after: Mapping[str, int], as_of: When) -> list[Fact]:
    """The current facts among `facts` that are possibly stale at `as_of`, least recently confirmed first."""
    found = [f for f in facts if stale_since(f, stale_after, as_of) is not None]
    return sorted(found, key=lambda f: (clock.order(confirmed(f)), f.key, f.id))
