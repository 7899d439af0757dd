"""Preference-filter logic with scripted judges (the real LLM judge is in tests/integration): what is
asked, how answers become drops, and that a judge that cannot answer never ends the run."""

from __future__ import annotations

import asyncio
import json

import pytest

from synth.errors import SynthError
from synth.filters.config import FilterConfig
from synth.filters.dialogue import Statement
from synth.filters.judge_protocol import Claim
from synth.filters.llm_judge import LLMJudge, grounded
from synth.filters.nli_judge import NLIJudge, contradiction_index
from synth.filters.pipeline import filter_run
from synth.filters.preference import GuessContradiction, PersonaContradiction
from synth.llm.scripted import ScriptedBackend
from synth.prompting import PromptSet
from tests.helpers import FIXTURES, clean_turns, record, replace, run_synth, view, write_run

PLANTED = "I adore slow films where nothing happens; the slower the better."
MARKERS = ("the slower the better", "loves slow films")


def stance_script(messages, schema):
    """Screens by looking for the planted sentence; the stance check calls 'slow' opposite only there."""
    user = messages[-1]["content"]
    props = schema["properties"]
    if "topic" in props:
        opposite = any(marker in user for marker in MARKERS)
        return json.dumps({"topic": "slow films", "a_feels": "negative", "b_feels": "positive" if opposite else "not_mentioned"})
    claim_field, premise_field = [k for k in props if k not in ("think", "contradiction")]
    lines = [line for line in user.splitlines() if line[:1] in "USN" and line[1:2].isdigit()]
    hit = next((line for line in lines if any(marker in line for marker in MARKERS)), None)
    if hit is None:
        return json.dumps({"think": "all agree", "contradiction": False, claim_field: 0, premise_field: 0})
    return json.dumps({"think": "opposite", "contradiction": True, claim_field: int(hit[1]), premise_field: 1})


def judge(script=stance_script, screen=True, **options) -> tuple[LLMJudge, ScriptedBackend]:
    backend = ScriptedBackend(script)
    return LLMJudge(backend, PromptSet.load(mode="judge"), screen=screen, **options), backend


def test_persona_contradiction_screens_then_checks_the_pair():
    llm, backend = judge()
    planted = view(replace(clean_turns(), 1, text=PLANTED))
    verdict = asyncio.run(PersonaContradiction(llm).check(planted))
    assert not verdict.keep and verdict.turn == 3 and verdict.evidence == PLANTED
    assert 'contradicts review 1, disliked it "Slow and dull; I fell asleep twice."' in verdict.reason
    assert "about slow films, one is negative and the other positive" in verdict.reason
    assert len(backend.calls) == 2 and "Statement A (review 1, disliked it)" in backend.calls[1][-1]["content"]
    backend.calls.clear()
    assert asyncio.run(PersonaContradiction(llm).check(view(clean_turns()))).keep
    assert len(backend.calls) == 1  # the screen found nothing: no stance check


def test_persona_claims_are_the_seeker_turns_after_the_seed_against_every_review():
    claims = PersonaContradiction(judge()[0]).claims(view(clean_turns()))
    assert [c.turn for c in claims] == [3, 5, 7]
    assert [p.label for p in claims[0].premises] == ["review 1, disliked it", "what draws them to the movie they hope for"]


def test_guess_contradiction_checks_notes_against_what_was_said_before():
    llm, _ = judge()
    filter_ = GuessContradiction(llm)
    claims = filter_.claims(view(clean_turns()))
    assert [c.turn for c in claims] == [4, 6] and [len(c.premises) for c in claims] == [1, 2]  # the first note came before any seeker turn
    said = replace(clean_turns(), 1, text="Anything but slow films, please.")
    planted = view(replace(said, 4, think="The seeker loves slow films, so pick a long one."))
    verdict = asyncio.run(filter_.check(planted))
    assert not verdict.keep and verdict.turn == 6 and "the recommender's note or message at turn 6 contradicts seeker turn 3" in verdict.reason
    assert asyncio.run(filter_.check(view(clean_turns()))).keep


def test_without_notes_the_recommenders_messages_are_what_guess_contradiction_judges():
    llm, _ = judge()
    turns = [t.model_copy(update={"think": None}) for t in clean_turns()]  # a run without --think
    claims = GuessContradiction(llm).claims(view(turns))
    assert [(c.turn, c.text) for c in claims] == [(4, turns[2].text), (6, turns[4].text)]
    said = replace(turns, 1, text="Anything but slow films, please.")
    verdict = asyncio.run(GuessContradiction(llm).check(view(replace(said, 2, text="Anyone who loves slow films enjoys Heat (1995)."))))
    assert not verdict.keep and verdict.evidence == "Anyone who loves slow films enjoys Heat (1995)."
    assert asyncio.run(GuessContradiction(llm).check(view(turns))).keep


def test_by_default_every_pair_is_checked_premise_by_premise():
    llm, backend = judge(screen=False)
    verdict = asyncio.run(PersonaContradiction(llm).check(view(replace(clean_turns(), 5, text=PLANTED))))
    assert not verdict.keep and verdict.turn == 7 and "review 1" in verdict.reason
    prompts = [call[-1]["content"] for call in backend.calls]
    assert all("Statement A" in prompt for prompt in prompts)
    assert len(prompts) == 3  # review 1 against turns 3, 5, then 7 (found); review 2 never needed
    assert all("Statement A (review 1, disliked it)" in prompt for prompt in prompts)


def test_broken_judge_answers_are_retried_then_recorded_not_fatal(tmp_path):
    answers = iter(["not json", json.dumps({"think": "x", "contradiction": "maybe", "utterance": 0, "review": 0})] * 50)
    llm, backend = judge(lambda messages, schema: next(answers), retries=1)
    run = write_run(tmp_path / "run", [record(clean_turns(), rid="a"), record(clean_turns(), rid="b")])
    config = FilterConfig(filters=["form", "persona_contradiction"])
    report = asyncio.run(filter_run(run, tmp_path / "out", config, judge=llm))
    row = report.filters["persona_contradiction"]
    assert report.kept == 2 and row.judge_errors == 2 and row.dropped == 0
    assert "no valid judge answer in 2 attempts" in row.error_examples[0].error
    assert "'contradiction' is missing or not true/false" in row.error_examples[0].error
    assert len(backend.calls) == 4 and report.preference_method.startswith("llm judge (scripted")


def test_preference_filters_judge_only_what_basic_filters_kept_unless_asked(tmp_path):
    cut = record(replace(clean_turns(), 1, text=PLANTED[:-1] + " and"), rid="cut")  # form drops it
    run = write_run(tmp_path / "run", [cut, record(replace(clean_turns(), 1, text=PLANTED), rid="planted")])
    config = FilterConfig(filters=["form", "persona_contradiction"])
    report = asyncio.run(filter_run(run, tmp_path / "kept", config, judge=judge()[0]))
    assert report.filters["persona_contradiction"].ran_on == 1 and report.dropped == 2
    config = FilterConfig(filters=["form", "persona_contradiction"], preference_on="all")
    report = asyncio.run(filter_run(run, tmp_path / "all", config, judge=judge()[0]))
    assert report.filters["persona_contradiction"].ran_on == 2
    assert report.overlap == {"form & persona_contradiction": 1}


class FakeCrossEncoder:
    """Stands in for a sentence-transformers CrossEncoder: P(contradiction) high only for the planted pair."""

    def predict(self, pairs, **_):
        return [[0.05, 0.05, 0.9] if PLANTED in hypothesis else [0.1, 0.8, 0.1] for _, hypothesis in pairs]


def test_nli_judge_takes_the_strongest_contradiction_over_the_threshold():
    nli = NLIJudge("unused", threshold=0.8)
    nli._model, nli._contradiction = FakeCrossEncoder(), 2
    premises = (Statement("review 1", "Slow and dull."), Statement("review 2", "Loved the chases."))
    claims = [Claim(3, "Hello there.", premises), Claim(5, PLANTED, premises)]
    found = asyncio.run(nli.contradiction("persona", claims))
    assert found.claim.turn == 5 and found.premise.label == "review 1" and found.score == pytest.approx(0.9)
    nli.threshold = 0.95
    assert asyncio.run(nli.contradiction("persona", claims)) is None


def test_nli_label_order_comes_from_the_model_config():
    assert contradiction_index({0: "contradiction", 1: "entailment", 2: "neutral"}) == 0
    assert contradiction_index({0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}) == 2
    with pytest.raises(SynthError, match="no 'contradiction' label"):
        contradiction_index({0: "positive", 1: "negative"})


def test_an_nli_model_that_cannot_be_loaded_offline_is_a_clear_error(tmp_path):
    pytest.importorskip("sentence_transformers")
    result = run_synth(
        "filter", str(FIXTURES / "pearl_sample.json"), "--out", str(tmp_path / "out"), "--filters", "preference",
        "--judge", "nli", "--no-progress",
        env={"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}, timeout=300,
    )
    assert result.returncode == 2, result.stderr
    assert "cannot load the NLI model 'cross-encoder/nli-deberta-v3-xsmall'" in result.stderr
    assert "--judge llm" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "dialogues.jsonl").exists()


def test_a_stance_on_a_topic_neither_statement_names_is_not_a_contradiction():
    def invented_topic(messages, schema):
        return json.dumps({"topic": "movie quality", "a_feels": "negative", "b_feels": "positive"})

    llm, _ = judge(invented_topic, screen=False)
    assert asyncio.run(PersonaContradiction(llm).check(view(clean_turns()))).keep
    assert grounded("slow films", "too slow for me") and not grounded("movie quality", "They want hope and friendship.")
