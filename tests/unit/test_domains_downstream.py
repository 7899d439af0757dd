"""Everything after generation in every domain: a books-demo run and an Amazon-sample run (products), played by the
scripted backend once, go through synth filter, stats, every export and report; the exports read back, the card
names the source's terms and the domain's tag, and no heading speaks of movies. Then the short-title rule
(synth.short_titles): a long product title is found by its short form, a movie title only whole."""

from __future__ import annotations

import asyncio
import csv
import json
import re
from pathlib import Path

import pytest

from synth.analysis.defects.detectors import ReplyContext, mentions
from synth.analysis.defects.state import suggests_unlisted, unsaid_reference
from synth.config import GenerateConfig
from synth.data.mentions import TitleTagger
from synth.datasets import load_dialogues
from synth.export.card import CardOptions
from synth.export.exporters import export_run
from synth.filters.titles import TitleSpotter
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.records import Item
from synth.replies import match_candidate, parse_recommender
from synth.runner import generate
from synth.runs.folder import RunFolder
from synth.short_titles import short_title
from tests.export_readers import redial_problems
from tests.helpers import invoke_synth

datasets = pytest.importorskip("datasets")
from huggingface_hub import DatasetCard  # noqa: E402

AMAZON = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "amazon2023"
MOVIE_WORDS = re.compile(r"\b(movie|movies|film|films)\b", re.IGNORECASE)
SHARES = {"train": 0.5, "validation": 0.25, "test": 0.25}
EXPORTS = ("redial", "pearl", "crslab", "dialoguekit", "hf")


def no_movie_script(messages: list[dict[str, str]], schema: dict | None) -> str:
    """The rule-following script with its one canned line about "films" in other words."""
    return rule_following_script(messages, schema).replace("films", "books")


def _run(folder: Path, config: GenerateConfig) -> Path:
    manifest = asyncio.run(generate(config, folder, backend=ScriptedBackend(no_movie_script)))
    assert manifest.counts.written == config.n
    return folder


@pytest.fixture(scope="module")
def books_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight dialogues of the books demo."""
    config = GenerateConfig(n=8, seed=2, domain="books", strategy="pearl", progress=False)
    return _run(tmp_path_factory.mktemp("books-run"), config)


@pytest.fixture(scope="module")
def amazon_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight dialogues of the Amazon Reviews 2023 sample, in its own domain (products)."""
    config = GenerateConfig(n=8, seed=3, source=f"amazon:{AMAZON}", strategy="pearl", progress=False)
    return _run(tmp_path_factory.mktemp("amazon-run"), config)


@pytest.fixture(scope="module", params=["books", "amazon"])
def domain_run(request: pytest.FixtureRequest) -> tuple[str, Path]:
    return request.param, request.getfixturevalue(f"{request.param}_run")


def test_filter_stats_and_report_run_and_speak_of_no_movies(domain_run, tmp_path):
    name, run = domain_run
    filtered = tmp_path / "filtered"
    # the four commands in this process (no new interpreter each); the console script is tested in test_stats.py
    result = invoke_synth("filter", str(run), "--out", str(filtered), "--filters", "basic")
    assert result.returncode == 0, result.stderr
    assert (filtered / "dialogues.jsonl").read_text().strip()
    result = invoke_synth("stats", str(filtered), "--no-similarity", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert not MOVIE_WORDS.search(result.stdout.split("target coverage –")[0]), result.stdout
    figures = json.loads(invoke_synth("stats", str(filtered), "--json", "--no-similarity").stdout)
    assert figures["distinct_items"] > 0
    assert all(value is None for value in figures["diversity"]["target_coverage"].values())
    result = invoke_synth("report", str(filtered), "--no-similarity", "--no-progress")
    assert result.returncode == 0, result.stderr
    page = (filtered / "report.html").read_text()
    headings = " ".join(re.findall(r"<(?:h\d|th|caption|summary)[^>]*>(.*?)</", page, re.DOTALL))
    headings = re.sub(r"target coverage –:[^<]*", "", headings)  # the one note that says the reference sets are movies
    assert headings and not MOVIE_WORDS.search(headings)
    assert "changed since the run" not in page  # the prompts shown are the domain's, as the run used them


@pytest.mark.parametrize("to", EXPORTS)
def test_every_export_writes_and_reads_back(domain_run, tmp_path, to):
    name, run = domain_run
    exported = export_run(run, to, tmp_path, shares=SHARES, options=CardOptions())
    catalog = RunFolder.open(run).items
    dialogues = load_dialogues(tmp_path)
    assert len(dialogues) == 8
    if to in ("redial", "crslab", "dialoguekit"):  # the titles in the text are tagged as the run's items
        assert exported.facts["mentions"]["share"] >= 0.95
        assert any(turn.items for dialogue in dialogues for turn in dialogue.turns)
    if to == "redial":
        assert redial_problems(tmp_path) == []
        with (tmp_path / "movie_ids.csv").open() as table:
            assert {row["itemId"] for row in csv.DictReader(table)} == set(catalog)
    if to == "crslab":
        assert len(json.loads((tmp_path / "movie_ids.json").read_text())) == len(catalog)
    if to == "dialoguekit":
        with (tmp_path / "movies.csv").open() as table:
            assert {row["title"] for row in csv.DictReader(table)} == {item.display for item in catalog.values()}


def test_the_card_names_the_sources_terms_and_the_domain(books_run, amazon_run, tmp_path):
    cards = {}
    for name, run in (("books", books_run), ("amazon", amazon_run)):
        export_run(run, "hf", tmp_path / name, shares=SHARES, options=CardOptions())
        cards[name] = DatasetCard.load(tmp_path / name / "README.md")
    books, amazon = (cards[n].data.to_dict() for n in ("books", "amazon"))
    assert "books" in books["tags"] and "movies" not in books["tags"] and books["license"] == "apache-2.0"
    assert "products" in amazon["tags"] and "movies" not in amazon["tags"]
    assert amazon["license"] == "other" and amazon["license_name"] == "amazon-derived-research-only"
    assert amazon["source_datasets"] == ["Amazon Reviews 2023"] and "Hou et al. (2024)" in cards["amazon"].text


# ---- the short-title rule ----------------------------------------------------------------------------------

SHAMPOO = Item(id="s", title="Meadowbrook Gentle Daily Shampoo, Sulfate Free, 12 fl oz")
CONDITIONER = Item(id="c", title="Meadowbrook Argan Oil Conditioner, 12 fl oz")
DRYER = Item(id="d", title="AirLite Ionic Hair Dryer 1875W")
SAID = "You could try the Meadowbrook Gentle Daily Shampoo: it is mild and rinses clean."


def test_short_titles_by_rule():
    assert short_title(SHAMPOO.title, "first_words") == "Meadowbrook Gentle Daily Shampoo"
    assert short_title(DRYER.title, "first_words") == "AirLite Ionic Hair Dryer"
    assert short_title(DRYER.title, "before_punctuation") is None  # no punctuation to cut at
    series = "Harry Potter and the Sorcerer's Stone (Harry Potter, #1)"
    assert short_title(series, "before_punctuation") == "Harry Potter and the Sorcerer's Stone"
    assert short_title("Coastline Lip Balm, Berry", "first_words") is None  # four words: not long
    assert short_title("The Good, the Bad and the Ugly", "whole") is None


def test_a_long_product_title_is_found_by_its_short_form():
    tagger = TitleTagger([SHAMPOO, CONDITIONER, DRYER], "first_words")
    assert [m.item for m in tagger.find(SAID)] == ["s"]
    assert [m.item for m in tagger.find("The AirLite Ionic Hair Dryer is quiet.")] == ["d"]
    assert TitleSpotter(SHAMPOO.title, short_titles="first_words").find(SAID)
    assert mentions(SAID, SHAMPOO.title, "first_words")
    assert match_candidate("Meadowbrook Gentle Daily Shampoo", [SHAMPOO, CONDITIONER], "first_words") is SHAMPOO
    reply = parse_recommender(json.dumps({"think": "mild", "item": "the shampoo", "utterance": SAID}),
                              [SHAMPOO, CONDITIONER], short_titles="first_words")
    assert reply.item_id == "s"


def test_the_state_checks_know_a_product_by_its_short_form():
    """A recommender suggesting its shown product by the short form is no unlisted suggestion (a short form is
    the start of the title); a recommender recalling the shampoo the seeker named short speaks of something
    said, which under the movies' rule it does not."""
    shown = dict.fromkeys((SHAMPOO.title, CONDITIONER.title), "")
    suggestion = 'How about "Meadowbrook Gentle Daily Shampoo"? It is mild.'
    assert suggests_unlisted(suggestion, ReplyContext(role="recommender", descriptions=shown)) is None
    assert suggests_unlisted('How about "Meadowbrook Hair Mask"?', ReplyContext(role="recommender", descriptions=shown))
    seeker_said = "I use the Meadowbrook Gentle Daily Shampoo every day."
    recall = f"Since you mentioned the {SHAMPOO.title}, try its conditioner."
    short = ReplyContext(role="recommender", other_last=seeker_said, descriptions=shown, short_titles="first_words")
    assert unsaid_reference(recall, short) is None
    assert unsaid_reference(recall, ReplyContext(role="recommender", other_last=seeker_said, descriptions=shown))


def test_a_short_form_two_items_share_names_neither():
    twin = Item(id="t", title="Meadowbrook Gentle Daily Shampoo, Lavender, 16 fl oz")
    assert TitleTagger([SHAMPOO, twin], "first_words").find(SAID) == []
    assert TitleTagger([SHAMPOO, twin], "first_words").find(f"I love the {twin.title}.")[0].item == "t"


def test_movie_titles_still_need_the_whole_title():
    lotr = Item(id="m", title="The Lord of the Rings: The Fellowship of the Ring", year=2001)
    ugly = Item(id="u", title="Good, the Bad and the Ugly, The", year=1966)
    said = "The Good is a fine word, and the Lord of the dance too."
    assert TitleTagger([lotr, ugly]).find(said) == []
    assert not TitleSpotter(ugly.display).find(said) and not mentions(said, ugly.display)
    assert not TitleTagger([SHAMPOO]).find(SAID)  # movies' rule ("whole") on a long title: only the whole
    assert not mentions(SAID, SHAMPOO.title) and match_candidate("Meadowbrook Gentle Daily Shampoo", [SHAMPOO]) is None
