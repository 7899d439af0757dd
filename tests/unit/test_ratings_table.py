"""The compact ratings table: MovieLens (the real shared zip), generic ratings files, bad input, reviews."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synth.data.bad_lines import BadLines
from synth.data.movielens import load_movielens
from synth.data.paths import shared_data_root
from synth.data.ratings_builder import clean_tags
from synth.data.ratings_table import RatingsTable, read_movielens_ratings, read_ratings_file
from synth.data.sources import load_demo
from synth.errors import InputError

ML_MEMBER = "ml-latest-small"
TABLE_ARRAYS = ("user_ids", "item_ids", "user", "item", "rating", "score", "offsets")


@pytest.fixture(scope="module")
def ml_zip() -> Path:
    path = shared_data_root() / "movielens-latest-small" / "ml-latest-small.zip"
    if not path.is_file():
        pytest.fail(f"shared data file {path} is missing: run from the repo root or set SYNTH_SHARED_DATA")
    return path


@pytest.fixture(scope="module")
def ml_table(ml_zip: Path) -> RatingsTable:
    return read_movielens_ratings(ml_zip)


@pytest.fixture(scope="module")
def ml_frames(ml_zip: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """ratings.csv and tags.csv as pandas reads them, ids as text."""
    with zipfile.ZipFile(ml_zip) as archive:
        ratings = pd.read_csv(archive.open(f"{ML_MEMBER}/ratings.csv"), dtype={"userId": str, "movieId": str})
        tags = pd.read_csv(archive.open(f"{ML_MEMBER}/tags.csv"), dtype={"userId": str, "movieId": str, "tag": str})
    return ratings, tags


def assert_same_table(left: RatingsTable, right: RatingsTable) -> None:
    for name in TABLE_ARRAYS:
        assert np.array_equal(getattr(left, name), getattr(right, name)), name
    assert left.scale == right.scale and left.tags == right.tags and left.texts == right.texts


def rows_by_pair(table: RatingsTable) -> dict[tuple[str, str], float]:
    return {
        (table.user_ids[u], table.item_ids[i]): float(r)
        for u, i, r in zip(table.user.tolist(), table.item.tolist(), table.rating.tolist(), strict=True)
    }


# --- MovieLens -----------------------------------------------------------------------------------------


def test_movielens_counts_agree_with_pandas(ml_table: RatingsTable, ml_frames):
    ratings, _ = ml_frames
    assert len(ml_table) == len(ratings) == 100_836
    assert len(ml_table.user_ids) == ratings["userId"].nunique() == 610
    assert len(ml_table.item_ids) == ratings["movieId"].nunique()
    assert int((ml_table.rating >= 4).sum()) == int((ratings["rating"] >= 4).sum()) == 48_580
    assert ml_table.scale == (0.5, 5.0) and ml_table.texts is None
    assert ml_table.user.dtype == np.int32 and ml_table.item.dtype == np.int32
    assert ml_table.rating.dtype == np.float32 and ml_table.score.dtype == np.float32
    assert ml_table.offsets.dtype == np.int64 and len(ml_table.offsets) == len(ml_table.user_ids) + 1


def test_movielens_rows_are_the_files_rows_sorted(ml_table: RatingsTable, ml_frames):
    ratings, _ = ml_frames
    expected = ratings.assign(u=ratings["userId"].astype(int), i=ratings["movieId"].astype(int)).sort_values(["u", "i"])
    assert list(ml_table.user_ids[ml_table.user]) == list(expected["userId"])
    assert list(ml_table.item_ids[ml_table.item]) == list(expected["movieId"])
    assert np.array_equal(ml_table.rating, expected["rating"].to_numpy(np.float32))
    assert np.allclose(ml_table.score, (expected["rating"].to_numpy() - 0.5) / 4.5, atol=1e-6)
    assert list(ml_table.user_ids[:3]) == ["1", "2", "3"]  # numeric ids in numeric order


def test_movielens_offsets_and_rows_of(ml_table: RatingsTable):
    assert ml_table.offsets[0] == 0 and ml_table.offsets[-1] == len(ml_table)
    for code in (0, 1, 304, 609):
        rows = ml_table.rows_of(code)
        assert len(rows) > 0 and set(ml_table.user[rows.start:rows.stop].tolist()) == {code}
        assert np.all(np.diff(ml_table.item[rows.start:rows.stop]) > 0)  # item codes sorted within a user


def test_movielens_find_agrees_with_pandas(ml_table: RatingsTable, ml_frames):
    ratings, _ = ml_frames
    lookup = {(row.userId, row.movieId): row.rating for row in ratings.itertuples(index=False)}
    rng = np.random.default_rng(7)
    rated = [tuple(ratings.iloc[i][["userId", "movieId"]]) for i in rng.choice(len(ratings), 300, replace=False)]
    movies = ratings["movieId"].unique()
    random_pairs = [(str(rng.integers(1, 611)), str(rng.choice(movies))) for _ in range(300)]
    checked_unrated = 0
    for user_id, item_id in [*rated, *random_pairs, ("1", "no-such-movie")]:
        row = ml_table.find(ml_table.user_code(user_id), item_id)
        if (user_id, item_id) in lookup:
            assert row is not None and ml_table.rating[row] == lookup[user_id, item_id]
            assert (ml_table.user_ids[ml_table.user[row]], ml_table.item_ids[ml_table.item[row]]) == (user_id, item_id)
        else:
            assert row is None
            checked_unrated += 1
    assert checked_unrated > 100
    assert ml_table.user_code("611") is None and ml_table.user_code("1") == 0


def test_movielens_tags_are_the_users_own_tags_of_rated_movies(ml_table: RatingsTable, ml_frames):
    ratings, tags = ml_frames
    rated = set(zip(ratings["userId"], ratings["movieId"], strict=True))
    expected: dict[tuple[str, str], list[str]] = {}
    for row in tags.itertuples(index=False):
        if (row.userId, row.movieId) in rated:
            expected.setdefault((row.userId, row.movieId), []).append(row.tag)
    expected_clean = {pair: clean_tags(texts) for pair, texts in expected.items()}
    got = {(ml_table.user_ids[ml_table.user[row]], ml_table.item_ids[ml_table.item[row]]): t for row, t in ml_table.tags.items()}
    assert got == {pair: t for pair, t in expected_clean.items() if t}
    assert 0 < len(got) < len({(u, m) for u, m in zip(tags["userId"], tags["movieId"], strict=True)})  # unrated dropped
    assert all(tag == tag.strip().lower() and tag for t in got.values() for tag in t)


def test_movielens_zip_folder_and_chunk_sizes_give_the_same_table(ml_zip: Path, ml_table: RatingsTable, tmp_path: Path):
    with zipfile.ZipFile(ml_zip) as archive:
        archive.extractall(tmp_path)
    assert_same_table(read_movielens_ratings(tmp_path), ml_table)  # the extracted zip: one subfolder
    assert_same_table(read_movielens_ratings(tmp_path / ML_MEMBER, chunk_rows=7_777), ml_table)


def test_load_movielens_can_leave_the_ratings_out(ml_zip: Path):
    movielens = load_movielens(ml_zip, ratings=False)
    assert len(movielens.movies) == 9742 and len(movielens.tags) == 3683
    assert movielens.ratings.empty and list(movielens.ratings.columns) == ["user", "item", "rating", "timestamp"]


def write_movielens(folder: Path, ratings: str, tags: str = "") -> Path:
    folder.mkdir()
    (folder / "ratings.csv").write_text("userId,movieId,rating,timestamp\n" + ratings, encoding="utf-8")
    (folder / "tags.csv").write_text("userId,movieId,tag,timestamp\n" + tags, encoding="utf-8")
    return folder


def test_movielens_bad_rating_names_file_line_and_field(tmp_path: Path):
    folder = write_movielens(tmp_path / "ml", "1,10,4.0,1\n1,11,3.5,1\n1,12,7,1\n2,10,x,1\n")
    with pytest.raises(InputError) as error:
        read_movielens_ratings(folder, chunk_rows=2)
    assert str(error.value) == f"{folder / 'ratings.csv'}, line 4, field 'rating': rating 7 is outside 0.5-5"
    bad_lines = BadLines(skip=True)
    table = read_movielens_ratings(folder, chunk_rows=2, bad_lines=bad_lines)
    assert len(table) == 2 and bad_lines.skipped == 2
    assert "line 5, field 'rating': rating is not a number: 'x'" in bad_lines.warnings[1]


def test_movielens_tags_of_unrated_pairs_are_dropped(tmp_path: Path):
    folder = write_movielens(
        tmp_path / "ml", "1,10,4.0,1\n1,11,2,1\n2,10,5,1\n",
        "1,10, Dark ,1\n1,10,dark,1\n1,12,never rated,1\n2,10,Funny,1\n1,10,twist,1\n3,10,no such user,1\n",
    )
    table = read_movielens_ratings(folder)
    assert table.tags == {table.find(0, "10"): ("dark", "twist"), table.find(1, "10"): ("funny",)}


# --- generic ratings files -------------------------------------------------------------------------------

GENERIC_ROWS = [
    {"user": "u2", "item": "007", "rating": 7, "tags": "Funny| dark |funny"},
    {"user": "u1", "item": "b", "rating": 3, "tags": ""},
    {"user": "u1", "item": "007", "rating": 10, "tags": "classic"},
    {"user": "10", "item": "b", "rating": 1, "tags": None},
    {"user": "2", "item": "a", "rating": 5.5, "tags": "x"},
]


def write_rows(path: Path, rows: list[dict]) -> Path:
    if path.suffix == ".csv":
        pd.DataFrame(rows).to_csv(path, index=False)
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps({k: v for k, v in row.items() if v is not None}) + "\n" for row in rows))
    else:
        pd.DataFrame(rows).astype({"user": str, "item": str}).to_parquet(path)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_ratings_file_reads_ids_as_text_with_tags(tmp_path: Path, suffix: str):
    table = read_ratings_file(write_rows(tmp_path / f"ratings{suffix}", GENERIC_ROWS), chunk_rows=2)
    assert list(table.user_ids) == ["2", "10", "u1", "u2"] and list(table.item_ids) == ["007", "a", "b"]
    assert rows_by_pair(table) == {(r["user"], r["item"]): r["rating"] for r in GENERIC_ROWS}
    assert table.scale == (1.0, 10.0)  # every rating fits 1-10
    row = table.find(table.user_code("u2"), "007")
    assert table.score[row] == pytest.approx((7 - 1) / 9)
    assert {(table.user_ids[table.user[r]], table.item_ids[table.item[r]]): t for r, t in table.tags.items()} == {
        ("u2", "007"): ("funny", "dark"), ("u1", "007"): ("classic",), ("2", "a"): ("x",),
    }
    assert table.find(table.user_code("u1"), "a") is None


def test_ratings_file_same_table_whatever_the_chunk_size(tmp_path: Path):
    path = write_rows(tmp_path / "ratings.csv", GENERIC_ROWS)
    assert_same_table(read_ratings_file(path, chunk_rows=1), read_ratings_file(path))


def test_duplicate_pairs_keep_the_last_rating_and_its_tags(tmp_path: Path):
    path = tmp_path / "ratings.csv"
    path.write_text("user,item,rating,tags\nb,1,2,old\na,1,3,\nb,1,9,new|newer\nb,2,4,\nb,1,8,\n")
    table = read_ratings_file(path, chunk_rows=2)
    assert rows_by_pair(table) == {("a", "1"): 3, ("b", "1"): 8, ("b", "2"): 4}
    assert table.tags == {}  # the last rating of (b, 1) has no tags
    path.write_text("user,item,rating,tags\nb,1,2,old\na,1,3,\nb,1,9,new|newer\n")
    table = read_ratings_file(path)
    assert rows_by_pair(table)[("b", "1")] == 9 and table.tags == {table.find(1, "1"): ("new", "newer")}


def test_ratings_file_scale_given_or_asked_for(tmp_path: Path):
    path = tmp_path / "ratings.csv"
    path.write_text("user,item,rating\na,1,0.5\na,2,5\n")
    with pytest.raises(InputError, match=r"ratings\.csv, field 'rating': ratings run from 0.5 to 5.*--rating-scale"):
        read_ratings_file(path)
    table = read_ratings_file(path, scale=(0.5, 5.0))
    assert table.scale == (0.5, 5.0) and table.score.tolist() == [0.0, 1.0]


def test_ratings_file_blank_lines_crlf_and_bom(tmp_path: Path):
    path = tmp_path / "ratings.csv"
    path.write_bytes(b"\xef\xbb\xbfuser,item,rating\r\n a ,1,4\r\n\r\nb,\"2\",5\r\n\n")
    table = read_ratings_file(path)
    assert rows_by_pair(table) == {("a", "1"): 4, ("b", "2"): 5}


# --- bad input --------------------------------------------------------------------------------------------


def bad_csv(tmp_path: Path, body: str, header: str = "user,item,rating,tags") -> Path:
    path = tmp_path / "ratings.csv"
    path.write_text(header + "\n" + body, encoding="utf-8")
    return path


GOOD = "u,1,5,\nu,2,6,\nv,1,7,\n"  # lines 2-4


@pytest.mark.parametrize(("bad", "where", "message"), [
    ("w,3,11,", ", line 5, field 'rating'", "rating 11 is outside 1-10"),
    ("w,3,abc,", ", line 5, field 'rating'", "rating is not a number: 'abc'"),
    ("w,3,,", ", line 5, field 'rating'", "rating is not a number: ''"),
    (" ,3,4,", ", line 5, field 'user'", "empty user"),
    ("w,,4,", ", line 5, field 'item'", "empty item"),
    ("w,3,4,a,b", ", line 5", "expected 4 fields, saw 5"),
    ("w,3", ", line 5", "expected 4 fields, saw 2"),
])
def test_bad_line_in_a_later_chunk_names_file_line_and_field(tmp_path: Path, bad: str, where: str, message: str):
    path = bad_csv(tmp_path, GOOD + bad + "\nw,4,5,\n")
    with pytest.raises(InputError) as error:
        read_ratings_file(path, scale=(1.0, 10.0), chunk_rows=2)
    assert str(error.value) == f"{path}{where}: {message}"
    bad_lines = BadLines(skip=True)
    table = read_ratings_file(path, scale=(1.0, 10.0), chunk_rows=2, bad_lines=bad_lines)
    assert bad_lines.warnings == [f"{path}{where}: {message}"]
    assert len(table) == 4 and rows_by_pair(table)[("w", "4")] == 5


def test_first_bad_line_of_a_chunk_is_the_one_reported(tmp_path: Path):
    path = bad_csv(tmp_path, "u,1,5,\nu,2,x,\nu,3,4,extra,field\n")
    with pytest.raises(InputError, match=r", line 3, field 'rating'"):
        read_ratings_file(path, chunk_rows=10)


def test_skipping_counts_every_bad_line(tmp_path: Path):
    path = bad_csv(tmp_path, "u,1,5,\nu,2,x,\n,3,4,\nu,3,4,a,b\nu,4,99,\nu,5,\"3\",\nv,1,2,t\n")
    bad_lines = BadLines(skip=True)
    table = read_ratings_file(path, scale=(1.0, 10.0), chunk_rows=3, bad_lines=bad_lines)
    assert bad_lines.skipped == 4
    assert [warning.split(": ")[0].split(", ")[1] for warning in bad_lines.warnings] == [
        "line 3", "line 4", "line 5", "line 6"
    ]
    assert rows_by_pair(table) == {("u", "1"): 5, ("u", "5"): 3, ("v", "1"): 2}


def test_missing_column_names_it_and_the_columns_found(tmp_path: Path):
    path = bad_csv(tmp_path, "u,1,5\n", header="user,movie,rating")
    with pytest.raises(InputError) as error:
        read_ratings_file(path)
    assert str(error.value) == f"{path}, field 'item': missing column 'item' for item (columns found: user, movie, rating)"


def test_not_utf8_line(tmp_path: Path):
    path = tmp_path / "ratings.csv"
    path.write_bytes(b"user,item,rating\nu,1,5\nu,\xff,5\n")
    with pytest.raises(InputError, match=r", line 3: not UTF-8 text"):
        read_ratings_file(path, chunk_rows=1)


def test_jsonl_bad_lines(tmp_path: Path):
    path = tmp_path / "ratings.jsonl"
    path.write_text('{"user": "u", "item": "1", "rating": 5}\n{"user": "u", "item": 2, "rating": 4}\n{not json\n'
                    '{"user": "u", "item": "3", "rating": "many"}\n')
    with pytest.raises(InputError, match=r"ratings\.jsonl, line 3: not valid JSON"):
        read_ratings_file(path, chunk_rows=1)
    bad_lines = BadLines(skip=True)
    table = read_ratings_file(path, chunk_rows=1, bad_lines=bad_lines)
    assert rows_by_pair(table) == {("u", "1"): 5, ("u", "2"): 4}
    assert bad_lines.skipped == 2 and "line 4, field 'rating': rating is not a number: 'many'" in bad_lines.warnings[1]


def test_parquet_bad_row_is_named_by_row_number(tmp_path: Path):
    path = tmp_path / "ratings.parquet"
    pd.DataFrame({"user": ["a", "b", "c"], "item": ["1", "1", "1"], "rating": ["4", "5", "lots"]}).to_parquet(path)
    with pytest.raises(InputError) as error:
        read_ratings_file(path, chunk_rows=2)
    assert str(error.value) == f"{path}, line 3, field 'rating': rating is not a number: 'lots'"


@pytest.mark.parametrize(("name", "content", "message"), [
    ("ratings.txt", "user,item,rating\n", "unknown format '.txt'"),
    ("ratings.csv", "user,item,rating\n", "no usable rows (0 bad lines skipped)"),
    ("ratings.csv", "", "missing column 'user' for user (columns found: none)"),
    ("ratings.parquet", "not parquet", "not a readable parquet file"),
])
def test_unreadable_files(tmp_path: Path, name: str, content: str, message: str):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_ratings_file(path)


def test_missing_file(tmp_path: Path):
    with pytest.raises(InputError, match="cannot open"):
        read_ratings_file(tmp_path / "absent.csv")


# --- reviews ----------------------------------------------------------------------------------------------


def test_from_reviews_round_trips_the_demo_reviews():
    reviews = load_demo().reviews
    table = RatingsTable.from_reviews(reviews, scale=(1.0, 10.0))
    assert len(table) == len({(r.user, r.item) for r in reviews}) == len(reviews)
    assert len(table.user_ids) == len({r.user for r in reviews}) and table.texts is not None
    for review in reviews:
        row = table.find(table.user_code(review.user), review.item)
        assert row is not None
        assert (table.rating[row], table.texts[row]) == (np.float32(review.rating), review.text)
        assert table.score[row] == pytest.approx(review.score)
    assert np.all(np.diff(table.user) >= 0) and table.scale == (1.0, 10.0)


def test_from_reviews_computes_missing_scores_and_keeps_the_last_duplicate():
    from synth.records import Review

    reviews = [
        Review(user="b", item="x", rating=1, text="b's", score=0.9, tags=["Noir"]),
        Review(user="a", item="x", rating=2, text="first", tags=["old"]),
        Review(user="a", item="x", rating=4, text="second", tags=[" Dark", "dark", "twist"]),
    ]
    table = RatingsTable.from_reviews(reviews, scale=(0.0, 4.0))
    assert list(table.user_ids) == ["a", "b"] and table.texts == ["second", "b's"]
    assert table.score.tolist() == pytest.approx([1.0, 0.9]) and table.tags == {0: ("dark", "twist"), 1: ("noir",)}
