"""Rotten Tomatoes top-critic pull-quotes (Harvard CS109, 2013) joined to MovieLens through IMDb ids."""

from __future__ import annotations

import csv
import gzip
import html
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from synth.data.bad_lines import BadLines
from synth.data.movielens import MovieLens, normalise_imdb_id
from synth.errors import InputError
from synth.records import Review

COLUMNS = ("critic", "fresh", "imdb", "quote")
FRESHNESS = {"fresh": 1.0, "rotten": 0.0}  # the file also holds 'none': no verdict
_DROP_REASONS = ("no_quote", "no_critic", "unusable_freshness", "bad_imdb", "not_in_movielens", "duplicates")


@dataclass(frozen=True)
class RTCounts:
    """What happened to the rows. A dropped row counts once, under the first reason in this order:
    no quote, no critic, unusable freshness, bad IMDb id (only with skipped bad lines), not in MovieLens, duplicate
    (critic, movie) pair (the first is kept)."""

    rows: int
    no_quote: int
    no_critic: int
    unusable_freshness: int
    bad_imdb: int
    not_in_movielens: int
    duplicates: int
    kept: int
    critics: int
    movies: int


@dataclass(frozen=True)
class RTCritics:
    """One review per (critic, MovieLens movie): rating and score 1.0 for fresh, 0.0 for rotten; text = the quote."""

    reviews: list[Review]
    counts: RTCounts


def load_rt_critics(path: Path, movielens: MovieLens, *, bad_lines: BadLines | None = None) -> RTCritics:
    """Read critics.csv(.gz) and keep the quoted fresh/rotten reviews of movies that `movielens` knows."""
    path = Path(path)
    bad_lines = bad_lines or BadLines()
    rows = _read_rows(path)
    drops: Counter[str] = Counter()
    reviews: dict[tuple[str, str], Review] = {}
    for line, row in rows:
        outcome = _review(path, line, row, movielens, bad_lines)
        if isinstance(outcome, str):
            drops[outcome] += 1
        elif (outcome.user, outcome.item) in reviews:
            drops["duplicates"] += 1
        else:
            reviews[outcome.user, outcome.item] = outcome
    kept = list(reviews.values())
    counts = RTCounts(
        rows=len(rows),
        **{reason: drops[reason] for reason in _DROP_REASONS},
        kept=len(kept),
        critics=len({review.user for review in kept}),
        movies=len({review.item for review in kept}),
    )
    return RTCritics(reviews=kept, counts=counts)


def _read_rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    """(line number, row) for every row; the header must hold COLUMNS."""
    try:
        with _open(path) as handle:
            reader = csv.DictReader(handle)
            missing = [column for column in COLUMNS if column not in (reader.fieldnames or [])]
            if missing:
                found = ", ".join(reader.fieldnames or []) or "none"
                raise InputError(path, f"missing column '{missing[0]}' (columns found: {found})", field=missing[0])
            return [(reader.line_num, row) for row in reader]
    except (OSError, EOFError) as exc:
        raise InputError(path, f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None


def _open(path: Path) -> TextIO:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return path.open(encoding="utf-8", newline="")


def _review(path: Path, line: int, row: dict[str, str], movielens: MovieLens, bad_lines: BadLines) -> Review | str:
    """The row as a Review, or the reason it was dropped."""
    quote = html.unescape(row["quote"] or "").strip()  # a few quotes hold entities like '&#8212;'
    critic = (row["critic"] or "").strip()
    freshness = FRESHNESS.get((row["fresh"] or "").strip().lower())
    if not quote:
        return "no_quote"
    if not critic:
        return "no_critic"
    if freshness is None:
        return "unusable_freshness"
    imdb_id = normalise_imdb_id(row["imdb"] or "")
    if imdb_id is None:
        bad_lines.report(InputError(path, f"IMDb id {row['imdb']!r} is not a number", line=line, field="imdb"))
        return "bad_imdb"
    movie = movielens.find_imdb(imdb_id)
    if movie is None:
        return "not_in_movielens"
    return Review(user=critic, item=movie.id, rating=freshness, text=quote, score=freshness)
