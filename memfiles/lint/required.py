"""What every match of a regular expression must contain: the words the lint prefilter looks for.

`requirements(branch)` reads one alternative of a rule's pattern and returns what every match of
it holds, about the lower-case text the rule reads. A *word* is a run of a-z, 0-9 and `_` with a
letter or digit in it (what `\\w+` matches in ASCII text). An *atom* is one of:

- ("exact", w): a word equal to w               `\\bnow\\b`, `from now on`
- ("prefix", w): a word that starts with w       `\\bapprov\\w*`
- ("infix", w): a word that contains w           `[a-z]*gpt`
- ("sub", s): the text contains s                `<|`, `[`, characters of other scripts

`Needs.clauses` are sets of atoms: every match holds at least one atom of each clause.
`Needs.pairs` are (left, gap, right): every match holds a word with an atom of `left` and, that
word or one of the `gap + 1` words after it, a word with an atom of `right` (`do not mention`).

They are read off the parsed pattern (re._parser): literal text, small character sets, small
alternations and optional parts are expanded into the strings they can match; repeats, wide classes
and look-behinds count for nothing. What cannot be worked out gives fewer requirements, never a
wrong one, so the prefilter may run a pattern on a line it cannot match but never skips a line it
matches (tests/test_required.py checks requirements against matches of every rule).
"""

from __future__ import annotations

import importlib
import re
import zlib
from itertools import pairwise
from typing import Any, NamedTuple

try:  # the standard library's own parser of regular expressions (re._parser since Python 3.11)
    sre: Any = importlib.import_module("re._constants")
    sre_parse: Any = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - a Python that moved them: every branch is then unanchored
    sre = sre_parse = None

from memfiles.recall.words import COMMONEST, STOPWORDS

Atom = tuple[str, str]
Clause = frozenset[Atom]
Pair = tuple[Clause, int, Clause]

WORD = re.compile(r"[a-z0-9_]*[a-z0-9][a-z0-9_]*")
_LIMIT = 48  # most strings a literal stretch is expanded into
_SET_LIMIT = 8  # most characters of a character set expanded as alternatives
_PUNCT = re.compile(r"[^a-z0-9_\s]{2,}")  # `<|`, `[/`: rare in prose, found by substring search
_RARE_CHARS = frozenset("[]{}<>|\\^~`")  # one of these alone is rare enough to look for
_Item = tuple[Any, Any]  # (opcode, argument) as re._parser gives them
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
_EDGES = ("AT_BOUNDARY", "AT_BEGINNING", "AT_BEGINNING_LINE", "AT_BEGINNING_STRING")
_ENDS = ("AT_BOUNDARY", "AT_END", "AT_END_LINE", "AT_END_STRING")


class Needs(NamedTuple):
    """What every match of one branch holds: clauses of atoms, and pairs of words near each other."""

    clauses: list[Clause]
    pairs: list[Pair]


class _Shape(NamedTuple):
    """How many words a match of a part holds (`most` None: no bound), and atoms of a word near each end.

    `head` is held by one of the first `head_skip + 1` words of every match, `tail` by one of its last
    `tail_skip + 1` words (`every time`: `every`, a word before the last).
    """

    least: int = 0
    most: int | None = None
    head: Clause | None = None
    tail: Clause | None = None
    head_skip: int = 0
    tail_skip: int = 0


_EMPTY = _Shape(0, 0)


def requirements(branch: str, flags: int = 0) -> Needs:
    """What every match of `branch` holds (nothing, when it cannot be read)."""
    if sre_parse is None:
        return Needs([], [])
    try:
        items = list(sre_parse.parse(branch, flags))
    except re.error:
        return Needs([], [])
    found = set(_sequence(items, before=False, after=False))
    clauses = sorted(found, key=lambda clause: (rarity_of_clause(clause), sorted(clause)), reverse=True)
    if len(items) == 1 and items[0][0] is sre.SUBPATTERN:  # `(?:…)` around the whole branch
        items = list(items[0][1][-1])
    return Needs(clauses, _pairs(items))


def rarity(atom: Atom) -> int:
    """How rarely ordinary text holds `atom`: 0 for the commonest words, 1 for other stop words, more for
    longer words and for symbols."""
    kind, text = atom
    if kind == "sub":
        return 8
    if text in STOPWORDS:  # `not to`: `not`, a word before the end, makes the better trigger
        return 0 if text in COMMONEST else 1
    return len(text) + 1 + (kind == "exact")


def rarity_of_clause(clause: Clause) -> tuple[int, int]:
    """A clause is as rare as its commonest atom; fewer atoms break ties."""
    return min(rarity(atom) for atom in clause), -len(clause)


def _op(name: str) -> Any:
    return getattr(sre, name)


def _is(op: Any, names: tuple[str, ...]) -> bool:
    return any(op is _op(name) for name in names)


def _strings(op: Any, av: Any) -> set[str] | None:
    """Every string `(op, av)` can match, when there are few of them; None otherwise."""
    if op is sre.LITERAL:
        return {chr(av).lower()}
    if op is sre.IN:
        chars: set[str] = set()
        for kind, value in av:
            if kind is sre.LITERAL:
                chars.add(chr(value).lower())
            elif kind is sre.RANGE and value[1] - value[0] < _SET_LIMIT:
                chars.update(chr(code).lower() for code in range(value[0], value[1] + 1))
            else:
                return None
        return chars if len(chars) <= _SET_LIMIT else None
    if op in (sre.SUBPATTERN, sre.ATOMIC_GROUP):
        return _sequence_strings(av[-1])
    if op is sre.BRANCH:
        found: set[str] = set()
        for alternative in av[1]:
            more = _sequence_strings(alternative)
            if more is None:
                return None
            found |= more
            if len(found) > _LIMIT:
                return None
        return found
    if _is(op, _REPEATS) and av[1] == 1:
        inner = _sequence_strings(av[2])
        if inner is None:
            return None
        return inner | {""} if av[0] == 0 else inner
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
        return {""}  # zero width
    return None


def _sequence_strings(items: Any) -> set[str] | None:
    found = {""}
    for op, av in items:
        more = _strings(op, av)
        if more is None:
            return None
        found = {a + b for a in found for b in more}
        if len(found) > _LIMIT:
            return None
    return found


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _breaks_words(op: Any, av: Any, side: int) -> bool:
    """Whether `(op, av)`, when it matches something, starts (side 0) or ends (side -1) with a non-word character."""
    if op is sre.AT:  # an edge of a word or line
        return any(av is _op(name) for name in (_EDGES if side == -1 else _ENDS))
    if op is sre.LITERAL:
        return not _word_char(chr(av))
    if op is sre.IN:
        for kind, value in av:
            if kind is sre.CATEGORY and value in (sre.CATEGORY_SPACE, sre.CATEGORY_NOT_WORD):
                continue
            if kind is sre.LITERAL and not _word_char(chr(value)):
                continue
            return False
        return True
    if _is(op, _REPEATS):
        return _sequence_breaks(list(av[2]), side)
    if op in (sre.SUBPATTERN, sre.ATOMIC_GROUP):
        return _sequence_breaks(list(av[-1]), side)
    if op is sre.BRANCH:
        return all(_sequence_breaks(list(alt), side) for alt in av[1])
    return False


def _sequence_breaks(items: list[_Item], side: int) -> bool:
    """`_breaks_words` for a sequence: its first (or last) item, and past it while that may match nothing
    (`-?\\d` may start with a digit: `gpt(?:-?\\d\\w*)?` can match the one word `gpt4_`)."""
    if not items:
        return False
    for op, av in items if side == 0 else reversed(items):
        breaks = _breaks_words(op, av, side)
        if op is sre.AT or not breaks:
            return breaks  # an edge decides; so does a character that can be a word's
        if not _may_be_empty(op, av):
            return True
    return True  # whatever of it matches something starts (or ends) with a non-word character


def _may_be_empty(op: Any, av: Any) -> bool:
    strings = _strings(op, av)
    if strings is not None:
        return "" in strings
    return _is(op, _REPEATS) and av[0] == 0


def _edge(items: list[_Item], index: int, step: int, outside: bool) -> bool:
    """Whether a word cannot go on across the edge before (step -1) or after (step 1) items[index]."""
    names = _EDGES if step < 0 else _ENDS
    position = index + step
    while 0 <= position < len(items):
        op, av = items[position]
        if op is sre.AT:
            if any(av is _op(name) for name in names):
                return True
        elif op not in (sre.ASSERT, sre.ASSERT_NOT):
            if not _breaks_words(op, av, -1 if step < 0 else 0):
                return False
            if not _may_be_empty(op, av):
                return True
        position += step  # zero width, or may match nothing: what lies beyond decides too
    return outside


def _word_atoms(text: str, starts: bool, ends: bool) -> list[Atom]:
    """The atom of each word of the literal `text`, in order."""
    found = []
    for match in WORD.finditer(text):
        start, end = match.span()
        whole_start = start > 0 or starts
        whole_end = end < len(text) or ends
        kind = "exact" if whole_start and whole_end else "prefix" if whole_start else "infix"
        found.append((kind, match.group()))
    return found


def _atoms(text: str, starts: bool, ends: bool) -> list[Atom]:
    """Every atom a match of the literal `text` holds (all of them at once), rarest first."""
    found: set[Atom] = set(_word_atoms(text, starts, ends))
    found.update(("sub", symbols) for symbols in _PUNCT.findall(text))
    found.update(("sub", char) for char in text if not char.isascii() and not char.isspace())
    if not found:
        kept = text.strip()
        if len(kept) >= 2 or (kept and kept in _RARE_CHARS):
            found.add(("sub", kept))
    return sorted(found, key=lambda atom: (rarity(atom), atom), reverse=True)


# A sequence is read as parts: stretches of literal items (expanded into their strings) and single items.
_Part = tuple[str, Any, bool, bool]  # ("strings", set of strings | "item", (op, av)), before, after


def _parts(items: list[_Item], before: bool, after: bool) -> list[_Part]:
    """`items` cut into literal stretches and other items, each with whether words stop at its edges."""
    parts: list[_Part] = []
    index = 0
    while index < len(items):
        op, av = items[index]
        if op in (sre.AT, sre.ASSERT_NOT, sre.ASSERT) or _strings(op, av) is None:
            parts.append(("item", (op, av), _edge(items, index, -1, before), _edge(items, index, 1, after)))
            index += 1
            continue
        start, strings = index, {""}  # expanded while the strings stay few
        while index < len(items) and items[index][0] not in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            more = _strings(*items[index])
            if more is None:
                break
            longer = {a + b for a in strings for b in more}
            if len(longer) > _LIMIT and index > start:
                break
            strings = longer
            index += 1
        parts.append(("strings", strings, _edge(items, start, -1, before), _edge(items, index - 1, 1, after)))
    return parts


def _sequence(items: list[_Item], before: bool, after: bool) -> list[Clause]:
    """Clauses for a sequence of items; `before`/`after`: whether words stop at its edges."""
    clauses: list[Clause] = []
    for kind, what, starts, ends in _parts(items, before, after):
        if kind == "item":
            op, av = what
            if op is not sre.AT and op is not sre.ASSERT_NOT:
                clauses.extend(_item(op, av, starts, ends))
            continue
        per_string = [_atoms(text, starts, ends) for text in what]
        if all(per_string):
            clauses.append(frozenset(atoms[0] for atoms in per_string))  # each alternative by its rarest atom
            shared = set(per_string[0]).intersection(*per_string[1:])
            clauses.extend(frozenset((atom,)) for atom in shared)  # an atom all alternatives hold
        in_order = [_word_atoms(text, starts, ends) for text in what]
        if len(in_order) > 1 and all(in_order):  # each alternative by its first word, and by its last
            clauses.extend({frozenset(words[0] for words in in_order), frozenset(words[-1] for words in in_order)})
    return clauses


def _item(op: Any, av: Any, before: bool, after: bool) -> list[Clause]:
    """Clauses for one item that is not a small set of literal strings."""
    if op in (sre.SUBPATTERN, sre.ATOMIC_GROUP):
        return _sequence(list(av[-1]), before, after)
    if op is sre.BRANCH:
        union: set[Atom] = set()
        for alternative in av[1]:
            clauses = _sequence(list(alternative), before, after)
            if not clauses:
                return []  # this alternative needs nothing we can name, so the group needs nothing
            best: Clause = max(clauses, key=rarity_of_clause)
            union |= best
        return [frozenset(union)]
    if _is(op, _REPEATS) and av[0] >= 1:
        return _sequence(list(av[2]), False, False)
    if op is sre.ASSERT:  # what a look-ahead or look-behind sees lies in the line as well
        return _sequence(list(av[1]), False, False)
    return []


def _pairs(items: list[_Item]) -> list[Pair]:
    """Pairs of neighbouring parts that every match holds a word of, with how many words may lie between."""
    shapes = [_part_shape(part) for part in _parts(items, False, False)]
    pairs: list[Pair] = []
    anchors = [i for i, shape in enumerate(shapes) if shape.least >= 1 and shape.head and shape.tail]
    for left, right in pairwise(anchors):
        between = [shapes[i].most for i in range(left + 1, right)]
        if all(most is not None for most in between):
            tail, head = shapes[left].tail, shapes[right].head
            assert tail is not None and head is not None
            gap = shapes[left].tail_skip + sum(most or 0 for most in between) + shapes[right].head_skip
            pairs.append((tail, gap, head))
    return pairs


def _part_shape(part: _Part) -> _Shape:
    kind, what, starts, ends = part
    if kind == "item":
        op, av = what
        return _shape(op, av, starts, ends)
    words = [_word_atoms(text, starts, ends) for text in what]
    least, most = min(map(len, words)), max(map(len, words))
    if least == 0:
        return _Shape(0, most)
    # Each end by the rarer of its two words nearest it (`no need to`: `need`, one word before the end),
    # the nearer one when they are as rare
    heads = [max(range(min(len(w), 2)), key=lambda i, w=w: rarity(w[i])) for w in words]  # type: ignore[misc]
    tails = [max(reversed(range(max(len(w) - 2, 0), len(w))), key=lambda i, w=w: rarity(w[i])) for w in words]  # type: ignore[misc]
    return _Shape(
        least,
        most,
        frozenset(w[i] for w, i in zip(words, heads, strict=True)),
        frozenset(w[i] for w, i in zip(words, tails, strict=True)),
        max(heads),
        max(len(w) - 1 - i for w, i in zip(words, tails, strict=True)),
    )


def _sequence_shape(items: list[_Item], before: bool, after: bool) -> _Shape:
    shapes = [_part_shape(part) for part in _parts(items, before, after)]
    most = None if any(s.most is None for s in shapes) else sum(s.most or 0 for s in shapes)
    worded = [s for s in shapes if s.most != 0]  # the parts that may hold a word, in order
    head, head_skip = _near_end(worded, last=False)
    tail, tail_skip = _near_end(worded, last=True)
    return _Shape(sum(s.least for s in shapes), most, head, tail, head_skip, tail_skip)


def _near_end(worded: list[_Shape], last: bool) -> tuple[Clause | None, int]:
    """What a word near the start of a sequence holds (near its end, with `last`), and how many words may
    come before that word (after it): the first part that always holds a word names it, and the optional
    parts before that one are counted past (`(?:is\\s+)?(?:now\\s+)?enabled`: `enabled`, two words in)."""
    skipped = 0
    for shape in reversed(worded) if last else worded:
        if shape.least >= 1:
            clause, skip = (shape.tail, shape.tail_skip) if last else (shape.head, shape.head_skip)
            return (clause, skipped + skip) if clause else (None, 0)  # `(?:the law)`: `law`, one word in
        if shape.most is None:
            return None, 0  # any number of words may come first
        skipped += shape.most
    return None, 0


def _char_kind(op: Any, av: Any) -> str:
    """Whether one character matched by `(op, av)` is a word character ("word"), never one ("other"), or either."""
    if op is sre.LITERAL:
        return "word" if _word_char(chr(av)) else "other"
    if op is not sre.IN:
        return "either"
    kinds = set()
    for kind, value in av:
        if kind is sre.LITERAL:
            kinds.add("word" if _word_char(chr(value)) else "other")
        elif kind is sre.RANGE:
            chars = [chr(code) for code in range(value[0], min(value[1], value[0] + 256) + 1)]
            kinds.update("word" if _word_char(char) else "other" for char in chars)
            if value[1] > value[0] + 256:
                kinds.add("either")
        elif kind is sre.CATEGORY and value in (sre.CATEGORY_WORD, sre.CATEGORY_DIGIT):
            kinds.add("word")
        elif kind is sre.CATEGORY and value in (sre.CATEGORY_SPACE, sre.CATEGORY_NOT_WORD):
            kinds.add("other")
        else:
            kinds.add("either")
    return kinds.pop() if len(kinds) == 1 else "either"


def _shape(op: Any, av: Any, before: bool, after: bool) -> _Shape:
    """How many words one item (not a literal stretch) may hold, and its first and last words' atoms."""
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
        return _EMPTY
    if op in (sre.SUBPATTERN, sre.ATOMIC_GROUP):
        return _sequence_shape(list(av[-1]), before, after)
    if op is sre.BRANCH:
        shapes = [_sequence_shape(list(alternative), before, after) for alternative in av[1]]
        heads, tails = [s.head for s in shapes], [s.tail for s in shapes]
        return _Shape(
            min(s.least for s in shapes),
            None if any(s.most is None for s in shapes) else max(s.most or 0 for s in shapes),
            frozenset().union(*heads) if all(heads) else None,  # type: ignore[arg-type]
            frozenset().union(*tails) if all(tails) else None,  # type: ignore[arg-type]
            max(s.head_skip for s in shapes),
            max(s.tail_skip for s in shapes),
        )
    if op in (sre.LITERAL, sre.IN, sre.ANY, sre.NOT_LITERAL):
        return _EMPTY if _char_kind(op, av) == "other" else _Shape(0, 1)
    if _is(op, _REPEATS):
        low, high, inner = av
        if len(inner) == 1 and inner[0][0] in (sre.LITERAL, sre.IN, sre.ANY, sre.NOT_LITERAL):
            kind = _char_kind(*inner[0])  # a run of single characters
            if kind == "other" or high == 0:
                return _EMPTY
            if kind == "word":
                return _Shape(0, 1)  # word characters side by side make one word (or underscores only)
            return _Shape(0, None if high is sre.MAXREPEAT else (high + 1) // 2)
        shape = _sequence_shape(list(inner), False, False)
        if shape.most == 0:
            return _EMPTY
        most = None if high is sre.MAXREPEAT or shape.most is None else high * shape.most
        if low == 0:
            return _Shape(0, most)
        return _Shape(low * shape.least, most, shape.head, shape.tail, shape.head_skip, shape.tail_skip)
    return _Shape(0, None)


# Working these out for every rule takes a tenth of a second, too long for the start of `mem add`:
# memfiles/lint/rule_needs.py keeps them, written by `python -m memfiles.lint.required`, and is used for a rule
# only while the rule's branches are the ones it was written from (tests/test_required.py checks it).
_KINDS = {"exact": "e", "prefix": "p", "infix": "i", "sub": "s"}
_TABLE_HEAD = '''"""What every branch of the instruction rules needs (memfiles.lint.required), worked out ahead of time.

Written by `python -m memfiles.lint.required`; do not edit. A rule whose patterns changed since (another
CRC) is worked out afresh when the prefilter is built, so this file only ever saves time.
"""

from typing import Any

'''
Stored = tuple[list[frozenset[int]], list[tuple[frozenset[int], int, frozenset[int]]]]


def crc(patterns: tuple[str, ...]) -> int:
    """The checksum that ties a stored entry to the patterns it was worked out from (their branches are
    split from them alone)."""
    return zlib.crc32("\x00".join(patterns).encode("utf-8"))


def stored_atoms() -> list[Atom]:
    """The atoms the stored entries number."""
    from memfiles.lint.rule_needs import ATOMS

    kinds = {short: kind for kind, short in _KINDS.items()}
    return [(kinds[text[0]], text[2:]) for text in ATOMS]


def stored_needs(code: str, patterns: tuple[str, ...]) -> list[Stored] | None:
    """Clauses and pairs of each branch of the `patterns` of rule `code`, as numbers into `stored_atoms()`; None
    when memfiles/lint/rule_needs.py was written for other patterns."""
    from memfiles.lint.rule_needs import TABLE

    entry = TABLE.get(code)
    if entry is None or entry[0] != crc(patterns):
        return None
    return [
        ([frozenset(c) for c in clauses], [(frozenset(left), gap, frozenset(right)) for left, gap, right in pairs])
        for clauses, pairs in entry[1]
    ]


def table_source(rules: list[Any]) -> str:
    """The text of memfiles/lint/rule_needs.py for `rules` (FirstOf rules on the folded view)."""
    numbers: dict[Atom, int] = {}

    def ids(clause: Clause) -> tuple[int, ...]:
        return tuple(sorted(numbers.setdefault(atom, len(numbers)) for atom in sorted(clause)))

    entries = []
    for rule in rules:
        branches = rule.check.branches
        rows = []
        for branch in branches:
            needs = requirements(branch, rule.check.flags)
            clauses = tuple(ids(clause) for clause in needs.clauses)
            pairs = tuple((ids(left), gap, ids(right)) for left, gap, right in needs.pairs)
            rows.append(f"            ({clauses!r}, {pairs!r}),")
        checksum = crc(rule.check.patterns)
        entries += [f"    {rule.code!r}: (", f"        {checksum},", "        (", *rows, "        ),", "    ),"]
    atom_texts = [f"{_KINDS[kind]}:{text}" for (kind, text), _ in sorted(numbers.items(), key=lambda item: item[1])]
    lines = [
        _TABLE_HEAD,
        "# Atoms as kind:text (e exact, p prefix, i infix, s sub); entries number them.",
        f"ATOMS = {tuple(atom_texts)!r}",
        "# One line per branch: (clauses, pairs).",
        "TABLE: dict[str, tuple[int, tuple[Any, ...]]] = {",
        *entries,
        "}",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Write memfiles/lint/rule_needs.py from the rules as they are now."""
    from pathlib import Path

    from memfiles.lint.findings import FirstOf
    from memfiles.lint.rules import RULES

    rules = [rule for rule in RULES if rule.view == "folded" and isinstance(rule.check, FirstOf)]
    target = Path(__file__).with_name("rule_needs.py")
    target.write_text(table_source(rules), encoding="utf-8")
    print(f"wrote {target} ({len(rules)} rules)")


if __name__ == "__main__":
    main()
