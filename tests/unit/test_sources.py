"""The sources on the shared real data: MovieLens + Rotten Tomatoes critics as personas."""

import asyncio

from synth.config import GenerateConfig
from synth.data.bad_lines import BadLines
from synth.data.demo import demo_path
from synth.data.sources import load_movielens_rt
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.personas import ReviewIndex, make_game_specs
from synth.runner import generate
from tests.helpers import read_records


def test_movielens_rt_personas_and_knowledge():
    data = load_movielens_rt(None, None, BadLines())
    assert len(data.reviews) == 13865 and len(data.catalog) == 1722
    assert all(r.item in data.catalog for r in data.reviews)
    described = [item for item in data.catalog.values() if 'A critic: "' in item.description]
    assert len(described) == len(data.catalog)  # every catalog movie has at least one critic quote
    specs, plan = make_game_specs(ReviewIndex.from_reviews(data.reviews), data.catalog, n=300, seed=0)
    report = plan.report
    assert (report.users, report.eligible, report.too_few_reviews, report.no_target) == (585, 267, 315, 3)
    assert len({s.persona.user_id for s in specs[:267]}) == 267
    assert all(s.persona.target.score == 1.0 for s in specs)  # fresh reviews are the targets


def test_pearl_runs_on_movielens_rt(tmp_path):
    config = GenerateConfig(source="movielens+rt", n=2, seed=3, progress=False)
    manifest = asyncio.run(generate(config, tmp_path, backend=ScriptedBackend(rule_following_script)))
    records = read_records(tmp_path)
    assert len(records) == 2 and all(r.outcome.accepted_target for r in records)
    assert manifest.counts.extra["persona_users_eligible"] == 267 and manifest.counts.extra["rt_critics"] == 585


def test_pearl_runs_on_movielens_ratings(tmp_path):
    """Seekers are MovieLens users: personas from their ratings and tags (no review text), which the free
    seeker's prompt shows."""
    config = GenerateConfig(source="movielens", n=3, seed=2, wording="free", progress=False)
    prompts: list[str] = []

    def recording_script(messages, schema):
        prompts.append(messages[0]["content"])
        return rule_following_script(messages, schema)

    manifest = asyncio.run(generate(config, tmp_path, backend=ScriptedBackend(recording_script)))
    records = read_records(tmp_path)
    assert len(records) == 3 and all(r.outcome.accepted_target for r in records)
    for record in records:
        assert record.persona.target.text == "" and record.persona.target.score >= 0.75
        assert record.persona.target.scale == [0.5, 5.0] and record.persona.target.stars.endswith("/5")
    counts = manifest.counts.extra
    assert counts["available_pairs"] == 48580 and counts["distinct_user_target_pairs"] == 3
    assert counts["distinct_personas"] == 3 and counts["persona_users_eligible"] == 609
    seeker = next(p for p in prompts if "You play a movie fan" in p)
    assert "/5)." in seeker and "About it:" in seeker  # stars, and what the movie is where no review says


def test_pearl_runs_on_a_ratings_file_with_tags(tmp_path):
    """--catalog with --ratings: a ratings table (user, item, rating, tags) makes the personas."""
    ratings = tmp_path / "ratings.csv"
    rows = [f"u{u},m00{i},{8 if i < 4 else 2},{'slow burn|twist' if i == 1 else ''}" for u in (1, 2) for i in range(1, 7)]
    ratings.write_text("user,item,rating,tags\n" + "\n".join(rows) + "\n")
    config = GenerateConfig(catalog=demo_path("catalog.jsonl"), ratings=ratings, n=6, seed=1, progress=False)
    manifest = asyncio.run(generate(config, tmp_path / "out", backend=ScriptedBackend(rule_following_script)))
    records = read_records(tmp_path / "out")
    assert {(r.user_id, r.target_item.id) for r in records} == {(f"u{u}", f"m00{i}") for u in (1, 2) for i in (1, 2, 3)}
    tagged = [r for r in records if r.target_item.id == "m001"]
    assert tagged and all(r.persona.target.tags == ["slow burn", "twist"] for r in tagged)
    assert all(any(g.score < 0.5 for g in r.persona.general) for r in records)  # a disliked movie in every taste
    assert manifest.counts.extra["available_pairs"] == 6
