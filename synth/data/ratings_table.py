"""Every (user, item, rating) of a source as compact arrays, sorted by user then item.

MovieLens' ratings.csv (ml-latest-small to ml-32m) and any ratings file (.csv, .jsonl, .parquet with user,
item, rating and optional "|"-separated tags) are streamed in chunks (`synth.data.ratings_files`) into int32
codes and float32 ratings (`synth.data.ratings_builder`): no Python object per row, only per distinct id and
distinct tag text. When a (user, item) pair is rated more than once, the last rating in the file is kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pyarrow as pa

from synth.data.bad_lines import BadLines
from synth.data.movielens import open_movielens_file
from synth.data.ratings_builder import Rows, RowsBuilder, TagSets, clean_tags, find_rows, known_codes
from synth.data.ratings_files import Reading, csv_chunks, file_chunks
from synth.data.review_table import Scale, check_scale, default_scale
from synth.errors import InputError
from synth.records import Review

MOVIELENS_SCALE: Scale = (0.5, 5.0)
_MOVIELENS_RATINGS = {"user": "userId", "item": "movieId", "rating": "rating"}
_MOVIELENS_TAGS = {"user": "userId", "item": "movieId", "tag": "tag"}
_COLUMNS = {"user": "user", "item": "item", "rating": "rating"}
_OPTIONAL = {"tags": "tags"}


@dataclass(frozen=True, eq=False)
class RatingsTable:
    """Every (user, item, rating) row of a source, compact; rows sorted by user code, then item code.
    User and item codes follow their ids' order (numeric ids by value, before any other ids)."""

    user_ids: np.ndarray  # dtype object (str): user code -> the source's user id
    item_ids: np.ndarray  # dtype object (str): item code -> the item id, as the catalog spells it
    user: np.ndarray  # int32 user code per row
    item: np.ndarray  # int32 item code per row
    rating: np.ndarray  # float32, as the source gives it
    score: np.ndarray  # float32, (rating - low) / (high - low)
    offsets: np.ndarray  # int64, len(user_ids) + 1: rows of user code u are offsets[u]:offsets[u+1]
    scale: Scale
    texts: list[str] | None = None  # per-row review text for review sources; None when rating-only
    tags: dict[int, tuple[str, ...]] = field(default_factory=dict)  # row -> the user's own tags of that item

    def __len__(self) -> int:
        return len(self.user)

    def rows_of(self, user_code: int) -> range:
        """The rows of this user's ratings."""
        return range(int(self.offsets[user_code]), int(self.offsets[user_code + 1]))

    def find(self, user_code: int, item_id: str) -> int | None:
        """The row of this user's rating of `item_id`, or None if the user did not rate it."""
        code = self._item_codes.get(item_id)
        if code is None:
            return None
        start, end = int(self.offsets[user_code]), int(self.offsets[user_code + 1])
        row = start + int(np.searchsorted(self.item[start:end], code))
        return row if row < end and self.item[row] == code else None

    def user_code(self, user_id: str) -> int | None:
        """The code of this user id, or None when the source has no such user."""
        return self._user_codes.get(user_id)

    @cached_property
    def _user_codes(self) -> dict[str, int]:
        return {user_id: code for code, user_id in enumerate(self.user_ids)}

    @cached_property
    def _item_codes(self) -> dict[str, int]:
        return {item_id: code for code, item_id in enumerate(self.item_ids)}

    @classmethod
    def from_reviews(cls, reviews: list[Review], scale: Scale = (0.0, 1.0)) -> RatingsTable:
        """The reviews as a table with their texts and tags; a review's own 0-1 score is kept, else computed on
        `scale`. A (user, item) pair reviewed twice keeps its last review."""
        builder = RowsBuilder()
        builder.add(pa.table({
            "user": pa.array([review.user for review in reviews], pa.string()),
            "item": pa.array([review.item for review in reviews], pa.string()),
            "rating": pa.array([review.rating for review in reviews], pa.float64()),
        }))
        rows = builder.finish("reviews")
        low, high = scale
        scores = [(review.rating - low) / (high - low) if review.score is None else review.score for review in reviews]
        source = rows.source if rows.source is not None else np.arange(len(rows.user))
        return cls(
            rows.user_ids, rows.item_ids, rows.user, rows.item, rows.rating,
            np.asarray(scores, dtype=np.float32)[source], rows.offsets, scale,
            texts=[reviews[index].text for index in source.tolist()],
            tags={row: tags for row, index in enumerate(source.tolist()) if (tags := clean_tags(reviews[index].tags))},
        )


def read_movielens_ratings(path: Path, *, bad_lines: BadLines | None = None, chunk_rows: int = 1_000_000) -> RatingsTable:
    """ratings.csv of a MovieLens zip or folder (scale 0.5-5), streamed; then tags.csv, streamed too, as the users'
    own tags of the movies they rated (tags of movies they did not rate are dropped)."""
    bad_lines = bad_lines or BadLines()
    builder = RowsBuilder()
    with open_movielens_file(path, "ratings.csv") as (label, stream):
        for chunk in csv_chunks(Reading(label, _MOVIELENS_RATINGS, MOVIELENS_SCALE, bad_lines, chunk_rows), stream, {}):
            builder.add(chunk)
    if not builder.rows:
        raise InputError(label, f"no usable rows ({bad_lines.skipped} bad lines skipped)")
    rows = builder.finish(label)
    with open_movielens_file(path, "tags.csv") as (label, stream):
        reading = Reading(label, _MOVIELENS_TAGS, None, bad_lines, chunk_rows)
        tags = _tags_of_rated(rows, csv_chunks(reading, stream, {}))
    return _table(rows, MOVIELENS_SCALE, tags)


def read_ratings_file(
    path: Path, *, scale: Scale | None = None, bad_lines: BadLines | None = None, chunk_rows: int = 1_000_000
) -> RatingsTable:
    """A .csv, .jsonl or .parquet ratings table (user, item, rating; optional tags, "|"-separated), streamed.
    Ids are kept as text. The scale is `scale`, else 1-10 when every rating fits it, else an InputError asking
    for --rating-scale. Bad lines stop the read, or are counted in `bad_lines` when it skips them."""
    path = Path(path)
    bad_lines = bad_lines or BadLines()
    if scale is not None:
        check_scale(scale)
    builder = RowsBuilder(tag_separator="|")
    for chunk in file_chunks(path, _COLUMNS, _OPTIONAL, scale=scale, bad_lines=bad_lines, chunk_rows=chunk_rows):
        builder.add(chunk)
    if not builder.rows:
        raise InputError(path, f"no usable rows ({bad_lines.skipped} bad lines skipped)")
    scale = scale or default_scale(path, [builder.low, builder.high], "rating")
    rows = builder.finish(str(path))
    return _table(rows, scale, builder.tags.placed(rows.source))


def _table(rows: Rows, scale: Scale, tags: dict[int, tuple[str, ...]]) -> RatingsTable:
    low, high = scale
    score = rows.rating - np.float32(low)
    score /= np.float32(high - low)
    return RatingsTable(
        rows.user_ids, rows.item_ids, rows.user, rows.item, rows.rating, score, rows.offsets, scale, tags=tags
    )


def _tags_of_rated(rows: Rows, chunks: Iterable[pa.Table]) -> dict[int, tuple[str, ...]]:
    """row -> the tags its user gave its item, for the tags of (user, item) pairs the rows hold."""
    user_codes = {user_id: code for code, user_id in enumerate(rows.user_ids)}
    item_codes = {item_id: code for code, item_id in enumerate(rows.item_ids)}
    tags = TagSets(None)
    for chunk in chunks:
        users, items = known_codes(chunk["user"], user_codes), known_codes(chunk["item"], item_codes)
        tags.add(find_rows(rows.offsets, rows.item, users, items), chunk["tag"])
    return tags.by_row()
