"""The sources on the shared real data: MovieLens + Rotten Tomatoes critics as personas."""

import asyncio

from synth.config import GenerateConfig
from synth.data.bad_lines import BadLines
from synth.data.sources import load_movielens_rt
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.personas import make_game_specs
from synth.runner import generate
from tests.helpers import read_records


def test_movielens_rt_personas_and_knowledge():
    data = load_movielens_rt(None, None, BadLines())
    assert len(data.reviews) == 13865 and len(data.catalog) == 1722
    assert all(r.item in data.catalog for r in data.reviews)
    described = [item for item in data.catalog.values() if 'A critic: "' in item.description]
    assert len(described) == len(data.catalog)  # every catalog movie has at least one critic quote
    specs, report = make_game_specs(data.reviews, data.catalog, n=300, seed=0)
    assert (report.users, report.eligible, report.too_few_reviews, report.no_target) == (585, 267, 315, 3)
    assert len({s.persona.user_id for s in specs[:267]}) == 267
    assert all(s.persona.target.score == 1.0 for s in specs)  # fresh reviews are the targets


def test_pearl_runs_on_movielens_rt(tmp_path):
    config = GenerateConfig(source="movielens+rt", n=2, seed=3, progress=False)
    manifest = asyncio.run(generate(config, tmp_path, backend=ScriptedBackend(rule_following_script)))
    records = read_records(tmp_path)
    assert len(records) == 2 and all(r.outcome.accepted_target for r in records)
    assert manifest.counts.extra["persona_users_eligible"] == 267 and manifest.counts.extra["rt_critics"] == 585
