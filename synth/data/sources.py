"""Turn the configured source into what the games need: a catalog, reviews (pearl), ratings (gorecdial)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from synth.data.bad_lines import BadLines
from synth.data.demo import demo_path
from synth.data.fetch import locate
from synth.data.formats.amazon import amazon_files, load_amazon
from synth.data.formats.common import ReviewSource
from synth.data.formats.goodreads import goodreads_files, load_goodreads
from synth.data.formats.yelp import load_yelp, yelp_files
from synth.data.movielens import MovieLens, load_movielens
from synth.data.paths import data_dir
from synth.data.ratings_table import RatingsTable, read_movielens_ratings, read_ratings_file
from synth.data.review_table import load_review_table, parse_scale
from synth.data.rt_critics import load_rt_critics
from synth.data.tables import load_catalog
from synth.domain import Domain, load_domain
from synth.errors import InputError, SynthError
from synth.records import Item, Review

if TYPE_CHECKING:
    import pandas as pd

MOVIELENS_DEFAULT = Path("movielens-latest-small/ml-latest-small.zip")
RT_DEFAULT = Path("reviews-rt-critics-cs109/critics.csv.gz")
TAGS_PER_MOVIE = 5
FormatFiles = Callable[[Path], tuple[list[Path], list[Path]]]  # a folder -> its review files and item files
FormatLoader = Callable[..., ReviewSource]  # (review files, item files, *, bad_lines, max_reviews)
REVIEW_FORMAT_READERS: dict[str, tuple[FormatFiles, FormatLoader]] = {
    "amazon": (amazon_files, load_amazon),
    "yelp": (yelp_files, load_yelp),
    "goodreads": (goodreads_files, load_goodreads),
}


@dataclass
class SourceData:
    catalog: dict[str, Item]
    reviews: list[Review] = field(default_factory=list)
    ratings: pd.DataFrame | None = None  # GoRecDial's movie sets
    counts: dict[str, int] = field(default_factory=dict)
    ratings_table: RatingsTable | None = None  # PEARL personas from ratings (MovieLens, --ratings)


def movie_knowledge(movies: dict[str, Item], tags: pd.DataFrame, reviews: list[Review]) -> dict[str, Item]:
    """Movies with a description built from their genres, most used tags and one critic quote."""
    top_tags = (
        tags.assign(tag=tags["tag"].astype(str).str.strip().str.lower())
        .groupby(["item", "tag"]).size().reset_index(name="n")
        .sort_values(["item", "n", "tag"], ascending=[True, False, True])
        .groupby("item")["tag"].apply(lambda s: list(s)[:TAGS_PER_MOVIE]).to_dict()
    )
    quotes: dict[str, list[Review]] = defaultdict(list)
    for review in reviews:
        quotes[review.item].append(review)
    described = {}
    for item_id, item in movies.items():
        parts = [", ".join(item.genres) + "." if item.genres else ""]
        if top_tags.get(item_id):
            parts.append("Tags: " + ", ".join(top_tags[item_id]) + ".")
        if quotes.get(item_id):
            best = max(quotes[item_id], key=lambda r: (r.rating, -len(r.text)))
            parts.append(f'A critic: "{best.text}"')
        described[item_id] = item.model_copy(update={"description": " ".join(p for p in parts if p)})
    return described


def _movielens_path(path: Path | None) -> Path:
    return path or locate("movielens-small", "ml-latest-small.zip", MOVIELENS_DEFAULT, "--movielens")


def _rt_path(path: Path | None) -> Path:
    return path or locate("rt-critics", "critics.csv", RT_DEFAULT, "--rt-critics")


def _movielens(path: Path | None) -> MovieLens:
    return load_movielens(_movielens_path(path))


def load_movielens_rt(movielens_path: Path | None, rt_path: Path | None, bad_lines: BadLines) -> SourceData:
    """Personas from Rotten Tomatoes critics; the catalog is the MovieLens movies they reviewed."""
    movielens = _movielens(movielens_path)
    rt = load_rt_critics(_rt_path(rt_path), movielens, bad_lines=bad_lines)
    reviewed = {r.item for r in rt.reviews}
    movies = movie_knowledge({i: movielens.movies[i] for i in sorted(reviewed)}, movielens.tags, rt.reviews)
    return SourceData(movies, rt.reviews, movielens.ratings, {"rt_reviews": rt.counts.kept, "rt_critics": rt.counts.critics})


def movielens_catalog(movielens_path: Path | None = None, rt_path: Path | None = None) -> dict[str, Item]:
    """Every MovieLens movie, described by genres, tags and a Rotten Tomatoes critic quote where one exists
    (the reference item space of the benchmarks)."""
    movielens = _movielens(movielens_path)
    rt = load_rt_critics(_rt_path(rt_path), movielens, bad_lines=BadLines(skip=True))
    return movie_knowledge(movielens.movies, movielens.tags, rt.reviews)


def load_movielens_only(movielens_path: Path | None) -> SourceData:
    """MovieLens movies (described by genres and tags) with their ratings, for GoRecDial sets."""
    movielens = _movielens(movielens_path)
    movies = movie_knowledge(movielens.movies, movielens.tags, [])
    return SourceData(movies, [], movielens.ratings, {"movies": len(movies), "ratings": len(movielens.ratings)})


def load_movielens_personas(movielens_path: Path | None, bad_lines: BadLines) -> SourceData:
    """MovieLens users as seekers (PEARL): their ratings and tags, streamed; movies described by genres and tags."""
    path = _movielens_path(movielens_path)
    movielens = load_movielens(path, ratings=False)
    table = read_movielens_ratings(path, bad_lines=bad_lines)
    movies = movie_knowledge(movielens.movies, movielens.tags, [])
    _require_known_items(table, movies, path)
    return SourceData(movies, counts={"movies": len(movies), "ratings": len(table)}, ratings_table=table)


def load_rating_files(catalog_path: Path, ratings_path: Path, rating_scale: str | None, bad_lines: BadLines) -> SourceData:
    """A user's own catalog and ratings table (user, item, rating, optional tags)."""
    catalog = load_catalog(catalog_path)
    table = read_ratings_file(ratings_path, scale=_scale(rating_scale), bad_lines=bad_lines)
    _require_known_items(table, catalog, ratings_path)
    return SourceData(catalog, counts={"ratings": len(table)}, ratings_table=table)


def _require_known_items(table: RatingsTable, catalog: dict[str, Item], path: Path) -> None:
    unknown = sorted(set(table.item_ids) - set(catalog))
    if unknown:
        raise InputError(path, f"{len(unknown)} item ids are not in the catalog, e.g. '{unknown[0]}'", field="item")


def _scale(rating_scale: str | None) -> tuple[float, float] | None:
    if rating_scale is None:
        return None
    scale = parse_scale(rating_scale)
    if scale is None:
        raise SynthError(f"--rating-scale {rating_scale!r}: expected LOW-HIGH, e.g. 1-10 or 0.5-5")
    return scale


def load_files(catalog_path: Path, reviews_path: Path, rating_scale: str | None, bad_lines: BadLines) -> SourceData:
    """A user's own catalog and review table; every review must name a catalog item."""
    catalog = load_catalog(catalog_path)
    reviews = load_review_table(reviews_path, scale=_scale(rating_scale), bad_lines=bad_lines)
    unknown = sorted({r.item for r in reviews} - set(catalog))
    if unknown:
        raise InputError(reviews_path, f"{len(unknown)} item ids are not in {catalog_path}, e.g. '{unknown[0]}'", field="item")
    return SourceData(catalog, reviews)


# Each domain's bundled demo: its catalog and reviews (ratings 1-10), written for synth.
DEMOS = {"movies": ("catalog.jsonl", "reviews.jsonl"), "books": ("books_catalog.jsonl", "books_reviews.jsonl")}


def load_demo(domain: Domain | None = None) -> SourceData:
    """The bundled demo catalog and reviews of a domain (movies by default; ratings 1-10). A domain without a
    demo is a SynthError naming the sources that fit it."""
    domain = domain or load_domain()
    if domain.name not in DEMOS:
        raise SynthError(
            f"the {domain.name} domain has no demo catalog: give a source that fits it ({domain.sources}), "
            f"or play a domain with a demo ({', '.join(DEMOS)})"
        )
    catalog, reviews = DEMOS[domain.name]
    return load_files(demo_path(catalog), demo_path(reviews), "1-10", BadLines())


def load_review_format(name: str, folder: Path, bad_lines: BadLines, max_reviews: int | None = None) -> SourceData:
    """A folder in a public review format (amazon, yelp, goodreads; see synth.data.formats), or the name of a
    dataset `synth data fetch` got: its reviews, the items they name, and the same ratings for GoRecDial sets."""
    files, load = REVIEW_FORMAT_READERS[name]
    if not folder.is_dir():
        if not (data_dir() / folder).is_dir():
            raise InputError(folder, f"not a folder, nor a dataset `synth data fetch` got (in {data_dir()})")
        folder = data_dir() / folder
    reviews, items = files(folder)
    return _review_data(load(reviews, items, bad_lines=bad_lines, max_reviews=max_reviews), folder)


def load_review_format_files(
    name: str, catalog_path: Path, reviews_path: Path, bad_lines: BadLines, max_reviews: int | None = None
) -> SourceData:
    """A catalog file and a review file in a public review format (--format), as `load_review_format` reads them."""
    _, load = REVIEW_FORMAT_READERS[name]
    source = load([reviews_path], [catalog_path], bad_lines=bad_lines, max_reviews=max_reviews)
    return _review_data(source, reviews_path)


def _review_data(source: ReviewSource, where: Path) -> SourceData:
    """The reviews, their items, and the (user, item, rating) table GoRecDial's sets are drawn from (a pair
    reviewed twice keeps its last rating, as in a ratings table)."""
    import pandas as pd  # here, not at the top: the CLI starts without pandas

    if not source.reviews:
        unknown = source.counts.get("reviews_unknown_item", 0)
        raise InputError(where, f"no usable review ({unknown} reviews name items the item files lack)")
    ratings = pd.DataFrame({
        "user": [review.user for review in source.reviews],
        "item": [review.item for review in source.reviews],
        "rating": [review.rating for review in source.reviews],
    }).drop_duplicates(["user", "item"], keep="last", ignore_index=True)
    return SourceData(source.catalog, source.reviews, ratings, source.counts)
