"""Every word tokenizer synth uses, each named for its job.

They differ on purpose, and each keeps the behaviour its users were measured with:

- `words`: text metrics, statistics, act profiles and the benchmarks' rankers: lower-cased runs of Unicode
  letters and digits, an apostrophe inside a word kept ("don't").
- `terms`: lower-cased ASCII words with one trailing clitic ("it's"): the copy and recital detectors' words;
  `search_terms` drops the function words in `STOPWORDS` for BM25.
- `ascii_words`: lower-cased ASCII letters and digits only, for matching titles ("Amélie" -> "am lie" unless the
  caller folds accents first, as title matching does).
- `word_runs`: `\\w+` runs, case kept: near-duplicate shingles and counting a title's words.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_TERM = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_ASCII_WORD = re.compile(r"[a-z0-9]+")
_WORD_RUN = re.compile(r"\w+")
# Function words that carry no preference; kept short on purpose (negations such as "not" stay).
STOPWORDS = frozenset(
    "a an and are as at be but by for from has have he her his i i'm in is it it's its me my of on or our "
    "she so that the their them they this to was we were what which who will with you your".split()
)


def words(text: str) -> list[str]:
    """The lower-cased words of `text`."""
    return _WORD.findall(text.lower())


def terms(text: str) -> list[str]:
    """The lower-cased ASCII words of `text`, a trailing clitic kept ("it's")."""
    return _TERM.findall(text.lower())


def search_terms(text: str) -> list[str]:
    """`terms` without `STOPWORDS`: what BM25 indexes and queries."""
    return [term for term in terms(text) if term not in STOPWORDS]


def ascii_words(text: str) -> list[str]:
    """The lower-cased runs of ASCII letters and digits of `text`."""
    return _ASCII_WORD.findall(text.lower())


def word_runs(text: str) -> list[str]:
    """The `\\w+` runs of `text`, case kept."""
    return _WORD_RUN.findall(text)
