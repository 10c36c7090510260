"""Plain Okapi BM25 baselines (k1=1.2, b=0.75) over the same units memfiles recalls from.

Written here with the textbook formula so that the baselines have no tuning of ours in it:
idf = ln(1 + (N - n + 0.5) / (n + 0.5)) (the non-negative form Lucene uses), term frequency saturation
and length normalisation per term. Two tokenizers:
- `tokens`: lower-case words (`\\w+`), no stemming, no stop words (the bench's first baseline);
- `stop_tokens`: lower-case `[a-z0-9]+` words without NLTK's English stop words (179 words, read at run
  time from ../shared/data/stopwords_en.txt, not copied here): the standard, stronger baseline.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

K1 = 1.2
B = 0.75
_WORD = re.compile(r"\w+")
_ASCII_WORD = re.compile(r"[a-z0-9]+")
STOPWORDS_FILE = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "stopwords_en.txt"


def tokens(text: str) -> list[str]:
    """Lower-case words: the tokenizer of a plain BM25 baseline."""
    return _WORD.findall(text.lower())


@cache
def stopwords(path: Path = STOPWORDS_FILE) -> frozenset[str]:
    """NLTK's English stop-word list, one word a line."""
    words = frozenset(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    if not words:
        raise SystemExit(f"{path}: no stop words in it")
    return words


def stop_tokens(text: str) -> list[str]:
    """Lower-case `[a-z0-9]+` words, NLTK's English stop words dropped: the standard BM25 tokenizer."""
    stop = stopwords()
    return [w for w in _ASCII_WORD.findall(text.lower()) if w not in stop]


class BM25:
    """An in-memory Okapi BM25 index over documents given as text."""

    def __init__(
        self, documents: Sequence[str], k1: float = K1, b: float = B, tokenize: Callable[[str], list[str]] = tokens
    ) -> None:
        self.k1, self.b, self.tokenize = k1, b, tokenize
        self.postings: dict[str, list[tuple[int, int]]] = {}
        self.lengths: list[int] = []
        for n, text in enumerate(documents):
            counts = Counter(tokenize(text))
            self.lengths.append(sum(counts.values()))
            for term, tf in counts.items():
                self.postings.setdefault(term, []).append((n, tf))
        self.total = len(self.lengths)
        self.average = sum(self.lengths) / self.total if self.total else 0.0

    def idf(self, term: str) -> float:
        n = len(self.postings.get(term, ()))
        return math.log(1 + (self.total - n + 0.5) / (n + 0.5))

    def scores(self, query: str) -> dict[int, float]:
        """BM25 score of every document holding at least one query word (a repeated query word counts again)."""
        found: dict[int, float] = {}
        for term in self.tokenize(query):
            idf = self.idf(term)
            for doc, tf in self.postings.get(term, ()):
                norm = self.k1 * (1 - self.b + self.b * self.lengths[doc] / self.average)
                found[doc] = found.get(doc, 0.0) + idf * tf * (self.k1 + 1) / (tf + norm)
        return found

    def top(self, query: str, k: int) -> list[int]:
        """The k best documents, best first; ties go to the earlier document (deterministic)."""
        ranked = sorted(self.scores(query).items(), key=lambda pair: (-pair[1], pair[0]))
        return [doc for doc, _ in ranked[:k]]
