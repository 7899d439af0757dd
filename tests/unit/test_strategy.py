"""The strategy model fitted on IARD, the per-dialogue plans and the rules they yield to, and a PEARL game that
follows a plan (scripted backend: game logic, not a model)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest

from synth.content.phrases import FOLLOW_UPS
from synth.content.state import ATTRIBUTES
from synth.data.paths import shared_data_root
from synth.game import GameRules, _PearlMoves
from synth.llm.scripted import rule_following_script
from synth.personas import ReviewIndex, make_game_specs
from synth.records import Item, TurnPlan
from synth.simulators import Usage
from synth.strategy.fit import IARD_FILE, fit_strategy
from synth.strategy.model import FEEDBACK, load_strategy, recommends, requests, shipped_strategy_path
from synth.strategy.plans import CLOSING_ACTS, DialoguePlan, asks_first
from synth.strategy.wording import instruction, utterance_limit
from synth.turns import GREETING_ONLY
from tests.helpers import avoid_target, make_game, play

IARD = shared_data_root() / IARD_FILE


@pytest.fixture(scope="module")
def model():
    return load_strategy()


def test_the_shipped_table_is_the_fit_of_iard():
    fitted = fit_strategy(IARD).to_json()
    assert fitted == json.loads(shipped_strategy_path().read_text())
    scores = fitted["meta"]["cross_validated_log_likelihood_per_turn"]
    chosen = fitted["meta"]["chosen"]
    assert scores[chosen] == max(scores.values()) and scores[chosen] > scores["role, beta 3"] + 0.3
    assert fitted["meta"]["dialogues"] == 336 and sum(fitted["requests"]) == 335  # one has no recommendation


def simulate(model, seed: int, *, target_at: int = 3, cap: int = 12) -> list[tuple[str, TurnPlan, dict]]:
    """One dialogue's plan played against a stand-in game: the target is the `target_at`-th suggestion.
    Returns (role, plan, the rules it was drawn under) per turn."""
    plan = DialoguePlan(model, seed)
    plan.opened(GREETING_ONLY)
    played, suggestion, asked, suggestions, pool = [], None, False, 0, 20
    for step in range(-1, cap):
        turn_seed = seed + 100 * step
        if step % 2 == 0:
            rules = {"answering": asked, "can_recommend": pool > 0, "must_recommend": step >= cap - 2}
            drawn = plan.recommender(turn_seed, **rules)
            if recommends(drawn.acts):
                suggestions, pool, asked = suggestions + 1, pool - 1, False
                suggestion = "target" if suggestions >= target_at else "other"
            played.append(("recommender", drawn, rules))
            continue
        may_ask = suggestion is not None and not asked and step + 2 < cap
        rules = {"suggestion": suggestion is not None, "target": suggestion == "target", "may_ask": may_ask}
        drawn = plan.seeker(turn_seed, **rules)
        played.append(("seeker", drawn, rules))
        if suggestion is not None and asks_first(drawn):
            asked = True
            continue
        if suggestion == "target":
            break
        suggestion, asked = None, False
    return played


def test_plans_obey_the_game_rules(model):
    for seed in range(300):
        requests_made, recommended = 0, False
        for role, drawn, rules in simulate(model, seed):
            acts = set(drawn.acts)
            assert drawn.words >= 1 and acts
            if role == "recommender":
                if rules["answering"]:
                    assert "R-ANS" in acts and not recommends(acts)
                elif rules["must_recommend"]:
                    assert recommends(acts)
                if not recommended and not recommends(acts):
                    assert requests(acts)  # before the first suggestion: only the planned requests
                    requests_made += 1
                recommended = recommended or recommends(acts)
                continue
            if not rules["suggestion"]:
                assert not acts & set(FEEDBACK)
            elif rules["target"]:  # accepting while asking for another suggestion contradicts itself (#43)
                accepts = "ACC" in acts and not acts & {"REJ", "INQ", "CON", "REF", "STO"}
                assert accepts or (rules["may_ask"] and asks_first(drawn))
            else:
                assert "ACC" not in acts and ("INQ" not in acts or rules["may_ask"] or "REJ" in acts)


def test_the_goodbye_after_an_accepted_target_is_small_talk_only(model):
    closings = []
    for seed in range(300):
        plan = DialoguePlan(model, seed)
        plan.opened(GREETING_ONLY)
        closings.append(plan.closing(seed))
    said = [set(c.acts) for c in closings if c is not None]
    assert said and all(acts <= CLOSING_ACTS for acts in said) and None in closings


def test_plans_ask_before_recommending_as_often_as_people_do(model):
    found = Counter()
    for seed in range(3000):
        made = 0
        for role, drawn, _ in simulate(model, seed):
            if role == "recommender":
                if recommends(drawn.acts):
                    break
                made += 1
        found[made] += 1
    people = [n / sum(model.requests) for n in model.requests]
    for made, share in enumerate(people):
        assert found[made] / 3000 == pytest.approx(share, abs=0.03)


def test_a_plan_is_drawn_again_the_same_and_differs_across_dialogues(model):
    assert simulate(model, 5) == simulate(model, 5)
    assert len({tuple("+".join(p.acts) for _, p, _ in simulate(model, seed)) for seed in range(50)}) > 40


def test_the_drawn_acts_follow_people_where_no_rule_binds(model):
    """Seeker turns answering a non-target suggestion: rejections and 'seen it' as in IARD, questions too."""
    acts = Counter()
    for seed in range(2000):
        for role, drawn, rules in simulate(model, seed, target_at=99):
            if role == "seeker" and rules["suggestion"]:
                acts.update(drawn.acts)
    assert acts["SEE"] > acts["CRI-C"] and acts["INQ"] > 0 and acts["REJ"] > 0 and acts["ACC"] == 0


def test_a_move_in_words_and_its_length_cap():
    plan = TurnPlan(acts=["REC-E", "EXP-P", "OTH"], words=9)
    assert instruction("recommender", plan) == (
        'In about 9 words, ask "Have you seen ...?" about one of the candidates, say why it suits their taste and '
        "add a friendly word (a short reaction, thanks or goodbye, whatever fits)."
    )
    # small talk before anything was recommended is a greeting, never thanks or goodbye (#43)
    assert "nothing was recommended yet, so no thanks or goodbye" in instruction("seeker", TurnPlan(acts=["OTH"], words=4),
                                                                               recommended=False)
    # the target is accepted as unseen: "whether you have seen it" becomes "you have not seen it yet"
    seen = TurnPlan(acts=["SEE", "ACC"], words=8)
    assert "say you have not seen Heat (1995) yet" in instruction("seeker", seen, item="Heat (1995)", unseen=True)
    asks = TurnPlan(acts=["INQ"], words=6)
    assert "ask one question about Heat (1995)" in instruction("seeker", asks, item="Heat (1995)")
    assert instruction("seeker", TurnPlan(acts=["ACC", "OTH"], words=5), leave_out=("ACC",)).startswith(
        "In about 5 words, add a friendly word"
    )
    heat = Item(id="1", title="Heat", year=1995)
    assert utterance_limit(None) == 300
    assert utterance_limit(TurnPlan(acts=["REQ"], words=3)) == 120
    assert utterance_limit(TurnPlan(acts=["REC-S"], words=20), [heat]) == 240 + len("Heat (1995)")
    assert utterance_limit(TurnPlan(acts=["REC-S"], words=80), [heat]) == 300


def test_a_pearl_game_follows_its_plan(catalog, reviews, model):
    specs = make_game_specs(ReviewIndex.from_reviews(reviews), catalog, n=12, seed=7)[0]
    game, _ = make_game(catalog, reviews, rule_following_script, GameRules(strategy="human"), strategy=model)
    closings = asked = 0
    for spec in specs:
        record = play(game, spec)
        assert not record.errors and record.scripted_turns == 1
        assert record.turns[1].role == "seeker" and all(t.plan is not None for t in record.turns[1:])
        assert len(record.turns) <= 2 + 12
        pending = None
        for turn in record.turns[1:]:
            if turn.role == "recommender":
                assert bool(turn.candidates) == recommends(turn.plan.acts)
                if pending is not None:  # the seeker asked about the suggestion: answered, nothing new
                    assert "R-ANS" in turn.plan.acts and turn.recommended_item is None
                pending = turn.recommended_item or pending
            elif pending is not None and asks_first(turn.plan):
                asked += 1
                assert turn.accepted is None
            else:
                pending = None
        if record.outcome.accepted_target and record.turns[-1].role == "recommender":
            closings += 1
            assert record.turns[-1].recommended_item is None and record.turns[-2].text.endswith("[EOD]")
        assert record.outcome.ended_by == "accepted"
    assert closings and asked


def test_the_last_recommender_turn_offers_the_target_alone(catalog, reviews, model):
    spec = make_game_specs(ReviewIndex.from_reviews(reviews), catalog, n=1, seed=7)[0][0]
    rules = GameRules(strategy="human", force_target_from=99)
    game, _ = make_game(catalog, reviews, avoid_target(spec.target.display), rules, strategy=model)
    record = play(game, spec)
    # the recommender never picks the target while it has another candidate, and the target is never forced
    # in: only the last offer (the greeting, then steps -1 to 10) can bring it
    last = record.turns[len(GREETING_ONLY) + 11]
    assert last.role == "recommender" and [c.item_id for c in last.candidates] == [spec.target.id]
    assert record.outcome.accepted_target and record.outcome.turns_to_goal == 12


def test_a_decided_recommender_that_has_asked_everything_offers_rather_than_ask_again(catalog, reviews, model):
    """The reference corpus's readers met "Anything else you'd like in it?" then "Anything else you're hoping for?":
    once the recommender has asked all it asks, its next move is an offer, whatever the plan would have drawn."""
    specs = make_game_specs(ReviewIndex.from_reviews(reviews), catalog, n=12, seed=11)[0]
    game, _ = make_game(catalog, reviews, rule_following_script, GameRules(strategy="human", wording="decided"),
                        strategy=model)
    moves = []
    for spec in specs:
        dialogue = _PearlMoves(game, spec, Usage())
        dialogue.open(game.rules.script(game.seeker.prompts.domain, spec.seed))
        dialogue.ledger.asked = [*ATTRIBUTES, *FOLLOW_UPS]
        dialogue.ledger.told = {"genre": ("comedy",), "era": ("from the 1990s",)}
        asyncio.run(dialogue.recommender_turn(0, spec.seed))
        moves.append(dialogue.turns[-1].content.move)
    assert moves == ["offer"] * len(specs)


def test_a_decided_seeker_asks_about_an_unseen_suggestion_but_says_it_has_seen_a_seen_one(catalog, reviews, model):
    """An "ask first" plan meets a suggestion the seeker rated: it says it has seen it (and decides), never asks
    "what is it about?"; the same plan on a movie it has not seen asks, and waits for the answer."""
    specs = make_game_specs(ReviewIndex.from_reviews(reviews), catalog, n=12, seed=11)[0]
    game, _ = make_game(catalog, reviews, rule_following_script, GameRules(strategy="human", wording="decided"),
                        strategy=model)
    ask_first = TurnPlan(acts=["INQ"], words=10)
    played = {"seen": [], "unseen": []}
    for spec in specs:
        dialogue = _PearlMoves(game, spec, Usage())
        dialogue.open(game.rules.script(game.seeker.prompts.domain, spec.seed))
        dialogue.course.seeker = lambda *args, **kwargs: ask_first
        seen = next((item for item in catalog.values() if item.id != spec.target.id and dialogue.state.opinion(item.id)), None)
        unseen = next(item for item in catalog.values()
                      if item.id != spec.target.id and dialogue.state.opinion(item.id) is None)
        for kind, item in [("seen", seen), ("unseen", unseen)]:
            if item is None:
                continue
            dialogue.last_recommended, dialogue.asked_about = item, False
            asyncio.run(dialogue.seeker_turn(2, spec.seed))
            played[kind].append((dialogue.turns[-1].content.move, dialogue.asked_about))
    assert played["seen"] and all(move != "inquire" and not waiting for move, waiting in played["seen"])
    assert played["unseen"] and all(move == "inquire" and waiting for move, waiting in played["unseen"])
