"""Decided wording says its contents in many ways (issue #63's diversity): the greeting a dialogue opens with,
the seeker's hello on its first message only, the forms of a genre and an era, and the checks that read every
form. Game logic on the demo data and a scripted backend; the real model is in the integration tests."""

import re

from synth.analysis.defects import ReplyContext
from synth.content.decide import content_rng, recommender_content
from synth.content.phrases import GREETINGS, decade_forms, era_said
from synth.content.seeker import seeker_content, value_keys
from synth.content.state import Ledger
from synth.content.verification import says_any, verify
from synth.content.wording import cap_for
from synth.domain import load_domain
from synth.game import GameRules
from synth.llm.scripted import rule_following_script
from synth.personas import ReviewIndex, make_game_specs
from synth.records import Item
from synth.worded import defects_of
from tests.helpers import make_game, play

DOMAIN = load_domain()


def test_a_decided_dialogue_opens_with_one_of_the_domain_s_greetings_and_free_wording_with_its_one(catalog, reviews):
    decided, free = GameRules(wording="decided"), GameRules()
    openings = {decided.script(DOMAIN, seed)[0][1] for seed in range(40)}
    assert openings <= {DOMAIN.greeting, *DOMAIN.greetings} and len(openings) >= 6
    assert decided.script(DOMAIN, 7) == decided.script(DOMAIN, 7)  # the dialogue's seed decides it
    assert {free.script(DOMAIN, seed)[0][1] for seed in range(40)} == {DOMAIN.greeting}
    spec = make_game_specs(ReviewIndex.from_reviews(reviews), catalog, n=1, seed=4)[0][0]
    game, _ = make_game(catalog, reviews, rule_following_script, GameRules(wording="decided"))
    record = play(game, spec)
    assert [t.text for t in record.turns[:2]] == [line for _, line in decided.script(DOMAIN, spec.seed)]
    assert record.scripted_turns == 2 and record.turns[1].role == "seeker"  # PEARL's seed exchange: the seeker's
    first_own = next(t for t in record.turns[2:] if t.role == "seeker")  # hello was scripted: its own words say none
    assert first_own.content is not None and not first_own.text.startswith(GREETINGS)


def test_the_seeker_says_hello_on_its_first_message_only_and_the_recommender_never_after_its_greeting(state, items):
    greeted = [seeker_content(("PRO",), state, Ledger(), DOMAIN, content_rng(seed), greet=True) for seed in range(30)]
    hellos = [d for d in greeted if d.template.startswith(GREETINGS)]
    assert 10 <= len(hellos) < 30 and all(d.content.points[0] == "say hello" for d in hellos)
    assert not any(seeker_content(("PRO",), state, Ledger(), DOMAIN, content_rng(seed)).template.startswith(GREETINGS)
                   for seed in range(30))
    first = ReplyContext("seeker")
    assert "greets_again" not in [d.name for d in verify(hellos[0].template, hellos[0], first)]
    ledger = Ledger(told={"genre": ("comedy",)})
    offer = recommender_content(("REC-S",), ledger, DOMAIN, content_rng(1), candidates=[items["r"]])
    first_reply = ReplyContext("recommender", items=tuple(items.values()))  # its scripted greeting came before
    assert "greets_again" in [d.name for d in verify("Hey! How about Notting Hill? A comedy.", offer, first_reply)]


def test_an_era_is_said_in_several_forms_and_each_form_reads_as_the_era_told():
    forms = {era_said("from the 1990s", content_rng(seed)) for seed in range(40)}
    assert forms == {"from the 1990s", "from the 90s", "from the '90s", "from the nineties"}
    assert all(says_any(f"Something {form} would be nice.", value_keys("from the 1990s")) for form in forms)
    assert decade_forms("2000s") == ("2000s",)  # never "the 00s"
    assert {era_said("from the 2000s", content_rng(seed)) for seed in range(10)} == {"from the 2000s"}


def test_offers_and_answers_say_their_facts_in_many_ways_each_faithful(state, items):
    """Across seeds an offer takes many forms (opening, body, the kind said as 'a comedy and romance movie', 'a
    mix of comedy and romance' or 'part comedy, part romance', the decade's forms or the year), and every form
    passes its own verification: the template a re-sample falls back on says what the content holds."""
    ledger = Ledger(told={"genre": ("comedy", "romance"), "era": ("from the 1990s",), "mood": ("sweet",)})
    offers = [recommender_content(("REC-S", "EXP-P"), ledger, DOMAIN, content_rng(seed), candidates=[items["r"]])
              for seed in range(60)]
    assert len({o.template for o in offers}) >= 40
    said = " ".join(o.template for o in offers)
    for form in ("comedy and romance movie", "mix of comedy and romance", "part comedy, part romance", "from 1999",
                 "from the 90s", "from the nineties"):
        assert form in said, form
    assert "comedy romance" not in said  # "a romantic comedy romance" (a round-12 dialogue)
    later = ReplyContext("recommender", items=tuple(items.values()), own_earlier=("What kind of movie?",))
    assert all(verify(o.template, o, later) == [] for o in offers), [
        (o.template, verify(o.template, o, later)) for o in offers if verify(o.template, o, later)][:3]
    plan = Item(id="p", title="A Simple Plan", year=1998, genres=["Crime"], description="Crime. Brothers find cash.")
    simple = recommender_content(("REC-S",), Ledger(told={"genre": ("crime",)}), DOMAIN, content_rng(1), candidates=[plan])
    assert verify("What about A Simple Plan? It's a crime movie.", simple, later) == []  # "about A ..." is no plot
    credited = [o for o in offers if "Bill Murray" in o.template]
    assert not credited  # Notting Hill's catalog entry lists no cast: no one is named
    groundhog = [recommender_content(("REC-S",), ledger, DOMAIN, content_rng(seed), candidates=[items["t"]])
                 for seed in range(30)]
    starring = [o for o in groundhog if "Bill Murray" in o.template]
    assert starring and all(o.topics == ("people",) and "say it stars Bill Murray" in o.content.points for o in starring)
    later_offer = ReplyContext("recommender", items=tuple(items.values()), own_earlier=("What kind of movie?",))
    for slip in ("How about Groundhog Day? A comedy, the work of Bill Murray.", "Groundhog Day, a comedy directed by Bill Murray."):
        assert "misstates_a_role" in [d.name for d in verify(slip, starring[0], later_offer)], slip
    assert "misstates_a_role" not in [d.name for d in verify(starring[0].template, starring[0], later_offer)]
    asked = Ledger(said_of={items["t"].id: ["people"]})  # who is in it was said: the seeker asks what it is about
    questions = {seeker_content(("INQ",), state, asked, DOMAIN, content_rng(seed), recommended=items["t"],
                                inquire=True).asks_about for seed in range(20)}
    assert questions == {"plot"}
    told_all = Ledger(said_of={items["t"].id: ["people", "plot"]})  # nothing left to ask: it answers the offer
    assert seeker_content(("INQ",), state, told_all, DOMAIN, content_rng(1), recommended=items["t"],
                          inquire=True).content.move == "accept"


def test_an_answer_may_quote_its_own_item_s_description_and_the_cap_holds_its_template(state, items):
    critic = Item(id="c", title="Some Like It Hot", year=1959, genres=["Comedy"],
                  description='Comedy. A critic: "One of Wilder\'s funniest satires, and a great one."')
    ledger = Ledger(question="opinion")
    answer = recommender_content(("EXP-I",), ledger, DOMAIN, content_rng(1), about=critic)
    shown = ReplyContext("recommender", descriptions={critic.display: critic.description, "Heat (1995)": "A cop."})
    assert re.search("funniest satires", answer.template)
    assert defects_of(answer.template, cap_for(10, answer), answer, shown) == []
    for slip, name in (("A critic said it's among Wilder's best satires.", "misquotes"),  # reworded: garbled
                       ("A critic called It 's one of Wilder's funniest satires.", "garbled")):  # round 11's reader
        assert name in [d.name for d in verify(slip, answer, shown)], slip
    accept = seeker_content(("ACC",), state, Ledger(), DOMAIN, content_rng(2), recommended=items["t"])
    assert accept.accept and cap_for(5, accept) >= len(accept.template)  # thanks and all
    # its thanks are said: the recommender's goodbye may say "You're welcome"
    assert verify(accept.template, accept, ReplyContext("seeker")) == []
    unthanked = "Yes! A comedy and romance movie is just right. I'll watch Groundhog Day tonight."
    assert "leaves_out_content" in [d.name for d in verify(unthanked, accept, ReplyContext("seeker"))]

