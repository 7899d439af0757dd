"""Decided wording (synth.content): the seeker's state from its data, each turn's decided content, the
verification of a worded reply, and a dialogue whose model words nothing right (every turn said by its
template). Game logic on the demo data and a scripted backend; the real model is in the integration tests."""

import json
import re
from dataclasses import replace

from synth.analysis.defects import ReplyContext
from synth.content.decide import choose_offer, content_rng, recommender_content
from synth.content.facts import critic_of, kind_of, plot_of, with_article
from synth.content.phrases import ANOTHER, NOBODY, NODS, NOTHING_MORE, in_own_words
from synth.content.seeker import seeker_content
from synth.content.state import Ledger, own_words, pearl_state, set_state
from synth.content.verification import cut_by_cap, verify
from synth.domain import load_domain
from synth.game import GameRules
from synth.personas import ReviewIndex, make_game_specs
from synth.records import Item, Persona
from tests.helpers import make_game, play, review

DOMAIN = load_domain()


def test_the_state_holds_what_the_seeker_wants_has_seen_and_dislikes(state, items):
    assert state.wants.genres == ("comedy", "romance") and state.wants.era == "from the 1990s"
    assert state.wants.moods == ("sweet", "witty", "warm")
    assert [o.item.id for o in state.liked] == ["a"] and state.liked[0].words == "Silly and witty all the way"
    assert state.dislikes == ("horror",)
    assert state.opinion("t") is None  # the target is new to the seeker
    assert state.opinion("r").liked and state.opinion("w") is None
    sets = set_state([items["a"], items["r"], items["t"]])
    assert sets.wants.genres[0] == "comedy" and sets.target_id is None and sets.opinion("a").liked


def test_a_dialogue_of_decisions_asks_tells_offers_and_reacts_from_the_state(state, items):
    ledger = Ledger()
    ask = recommender_content(("REQ",), ledger, DOMAIN, content_rng(1))
    assert ask.content.move == "ask" and ask.question and ask.asks_about == "genre"
    ask.record(ledger)
    tell = seeker_content(("ANS", "PRO"), state, ledger, DOMAIN, content_rng(2))
    assert tell.content.move == "reveal" and tell.told["genre"] == ("comedy", "romance")
    assert tell.content.titles == ["Airplane! (1980)"] and "Groundhog" not in json.dumps(tell.content.model_dump())
    tell.record(ledger)
    # the offer is the candidate whose facts match what was said, whatever the retriever's order
    offer = recommender_content(("REC-S", "EXP-P"), ledger, DOMAIN, content_rng(3), candidates=[items["w"], items["r"]])
    assert offer.item.id == "r" and offer.content.titles == ["Notting Hill (1999)"]
    assert "comedy and romance" in offer.content.points[1]
    offer.record(ledger)
    seen = seeker_content(("REJ",), state, ledger, DOMAIN, content_rng(4), recommended=items["r"])
    assert seen.accept is False and "already seen" in seen.content.points[0] and "Nice enough" in seen.content.points[0]
    disliked = seeker_content(("REJ",), state, ledger, DOMAIN, content_rng(4), recommended=items["s"])
    assert "don't like horror" in disliked.content.points[0]
    other_genre = seeker_content(("REJ", "CON"), state, ledger, DOMAIN, content_rng(4), recommended=items["w"])
    assert "comedy or romance" in other_genre.content.points[0] and other_genre.content.points[-1] == "ask for another suggestion"
    accept = seeker_content(("ACC",), state, ledger, DOMAIN, content_rng(5), recommended=items["t"])
    assert accept.accept is True and "comedy and romance" in accept.content.points[1]
    # a question about an offer gets the catalog's facts: people only where the catalog lists them
    ask_about = seeker_content(("INQ",), state, ledger, DOMAIN, content_rng(0), recommended=items["t"], inquire=True)
    ask_about.record(ledger)
    answer = recommender_content(("R-ANS",), ledger, DOMAIN, content_rng(6), about=items["t"])
    assert answer.content.move == "answer"
    if ledger.question == "people":
        assert answer.content.people == ["Harold Ramis", "Bill Murray"] and "Bill Murray" in answer.content.points[0]
    else:
        assert "weatherman" in answer.content.points[0]


def test_the_same_turn_seed_decides_the_same_content(state):
    first = [recommender_content(("REQ",), Ledger(told={"genre": ("comedy",)}, asked=["genre"]), DOMAIN, content_rng(s))
             for s in range(20)]
    again = [recommender_content(("REQ",), Ledger(told={"genre": ("comedy",)}, asked=["genre"]), DOMAIN, content_rng(s))
             for s in range(20)]
    assert [d.content for d in first] == [d.content for d in again]
    assert {d.asks_about for d in first} == {"mood", "era"}  # never the genre it was told


def test_verification_finds_what_the_content_does_not_hold(state, items):
    ledger = Ledger(told={"genre": ("comedy",)})
    offer = recommender_content(("REC-S",), ledger, DOMAIN, content_rng(1), candidates=[items["r"]])
    context = ReplyContext("recommender", items=tuple(items.values()))
    assert verify("How about Notting Hill? A sweet comedy.", offer, context) == []
    names = [d.name for d in verify("Try Heat, starring Tom Hanks.", offer, context)]
    assert names == ["leaves_out_title", "leaves_out_content", "names_another_title", "names_a_person"]
    accept = seeker_content(("ACC",), state, ledger, DOMAIN, content_rng(5), recommended=items["t"])
    seeker = ReplyContext("seeker", items=tuple(items.values()))
    assert [d.name for d in verify("Groundhog Day, a comedy! I loved it, I'll watch it again. Thanks!", accept, seeker)] == ["claims_a_viewing"]
    assert cut_by_cap("x" * 99, 100) is not None and cut_by_cap("x" * 50, 100) is None


def assert_caught(slips: dict[str, str], decided, context: ReplyContext) -> None:
    """Each text's reply is turned down by verification for the slip named beside it."""
    for text, slip in slips.items():
        assert slip in [d.name for d in verify(text, decided, context)], text


def test_verification_finds_what_a_reader_finds_out_of_place(state, items):
    """The slips the blind readers of #63's benchmark found in decided dialogues, each caught; their clean
    wordings pass."""
    ledger = Ledger(told={"genre": ("comedy",)})
    offer = recommender_content(("REC-S",), ledger, DOMAIN, content_rng(1), candidates=[items["r"]])
    later = ReplyContext("recommender", items=tuple(items.values()), own_earlier=("What kind of movie?",))
    assert verify("How about Notting Hill? A sweet comedy.", offer, later) == []
    slips = {
        "Hi there! How about Notting Hill? A sweet comedy.": "greets_again",
        "Great choice! How about Notting Hill? A sweet comedy.": "praises_no_choice",
        "Sounds like they want a comedy: how about Notting Hill?": "speaks_of_them",
        "Notting Hill, a comedy for you and your friends.": "invents_company",
        "How about Notting Hill? A sweet comedy.}": "garbled",
        "How about Notting Hill? Do you know what it's about?": "asks_about_its_pick",
        "What is Notting Hill like, a comedy?": "asks_about_its_pick",
        "How about Notting Hill?a sweet comedy.": "garbled",
        "Not from 1970s. Maybe worth looking. Has seen Notting Hill? A comedy.": "garbled",
        "How about Notting Hill? A comedy I'll watch tonight.": "takes_the_other_side",
        "Notting Hill! I'd like a comedy too.": "takes_the_other_side",
        "Do they have a favorite? Notting Hill is a comedy.": "speaks_of_them",
        "How about Notting Hill? A comedy about a spy in Paris.": "invents_a_plot",  # the offer gives no plot
        "Do you have any other推荐? Notting Hill is a comedy.": "foreign_script",
        "Sure, you've seen Notting Hill: a comedy.": "unsaid_viewing",  # the seeker said of no viewing
        "How about Notting Hill? A comedy I'm excited to check out!": "takes_the_other_side",
        "Sure, I remember Notting Hill. A comedy.": "takes_the_other_side",
        "Notting Hill is a show, not a movie: a comedy.": "denies_its_kind",
        "How about Notting Hill? A comedy and a thriller.": "gives_another_genre",
    }
    assert_caught(slips, offer, later)
    seeker = ReplyContext("seeker", items=tuple(items.values()), own_earlier=("Hi!",))
    seen = seeker_content(("REJ",), state, ledger, DOMAIN, content_rng(4), recommended=items["r"])
    assert seen.seen and [d.name for d in verify("I haven't seen Notting Hill.", seen, seeker)] == ["denies_a_viewing"]
    unseen = seeker_content(("REJ",), state, ledger, DOMAIN, content_rng(4), recommended=items["w"])
    assert "claims_a_viewing" in [d.name for d in verify("Heat was not my favorite, I want a comedy.", unseen, seeker)]
    assert "takes_the_other_side" in [d.name for d in verify("I don't recommend Heat: I want a comedy.", unseen, seeker)]
    assert "claims_a_viewing" in [d.name for d in verify("I don't like Heat. I want a comedy.", unseen, seeker)]
    assert "takes_the_other_side" in [d.name for d in verify("I can't recommend Heat: I want a comedy.", unseen, seeker)]
    read_as = {  # what #63's fourth round of readers still found in the seeker's turns
        "Heat sounds like exactly what I'm looking for, but I want a comedy.": "welcomes_a_miss",
        "I'll think about Heat. I want a comedy.": "puts_off_the_choice",
        "I don't have a copy of Heat; I want a comedy.": "takes_the_other_side",
        "Heat is more of a horror movie; I want a comedy.": "gives_another_genre",
        "Sorry, but I don't have Heat. I want a comedy.": "takes_the_other_side",
    }
    assert_caught(read_as, unseen, seeker)
    assert verify("Not Heat, I think: I'm after a comedy or romance movie.", unseen, seeker) == []
    target = seeker_content(("ACC",), state, ledger, DOMAIN, content_rng(4), recommended=items["t"])
    assert "claims_a_viewing" in [d.name for d in verify("Groundhog Day, a comedy! I'd love to see it again.", target, seeker)]
    told = ReplyContext("recommender", items=tuple(items.values()), own_earlier=("Hi!",),
                        other_earlier=("I've seen Heat already.",))
    assert "unsaid_viewing" not in [d.name for d in verify("Since you've seen Heat, how about Notting Hill? A comedy.",
                                                          offer, told)]
    plot = recommender_content(("R-ANS",), Ledger(question="plot"), DOMAIN, content_rng(6), about=items["t"])
    assert verify("A weatherman relives one day until he gets it right.", plot, later) == []
    assert [d.name for d in verify("That sounds fun! Want to watch it tonight?", plot, later)] == ["leaves_out_content"]
    tell = seeker_content(("ANS",), state, Ledger(asked=["genre"]), DOMAIN, content_rng(2))
    assert "asks_back" in [d.name for d in verify("A comedy or romance. What are you thinking of?", tell, seeker)]
    assert "answers_no_offer" in [d.name for d in verify("Oh, Heat sounds perfect. A comedy, please.", tell, seeker)]



def test_verification_keeps_each_sentence_a_question_or_a_statement_as_decided(state, items):
    """Rounds 12 and 13's slips: a decline asked ("What if we skip this movie?"), a statement with a question mark
    ("It's a great one?", a plot sentence asked), a question said as a statement, shorthand ending on a bare verb,
    the recommender's greeting said back by the seeker, "no one in particular" said of movies; their clean wordings
    pass."""
    seeker = ReplyContext("seeker", items=tuple(items.values()), own_earlier=("Hi!",))
    decline = seeker_content(("REJ",), state, Ledger(), DOMAIN, content_rng(4), recommended=items["w"])
    assert "?" not in decline.template and verify("Not Heat, I think: I'm after a comedy or romance movie.", decline, seeker) == []
    assert_caught({"What if we skip Heat? I'm after a comedy.": "asks_back",
                   "Not Heat: crime movie, comedy wanted, dislike.": "garbled"}, decline, seeker)
    asking = seeker_content(("REJ", "REF"), state, Ledger(), DOMAIN, content_rng(4), recommended=items["w"])
    assert "?" in asking.template and "asks_back" not in [
        d.name for d in verify("Not Heat: I'm after a comedy. Got another one?", asking, seeker)]
    recommender = ReplyContext("recommender", items=tuple(items.values()), own_earlier=("What kind of movie?",))
    offer = recommender_content(("REC-S",), Ledger(told={"genre": ("comedy",)}), DOMAIN, content_rng(1), candidates=[items["r"]])
    assert_caught({"How about Notting Hill? It's a great comedy?": "tells_as_a_question",
                   "How about Notting Hill? It's a comedy from the nineties, and really good?": "tells_as_a_question",
                   "How about Notting Hill? " + items["r"].description.rstrip(".") + "?": "tells_as_a_question"},
                  offer, recommender)
    for tag in ("How about Notting Hill? It's a comedy, right?", "Notting Hill? It's a comedy, isn't it?"):
        assert "tells_as_a_question" not in [d.name for d in verify(tag, offer, recommender)], tag
    ask = recommender_content(("REQ",), Ledger(), DOMAIN, content_rng(3))
    assert ask.question and "drops_the_question" in [d.name for d in verify("I'd like to know your favorite genre.", ask, recommender)]
    assert_caught({"Hi! I can help pick a movie tonight. I want a comedy.": "takes_the_other_side"},
                  seeker_content(("ANS",), state, Ledger(asked=["genre"]), DOMAIN, content_rng(2)), seeker)
    nobody = seeker_content(("ANS",), state, Ledger(asked=["people"]), DOMAIN, content_rng(2))
    assert verify(nobody.template, nobody, seeker) == []
    assert_caught({"I don't have a particular movie in mind.": "leaves_out_content"}, nobody, seeker)


def test_verification_finds_round_14s_slips(state, items):
    """Round 14's readers: a no worded as a yes, a seeker asking what the recommender wants, a recommender joining in
    ("I'm in!") or liking its own pick, the question's choices said back, thanks "again" never given; the clean
    wordings pass."""
    seeker = ReplyContext("seeker", items=tuple(items.values()), own_earlier=("Hi!",))
    recommender = ReplyContext("recommender", items=tuple(items.values()), own_earlier=("What kind of movie?",))
    decline = seeker_content(("REJ",), state, Ledger(), DOMAIN, content_rng(4), recommended=items["w"])
    assert_caught({"What's Heat about? Do you want it?": "takes_the_other_side",
                   "Not Heat. Need another movie?": "takes_the_other_side",
                   "Heat is a good choice for me! I'm after a comedy.": "welcomes_a_miss"}, decline, seeker)
    ask = recommender_content(("REQ",), Ledger(), DOMAIN, content_rng(3))
    assert_caught({ask.template + " I'm in!": "takes_the_other_side"}, ask, recommender)
    offer = recommender_content(("REC-S",), Ledger(told={"genre": ("comedy",)}), DOMAIN, content_rng(1), candidates=[items["r"]])
    assert_caught({"Notting Hill is a comedy, which I really enjoy.": "takes_the_other_side"}, offer, recommender)
    era = seeker_content(("ANS",), state, Ledger(asked=["era"]), DOMAIN, content_rng(2))
    asked = replace(seeker, other_last="Got it. A classic, or something new?")
    assert_caught({"I'd like a classic or something new from the 1990s.": "echoes_the_question"}, era, asked)
    assert "echoes_the_question" not in [d.name for d in verify(era.template, era, asked)]
    target = seeker_content(("ACC",), state, Ledger(), DOMAIN, content_rng(4), recommended=items["t"])
    again = f"{target.template} Thanks again!"
    assert_caught({again: "thanks_again"}, target, seeker)
    assert "thanks_again" not in [d.name for d in verify(again, target, replace(seeker, own_earlier=("Hi! Thanks for asking.",)))]


def test_verification_finds_the_reference_corpus_s_slips(state, items):
    """Read in the dialogues of #64's reference corpus: a seeker sorry for having no mood in mind, "Not really" for
    an answer to a question that asks what (a yes or a no to a question it answers passes), a seeker telling what
    "you'd like", a recommender's "just what I asked for", "Has anyone seen ...?" and (round 16) "I'm glad you like
    Super Size Me!" of a movie nobody named, a goodbye that only names the movie, a reply quoted whole, a nod said
    back, "Not really" after its answer, "I agree" in a no, a liked example named without its liking; in the
    README's run, a recommender who "directed" its pick."""
    seeker = ReplyContext("seeker", items=tuple(items.values()), own_earlier=("Hi!",))
    era = seeker_content(("ANS",), state, Ledger(asked=["era"]), DOMAIN, content_rng(2))
    what = replace(seeker, other_last="Got it. What sort of era are you after tonight?")
    assert_caught({f"I'm sorry, but {era.template[0].lower()}{era.template[1:]}": "apologises",
                   f"Not really. {era.template}": "answers_yes_or_no", f"No, {era.template}": "answers_yes_or_no"},
                  era, what)
    recommender = ReplyContext("recommender", items=tuple(items.values()), own_earlier=("Hi!",))
    offer = recommender_content(("REC-S",), Ledger(told={"genre": ("comedy",)}), DOMAIN, content_rng(1), candidates=[items["r"]])
    assert_caught({"I directed Notting Hill, a comedy.": "speaks_as_its_maker",
                   "Notting Hill is a comedy, just what I asked for.": "takes_the_other_side",
                   "Hmm, I've never heard of Notting Hill. It's a comedy.": "takes_the_other_side",
                   "Has anyone seen Notting Hill? It's a comedy.": "invents_company",
                   "I'm glad you like Notting Hill! It's a comedy.": "assumes_a_liking"}, offer, recommender)
    decline = seeker_content(("REJ",), state, Ledger(), DOMAIN, content_rng(4), recommended=items["w"])
    assert_caught({"You'd like a comedy movie, not Heat.": "takes_the_other_side",
                   "I think you'd rather watch a funnier Heat.": "takes_the_other_side"}, decline, seeker)
    # round 16: a goodbye that is only the title, a critic's words quoted whole with the reply, a nod said back
    goodbye = recommender_content(("OTH",), Ledger(), DOMAIN, content_rng(1), closing=items["r"])
    assert verify(goodbye.template, goodbye, recommender) == []
    assert_caught({"Notting Hill!": "leaves_out_content"}, goodbye, recommender)
    assert_caught({'"A critic called it \'a lovely comedy\'."': "garbled"}, offer, recommender)
    assert_caught({f"Understood. {era.template}": "echoes_a_nod", f"Fair enough. {era.template}": "echoes_a_nod"},
                  era, replace(seeker, other_last="Understood. Any era you like best?"))
    assert_caught({f"{era.template} Not really, no particular one.": "answers_yes_or_no"}, era,
                  replace(seeker, other_last="Something light, or something heavier?"))
    assert_caught({"I agree that Heat is a crime movie, so not tonight.": "agrees_to_nothing"}, decline, seeker)
    assert "agrees_to_nothing" not in [d.name for d in verify(f"Thanks for the idea, but {decline.template}", decline, seeker)]
    example = seeker_content(("ANS",), state, Ledger(asked=["example"]), DOMAIN, content_rng(2))
    assert example.example == "Airplane! (1980)" and "leaves_out_content" not in [
        d.name for d in verify(example.template, example, seeker)]
    assert_caught({"Fun, exciting Airplane! movie.": "leaves_out_content"}, example, seeker)
    yes_no = replace(seeker, other_last="Got it. Any era you like best?")
    assert [d.name for d in verify(f"Yes! {era.template}", era, yes_no)] == []
    assert "answers_yes_or_no" not in [d.name for d in verify(f"No particular one. {era.template}", era, what)]


def test_a_decline_tells_what_it_wants_and_an_offer_that_misses_it_says_so(state, items):
    ledger = Ledger()
    decline = seeker_content(("REJ",), state, ledger, DOMAIN, content_rng(4), recommended=items["w"])
    decline.record(ledger)
    assert ledger.told["genre"] == ("comedy", "romance")  # the recommender will not ask for the genre again
    assert recommender_content(("REQ",), ledger, DOMAIN, content_rng(1)).asks_about != "genre"
    ledger.told["era"] = ("from the 1990s",)
    miss = recommender_content(("REC-S",), ledger, DOMAIN, content_rng(1), candidates=[items["h"]])
    # what it is not, never that none exists: a later offer may well be one (the fifth round's readers found 9 of
    # 40 dialogues that said "I don't have a movie from the 1950s right now" and then offered one)
    assert miss.content.points[-1] == "say plainly that it is not a comedy movie from the 1990s, but suggest it all the same"
    assert all(words in miss.template for words in ("The Shining", "horror movie"))
    assert re.search(r"comedy movie from the (?:1990s|90s|'90s|nineties)", miss.template), miss.template
    context = ReplyContext("recommender", items=tuple(items.values()), own_earlier=("Hi!",))
    assert [d.name for d in verify("The Shining fits your criteria perfectly: a horror movie.", miss, context)] == [
        "claims_a_fit", "misses_the_but", "leaves_out_content"]
    assert [d.name for d in verify("The Shining? Not a horror movie, but it's a horror movie.", miss, context)] == [
        "leaves_out_content"]
    assert [d.name for d in verify("The Shining isn't a comedy from the 90s, so it's a horror movie.", miss, context)] == [
        "misses_the_but"]
    assert verify("The Shining isn't a comedy from the 90s, but it's a great horror movie.", miss, context) == []
    for stock in ("No comedy from the 90s here, sorry, but The Shining is a great horror movie.",
                  "I don't have a comedy from the 90s right now, but The Shining is a horror movie."):
        assert "claims_no_stock" in [d.name for d in verify(stock, miss, context)], stock
    told_all = Ledger(asked=["more"], told={a: ("x",) for a in ("genre", "mood", "era", "example")})
    assert seeker_content(("ANS",), state, told_all, DOMAIN, content_rng(2)).template in NOTHING_MORE


def test_a_movie_whose_catalog_tells_no_story_is_asked_whether_it_is_any_good(state):
    """MovieLens's descriptions list the genres, tags and a critic's words, no plot: the offer already said its
    kind, so the seeker asks whether it is any good, and the answer gives the critic's words, never a story;
    with no critic either, the seeker asks nothing and reacts."""
    quiet = Item(id="q", title="City Hall", year=1996, genres=["Drama", "Thriller"],
                 description='Drama, Thriller. A critic: "Its chief pleasure is the acting of the big cast."')
    asked = seeker_content(("INQ",), state, Ledger(), DOMAIN, content_rng(0), recommended=quiet, inquire=True)
    assert asked.asks_about == "opinion" and asked.template == "Is City Hall any good?"
    asked.record(ledger := Ledger())
    answer = recommender_content(("R-ANS",), ledger, DOMAIN, content_rng(6), about=quiet)
    assert answer.template == 'A critic called it "Its chief pleasure is the acting of the big cast."'
    assert answer.say_any == ("chief", "pleasure", "acting")
    bare = quiet.model_copy(update={"description": "Drama, Thriller."})
    assert seeker_content(("INQ",), state, Ledger(), DOMAIN, content_rng(0), recommended=bare, inquire=True).content.move == "decline"
    later = ReplyContext("recommender", items=(quiet,), own_earlier=("Hi!",))
    assert "invents_a_plot" in [d.name for d in verify("City Hall is a drama about a mayor's scandal.", answer, later)]


def test_a_model_that_words_nothing_right_leaves_every_turn_to_its_template(catalog, reviews):
    """Every reply names a title the content does not hold: each is turned down, re-sampled, and the
    content's template says the turn; the record keeps the content, the replies turned down and why."""
    def wrong(messages, schema):
        return json.dumps({"utterance": "You should watch The Matrix, it's great."})

    spec = make_game_specs(ReviewIndex.from_reviews(reviews), catalog, n=1, seed=4)[0][0]
    game, backend = make_game(catalog, reviews, wrong, GameRules(wording="decided"))
    record = play(game, spec)
    worded = record.turns[record.scripted_turns:]
    assert record.outcome.ended_by == "accepted" and not record.errors
    assert all(t.content is not None and t.content.worded_by == "template" for t in worded)
    assert all(t.checks.repaired and t.checks.resampled for t in worded)
    assert all(t.text != "You should watch The Matrix, it's great." for t in worded)
    assert record.turns[-1].accepted and record.turns[-1].content.move == "accept"
    assert catalog[spec.target.id].title in record.turns[-1].text
    # the wording prompt is short: the role, the other side's last words and the content, nothing of the persona
    prompt = backend.calls[0][1]["content"]
    assert "Your message" in prompt and spec.persona.target.text[:30] not in prompt


def test_contents_speak_in_the_domain_s_words(state, items):
    books = load_domain("books")
    ask = recommender_content(("REQ",), Ledger(), books, content_rng(1))
    assert "book" in ask.template and "movie" not in ask.template + " ".join(ask.content.points)
    decline = seeker_content(("REJ",), state, Ledger(), books, content_rng(2), recommended=items["s"])
    assert "books" in decline.template and "movie" not in decline.template


def test_the_recommender_s_prompts_hold_nothing_of_the_seeker_s_state(catalog, reviews):
    """The recommender words only what was said: no prompt of its turns names the hidden target before it is
    offered, nor quotes the seeker's reviews."""
    spec = make_game_specs(ReviewIndex.from_reviews(reviews), catalog, n=1, seed=9)[0][0]
    game, backend = make_game(catalog, reviews, lambda m, s: json.dumps({"utterance": "Hmm."}), GameRules(wording="decided"))
    record = play(game, spec)
    offered_at = next(i for i, t in enumerate(record.turns) if t.recommended_item == spec.target.id)
    recommender_prompts = [m[1]["content"] for m in backend.calls if "You are the recommender" in m[0]["content"]]
    before = recommender_prompts[: sum(1 for t in record.turns[record.scripted_turns:offered_at] if t.role == "recommender")
                                 * (game.sampling.reply_resamples + 1)]
    assert before and all(spec.target.title not in prompt for prompt in before)
    words = [r.text[:40] for r in [*spec.persona.general, spec.persona.target] if r.text]
    assert not any(w in prompt for w in words for prompt in recommender_prompts)


def test_verification_catches_a_genre_the_item_lacks_and_a_seeker_taking_its_example(state, items):
    ledger = Ledger(told={"genre": ("crime",)})
    offer = recommender_content(("REC-S",), ledger, DOMAIN, content_rng(1), candidates=[items["w"]])
    context = ReplyContext("recommender", items=tuple(items.values()))
    assert verify("Heat is a tense crime movie.", offer, context) == []
    assert [d.name for d in verify("Heat is a crime movie, a real horror show.", offer, context)] == ["gives_another_genre"]
    reveal = seeker_content(("ANS", "PRO"), state, Ledger(), DOMAIN, content_rng(2))
    seeker = ReplyContext("seeker", items=tuple(items.values()))
    said = "A comedy or romance, please. I loved Airplane!, so I'll stick with it."
    assert [d.name for d in verify(said, reveal, seeker)] == ["takes_the_example"]


def test_every_slip_verification_names_has_the_line_a_re_sample_adds():
    """A re-sample's prompt says what to avoid (synth.analysis.defects.checks.FIXES): a slip without its line would
    end the dialogue with a KeyError."""
    import inspect
    import re

    from synth.analysis.defects.checks import FIXES, avoid_line
    from synth.analysis.defects.detectors import Defect
    from synth.content import verification

    names = set(re.findall(r'Defect\(\s*"(\w+)"', inspect.getsource(verification)))
    names |= set(re.findall(r'\("(\w+)", _[A-Z_]+', inspect.getsource(verification)))  # _out_of_place's table
    assert {"cut_by_cap", "unsaid_viewing", "foreign_script", "greets_again"} <= names
    assert names <= set(FIXES), names - set(FIXES)
    assert avoid_line([Defect(name, "") for name in sorted(names)], DOMAIN).startswith("This time: ")


def test_each_template_says_every_point_of_its_content_in_one_of_several_ways(state, items):
    """The wording prompt shows the template beside the points, and a turn no reply words is said by it: it says
    all the points (the recommender's nod, the offer's plot and liked example, the decline's ask for another, a
    seen favourite's wish for something new), and the turn's seed picks one of several ways to say it."""
    ledger = Ledger(told={"genre": ("comedy",)}, examples=["Airplane! (1980)"])
    ask = recommender_content(("RESP", "REQ"), ledger, DOMAIN, content_rng(1))
    assert ask.content.points[0] == "react in a few words to the last message"
    assert ask.template.split(".")[0] + "." in NODS
    offer = recommender_content(("REC-S", "EXP-I", "EXP-S"), ledger, DOMAIN, content_rng(3), candidates=[items["t"]])
    assert "A weatherman relives one day until he gets it right." in offer.template
    assert offer.template.endswith("If you loved Airplane!, you may like this one too.")
    another = seeker_content(("REJ", "CON"), state, Ledger(), DOMAIN, content_rng(4), recommended=items["w"])
    assert another.template.endswith(ANOTHER) and "Heat" in another.template
    favourite = seeker_content(("REJ",), state, Ledger(), DOMAIN, content_rng(4), recommended=items["a"])
    assert favourite.template.endswith("Something I haven't seen would be better.")
    accepts = {seeker_content(("ACC",), state, Ledger(), DOMAIN, content_rng(seed), recommended=items["t"]).template
               for seed in range(20)}
    assert len(accepts) >= 3 and all("Groundhog Day" in text and "comedy and romance" in text.lower() for text in accepts)


def test_what_the_catalog_says_is_given_whole_or_not_at_all():
    """A plot is cut before its appositive ("..., a warm, witty fable"), else given whole where it fits, else not
    at all: a cut at another comma left half a phrase ("a Jupiter mission haunted by a calm"). A critic's words
    that say nothing of the movie ("I loved it.") are no critic's opinion to give."""
    def item(description: str) -> Item:
        return Item(id="x", title="X", year=2000, genres=["Drama"], description=description)

    fable = ("A sour TV weatherman is trapped reliving the same small-town winter day until he learns to change, "
             "a warm, witty fable suited to viewers wanting comedy with heart.")
    assert plot_of(item(fable)) == ("A sour TV weatherman is trapped reliving the same small-town winter day until he "
                                    "learns to change")
    voyage = ("A slow, nearly wordless voyage from prehistoric apes to a Jupiter mission haunted by a calm, murderous "
              "computer, best for patient viewers who enjoy cosmic mystery and grand imagery.")
    assert plot_of(item(voyage)) == voyage.rstrip(".")
    assert plot_of(item(voyage.replace("computer,", "computer " + "and more " * 10 + ","))) == ""
    assert critic_of(item('Drama. A critic: "I loved it."')) == ""
    assert critic_of(item('Drama. A critic: "Its chief pleasure is the acting."')) == "Its chief pleasure is the acting."


def test_a_title_inside_the_content_s_own_title_is_no_other_title_and_a_review_s_brackets_are_not_quoted(items):
    apes = Item(id="p", title="Planet of the Apes", year=1968, genres=["Sci-Fi"], description="Astronauts land.")
    battle = Item(id="b", title="Battle for the Planet of the Apes", year=1973, genres=["Sci-Fi"], description="Apes rule.")
    offer = recommender_content(("REC-S",), Ledger(told={"genre": ("sci-fi",)}), DOMAIN, content_rng(1), candidates=[battle])
    context = ReplyContext("recommender", items=(apes, battle), own_earlier=("Hi!",))
    assert verify("How about Battle for the Planet of the Apes? It's a sci-fi movie.", offer, context) == []
    named = verify("How about Battle for the Planet of the Apes? Planet of the Apes fans love this sci-fi movie.", offer, context)
    assert [d.name for d in named] == ["names_another_title"]
    said = own_words(review("r", 0.9, "[Julia Roberts] is at her vibrant best here."), items["r"])
    assert said == "Julia Roberts is at her vibrant best here"
    # the reference corpus's "I loved In Too Deep: 'Empty at the core but superficially diverting'" and "One I loved
    # was Rear Window: 'Jefferies (James Stewart)'": neither is said as why it loved them
    mixed = review("r", 1.0, "Empty at the core but superficially diverting. A glossy, lively romp.")
    assert own_words(mixed, items["r"], mixed=False) == "A glossy, lively romp"
    assert own_words(review("r", 1.0, "Jefferies (James Stewart) watches."), items["r"]) != "Jefferies (James Stewart) watches"
    assert own_words(review("r", 1.0, "Empty at the core but diverting."), items["r"], mixed=False) != "Empty at the core but diverting"
    assert in_own_words("bleak") == ", so bleak." and in_own_words("gripping, dark") == ", so gripping and dark."
    assert in_own_words("Silly and witty all the way") == ': "Silly and witty all the way"'


def test_asked_what_it_would_rather_avoid_the_seeker_names_its_dislike_and_no_question_comes_twice(state, items):
    """Once every taste is asked, the recommender asks what to avoid, then whether there is anything else, not
    the same question again; the seeker answers with the genre it dislikes, and no offer is of that genre."""
    ledger = Ledger(asked=["genre", "mood", "era", "example"], told={a: ("x",) for a in ("genre", "mood", "era", "example")})
    avoid = recommender_content(("REQ",), ledger, DOMAIN, content_rng(1))
    assert avoid.asks_about == "avoid" and any(word in avoid.template for word in ("avoid", "skip"))
    avoid.record(ledger)
    answer = seeker_content(("ANS",), state, ledger, DOMAIN, content_rng(2))
    assert answer.template == "I'd rather avoid horror movies." and answer.told == {"avoid": ("horror",)}
    answer.record(ledger)
    people = recommender_content(("REQ",), ledger, DOMAIN, content_rng(3))
    assert people.asks_about == "people"
    people.record(ledger)
    nobody = seeker_content(("ANS",), state, ledger, DOMAIN, content_rng(2))
    assert nobody.template in NOBODY and nobody.told == {"people": ()}
    nobody.record(ledger)
    seeker = ReplyContext("seeker", items=tuple(items.values()), own_earlier=("Hi!",))
    assert [d.name for d in verify("Got it. No one in particular.", nobody, seeker)] == ["echoes_a_nod"]
    assert [d.name for d in verify(f"{nobody.template} Hmm:", nobody, seeker)] == ["garbled"]
    assert recommender_content(("REQ",), ledger, DOMAIN, content_rng(3)).asks_about == "more"
    ledger.told["genre"] = ("horror", "comedy")  # even where a horror movie would match more of what was said
    offer = recommender_content(("REC-S",), ledger, DOMAIN, content_rng(4), candidates=[items["s"], items["a"]])
    assert offer.item.id == "a"
    slips = verify("I agree. Thanks for the suggestion, I'd rather avoid horror movies.", answer, seeker)
    assert [d.name for d in slips] == ["answers_no_offer"]


def test_the_recommender_searches_for_what_the_seeker_said_it_wants_and_an_accept_agrees_to_nothing(state, items):
    """In decided wording the retrieval query is the genres and moods told (the dialogue's words hold every title
    and plot offered before, which pull the search toward what was turned down); a yes says yes, not "I agree"."""
    ledger = Ledger(told={"genre": ("comedy", "romance"), "avoid": ("horror",), "mood": ("witty",), "era": ("from the 1990s",)})
    assert ledger.wanted() == "comedy romance witty"
    accept = seeker_content(("ACC",), state, Ledger(), DOMAIN, content_rng(5), recommended=items["t"])
    seeker = ReplyContext("seeker", items=tuple(items.values()), own_earlier=("Hi!",))
    assert [d.name for d in verify("I agree. Groundhog Day is a great comedy and romance movie. Thanks!", accept,
                                   seeker)] == ["agrees_to_nothing"]
    assert verify("Yes! Groundhog Day, a comedy and romance movie, is just right. I'll watch it. Thanks!", accept,
                  seeker) == []


def test_a_yes_to_a_target_of_no_genre_or_era_asked_for_does_not_call_it_what_it_was_after(state, items):
    """A GoRecDial seeker's target comes from its set, not from what it said (last session's game: a seeker who asked
    for animated or family movies took The Hunger Games as "exactly what I was after")."""
    elsewhere = replace(state, wants=replace(state.wants, genres=("horror",)))
    seeker = ReplyContext("seeker", items=tuple(items.values()), own_earlier=("Hi!",))
    for seed in range(8):
        yes = seeker_content(("ACC",), elsewhere, Ledger(), DOMAIN, content_rng(seed), recommended=items["t"])
        assert yes.accept and "what you asked for" in yes.content.points[1]
        assert not re.search(r"exactly|just right|hoping for|my thing|perfect|wanted", yes.template), yes.template
        assert verify(yes.template, yes, seeker) == [], yes.template
    # nor is a target of another era than the one the seeker told (round 15's GoRecDial game: "something from the
    # 2000s", then The Empire Strikes Back as "just right")
    told = Ledger(told={"genre": state.wants.genres, "era": ("from the 2000s",)})
    for seed in range(8):
        yes = seeker_content(("ACC",), state, told, DOMAIN, content_rng(seed), recommended=items["t"])
        assert yes.accept and "not what you asked for (from the 2000s)" in yes.content.points[1]
        assert not re.search(r"exactly|just right|hoping for|my thing|perfect|wanted", yes.template), yes.template
        assert verify(yes.template, yes, seeker) == [], yes.template
    same_era = seeker_content(("ACC",), state, Ledger(told={"era": (state.wants.era,)}), DOMAIN, content_rng(1),
                              recommended=items["t"])
    assert "not what you asked for" not in same_era.content.points[1]


def test_imax_is_no_kind_a_seeker_wants_or_an_offer_names_and_an_honest_drama_takes_an(items):
    """The reference corpus's seeker asked for "something more like an IMAX movie" (MovieLens lists IMAX among The
    Lion King's genres): how a movie was shown is not what it is, so no state wants it and no kind says it."""
    lion = Item(id="l", title="The Lion King", year=1994, genres=["Adventure", "Animation", "Musical", "IMAX"])
    persona = Persona(user_id="u", general=[review("a", 0.9, "Silly.")], target=review("l", 0.95, "Grand."))
    state = pearl_state(persona, {**items, "l": lion}, lambda _: None)
    assert state.wants.genres == ("adventure", "animation", "musical")
    assert set_state([lion, items["a"]]).wants.genres == ("adventure", "animation")
    assert kind_of(lion.genres, DOMAIN) == "an adventure, animated and musical movie"
    offer = recommender_content(("REC-S",), Ledger(), DOMAIN, content_rng(1), candidates=[lion])
    assert "imax" not in (offer.template + " ".join(offer.content.points)).lower()
    assert with_article("honest drama") == "an honest drama" and with_article("happy drama") == "a happy drama"


def test_after_a_no_that_asks_for_a_genre_the_next_offer_has_it(state, items):
    """Round 16's readers: "I was hoping for more of a drama movie", then a romantic comedy "just what you asked
    for". The recommender hears the no: among its candidates, one with the genre asked for comes first, even where
    another matches more of what was said before."""
    ledger = Ledger(told={"genre": ("comedy", "romance"), "era": ("from the 1980s",)})
    eighties_comedy = Item(id="c", title="Big", year=1988, genres=["Comedy"])
    romance = Item(id="y", title="Titanic", year=1997, genres=["Romance"])
    assert {choose_offer([eighties_comedy, romance], ledger, content_rng(seed)).id for seed in range(8)} == {"c"}
    spaceballs = Item(id="s2", title="Spaceballs", year=1987, genres=["Comedy"])
    decline = seeker_content(("REJ",), state, ledger, DOMAIN, content_rng(4), recommended=spaceballs)
    assert decline.told == {"genre": ("romance",)}
    decline.record(ledger)
    assert {choose_offer([eighties_comedy, romance], ledger, content_rng(seed)).id for seed in range(8)} == {"y"}
