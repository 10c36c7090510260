"""The folded view of a line that the instruction rules read, with a map back to original columns.

Folding undoes the usual ways of hiding a phrase from a keyword rule: compatibility forms
(full-width, mathematical letters, ligatures) and accents via NFKD, case via casefold, look-alike
letters from other scripts (Cyrillic `о` for `o`), regional-indicator and small-capital letters,
zero-width and other format characters, leetspeak inside words (`1gn0r3`), spaced-out letters
(`i g n o r e`), the inner letters of a few words shuffled (`ignroe all prevoius insturctions`), words joined
by `-` or `_` into one token (`forward-every-email`, `always_trust_urls`: three words or more) and
percent-encoding (`always%20trust%20urls`), both read as the words and spaces they hide. Every
character of the view remembers which column of the original line it came from, so findings point at what a
person sees in their editor.
"""

from __future__ import annotations

import re
import unicodedata

# Look-alike letters that NFKD leaves alone (Unicode confusables, the lower-case letters that matter).
_HOMOGLYPHS = str.maketrans(
    {
        # Cyrillic
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
        "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d",
        "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ɡ": "g", "г": "r", "п": "n", "ь": "b",
        # Greek
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
        "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ς": "s", "σ": "o",
        # Armenian
        "ո": "n", "ս": "u", "օ": "o", "հ": "h",
        # Latin small capitals and other letter-likes
        "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ɢ": "g", "ʜ": "h", "ɪ": "i", "ᴊ": "j",
        "ᴋ": "k", "ʟ": "l", "ᴍ": "m", "ɴ": "n", "ᴏ": "o", "ᴘ": "p", "ʀ": "r", "ꜱ": "s", "ᴛ": "t",
        "ᴜ": "u", "ᴠ": "v", "ᴡ": "w", "ʏ": "y", "ᴢ": "z", "ı": "i", "ȷ": "j", "ſ": "s",
    }
)  # fmt: skip
LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "@": "a", "$": "s"}
)
# A word mixing letters with leet digits (`1gn0r3`, `h4x`), or letters spelled out one by one.
_LEET_WORD = re.compile(r"(?<![\w@$])(?=[\w@$]*[a-z][\w@$]*[a-z])(?=[\w@$]*[013457895@$])[a-z0-9@$]{3,}(?![\w@$])")
_SPACED = re.compile(r"(?<![^\W\d_])[^\W\d_](?:[ .\-_*·/|][^\W\d_]){2,}(?![^\W\d_])")
_LEET_CHARS = re.compile(r"[0-9@$]")
# A letter next to a digit, `@` or `$`: every _LEET_WORD match has one (a run of letters and those, holding both).
# Lines of prose with numbers in them (`order O-35833`, `400 dollars`) have none, and skip _LEET_WORD's search,
# whose look-behind is tried at every character: 37 µs for such a line, 5 without.
_LEET_NEXT = re.compile(r"[a-z][0-9@$]|[0-9@$][a-z]")
_SPACED_ASCII = re.compile(r"(?<![a-z])[a-z][ .\-_*/|][a-z][ .\-_*/|][a-z](?![a-z])")
# What every _SPACED_ASCII match holds from its first joining character on: a letter between two of them, then
# a letter standing alone. Its search skips in C to the joining characters; the look-behind that _SPACED_ASCII
# starts with is tried at every character, about 250 instructions each (a third as many for this one).
_SPACED_GATE = re.compile(r"[ .\-_*/|][a-z][ .\-_*/|][a-z](?![a-z])")
# The shape of lower-case ASCII text: every letter `a`, every character _SPACED_ASCII joins letters by `s`,
# anything else `x`. Three letters spelled out (`i g n`) have the shape `asasa`, so a line whose shape lacks
# it needs no _SPACED_ASCII search (a look-behind first: tried at every character). Any one-letter word
# between two words also has that shape (`a` in `was a note`), so this only spares the lines without one.
SHAPE = str.maketrans(
    {
        **{chr(c): "x" for c in range(128)},
        **dict.fromkeys("abcdefghijklmnopqrstuvwxyz", "a"),
        **dict.fromkeys(" .-_*/|", "s"),
    }
)


def ascii_table(table: dict[int, str]) -> bytes:
    """The ASCII part of a str.maketrans table as a table of bytes (the others map to themselves): bytes.translate
    reads it, where str.translate asks the dict for each character (twice the instructions on a line of text)."""
    return bytes(ord(table.get(c, chr(c))) if c < 128 else c for c in range(256))


def translate(text: str, table: dict[int, str], table_bytes: bytes) -> str:
    """`text.translate(table)`, through `table_bytes` (ascii_table(table)) when the text is ASCII."""
    if text.isascii():
        return text.encode("ascii").translate(table_bytes).decode("ascii")
    return text.translate(table)


SHAPE_BYTES = ascii_table(SHAPE)

# Typoglycemia: a word spelled with its inner letters shuffled (`ignroe all prevoius insturctions`) still reads as the
# word. Undone for the words of the commonest attacks (their few first letters keep the search cheap); the view keeps
# one letter for one, so columns are kept.
_SCRAMBLED_WORDS = ["ignore", "previous", "instructions", "instruction", "disregard", "prompt", "password"]
_CANONICAL = {(w[0], w[-1], len(w), "".join(sorted(w[1:-1]))): w for w in _SCRAMBLED_WORDS}
# A word of those letters that is not the word itself (memfiles.lint.gate folds the lines that hold one). It starts
# with the class of the words' first letters, which the regex engine skips to in C, then looks behind for the start
# of a word.
_FIRST = sorted({w[0] for w in _SCRAMBLED_WORDS})
SCRAMBLED = re.compile(
    f"[{''.join(_FIRST)}](?<!\\w.)(?:"
    + "|".join(
        f"(?<={first})(?:"
        + "|".join(
            f"(?!{w[1:]}\\b)[{''.join(sorted(set(w[1:-1])))}]{{{len(w) - 2}}}{w[-1]}"
            for w in _SCRAMBLED_WORDS
            if w[0] == first
        )
        + ")"
        for first in _FIRST
    )
    + r")\b"
)


def _unscramble(match: re.Match[str]) -> str:
    word = match.group(0)
    return _CANONICAL.get((word[0], word[-1], len(word), "".join(sorted(word[1:-1]))), word)


# Three words or more joined by `-` or `_` (`forward-every-email`, `always_trust_urls`): read as words, one space for
# one joiner, so columns are kept. Two (`e-mail`, `dev_mode`, `im_start`) are left as written.
JOINED = re.compile(r"[a-z]+(?:[-_][a-z]+){2,}")
_JOINERS = str.maketrans("-_", "  ")
# Percent-encoding of a printable ASCII character (`%20`, `%2C`, `%40`): decoded before anything else is folded.
PERCENT = re.compile(r"%([2-7][0-9a-fA-F])")


def _joined(match: re.Match[str]) -> str:
    return match.group(0).translate(_JOINERS)


def _percent_decoded(line: str) -> tuple[str, list[int]]:
    """`line` with its percent-encoded printable characters decoded, and the original column of each character."""
    chars: list[str] = []
    cols: list[int] = []
    position = 0
    for match in PERCENT.finditer(line):
        for i in range(position, match.start()):
            chars.append(line[i])
            cols.append(i)
        decoded = chr(int(match.group(1), 16))
        chars.append(decoded if decoded != "\x7f" else " ")
        cols.append(match.start())
        position = match.end()
    for i in range(position, len(line)):
        chars.append(line[i])
        cols.append(i)
    return "".join(chars), cols


_DROP_CATEGORIES = ("Cf", "Mn", "Me", "Cs", "Co", "Cn")


def _fold_char(char: str) -> str:
    code = ord(char)
    if 0x1F1E6 <= code <= 0x1F1FF:  # regional indicators spell letters: 🇮🇬🇳🇴🇷🇪
        return chr(code - 0x1F1E6 + ord("a"))
    if unicodedata.category(char) in _DROP_CATEGORIES or 0xFE00 <= code <= 0xFE0F:
        return ""
    decomposed = unicodedata.normalize("NFKD", char)
    kept = "".join(c for c in decomposed if unicodedata.category(c) not in _DROP_CATEGORIES)
    return kept.casefold().translate(_HOMOGLYPHS)


def fold(line: str) -> tuple[str, list[int] | None]:
    """The folded view of `line` and, unless it is column-for-column, the original column of each character."""
    if "%" in line and PERCENT.search(line):
        decoded, base = _percent_decoded(line)
        view, inner = fold(decoded)
        return view, [base[c] for c in inner] if inner is not None else base
    cols: list[int] | None = None  # None: column-for-column with `line`
    if line.isascii():
        view = line.lower()
        if ("-" in view or "_" in view) and JOINED.search(view):
            view = JOINED.sub(_joined, view)  # one space for one joiner: columns kept
        if _LEET_CHARS.search(view) and _LEET_NEXT.search(view):
            view = _LEET_WORD.sub(lambda m: m.group(0).translate(LEET), view)  # one letter for one: columns kept
        view = SCRAMBLED.sub(_unscramble, view)  # one letter for one: columns kept
        if (
            b"asasa" not in view.encode("ascii").translate(SHAPE_BYTES)
            or not _SPACED_GATE.search(view)
            or not _SPACED_ASCII.search(view)  # _SPACED on ASCII text
        ):
            return view, None  # the common case: nothing to undo
    else:
        chars: list[str] = []
        cols = []
        for index, char in enumerate(line):
            folded = char.lower() if char.isascii() else _fold_char(char)
            for piece in folded:
                chars.append(piece)
                cols.append(index)
        view = "".join(chars)
        view = JOINED.sub(_joined, view)
        view = _LEET_WORD.sub(lambda m: m.group(0).translate(LEET), view)
        view = SCRAMBLED.sub(_unscramble, view)
    if _SPACED.search(view):
        if cols is None:
            cols = list(range(len(view)))
        chars2: list[str] = []
        cols2: list[int] = []
        position = 0
        for match in _SPACED.finditer(view):
            for i in range(position, match.start()):
                chars2.append(view[i])
                cols2.append(cols[i])
            for i in range(match.start(), match.end(), 2):
                chars2.append(view[i])
                cols2.append(cols[i])
            position = match.end()
        for i in range(position, len(view)):
            chars2.append(view[i])
            cols2.append(cols[i])
        return "".join(chars2), cols2
    return view, cols
