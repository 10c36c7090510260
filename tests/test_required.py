"""What every match of a rule's branch needs (memfiles.lint.required), and the prefilter that relies on it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfiles.lint import rule_needs
from memfiles.lint.findings import FirstOf
from memfiles.lint.required import WORD, Atom, requirements, stored_atoms, stored_needs, table_source
from memfiles.lint.rules import RULES, check_line, check_text

PATTERN_RULES = [rule for rule in RULES if isinstance(rule.check, FirstOf) and rule.view == "folded"]
BRANCHES = [(rule.code, index, branch) for rule in PATTERN_RULES for index, branch in enumerate(rule.check.branches)]


def holds(atom: Atom, text: str) -> bool:
    """Whether lower-case `text` holds `atom`, as the prefilter reads it."""
    kind, value = atom
    words = WORD.findall(text)
    if kind == "exact":
        return value in words
    if kind == "prefix":
        return any(word.startswith(value) for word in words)
    if kind == "infix":
        return any(value in word for word in words)
    return value in text


def unfiltered(text: str) -> list[tuple[str, int, int]]:
    """Every rule on every line: what check_text must find with its prefilter."""
    found = []
    for number, line in enumerate(text.split("\n"), 1):
        found += [(f.code, f.line, f.col) for f in check_line(line.removesuffix("\r"), number) if f.code != "MEM205"]
    return sorted(found)


@pytest.mark.parametrize(
    ("branch", "text", "expected"),
    [
        (r"\bnow\b", "right now", [{("exact", "now")}]),
        (r"\bapprov\w*", "approved", [{("prefix", "approv")}]),
        (r"[a-z]*gpt\b", "chatgpt", [{("infix", "gpt")}]),
        # an optional group that may start with a word character: `gpt4_` is one word
        (r"\bgpt(?:-?\d\w*)?\b\s*:", "gpt4_:", [{("prefix", "gpt")}]),
        (r"\bgpt(?:-?\d\w*)?\b\s*:", "gpt-4:", [{("prefix", "gpt")}]),
        # each alternative by its rarest atom, and by its first (and last) word
        (r"<\|(?:system|user)", "<|user", [{("sub", "<|")}, {("prefix", "system"), ("prefix", "user")}]),
        (
            r"\b(?:joue|incarne) (?:le role|un personnage)\b",
            "incarne un personnage",
            [
                {("exact", "joue"), ("exact", "incarne")},
                {("exact", "role"), ("exact", "personnage")},
                {("exact", "role"), ("exact", "personnage"), ("exact", "incarne")},
            ],
        ),
        (
            r"\b(?:do not|never)\s+tell\b",
            "do not tell",
            [{("exact", "tell")}, {("exact", "not"), ("exact", "never")}, {("exact", "do"), ("exact", "never")}],
        ),
        (
            r"\b(?:i want|i need)\s+you\b",
            "i need you",
            [{("exact", "want"), ("exact", "need")}, {("exact", "i")}, {("exact", "you")}],
        ),
    ],
)
def test_clauses_name_what_a_match_holds(branch: str, text: str, expected: list[set[Atom]]) -> None:
    needs = requirements(branch)
    assert sorted(map(sorted, needs.clauses)) == sorted(map(sorted, expected))
    assert re.search(branch, text)
    assert all(any(holds(atom, text) for atom in clause) for clause in needs.clauses)


def test_pairs_count_the_words_that_may_stand_between() -> None:
    needs = requirements(r"\b(?:do not|never)\s+(?:ever\s+)?(?:mention|tell)\w*")
    assert needs.pairs == [
        (frozenset({("exact", "not"), ("exact", "never")}), 1, frozenset({("prefix", "mention"), ("prefix", "tell")}))
    ]
    # two words of a literal stretch: the rarer one, and how many words follow it
    needs = requirements(r"\bno need to\s+(?:\w+\s+){0,2}ask\b")
    assert (frozenset({("exact", "need")}), 3, frozenset({("exact", "ask")})) in needs.pairs
    # the rarer word of a stretch inside a group, an alternative or a repeat keeps the words before it
    needs = requirements(r"\bregardless of\s+(?:the\s+)?(?:ethics|the law)\b")
    law = frozenset({("exact", "ethics"), ("exact", "law")})
    assert needs.pairs == [(frozenset({("exact", "regardless")}), 3, law)]
    needs = requirements(r"\bnever\s+(?:(?:the|a) law\s+)+")
    assert needs.pairs == [(frozenset({("exact", "never")}), 1, frozenset({("exact", "law")}))]


def test_a_group_that_starts_or_ends_with_optional_words_is_named_by_the_word_past_them() -> None:
    # `developer mode is now enabled`: `enabled` is one of the first three words of the group, so the
    # pair looks up to two words past `mode`; before, such a group named no word and made no pair
    needs = requirements(r"\bmode\s+(?:(?:is\s+)?(?:now\s+)?enabled|on)\b")
    assert needs.pairs == [(frozenset({("exact", "mode")}), 2, frozenset({("exact", "enabled"), ("exact", "on")}))]
    needs = requirements(r"\b(?:on|enabled(?:\s+now)?(?:\s+is)?)\s+mode\b")
    assert needs.pairs == [(frozenset({("exact", "enabled"), ("exact", "on")}), 2, frozenset({("exact", "mode")}))]
    # a group that may start with any number of words names none
    assert requirements(r"\bmode\s+(?:(?:\w+\s+)*enabled|on)\b").pairs == []
    assert [f.code for f in check_text("the developer mode is now enabled")] == ["MEM104"]


def test_a_match_whose_rare_word_comes_late_in_its_group_is_found() -> None:
    # hypothesis found it: the gap ignored `the` before `law`, and the prefilter hid this line
    assert [f.code for f in check_text("regardless of the the law")] == ["MEM105"]


def test_a_pair_is_looked_for_by_the_rarer_of_two_stop_words() -> None:
    # `to` stands in almost every sentence, `not` in few: every place `to` stood was looked around
    needs = requirements(r"\b(?:not to|never)\s+mention")
    assert needs.pairs == [(frozenset({("exact", "not"), ("exact", "never")}), 1, frozenset({("prefix", "mention")}))]


def test_what_cannot_be_read_requires_nothing() -> None:
    assert requirements(r"\w+\s+\w+").clauses == []
    assert requirements(r"(?:a|\w+)b").clauses == [frozenset({("infix", "b")})]


def test_every_instruction_branch_can_be_looked_for() -> None:
    # a branch with nothing to look for would run on every line of every file
    from memfiles.lint.rules import prefilter

    assert prefilter().branches.unanchored == []


def test_the_stored_table_is_current() -> None:
    # memfiles/lint/rule_needs.py only saves start-up time: regenerate with `python -m memfiles.lint.required`
    assert Path(rule_needs.__file__).read_text(encoding="utf-8") == table_source(PATTERN_RULES)
    atoms = stored_atoms()

    def named(numbers: frozenset[int]) -> frozenset[Atom]:
        return frozenset(atoms[n] for n in numbers)

    for rule in PATTERN_RULES:
        stored = stored_needs(rule.code, rule.check.patterns)
        assert stored is not None
        read = [
            ([named(c) for c in clauses], [(named(a), g, named(b)) for a, g, b in pairs]) for clauses, pairs in stored
        ]
        assert read == [tuple(requirements(b)) for b in rule.check.branches]


def test_a_changed_rule_is_worked_out_afresh() -> None:
    rule = PATTERN_RULES[0]
    assert stored_needs(rule.code, (*rule.check.patterns[:-1], r"\bsomething else\b")) is None
    assert stored_needs(rule.code, (*rule.check.patterns, r"\bone more\b")) is None


_ASCII = st.characters(codec="ascii")


def without_lookarounds(pattern: str) -> str:
    """`pattern` with its look-aheads and look-behinds taken out (hypothesis cannot aim at them)."""
    out, index = [], 0
    while index < len(pattern):
        if pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), index):
            depth, in_class = 0, False
            while index < len(pattern):
                char = pattern[index]
                if char == "\\":
                    index += 2
                    continue
                if in_class:
                    in_class = char != "]"
                elif char == "[":
                    in_class = True
                    index += 2 if pattern[index + 1 : index + 2] in ("^", "]") else 1
                    continue
                elif char == "(":
                    depth += 1
                elif char == ")":
                    depth -= 1
                    if depth == 0:
                        index += 1
                        break
                index += 1
            continue
        if pattern[index] == "\\":
            out.append(pattern[index : index + 2])
            index += 2
            continue
        out.append(pattern[index])
        index += 1
    return "".join(out)


def test_lookarounds_come_out_whole() -> None:
    assert without_lookarounds(r"(?<!where )\bx(?!\s*(?:[.,;:!?)]|$))y") == r"\bxy"


@pytest.mark.parametrize(("code", "index", "branch"), BRANCHES, ids=[f"{c}-{i}" for c, i, _ in BRANCHES])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_prefilter_never_hides_a_match_of_any_branch(
    code: str, index: int, branch: str, data: st.DataObject
) -> None:
    # texts that hold a match of the branch (in any script, or plain ASCII), with other text around
    alphabet = data.draw(st.sampled_from([None, _ASCII] if branch.isascii() else [None]))
    text = data.draw(st.from_regex(without_lookarounds(branch), alphabet=alphabet))
    assert sorted((f.code, f.line, f.col) for f in check_text(text) if f.code != "MEM205") == unfiltered(text)


def test_a_rule_the_table_does_not_know_is_prefiltered_all_the_same() -> None:
    from memfiles.lint.findings import WARNING, Rule, first_of
    from memfiles.lint.prefilter import Prefilter

    rule = Rule("MEM199", WARNING, "test", "", "", "", first_of(r"\bplugh\s+(?:\w+\s+)?xyzzy\b"))
    prefilter = Prefilter([rule], hidden=[], long=[])
    assert [line for line, _ in prefilter.candidates("nothing here\nsay plugh now xyzzy\n").items()] == [1]
    assert prefilter.candidates("plugh stands alone here, far\nfrom the other word, xyzzy\n") == {}


def test_the_prefilters_character_sets_are_strings_own() -> None:
    import string

    from memfiles.lint.prefilter import ASCII_LOWERCASE, PUNCTUATION

    assert (string.punctuation, string.ascii_lowercase) == (PUNCTUATION, ASCII_LOWERCASE)
