"""The UCSD Goodreads datasets (the UCSD Book Graph, Wan & McAuley): reviews `goodreads_reviews_*.json` (the full
`_dedup` file, a genre's file such as `_poetry`, or `_spoiler`) and books `goodreads_books.json` or
`goodreads_books_GENRE.json`, JSON lines, plain or gzipped, streamed line by line. Where
`goodreads_book_authors.json` lies beside the books, the authors are named.

Field mapping (synth's Item has no author field, so the book's authors are written into its description):
- Review: `user_id` -> user, `book_id` -> item, `rating` (1-5) -> rating, score (rating - 1) / 4 and scale
  [1, 5]; `review_text` (or the `_spoiler` file's `review_sentences`, joined) -> text. A rating of 0 means
  the reader gave none: such a review is skipped and counted (`reviews_unrated`). Dates, votes and
  `review_id` are not kept.
- Item: `book_id` -> id, `title` -> title, `publication_year` -> year (empty: none); genres: the three most
  used `popular_shelves` that name a genre (shelves such as to-read, currently-reading, owned, favorites,
  books-i-own or read-2017 are passed over), "young-adult" written "Young Adult"; description: "By AUTHOR.
  GENRES. The start of `description`." with the authors whose `role` is empty (all of them when none is).
Required: a review's `user_id`, `book_id` and `rating`; a book's `book_id` and `title`; an author's
`author_id` (and `name`)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synth.data.bad_lines import BadLines
from synth.data.formats.common import (
    ReviewSource,
    clean_text,
    describe,
    join_reviews,
    optional_text,
    parsed_lines,
    required,
    required_id,
    shorten,
    source_files,
    star_rating,
    star_review,
)
from synth.records import Item, Review

AUTHOR_FILE = "goodreads_book_authors.json"
GENRES_KEPT = 3
AUTHORS_SHOWN = 3
# words of shelf names that say how a reader holds a book, not what it is
_SHELF_WORDS = frozenset({
    "to", "read", "reads", "reading", "re", "currently", "owned", "own", "i", "my", "favorites", "favourites",
    "favorite", "favourite", "faves", "default", "library", "kindle", "ebook", "ebooks", "audiobook", "audiobooks",
    "audio", "wishlist", "wish", "tbr", "dnf", "buy", "bought", "borrowed", "shelf", "not", "finished", "abandoned",
})
_YEAR = re.compile(r"^\d{4}$")


@dataclass(frozen=True)
class _Book:
    """A book's item, less the author names, which are read after the books."""

    item: Item
    author_ids: tuple[str, ...]
    description: str  # the start of the book's own description

    def described(self, names: Mapping[str, str]) -> Item:
        authors = [names[a] for a in self.author_ids if a in names][:AUTHORS_SHOWN]
        by = "By " + ", ".join(authors) if authors else ""
        description = describe([by, ", ".join(self.item.genres), self.description])
        return self.item.model_copy(update={"description": description})


def goodreads_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """The review files and the book files in `folder`, `.gz` too."""
    reviews = source_files(folder, ["goodreads_reviews_*.json"], "review")
    return reviews, source_files(folder, ["goodreads_books.json", "goodreads_books_*.json"], "book")


def load_goodreads(reviews: Sequence[Path], items: Sequence[Path], *, bad_lines: BadLines,
                   max_reviews: int | None = None) -> ReviewSource:
    """The rated reviews of the review files (the first `max_reviews` of them) and the books they name, with
    their authors' names where `goodreads_book_authors.json` lies beside the book files."""
    counts: Counter[str] = Counter()
    streamed = (review for path in reviews for review in read_goodreads_reviews(path, bad_lines, counts))
    return join_reviews(streamed, lambda wanted: _books_of(items, wanted, bad_lines), max_reviews, counts)


def read_goodreads_reviews(path: Path, bad_lines: BadLines, counts: Counter[str] | None = None) -> Iterator[Review]:
    """The rated reviews of one review file, streamed; the unrated ones (rating 0) are counted in `counts`."""
    counts = Counter() if counts is None else counts

    def review(raw: dict[str, Any], where: Path, line: int) -> Review | None:
        user, item = required_id(raw, "user_id", where, line), required_id(raw, "book_id", where, line)
        if raw.get("rating") in (0, "0"):
            counts["reviews_unrated"] += 1
            return None
        return star_review(user, item, star_rating(raw, "rating", where, line), _review_text(raw))

    return parsed_lines(path, review, bad_lines)


def read_goodreads_books(path: Path, bad_lines: BadLines, wanted: Collection[str] | None = None) -> Iterator[Item]:
    """The books of one book file as items (no author names: those are in another file), streamed; with
    `wanted`, only those ids."""
    return (book.described({}) for book in _read_books(path, bad_lines, wanted))


def _read_books(path: Path, bad_lines: BadLines, wanted: Collection[str] | None) -> Iterator[_Book]:
    return parsed_lines(path, lambda raw, where, line: _book(raw, where, line, wanted), bad_lines)


def _books_of(paths: Sequence[Path], wanted: Collection[str], bad_lines: BadLines) -> list[Item]:
    books = [book for path in paths for book in _read_books(path, bad_lines, wanted)]
    names = _author_names(paths, {author for book in books for author in book.author_ids}, bad_lines)
    return [book.described(names) for book in books]


def _author_names(book_files: Sequence[Path], wanted: set[str], bad_lines: BadLines) -> dict[str, str]:
    """The names of the `wanted` authors, from the author file beside the book files (none there: {})."""

    def author(raw: dict[str, Any], where: Path, line: int) -> tuple[str, str] | None:
        author_id = required_id(raw, "author_id", where, line)
        return (author_id, clean_text(str(required(raw, "name", where, line)))) if author_id in wanted else None

    names: dict[str, str] = {}
    for folder in sorted({path.parent for path in book_files}) if wanted else []:
        found = [p for p in (folder / AUTHOR_FILE, folder / f"{AUTHOR_FILE}.gz") if p.exists()]
        if found:
            names.update(parsed_lines(found[0], author, bad_lines))
    return names


def _review_text(raw: dict[str, Any]) -> str:
    if isinstance(raw.get("review_text"), str):
        return optional_text(raw, "review_text")
    sentences = raw.get("review_sentences")  # the _spoiler file: [[is_spoiler, sentence], ...]
    if isinstance(sentences, list):
        texts = [s[1] for s in sentences if isinstance(s, list) and len(s) == 2 and isinstance(s[1], str)]
        return clean_text(" ".join(texts))
    return ""


def _book(raw: dict[str, Any], path: Path, line: int, wanted: Collection[str] | None) -> _Book | None:
    book_id = required_id(raw, "book_id", path, line)
    if wanted is not None and book_id not in wanted:
        return None
    title = clean_text(str(required(raw, "title", path, line)))
    year = str(raw.get("publication_year") or "").strip()
    genres = shelf_genres(raw.get("popular_shelves"))
    item = Item(id=book_id, title=title, year=int(year) if year.isdigit() else None, genres=genres)
    return _Book(item, _author_ids(raw.get("authors")), shorten(optional_text(raw, "description")))


def _author_ids(authors: Any) -> tuple[str, ...]:
    """The ids of the authors whose role is empty (the writers), else of all of them."""
    listed = [a for a in authors if isinstance(a, dict) and a.get("author_id")] if isinstance(authors, list) else []
    writers = [a for a in listed if not str(a.get("role") or "").strip()] or listed
    return tuple(str(a["author_id"]) for a in writers)


def shelf_genres(shelves: Any, keep: int = GENRES_KEPT) -> list[str]:
    """The `keep` most used shelves that name a genre, in words: [{"count": "1762", "name": "young-adult"}, ...]
    -> ["Young Adult", ...]; shelves about owning, reading or liking a book, or naming a year, are passed over."""
    counted = []
    for shelf in shelves if isinstance(shelves, list) else []:
        name = str(shelf.get("name") or "").strip().lower() if isinstance(shelf, dict) else ""
        words = [word for word in name.split("-") if word]
        if not words or _SHELF_WORDS.intersection(words) or any(_YEAR.match(word) for word in words):
            continue
        try:
            count = int(shelf.get("count") or 0)
        except (TypeError, ValueError):
            count = 0
        counted.append((count, _shelf_words(words)))
    genres: list[str] = []
    for _, genre in sorted(counted, key=lambda pair: -pair[0]):  # stable: file order among equal counts
        if genre not in genres:
            genres.append(genre)
    return genres[:keep]


def _shelf_words(words: list[str]) -> str:
    """["children", "s", "books"] -> "Children's Books"."""
    joined: list[str] = []
    for word in words:
        if word == "s" and joined:
            joined[-1] += "'s"
        else:
            joined.append(word.capitalize())
    return " ".join(joined)
