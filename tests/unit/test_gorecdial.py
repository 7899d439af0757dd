import asyncio
import json

import numpy as np
import pandas as pd
import pytest

from synth.config import GenerateConfig
from synth.data.sources import load_movielens_only
from synth.gorecdial import (
    GoRecDialExpert,
    GoRecDialGamePlayer,
    GoRecDialRules,
    GoRecDialSeeker,
    GoRecDialSpec,
    game_score,
    parse_expert,
)
from synth.item_embeddings import corating_embeddings
from synth.llm.scripted import ScriptedBackend
from synth.movie_sets import MovieSet, SetRules, select_movie_sets
from synth.prompting import PromptSet
from synth.records import Item
from synth.replies import ReplyFormatError
from synth.runner import generate
from synth.set_identifiability import identifiability
from synth.simulators import Sampling
from synth.strategy.courses import course_for
from synth.strategy.model import load_strategy
from tests.helpers import first_candidate_script, read_records


@pytest.fixture(scope="module")
def movielens():
    return load_movielens_only(None)


@pytest.fixture(scope="module")
def embeddings(movielens):
    return corating_embeddings(movielens.ratings, dim=32, min_ratings=20, seed=0)


def test_coratings_put_the_most_similar_movie_first(movielens, embeddings):
    title = {i: movielens.catalog[i].title for i in embeddings.ids}
    star_wars = next(i for i in embeddings.ids if title[i] == "Star Wars: Episode IV - A New Hope")
    sims = embeddings.similarity_to(embeddings.vector([star_wars])[0])
    nearest = [title[embeddings.ids[i]] for i in np.argsort(-sims)[1:3]]
    assert "Star Wars: Episode V - The Empire Strikes Back" in nearest
    assert np.allclose(np.linalg.norm(embeddings.vectors, axis=1), 1.0)


def test_movie_sets_follow_the_rules(movielens, embeddings):
    rules = SetRules(difficulty="moderate")
    sets, report = select_movie_sets(movielens.ratings, embeddings, n=25, seed=1, rules=rules)
    assert report.kept == len(sets) == 25 and report.tried == report.kept + sum(report.dropped.values())
    ratings = movielens.ratings
    for s in sets:
        mine = ratings[ratings["user"] == s.user_id].set_index("item")["rating"]
        assert len(set(s.seeker_items)) == 5 and all(mine[i] >= rules.like_threshold for i in s.seeker_items)
        assert len(set(s.candidates)) == 5 and not set(s.candidates) & set(s.seeker_items)
        correct = s.candidates[s.correct_index]
        assert correct not in mine.index  # a real recommendation: the user never rated it
        assert int(np.argmax(s.similarities)) == s.correct_index == int(np.argmax(s.points))
        assert rules.hard_margin <= s.margin <= rules.easy_margin and s.coherence >= rules.min_coherence
        assert abs(sum(s.points) - 1) < 1e-3
    again, _ = select_movie_sets(movielens.ratings, embeddings, n=25, seed=1, rules=rules)
    assert again == sets


def test_a_difficulty_fills_the_rules_it_is_not_given():
    assert SetRules() == SetRules(difficulty="paper") and SetRules().correct_pool == 1 and SetRules().easy_margin is None
    moderate = SetRules.model_validate({"difficulty": "moderate", "easy_margin": 0.6})
    assert (moderate.correct_pool, moderate.hard_margin, moderate.easy_margin) == (10, 0.45, 0.6)
    assert SetRules.model_validate(moderate.model_dump()) == moderate  # a manifest's rules read back the same
    settings = GenerateConfig.model_validate({"set_rules": {"difficulty": "hard"}})
    assert settings.set_rules.far_quantile == 0.8


def test_paper_sets_take_the_nearest_unseen_movie_and_rankers_measure_how_identifiable_it_is(movielens, embeddings):
    ratings = movielens.ratings
    sets, report = select_movie_sets(ratings, embeddings, n=20, seed=3)
    assert report.kept == 20 and not report.dropped.get("too_easy") and not report.dropped.get("too_hard")
    for s in sets:
        seen = set(ratings.loc[ratings["user"] == s.user_id, "item"])
        sims = embeddings.similarity_to(embeddings.mean_vector(s.seeker_items))
        unseen = [i for i in np.argsort(-sims, kind="stable") if embeddings.ids[i] not in seen]
        assert s.candidates[s.correct_index] == embeddings.ids[unseen[0]]  # the nearest unseen movie
    measured = identifiability(sets, ratings, movielens.catalog)
    assert measured.sets == 20 and 0 <= measured.description_first <= 20
    assert measured.corating_first > 4  # the raw co-ratings find the SVD's nearest movie more often than chance


def test_identifiability_counts_a_planted_giveaway_and_a_set_that_hides_its_movie():
    space = ["space rebels fight the galactic empire with laser swords"] * 6
    other = ["a romantic comedy of two bakers in paris", "a courtroom drama about a small town lawyer",
             "a cooking contest in a busy kitchen", "a family road trip across the desert"]
    catalog = {f"s{i}": Item(id=f"s{i}", title=f"Saga {i}", genres=["Sci-Fi"], description=d) for i, d in enumerate(space)}
    catalog |= {f"o{i}": Item(id=f"o{i}", title=f"Other {i}", genres=["Drama"], description=d) for i, d in enumerate(other)}
    fans, others = range(8), range(8, 16)  # fans love the saga and dislike the rest; the others the reverse
    rows = [(u, i, 5.0 if (u in fans) == i.startswith("s") else 1.0) for u in [*fans, *others] for i in catalog]
    ratings = pd.DataFrame(rows, columns=["user", "item", "rating"])
    seeker = [f"s{i}" for i in range(5)]
    giveaway = MovieSet(user_id="0", seeker_items=seeker, candidates=["o0", "o1", "s5", "o2", "o3"], correct_index=2,
                        similarities=[0.0] * 5, points=[0.2] * 5, coherence=1.0, margin=0.5)
    hidden = giveaway.model_copy(update={"correct_index": 0})  # the correct movie is the unlike one
    measured = identifiability([giveaway, hidden], ratings, catalog)
    assert (measured.sets, measured.description_first, measured.corating_first) == (2, 1, 1)
    assert measured.counts() == {"sets_description_first": 1, "sets_corating_first": 1}


def test_score_discounts_each_extra_recommendation():
    points = [0.1, 0.8, 0.05, 0.03, 0.02]
    assert game_score(points, 1, 1, 0.5) == 0.8
    assert game_score(points, 1, 3, 0.5) == 0.2
    assert game_score(points, None, 2, 0.5) == 0.0


def test_rules_end_the_game_only_on_an_accepted_recommendation():
    rules, points = GoRecDialRules(), [0.1, 0.8, 0.05, 0.03, 0.02]
    course = course_for("pearl", rules.ask_turns, None, seed=0)  # the expert's first turn only speaks
    offers = [course.recommender(0, answering=False, can_recommend=True, must_recommend=False)[1] for _ in range(2)]
    assert offers == [False, True]
    common = {"correct": 1, "points": points, "recommendations": 2}
    assert rules.outcome(step=3, recommended=None, accepted=True, **common) is None
    assert rules.outcome(step=3, recommended=0, accepted=False, **common) is None
    won = rules.outcome(step=5, recommended=1, accepted=True, **common)
    assert (won.ended_by, won.accepted_target, won.turns_to_goal, won.score) == ("accepted", True, 6, 0.4)
    wrong = rules.outcome(step=5, recommended=0, accepted=True, **common)
    assert (wrong.ended_by, wrong.turns_to_goal, wrong.score) == ("wrong_acceptance", None, 0.05)
    assert rules.unfinished("error", 2).model_dump(exclude_defaults=True) == {
        "accepted_target": False, "ended_by": "error", "recommendations": 2, "score": 0.0,
    }


def test_parse_expert():
    heat = Item(id="1", title="Heat", year=1995)
    assert parse_expert('{"think": "t", "item": "none", "utterance": "What do you like?"}', [heat]).item_id is None
    assert parse_expert('{"think": "t", "item": "Heat (1995)", "utterance": "Heat!"}', [heat]).item_id == "1"
    with pytest.raises(ReplyFormatError, match="neither a remaining candidate"):
        parse_expert('{"think": "t", "item": "Jaws", "utterance": "Jaws!"}', [heat])


def play(movielens, embeddings, script, n=3):
    sets, _ = select_movie_sets(movielens.ratings, embeddings, n=n, seed=2)
    backend = ScriptedBackend(script)
    prompts = PromptSet.load(mode="gorecdial")
    sampling = Sampling(max_tokens=64, max_format_retries=1)
    game = GoRecDialGamePlayer(
        movielens.catalog, GoRecDialSeeker(backend, prompts, sampling), GoRecDialExpert(backend, prompts, sampling),
        GoRecDialRules(), sampling,
    )
    return sets, [asyncio.run(game.play(GoRecDialSpec(f"g{i}", i, s))) for i, s in enumerate(sets)]


def test_game_records_decisions_correctness_and_score(movielens, embeddings):
    sets, _ = select_movie_sets(movielens.ratings, embeddings, n=1, seed=2)
    correct = "recommended " + movielens.catalog[sets[0].candidates[sets[0].correct_index]].display

    def script(messages, schema):
        props = schema["properties"]
        if "item" in props:  # speak first, then recommend the remaining candidates in order
            asked = any(m["role"] == "assistant" and m["content"].startswith("What") for m in messages)
            choice = props["item"]["enum"][0] if asked else "none"
            return json.dumps({"think": "t", "item": choice, "utterance": f"Try {choice}." if asked else "What do you love?"})
        if "accept" in props:  # the test's seeker knows the answer: accept the correct one only
            return json.dumps({"utterance": "ok", "accept": correct in messages[-1]["content"]})
        return json.dumps({"utterance": "I love sharp thrillers."})

    _, records = play(movielens, embeddings, script, n=1)
    record = records[0]
    expert_turns = [t for t in record.turns[2:] if t.role == "recommender"]
    assert expert_turns[0].decision == "speak" and all(t.decision == "recommend" for t in expert_turns[1:])
    assert len(expert_turns) - 1 == record.outcome.recommendations
    assert [t.correct for t in expert_turns[1:]] == [False] * (len(expert_turns) - 2) + [True]
    k = record.outcome.recommendations
    assert record.outcome.ended_by == "accepted" and record.outcome.accepted_target
    assert record.outcome.score == game_score(sets[0].points, sets[0].correct_index, k, 0.5)
    assert record.gorecdial.correct_index == sets[0].correct_index and len(record.gorecdial.seeker_items) == 5
    assert record.target_item.id == sets[0].candidates[sets[0].correct_index]


def test_a_silent_expert_hits_the_turn_cap(movielens, embeddings):
    def script(messages, schema):
        if "item" in schema["properties"]:
            return json.dumps({"think": "t", "item": "none", "utterance": "Tell me more?"})
        return json.dumps({"utterance": "I like drama."})

    _, records = play(movielens, embeddings, script, n=1)
    assert records[0].outcome.ended_by == "turn_cap" and records[0].outcome.score == 0.0
    assert len(records[0].turns) == 2 + 20


def test_the_first_expert_turn_may_only_ask(movielens, embeddings):
    schemas = []

    def script(messages, schema):
        if "item" in schema["properties"]:
            schemas.append(schema["properties"]["item"]["enum"])
            return json.dumps({"think": "t", "item": schemas[-1][0], "utterance": "Hm?"})
        return json.dumps({"utterance": "ok", "accept": True} if "accept" in schema["properties"] else {"utterance": "x"})

    _, records = play(movielens, embeddings, script, n=1)
    assert schemas[0] == ["none"] and len(schemas[1]) == 6  # five candidates or none
    assert records[0].turns[2].decision == "speak" and records[0].turns[4].decision == "recommend"


def test_runner_writes_gorecdial_games(tmp_path):
    config = GenerateConfig(mode="gorecdial", n=3, seed=5, progress=False)
    manifest = asyncio.run(generate(config, tmp_path, backend=ScriptedBackend(first_candidate_script)))
    records = read_records(tmp_path)
    assert len(records) == 3 and all(r.mode == "gorecdial" and r.gorecdial for r in records)
    assert manifest.counts.extra["sets_kept"] == 3 and manifest.counts.extra["set_users"] == 610
    assert all(r.outcome.ended_by in {"accepted", "wrong_acceptance"} and r.outcome.score > 0 for r in records)
    # --strategy human (the default): the greeting alone is scripted, the seeker opens, every turn has a plan
    assert all(r.scripted_turns == 1 and r.turns[1].role == "seeker" for r in records)
    assert all(t.plan is not None and t.plan.acts for r in records for t in r.turns[1:])


def test_a_decided_seeker_tells_its_sets_taste_and_accepts_only_the_correct_movie(movielens, embeddings):
    """--wording decided: the seeker's set of loved movies is its state (what it wants is what they share); each
    turn keeps its decided content; the expert's choice stays its own (here the first remaining candidate), and
    its words say an offer of it. Whatever the scripted words, the decision is the content's: only the correct
    movie is accepted."""
    sets, _ = select_movie_sets(movielens.ratings, embeddings, n=1, seed=2)
    correct = sets[0].candidates[sets[0].correct_index]
    choices_asked = []  # the expert's model asked for a choice: one entry a call

    def script(messages, schema):
        props = schema["properties"]
        if "item" in props:  # the expert recommends the remaining candidates in order
            choices_asked.append(props["item"]["enum"])
            choice = props["item"]["enum"][0]
            return json.dumps({"think": "t", "item": choice, "utterance": f"Try {choice}."})
        return json.dumps({"utterance": "Sounds fine."})  # the seeker's wording: turned down, the template speaks

    backend = ScriptedBackend(script)
    prompts = PromptSet.load(mode="gorecdial", wording=True)
    sampling = Sampling(max_tokens=64, max_format_retries=1)
    game = GoRecDialGamePlayer(
        movielens.catalog, GoRecDialSeeker(backend, prompts, sampling), GoRecDialExpert(backend, prompts, sampling),
        GoRecDialRules(ask_turns=0, wording="decided"), sampling,
    )
    record = asyncio.run(game.play(GoRecDialSpec("g0", 0, sets[0])))
    seeker_turns = [t for t in record.turns[record.scripted_turns:] if t.role == "seeker"]
    assert all(t.content is not None for t in seeker_turns)
    assert [t.content.move for t in seeker_turns[:-1]] == ["decline"] * (len(seeker_turns) - 1)
    assert seeker_turns[-1].content.move == "accept" and seeker_turns[-1].accepted
    assert record.turns[-2].recommended_item == correct and record.outcome.accepted_target
    assert movielens.catalog[correct].title in seeker_turns[-1].text
    expert_turns = [t for t in record.turns[record.scripted_turns:] if t.role == "recommender"]
    offers = [t for t in expert_turns if t.recommended_item]
    assert all(t.content is not None for t in expert_turns) and all(t.content.move == "offer" for t in offers)
    assert [t.recommended_item for t in offers] == sets[0].candidates[:len(offers)]  # its own choice, in its order
    assert all(movielens.catalog[t.recommended_item].title in t.text for t in offers)
    assert not any(t.text.startswith("Try ") and t.text.endswith(").") for t in offers)  # not the model's own words
    # people's plans (--strategy human) often ask about a suggestion first, and MovieLens says nothing of its
    # movies to ask about: the seeker answers instead, and the game ends on its yes (it once went on, the
    # seeker saying yes twice)
    human = GoRecDialGamePlayer(
        movielens.catalog, GoRecDialSeeker(backend, prompts, sampling), GoRecDialExpert(backend, prompts, sampling),
        GoRecDialRules(ask_turns=0, wording="decided", strategy="human"), sampling, load_strategy(),
    )
    asked_to_choose, other_turns = len(choices_asked), 0
    for seed in range(8):
        played = asyncio.run(human.play(GoRecDialSpec(f"h{seed}", seed, sets[0])))
        assert [t.accepted for t in played.turns if t.accepted] == [True] and played.turns[-1].accepted, seed
        expert_turns = [t for t in played.turns[played.scripted_turns:] if t.role == "recommender"]
        offers = sum(t.recommended_item is not None for t in expert_turns)
        # the expert's model is asked for a choice on offers only: on a question or an answer its words are decided
        assert len(choices_asked) - asked_to_choose == offers, seed
        asked_to_choose, other_turns = len(choices_asked), other_turns + len(expert_turns) - offers
    assert other_turns  # questions and answers were played, without a call for a choice
