"""The Yelp Open Dataset: `review.json` and `business.json` (JSON lines; the download names them
`yelp_academic_dataset_review.json` and `yelp_academic_dataset_business.json`, also read), plain or gzipped,
streamed line by line.

Field mapping (synth's Item has no place fields, so the business's are written into its genres and description):
- Review: `user_id` -> user, `business_id` -> item, `stars` (1-5) -> rating, score (stars - 1) / 4 and scale
  [1, 5]; `text` -> text. `review_id`, `date` and the useful/funny/cool votes are not kept.
- Item: `business_id` -> id, `name` -> title, no year; genres: `categories` (a comma-separated string, or null);
  description: "In CITY, STATE. CATEGORIES. Price range: $$." from `city`, `state`, `categories` and the
  `RestaurantsPriceRange2` attribute (the business's `stars`, the other `attributes`, the address and `hours`
  are not kept).
Required: a review's `user_id`, `business_id` and `stars`; a business's `business_id` and `name`."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from synth.data.bad_lines import BadLines
from synth.data.formats.common import (
    ReviewSource,
    clean_text,
    describe,
    items_in,
    join_reviews,
    optional_text,
    parsed_lines,
    required,
    required_id,
    reviews_in,
    source_files,
    star_rating,
    star_review,
)
from synth.records import Item, Review

PRICE_LEVELS = {"1": "$", "2": "$$", "3": "$$$", "4": "$$$$"}


def yelp_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """The review file and the business file in `folder`, under either public name, `.gz` too."""
    reviews = source_files(folder, ["review.json", "yelp_academic_dataset_review.json"], "review")
    businesses = source_files(folder, ["business.json", "yelp_academic_dataset_business.json"], "business")
    return reviews, businesses


def load_yelp(reviews: Sequence[Path], items: Sequence[Path], *, bad_lines: BadLines,
              max_reviews: int | None = None) -> ReviewSource:
    """The reviews of the review files (the first `max_reviews` of them) and the businesses they name."""
    return join_reviews(reviews_in(reviews, read_yelp_reviews, bad_lines), items_in(items, read_yelp_businesses, bad_lines),
                        max_reviews)


def read_yelp_reviews(path: Path, bad_lines: BadLines) -> Iterator[Review]:
    """The reviews of one review file, streamed (a generator: nothing is read before the first is asked for)."""
    return parsed_lines(path, _review, bad_lines)


def read_yelp_businesses(path: Path, bad_lines: BadLines, wanted: Collection[str] | None = None) -> Iterator[Item]:
    """The businesses of one business file as items, streamed; with `wanted`, only those ids."""
    return parsed_lines(path, lambda raw, where, line: _business(raw, where, line, wanted), bad_lines)


def _review(raw: dict[str, Any], path: Path, line: int) -> Review:
    user = required_id(raw, "user_id", path, line)
    item = required_id(raw, "business_id", path, line)
    return star_review(user, item, star_rating(raw, "stars", path, line), optional_text(raw, "text"))


def _business(raw: dict[str, Any], path: Path, line: int, wanted: Collection[str] | None) -> Item | None:
    item_id = required_id(raw, "business_id", path, line)
    if wanted is not None and item_id not in wanted:
        return None
    categories = [c for c in (clean_text(part) for part in optional_text(raw, "categories").split(",")) if c]
    return Item(id=item_id, title=clean_text(str(required(raw, "name", path, line))), genres=categories,
                description=_description(raw, categories))


def _description(raw: dict[str, Any], categories: list[str]) -> str:
    """'In Tucson, AZ. Pizza, Italian. Price range: $$.'"""
    place = ", ".join(part for part in (optional_text(raw, "city"), optional_text(raw, "state")) if part)
    attributes = raw.get("attributes") if isinstance(raw.get("attributes"), dict) else {}
    price = PRICE_LEVELS.get(str(attributes.get("RestaurantsPriceRange2", "")).strip(), "")
    return describe([f"In {place}" if place else "", ", ".join(categories), f"Price range: {price}" if price else ""])
