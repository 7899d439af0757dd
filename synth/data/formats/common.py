"""What the public review-format readers share: a source's files in a folder (plain or `.gz`), fields read with
located errors, the 1-5 star scale, short item descriptions, and the join of streamed reviews to the items they
name.

Memory: the reviews are read first and kept (all of them, or the first `max_reviews` in file order); the item
file is then streamed and only the items those reviews name are kept. So memory grows with the reviews kept and
their items, never with the size of the item file; a 10 GB category file needs `max_reviews` to stay small."""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

from synth.data.bad_lines import BadLines
from synth.data.readers import normalise_space, read_json_lines
from synth.errors import InputError
from synth.records import Item, Review

log = logging.getLogger(__name__)

STARS = (1.0, 5.0)  # Amazon, Yelp and Goodreads all rate on 1-5 stars
DESCRIPTION_CHARS = 300  # a source's own free-text description is cut to about this many characters
_MARKUP = re.compile(r"<br\s*/?>|</?(?:p|b|i|em|strong|span|div|ul|li)\b[^>]*>", re.IGNORECASE)

Parsed = TypeVar("Parsed")
ItemReader = Callable[[Collection[str]], Iterable[Item]]  # the items whose ids are in the given set


@dataclass
class ReviewSource:
    """A format's catalog (only the items some kept review names), its reviews, and what was read and skipped."""

    catalog: dict[str, Item]
    reviews: list[Review]
    counts: dict[str, int]


def source_files(folder: Path, patterns: Sequence[str], what: str) -> list[Path]:
    """The files in `folder` named by one of the glob `patterns`, plain or with `.gz` added (the plain one where
    both are there), sorted by name; an InputError naming the folder and the names looked for when none is."""
    if not folder.is_dir():
        raise InputError(folder, "not a folder")
    found: dict[str, Path] = {}
    for pattern in patterns:
        for path in [*folder.glob(pattern + ".gz"), *folder.glob(pattern)]:  # a plain file replaces its .gz
            found[path.name.removesuffix(".gz")] = path
    if not found:
        names = " or ".join(f"{pattern}[.gz]" for pattern in patterns)
        raise InputError(folder, f"no {what} file here (looked for {names})")
    return [found[name] for name in sorted(found)]


def parsed_lines(
    path: Path, parse: Callable[[dict[str, Any], Path, int], Parsed | None], bad_lines: BadLines
) -> Iterator[Parsed]:
    """`parse(object, path, line)` for each JSON line of `path`, streamed; an InputError goes to `bad_lines` and
    its line is skipped, as is a line `parse` returns None for."""
    for line, raw in read_json_lines(path, bad_lines):
        try:
            parsed = parse(raw, path, line)
        except InputError as error:
            bad_lines.report(error)
            continue
        if parsed is not None:
            yield parsed


def required(raw: dict[str, Any], field: str, path: Path, line: int) -> Any:
    """The value of `field`; an InputError naming the file, line and field when it is absent, null or empty."""
    value = raw.get(field)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError(path, "missing" if field not in raw else "empty", line=line, field=field)
    return value.strip() if isinstance(value, str) else value


def required_id(raw: dict[str, Any], field: str, path: Path, line: int) -> str:
    """An id field as text (a number is written as the file spells it)."""
    return str(required(raw, field, path, line))


def optional_text(raw: dict[str, Any], field: str) -> str:
    """`field` as clean text: '' when absent or not text, markup such as <br /> made spaces, whitespace single."""
    value = raw.get(field)
    return clean_text(value) if isinstance(value, str) else ""


def clean_text(text: str) -> str:
    """`text` with line-break and simple formatting tags made spaces and runs of whitespace single."""
    return normalise_space(_MARKUP.sub(" ", text))


def star_rating(raw: dict[str, Any], field: str, path: Path, line: int) -> float:
    """A 1-5 star rating; an InputError when it is missing, not a number or off the scale."""
    value = required(raw, field, path, line)
    try:
        rating = float(value)
    except (TypeError, ValueError):
        raise InputError(path, f"rating is not a number: {value!r}", line=line, field=field) from None
    low, high = STARS
    if isinstance(value, bool) or not low <= rating <= high:
        raise InputError(path, f"rating {value!r} is outside {low:g}-{high:g}", line=line, field=field)
    return rating


def star_review(user: str, item: str, rating: float, text: str) -> Review:
    """A review on the 1-5 star scale, its score (rating - 1) / 4."""
    low, high = STARS
    score = (rating - low) / (high - low)
    return Review(user=user, item=item, rating=rating, text=text, score=score, scale=[low, high])


def shorten(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    """`text` cut at the last word boundary within `limit` characters, with '...' when anything was cut."""
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:.") + "..."


def describe(sentences: Iterable[str]) -> str:
    """The non-empty sentences joined by spaces, each ending in a full stop (or its own ?, !, ...)."""
    parts = [s.strip() for s in sentences if s and s.strip()]
    return " ".join(part if part[-1] in ".!?" else part + "." for part in parts)


def reviews_in(paths: Sequence[Path], read: Callable[[Path, BadLines], Iterable[Review]],
               bad_lines: BadLines) -> Iterator[Review]:
    """The reviews of every file of `paths` in turn, each read by `read(path, bad_lines)`, streamed."""
    return (review for path in paths for review in read(path, bad_lines))


def items_in(paths: Sequence[Path], read: Callable[[Path, BadLines, Collection[str]], Iterable[Item]],
             bad_lines: BadLines) -> ItemReader:
    """An ItemReader over every file of `paths`, each read by `read(path, bad_lines, wanted)`."""
    return lambda wanted: (item for path in paths for item in read(path, bad_lines, wanted))


def join_reviews(reviews: Iterable[Review], read_items: ItemReader, max_reviews: int | None,
                 counts: Counter[str] | None = None) -> ReviewSource:
    """The first `max_reviews` reviews (all when None) with the items they name, read by `read_items`; a review
    whose item the item files lack is dropped and counted (`reviews_unknown_item`)."""
    kept = list(islice(reviews, max_reviews))
    if max_reviews is not None and len(kept) == max_reviews:
        log.info("kept the first %d reviews (max_source_reviews); the rest of the file was not read", max_reviews)
    catalog: dict[str, Item] = {}
    for item in read_items({review.item for review in kept}):
        catalog.setdefault(item.id, item)  # an item listed twice keeps its first entry
    known = [review for review in kept if review.item in catalog]
    totals = Counter(counts or {})
    totals.update(reviews=len(known), items=len(catalog), reviews_unknown_item=len(kept) - len(known))
    return ReviewSource(catalog, known, dict(totals))
