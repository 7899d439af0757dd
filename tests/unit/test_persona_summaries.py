"""Persona summaries: which ratings the prompt shows, the cache keys, the retry and format rules (a scripted
backend stands in for the model: logic only), and the runner's hook."""

import asyncio
import json

import pytest

from synth.config import GenerateConfig
from synth.item_knowledge import SummaryCache
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.persona_summaries import (
    parse_persona_summary,
    persona_summary_key,
    shown_ratings,
    summarize_personas,
)
from synth.personas import GameSpec, ReviewIndex, make_game_specs
from synth.records import Item, Persona, Review
from synth.replies import ReplyFormatError
from synth.runner import generate
from tests.helpers import read_records


def summary_script(text="You like slow, moody thrillers; you dislike loud comedies."):
    def script(messages, schema):
        assert set(schema["properties"]) == {"summary"}
        return json.dumps({"summary": text})

    return script


def specs_of(reviews, catalog, n=20):
    index = ReviewIndex.from_reviews(reviews)
    return make_game_specs(index, catalog, n=n, seed=3)[0], index


def summarise(specs, index, catalog, backend, cache, **options):
    return asyncio.run(summarize_personas(specs, index, catalog, backend, cache, progress=False, **options))


def test_the_best_and_worst_rated_items_are_shown_ties_by_item_id(tmp_path):
    catalog = {i: Item(id=i, title=f"Movie {i}") for i in "abcdefg"}
    scores = {"a": 0.9, "b": 0.2, "c": 0.9, "d": 0.5, "e": 0.2, "f": 0.7, "g": 1.0}
    reviews = [Review(user="u", item=i, rating=s * 10, text="", score=s) for i, s in scores.items()]
    reviews.append(Review(user="u", item="zz", rating=10, text="", score=1.0))  # not in the catalog: never shown
    reviews.append(Review(user="v", item="a", rating=1, text="", score=0.0))  # another user's
    index = ReviewIndex.from_reviews(reviews)
    liked, disliked = shown_ratings(index, "u", catalog, liked=3, disliked=2)
    assert [r.item for r in liked] == ["g", "a", "c"]
    assert [r.item for r in disliked] == ["b", "e"]
    liked, disliked = shown_ratings(index, "u", catalog, liked=5, disliked=4)  # none shown twice
    assert [r.item for r in liked] == ["g", "a", "c", "f", "d"] and [r.item for r in disliked] == ["b", "e"]
    assert shown_ratings(index, "nobody", catalog) == ([], [])

    rated = [r.model_copy(update={"scale": (0.0, 10.0), "tags": ["slow burn"] if r.item == "g" else []}) for r in reviews]
    persona = Persona(user_id="u", general=[rated[0]], target=rated[6])
    backend = ScriptedBackend(summary_script())
    spec = GameSpec("s", 1, persona, catalog["g"])
    summarise([spec], ReviewIndex.from_reviews(rated), catalog, backend, SummaryCache(tmp_path / "p.sqlite"), shown_liked=3, shown_disliked=2)
    prompt = backend.calls[0][0]["content"]
    assert "- Movie g: they loved it (10/10). Their tags: slow burn." in prompt
    assert prompt.index("Movie b") > prompt.index("rated lowest") > prompt.index("Movie c") and "Movie f" not in prompt


def test_the_key_covers_model_prompt_user_and_every_shown_rating(catalog, reviews):
    shown = [r for r in reviews if r.user == reviews[0].user][:3]
    key = persona_summary_key("m", "p", "u", shown, catalog)
    assert key == persona_summary_key("m", "p", "u", list(shown), catalog)
    changed = [shown[0].model_copy(update={"rating": shown[0].rating - 1}), *shown[1:]]
    others = {
        persona_summary_key("m2", "p", "u", shown, catalog),
        persona_summary_key("m", "p2", "u", shown, catalog),
        persona_summary_key("m", "p", "u2", shown, catalog),
        persona_summary_key("m", "p", "u", shown[:2], catalog),
        persona_summary_key("m", "p", "u", changed, catalog),
    }
    assert key not in others and len(others) == 5


def test_one_summary_per_user_then_cached(tmp_path, catalog, reviews):
    specs, index = specs_of(reviews, catalog)
    users = {s.persona.user_id for s in specs}
    assert len(users) < len(specs)  # some users play twice, and are summarised once
    backend = ScriptedBackend(summary_script())
    summarised, counts = summarise(specs, index, catalog, backend, SummaryCache(tmp_path / "p.sqlite"))
    assert counts == {"persona_summaries_cached": 0, "persona_summaries_made": len(users), "persona_summaries_failed": 0}
    assert len(backend.calls) == len(users)
    assert [s.id for s in summarised] == [s.id for s in specs]
    assert all(s.persona.summary == "You like slow, moody thrillers; you dislike loud comedies." for s in summarised)
    assert all(s.persona.summary is None for s in specs)  # the planned specs are left as they were
    assert [s.persona.model_copy(update={"summary": None}) for s in summarised] == [s.persona for s in specs]

    user = specs[0].persona.user_id
    liked, disliked = shown_ratings(index, user, catalog)
    prompts = [m[0]["content"] for m in backend.calls]
    prompt = next(p for p in prompts if catalog[liked[0].item].display in p)
    for review in liked + disliked:
        assert catalog[review.item].display in prompt
    assert "they loved it" in prompt and liked[0].text in prompt and "None" not in prompt  # the demo has no scale

    again = ScriptedBackend(summary_script("other"))
    resumed, counts = summarise(specs, index, catalog, again, SummaryCache(tmp_path / "p.sqlite"))
    assert again.calls == [] and counts["persona_summaries_cached"] == len(users)
    assert [s.persona for s in resumed] == [s.persona for s in summarised]
    more, counts = summarise(specs, index, catalog, again, SummaryCache(tmp_path / "p.sqlite"), shown_liked=2)
    assert counts["persona_summaries_made"] == len(users)  # other shown ratings: another key


def test_a_bad_reply_is_retried_once_warmer_then_counted_failed(tmp_path, catalog, reviews):
    specs, index = specs_of(reviews, catalog, n=3)
    users = {s.persona.user_id for s in specs}
    replies = iter(["no json", json.dumps({"summary": "You like quiet dramas."})] * len(users))
    retried = ScriptedBackend(lambda m, s: next(replies))
    summarised, counts = summarise(specs, index, catalog, retried, SummaryCache(tmp_path / "a.sqlite"))
    assert counts["persona_summaries_made"] == len(users) and len(retried.calls) == 2 * len(users)
    assert {s.persona.summary for s in summarised} == {"You like quiet dramas."}

    broken = ScriptedBackend(lambda m, s: json.dumps({"summary": " "}))
    summarised, counts = summarise(specs, index, catalog, broken, SummaryCache(tmp_path / "b.sqlite"))
    assert counts == {"persona_summaries_cached": 0, "persona_summaries_made": 0, "persona_summaries_failed": len(users)}
    assert len(broken.calls) == 2 * len(users) and all(s.persona.summary is None for s in summarised)
    again = ScriptedBackend(summary_script())  # a failure is not cached: the next run asks again
    _, counts = summarise(specs, index, catalog, again, SummaryCache(tmp_path / "b.sqlite"))
    assert counts["persona_summaries_made"] == len(users)


def test_a_summary_naming_a_shown_title_is_refused():
    assert parse_persona_summary('{"summary": " You like Heathers-style satire. "}', ["Heat"]).startswith("You like")
    with pytest.raises(ReplyFormatError, match="Heat"):
        parse_persona_summary('{"summary": "You loved Heat, with its shootouts."}', ["Heat"])
    assert parse_persona_summary('{"summary": "You like heat and sun."}', ["Heat"])  # whole title, same case
    with pytest.raises(ReplyFormatError, match="non-empty"):
        parse_persona_summary('{"text": "You like it."}', [])


def test_the_runner_gives_the_records_their_summaries_and_resumes_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNTH_CACHE_DIR", str(tmp_path / "cache"))

    def script(messages, schema):
        if "summary" in (schema or {}).get("properties", {}):
            return json.dumps({"summary": f"You like the films of {messages[0]['content'].count('- ')} lines."})
        return rule_following_script(messages, schema)

    config = GenerateConfig(n=6, seed=5, wording="free", progress=False, persona_summaries=True)  # the free seeker reads it
    first = ScriptedBackend(script)
    manifest = asyncio.run(generate(config, tmp_path / "one", backend=first))
    records = read_records(tmp_path / "one")
    users = {r.user_id for r in records}
    assert manifest.counts.extra["persona_summaries_made"] == len(users) and len(records) == 6
    assert all(r.persona.summary and r.persona.summary.startswith("You like the films of") for r in records)
    seeker_systems = [m[0]["content"] for m in first.calls if "You play a movie fan" in m[0]["content"]]
    assert seeker_systems and all("Your taste in short: You like the films of" in s for s in seeker_systems)

    second = ScriptedBackend(script)
    manifest = asyncio.run(generate(config, tmp_path / "two", backend=second))
    assert manifest.counts.extra["persona_summaries_cached"] == len(users)
    assert manifest.counts.extra["persona_summaries_made"] == 0
    assert not [c for c in second.calls if "Here is how one viewer rated" in c[0]["content"]]
    assert [r.persona for r in read_records(tmp_path / "two")] == [r.persona for r in records]

    off = ScriptedBackend(script)
    asyncio.run(generate(GenerateConfig(n=6, seed=5, progress=False), tmp_path / "off", backend=off))
    assert all(r.persona.summary is None for r in read_records(tmp_path / "off"))
