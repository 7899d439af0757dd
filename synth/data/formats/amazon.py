"""Amazon Reviews 2023 (McAuley Lab): a category's reviews `CATEGORY.jsonl` and its metadata `meta_CATEGORY.jsonl`,
plain or gzipped, streamed line by line.

Field mapping (synth's Item and Review have no product fields, so the product's are written into these):
- Review: `user_id` -> user, `parent_asin` -> item, `rating` (1-5) -> rating, score (rating - 1) / 4 and scale
  [1, 5]; the text is the review's `title` and `text` joined ("Lovely scent. It lasts all day."), markup such
  as <br /> made spaces. `timestamp`, `asin`, `helpful_vote` and `verified_purchase` are not kept.
- Item: `parent_asin` -> id, `title` -> title, no year; genres: the `categories` path, else `main_category`;
  description: a short text built from the store (or `details`' Brand), `main_category`, the category path,
  the first `features`, `price` and the start of `description`, e.g. "By Acme. All Beauty: Hair Care > Shampoo.
  Features: sulfate free; 250 ml. Price: $12.99. A gentle daily shampoo..." (`average_rating`, `images` and the
  rest of `details` are not kept).
Required: a review's `user_id`, `parent_asin` and `rating`; an item's `parent_asin` and `title`."""

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
    shorten,
    source_files,
    star_rating,
    star_review,
)
from synth.errors import InputError
from synth.records import Item, Review

FEATURES_SHOWN = 3
FEATURE_CHARS = 80


def amazon_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """The review files (`CATEGORY.jsonl`) and metadata files (`meta_CATEGORY.jsonl`) in `folder`, `.gz` too."""
    metadata = source_files(folder, ["meta_*.jsonl"], "metadata")
    reviews = [p for p in source_files(folder, ["*.jsonl"], "review") if not p.name.startswith("meta_")]
    if not reviews:
        raise InputError(folder, "no review file here (looked for CATEGORY.jsonl[.gz] beside meta_CATEGORY.jsonl)")
    return reviews, metadata


def load_amazon(reviews: Sequence[Path], items: Sequence[Path], *, bad_lines: BadLines,
                max_reviews: int | None = None) -> ReviewSource:
    """The reviews of the review files (the first `max_reviews` of them) and the items they name."""
    return join_reviews(reviews_in(reviews, read_amazon_reviews, bad_lines), items_in(items, read_amazon_items, bad_lines),
                        max_reviews)


def read_amazon_reviews(path: Path, bad_lines: BadLines) -> Iterator[Review]:
    """The reviews of one review file, streamed (a generator: nothing is read before the first is asked for)."""
    return parsed_lines(path, _review, bad_lines)


def read_amazon_items(path: Path, bad_lines: BadLines, wanted: Collection[str] | None = None) -> Iterator[Item]:
    """The items of one metadata file, streamed; with `wanted`, only those ids (the others are not checked)."""
    return parsed_lines(path, lambda raw, where, line: _item(raw, where, line, wanted), bad_lines)


def _review(raw: dict[str, Any], path: Path, line: int) -> Review:
    user = required_id(raw, "user_id", path, line)
    item = required_id(raw, "parent_asin", path, line)
    rating = star_rating(raw, "rating", path, line)
    title, text = optional_text(raw, "title"), optional_text(raw, "text")
    if title and text:
        text = f"{title} {text}" if title[-1] in ".!?" else f"{title}. {text}"
    return star_review(user, item, rating, text or title)


def _item(raw: dict[str, Any], path: Path, line: int, wanted: Collection[str] | None) -> Item | None:
    item_id = required_id(raw, "parent_asin", path, line)
    if wanted is not None and item_id not in wanted:
        return None
    title = clean_text(str(required(raw, "title", path, line)))
    categories = [c for c in map(clean_text, _strings(raw.get("categories"))) if c]
    main_category = optional_text(raw, "main_category")
    return Item(id=item_id, title=title, genres=categories or ([main_category] if main_category else []),
                description=_description(raw, main_category, categories))


def _description(raw: dict[str, Any], main_category: str, categories: list[str]) -> str:
    """'By STORE. MAIN: A > B. Features: f1; f2. Price: $P. The start of the description.'"""
    details = raw.get("details") if isinstance(raw.get("details"), dict) else {}
    brand = details.get("Brand")
    maker = optional_text(raw, "store") or (clean_text(brand) if isinstance(brand, str) else "")
    path = " > ".join(categories)
    where = f"{main_category}: {path}" if main_category and path and path != main_category else main_category or path
    features = [f for f in (shorten(clean_text(f), FEATURE_CHARS) for f in _strings(raw.get("features"))) if f]
    price = _price(raw.get("price"))
    text = shorten(clean_text(" ".join(_strings(raw.get("description")))))
    return describe([
        f"By {maker}" if maker else "", where, "Features: " + "; ".join(features[:FEATURES_SHOWN]) if features else "",
        f"Price: {price}" if price else "", text,
    ])


def _strings(value: Any) -> list[str]:
    """A list field's text entries ([] for anything else); a lone string is a list of one."""
    if isinstance(value, str):
        return [value]
    return [entry for entry in value if isinstance(entry, str)] if isinstance(value, list) else []


def _price(value: Any) -> str:
    """'$12.99' for 12.99 or '12.99' or '$12.99'; '' for null, 'None' and other text."""
    try:
        amount = float(str(value).strip().lstrip("$").replace(",", ""))
    except ValueError:
        return ""
    return f"${amount:,.2f}" if 0 < amount < float("inf") else ""
