"""Text metrics over word n-grams: words per utterance, corpus-level Dist-n, n-gram specificity.

Words are `synth.tokens.words`: lower-cased runs of letters and digits (an apostrophe inside a word is kept: "don't").
Dist-n here is always over *word* n-grams (CRSLab's variant counts character n-grams; not this).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np


def ngrams(tokens: Sequence[str], n: int) -> Iterator[tuple[str, ...]]:
    """The n-grams of one token sequence, in order (none when it is shorter than n)."""
    return zip(*(tokens[i:] for i in range(n)))


class DistinctNgrams:
    """Counts all and distinct word n-grams of a stream of utterances in bounded memory: each n-gram is kept as
    a 64-bit hash in sorted numpy arrays (8 bytes per distinct n-gram; a collision among 10^8 n-grams has a
    chance below 10^-3)."""

    FLUSH = 1 << 20

    def __init__(self, n: int):
        self.n, self.total = n, 0
        self._distinct = np.empty(0, dtype=np.int64)
        self._pending: list[int] = []

    def add(self, tokens: Sequence[str]) -> None:
        grams = [hash(gram) for gram in ngrams(tokens, self.n)]
        self.total += len(grams)
        self._pending += grams
        if len(self._pending) >= self.FLUSH:
            self._flush()

    def distinct(self) -> int:
        self._flush()
        return len(self._distinct)

    def ratio(self) -> float:
        """Dist-n: distinct / all; 0.0 when nothing was counted."""
        return self.distinct() / self.total if self.total else 0.0

    def _flush(self) -> None:
        if self._pending:
            fresh = np.fromiter(self._pending, dtype=np.int64, count=len(self._pending))
            self._distinct = np.union1d(self._distinct, fresh)
            self._pending = []


def distinct_n(utterances: Iterable[Sequence[str]], n: int) -> float:
    """Dist-n: distinct word n-grams / all word n-grams over the whole corpus (n-grams never cross
    utterances); 0.0 when the corpus has no n-gram."""
    counter = DistinctNgrams(n)
    for tokens in utterances:
        counter.add(tokens)
    return counter.ratio()


def distinct_count(tokens: Sequence[str], n: int) -> int:
    """The number of distinct n-grams of one document."""
    return len(set(ngrams(tokens, n)))


def ngram_specificity(documents: Iterable[Sequence[str]], n: int) -> float:
    """Distinct word n-grams per document, averaged over documents (a document here is one dialogue's
    seeker utterances joined end to end); 0.0 for no documents."""
    counts = [distinct_count(tokens, n) for tokens in documents]
    return sum(counts) / len(counts) if counts else 0.0


def crslab_distinct(texts: Iterable[str], n: int) -> float:
    """CRSLab's "dist@n", for comparison with numbers published with it and only labelled as such: the distinct
    *character* n-grams of all non-empty responses (its `ngrams(hyp, k)` runs over a string) divided by the
    number of those responses. Not a ratio and not over words; `distinct_n` is this project's Dist-n."""
    seen: set[str] = set()
    responses = 0
    for text in texts:
        if not text:
            continue
        responses += 1
        seen.update(text[i : i + n] for i in range(len(text) - n + 1))
    return len(seen) / responses if responses else 0.0
