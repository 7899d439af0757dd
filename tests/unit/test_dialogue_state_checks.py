"""The dialogue-state checks (issue #43): each detector on the default model's real replies that a reader found
broken (quoted from runs of main at 8461d9e) and on ordinary replies in the same place; the seeker's view of
its hidden target; the acceptance rule in the schema and in the checks; and the rates' denominators."""

import json

import pytest

from synth.analysis.defects import (
    DEFECTS,
    ReplyContext,
    Spoken,
    check_decision,
    check_reply,
    defect_rates,
    dialogues_with_any,
    naming_recommendation,
)
from synth.records import Item, ReplyChecks, Review
from synth.replies import RecommenderReply, parse_seeker, seeker_schema
from synth.reply_repairs import named_recommendation, spoken_in_role
from synth.target_hints import era_of, mood_words, target_hints

SE7EN = Item(id="m032", title="Se7en", year=1995, genres=["Crime", "Mystery", "Thriller"],
             directors=["David Fincher"], cast=["Brad Pitt", "Morgan Freeman", "Kevin Spacey"])
SHINING = Item(id="m016", title="The Shining", year=1980, genres=["Horror"], directors=["Stanley Kubrick"],
               cast=["Jack Nicholson", "Shelley Duvall"])
TOKYO = Item(id="m028", title="Tokyo Story", year=1953, genres=["Drama"], directors=["Yasujiro Ozu"], cast=["Chishu Ryu"])
SHAKESPEARE = Item(id="2396", title="Shakespeare in Love", year=1998, genres=["Comedy", "Drama", "Romance"])
GREETING = "Hi there! I'd be glad to help you find a movie for tonight."
REVIEW = "The gentle giant and grandpa reading to his grandson make it perfect for family movie night."


def seeker(**known) -> ReplyContext:
    return ReplyContext("seeker", other_last=GREETING, other_earlier=(GREETING,), **known)


def recommender(**known) -> ReplyContext:
    return ReplyContext("recommender", other_last="I'd like something tense tonight.", **known)


def names(text, context, named=None, recommends=None) -> list[str]:
    return [d.name for d in check_reply(text, context, named, recommends)]


@pytest.mark.parametrize(
    ("text", "context", "named", "recommends", "expected"),
    [
        ("I think I might like the movie you mentioned, Double Indemnity (1944).", seeker(), None, None, "unsaid_reference"),
        ("Thanks for the suggestions, I'll definitely give it a try. Good night!", seeker(), None, None, "unsaid_reference"),
        ("I appreciate your suggestions, I'm in the mood for something tense.", seeker(), None, None, "unsaid_reference"),
        ("Thanks for the suggestions, I'll definitely give it a try. Good night!", seeker(), None, None, "early_goodbye"),
        ("Thank you for your help. I appreciate it.", seeker(), None, None, "early_goodbye"),
        ("I'm glad you enjoyed it!", ReplyContext("recommender", other_last="I haven't seen it, what is it about?"), None, None,
         "unsaid_reference"),
        ("I'm looking for a horror movie with a dark tone.", recommender(), None, None, "speaks_as_other"),
        ("I can't wait to read it, it sounds wonderful.", recommender(), None, None, "speaks_as_other"),
        ("So I'm thinking of watching Heat (1995) tonight.", recommender(), None, None, "speaks_as_other"),
        ("No worries, I'll wait for the next suggestion.", recommender(), None, None, "speaks_as_other"),
        ("Could you suggest a different movie with a similar soundtrack?", recommender(), None, None, "speaks_as_other"),
        ("Do you think you could recommend something lighter?", recommender(), None, None, "speaks_as_other"),
        ("Is there a movie you would recommend for tonight?", recommender(), None, None, "speaks_as_other"),
        ("What other movies would you suggest?", recommender(), None, None, "speaks_as_other"),
        ("I appreciate your help! Let me think.", recommender(), None, None, "speaks_as_other"),
        ("I appreciate your reaction, but I'm not interested in that movie.", recommender(), None, None, "speaks_as_other"),
        ("Sure, what genre do you like?", seeker(), None, None, "speaks_as_other"),
        ("I'm glad you liked March of the Penguins and The Lion King.", seeker(), None, None, "speaks_as_other"),
        ("I hope you'll enjoy Casablanca (1942) too.", seeker(mentioned=("Casablanca (1942)",)), None, None, "speaks_as_other"),
        ("It's a great choice if you're looking for a tense, suspenseful horror film.", recommender(), "Halloween (1978)",
         "Halloween (1978)", "unnamed_recommendation"),
        ("I'd love a film where the gentle giant and grandpa reading to his grandson steal the show.",
         seeker(target_draw=REVIEW), None, None, "recites_target"),
        ("I've been a big fan of the Harry Potter series since I was a kid.", recommender(question=True), None, None,
         "unasked_question"),
        ("The main characters are FBI agents Jack Nicholson and Michael Caine.", recommender(items=(SE7EN, SHINING)),
         "Se7en (1995)", "Se7en (1995)", "contradicts_catalog"),
        ("Tokyo Story is a charming, sweet romance that stayed with many viewers.", recommender(items=(TOKYO,)),
         "Tokyo Story (1953)", "Tokyo Story (1953)", "contradicts_catalog"),
        ("Se7en (1997) is a dark thriller.", recommender(items=(SE7EN,)), "Se7en (1995)", "Se7en (1995)",
         "contradicts_catalog"),
        ("Thank you! I look forward to seeing Casablanca (1942) too. EOD", seeker(mentioned=("Casablanca (1942)",)), None,
         None, "accepts_in_words"),
        ("Do you like Disney movies with happy endings? I suggest Frozen (2013).", recommender(), None, None,
         "suggests_unlisted"),
        ("Good evening! I'd be glad to continue tomorrow. Good night!", recommender(mentioned=("Heat (1995)",)), None, None,
         "premature_goodbye"),
        ("I haven't seen it. In about 5 words, say whether you have seen The Big Lebowski (1998).", seeker(), None, None,
         "echoes_instructions"),
        ("I have seen it. Do you like it? Do you like it?", seeker(), None, None, "repeats_itself"),
        ("I recommend 'The Dark Knight Rises' as a great choice.", recommender(mentioned=("Psycho (1960)",)), None, None,
         "suggests_unlisted"),
    ],
)
def test_each_dialogue_state_detector_finds_the_defect_a_reader_found(text, context, named, recommends, expected):
    assert expected in names(text, context, named, recommends)


@pytest.mark.parametrize(
    ("text", "context", "named", "recommends"),
    [
        ("Hi! I'm in the mood for something light and funny tonight.", seeker(), None, None),
        ("Thanks for the suggestion, but Heat is too loud for me.", seeker(mentioned=("Heat (1995)",)), None, None),
        ("Heat sounds good, but what is it about?", seeker(mentioned=("Heat (1995)",), question=True), None, None),
        ("I'm glad you enjoyed it!", ReplyContext("recommender", other_last="I saw it last week and loved every minute."),
         None, None),
        ("If you're looking for tension, how about Se7en (1995)? Brad Pitt and Morgan Freeman hunt a killer.",
         recommender(items=(SE7EN, SHINING)), "Se7en (1995)", "Se7en (1995)"),
        ("Have you seen The Shining? Jack Nicholson is terrifying in it.", recommender(items=(SE7EN, SHINING), question=True),
         "The Shining (1980)", "The Shining (1980)"),
        ("Shakespeare in Love (1998) is a romantic comedy, a film starring Leonardo DiCaprio.",
         recommender(items=(SHAKESPEARE,)), "Shakespeare in Love (1998)", "Shakespeare in Love (1998)"),
        ("Something warm and gentle, with a grandparent and a kid, would be perfect.", seeker(target_draw=REVIEW), None, None),
        ("Sounds perfect, I'll watch Tokyo Story tonight! [EOD]", seeker(mentioned=("Tokyo Story (1953)",), accepting=True),
         None, None),
        ("Glad you picked it. Enjoy the movie, good night!", recommender(mentioned=("Heat (1995)",), closing=True), None, None),
        ("What other movies do you love?", recommender(question=True), None, None),
        ("I'm excited to find a movie that's thrilling, and I'd love to hear your recommendation.", seeker(), None, None),
        ("I'm in the mood for something tense and would really appreciate your suggestions.", seeker(), None, None),
        ("Have you seen Se7en (1995)? It is as tense as Alien (1979), which you loved.",
         ReplyContext("recommender", other_last="I loved Alien (1979).", items=(SE7EN,), question=True),
         "Se7en (1995)", "Se7en (1995)"),
    ],
)
def test_ordinary_replies_in_the_same_places_pass(text, context, named, recommends):
    assert names(text, context, named, recommends) == []


def test_a_recommendation_still_unnamed_after_its_resamples_is_repaired_with_its_title():
    halloween = Item(id="m1", title="Halloween", year=1978, genres=["Horror"])
    text = "It's a great choice if you're looking for a tense, suspenseful horror film."
    assert naming_recommendation(text, halloween.display) == f"How about Halloween (1978)? {text}"
    assert naming_recommendation("Halloween is tense.", halloween.display) == "Halloween is tense."
    kept = RecommenderReply("", text, "m1", ReplyChecks(kept_defects=["unnamed_recommendation: recommends ...", "x: y"]))
    repaired = named_recommendation(kept, [halloween])
    assert repaired.utterance.startswith("How about Halloween (1978)?") and repaired.checks.kept_defects == ["x: y"]
    assert repaired.checks.repaired == ["unnamed_recommendation: put Halloween (1978) before its words"]
    assert named_recommendation(RecommenderReply("", text, None), [halloween]).checks is None  # no recommendation
    assert names(repaired.utterance, recommender(), halloween.display, halloween.display) == []


def test_a_reply_still_speaking_as_the_other_role_after_its_resamples_loses_those_sentences():
    context = recommender()

    def inspect(reply):
        return check_reply(reply.utterance, context, "Halloween (1978)", "Halloween (1978)")

    text = "I'm not interested in that one. How about Halloween (1978)? It's tense and suspenseful."
    found = [str(d) for d in inspect(RecommenderReply("", text, "m1"))]
    assert [d.split(":")[0] for d in found] == ["speaks_as_other"]
    repaired = spoken_in_role(RecommenderReply("", text, "m1", ReplyChecks(kept_defects=found)), "recommender", inspect)
    assert repaired.utterance == "How about Halloween (1978)? It's tense and suspenseful."
    assert repaired.checks.kept_defects == [] and repaired.checks.repaired[0].startswith("speaks_as_other")
    alone = RecommenderReply("", "I'm not interested in that one.", None, ReplyChecks(kept_defects=found))
    assert spoken_in_role(alone, "recommender", inspect) is alone  # nothing would be left: kept as it is
    clean = RecommenderReply("", text, "m1", ReplyChecks(kept_defects=["x: y"]))
    assert spoken_in_role(clean, "recommender", inspect) is clean  # no speaks_as_other kept: nothing to repair


def test_a_turn_that_must_ask_unless_it_recommends():
    context = recommender(question=None)  # --strategy free: ask, or recommend once it knows enough
    assert "unasked_question" in names("I love that one.", context)
    assert "unasked_question" not in names("Heat (1995) it is: a tense heist.", context, "Heat (1995)", "Heat (1995)")


def test_the_acceptance_rule_in_the_schema_and_in_the_checks():
    assert seeker_schema(True, accept=False)["properties"]["accept"] == {"const": False}
    assert seeker_schema(True)["properties"]["accept"] == {"type": "boolean"}
    asks = seeker_schema(False, question=True, max_chars=120)["properties"]
    assert list(asks) == ["utterance", "question"] and asks["question"]["pattern"].endswith("\\?$")
    reply = parse_seeker(json.dumps({"utterance": "Heat sounds tense.", "question": "Who is in it??"}), decides=False,
                         question=True)
    assert reply.utterance == "Heat sounds tense. Who is in it?"
    # a backend that ignores the schema answers without the field: its utterance alone, checked for a question
    assert parse_seeker(json.dumps({"utterance": "Tell me more."}), decides=False, question=True).utterance == "Tell me more."
    assert check_decision(True, False, "Heat (1995)").name == "wrong_decision"
    assert "turns down" in check_decision(False, True, "Heat (1995)").evidence
    assert check_decision(True, True, "Heat (1995)") is None and check_decision(None, False, None) is None


def test_the_seeker_sees_its_target_as_genres_era_and_moods_never_the_reviews_phrases():
    item = Item(id="t", title="The Iron Giant", year=1999, genres=["Animation", "Children"])
    hints = target_hints(Review(user="u", item="t", rating=9, text=REVIEW), item)
    assert hints.genres == "animation, children" and hints.era == "from the 1990s"
    assert hints.moods == ("gentle",)  # not "grandpa reading" nor "grandson": set pieces that give the movie away
    assert era_of(2019) == "a recent one" and era_of(None) == ""
    assert mood_words("Tense, TENSE and witty; a dark, sad and quirky film.", set()) == ("tense", "witty", "dark")
    assert mood_words("Quiet, then odd.", {"quiet"}) == ("odd",)  # a title's word is never a hint
    tags_only = target_hints(Review(user="u", item="t", rating=5, text="", tags=["robots", "heartwarming"]), item)
    assert tags_only.moods == ("heartwarming",)


def test_rates_count_each_defect_over_what_it_applies_to_and_dialogues_with_any():
    said = [
        Spoken("seeker", "Thanks for the suggestions! Good night!", seeker(), known=True),
        Spoken("recommender", "How about Heat? A tense heist.", recommender(), "Heat (1995)", known=True, recommends="Heat (1995)"),
        Spoken("recommender", "It's a tense heist.", recommender(mentioned=("Heat (1995)",)), "Ronin (1998)", known=True,
               recommends="Ronin (1998)"),
    ]
    clean = [Spoken("recommender", "What do you feel like tonight?", recommender(question=True), known=True)]
    rates = defect_rates([said, clean])
    assert (rates["unnamed_recommendation"].hits, rates["unnamed_recommendation"].of) == (1, 2)
    assert (rates["early_goodbye"].hits, rates["early_goodbye"].of) == (1, 2)  # before any recommendation
    assert (rates["unasked_question"].hits, rates["unasked_question"].of) == (0, 1)
    assert (rates["unsaid_reference"].dialogues, rates["unsaid_reference"].of_dialogues) == (1, 2)
    assert (dialogues_with_any([said, clean]).hits, dialogues_with_any([said, clean]).of) == (1, 2)
    assert {"unsaid_reference", "speaks_as_other", "accepts_in_words"} <= {m.name for m in DEFECTS}
