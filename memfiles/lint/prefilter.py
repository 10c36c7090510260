"""The prefilter: which lines of a text each rule has to examine, and with which of its patterns.

Running every rule's regular expressions on every line is what makes linting slow, and most lines
hold none of the words a rule needs. A text is lower-cased, punctuation other than the characters
anchors use (' _ - + / = $ @) becomes a space, and its distinct words are looked up once each
(cached across texts, in C-level set operations) to learn what they can trigger; ids and dates once
per shape (`s-1864` as `s-1000`: Prefilter._learn). A finding is never
hidden: tests and `bench/lint_eval.py --check-prefilter` compare with every rule on every line.

Rules on the folded view (the instruction rules, MEM1xx) are FirstOf checks, and memfiles.lint.required
reads off each of their branches what every match holds: clauses of words, and pairs of words near
each other (`do not` … `mention`). A branch is looked for by one of them (its trigger): by a clause,
every line holding one of its words runs the branch; by a pair, only the lines where the other side
stands within a few words of it. Which trigger is cheapest is learnt from the first texts read; any
of them finds every line the branch can match on. A branch found also needs the words of all its
clauses somewhere in the text. Leetspeak words are looked up as written and as plain words; a line
whose folded view differs more from its lower-case text (other scripts, letters spelled out one by
one) is folded and tried on the view itself.

The other rules (raw view) list anchors (Rule.anchors), one of which every match contains:
- `word`: a word, or a piece of a word between ' _ - + / =, that starts with `word`;
- `word$`: exactly that word or piece;
- no letter or digit, only the kept characters (`//`): a substring of a word;
- anything else (characters that become spaces: `<|`, `.-`): a substring of the lower-cased text.
Non-ASCII and control characters send their line to the hidden-text rules.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import cache
from itertools import accumulate, repeat
from operator import add
from typing import Any

from memfiles.lint.findings import FirstOf, Rule
from memfiles.lint.required import WORD, Atom, Stored, rarity, requirements, stored_atoms, stored_needs
from memfiles.lint.textview import LEET, SHAPE, ascii_table, fold, translate

KEEP = "'_-+/=$@"
# Every other punctuation character, and every whitespace character but the newline, becomes a space:
# tokens then lie between single spaces or newlines (where `str.split()` would cut them).
WHITESPACE = "\t\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"  # noqa: E501
# string.punctuation and string.ascii_lowercase: importing `string` compiles a regular expression
# (0.6 ms of every guarded write).
PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
ASCII_LOWERCASE = "abcdefghijklmnopqrstuvwxyz"
SEPARATORS = str.maketrans({c: " " for c in [*PUNCTUATION, *WHITESPACE] if c not in KEEP})
# The same for ASCII text as tables of bytes (textview.translate): the spaced view of a text of the bench's corpus
# took 51,000 instructions through the dict, 23,000 through bytes with the encoding and decoding.
_SEPARATOR_BYTES = ascii_table(SEPARATORS)
_LEET_BYTES = ascii_table(LEET)
_PIECES = re.compile(r"['_\-+/=]+")
# As memfiles.lint.textview: two letters or more, mixed with leet digits (tokens hold no newline; classes that
# cannot backtrack into each other take half the time of `(?=.*[a-z].*[a-z]).*[0-9@$]`).
_LEET_TOKEN = re.compile(r"(?=[^a-z]*[a-z][^a-z]*[a-z])[^0-9@$]*[0-9@$]")
# Lone letters joined inside a token: three of them (`i-g-n`), or two at an edge of it (`g-n` in
# `i g-n o r e`), which a lone letter in the next token can make three.
_THREE_LETTERS = re.compile(r"(?<![a-z])[a-z][-_/][a-z][-_/][a-z](?![a-z])")
_TWO_FIRST = re.compile(r"[a-z][-_/][a-z](?![a-z])")
_TWO_LAST = re.compile(r"(?<![a-z])[a-z][-_/][a-z]\Z")
_JOINED = re.compile(r"[a-z][-_/][a-z]")
_LETTER = re.compile(r"[a-z]")  # a letter as _LEET_TOKEN counts them
_LETTERS = frozenset(ASCII_LOWERCASE)
# Letters spelled out one by one (`i g n o r e`, `i-g-n`), which memfiles.lint.textview joins, found on the
# text's shape (textview.SHAPE: every letter `a`, every joining character `s`, anything else `x`).
_SPELLED = re.compile(r"(?<!a)asasa(?!a)")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_CONTROL_BYTES = bytes([*range(0x09), *range(0x0B, 0x20), 0x7F])  # what _CONTROLS matches
_LONG = 24
_CACHE_LIMIT = 200_000
_PAIR_GAP = 4  # pairs with more words between them are not worth looking for
_PAIR_BONUS = 6  # before any text is read: two words near each other are far rarer than either word
_CLAUSE_COST = 4  # a line found by a clause costs its regular expression; found by a pair, mostly not
_TRIE_AFTER = 512  # uses of a large regular expression before it is compiled (_Later)
_WARM_UP = 100  # texts read before choosing, by what they held, how to look for each branch
_Node = dict[str, "_Node"]  # a trie of characters; "" marks the end of a word
_NONE: frozenset[int] = frozenset()
Picked = dict[Rule, frozenset[int] | None]  # rule -> the branches to run (None: its whole check)
_Pair = tuple[frozenset[int], int, frozenset[int], bool]  # left atoms, words between, right atoms, by the left?
_Way = tuple[frozenset[int], _Pair | None, int]  # the atoms looked for, the pair they are a side of, their rarity
_Learnt = tuple[frozenset[Rule], frozenset[int], tuple[bool, bool, bool] | None]  # Prefilter._work_out


class Prefilter:
    """Tables for a list of rules (anchors, and what the branches of pattern rules need) and per-word caches."""

    def __init__(self, rules: Iterable[Rule], hidden: Iterable[Rule], long: Iterable[Rule]):
        self.hidden = frozenset(hidden)
        self.long = frozenset(long)
        self.exact: dict[str, set[Rule]] = {}
        prefixes: dict[str, set[Rule]] = {}
        substrings: dict[str, set[Rule]] = {}
        self.infixes: dict[str, set[Rule]] = {}  # substrings made of kept characters stay inside words
        patterned: list[Rule] = []
        for rule in rules:
            if rule.view == "folded":
                if not isinstance(rule.check, FirstOf):
                    raise ValueError(
                        f"{rule.code}: a rule on the folded view is prefiltered by its patterns (first_of)"
                    )
                patterned.append(rule)
            for anchor in rule.anchors:
                word = anchor.removesuffix("$")
                if not any(c.isalnum() for c in word) and word.translate(SEPARATORS) == word:
                    self.infixes.setdefault(anchor, set()).add(rule)
                elif word.translate(SEPARATORS) != word:
                    substrings.setdefault(anchor, set()).add(rule)
                else:
                    (self.exact if anchor.endswith("$") else prefixes).setdefault(word, set()).add(rule)
        self.substrings = [(text, dict.fromkeys(rules)) for text, rules in substrings.items()]
        self.prefixes = _Prefixes(prefixes)
        # Where a word or a piece of one may start with an anchor: one search, for most tokens of a run.
        # The anchors as a trie, not one alternative after another: a quarter less time a word (280 ns, against 390).
        anchors = sorted({*self.exact, *self.prefixes.table})
        self.anchor_start = _Later(lambda: f"(?:^|{_PIECES.pattern}){_trie(anchors)}")
        self.branches = Branches(patterned)
        self.seen: set[str] = set()
        # Words learnt that trigger nothing here (no anchored rule, no branch, no letters spelled out): a text's
        # words less these are its new words and the few that do, in one pass over the text's words.
        self.quiet: set[str] = set()
        self.anchor_rules: dict[str, frozenset[Rule]] = {}  # word -> the anchored rules it triggers
        self.anchor_words: set[str] = set()
        self.token_atoms: dict[str, frozenset[int]] = {}  # word -> the atoms of pattern rules it holds (not weak)
        self.all_atoms: dict[str, frozenset[int]] = {}  # word -> all its atoms, weak ones too, once needed
        # group (a clause, or a side of a pair) -> the words holding one of its atoms: a text holds the
        # group when the two sets meet, which stops at the first word in common
        self.group_words: list[set[str]] = [set() for _ in self.branches.groups]
        self.token_branches: dict[str, frozenset[int]] = {}  # word -> branches whose trigger it meets
        self.trigger_words: set[str] = set()
        self.spelled_words: set[str] = set()  # words with lone letters joined: `i-g-n`, or `g-n` at an edge
        self.spelled_edges: dict[str, tuple[bool, bool, bool]] = {}  # word -> (three inside, two first, two last)
        # Digits that no anchor and no atom of fewer than two letters holds, as the first of them: a token that
        # is not leetspeak triggers what its key does. A token with a digit and two letters is leetspeak
        # (_LEET_TOKEN), so the others hold one letter at most, and only texts of one letter at most can be in
        # them: those digits match nothing either way, in the token or in its key (no word becomes all digits
        # or stops being so). `rot13` and `2fa` keep no digit from being keyed in `s-1302`.
        texts = [*self.exact, *self.prefixes.table, *self.infixes, *self.branches.strong_words.texts()]
        inert = sorted(set("0123456789").difference(*(text for text in texts if len(_LETTER.findall(text)) < 2)))
        self._key = str.maketrans(dict.fromkeys(inert, inert[0]) if inert else {})
        self._key_bytes = ascii_table(self._key)
        self.keyed: dict[str, _Learnt] = {}  # key -> what its tokens trigger
        # The texts of atoms (weak ones too) with a digit in them: `_words`.
        atoms = (*texts, *self.branches.weak_words.texts())
        self._digit_atoms = tuple(sorted({text for text in atoms if any(c.isdigit() for c in text)}))
        self._caches: tuple[dict[str, Any] | set[str], ...] = (
            self.seen, self.quiet, self.anchor_rules, self.anchor_words, self.token_atoms, self.all_atoms,
            *self.group_words, self.token_branches, self.trigger_words, self.spelled_words, self.spelled_edges,
            self.keyed,
        )  # fmt: skip
        self.texts = 0  # texts read, up to _WARM_UP
        self.seen_atoms: dict[int, int] = {}  # atom -> how often those texts held it

    def prepare_for_many(self) -> None:
        """Compile now the large regular expressions a run over many texts compiles after its first few hundred
        words: before a fork, every process then starts with them instead of compiling them all again."""
        words = (self.branches.strong_words, self.branches.weak_words)
        for later in (self.anchor_start, self.prefixes.trie, *(w for each in words for w in each.laters())):
            later.now()

    def _learn(self, tokens: Iterable[str]) -> None:
        """Learn what each of `tokens` (words new to the prefilter) can trigger.

        Ids and dates (`s-7728`, `2026-11-14t13`) are most of the words new to a lint run. Their digits (`_key`)
        change nothing of what they trigger, unless the token reads as leetspeak: such a token is worked out once
        per key, every `s-` and four digits alike.
        """
        seen, quiet, group_words, token_atoms = self.seen, self.quiet, self.group_words, self.token_atoms
        groups_of_atoms, keyed, key_table, key_bytes = (
            self.branches.groups_of_atoms,
            self.keyed,
            self._key,
            self._key_bytes,
        )
        quiet_letters = self._quiet_letters()
        for token in tokens:
            if token.isalpha():  # most: no digit to key, nor leetspeak
                if quiet_letters is not None and quiet_letters(token):
                    seen.add(token)
                    quiet.add(token)
                    continue
                learnt = self._work_out(token, leet=False)
            else:
                # A key found was made from a token that is not leetspeak, and a token reads as leetspeak exactly
                # when its key does (the same letters, digits as digits): most ids and dates need no other question.
                # textview.translate written out: one call fewer for each id and date (1,500 instructions a text)
                key = (
                    token.encode("ascii").translate(key_bytes).decode("ascii")
                    if token.isascii()
                    else token.translate(key_table)
                )
                known = keyed.get(key)
                if known is not None:
                    learnt = known
                elif _LEET_TOKEN.match(token):
                    learnt = self._work_out(token, leet=True)
                else:
                    learnt = keyed[key] = self._work_out(key, leet=False)
            found, atoms, edges = learnt
            seen.add(token)
            if found:
                self.anchor_rules[token] = found
                self.anchor_words.add(token)
            if edges:
                self.spelled_words.add(token)
                self.spelled_edges[token] = edges
            triggers = False
            if atoms:
                token_atoms[token] = atoms
                for group in groups_of_atoms(atoms):
                    group_words[group].add(token)
                triggers = self._triggers(token, atoms)
            if not (found or edges or triggers):
                quiet.add(token)

    def _quiet_letters(self) -> Callable[[str], bool] | None:
        """A quick test that a token of letters (`isalpha()`) triggers nothing: it is ASCII, not long, starts no
        anchor and holds no atom of the pattern rules (no other part of _work_out applies to such a token). One
        lookup and three searches; most words new to a lint run are such words. None until the tables it searches
        are compiled (_Later): a write guard learns its few words the long way."""
        strong = self.branches.strong_words
        anchor, prefix, infix = self.anchor_start.pattern, strong.prefixes.trie.pattern, strong.infixes.held.pattern
        if anchor is None or prefix is None or infix is None:
            return None
        exact = strong.exact

        def quiet(word: str) -> bool:
            return (
                len(word) < _LONG
                and word.isascii()
                and word not in exact
                and not prefix.match(word)
                and not infix.search(word)
                and not anchor.match(word)
            )

        return quiet

    def _work_out(self, token: str, leet: bool | None = None) -> _Learnt:
        """What `token` triggers: the anchored rules, the atoms of pattern rules (not weak), and where letters are
        joined in it (None: nowhere that matters). `leet`: whether it is leetspeak, if known already."""
        # A token of ASCII letters (most) is one word, with no infix anchor (those are punctuation),
        # no leet digit and no joining character: the checks for those are for the other tokens.
        plain = token.isascii() and token.isalpha()
        found: set[Rule] = set()
        anchor_start = self.anchor_start.get()
        # whether a word or a piece may start with an anchor (a plain token has no pieces: only its start)
        if anchor_start is None or (anchor_start.match(token) if plain else anchor_start.search(token)):
            pieces = _PIECES.split(token)
            for word in [token, *pieces] if len(pieces) > 1 else pieces:
                if word:
                    found.update(self.exact.get(word, ()))
                    found.update(self.prefixes.of(word))
        if not plain:
            for infix, infix_rules in self.infixes.items():
                if infix in token:
                    found.update(infix_rules)
        if len(token) >= _LONG:
            found.update(self.long)
        edges = None
        if plain:
            words = [token]
        else:
            words = _words(token, leet, self._digit_atoms)
            if _JOINED.search(token):  # all three need a letter joined to a letter: most tokens have none
                edges = bool(_THREE_LETTERS.search(token)), bool(_TWO_FIRST.match(token)), bool(_TWO_LAST.search(token))
                if not any(edges):
                    edges = None
        return frozenset(found), self.branches.atoms_of_words(words), edges

    def _triggers(self, token: str, atoms: frozenset[int]) -> bool:
        """Learn the branches `token` is a trigger of (its `atoms`, as the branches are now looked for); whether any."""
        triggered = self.branches.triggered_by(atoms)
        if triggered:
            self.token_branches[token] = triggered
            self.trigger_words.add(token)
        return bool(triggered)

    def candidates(self, text: str) -> dict[int, tuple[int, Picked]]:
        """0-based line index -> (offset of the line in `text`, or -1 if unknown; the rules worth running on it)."""
        lowered = text.lower()  # lower() may lengthen a few characters but keeps every newline
        scan = _Scan(lowered, translate(lowered, SEPARATORS, _SEPARATOR_BYTES))
        tokens = set(scan.spaced.split())
        if len(self.seen) > _CACHE_LIMIT:  # a vocabulary that keeps growing: start learning afresh
            for cache in self._caches:
                cache.clear()
        rest = tokens - self.quiet  # its new words, and those that trigger something
        new = rest - self.seen
        if new:
            self._learn(new)
        if self.texts < _WARM_UP:
            self._count(scan)
            if self.texts == _WARM_UP:  # branches are now looked for by other words
                rest = tokens - self.quiet
        chosen: dict[int, tuple[int, Picked]] = {}
        for line, picked in [*self._anchored(rest, scan), *self._patterned(tokens, rest, scan)]:
            _merge(chosen, line, scan.start(line), picked)
        for line, (position, picked) in self._unusual_lines(text, tokens, rest, scan).items():
            _merge(chosen, line, position, picked)
        if len(lowered) != len(text):  # offsets in `lowered` are not offsets in `text`: let the caller split
            return {line: (-1, picked) for line, (_, picked) in chosen.items()}
        return chosen

    def _count(self, scan: _Scan) -> None:
        """Count how often each atom turns up; after the first few texts, look for each branch the cheapest way."""
        self.texts += 1
        for token in scan.spaced.split():
            for atom in self.token_atoms.get(token, ()):
                self.seen_atoms[atom] = self.seen_atoms.get(atom, 0) + 1
        for symbol, atom in self.branches.symbols:
            self.seen_atoms[atom] = self.seen_atoms.get(atom, 0) + scan.lowered.count(symbol)
        if self.texts == _WARM_UP:
            self.branches.choose(self.seen_atoms)
            self.token_branches.clear()
            self.trigger_words.clear()
            for token, atoms in self.token_atoms.items():
                self._triggers(token, atoms)
            self.quiet.clear()
            self.quiet.update(self.seen - self.anchor_words - self.trigger_words - self.spelled_words)

    def _atoms(self, token: str) -> frozenset[int]:
        """The atoms but the weak ones a token holds (learnt with it)."""
        return self.token_atoms.get(token, frozenset())

    def _all_atoms(self, token: str) -> frozenset[int]:
        """Every atom a token holds, the weak ones looked up on first need."""
        atoms = self.all_atoms.get(token)
        if atoms is None:
            if token not in self.seen:
                self._learn((token,))
            weak = self.branches.weak_atoms_of_words(_words(token, digits=self._digit_atoms))
            atoms = self.all_atoms[token] = self._atoms(token) | weak
        return atoms

    def _anchored(self, rest: set[str], scan: _Scan) -> list[tuple[int, Picked]]:
        """Lines holding an anchor of an anchored rule, with the rules it triggers (`rest`: the text's words but
        the quiet ones)."""
        found: list[tuple[int, Picked]] = []
        for token in rest & self.anchor_words:
            rules: Picked = dict.fromkeys(self.anchor_rules[token])
            found.extend((scan.line(position), rules) for position in scan.find(token))
        for substring, substring_rules in self.substrings:
            if substring in scan.lowered:
                found.extend((scan.line_of_raw(p), substring_rules) for p in _find_all(scan.lowered, substring))
        return found

    def _patterned(self, tokens: set[str], rest: set[str], scan: _Scan) -> list[tuple[int, Picked]]:
        """Lines where a branch of a pattern rule may match, with that branch (`tokens`: the text's words; `rest`:
        those but the quiet ones)."""
        branches = self.branches
        symbols: set[int] = set()  # the symbol atoms the text holds
        symbol_lines: dict[int, list[int]] = {}  # atom -> lines holding it, for symbols that trigger branches
        if any(char in scan.lowered for char in branches.symbol_chars):  # memchr: faster than one regex
            for symbol, atom in branches.symbols:
                if symbol in scan.lowered:
                    symbols.add(atom)
                    if atom in branches.by_trigger:
                        lines = [scan.line_of_raw(position) for position in _find_all(scan.lowered, symbol)]
                        symbol_lines.setdefault(atom, []).extend(lines)
        group_words, group_symbols, clause_groups = self.group_words, branches.group_symbols, branches.clause_groups
        met: dict[int, bool] = {}  # group -> whether the text holds one of its atoms

        def holds(number: int) -> bool:
            # A branch missing one of its clauses in the text is not looked for at all (most of the
            # work is looking near each place a common trigger word stands).
            for group in clause_groups[number]:
                known = met.get(group)
                if known is None:
                    known = met[group] = not group_words[group].isdisjoint(tokens) or (
                        not group_symbols[group].isdisjoint(symbols)
                    )
                if not known:
                    return False
            return True

        found: dict[int, list[int]] = {}  # branch number -> lines holding its trigger
        for token in rest & self.trigger_words:
            numbers = list(filter(holds, self.token_branches[token]))
            if not numbers:
                continue
            positions = scan.find(token)
            for number in numbers:
                pair = branches.pairs[number]
                if pair is None:
                    found.setdefault(number, []).extend(map(scan.line, positions))
                    continue
                left, gap, right, forward = pair
                other = right if forward else left
                side = branches.other_side[number]
                words = group_words[side] if side >= 0 else None
                for position in positions:
                    # the tokens just after or before: a token holds one word or more, so counting tokens
                    # instead of words only looks further
                    near = scan.after(position, len(token), gap + 1) if forward else scan.before(position, gap + 1)
                    if words is not None:  # the other side has no weak atoms: its words are known
                        close = not words.isdisjoint((token, *near))
                    else:
                        close = any(not other.isdisjoint(self._all_atoms(t)) for t in (token, *near))
                    if close:
                        found.setdefault(number, []).append(scan.line(position))
        for atom, lines in symbol_lines.items():
            for number in branches.by_trigger.get(atom, ()):
                if holds(number):
                    found.setdefault(number, []).extend(lines)
        for number in branches.unanchored:
            if holds(number):
                found.setdefault(number, []).extend(range(scan.spaced.count("\n") + 1))
        picked: list[tuple[int, Picked]] = []
        for number, lines in found.items():
            rule, index = branches.owner[number]
            selection: Picked = {rule: frozenset((index,))}
            picked.extend((line, selection) for line in set(lines))
        return picked

    def _unusual_lines(self, text: str, tokens: set[str], rest: set[str], scan: _Scan) -> dict[int, tuple[int, Picked]]:
        """Lines with other scripts or control characters (for the hidden-text rules), and lines whose folded
        view differs from their lower-case text beyond leetspeak (tried by the pattern rules on that view)."""
        other = [m.start() for m in _NON_ASCII.finditer(text)] if not text.isascii() else []
        controls = [m.start() for m in _CONTROLS.finditer(text)] if _has_controls(text) else []
        spelled: list[int] = []
        if self._may_be_spelled(tokens, rest, scan):
            shape = f"\n{scan.lowered}\n".translate(SHAPE)  # framed: a spelled-out word at either end has an edge
            spelled = [m.start() - 1 for m in _SPELLED.finditer(shape)]
        if not (other or controls or spelled):
            return {}
        found: dict[int, tuple[int, Picked]] = {}
        for index, start in _line_starts(text, other + controls).items():
            found[index] = (start, dict.fromkeys(self.hidden))
        folding = set(_line_starts(text, other))
        lengthened = len(scan.lowered) != len(text)
        for index, start in _line_starts(scan.lowered, spelled).items():  # lowered keeps every newline
            folding.add(index)
            found.setdefault(index, (-1 if lengthened else start, {}))
        lines = text.split("\n")
        for index in folding:
            view = fold(lines[index].removesuffix("\r"))[0]
            present = set(self.branches.atoms_of_words(WORD.findall(view)))
            present.update(atom for symbol, atom in self.branches.all_symbols if symbol in view)
            _merge(found, index, found[index][0], self.branches.pick(present))
        return found

    def _may_be_spelled(self, tokens: set[str], rest: set[str], scan: _Scan) -> bool:
        """Whether the text may hold letters spelled out one by one (`i g n o r e`), which folding joins.

        Three such letters have a middle one with a joining character on each side: either a token of
        one letter between single spaces with a lone letter beyond each, or a token that joins them
        itself (`i-g-n`), or one that joins two at an edge (`g-n`, learnt with the token) beside a
        lone letter across a single space.
        """
        framed = f"{scan.framed} "
        for token in rest & self.spelled_words:
            inside, first, last = self.spelled_edges[token]
            if inside:
                return True
            for position in scan.find(token):
                end = position + len(token) + 1  # the space after it
                if first and framed[position - 1] in _LETTERS and framed[max(position - 2, 0)] not in _LETTERS:
                    return True
                if last and framed[end + 1] in _LETTERS and framed[end + 2] not in _LETTERS:
                    return True
        for letter in tokens & _LETTERS:
            # where the lone letter has a lone letter after it (rare: found in C), one before it too?
            for match in _before_lone_letter(letter).finditer(framed):
                at = match.start()  # framed[at - 1] is the space before the letter
                if at >= 3 and framed[at - 1] == " " and framed[at - 2] in _LETTERS and framed[at - 3] not in _LETTERS:
                    return True
        return False


class _Scan:
    """One text as the prefilter reads it: lower-cased, punctuation as spaces, every token between spaces.

    `framed` is `spaced` with a space at each end and around each newline, so that a search for
    " token " finds whole tokens only; positions there map to lines through the newlines.

    A position's line is the count of newlines before it, counted on from the last position asked for
    when that one is earlier (the places of a word come in order). Most texts have a few such places:
    tables of every line's start and of the newlines cost 62,000 instructions a text of the bench's
    corpus, and counting instead took _patterned from 199,000 to 170,000.
    """

    __slots__ = ("_found", "_framed_at", "_on", "_raw_at", "_starts", "framed", "lowered", "spaced")

    def __init__(self, lowered: str, spaced: str):
        self.lowered = lowered
        self.spaced = spaced
        self.framed = " " + spaced.replace("\n", " \n ") + " "
        self._framed_at = (0, 0)  # the last position in `framed` asked for, and its line
        self._raw_at = (0, 0)  # the same in `spaced`
        self._on: dict[int, int] = {}  # line -> the offset in `spaced` of a character on it
        self._starts: list[int] | None = None  # offset in `spaced` of each line's start, once asked for
        self._found: dict[str, list[int]] = {}

    def find(self, token: str) -> list[int]:
        """Positions in `framed` of the space before each whole occurrence of `token`."""
        found = self._found.get(token)
        if found is None:
            found = self._found[token] = []
            needle = f" {token} "
            position = self.framed.find(needle)
            while position >= 0:
                found.append(position)
                position = self.framed.find(needle, position + len(token) + 1)
        return found

    def line(self, position: int) -> int:
        """The line index of a position in `framed`: the space before a token, as `find` gives."""
        at, line = self._framed_at
        if position < at:
            at, line = 0, 0
        line += self.framed.count("\n", at, position)
        self._framed_at = (position, line)
        # the token after it starts in `spaced` 2 characters earlier for each newline before it (a space each side)
        self._on.setdefault(line, position - 2 * line)
        return line

    def line_of_raw(self, position: int) -> int:
        """The line index of a position in `lowered` (or `spaced`)."""
        at, line = self._raw_at
        if position < at:
            at, line = 0, 0
        line += self.spaced.count("\n", at, position)
        self._raw_at = (position, line)
        self._on.setdefault(line, position)
        return line

    def start(self, line: int) -> int:
        """The offset in `spaced` (and in the text, unless lower() lengthened it) where line `line` starts."""
        on = self._on.get(line)
        if on is None:  # a line no position was asked for
            return self._line_starts()[line]
        return self.spaced.rfind("\n", 0, on) + 1

    def _line_starts(self) -> list[int]:
        if self._starts is None:  # from the lines' lengths, summed in C: a text of many short lines is common
            self._starts = [0, *accumulate(map(add, map(len, self.spaced.split("\n")[:-1]), repeat(1)))]
        return self._starts

    def before(self, position: int, count: int) -> list[str]:
        """Up to `count` tokens just before the token at `position`."""
        window = 32 * count
        while True:
            start = max(0, position - window)
            tokens = self.framed[start:position].rsplit(None, count)  # the last `count`, and what is before them
            if len(tokens) > count:
                return tokens[1:]
            if start > 0 and self.framed[start - 1] != " ":
                tokens = tokens[1:]  # the first one may go on before the window
            if len(tokens) >= count or start == 0:
                return tokens
            window *= 4

    def after(self, position: int, length: int, count: int) -> list[str]:
        """Up to `count` tokens just after the token of `length` characters at `position`."""
        begin = position + length + 1
        window = 32 * count
        while True:
            tokens = self.framed[begin : begin + window].split(None, count)
            if len(tokens) > count or begin + window >= len(self.framed):
                return tokens[:count]
            window *= 4


class Branches:
    """Every branch of the pattern rules with what its matches need (memfiles.lint.required), indexed by atom."""

    def __init__(self, rules: list[Rule]):
        self.atoms: list[Atom] = stored_atoms()  # atom number -> atom: memfiles/lint/rule_needs.py numbers them
        self.ids: dict[Atom, int] = {atom: number for number, atom in enumerate(self.atoms)}
        self.owner: list[tuple[Rule, int]] = []  # branch number -> (rule, index in rule.check.branches)
        self.clauses: list[tuple[frozenset[int], ...]] = []
        self.ways: list[list[_Way]] = []  # every way a branch can be looked for: a clause, or a side of a pair
        needs = [
            (rule, index, clauses, pairs) for rule in rules for index, (clauses, pairs) in enumerate(self._needs(rule))
        ]
        self.weak = frozenset(number for number, atom in enumerate(self.atoms) if _weak(atom))
        weak = self.weak
        rarities = [rarity(atom) for atom in self.atoms]

        def rare(clause: frozenset[int]) -> int:  # memfiles.lint.required.rarity_of_clause, by atom numbers
            return min(rarities[atom] for atom in clause)

        for rule, index, clauses, pairs in needs:
            self.owner.append((rule, index))
            # A clause with an atom most words hold (`e` inside a word, a word of one letter) is not
            # worth the check that the text holds it, nor as a way to look for the branch.
            strong = tuple(clause for clause in clauses if clause.isdisjoint(weak))
            self.clauses.append(strong)
            ways: list[_Way] = [(clause, None, rare(clause)) for clause in strong]
            for left, gap, right in pairs:
                if gap <= _PAIR_GAP:  # looked for by a side without weak atoms; the other side may have some
                    if left.isdisjoint(weak):
                        ways.append((left, (left, gap, right, True), rare(left) + _PAIR_BONUS))
                    if right.isdisjoint(weak):
                        ways.append((right, (left, gap, right, False), rare(right) + _PAIR_BONUS))
            self.ways.append(ways)
        # Groups of atoms whose words the prefilter keeps (a text holds a group when it holds one of them):
        # every clause, and every side of a pair without weak atoms. Each once, by number; the groups of
        # each branch's clauses, and those each atom is in.
        sides = [pair[2] if pair[3] else pair[0] for ways in self.ways for _, pair, _ in ways if pair is not None]
        clauses = [clause for clauses in self.clauses for clause in clauses]
        strong_sides = [side for side in sides if side.isdisjoint(weak)]
        self.groups: list[frozenset[int]] = list(dict.fromkeys([*clauses, *strong_sides]))
        self.group_ids = {group: number for number, group in enumerate(self.groups)}
        self.clause_groups = [tuple(self.group_ids[clause] for clause in clauses) for clauses in self.clauses]
        groups_of: defaultdict[int, list[int]] = defaultdict(list)  # no list made and dropped per atom
        for number, group in enumerate(self.groups):
            for atom in group:
                groups_of[atom].append(number)
        self.groups_of = dict(groups_of)
        self._groups: dict[frozenset[int], tuple[int, ...]] = {}
        self.strong_words = _Words({atom: n for n, atom in enumerate(self.atoms) if n not in self.weak})
        self.weak_words = _Words({atom: n for n, atom in enumerate(self.atoms) if n in self.weak})
        self.all_symbols = [(text, n) for n, (kind, text) in enumerate(self.atoms) if kind == "sub"]
        self.symbols = [(text, atom) for text, atom in self.all_symbols if text.isascii()]  # in raw ASCII text
        self.symbol_chars = sorted({text[0] for text, _ in self.symbols})  # a text holding a symbol holds one
        symbol_atoms = {atom for _, atom in self.all_symbols}
        self.group_symbols = [group & symbol_atoms for group in self.groups]
        self.choose({})

    def _needs(self, rule: Rule) -> list[Stored]:
        """Clauses and pairs of each branch of a pattern rule, by atom number: from memfiles/lint/rule_needs.py
        while it is current, else worked out now (memfiles.lint.required)."""
        assert isinstance(rule.check, FirstOf)
        stored = stored_needs(rule.code, rule.check.patterns)
        if stored is not None:
            return stored
        worked_out = [requirements(branch, rule.check.flags) for branch in rule.check.branches]
        return [
            ([self._ids(c) for c in clauses], [(self._ids(left), gap, self._ids(right)) for left, gap, right in pairs])
            for clauses, pairs in worked_out
        ]

    def _ids(self, clause: frozenset[Atom]) -> frozenset[int]:
        for atom in sorted(clause):
            if atom not in self.ids:
                self.ids[atom] = len(self.atoms)
                self.atoms.append(atom)
        return frozenset(self.ids[atom] for atom in clause)

    def choose(self, seen: dict[int, int]) -> None:
        """Pick how each branch is looked for: by what `seen` (how often each atom turned up) says is cheapest,
        or before any text is read by the rarest-looking words (memfiles.lint.required.rarity).

        Any way finds every line the branch can match on, so the choice only changes the speed.
        """
        self.pairs: list[_Pair | None] = []  # the pair each branch is looked for by (None: a clause)
        self.other_side: list[int] = []  # the group of the pair's other side (-1: none, or it has weak atoms)
        # atom -> branches looked for by a clause or side holding it
        by_trigger: defaultdict[int, list[int]] = defaultdict(list)
        self.unanchored: list[int] = []  # branches nothing is known of: every line
        for number, ways in enumerate(self.ways):
            if not ways:
                self.pairs.append(None)
                self.other_side.append(-1)
                self.unanchored.append(number)
                continue
            if seen:
                atoms, pair, _ = min(
                    ways, key=lambda way: sum(seen.get(a, 0) for a in way[0]) * (1 if way[1] else _CLAUSE_COST)
                )
            else:
                atoms, pair, _ = max(ways, key=lambda way: (way[2], -(way[1][1] if way[1] else 0)))
            self.pairs.append(pair)
            other = None if pair is None else pair[2] if pair[3] else pair[0]
            self.other_side.append(-1 if other is None else self.group_ids.get(other, -1))
            for atom in atoms:
                by_trigger[atom].append(number)
        self.by_trigger: dict[int, list[int]] = dict(by_trigger)
        self._triggered: dict[frozenset[int], frozenset[int]] = {}

    def groups_of_atoms(self, atoms: frozenset[int]) -> tuple[int, ...]:
        """The groups holding one of `atoms` (cached: many words hold the same atoms, `s` in `s-1234`)."""
        groups = self._groups.get(atoms)
        if groups is None:
            groups = tuple({group for atom in atoms for group in self.groups_of.get(atom, ())})
            if len(self._groups) > _CACHE_LIMIT:
                self._groups.clear()
            self._groups[atoms] = groups
        return groups

    def triggered_by(self, atoms: frozenset[int]) -> frozenset[int]:
        """The branches looked for by a clause or side holding one of `atoms` (cached as groups_of_atoms)."""
        triggered = self._triggered.get(atoms)
        if triggered is None:
            triggered = frozenset(number for atom in atoms for number in self.by_trigger.get(atom, ()))
            if len(self._triggered) > _CACHE_LIMIT:
                self._triggered.clear()
            self._triggered[atoms] = triggered
        return triggered

    def atoms_of_words(self, words: list[str]) -> frozenset[int]:
        """The atoms but the weak ones that some of `words` (memfiles.lint.required.WORD) hold."""
        if len(words) == 1:
            return self.strong_words.atoms(words[0])
        return frozenset().union(*map(self.strong_words.atoms, words))

    def weak_atoms_of_words(self, words: list[str]) -> frozenset[int]:
        """The weak atoms that some of `words` hold (looked up only for the other side of a pair)."""
        return frozenset().union(*map(self.weak_words.atoms, words))

    def holds(self, number: int, present: set[int]) -> bool:
        """Whether every clause of branch `number` meets the atoms `present`."""
        return all(not clause.isdisjoint(present) for clause in self.clauses[number])

    def pick(self, present: set[int]) -> Picked:
        """The branches a text holding the atoms `present` may match (every clause met), grouped by rule."""
        numbers = {number for atom in present for number in self.by_trigger.get(atom, ())}
        numbers.update(self.unanchored)
        picked: dict[Rule, set[int]] = {}
        for number in numbers:
            if self.holds(number, present):
                rule, index = self.owner[number]
                picked.setdefault(rule, set()).add(index)
        return {rule: frozenset(indices) for rule, indices in picked.items()}


def _weak(atom: Atom) -> bool:
    kind, text = atom
    return (kind == "infix" and len(text) <= 3) or (kind == "prefix" and len(text) <= 2)


class _Words:
    """The atoms each word holds, for a set of atoms: exact words, prefixes and infixes (cached by word)."""

    def __init__(self, ids: dict[Atom, int]):
        kinds: dict[str, defaultdict[str, set[int]]] = {
            kind: defaultdict(set) for kind in ("exact", "prefix", "infix", "sub")
        }
        for (kind, text), atom in ids.items():
            kinds[kind][text].add(atom)
        self.exact = {text: frozenset(atoms) for text, atoms in kinds["exact"].items()}
        self.prefixes = _Prefixes(kinds["prefix"])
        self.infixes = _Prefixes(kinds["infix"], anywhere=True)
        self.digits = any(text.isdigit() for text in self.texts())
        self.cache: dict[str, frozenset[int]] = {}

    def texts(self) -> list[str]:
        """The text of every atom it has."""
        return [*self.exact, *self.prefixes.table, *self.infixes.table]

    def laters(self) -> tuple[_Later, ...]:
        """Its regular expressions compiled on use."""
        return self.prefixes.trie, self.infixes.trie, self.infixes.held

    def atoms(self, word: str) -> frozenset[int]:
        """The atoms `word` holds."""
        atoms = self.cache.get(word)
        if atoms is None and not self.digits and word.isdigit():  # numbers and ids: no atom is all digits
            return _NONE
        if atoms is None:
            # No regular expression asks first whether the word holds any atom: compiling one for the exact
            # words took 23 ms, before a lint run shares out its work, for less than it saved.
            atoms = self.exact.get(word, _NONE) | self.prefixes.of(word)
            inside = self.infixes.within(word)
            if inside:
                atoms = atoms.union(*inside)
            if len(self.cache) > _CACHE_LIMIT:
                self.cache.clear()
            self.cache[word] = atoms
        return atoms


class _Prefixes:
    """Which of many prefixes (or infixes) a word holds.

    The first words are looked up one length at a time; after _TRIE_AFTER of them (a lint run, not a
    write guard checking one value) one match of a trie-shaped regular expression finds the longest,
    which carries the values of the shorter ones it starts with as well.
    """

    def __init__(self, table: dict[str, set[Rule]] | dict[str, set[int]], anywhere: bool = False):
        self.table = {text: frozenset(values) for text, values in table.items()}
        self.lengths = sorted({len(text) for text in table})
        # Each text with the values of the shorter ones it starts with: what the trie's longest match
        # stands for. Made with the trie, which alone needs it (a millisecond a write guard is spared).
        self.closure: dict[str, frozenset] = {}  # type: ignore[type-arg]
        texts = list(self.table)

        def trie_source() -> str:
            self.closure = {
                text: frozenset(v for n in range(1, len(text) + 1) for v in table.get(text[:n], ())) for text in table
            }
            return f"(?=({_trie(texts)}))" if anywhere else _trie(texts)

        self.trie = _Later(trie_source)
        # Whether a word holds any of them (asked before `within` finds which): one search, which skips in C the
        # places where none starts. The lookahead `within` tries at every place took twice as long on a word
        # holding none, as most do.
        self.held = _Later(lambda: _trie(texts))

    def of(self, word: str) -> frozenset:  # type: ignore[type-arg]
        """The values of every prefix `word` starts with."""
        trie = self.trie.get()
        if trie is not None:
            match = trie.match(word)
            return self.closure[match.group()] if match else _NONE
        found: frozenset = _NONE  # type: ignore[type-arg]
        for length in self.lengths:
            if length > len(word):
                break
            values = self.table.get(word[:length])
            if values is not None:
                found = found | values
        return found

    def within(self, word: str) -> list[frozenset]:  # type: ignore[type-arg]
        """The values of every one of them that `word` contains (built with `anywhere`)."""
        held, trie = self.held.get(), self.trie.get()
        if held is not None and trie is not None:
            return [self.closure[found] for found in trie.findall(word) if found] if held.search(word) else []
        return [values for text, values in self.table.items() if text in word]


class _Later:
    """A regular expression compiled once it has been asked for _TRIE_AFTER times: by a lint run, not by a
    write guard checking one value (compiling a large one costs a millisecond). None until then."""

    def __init__(self, source: Callable[[], str]):
        self.source = source
        self.pattern: re.Pattern[str] | None = None
        self.asked = 0

    def get(self) -> re.Pattern[str] | None:
        if self.pattern is None:
            self.asked += 1
            if self.asked > _TRIE_AFTER:
                self.pattern = re.compile(self.source())
        return self.pattern

    def now(self) -> None:
        """Compile it now."""
        self.asked = _TRIE_AFTER
        self.get()


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


def _merge(chosen: dict[int, tuple[int, Picked]], index: int, position: int, picked: Picked) -> None:
    """Add `picked` to line `index` of `chosen`: a rule's branches are united; None (all of it) wins."""
    if index not in chosen:
        chosen[index] = (position, dict(picked))
        return
    old_position, mine = chosen[index]
    for rule, branches in picked.items():
        if branches is None or (rule in mine and mine[rule] is None):
            mine[rule] = None
        else:
            mine[rule] = (mine.get(rule) or frozenset()) | branches
    if old_position < 0 <= position:
        chosen[index] = (position, mine)


@cache
def _before_lone_letter(letter: str) -> re.Pattern[str]:
    """`letter` followed by a space and a letter standing alone (`a b ` in `x a b c`)."""
    return re.compile(f"{letter} (?=[a-z][^a-z])")


def _words(token: str, leet: bool | None = None, digits: tuple[str, ...] = ()) -> list[str]:
    """The words of `token` (memfiles.lint.required.WORD), and if it is leetspeak (`leet`: whether, if known already)
    those of its folded reading as well: `1gn0r3` holds `ignore`.

    Without `@` and `$` a token's reading has its words where it has them, the same but for digits read as letters:
    an atom without digits found in a word of the token is found in the reading too. So unless the token holds
    one of `digits` (the texts of atoms with a digit: `rot13`), the reading's words alone stand for both (one word
    fewer to look up for an id such as `e-ad4ab74f35f6`).
    """
    if not (leet or (leet is None and _LEET_TOKEN.match(token))):
        return WORD.findall(token)
    read = WORD.findall(translate(token, LEET, _LEET_BYTES))
    if "@" in token or "$" in token:
        return WORD.findall(token) + read
    for text in digits:
        if text in token:
            return WORD.findall(token) + read
    return read


def _has_controls(text: str) -> bool:
    """Whether `text` holds a character _CONTROLS matches. For ASCII text (almost all), whether deleting
    them shortens its bytes: five times faster than the regular expression's search."""
    if text.isascii():
        data = text.encode("ascii")
        return len(data.translate(None, _CONTROL_BYTES)) != len(data)
    return _CONTROLS.search(text) is not None


def _find_all(text: str, part: str) -> list[int]:
    """Every position where `part` starts in `text` (overlaps included)."""
    found = []
    position = text.find(part)
    while position >= 0:
        found.append(position)
        position = text.find(part, position + 1)
    return found


def _line_starts(text: str, positions: list[int]) -> dict[int, int]:
    """Line index -> offset of that line's start in `text`, for the lines holding `positions`."""
    starts: dict[int, int] = {}
    previous, lineno = 0, 0
    for position in sorted(positions):
        lineno += text.count("\n", previous, position)
        previous = position
        if lineno not in starts:
            starts[lineno] = text.rfind("\n", 0, position) + 1
    return starts
