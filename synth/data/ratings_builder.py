"""Collect checked chunks of ratings into compact arrays: int32 user and item codes, float32 ratings, sorted.

Ids get codes as they first appear and are renumbered at the end in id order (numeric ids by value, then the
others as text), so the result does not depend on how the file was cut into chunks. Only distinct ids and
distinct tag texts become Python objects, never the rows. A (user, item) pair rated more than once keeps its
last rating (the rows' order is stable).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rows:
    """Sorted rows and their ids; `source` is each row's index in the order rows were added (None when that is
    the row's own index: the rows came sorted and without duplicates)."""

    user_ids: np.ndarray
    item_ids: np.ndarray
    user: np.ndarray
    item: np.ndarray
    rating: np.ndarray
    offsets: np.ndarray
    source: np.ndarray | None


class RowsBuilder:
    """Chunks with columns user, item (text), rating (number) and optional tags (text split on `tag_separator`)."""

    def __init__(self, tag_separator: str | None = None) -> None:
        self.user_codes: dict[str, int] = {}
        self.item_codes: dict[str, int] = {}
        self.user, self.item, self.rating = _Column(np.int32), _Column(np.int32), _Column(np.float32)
        self.tags = TagSets(tag_separator)  # by the index of the row as added
        self.rows = 0
        self.low, self.high = np.inf, -np.inf

    def add(self, chunk: pa.Table) -> None:
        self.user.append(_codes(chunk["user"], self.user_codes))
        self.item.append(_codes(chunk["item"], self.item_codes))
        rating = chunk["rating"].to_numpy()
        self.rating.append(rating)
        if len(rating):
            self.low, self.high = min(self.low, float(rating.min())), max(self.high, float(rating.max()))
        if "tags" in chunk.column_names:
            self.tags.add(np.arange(self.rows, self.rows + chunk.num_rows), chunk["tags"])
        self.rows += chunk.num_rows

    def finish(self, label: str = "") -> Rows:
        """The rows sorted by user code then item code, keeping the last rating of a pair rated twice."""
        user_ids, user_rank = _ordered(self.user_codes)
        item_ids, item_rank = _ordered(self.item_codes)
        user, item = _renumbered(self.user.take(), user_rank), _renumbered(self.item.take(), item_rank)
        rating = self.rating.take()
        source = None
        if not _is_sorted(user, item):
            source = np.lexsort((item, user))  # stable: duplicates stay in the order they were added
            user, item, rating = user[source], item[source], rating[source]
        duplicate = (user[1:] == user[:-1]) & (item[1:] == item[:-1])
        if duplicate.any():
            log.info("%s: %d (user, item) pairs rated more than once; kept the last rating", label, duplicate.sum())
            keep = np.append(~duplicate, True)
            user, item, rating = user[keep], item[keep], rating[keep]
            source = (source if source is not None else np.arange(len(keep), dtype=np.int64))[keep]
        offsets = np.zeros(len(user_ids) + 1, dtype=np.int64)
        np.cumsum(np.bincount(user, minlength=len(user_ids)), out=offsets[1:])
        return Rows(user_ids, item_ids, user, item, rating, offsets, source)


def clean_tags(tags: Iterable[str | None]) -> tuple[str, ...]:
    """Tags stripped and lower-cased, empty ones dropped, each once, in order."""
    return tuple(dict.fromkeys(clean for tag in tags if tag and (clean := tag.strip().lower())))


class TagSets:
    """(row, tag text) pairs; each distinct text is cleaned once and each distinct tag tuple kept once."""

    def __init__(self, separator: str | None) -> None:
        self.separator = separator
        self.codes: dict[str, int] = {}  # text -> code; self.sets[code] holds its tags
        self.sets: list[tuple[str, ...]] = []
        self.rows = _Column(np.int64)
        self.texts = _Column(np.int32)

    def add(self, rows: np.ndarray, texts: pa.ChunkedArray) -> None:
        """The tags in `texts` for these rows (a row < 0 is skipped)."""
        codes = _codes(texts.fill_null(""), self.codes)
        for text in list(self.codes)[len(self.sets):]:
            self.sets.append(clean_tags(text.split(self.separator) if self.separator else [text]))
        tagged = np.fromiter((bool(tags) for tags in self.sets), dtype=bool, count=len(self.sets))
        keep = (rows >= 0) & tagged[codes]
        self.rows.append(rows[keep])
        self.texts.append(codes[keep])

    def by_row(self) -> dict[int, tuple[str, ...]]:
        """row -> its tags; the tags of a row's several texts are joined in order."""
        rows, codes = self.rows.take(), self.texts.take()
        order = np.argsort(rows, kind="stable")
        rows, codes = rows[order], codes[order]
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]]) if len(rows) else np.zeros(0, dtype=np.int64)
        ends, codes_of = np.append(starts, len(rows))[1:].tolist(), codes.tolist()
        shared: dict[tuple[str, ...], tuple[str, ...]] = {}
        tagged = {}
        for row, start, end in zip(rows[starts].tolist(), starts.tolist(), ends, strict=True):
            if end - start == 1:
                tagged[row] = self.sets[codes_of[start]]
            else:
                tags = clean_tags(tag for code in codes_of[start:end] for tag in self.sets[code])
                tagged[row] = shared.setdefault(tags, tags)
        return tagged

    def placed(self, source: np.ndarray | None) -> dict[int, tuple[str, ...]]:
        """row -> tags, for tags added by the index rows were added in; `source` as in `Rows`."""
        by_added = self.by_row()
        if source is None or not by_added:
            return by_added
        rows = np.flatnonzero(np.isin(source, np.fromiter(by_added, dtype=np.int64, count=len(by_added))))
        return {row: by_added[added] for row, added in zip(rows.tolist(), source[rows].tolist(), strict=True)}


def known_codes(column: pa.ChunkedArray, codes: dict[str, int]) -> np.ndarray:
    """int64 codes of a column of ids, -1 for ids not in `codes`."""
    encoded = column.combine_chunks().dictionary_encode()
    lookup = np.fromiter((codes.get(value, -1) for value in encoded.dictionary.to_pylist()), dtype=np.int64)
    return lookup[encoded.indices.to_numpy(zero_copy_only=False)]


def find_rows(offsets: np.ndarray, item: np.ndarray, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    """The row of each (user code, item code) pair by binary search in the user's rows; -1 where there is none."""
    if not len(item):
        return np.full(len(users), -1, dtype=np.int64)
    known = (users >= 0) & (items >= 0)
    safe_users = np.where(known, users, 0)
    end = offsets[safe_users + 1]
    low, high = np.where(known, offsets[safe_users], end), end.copy()
    last = len(item) - 1
    while (active := low < high).any():
        middle = (low + high) // 2
        below = active & (item[np.minimum(middle, last)] < items)
        low = np.where(below, middle + 1, low)
        high = np.where(active & ~below, middle, high)
    found = (low < end) & (item[np.minimum(low, last)] == items)
    return np.where(found, low, -1)


class _Column:
    """A column filled chunk by chunk into large slabs allocated up front (memory not yet written costs nothing),
    so that no scattered parts are left behind when it is joined."""

    def __init__(self, dtype: type[np.generic], slab: int = 1 << 24) -> None:
        self.dtype, self.slab = dtype, slab
        self.slabs: list[np.ndarray] = []
        self.filled = 0  # of the last slab

    def append(self, values: np.ndarray) -> None:
        values = values.astype(self.dtype, copy=False)
        while len(values):
            if not self.slabs or self.filled == self.slab:
                self.slabs.append(np.empty(self.slab, dtype=self.dtype))
                self.filled = 0
            count = min(len(values), self.slab - self.filled)
            self.slabs[-1][self.filled:self.filled + count] = values[:count]
            self.filled += count
            values = values[count:]

    def take(self) -> np.ndarray:
        """The values in one array; the column is empty afterwards (so its slabs are freed)."""
        parts = [*self.slabs[:-1], self.slabs[-1][:self.filled]] if self.slabs else []
        joined = np.concatenate(parts) if parts else np.zeros(0, dtype=self.dtype)
        self.slabs, self.filled = [], 0
        return joined


def _codes(column: pa.ChunkedArray, codes: dict[str, int]) -> np.ndarray:
    """int32 codes of a column of texts; texts not seen before get the next codes."""
    encoded = column.combine_chunks().dictionary_encode()
    lookup = np.fromiter(
        (codes.setdefault(value, len(codes)) for value in encoded.dictionary.to_pylist()),
        dtype=np.int32, count=len(encoded.dictionary),
    )
    return lookup[encoded.indices.to_numpy(zero_copy_only=False)]


def _ordered(codes: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """The ids in order (numeric ids by value first, then the others as text), and each old code's new code."""
    ids = list(codes)
    order = sorted(range(len(ids)), key=lambda code: _id_key(ids[code]))
    rank = np.empty(len(ids), dtype=np.int32)
    rank[order] = np.arange(len(ids), dtype=np.int32)
    return np.array([ids[code] for code in order], dtype=object), rank


def _id_key(value: str) -> tuple[int, int, str]:
    return (0, int(value), value) if value.isascii() and value.isdigit() else (1, 0, value)


def _renumbered(codes: np.ndarray, rank: np.ndarray, block: int = 1 << 20) -> np.ndarray:
    """`codes` replaced by rank[codes], in place, a block at a time."""
    for start in range(0, len(codes), block):
        codes[start:start + block] = rank[codes[start:start + block]]
    return codes


def _is_sorted(user: np.ndarray, item: np.ndarray) -> bool:
    """Whether rows are already in (user, item) order (MovieLens files are)."""
    same_user = user[1:] == user[:-1]
    return bool(np.all((user[1:] > user[:-1]) | (same_user & (item[1:] >= item[:-1]))))
