"""The keyword gate: which lines of a text each rule has to examine.

Running every rule's expressions on every line is what makes linting slow, and most lines hold none
of the words a rule is about. Every rule declares anchors (Rule.anchors), one of which each of its
matches contains; the gate searches the lower-cased text for all of them at once, by three compiled
expressions (a trie of the word anchors, a trie of the symbol anchors, a class of the hidden
characters: joined in one alternation they took twice as long), and the folded view of the lines that
folding changes (leetspeak, spaced letters, other scripts) the same way. A line is examined by the
rules whose anchors it holds, and by no other; a rule made of anchored patterns
(memfiles.lint.findings.anchored) runs there only the patterns whose own anchors it holds. The tries are of the
anchors a text may hold, until a process has compiled half of all (Gate.searches): one guarded write compiles
a few hundred anchors, not 1,400.

Anchor syntax: a word prefix (`ignor` matches ignore, ignored, ignoring), a whole word (`pin$`), a
string found anywhere when it does not start with an ASCII letter or digit (`//`, `<|`, `忽略`) or
when it is written `~mode` (`~mode$`: anywhere, but ending a word), or any character of a class,
written `chars:[...]` (hidden characters). Tokens of 24 characters or more (keys, Base64) are found apart, by one more
expression: a rule that judges such tokens names the anchor `LONG_TOKEN`.

That the gate never hides a finding, nor a match of an anchored pattern, is a property test
(tests/test_prefilter.py), and each rule's and each anchored pattern's anchors are tested against its examples.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import cache
from typing import Any

from memfiles.lint.findings import Anchored, Rule
from memfiles.lint.textview import SCRAMBLED, fold

LONG_TOKEN = "<long token>"
CHARS = "chars:"  # an anchor `chars:[…]`: any character of the class
_LONG = re.compile(r"[a-z0-9+/_=-]{24,}")
_HEAD = re.compile(r"[a-z0-9]+")  # a word anchor's head: the letters and digits a word of the text starts with
_TOKEN = re.compile(r"\w+")  # the words of a text, as `\b` in the tries sees them
# What the gate lets run: a rule, or one anchored pattern of a rule (Rule.parts).
Unit = Rule | Anchored
# What a line runs: each rule with the patterns of it to search (None: the whole rule), in the rules' order.
Picked = tuple[tuple[Rule, tuple[Anchored, ...] | None], ...]


class Gate:
    """The anchors of `rules` as a few compiled expressions (`searches`), and what each anchor it finds lets run: a
    rule, or one of its anchored patterns (a Unit)."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = list(rules)
        units: list[Unit] = [unit for rule in self.rules for unit in self.units_of(rule)]
        self.by_text: dict[str, frozenset[Unit]] = {}
        self._picked: dict[tuple[frozenset[Unit], frozenset[Rule] | None], Picked] = {}
        self.long: frozenset[Unit] = frozenset(u for u in units if LONG_TOKEN in u.anchors)
        words: set[str] = set()
        whole: set[str] = set()
        symbols: set[str] = set()
        symbol_whole: set[str] = set()
        classes: dict[str, set[Unit]] = {}
        owners: dict[str, set[Unit]] = {}  # anchor -> units, for prefixes and strings found anywhere
        ends: dict[str, set[Unit]] = {}  # the same for whole words (`pin$`): only where the found text is the word
        for unit in units:
            for anchor in unit.anchors:
                if anchor == LONG_TOKEN:
                    continue
                if anchor.startswith(CHARS):
                    classes.setdefault(anchor.removeprefix(CHARS), set()).add(unit)
                    continue
                text = anchor.removesuffix("$") if len(anchor) > 1 else anchor
                text = text.removeprefix("~") if len(text) > 1 else text
                if not text or text != text.lower():
                    raise ValueError(f"{unit!r}: anchor {anchor!r} must be non-empty and lower case")
                word = text[0].isascii() and text[0].isalnum() and not anchor.startswith("~")
                (symbols if not word else whole if anchor.endswith("$") else words).add(text)
                if not word and anchor.endswith("$"):
                    symbol_whole.add(text)
                (ends if anchor.endswith("$") else owners).setdefault(text, set()).add(unit)
        self._classes = [(re.compile(c), frozenset(r)) for c, r in classes.items()]
        self._owners, self._ends = owners, ends
        # The anchors of the two tries (words at a word's start, symbols anywhere), each True when a prefix (it may
        # end anywhere), False when a whole word; the word anchors also by their head, the letters and digits they
        # start with (`don` of `don't`), which a word of the text starts with wherever the anchor is found.
        self._words = {w: w in words for w in words | (whole - words)}
        self._symbols = {s: s not in symbol_whole for s in symbols}
        self._heads: dict[str, list[str]] = {}
        for anchor in self._words:
            self._heads.setdefault(head.group() if (head := _HEAD.match(anchor)) else anchor, []).append(anchor)
        self._longest_head = max(map(len, self._heads), default=0)
        self._tries: dict[tuple[frozenset[str], frozenset[str]], list[re.Pattern[str]]] = {}
        self._complete: list[re.Pattern[str]] | None = None
        self._budget = (len(self._words) + len(self._symbols)) // 2  # anchors a process compiles in tries of a text
        self._hidden: list[re.Pattern[str]] = []
        self._ascii_hidden: list[re.Pattern[str]] = []  # for ASCII text: the hidden characters' class cut to ASCII
        if classes:
            hidden = re.compile("[" + "".join(c[1:-1] for c in classes) + "]")
            self._hidden.append(hidden)
            in_ascii = "".join(re.escape(chr(c)) for c in range(128) if hidden.match(chr(c)))
            if in_ascii:  # a class of 128 bits is tested faster than one reaching to U+E01EF (6 against 22 ms)
                self._ascii_hidden.append(re.compile(f"[{in_ascii}]"))

    def searches(self, text: str) -> list[re.Pattern[str]]:
        """The expressions that find every anchor `text` holds: two tries of the anchors (words at a word's start,
        symbols anywhere) and one class of all the hidden characters, each searched on its own. The regex engine
        then reads each character once where it would try every anchor in turn (20 times faster), and skips in C
        to the characters a symbol or a class starts with (the three joined in one took twice as long).

        Compiling the tries of all the anchors (1,400) is most of a guarded write's time, and a text holds few of
        them: until the process has compiled half as many anchors, the tries are of the anchors `text` may hold
        (word anchors whose head starts a word of it, symbols found in it). They find the same anchors at the same
        places: at each place a trie matches the first anchor in its order that is there, and that one is in both."""
        hidden = self._ascii_hidden if text.isascii() else self._hidden
        if self._complete is not None:
            return self._complete + hidden
        tokens = set(_TOKEN.findall(text))
        starts = {token[:end] for token in tokens for end in range(1, min(len(token), self._longest_head) + 1)}
        words = frozenset(word for head in starts & self._heads.keys() for word in self._heads[head])
        symbols = frozenset(symbol for symbol in self._symbols if symbol in text)
        tries = self._tries.get((words, symbols))
        if tries is None:
            if len(words) + len(symbols) > self._budget:
                self._complete = self._compile(self._words, self._symbols)
                return self._complete + hidden
            self._budget -= len(words) + len(symbols)
            tries = self._tries[words, symbols] = self._compile(
                {w: self._words[w] for w in words}, {s: self._symbols[s] for s in symbols}
            )
        return tries + hidden

    @staticmethod
    def _compile(words: dict[str, bool], symbols: dict[str, bool]) -> list[re.Pattern[str]]:
        parts = [r"\b" + _trie(words)] if words else []
        if symbols:
            parts.append(_trie(symbols))
        return [re.compile(part) for part in parts]

    def _rules_for(self, found: str) -> frozenset[Unit]:
        """What the anchors in `found` let run: every anchor it starts with, a whole word (`reply$`) where a word
        ends in it (`reply only`, found as a longer anchor, holds the word `reply`)."""
        rules = self.by_text.get(found)
        if rules is None:
            out: set[Unit] = set()
            for end in range(1, len(found) + 1):
                out |= self._owners.get(found[:end], set())
                if end == len(found) or _wordy(found[end - 1]) != _wordy(found[end]):
                    out |= self._ends.get(found[:end], set())
            for pattern, owners in self._classes:
                if pattern.fullmatch(found):
                    out |= owners
            rules = self.by_text[found] = frozenset(out)
        return rules

    def scan(self, text: str, into: dict[int, set[Unit]], starts: list[int] | None = None, line: int = 0) -> None:
        """Add to `into` (line index -> units) what the anchors in `text` let run; `starts` are the offsets at
        which the lines of `text` begin, in `text` with its blanks made single (None: all of `text` is line `line`,
        and scan makes them single)."""
        if starts is None:
            text = _one_space(text)
        for pattern in self.searches(text):
            search = pattern.search
            pos = 0
            while match := search(text, pos):
                at = line if starts is None else bisect_right(starts, match.start()) - 1
                into.setdefault(at, set()).update(self._rules_for(match.group()))
                pos = match.start() + 1  # the next match may start inside this one
        if self.long:
            for match in _LONG.finditer(text):
                at = line if starts is None else bisect_right(starts, match.start()) - 1
                into.setdefault(at, set()).update(self.long)

    def candidates(self, lines: list[str], lowered: str | None = None) -> dict[int, set[Unit]]:
        """Line index -> the units (rules, anchored patterns) that line has to run (lines holding no anchor are
        left out)."""
        text = _one_space(lowered if lowered is not None else "\n".join(lines).lower())
        found: dict[int, set[Unit]] = {}
        starts = [0]
        at = text.find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = text.find("\n", at + 1)
        self.scan(text, found, starts)
        for index in self._folding(lines, text, starts):
            view = fold(lines[index])[0]
            if view != lines[index].lower():
                self.scan(view, found, None, index)
        return found

    @staticmethod
    def _folding(lines: list[str], lowered: str, starts: list[int]) -> list[int]:
        """The lines whose folded view may differ from their lower-case form (only those are folded and read
        again): lines with a character outside ASCII, a letter beside a leet digit, or letters spelled out."""
        indexes = set() if lowered.isascii() else {i for i, line in enumerate(lines) if not line.isascii()}
        for pattern in _FOLDING:
            pos = 0
            while match := pattern.search(lowered, pos):
                index = bisect_right(starts, match.start()) - 1
                indexes.add(index)
                pos = starts[index + 1] if index + 1 < len(starts) else len(lowered)  # on to the next line
        return sorted(indexes)

    @staticmethod
    def units_of(rule: Rule) -> tuple[Unit, ...]:
        """What the gate lets run of `rule`: its anchored patterns, or the rule as a whole."""
        return rule.parts or (rule,)

    def picked(self, units: set[Unit], among: frozenset[Rule] | None = None) -> Picked:
        """What `units` (as candidates gives them for a line) run of the rules `among` (default: all the gate's):
        each rule, with the patterns of it to search."""
        key = (frozenset(units), among)
        picked = self._picked.get(key)
        if picked is None:
            found = key[0]
            picked = self._picked[key] = tuple(
                (rule, None if rule in found else tuple(part for part in rule.parts if part in found))
                for rule in self.rules
                if (among is None or rule in among) and (rule in found or any(part in found for part in rule.parts))
            )
        return picked


# A pattern's `\s+` between two words matches any run of blanks, an anchor of two words holds one space: the gate
# reads every run of spaces and tabs as one space (line breaks, and the control characters the hidden-character
# rules look for, are kept).
_BLANKS = re.compile(r"[ \t]{2,}|\t")


def _one_space(text: str) -> str:
    return _BLANKS.sub(" ", text) if "  " in text or "\t" in text else text


def _wordy(char: str) -> bool:
    return char.isalnum() or char == "_"


# What a literal needs escaped outside a character class (re.escape also escapes spaces and `-`, which the parser
# then reads one by one as escapes: a fifth of compiling the gate).
_ESCAPE = str.maketrans({char: "\\" + char for char in "\\.^$*+?{}[]()|"})


def _trie(anchors: dict[str, bool]) -> str:
    """An expression matching the longest of `anchors` at a position: each maps to True when it is a prefix (it
    may end anywhere), False when it is a whole word (it must end at a word's end)."""
    tree: dict[str, Any] = {}
    for anchor, prefix in anchors.items():
        node = tree
        for char in anchor:
            node = node.setdefault(char, {})
        node[""] = node.get("", False) or prefix

    def pattern(node: dict[str, Any]) -> str:
        branches = []
        for char, child in sorted(node.items()):
            if not char:
                continue
            run = char
            while len(child) == 1 and "" not in child:  # a chain of single letters: one literal
                (char, child), *_ = child.items()
                run += char
            branches.append(run.translate(_ESCAPE) + pattern(child))
        if "" in node:
            branches.append("" if node[""] else r"\b")  # last: the longer anchors are tried first
        if len(branches) == 1:
            return branches[0]
        return "(?:" + "|".join(branches) + ")"

    return pattern(tree)


# What an ASCII line that folds to more than its lower-case form holds (memfiles.lint.textview decides the same for
# each line): a letter beside a leet digit, `@` or `$`; letters spelled out one by one (these two start with a class
# of characters, which the regex engine skips to in C); a few words with their inner letters shuffled.
_FOLDING = (
    re.compile(r"[0-9@$](?:(?<=[a-z].)|(?=[a-z]))"),
    re.compile(r"[ .\-_*/|][a-z][ .\-_*/|][a-z](?![a-z])"),
    SCRAMBLED,  # a few words with their inner letters shuffled (`ignroe`)
    re.compile(r"[a-z][-_][a-z]+[-_][a-z]"),  # three words joined by `-` or `_` (textview.JOINED)
    re.compile(r"%[2-7][0-9a-f]"),  # percent-encoding (textview.PERCENT)
)


@cache
def gate_of(rules: tuple[Rule, ...]) -> Gate:
    return Gate(rules)
