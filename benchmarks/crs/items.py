"""One item space for every dataset of a benchmark: the MovieLens catalog (with the item knowledge that
generation uses), plus each title a dataset mentions that MovieLens lacks, keyed by title and year. Names
are matched by title and year, so a ReDial "@123", an INSPIRED title and a generated run's item meet."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from synth.data.movielens import split_title
from synth.data.sources import movielens_catalog
from synth.data.title_match import TitleMatcher, title_key
from synth.records import Item


@dataclass
class MappingReport:
    """How a dataset's item mentions met the reference catalog."""

    mentions: int = 0
    unmapped: int = 0  # mentions of titles the reference catalog lacks (title-only items)
    unmapped_titles: Counter[str] = field(default_factory=Counter)

    @property
    def unmapped_share(self) -> float:
        return self.unmapped / self.mentions if self.mentions else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "mentions": self.mentions,
            "unmapped": self.unmapped,
            "unmapped_share": round(self.unmapped_share, 4),
            "unmapped_examples": [title for title, _ in self.unmapped_titles.most_common(5)],
        }


class ItemSpace:
    """Catalog ids for item names; rows of the score vectors every recommender returns."""

    def __init__(self, reference: dict[str, Item]):
        self.items: dict[str, Item] = dict(reference)
        self.reference_size = len(reference)
        self._matcher = TitleMatcher(reference)
        self._extra: dict[str, str] = {}  # "title key|year" -> id of a title-only item
        self._row: dict[str, int] = {item_id: row for row, item_id in enumerate(self.items)}

    @classmethod
    def movielens(cls) -> ItemSpace:
        """Every ml-latest-small movie, described as generation describes items (genres, tags, a critic quote)."""
        return cls(movielens_catalog())

    def resolve(self, name: str, report: MappingReport, item_id: str | None = None) -> str:
        """The catalog id of "Title (Year)" `name`; `item_id` is kept when the catalog has it under that title
        (a run generated from MovieLens). A title the catalog lacks becomes a title-only item."""
        report.mentions += 1
        if item_id is not None and item_id in self._row and _same_title(self.items[item_id].title, name):
            return item_id
        found = self._matcher.match(name)
        if found is not None:
            return found
        report.unmapped += 1
        report.unmapped_titles[name] += 1
        title, year = split_title(name)
        key = _extra_key(name)
        if key not in self._extra:
            new_id = f"title:{key}"
            self._extra[key] = new_id
            self._row[new_id] = len(self.items)
            self.items[new_id] = Item(id=new_id, title=title, year=year)
        return self._extra[key]

    def find(self, name: str) -> str | None:
        """The id of an item the space already has for "Title (Year)" `name`, or None (the space does not grow)."""
        return self._matcher.match(name) or self._extra.get(_extra_key(name))

    def row(self, item_id: str) -> int:
        return self._row[item_id]

    @property
    def ids(self) -> list[str]:
        return list(self.items)

    def __len__(self) -> int:
        return len(self.items)


def _extra_key(name: str) -> str:
    title, year = split_title(name)
    return f"{title_key(title)}|{year or ''}"


def _same_title(catalog_title: str, name: str) -> bool:
    return title_key(split_title(catalog_title)[0]) == title_key(split_title(name)[0])
