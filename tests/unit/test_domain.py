"""Domain profiles: the built-in ones load, a bad one is one line naming its file and field, the movies profile
renders every template as it was before profiles (so prompt hashes and golden files stay), and a books run
prompts with no movie word."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import synth.runner
from synth.cli import app
from synth.config import GenerateConfig
from synth.domain import builtin_domains, load_domain
from synth.errors import InputError, SynthError
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.prompting import TEMPLATES, PromptSet, domain_text, prompt_hash, prompts_folder
from synth.runner import generate
from synth.runs.manifest import read_manifest
from tests.helpers import read_records

# sha256[:16] of each template's text on main before profiles existed (669e10a): the movies profile must give
# these back, or every movie run's prompt_hashes (and the golden files) would change.
MAIN_HASHES = {
    "benchmark_recommend": "1cc5f378dd41d552",
    "benchmark_respond": "2a543eb43e6cddd6",
    "gorecdial_expert_system": "783dfd04c50ad390",
    "gorecdial_expert_turn": "1aeb6f46ac7b55cb",
    "gorecdial_seeker_system": "a5b60205db9472e7",
    "gorecdial_seeker_turn": "735fef15286ba9fe",
    "item_summary": "d9492a79755a7dbe",
    "judge_guess": "c5dcfa866cb5d737",
    "judge_persona": "ddc5df9d4ad06d6c",
    "judge_stance": "e09a53d114ea76ce",
    "judge_system": "0dae0754ce03c65b",
    "persona_summary": "58de95291a00e123",
    "recommender_system": "06975934a26f68aa",
    "recommender_turn": "07151c74c44678ae",
    "seeker_system": "a1c8cea80cb2fad5",
    "seeker_turn": "59136f0be9f9fa45",
}
MOVIE_WORDS = re.compile(r"movie|film|watch", re.IGNORECASE)


def test_every_builtin_profile_loads_with_its_examples():
    assert set(builtin_domains()) >= {"movies", "books", "products", "restaurants"}
    for name in builtin_domains():
        domain = load_domain(name)
        assert domain.name == name
        prompts = PromptSet.load(mode="pearl", domain=domain)
        assert prompts.examples["seeker"] and prompts.examples["openings"]


def test_the_movies_profile_renders_every_template_as_main_wrote_it():
    movies = load_domain("movies")
    rendered = {name: prompt_hash(domain_text(prompts_folder() / f"{name}.j2", movies)) for name in MAIN_HASHES}
    assert rendered == MAIN_HASHES
    assert {n for names in TEMPLATES.values() for n in names} == set(MAIN_HASHES)


def test_a_bad_profile_is_one_error_naming_its_file_and_field(tmp_path):
    fields = yaml.safe_load((prompts_folder() / "domains" / "books.yaml").read_text())
    del fields["noun"]
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(fields))
    with pytest.raises(InputError, match=r"mine\.yaml, field 'noun': missing"):
        load_domain(str(path))
    fields["noun"], fields["verb"] = "book", "{{ read }}"
    path.write_text(yaml.safe_dump(fields))
    with pytest.raises(InputError, match=r"mine\.yaml, field 'verb': .*template would read as code"):
        load_domain(str(path))
    with pytest.raises(SynthError, match="not a built-in profile"):
        load_domain("boooks")


def test_a_user_profile_file_plays_like_the_builtin_one(tmp_path):
    path = tmp_path / "novels.yaml"
    path.write_text((prompts_folder() / "domains" / "books.yaml").read_text().replace("noun: book\n", "noun: novel\n"))
    prompts = PromptSet.load(mode="pearl", domain=load_domain(str(path)))
    assert "a friendly novel recommender" in prompts.render("recommender_system", planned=False, example=_example(prompts), think=True)


def _example(prompts: PromptSet) -> dict:
    return prompts.examples["recommender"][0]


def no_movie_script(messages: list[dict[str, str]], schema: dict | None) -> str:
    """The rule-following script, whose one canned line about taste ("smart, moody films") says books."""
    return rule_following_script(messages, schema).replace("films", "books")


SEEKER_SYSTEM_LINES = {  # each wording's seeker system prompt, in the books domain's words
    "free": "You play a reader chatting with a recommender to find a book to read next.",
    "decided": "You write one message in a chat between a reader who wants a book to read next and a friendly book "
               "recommender. You are the one looking for a book",
}


@pytest.mark.parametrize(("strategy", "wording"), [("human", "decided"), ("pearl", "decided"), ("human", "free")])
def test_a_books_run_prompts_and_speaks_without_movie_words(tmp_path, strategy, wording):
    backend = ScriptedBackend(no_movie_script, keep_calls=True)
    config = GenerateConfig(n=3, seed=2, domain="books", strategy=strategy, wording=wording, progress=False)
    manifest = asyncio.run(generate(config, tmp_path, backend=backend))
    assert manifest.counts.written == 3 and manifest.config["domain"] == "books"
    prompts = [m["content"] for call in backend.calls for m in call]
    assert prompts and not [p for p in prompts if MOVIE_WORDS.search(p)]
    assert any(SEEKER_SYSTEM_LINES[wording] in p for p in prompts)
    for record in read_records(tmp_path):
        assert record.target_item.id.startswith("b")
        assert not [t.text for t in record.turns if MOVIE_WORDS.search(t.text)]


def test_every_template_renders_for_books_without_movie_words():
    """Every template's words, both modes, judges, summaries and the benchmark's (its Jinja code, such as the
    GoRecDial seeker's `movies` variable, is no prompt text)."""
    books = load_domain("books")
    for mode, names in TEMPLATES.items():
        for name in names:
            text = re.sub(r"\{([{%#]).*?[}%#]\}", "", domain_text(prompts_folder() / f"{name}.j2", books))
            assert not MOVIE_WORDS.search(text), (mode, name, MOVIE_WORDS.findall(text))


def test_a_movies_run_writes_no_domain_into_its_manifest(tmp_path):
    config = GenerateConfig(n=1, seed=1, strategy="pearl", progress=False)
    asyncio.run(generate(config, tmp_path, backend=ScriptedBackend(rule_following_script)))
    manifest = read_manifest(tmp_path / "manifest.json")
    assert "domain" not in manifest.config
    assert GenerateConfig(domain="books").fingerprint() != config.fingerprint()
    assert GenerateConfig(n=1, seed=1, strategy="pearl", domain="movies").fingerprint() == config.fingerprint()


def test_generate_domain_books_plays_the_books_demo(tmp_path, monkeypatch):
    monkeypatch.setattr(synth.runner, "make_backend", lambda config: ScriptedBackend(no_movie_script))
    out = tmp_path / "books"
    result = CliRunner().invoke(app, ["generate", "--domain", "books", "--n", "3", "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "dialogues.jsonl").read_text().splitlines()]
    assert len(records) == 3
    item_ids = {json.loads(line)["id"] for line in (Path(str(out)) / "items.jsonl").read_text().splitlines()}
    assert {r["target_item"]["id"] for r in records} <= item_ids and all(i.startswith("b") for i in item_ids)


@pytest.mark.parametrize("domain", ["products", "restaurants"])
def test_a_domain_without_a_demo_says_which_sources_fit(tmp_path, domain):
    result = CliRunner().invoke(app, ["generate", "--domain", domain, "--n", "1", "--out", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert f"the {domain} domain has no demo catalog: give a source that fits it" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_review_format_source_plays_in_its_own_domain(tmp_path):
    """The Amazon sample (data/fixtures/amazon2023) plays as products with no --domain: no prompt or utterance
    speaks of movies, and naming the source's own domain is the same run."""
    source = f"amazon:{Path(__file__).resolve().parents[2] / 'data' / 'fixtures' / 'amazon2023'}"
    config = GenerateConfig(n=2, seed=3, source=source, strategy="pearl", progress=False)
    assert config.domain_name == "products"
    assert GenerateConfig(source=source, domain="products").fingerprint() == GenerateConfig(source=source).fingerprint()
    backend = ScriptedBackend(no_movie_script, keep_calls=True)
    manifest = asyncio.run(generate(config, tmp_path, backend=backend))
    assert manifest.counts.written == 2 and "domain" not in manifest.config
    prompts = [m["content"] for call in backend.calls for m in call]
    assert any("product" in p for p in prompts) and not [p for p in prompts if MOVIE_WORDS.search(p)]
    for record in read_records(tmp_path):
        assert not [t.text for t in record.turns if MOVIE_WORDS.search(t.text)]


def test_a_reply_calling_a_book_a_movie_is_a_defect_only_outside_movies():
    from synth.analysis.defects.checks import FIXES, check_reply
    from synth.analysis.defects.detectors import ReplyContext

    books = ReplyContext("recommender", foreign_words=tuple(load_domain("books").foreign_words))
    said = "What do you think of the movie The Left Hand of Darkness?"
    assert [d.name for d in check_reply(said, books)] == ["other_domain"]
    assert not [d for d in check_reply("What do you think of The Left Hand of Darkness?", books) if d.name == "other_domain"]
    assert not [d for d in check_reply(said, ReplyContext("recommender")) if d.name == "other_domain"]
    assert "other_domain" in [d.name for d in check_reply("Have you watched Dune (1965)?", books)]
    assert load_domain("movies").foreign_words == [] and "other_domain" in FIXES
