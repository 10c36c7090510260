"""`mem review`'s interactive pass at a terminal: each proposed fact, then each flagged episode, settled one by
one (accept, reject, skip, edit a fact's value, quit); each answer is one API call, written and committed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memfiles import output

if TYPE_CHECKING:
    from memfiles.api import Fact, HeldEpisode, ScopeHandle

_FACT = "[a]ccept, [r]eject, [s]kip, [e]dit the value, [q]uit"
_EPISODE = "[a]ccept, [r]eject, [s]kip, [q]uit"


def review_pass(handle: ScopeHandle, facts: list[Fact], held: list[HeldEpisode]) -> None:
    """Go through every item; print what each answer did, then how many were settled."""
    done = {"accepted": 0, "rejected": 0, "edited": 0, "skipped": 0}
    total = len(facts) + len(held)
    if not total:
        output.line(f"{handle}: nothing waits for review")
        return
    number = 0
    for fact in facts:
        number += 1
        output.review_item(number, total, fact=fact)
        answer = output.ask(_FACT, ["a", "r", "s", "e", "q"], "s")
        if answer == "q":
            break
        _settle_fact(handle, fact, answer, done)
    else:
        for episode in held:
            number += 1
            output.review_item(number, total, held=episode)
            answer = output.ask(_EPISODE, ["a", "r", "s", "q"], "s")
            if answer == "q":
                break
            if answer == "a":
                output.held_episode("accepted", handle.accept_episode(episode.id), False)
                done["accepted"] += 1
            elif answer == "r":
                output.held_episode("rejected", handle.reject_episode(episode.id), False)
                done["rejected"] += 1
            else:
                done["skipped"] += 1
    left = total - sum(done.values()) + done["skipped"]
    output.line(", ".join(f"{n} {what}" for what, n in done.items()) + f"; {left} still waiting")


def _settle_fact(handle: ScopeHandle, fact: Fact, answer: str, done: dict[str, int]) -> None:
    if answer == "a":
        output.outcome(handle.accept(fact.id), False)
        done["accepted"] += 1
    elif answer == "r":
        output.rejected(handle.reject(fact.id), False)
        done["rejected"] += 1
    elif answer == "e":
        value = output.ask_text(f"{fact.key} =")
        written = handle.add(fact.key, value, subject=fact.subject, source="person", ref=f"edited proposal {fact.id}")
        output.outcome(written, False)
        if written.refused:  # the proposal waits: the value given was not written
            done["skipped"] += 1
            return
        handle.reject(fact.id)
        done["edited"] += 1
    else:
        done["skipped"] += 1
