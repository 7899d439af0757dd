"""Every check of one reply (the sentence checks of synth.analysis.defects.detectors, the dialogue-state checks
of .state and the catalog facts of .facts), and the line a re-sampled prompt adds to avoid what they found."""

from __future__ import annotations

from collections.abc import Iterable

from synth.analysis.defects.detectors import (
    Defect,
    ReplyContext,
    borrows_description,
    contradicts_review,
    copies_example,
    copies_other,
    echoes_instructions,
    names_target,
    repeats_itself,
    third_person,
)
from synth.analysis.defects.facts import contradicts_catalog
from synth.analysis.defects.state import (
    accepts_in_words,
    early_goodbye,
    other_domain,
    premature_goodbye,
    recites_target,
    speaks_as_other,
    suggests_unlisted,
    unasked_question,
    unnamed_recommendation,
    unsaid_reference,
)
from synth.domain import Domain, load_domain


def check_reply(text: str, context: ReplyContext, named: str | None = None, recommends: str | None = None) -> list[Defect]:
    """Every defect the detectors find in one reply; `named` is the title of the item it recommends or answers
    about (recommender), `recommends` the title of the item it recommends."""
    found = [
        detector(text, context)
        for detector in (copies_other, repeats_itself, third_person, contradicts_review, names_target, copies_example,
                         echoes_instructions,
                         unsaid_reference, speaks_as_other, recites_target, accepts_in_words, other_domain)
    ]
    found += [
        borrows_description(text, context, named),
        unnamed_recommendation(text, recommends, context.short_titles),
        unasked_question(text, context, recommends),
        suggests_unlisted(text, context, named),
        early_goodbye(text, context, recommends),
        premature_goodbye(text, context, recommends),
        contradicts_catalog(text, context, named),
    ]
    return [defect for defect in found if defect is not None]


def check_decision(accept: bool | None, expected: bool | None, title: str | None, noun: str = "movie") -> Defect | None:
    """A seeker's decision against the rule: it accepts its target and nothing else (None: no decision due);
    `noun` names the item ("movie")."""
    if expected is None or accept is None or accept == expected:
        return None
    if expected:
        return Defect("wrong_decision", f"turns down {title or 'the suggestion'}, the {noun} it hopes for")
    return Defect("wrong_decision", f"accepts {title or 'the suggestion'}, which is not the {noun} it hopes for")


FIXES = {
    "copies_other": "do not repeat the other person's words; answer in your own",
    "repeats_itself": "say something new instead of repeating your earlier message",
    "third_person": 'speak directly to the other person as "you" and of yourself as "I"',
    "contradicts_review": "stay true to your own opinions of the {plural} you reviewed",
    "names_target": "never name the {noun} you secretly hope for",
    "borrows_description": "describe only the {noun} you name, with its own facts",
    "copies_example": "do not copy the example; use your own words",
    "echoes_instructions": "say only your message, never its instructions",
    "unsaid_reference": "speak only of what was really said in the conversation so far",
    "speaks_as_other": "stay in your own role (the seeker wants {a_noun}, the recommender suggests one)",
    "unnamed_recommendation": "name the {noun} you recommend by its title",
    "recites_target": "describe what you hope for in a few new words, not in your review's",
    "unasked_question": "ask your question, ending with a question mark",
    "early_goodbye": "do not thank or say goodbye yet: nothing has been recommended",
    "premature_goodbye": "do not say goodbye: the conversation goes on",
    "contradicts_catalog": "say only what the {noun}'s own facts say",
    "accepts_in_words": "do not say you will {verb} it: you are turning it down",
    # decided wording's checks (synth.content.verification)
    "cut_by_cap": "say it in fewer words",
    "leaves_out_title": "name the title you are given",
    "leaves_out_content": "say every point you are given",
    "names_another_title": "name no title but the one you are given",
    "names_a_person": "name no person you are not given",
    "misstates_a_role": "say each person's part as given: who stars in it is not who made it",
    "misquotes": "quote the critic's words exactly as given, in quotation marks",
    "claims_a_viewing": "you have not {seen} it: say nothing of having {seen} it",
    "takes_the_other_side": "stay in your own role (the seeker wants {a_noun}, the recommender suggests one)",
    "states_an_unknown_date": "give no year or decade you are not given",
    "takes_the_example": "that {noun} is one you have {seen}: only say what you thought of it",
    "gives_another_genre": "give it only the genres you are given",
    "denies_a_viewing": "you have {seen} it: say what you thought of it",
    "asks_back": "ask nothing: only say what you are told to",
    "drops_the_question": "ask the question you are given, ending it with a question mark",
    "tells_as_a_question": "say what you tell as a statement, not with a question mark",
    "echoes_the_question": "answer the question in your own words; do not say its choices back",
    "thanks_again": "thank them once, without 'again': you have not thanked them before",
    "apologises": "no apology: there is nothing to be sorry for",
    "speaks_as_its_maker": "speak as yourself: you did not make it or play in it",
    "assumes_a_liking": "suggest it: they have not said they like it",
    "answers_yes_or_no": "answer what they asked in words, not with a yes or a no",
    "greets_again": "no greeting: the conversation is already going",
    "praises_no_choice": "no praise for a choice: nobody has chosen anything yet",
    "speaks_of_them": 'speak to the other person as "you", never of them as "they"',
    "invents_company": "speak of no friends, family or anyone else",
    "garbled": "plain words only: no brackets, braces or doubled marks",
    "asks_about_its_pick": "tell them about it yourself instead of asking them",
    "invents_a_plot": "say nothing of its story: you are not given it",
    "claims_a_fit": "do not say it fits what they asked for: it does not",
    "unsaid_viewing": "say nothing of their having {seen} it: they never said so",
    "denies_its_kind": "call it {a_noun}, as it is",
    "welcomes_a_miss": "do not welcome it: you are not taking it",
    "answers_no_offer": "nothing has been offered yet: only say what you want",
    "agrees_to_nothing": "say what you decide in your own words; there is nothing to agree with",
    "misses_the_but": "say what it is not, then 'but' what it is",
    "echoes_a_nod": "answer the question; no 'Got it' or 'I see' of your own",
    "claims_no_stock": "say what this {noun} is and is not; never that you have none of something",
    "claims_it_said": "say it plainly, without 'as I said'",
    "puts_off_the_choice": "decide now, as you were told: no putting it off",
    "foreign_script": "write in English only",
    "wrong_decision": "decide as you were told: accept only the {noun} you hope for",
    "suggests_unlisted": "suggest no {noun} but the candidate you were given",
    "other_domain": "speak of {plural} in a {noun}'s own words: this conversation is about {plural} only",
}


def avoid_line(defects: Iterable[Defect], domain: Domain | None = None) -> str:
    """The one line a re-sampled prompt adds: what the rejected reply did, to avoid this time, in the domain's
    words (movies by default)."""
    domain = domain or load_domain()
    words = {"noun": domain.noun, "a_noun": domain.a_noun, "plural": domain.plural, "verb": domain.verb, "seen": domain.seen}
    wanted = list(dict.fromkeys(FIXES[d.name].format(**words) for d in defects))
    return "This time: " + "; ".join(wanted) + "."
