"""The public review formats (Amazon Reviews 2023, Yelp, UCSD Goodreads) on the hand-made samples in
data/fixtures: items, reviews, scales, what is skipped and counted, gzip, bad lines, streaming, and runs."""

import asyncio
import gzip
import inspect
import json
import random
import shutil

import pytest

from synth.config import GenerateConfig
from synth.data.bad_lines import BadLines
from synth.data.configured import load_data
from synth.data.formats.amazon import amazon_files, load_amazon, read_amazon_items, read_amazon_reviews
from synth.data.formats.common import shorten
from synth.data.formats.goodreads import read_goodreads_books, read_goodreads_reviews, shelf_genres
from synth.data.formats.yelp import read_yelp_businesses
from synth.data.sources import load_review_format
from synth.errors import InputError, SynthError
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.modes import plan_gorecdial
from synth.runner import generate
from tests.helpers import FIXTURES, read_records, run_synth

AMAZON, YELP, GOODREADS = FIXTURES / "amazon2023", FIXTURES / "yelp", FIXTURES / "goodreads"


def test_amazon_sample_maps_products_and_reviews():
    data = load_review_format("amazon", AMAZON, BadLines())
    assert data.counts == {"reviews": 20, "items": 10, "reviews_unknown_item": 1}
    assert "B0A1NAIL11" not in data.catalog  # no review names it: not kept
    shampoo = data.catalog["B0A1SHAMP1"]
    assert shampoo.title == "Meadowbrook Gentle Daily Shampoo, Sulfate Free, 12 fl oz" and shampoo.year is None
    assert shampoo.genres == ["Beauty & Personal Care", "Hair Care", "Shampoo"]
    assert shampoo.description == (
        "By Meadowbrook. All Beauty: Beauty & Personal Care > Hair Care > Shampoo. Features: Sulfate and paraben free; "
        "Light chamomile scent; Safe for color-treated hair. Price: $12.99. A mild everyday shampoo for fine hair. "
        "Rinses clean without stripping."
    )
    assert "Price" not in data.catalog["B0A1CURL08"].description  # price "None"
    first = data.reviews[0]
    assert (first.user, first.item, first.rating, first.score, first.scale) == ("AG3USER1", "B0A1SHAMP1", 5.0, 1.0, [1.0, 5.0])
    assert first.text.startswith("Finally a gentle one. My fine hair")
    verbena = next(r for r in data.reviews if r.item == "B0A1PERF09" and r.user == "AG3USER1")
    assert "<br" not in verbena.text and "lunch. I get compliments." in verbena.text
    untitled = next(r for r in data.reviews if r.user == "AG3USER4" and r.item == "B0A1SERUM3")
    assert untitled.text == "Works, though the dropper is fiddly." and untitled.score == 0.75
    assert list(data.ratings.columns) == ["user", "item", "rating"] and len(data.ratings) == 20


def test_yelp_sample_maps_businesses_and_reviews():
    data = load_review_format("yelp", YELP, BadLines())
    assert data.counts == {"reviews": 13, "items": 8, "reviews_unknown_item": 1}
    ramen = data.catalog["bz-ramen-01"]
    assert (ramen.title, ramen.genres) == ("Kumo Ramen House", ["Ramen", "Japanese", "Restaurants"])
    assert ramen.description == "In Philadelphia, PA. Ramen, Japanese, Restaurants. Price range: $$."
    assert data.catalog["bz-bakery-07"].description == "In Tucson, AZ. Bakeries, Desserts."  # no attributes
    pizza = next(r for r in data.reviews if r.user == "yu-ben" and r.item == "bz-pizza-02")
    assert (pizza.rating, pizza.score, pizza.scale) == (1.0, 0.0, [1.0, 5.0])
    unlisted = list(read_yelp_businesses(YELP / "business.json", BadLines()))[-1]
    assert (unlisted.id, unlisted.genres) == ("bz-nocat-09", [])  # categories null


def test_goodreads_sample_reads_gzip_skips_unrated_and_names_authors():
    data = load_review_format("goodreads", GOODREADS, BadLines())
    assert data.counts == {"reviews": 12, "items": 7, "reviews_unknown_item": 1, "reviews_unrated": 1}
    assert not any(r.user == "gu-01" and r.item == "1006" for r in data.reviews)  # rating 0: no rating
    salt = data.catalog["1001"]
    assert (salt.title, salt.year, salt.genres) == ("The Salt Hours", 2011, ["Poetry", "Contemporary", "Nature"])
    assert salt.description.startswith("By Mara Quill. Poetry, Contemporary, Nature. Poems of tide")
    assert data.catalog["1003"].description.startswith("By Mara Quill. ")  # the illustrator is not an author
    assert data.catalog["1004"].year is None  # publication_year ""
    assert "<br" not in data.catalog["1005"].description
    assert data.catalog["1006"].genres == ["Poetry", "Children's", "Picture Books"]
    review = next(r for r in data.reviews if r.user == "gu-02" and r.item == "1007")
    assert (review.rating, review.score) == (1.0, 0.0)


def test_goodreads_books_without_the_author_file_and_shelf_genres():
    books = {b.id: b for b in read_goodreads_books(GOODREADS / "goodreads_books_poetry.json", BadLines())}
    assert len(books) == 7 and books["1001"].description.startswith("Poetry, Contemporary, Nature.")
    shelves = [{"count": "90", "name": "to-read"}, {"count": "50", "name": "read-2017"}, {"count": "40", "name": "young-adult"},
               {"count": "30", "name": "my-books"}, {"count": "20", "name": "fantasy"}, {"count": "10", "name": "2019"}]
    assert shelf_genres(shelves) == ["Young Adult", "Fantasy"]
    assert shelf_genres(None) == []


def test_a_gzipped_copy_reads_the_same(tmp_path):
    for name in ("All_Beauty.jsonl", "meta_All_Beauty.jsonl"):
        with gzip.open(tmp_path / f"{name}.gz", "wb") as out:
            out.write((AMAZON / name).read_bytes())
    assert amazon_files(tmp_path) == ([tmp_path / "All_Beauty.jsonl.gz"], [tmp_path / "meta_All_Beauty.jsonl.gz"])
    plain, zipped = load_review_format("amazon", AMAZON, BadLines()), load_review_format("amazon", tmp_path, BadLines())
    assert zipped.catalog == plain.catalog and zipped.reviews == plain.reviews


def test_a_damaged_gzip_file_names_the_file(tmp_path):
    good = gzip.compress((AMAZON / "All_Beauty.jsonl").read_bytes())
    (tmp_path / "All_Beauty.jsonl.gz").write_bytes(good[: len(good) // 2])
    with pytest.raises(InputError, match="All_Beauty.jsonl.gz, line .*: cannot read"):
        list(read_amazon_reviews(tmp_path / "All_Beauty.jsonl.gz", BadLines()))


def _copy_with(tmp_path, source, name, line_number, change):
    """A copy of the sample folder `source` where line `line_number` of file `name` is `change(line)`."""
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    lines = (folder / name).read_text().splitlines(keepends=True)
    lines[line_number - 1] = change(lines[line_number - 1])
    (folder / name).write_text("".join(lines))
    return folder


@pytest.mark.parametrize(("source", "name", "line", "change", "where"), [
    (AMAZON, "All_Beauty.jsonl", 3, lambda line: line[:40] + "\n", "line 3: not valid JSON"),
    (AMAZON, "All_Beauty.jsonl", 4, lambda line: line.replace('"user_id"', '"user"'), "line 4, field 'user_id': missing"),
    (AMAZON, "All_Beauty.jsonl", 1, lambda line: line.replace('"rating": 5.0', '"rating": 6'), "line 1, field 'rating': rating 6"),
    (AMAZON, "meta_All_Beauty.jsonl", 2, lambda line: line.replace('"title"', '"name"'), "line 2, field 'title': missing"),
    (YELP, "review.json", 2, lambda line: line.replace('"stars": 4.0', '"stars": "four"'), "line 2, field 'stars': rating is not"),
    (YELP, "business.json", 1, lambda line: line.replace('"name": "Kumo Ramen House"', '"name": ""'), "line 1, field 'name': empty"),
    (GOODREADS, "goodreads_books_poetry.json", 3, lambda line: line.replace('"book_id"', '"id"'), "line 3, field 'book_id': missing"),
])
def test_a_bad_line_names_the_file_line_and_field(tmp_path, source, name, line, change, where):
    folder = _copy_with(tmp_path, source, name, line, change)
    fmt = {AMAZON: "amazon", YELP: "yelp", GOODREADS: "goodreads"}[source]
    with pytest.raises(InputError, match=f"{name}, {where}"):
        load_review_format(fmt, folder, BadLines())
    skipping = BadLines(skip=True)
    data = load_review_format(fmt, folder, skipping)
    assert skipping.skipped == 1 and data.reviews


def test_a_bad_line_of_an_item_no_review_names_is_not_checked(tmp_path):
    """Only the items kept reviews name are validated in full: the unreviewed nail file's title can be anything."""
    folder = _copy_with(tmp_path, AMAZON, "meta_All_Beauty.jsonl", 11, lambda line: line.replace('"title"', '"name"'))
    assert len(load_review_format("amazon", folder, BadLines()).catalog) == 10


def test_the_readers_stream(tmp_path):
    """The readers are generators: the first records come before the rest of the file is read (a broken last
    line is reached only when asked for)."""
    for name in ("All_Beauty.jsonl", "meta_All_Beauty.jsonl"):
        (tmp_path / name).write_text((AMAZON / name).read_text() + "{broken\n")
    reviews = read_amazon_reviews(tmp_path / "All_Beauty.jsonl", BadLines())
    items = read_amazon_items(tmp_path / "meta_All_Beauty.jsonl", BadLines())
    assert inspect.isgenerator(reviews) and inspect.isgenerator(items)
    assert next(reviews).user == "AG3USER1" and next(items).id == "B0A1SHAMP1"
    with pytest.raises(InputError, match="line 22: not valid JSON"):
        list(reviews)
    goodreads = read_goodreads_reviews(GOODREADS / "goodreads_reviews_poetry.json.gz", BadLines())
    assert inspect.isgenerator(goodreads) and next(goodreads).item == "1001"


def test_max_reviews_keeps_the_first_reviews_and_their_items_only():
    reviews, items = amazon_files(AMAZON)
    data = load_amazon(reviews, items, bad_lines=BadLines(), max_reviews=5)
    assert [r.user for r in data.reviews] == ["AG3USER1"] * 5
    assert set(data.catalog) == {r.item for r in data.reviews} and data.counts["items"] == 5


def test_folders_without_the_files_and_unknown_sources(tmp_path):
    with pytest.raises(InputError, match=r"no metadata file here \(looked for meta_\*\.jsonl\[\.gz\]\)"):
        load_review_format("amazon", tmp_path, BadLines())
    with pytest.raises(InputError, match="not a folder, nor a dataset"):
        load_review_format("yelp", tmp_path / "missing", BadLines())
    with pytest.raises(ValueError, match="unknown source 'books:x'"):
        GenerateConfig(source="books:x")
    assert GenerateConfig(source="goodreads:some/dir").review_source[0] == "goodreads"


def test_format_reads_explicit_catalog_and_review_files():
    config = GenerateConfig(catalog=YELP / "business.json", reviews=YELP / "review.json", source_format="yelp")
    assert len(load_data(config).reviews) == 13
    with pytest.raises(SynthError, match="--format yelp reads --catalog"):
        load_data(config.model_copy(update={"rating_scale": "1-5"}))


def test_shorten_cuts_at_a_word():
    assert shorten("one two three", 9) == "one two..." and shorten("short", 9) == "short"


def test_plan_from_the_amazon_sample():
    result = run_synth("generate", "--source", f"amazon:{AMAZON}", "--n", "3", "--plan", "--json")
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    assert plan["distinct_users"] == 3 and plan["available_pairs"] == 13 and plan["source"] == f"amazon:{AMAZON}"


def test_a_scripted_run_writes_dialogues_from_the_amazon_sample(tmp_path):
    config = GenerateConfig(source=f"amazon:{AMAZON}", n=3, seed=1, strategy="pearl", progress=False)
    manifest = asyncio.run(generate(config, tmp_path, backend=ScriptedBackend(rule_following_script)))
    records = read_records(tmp_path)
    assert len(records) == 3 and all(r.target_item.id.startswith("B0A1") for r in records)
    assert {r.user_id for r in records} <= {"AG3USER1", "AG3USER2", "AG3USER3", "AG3USER4"}
    assert all(r.persona.target.scale == [1.0, 5.0] and r.persona.target.score >= 0.75 for r in records)
    assert manifest.counts.extra["reviews_unknown_item"] == 1


def test_gorecdial_sets_are_drawn_from_a_review_format_s_ratings(tmp_path):
    """Two clusters of 25 products, 60 users who like 12 of their cluster's and dislike 6 of the other's: the
    reviews' ratings are the co-ratings GoRecDial's sets come from."""
    rng = random.Random(0)
    items = [f"A{cluster}{index:02d}" for cluster in "XY" for index in range(25)]
    with (tmp_path / "meta_Toys.jsonl").open("w") as out:
        for asin in items:
            out.write(json.dumps({"parent_asin": asin, "title": f"Toy {asin}", "categories": ["Toys", asin[1]]}) + "\n")
    with (tmp_path / "Toys.jsonl").open("w") as out:
        for user in range(60):
            own = "XY"[user % 2]
            liked = rng.sample([a for a in items if a[1] == own], 12)
            disliked = rng.sample([a for a in items if a[1] != own], 6)
            for asin, stars in [(a, rng.choice([4.0, 5.0])) for a in liked] + [(a, rng.choice([1.0, 2.0])) for a in disliked]:
                out.write(json.dumps({"user_id": f"U{user}", "parent_asin": asin, "rating": stars, "text": "ok"}) + "\n")
    config = GenerateConfig(source=f"amazon:{tmp_path}", mode="gorecdial", n=2, min_item_ratings=5, embedding_dim=8)
    planned = plan_gorecdial(config, load_data(config))
    assert len(planned.specs) == 2
    for spec in planned.specs:
        sets = spec.movie_set
        assert len({item[1] for item in sets.seeker_items}) == 1  # one cluster
        assert sets.candidates[sets.correct_index][1] == sets.seeker_items[0][1]
