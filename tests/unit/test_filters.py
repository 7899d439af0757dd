"""Basic filters: each catches its planted defect and passes a clean dialogue (synth and PEARL format);
the `synth filter` pipeline writes kept, dropped-with-reasons and the report."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from synth.data.pearl import iter_pearl
from synth.errors import InputError, SynthError
from synth.filters.acceptance import WrongAcceptance
from synth.filters.config import FilterConfig
from synth.filters.dialogue import from_pearl
from synth.filters.form import Form
from synth.filters.pipeline import filter_run
from synth.filters.recommender_faults import RecommenderFaults
from synth.filters.repetition import Repetition
from synth.filters.target_leak import TargetLeak
from synth.filters.titles import TitleSpotter, title_mentions
from synth.records import DialogueRecord, Turn
from synth.turns import SEED_EXCHANGE
from tests.helpers import FIXTURES, candidates, clean_turns, record, replace, run_synth, view, write_run

BASIC = [Repetition(), TargetLeak(), WrongAcceptance(), RecommenderFaults(), Form()]


@pytest.mark.parametrize("check", BASIC, ids=lambda f: f.name)
def test_every_basic_filter_keeps_a_clean_dialogue(check):
    assert check.check(view(clean_turns())).keep


def test_repetition_catches_word_for_word_and_near_repeats():
    exact = replace(clean_turns(), 3, text="I love stories about friendship and hope, with a lot of heart!")
    verdict = Repetition().check(view(exact))
    assert not verdict.keep and verdict.turn == 5 and "repeats turn 3" in verdict.reason and verdict.score == 1.0
    near = replace(clean_turns(), 3, text="I love stories about friendship and hope, with a lot of heart please.")
    verdict = Repetition().check(view(near))
    assert not verdict.keep and "nearly repeats" in verdict.reason and verdict.evidence.endswith("please.")
    assert Repetition(similarity=99).check(view(near)).keep  # configurable threshold


def test_repetition_catches_a_seeker_parroting_the_seed_exchange():
    parrot = replace(clean_turns(), 1, text=SEED_EXCHANGE[1][1])
    verdict = Repetition().check(view(parrot))
    assert not verdict.keep and "turn 1" in verdict.reason


def test_target_leak_fuzzy_title_year_optional():
    leak = replace(clean_turns(), 1, text="Honestly I just want something like the shawshank redemtion, you know?")
    verdict = TargetLeak().check(view(leak))
    assert not verdict.keep and verdict.turn == 3 and "Shawshank" in verdict.reason
    after = clean_turns() + [Turn(role="recommender", text="Enjoy The Shawshank Redemption!")]
    assert TargetLeak().check(view(after)).keep  # naming it after the recommendation is fine


def test_title_spotter_needs_case_for_one_word_titles_and_whole_words():
    assert TitleSpotter("Heat (1995)").find("I loved Heat (1995).") == "Heat"
    assert TitleSpotter("Heat (1995)").find("the heat of summer") is None
    assert TitleSpotter("Boy A (2007)").find("a boy and his dog") is None
    assert TitleSpotter("Kill Bill: Vol. 1 (2003)").find("kill bill was fun") == "kill bill"
    assert title_mentions("How about The Lord of the Rings (2001)? Or \"Heat\" (1995).") == [
        ("The Lord of the Rings", 2001),
        ("Heat", 1995),
    ]


def test_wrong_acceptance_of_a_non_target_and_an_unfinished_dialogue():
    wrong = replace(clean_turns(), 3, text="Yes, perfect, I'll take it! [EOD]", accepted=True)[:4]
    verdict = WrongAcceptance().check(view(wrong, ended_by="wrong_acceptance"))
    assert not verdict.keep and "accepts 'o1'" in verdict.reason and verdict.turn == 5
    unfinished = clean_turns()[:4]
    verdict = WrongAcceptance().check(view(unfinished, ended_by="turn_cap"))
    assert not verdict.keep and "ended by turn_cap" in verdict.reason
    assert WrongAcceptance(require_target_accepted=False).check(view(unfinished, ended_by="turn_cap")).keep


def test_recommender_faults():
    outside = replace(clean_turns(), 2, candidates=candidates("c2", "c9"))
    verdict = RecommenderFaults().check(view(outside))
    assert not verdict.keep and "not among its candidates" in verdict.reason and verdict.turn == 4
    again = replace(clean_turns(), 4, recommended_item="o1", candidates=candidates("o1"))
    verdict = RecommenderFaults().check(view(again))
    assert not verdict.keep and "already mentioned at turn 4" in verdict.reason
    nothing = [t.model_copy(update={"recommended_item": None}) for t in clean_turns()]
    assert RecommenderFaults().check(view(nothing)).reason == "the recommender never recommends an item"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty utterance"),
        ("Then The Shawshank Redemption (1994), a story of hope and", "cut off after 'and'"),
        ("Then The Shawshank Redemption (1994) is about hope and friendship in a", "cut off after 'a'"),
        ("Sure. Seeker: I would love that.", "role prefix 'Seeker:'"),
        ('{"think": "x", "utterance": "Try this one."}', "leftover format tag"),
        ("Try this one.<|im_end|>", "leftover format tag '<|im_end|>'"),
        ("Try this one [EOD]", "leftover end marker"),
        ("## $$ %% 12 34 !! ?? @@ ^^", "not language"),
        ("Great great great great movie.", "a word repeated"),
    ],
)
def test_form_catches_malformed_utterances(text, problem):
    verdict = Form().check(view(replace(clean_turns(), 4, text=text)))
    assert not verdict.keep and problem in verdict.reason and verdict.turn == 6


def test_form_turn_limits_are_configurable():
    assert Form(min_turns=20).check(view(clean_turns())).reason == "too few turns: 8 < 20"
    assert Form(max_turns=6).check(view(clean_turns())).reason == "too many turns: 8 > 6"
    assert Form(require_end_punctuation=False).check(view(replace(clean_turns(), 1, text="I love hope"))).keep
    assert not Form().check(view(replace(clean_turns(), 1, text="I love hope"))).keep


def pearl_views(path: Path = FIXTURES / "pearl_sample.json"):
    return [from_pearl(dialogue, raw) for _, raw, dialogue in iter_pearl(path)]


@pytest.mark.parametrize("check", BASIC, ids=lambda f: f.name)
def test_pearl_fixture_is_clean_for_every_basic_filter(check):
    assert all(check.check(v).keep for v in pearl_views())


def test_pearl_defects_are_caught(tmp_path):
    dialogues = json.loads((FIXTURES / "pearl_sample.json").read_text())
    leak, wrong, again = (json.loads(json.dumps(dialogues[i])) for i in range(3))
    leak["dialogue"][2] = "Seeker: Fair ones, like Knives Out, which I keep hearing about."
    wrong["dialogue"][-2] = "Recommender: Big Hero 6 (2014) then: a huge soft robot and a brave kid."
    again["dialogue"][3] = "Recommender: 2001: A Space Odyssey (1968) it is. Or maybe Solaris (1972)."
    again["dialogue"].insert(4, "Seeker: Maybe, tell me one more.")
    again["dialogue"].insert(5, "Recommender: Solaris (1972) is slow and beautiful.")
    path = tmp_path / "pearl.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (leak, wrong, again)))
    leak_view, wrong_view, again_view = pearl_views(path)
    assert "names the target 'Knives Out'" in TargetLeak().check(leak_view).reason
    assert "accepts 'Big Hero 6 (2014)', not the target 'The Iron Giant (1999)'" in WrongAcceptance().check(wrong_view).reason
    assert "already mentioned at turn 3" in RecommenderFaults().check(again_view).reason


def test_filter_run_writes_kept_dropped_and_the_report(tmp_path):
    clean = record(clean_turns(), rid="clean")
    leak_and_cut = record(
        replace(replace(clean_turns(), 1, text="I want the shawshank redemption."), 5, text="Yes I will watch it tonight and"),
        rid="two-faults",
    )
    repeat = record(replace(clean_turns(), 3, text=clean_turns()[1].text), rid="repeat")
    run = write_run(tmp_path / "run", [clean, leak_and_cut, repeat])
    out = tmp_path / "filtered"
    report = asyncio.run(filter_run(run, out, FilterConfig()))

    assert [json.loads(line)["id"] for line in (out / "dialogues.jsonl").read_text().splitlines()] == ["clean"]
    assert (out / "dialogues.jsonl").read_text().splitlines()[0] == clean.model_dump_json()  # written back unchanged
    dropped = {json.loads(line)["id"]: json.loads(line) for line in (out / "dropped.jsonl").read_text().splitlines()}
    assert set(dropped) == {"two-faults", "repeat"}
    reasons = {d["filter"]: d for d in dropped["two-faults"]["drops"]}
    assert set(reasons) == {"target_leak", "form"}
    assert reasons["target_leak"]["evidence"] == "I want the shawshank redemption." and reasons["target_leak"]["turn"] == 3
    assert DialogueRecord.model_validate(dropped["repeat"]["record"]).id == "repeat"

    assert (report.dialogues, report.kept, report.dropped) == (3, 1, 2)
    assert report.filters["target_leak"].dropped == 1 and report.filters["target_leak"].drop_rate == pytest.approx(1 / 3, abs=1e-3)
    assert report.filters["repetition"].dropped_by_this_filter_only == 1
    assert report.overlap == {"form & target_leak": 1}
    assert report.filters["form"].examples[0].id == "two-faults"
    assert json.loads((out / "filter_report.json").read_text())["dropped"] == 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["fingerprint"] == "f" and manifest["filter"]["per_filter"]["form"]["dropped"] == 1

    with pytest.raises(SynthError, match="--overwrite"):
        asyncio.run(filter_run(run, out, FilterConfig()))
    only_form = asyncio.run(filter_run(run, out, FilterConfig(filters=["form"]), overwrite=True))
    assert list(only_form.filters) == ["form"] and only_form.dropped == 1


def test_a_bad_record_names_its_line_and_field(tmp_path):
    run = write_run(tmp_path / "run", [record(clean_turns())])
    lines = (run / "dialogues.jsonl").read_text()
    broken = json.loads(lines)
    del broken["outcome"]["ended_by"]
    (run / "dialogues.jsonl").write_text(lines + json.dumps(broken) + "\n")
    with pytest.raises(InputError, match=r"dialogues.jsonl, line 2, field 'outcome.ended_by'"):
        asyncio.run(filter_run(run, tmp_path / "out", FilterConfig()))
    assert not (tmp_path / "out" / "dialogues.jsonl").exists()  # nothing half-written in place


def test_unknown_filter_names_are_refused():
    with pytest.raises(ValueError, match="unknown filter 'nope'"):
        FilterConfig(filters=["nope"])
    assert FilterConfig(filters=["preference", "form"]).selected == ["form", "persona_contradiction", "guess_contradiction"]


def test_synth_filter_cli_on_a_pearl_file_with_settings_from_the_command_line(tmp_path):
    out = tmp_path / "out"
    result = run_synth(
        "filter", str(FIXTURES / "pearl_sample.json"), "--out", str(out), "--set", "form.min_turns=6", "--json", "--no-progress"
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["format"] == "pearl" and report["settings"]["form"]["min_turns"] == 6
    assert (report["kept"], report["filters"]["form"]["dropped"]) == (1, 2)  # the two 5-turn dialogues
    kept = [json.loads(line) for line in (out / "dialogues.jsonl").read_text().splitlines()]
    assert kept[0]["gt_movie_title"] == "The Iron Giant (1999)" and kept[0]["gt_genre"] == "Animation"  # as written
    assert "kept 1 of 3 dialogues" in result.stderr
    bad = run_synth("filter", str(FIXTURES / "pearl_sample.json"), "--out", str(out), "--set", "form.max_turn=3")
    assert bad.returncode == 2 and "config field 'form.max_turn'" in bad.stderr


def test_the_report_never_holds_endpoint_credentials(tmp_path):
    run = write_run(tmp_path / "run", [record(clean_turns())])
    config = FilterConfig(llm={"backend": "openai", "base_url": "https://user:s3cret@api.example.com:8443/v1?key=k3y"})
    report = asyncio.run(filter_run(run, tmp_path / "out", config))
    assert report.settings["llm"]["base_url"] == "https://api.example.com:8443/v1"
    written = (tmp_path / "out" / "filter_report.json").read_text() + (tmp_path / "out" / "manifest.json").read_text()
    assert "s3cret" not in written and "k3y" not in written
