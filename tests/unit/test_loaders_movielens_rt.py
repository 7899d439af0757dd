"""MovieLens, generic review tables and Rotten Tomatoes critic quotes, on the real shared files where they exist."""

from __future__ import annotations

import collections
import dataclasses
import json
import logging
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from synth.data.bad_lines import BadLines
from synth.data.movielens import MovieLens, load_movielens, normalise_imdb_id, split_title
from synth.data.paths import shared_data_root
from synth.data.review_table import ReviewColumns, load_review_table
from synth.data.rt_critics import load_rt_critics
from synth.errors import InputError, SynthError

ML_HEADERS = {
    "movies.csv": "movieId,title,genres",
    "links.csv": "movieId,imdbId,tmdbId",
    "ratings.csv": "userId,movieId,rating,timestamp",
    "tags.csv": "userId,movieId,tag,timestamp",
}


def shared_file(*parts: str) -> Path:
    path = shared_data_root().joinpath(*parts)
    if not path.is_file():
        pytest.fail(f"shared data file {path} is missing: run from the repo root or set SYNTH_SHARED_DATA")
    return path


@pytest.fixture(scope="module")
def ml_zip() -> Path:
    return shared_file("movielens-latest-small", "ml-latest-small.zip")


@pytest.fixture(scope="module")
def movielens(ml_zip: Path) -> MovieLens:
    return load_movielens(ml_zip)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def write_ml_folder(folder: Path, rows: dict[str, str] | None = None, *, skip: str | None = None) -> Path:
    """A tiny MovieLens folder: the four headers, plus `rows` (name -> csv lines) and without `skip`."""
    folder.mkdir(parents=True)
    for name, header in ML_HEADERS.items():
        if name != skip:
            write(folder / name, header + "\n" + (rows or {}).get(name, ""))
    return folder


# --- MovieLens -----------------------------------------------------------------------------------------


def test_movielens_zip_has_the_known_counts(movielens: MovieLens):
    assert len(movielens.movies) == 9742
    assert len(movielens.ratings) == 100836
    assert len(movielens.tags) == 3683
    assert movielens.ratings["user"].nunique() == 610
    assert movielens.ratings["item"].nunique() == 9724
    assert movielens.tags["user"].nunique() == 58
    assert list(movielens.ratings.columns) == ["user", "item", "rating", "timestamp"]
    assert list(movielens.tags.columns) == ["user", "item", "tag", "timestamp"]
    assert movielens.ratings["rating"].between(0.5, 5).all()
    assert isinstance(movielens.ratings["item"].iloc[0], str) and isinstance(movielens.ratings["user"].iloc[0], str)
    first = movielens.ratings.iloc[0]
    assert (first["user"], first["item"], first["rating"], first["timestamp"]) == ("1", "1", 4.0, 964982703)
    assert set(movielens.ratings["item"]) <= set(movielens.movies)


def test_movielens_titles_years_genres_and_ids(movielens: MovieLens):
    toy = movielens.movies["1"]
    assert (toy.title, toy.year, toy.imdb_id, toy.tmdb_id) == ("Toy Story", 1995, "tt0114709", "862")
    assert toy.genres == ["Adventure", "Animation", "Children", "Comedy", "Fantasy"]
    assert toy.display == "Toy Story (1995)"
    expected = {
        "11": ("The American President", 1995),  # "American President, The (1995)"
        "1206": ("A Clockwork Orange", 1971),  # "Clockwork Orange, A (1971)"
        "29": ("The City of Lost Children (Cité des enfants perdus, La)", 1995),
        "5952": ("The Lord of the Rings: The Two Towers", 2002),
        "53883": ("The Power of Nightmares: The Rise of the Politics of Fear", 2004),
        "96608": ("Runaway Brain", 1995),  # "Runaway Brain (1995) ": a trailing space
        "40697": ("Babylon 5", None),  # no year
        "171749": ("Death Note: Desu nôto", 2006),  # "(2006–2007)"
    }
    assert {key: (movielens.movies[key].title, movielens.movies[key].year) for key in expected} == expected
    assert movielens.movies["171749"].genres == []  # "(no genres listed)"
    assert sum(1 for item in movielens.movies.values() if item.year is None) == 12
    assert movielens.movies["40697"].tmdb_id is None  # empty tmdbId in links.csv
    assert all(item.imdb_id and len(item.imdb_id) == 9 for item in movielens.movies.values())


def test_movielens_lookup_by_imdb_id(movielens: MovieLens):
    for key in ("tt0114709", "0114709", "114709", 114709):
        assert movielens.find_imdb(key).id == "1"
    assert movielens.find_imdb("tt0167261").title == "The Lord of the Rings: The Two Towers"
    assert movielens.find_imdb("tt9999999") is None and movielens.find_imdb("nope") is None
    assert normalise_imdb_id(" 49902 ") == "tt0049902" and normalise_imdb_id("") is None


def test_split_title_articles():
    assert split_title("Man in the Iron Mask, The (1998)") == ("The Man in the Iron Mask", 1998)
    assert split_title("Officer and a Gentleman, An (1982)") == ("An Officer and a Gentleman", 1982)
    assert split_title("Boot, Das (Boat, The) (1981)") == ("Boot, Das (Boat, The)", 1981)  # only English, main title
    assert split_title("Heat") == ("Heat", None)


def test_movielens_extracted_folder_matches_the_zip(ml_zip: Path, movielens: MovieLens, tmp_path: Path):
    with zipfile.ZipFile(ml_zip) as archive:
        archive.extractall(tmp_path)
    for path in (tmp_path, tmp_path / "ml-latest-small"):  # the extraction root or the data folder itself
        folder = load_movielens(path)
        assert folder.movies == movielens.movies
        pd.testing.assert_frame_equal(folder.ratings, movielens.ratings)
        pd.testing.assert_frame_equal(folder.tags, movielens.tags)


def test_movielens_ml25m_layout(tmp_path: Path):
    rows = {
        "movies.csv": '1,Toy Story (1995),Adventure|Animation\n2,"Usual Suspects, The (1995)",Crime|Mystery\n',
        "links.csv": "1,0114709,862\n2,114814,\n",
        "ratings.csv": "1,1,4.5,1147880044\n2,2,3.0,1147868817\n",
        "tags.csv": "1,2,twist ending,1147880044\n",
    }
    root = tmp_path / "unzipped"
    write_ml_folder(root / "ml-25m", rows)
    write(root / "ml-25m" / "genome-scores.csv", "movieId,tagId,relevance\n1,1,0.02\n")
    write(root / "ml-25m" / "genome-tags.csv", "tagId,tag\n1,007\n")
    ml = load_movielens(root)
    assert ml.movies["2"].title == "The Usual Suspects" and ml.movies["2"].imdb_id == "tt0114814"
    assert ml.movies["2"].tmdb_id is None
    assert ml.ratings["rating"].tolist() == [4.5, 3.0] and ml.ratings["item"].tolist() == ["1", "2"]
    assert ml.tags.iloc[0].to_dict() == {"user": "1", "item": "2", "tag": "twist ending", "timestamp": 1147880044}
    archive_path = tmp_path / "ml-25m.zip"
    with zipfile.ZipFile(archive_path, "w") as archive:
        for file in sorted((root / "ml-25m").iterdir()):
            archive.write(file, f"ml-25m/{file.name}")
    assert load_movielens(archive_path).movies == ml.movies


def test_movielens_errors(tmp_path: Path):
    broken = tmp_path / "ml-latest-small.zip"
    with zipfile.ZipFile(broken, "w") as archive:
        archive.writestr("ml-latest-small/movies.csv", "movieId,title,genres\n1,Heat (1995),Crime\n")
        archive.writestr("ml-latest-small/links.csv", "movieId,imdbId,tmdbId\n1,0113277,949\n")
        archive.writestr("ml-latest-small/ratings.csv", "userId,movieId,timestamp\n1,1,964982703\n")
    with pytest.raises(InputError, match=r"ml-latest-small.zip:ml-latest-small/ratings.csv, field 'rating': "
                       r"missing column 'rating' \(columns found: userId, movieId, timestamp\)"):
        load_movielens(broken)

    no_tags = write_ml_folder(tmp_path / "no-tags", skip="tags.csv")
    with pytest.raises(InputError, match=r"no-tags/tags.csv: missing file"):
        load_movielens(no_tags)
    with zipfile.ZipFile(tmp_path / "ml-small.zip", "w") as archive:
        for name in ("movies.csv", "links.csv", "ratings.csv"):
            archive.write(no_tags / name, f"ml-small/{name}")
    with pytest.raises(InputError, match=r"ml-small.zip:ml-small/tags.csv: missing file in the archive"):
        load_movielens(tmp_path / "ml-small.zip")

    bad_rating = write_ml_folder(tmp_path / "bad-rating", {"ratings.csv": "1,1,4.0,964982703\n1,2,good,964982704\n"})
    with pytest.raises(InputError, match=r"ratings.csv, line 3, field 'rating': not a number: 'good'"):
        load_movielens(bad_rating)

    with pytest.raises(InputError, match=r"ratings.csv: not a zip archive or a folder"):
        load_movielens(write(tmp_path / "ratings.csv", "userId,movieId,rating,timestamp\n"))
    with pytest.raises(InputError, match=r"absent.zip: no such file or folder"):
        load_movielens(tmp_path / "absent.zip")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"empty: expected movies.csv, links.csv, ratings.csv, tags.csv here"):
        load_movielens(tmp_path / "empty")


# --- generic review tables -----------------------------------------------------------------------------

ROWS = [
    {"user": "ann", "item": "m1", "rating": 8, "text": "Loved it."},
    {"user": "ann", "item": "m2", "rating": 1, "text": "Dull."},
    {"user": "bob", "item": "m1", "rating": 10, "text": "A masterpiece."},
]


def write_table(path: Path, rows: list[dict]) -> Path:
    frame = pd.DataFrame(rows)
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    elif path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        write(path, "".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_review_table_round_trip(tmp_path: Path, suffix: str, caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.INFO, logger="synth.data.review_table"):
        reviews = load_review_table(write_table(tmp_path / f"r{suffix}", ROWS))
    assert [(r.user, r.item, r.rating, r.text) for r in reviews] == [tuple(row.values()) for row in ROWS]
    assert [r.score for r in reviews] == [7 / 9, 0.0, 1.0]
    assert "assuming 1-10" in caplog.text


def test_review_table_column_mapping_and_scales(tmp_path: Path):
    rows = [
        {"reviewer": "ann", "asin": 7, "stars": 4.5, "body": "Good.", "range": "0.5-5"},
        {"reviewer": "bob", "asin": 8, "stars": 60, "body": "Fine.", "range": "0-100"},
    ]
    path = write_table(tmp_path / "mapped.parquet", rows)
    mapping = ReviewColumns(user="reviewer", item="asin", rating="stars", text="body", scale="range")
    by_column = load_review_table(path, columns=mapping)
    assert [(r.user, r.item, r.rating) for r in by_column] == [("ann", "7", 4.5), ("bob", "8", 60.0)]
    assert [r.score for r in by_column] == [4 / 4.5, 0.6]
    by_argument = load_review_table(path, columns=mapping, scale=(0, 100))  # the argument wins over the column
    assert [r.score for r in by_argument] == [0.045, 0.6]
    with pytest.raises(InputError, match=r"mapped.parquet, field 'stars': ratings run from 4.5 to 60, outside the "
                       r"assumed 1-10 scale: give the scale with --rating-scale"):
        load_review_table(path, columns=mapping.model_copy(update={"scale": None}))
    with pytest.raises(SynthError, match=r"rating scale 5-1: the low end must be below the high end"):
        load_review_table(path, columns=mapping, scale=(5, 1))


def test_review_table_missing_column_and_formats(tmp_path: Path):
    path = write(tmp_path / "r.csv", "user,item,stars,text\nann,m1,8,ok\n")
    with pytest.raises(InputError, match=r"r.csv, field 'rating': missing column 'rating' for rating "
                       r"\(columns found: user, item, stars, text\)"):
        load_review_table(path)
    with pytest.raises(InputError, match=r"r.csv, field 'range': missing column 'range' for scale"):
        load_review_table(path, columns=ReviewColumns(rating="stars", scale="range"))
    with pytest.raises(InputError, match=r"r.tsv: unknown format '.tsv': use .csv, .jsonl or .parquet"):
        load_review_table(write(tmp_path / "r.tsv", "user\titem\n"))
    with pytest.raises(InputError, match=r"absent.jsonl: cannot open"):
        load_review_table(tmp_path / "absent.jsonl")
    with pytest.raises(InputError, match=r"junk.parquet: not a readable parquet file"):
        load_review_table(write(tmp_path / "junk.parquet", "not parquet"))
    only_bad = write(tmp_path / "only-bad.csv", "user,item,rating,text\nann,m1,x,ok\n")
    with pytest.raises(InputError, match=r"only-bad.csv: no usable rows \(1 bad lines skipped\)"):
        load_review_table(only_bad, bad_lines=BadLines(skip=True))


BAD_CSV = (
    "user,item,rating,text\n"
    "ann,m1,8,Loved it.\n"  # line 2: good
    "ann,m2,9,\n"  # line 3: empty text
    "bob,m1,great,Fine.\n"  # line 4: not a number
    'bob,m2,11,"A long,\nquoted review."\n'  # lines 5-6: outside 1-10 (a record's last line counts)
    "cid,m3,2,Meh.\n"  # line 7: good
)


@pytest.mark.parametrize(
    ("bad_row", "expected"),
    [
        ("ann,m2,9,\n", "line 3, field 'text': empty text"),
        (",m2,9,Fine.\n", "line 3, field 'user': empty user"),
        ("bob,m1,great,Fine.\n", "line 3, field 'rating': rating is not a number: 'great'"),
        ('bob,m2,11,"A long,\nquoted review."\n', "line 4, field 'rating': rating 11 is outside 1-10"),
    ],
)
def test_review_table_bad_lines_raise_with_file_line_and_field(tmp_path: Path, bad_row: str, expected: str):
    path = write(tmp_path / "bad.csv", "user,item,rating,text\nann,m1,8,Loved it.\n" + bad_row)
    with pytest.raises(InputError) as caught:
        load_review_table(path, scale=(1, 10))
    assert str(caught.value) == f"{path}, {expected}"


def test_review_table_skips_bad_lines_as_counted_warnings(tmp_path: Path):
    path = write(tmp_path / "bad.csv", BAD_CSV)
    bad_lines = BadLines(skip=True)
    reviews = load_review_table(path, scale=(1, 10), bad_lines=bad_lines)
    assert [(r.user, r.item, r.score) for r in reviews] == [("ann", "m1", 7 / 9), ("cid", "m3", 1 / 9)]
    assert bad_lines.skipped == 3
    assert bad_lines.warnings == [
        f"{path}, line 3, field 'text': empty text",
        f"{path}, line 4, field 'rating': rating is not a number: 'great'",
        f"{path}, line 6, field 'rating': rating 11 is outside 1-10",
    ]
    with pytest.raises(InputError, match=r"bad.csv, field 'rating': ratings run from 2 to 11, outside the assumed"):
        load_review_table(path, bad_lines=BadLines(skip=True))  # no scale given: 11 is not a bad line but a question


def test_review_table_bad_jsonl_lines(tmp_path: Path):
    path = write(
        tmp_path / "bad.jsonl",
        json.dumps(ROWS[0]) + "\n\n" + '{"user": "bob",\n' + "[1, 2]\n" + json.dumps({**ROWS[1], "user": " "}) + "\n",
    )
    with pytest.raises(InputError, match=r"bad.jsonl, line 3: not valid JSON"):
        load_review_table(path)
    bad_lines = BadLines(skip=True)
    assert [r.item for r in load_review_table(path, bad_lines=bad_lines)] == ["m1"]
    assert [w.split("bad.jsonl, ")[1] for w in bad_lines.warnings] == [
        "line 3: not valid JSON (Expecting property name enclosed in double quotes)",
        "line 4: expected a JSON object",
        "line 5, field 'user': empty user",
    ]


def test_review_table_bad_scale_cell_and_parquet_rows(tmp_path: Path):
    rows = [{**ROWS[0], "scale": "1-10"}, {**ROWS[1], "scale": "ten"}, {**ROWS[2], "scale": "1-5"}]
    path = write_table(tmp_path / "s.parquet", rows)
    with pytest.raises(InputError, match=r"s.parquet, line 2, field 'scale': scale 'ten' is not LOW-HIGH"):
        load_review_table(path, columns=ReviewColumns(scale="scale"))
    bad_lines = BadLines(skip=True)
    assert len(load_review_table(path, columns=ReviewColumns(scale="scale"), bad_lines=bad_lines)) == 1
    assert bad_lines.warnings[1].endswith("s.parquet, line 3, field 'rating': rating 10 is outside 1-5")


# --- Rotten Tomatoes critics ---------------------------------------------------------------------------


def test_rt_critics_join_the_real_movielens(movielens: MovieLens):
    rt = load_rt_critics(shared_file("reviews-rt-critics-cs109", "critics.csv.gz"), movielens)
    counts = rt.counts
    assert (counts.rows, counts.kept, counts.critics, counts.movies) == (27669, 13865, 585, 1722)
    assert (counts.no_quote, counts.no_critic, counts.unusable_freshness) == (12106, 772, 23)
    assert (counts.bad_imdb, counts.not_in_movielens, counts.duplicates) == (0, 901, 2)
    dropped = counts.no_quote + counts.no_critic + counts.unusable_freshness + counts.not_in_movielens
    assert counts.rows == dropped + counts.duplicates + counts.kept == 27669
    assert len(rt.reviews) == counts.kept
    assert all(review.item in movielens.movies for review in rt.reviews)
    assert all(review.text and review.rating in (0.0, 1.0) and review.score == review.rating for review in rt.reviews)
    assert len({(review.user, review.item) for review in rt.reviews}) == counts.kept

    by_pair = {(review.user, review.item): review for review in rt.reviews}
    toy = by_pair["Roger Ebert", "1"]  # fresh, Toy Story (imdb 0114709)
    assert (toy.rating, toy.text) == (1.0, "The result is a visionary roller-coaster ride of a movie.")
    jumanji = by_pair["Roger Ebert", "2"]  # rotten, Jumanji (imdb 0113497)
    assert (jumanji.rating, jumanji.score) == (0.0, 0.0) and jumanji.text.startswith("A gloomy special-effects")
    assert by_pair["Derek Adams", "1447"].text.startswith("The \ufb01lm has")  # '&#64257;' unescaped

    per_critic = collections.defaultdict(list)
    for review in rt.reviews:
        per_critic[review.user].append(review.rating)
    assert sum(len(r) >= 4 for r in per_critic.values()) == 270
    assert sum(len(r) >= 4 and 1.0 in r for r in per_critic.values()) == 267


def test_rt_critics_counts_and_errors_on_a_small_file(movielens: MovieLens, tmp_path: Path):
    header = "critic,fresh,imdb,publication,quote,review_date,rtid,title\n"
    path = write(
        tmp_path / "critics.csv",
        header
        + "Ann,fresh,114709,P,Great toys.,2000-01-01,1,Toy Story\n"  # no zero padding: still Toy Story
        + "Ann,rotten,0114709,P,Second take.,2000-01-01,1,Toy Story\n"  # duplicate (Ann, Toy Story)
        + "Ann,none,0113497,P,Hmm.,2000-01-01,2,Jumanji\n"  # no verdict
        + ",fresh,0113497,P,Anonymous.,2000-01-01,2,Jumanji\n"  # no critic
        + "Bob,rotten,0113497,P,,2000-01-01,2,Jumanji\n"  # no quote
        + "Bob,rotten,9999999,P,Unknown film.,2000-01-01,3,Nothing\n"  # not in MovieLens
        + "Bob,ROTTEN,tt0113497,P,Too loud.,2000-01-01,2,Jumanji\n"
        + "Cy,fresh,n/a,P,Where?,2000-01-01,4,Lost\n",  # line 9: bad IMDb id
    )
    with pytest.raises(InputError, match=r"critics.csv, line 9, field 'imdb': IMDb id 'n/a' is not a number"):
        load_rt_critics(path, movielens)
    bad_lines = BadLines(skip=True)
    rt = load_rt_critics(path, movielens, bad_lines=bad_lines)
    assert [(r.user, r.item, r.rating) for r in rt.reviews] == [("Ann", "1", 1.0), ("Bob", "2", 0.0)]
    assert dataclasses.asdict(rt.counts) == {
        "rows": 8, "no_quote": 1, "no_critic": 1, "unusable_freshness": 1, "bad_imdb": 1,
        "not_in_movielens": 1, "duplicates": 1, "kept": 2, "critics": 2, "movies": 2,
    }
    assert bad_lines.skipped == 1
    short = write(tmp_path / "short.csv", "critic,fresh,imdb\nAnn,fresh,0114709\n")
    with pytest.raises(InputError, match=r"short.csv, field 'quote': missing column 'quote' \(columns found: critic, "):
        load_rt_critics(short, movielens)
    with pytest.raises(InputError, match=r"broken.csv.gz: cannot read"):
        load_rt_critics(write(tmp_path / "broken.csv.gz", header), movielens)
