"""The prefilter: which lines of a text each rule has to examine, learnt from the rules' anchor words.

Running every rule's regular expressions on every line is what makes linting slow, and most lines
contain none of the words a rule needs. A text is lower-cased, punctuation other than the
characters anchors use (' _ - + / = $ @) becomes a space, and the distinct words are looked up
once each (cached across texts, in C-level set operations) to learn which rules they can trigger.
A rule then runs only on the lines that hold one of its anchors, so a finding is never hidden
(tests and `bench/lint_eval.py --check-prefilter` compare with running every rule on every line).

Anchors (Rule.anchors):
- `word`: a word, or a piece of a word between ' _ - + / =, that starts with `word`;
- `word$`: exactly that word or piece;
- `two words`: the words in sequence (any whitespace between them);
- no letter or digit, only the kept characters (`//`): a substring of a word;
- anything else (characters that become spaces: `<|`, `.-`): a substring of the lower-cased text.

Obfuscated text is let through to the rules that read the folded view (memfiles.textview): leetspeak
words are looked up as plain words, letters spelled out one by one and non-ASCII text send the
line to every folded rule, and non-ASCII or control characters to the hidden-text rules.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

from memfiles.findings import Rule
from memfiles.textview import LEET

KEEP = "'_-+/=$@"
SEPARATORS = str.maketrans({c: " " for c in string.punctuation if c not in KEEP})
_PIECES = re.compile(r"['_\-+/=]+")
_LEET_TOKEN = re.compile(r"(?=.*[a-z].*[a-z]).*[0-9@$]")  # as memfiles.textview: letters mixed with leet digits
_SPACED = re.compile(r"(?<![a-z])[a-z][ .\-_*/|][a-z][ .\-_*/|][a-z](?![a-z])")
_SINGLE_LETTERS = frozenset("bcdefghjklmnopqrstvwxyz")  # `i g n o r e`; a, i and u are words
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_LONG = 24
_CACHE_LIMIT = 200_000
_Node = dict[str, "_Node"]  # a trie of characters; "" marks the end of a word


class Prefilter:
    """Anchor tables for a list of rules, and the per-word cache built while texts are scanned."""

    def __init__(self, rules: Iterable[Rule], folded: Iterable[Rule], hidden: Iterable[Rule], long: Iterable[Rule]):
        self.folded = frozenset(folded)
        self.hidden = frozenset(hidden)
        self.long = frozenset(long)
        self.exact: dict[str, set[Rule]] = {}
        self.prefixes: dict[str, set[Rule]] = {}
        self.phrases: dict[str, list[tuple[frozenset[str], re.Pattern[str], frozenset[Rule]]]] = {}
        self.substrings: dict[str, set[Rule]] = {}
        self.infixes: dict[str, set[Rule]] = {}  # substrings made of kept characters stay inside words
        for rule in rules:
            for anchor in rule.anchors:
                self._add(anchor, rule)
        self.frozen_substrings = [(text, frozenset(rules)) for text, rules in self.substrings.items()]
        # The longest anchor a word starts with, found by one regex match over a trie of the anchors;
        # each anchor also carries the rules of the shorter anchors it starts with.
        self.prefix_trie = re.compile(_trie(list(self.prefixes)))
        self.prefix_rules = {
            prefix: frozenset(r for n in range(1, len(prefix) + 1) for r in self.prefixes.get(prefix[:n], ()))
            for prefix in self.prefixes
        }
        self.phrase_starts = frozenset(self.phrases)
        self.seen: set[str] = set()
        self.triggers: dict[str, frozenset[Rule]] = {}
        self.trigger_words: set[str] = set()
        self.glued: dict[str, str] = {}  # `'act` -> `act`: a word glued to a phrase's first word
        self.glued_words: set[str] = set()

    def _add(self, anchor: str, rule: Rule) -> None:
        word = anchor.removesuffix("$")
        if " " in anchor:
            first, *rest = anchor.split()
            tail = re.compile("".join(rf"\s+{re.escape(w)}" for w in rest) + r"(?!\S)")
            entry = (frozenset(anchor.split()), tail, frozenset((rule,)))
            self.phrases.setdefault(first, []).append(entry)
        elif not any(c.isalnum() for c in word) and word.translate(SEPARATORS) == word:
            self.infixes.setdefault(anchor, set()).add(rule)
        elif word.translate(SEPARATORS) != word:
            self.substrings.setdefault(anchor, set()).add(rule)
        elif anchor.endswith("$"):
            self.exact.setdefault(word, set()).add(rule)
        else:
            self.prefixes.setdefault(word, set()).add(rule)

    def _lookup(self, words: Iterable[str], found: set[Rule]) -> None:
        for word in words:
            if word:
                found.update(self.exact.get(word, ()))
                match = self.prefix_trie.match(word)
                if match:
                    found.update(self.prefix_rules[match.group()])

    def _learn(self, token: str) -> None:
        found: set[Rule] = set()
        pieces = _PIECES.split(token) if _PIECES.search(token) else []
        self._lookup([token, *pieces], found)
        if _LEET_TOKEN.match(token):  # `1gn0r3`: the folded view reads it as `ignore`
            plain: set[Rule] = set()
            self._lookup(_PIECES.split(token.translate(LEET)), plain)
            found.update(plain & self.folded)
        for infix, infix_rules in self.infixes.items():
            if infix in token:
                found.update(infix_rules)
        if len(token) >= _LONG:
            found.update(self.long)
        last = pieces[-1] if pieces else token
        if last != token and last in self.phrases:
            self.glued[token] = last
            self.glued_words.add(token)
        self.seen.add(token)
        if found:
            self.triggers[token] = frozenset(found)
            self.trigger_words.add(token)

    def candidates(self, text: str) -> dict[int, tuple[int, set[Rule]]]:
        """0-based line index -> (offset of the line in `text`, or -1 if unknown; the rules worth running on it)."""
        lowered = text.lower()  # lower() may lengthen a few characters but keeps every newline
        spaced = lowered.translate(SEPARATORS)
        tokens = set(spaced.split())
        if len(self.seen) > _CACHE_LIMIT:
            self.seen.clear()
            self.triggers.clear()
            self.trigger_words.clear()
            self.glued.clear()
            self.glued_words.clear()
        for token in tokens - self.seen:
            self._learn(token)
        spans: list[tuple[int, frozenset[Rule]]] = []  # positions in `spaced`
        for token in tokens & self.trigger_words:
            spans.extend((position, self.triggers[token]) for position in _occurrences(spaced, token))
        starts = [(first, first) for first in tokens & self.phrase_starts]
        starts.extend((token, self.glued[token]) for token in tokens & self.glued_words)
        for token, first in starts:
            for words, tail, rules in self.phrases[first]:
                if words - {first} <= tokens:
                    spans.extend(
                        (position, rules)
                        for position in _occurrences(spaced, token)
                        if tail.match(spaced, position + len(token))
                    )
        for substring, substring_rules in self.frozen_substrings:
            position = lowered.find(substring)
            while position >= 0:
                spans.append((position, substring_rules))
                position = lowered.find(substring, position + 1)
        if len(tokens & _SINGLE_LETTERS) >= 3:  # letters spelled out one by one (`i g n o r e`)
            spans.extend((m.start(), self.folded) for m in _SPACED.finditer(lowered))
        # positions in `spaced` are positions in `text` unless lower() lengthened a character
        chosen = _by_line(spaced, spans, known=len(lowered) == len(text))
        raw: list[tuple[int, frozenset[Rule]]] = []  # positions in `text`
        if not text.isascii():
            raw.extend((m.start(), self.folded | self.hidden) for m in _NON_ASCII.finditer(text))
        elif _CONTROLS.search(text):
            raw.extend((m.start(), self.hidden) for m in _CONTROLS.finditer(text))
        for index, (position, line_rules) in _by_line(text, raw, known=True).items():
            if index in chosen:
                chosen[index][1].update(line_rules)
            else:
                chosen[index] = (position, line_rules)
        return {
            index: (text.rfind("\n", 0, position) + 1 if position >= 0 else -1, line_rules)
            for index, (position, line_rules) in chosen.items()
        }


def _trie(words: list[str]) -> str:
    """A regular expression for `words` shaped as a trie: it matches the longest word a text starts with."""
    tree: _Node = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: _Node) -> str:
        branches = [re.escape(char) + emit(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(tree) or "(?!)"


def _occurrences(spaced: str, token: str) -> list[int]:
    """Start positions of `token` as a whole whitespace-separated word of `spaced`."""
    found = []
    position = spaced.find(token)
    while position >= 0:
        end = position + len(token)
        if (position == 0 or spaced[position - 1].isspace()) and (end == len(spaced) or spaced[end].isspace()):
            found.append(position)
        position = spaced.find(token, end)
    return found


def _by_line(text: str, spans: list[tuple[int, frozenset[Rule]]], known: bool) -> dict[int, tuple[int, set[Rule]]]:
    """Line index -> (a position in that line if `known`, else -1; the union of the spans' rules)."""
    chosen: dict[int, tuple[int, set[Rule]]] = {}
    previous, lineno = 0, 0
    for position, rules in sorted(spans, key=lambda span: span[0]):
        lineno += text.count("\n", previous, position)
        previous = position
        if lineno in chosen:
            chosen[lineno][1].update(rules)
        else:
            chosen[lineno] = (position if known else -1, set(rules))
    return chosen
