"""MovieLens (ml-latest-small, ml-25m, ...) from the GroupLens zip or its extracted folder."""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from synth.errors import InputError
from synth.records import Item

if TYPE_CHECKING:  # pandas is imported where a table is read: the CLI starts without it
    import pandas as pd

# The columns each file must have; other files in the folder (README, genome-*.csv) are ignored.
COLUMNS: dict[str, tuple[str, ...]] = {
    "movies.csv": ("movieId", "title", "genres"),
    "links.csv": ("movieId", "imdbId", "tmdbId"),
    "ratings.csv": ("userId", "movieId", "rating", "timestamp"),
    "tags.csv": ("userId", "movieId", "tag", "timestamp"),
}
_TEXT_COLUMNS = {name: str for name in ("movieId", "userId", "title", "genres", "imdbId", "tmdbId", "tag")}
_NO_GENRES = "(no genres listed)"
_YEAR = re.compile(r"\s*\((\d{4})(?:[-–]\d{4})?\)$")  # "(1995)", or a series' "(2006–2007)"
_ARTICLE = re.compile(r"^([^(]+?), (The|A|An)(?=$|:| \()")  # "American President, The" + end, ":" or " (aka)"

_RATING_TYPES = {"user": str, "item": str, "rating": "float64", "timestamp": "int64"}


@dataclass(frozen=True, eq=False)
class MovieLens:
    """Movies by MovieLens id (str), and the ratings and tags tables with str `user` and `item` ids."""

    movies: dict[str, Item]
    ratings: pd.DataFrame  # user, item, rating (0.5-5 stars), timestamp (unix seconds)
    tags: pd.DataFrame  # user, item, tag, timestamp
    by_imdb: dict[str, str] = field(repr=False)  # "tt0114709" -> "1"

    def find_imdb(self, imdb_id: str | int) -> Item | None:
        """The movie with this IMDb id ("tt0114709", "0114709", "114709" or 114709), or None."""
        movie_id = self.by_imdb.get(normalise_imdb_id(imdb_id) or "")
        return self.movies[movie_id] if movie_id else None


def normalise_imdb_id(value: str | int) -> str | None:
    """'tt' + the number zero-padded to 7 digits, or None when `value` is not an IMDb id."""
    digits = str(value).strip().removeprefix("tt")
    return f"tt{int(digits):07d}" if digits.isdigit() else None


def split_title(raw: str) -> tuple[str, int | None]:
    """'American President, The (1995)' -> ('The American President', 1995); no year -> None."""
    title = raw.strip()
    match = _YEAR.search(title)
    if match:
        title = title[: match.start()]
    return _ARTICLE.sub(r"\2 \1", title), int(match.group(1)) if match else None


def load_movielens(path: Path, *, ratings: bool = True) -> MovieLens:
    """Read movies, links, ratings and tags from a MovieLens zip or folder (read in place, never extracted).
    With `ratings=False` the ratings table is left empty (stream it with `read_movielens_ratings` instead)."""
    movies = _movies(_read(path, "movies.csv"), _read(path, "links.csv"))
    table = _interactions(_read(path, "ratings.csv"), "rating") if ratings else _no_ratings()
    tags = _interactions(_read(path, "tags.csv"), "tag")
    by_imdb: dict[str, str] = {}
    for item in movies.values():
        if item.imdb_id:
            by_imdb.setdefault(item.imdb_id, item.id)
    return MovieLens(movies=movies, ratings=table, tags=tags, by_imdb=by_imdb)


def _movies(movies: pd.DataFrame, links: pd.DataFrame) -> dict[str, Item]:
    table = movies.merge(links[["movieId", "imdbId", "tmdbId"]], on="movieId", how="left")
    items: dict[str, Item] = {}
    for row in table.itertuples(index=False):
        title, year = split_title(row.title)
        genres = [] if row.genres == _NO_GENRES else [g for g in row.genres.split("|") if g]
        imdb = normalise_imdb_id(row.imdbId) if isinstance(row.imdbId, str) else None
        tmdb = row.tmdbId.strip() if isinstance(row.tmdbId, str) and row.tmdbId.strip() else None
        items[row.movieId] = Item(id=row.movieId, title=title, year=year, genres=genres, imdb_id=imdb, tmdb_id=tmdb)
    return items


def _interactions(table: pd.DataFrame, value: str) -> pd.DataFrame:
    """userId, movieId, <value>, timestamp -> user, item, <value>, timestamp."""
    return table[["userId", "movieId", value, "timestamp"]].rename(columns={"userId": "user", "movieId": "item"})


@contextmanager
def open_movielens_file(path: Path, name: str) -> Iterator[tuple[str, BinaryIO]]:
    """(label for messages, binary stream) of one MovieLens csv file (by name) in the zip or folder at `path`."""
    path = Path(path)
    if path.is_dir():
        file = _data_folder(path) / name
        if not file.is_file():
            raise InputError(file, "missing file")
        with file.open("rb") as handle:
            yield str(file), handle
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            member = posixpath.join(_zip_folder(path, archive), name)
            label = f"{path}:{member}"
            try:
                handle = archive.open(member)
            except KeyError:
                raise InputError(label, "missing file in the archive") from None
            with handle:
                yield label, handle
    elif path.exists():
        raise InputError(path, "not a zip archive or a folder: give a MovieLens .zip or its extracted folder")
    else:
        raise InputError(path, "no such file or folder")


def _holds_data(folder: Path) -> bool:
    return any((folder / name).is_file() for name in COLUMNS)


def _data_folder(path: Path) -> Path:
    """`path` itself when it holds the csv files, else its one subfolder that does (an extracted zip)."""
    if _holds_data(path):
        return path
    found = [sub for sub in sorted(path.iterdir()) if sub.is_dir() and _holds_data(sub)]
    if len(found) != 1:
        raise InputError(path, f"expected {', '.join(COLUMNS)} here or in one subfolder; found them in {len(found)}")
    return found[0]


def _zip_folder(path: Path, archive: zipfile.ZipFile) -> str:
    """The folder inside the archive that holds the csv files ('ml-latest-small')."""
    folders = {posixpath.dirname(name) for name in archive.namelist() if posixpath.basename(name) in COLUMNS}
    if len(folders) != 1:
        raise InputError(path, f"expected {', '.join(COLUMNS)} in one folder of the archive; found {sorted(folders)}")
    return folders.pop()


def _no_ratings() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame({column: [] for column in _RATING_TYPES}).astype(_RATING_TYPES)


def _read(path: Path, name: str) -> pd.DataFrame:
    import pandas as pd

    with open_movielens_file(path, name) as (label, handle):
        return _checked(pd.read_csv(handle, dtype=_TEXT_COLUMNS, keep_default_na=False), label, name)


def _checked(table: pd.DataFrame, label: object, name: str) -> pd.DataFrame:
    """`table` with its required columns present and `rating`/`timestamp` numeric."""
    for column in COLUMNS[name]:
        if column not in table.columns:
            found = ", ".join(map(str, table.columns))
            raise InputError(label, f"missing column '{column}' (columns found: {found})", field=column)
    for column, kind in (("rating", "float64"), ("timestamp", "int64")):
        if column in COLUMNS[name]:
            table[column] = _numeric(table[column], label, kind)
    return table


def _numeric(values: pd.Series, label: object, kind: str) -> pd.Series:
    import pandas as pd

    numbers = pd.to_numeric(values, errors="coerce")
    bad = numbers.isna()
    if bad.any():
        row = int(bad.to_numpy().argmax())
        message = f"not a number: '{values.iloc[row]}'"
        raise InputError(label, message, line=row + 2, field=str(values.name))  # + header, 1-based
    return numbers.astype(kind)
