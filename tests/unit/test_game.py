import json
import os

import pytest

from synth.game import GameRules, select_candidates
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.personas import ReviewIndex, make_game_specs
from synth.prompting import PromptSet
from synth.records import RECORD_SCHEMA_VERSION, UNVERSIONED, DialogueRecord, Item, Persona, Review
from synth.retrievers.bm25 import BM25Retriever
from synth.simulators import ExampleChoice, Sampling, Seeker
from synth.turns import SEED_EXCHANGE
from tests.helpers import avoid_target, make_game, play


@pytest.fixture
def specs(catalog, reviews):
    return make_game_specs(ReviewIndex.from_reviews(reviews), catalog, n=6, seed=7)[0]


def recommended(record):
    return [t.recommended_item for t in record.turns if t.recommended_item]


def test_rule_following_dialogue_reaches_the_target(catalog, reviews, specs):
    game, _ = make_game(catalog, reviews, rule_following_script)
    for spec in specs:
        record = play(game, spec)
        assert [t.text for t in record.turns[:2]] == [text for _, text in SEED_EXCHANGE]
        assert record.scripted_turns == len(SEED_EXCHANGE) and record.schema_version == RECORD_SCHEMA_VERSION
        assert record.outcome.ended_by == "accepted" and record.outcome.accepted_target
        assert recommended(record)[-1] == spec.target.id
        assert record.turns[-1].role == "seeker" and record.turns[-1].text.endswith("[EOD]")
        assert record.outcome.turns_to_goal == len(record.turns) - len(SEED_EXCHANGE)
        # the first recommender turn after the seed asks, the target is a candidate by the third recommendation
        assert record.turns[2].role == "recommender" and record.turns[2].recommended_item is None
        assert record.outcome.recommendations <= 3
        assert record.generation.prompt_tokens > 0 and record.generation.llm_calls == len(record.turns) - 2
        assert not record.errors


def test_schedule_forced_target_and_no_repeats(catalog, reviews, specs):
    spec = specs[0]
    game, _ = make_game(catalog, reviews, avoid_target(spec.target.display))
    record = play(game, spec)
    with_candidates = [t for t in record.turns if t.candidates]
    assert [len(t.candidates) for t in with_candidates] == [3, 3, 3, 2, 1]
    for turn in with_candidates[2:]:  # from the third recommendation on the target is always a candidate
        assert spec.target.id in {c.item_id for c in turn.candidates}
    items = recommended(record)
    assert len(items) == len(set(items)) == 5 and items[-1] == spec.target.id
    # the last recommendation still gets its answer inside the cap of 12
    assert record.outcome.ended_by == "accepted" and record.outcome.turns_to_goal == 12
    general = {r.item for r in spec.persona.general}  # general-taste items are never candidates
    assert not general & {c.item_id for t in with_candidates for c in t.candidates}


def test_turn_cap_ends_on_the_seeker(catalog, reviews, specs):
    spec = specs[0]
    rules = GameRules(max_utterances=12, force_target_from=99)
    game, _ = make_game(catalog, reviews, avoid_target(spec.target.display), rules)
    record = play(game, spec)
    assert record.outcome.ended_by == "turn_cap" and not record.outcome.accepted_target
    assert len(record.turns) == len(SEED_EXCHANGE) + 12
    assert record.turns[-1].role == "seeker" and record.turns[-2].recommended_item
    roles = [t.role for t in record.turns]
    assert all(a != b for a, b in zip(roles, roles[1:]))


def test_wrong_acceptance_and_rejected_target_end_the_dialogue(catalog, reviews, specs):
    def accept_all(messages, schema):
        if "accept" in (schema or {}).get("properties", {}):
            return json.dumps({"utterance": "Yes!", "accept": True})
        return rule_following_script(messages, schema)

    def reject_all(messages, schema):
        if "accept" in (schema or {}).get("properties", {}):
            return json.dumps({"utterance": "No.", "accept": False})
        return rule_following_script(messages, schema)

    spec = specs[1]
    game, _ = make_game(catalog, reviews, accept_all)
    record = play(game, spec)
    first = recommended(record)[0]
    expected = "accepted" if first == spec.target.id else "wrong_acceptance"
    assert record.outcome.ended_by == expected and len(recommended(record)) == 1

    game, _ = make_game(catalog, reviews, reject_all)
    record = play(game, spec)
    assert record.outcome.ended_by == "target_rejected"
    assert recommended(record)[-1] == spec.target.id


def test_broken_replies_are_retried_then_recorded(catalog, reviews, specs):
    calls = {"n": 0}

    def flaky(messages, schema):
        calls["n"] += 1
        if calls["n"] == 1:
            return "I am not JSON"
        return rule_following_script(messages, schema)

    game, _ = make_game(catalog, reviews, flaky)
    record = play(game, specs[0])
    assert record.outcome.ended_by == "accepted" and record.generation.format_retries == 1 and not record.errors

    game, backend = make_game(catalog, reviews, lambda m, s: "never JSON", retries=2)
    record = play(game, specs[0])
    assert record.outcome.ended_by == "error"
    assert len(backend.calls) == 3  # one try and two retries
    assert "no valid reply in 3 attempts" in record.errors[0]
    assert len(record.errors) == 4  # the summary and each attempt's problem


def test_forced_target_replaces_the_weakest_candidate(catalog):
    retriever = BM25Retriever(catalog)
    pool = set(catalog)
    target = "m001"
    query = "a gentle musical romance with songs and dancing"
    rules = GameRules()
    free = select_candidates(retriever, query, pool, target, 0, rules)
    assert target not in {c.item_id for c in free}
    forced = select_candidates(retriever, query, pool, target, 2, rules)
    assert [c.item_id for c in forced[:2]] == [c.item_id for c in free[:2]] and forced[2].item_id == target
    assert [c.item_id for c in select_candidates(retriever, query, pool, target, 5, rules)] == [target]


def test_the_seeker_sees_neither_its_targets_title_nor_its_review(catalog):
    """Critic quotes often name the movie they review: the seeker is shown hints of its target (genres, era,
    mood words of the review), never the review itself, whose words it would recite."""
    fantasia = Item(id="f", title="Fantasia 2000", year=1999, genres=["Animation", "Musical"])
    quote = "Sixty years on, they conjured seven new whimsical sequences for Fantasia 2000 (1999); the flying whales soar."
    target = Review(user="u", item="f", rating=9, text=quote, score=0.9)
    persona = Persona(user_id="u", general=[], target=target)
    seeker = Seeker(ScriptedBackend(rule_following_script), PromptSet.load(), Sampling())
    prompt = seeker.system_prompt(persona, {**catalog, "f": fantasia})
    assert "fantasia" not in prompt.lower() and "conjured" not in prompt and "flying whales" not in prompt
    assert "its genres are animation, musical; it is from the 1990s; its mood, in your own words: whimsical" in prompt


def test_records_without_a_schema_version_read_as_unversioned_with_the_seed_exchange(catalog, reviews, specs):
    game, _ = make_game(catalog, reviews, rule_following_script)
    written = json.loads(play(game, specs[0]).model_dump_json())
    assert written["schema_version"] == RECORD_SCHEMA_VERSION and written["scripted_turns"] == 2
    old = {k: v for k, v in written.items() if k not in ("schema_version", "scripted_turns")}
    record = DialogueRecord.model_validate(old)
    assert record.schema_version == UNVERSIONED and record.scripted_turns == 2
    with pytest.raises(ValueError, match="newer than this synth reads"):
        DialogueRecord.model_validate({**written, "schema_version": RECORD_SCHEMA_VERSION + 1})


def test_the_seeker_s_fixed_rules_come_before_anything_one_dialogue_changes(catalog, specs):
    """Two dialogues' seeker prompts (other personas, other example draws) share their opening up to and past
    the rules, so the embedded engine reads the rules once a run from its KV cache, not once a dialogue."""
    prompts = PromptSet.load()
    seeker = Seeker(ScriptedBackend(rule_following_script), prompts, Sampling())
    first, second = (
        seeker.system_prompt(spec.persona, catalog, planned=True, example=ExampleChoice.draw(prompts.examples, seed))
        for spec, seed in ((specs[0], 1), (specs[1], 2))
    )
    shared = len(os.path.commonprefix([first, second]))
    assert first != second
    assert shared >= first.index("Your way of talking: ") + len("Your way of talking: ")
    assert first.index("Rules:") < first.index("Answer with one JSON object") < shared
