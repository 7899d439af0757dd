"""Match movies across datasets by title and year (ReDial "Title (Year)" -> a MovieLens id, ...)."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict

from synth.data.movielens import split_title
from synth.records import Item
from synth.tokens import ascii_words

_LEADING_ARTICLE = re.compile(r"^(the|a|an) ")
_ALIAS = re.compile(r"\s+\((?:a\.k\.a\. )?([^()]*)\)")  # MovieLens: "Amelie (Fabuleux destin d'Amélie Poulain, Le)"


def normalise(text: str) -> str:
    """Lower-case ASCII words separated by single spaces: no accents or punctuation, '&' as 'and'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower().replace("&", " and ")
    return " ".join(ascii_words(ascii_text))


def title_key(title: str) -> str:
    """`normalise`d, without a leading article."""
    return _LEADING_ARTICLE.sub("", normalise(title))


class TitleMatcher:
    """Finds a catalog item from a "Title (Year)" name: same title (or an alias) and year, else the year
    off by one, else the title alone when exactly one item has it; then the same on the main title before
    a colon ("Kill Bill" -> "Kill Bill: Vol. 1" when that is the only one)."""

    def __init__(self, catalog: dict[str, Item]):
        self._by_key: dict[str, list[Item]] = defaultdict(list)
        self._by_main: dict[str, list[Item]] = defaultdict(list)
        for item in catalog.values():
            for name in {item.title, _ALIAS.sub("", item.title), *_ALIAS.findall(item.title)}:
                title = split_title(name)[0]
                for index, key in ((self._by_key, title_key(title)), (self._by_main, title_key(title.split(":")[0]))):
                    if key and item not in index[key]:
                        index[key].append(item)

    def match(self, name: str) -> str | None:
        """The catalog id for `name`, or None when there is no match or it is ambiguous."""
        title, year = split_title(" ".join(name.split()))
        exact = self._by_key.get(title_key(title))
        if exact:
            return self._pick(exact, year)
        return self._pick(self._by_main.get(title_key(title.split(":")[0]), []), year)

    @staticmethod
    def _pick(found: list[Item], year: int | None) -> str | None:
        if year is not None:
            for tolerance in (0, 1):
                close = {i.id for i in found if i.year is not None and abs(i.year - year) <= tolerance}
                if len(close) == 1:
                    return close.pop()
                if close:
                    return None
        ids = {i.id for i in found}
        return ids.pop() if len(ids) == 1 else None
