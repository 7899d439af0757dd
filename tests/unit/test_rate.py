"""`synth rate pages` (#65): the pages and the key of a rating round, drawn from the scripted run and ReDial test;
nothing of a source (label, path, dialogue id, model) on a page, no order by source, the sides and each page's order
drawn; the same seed writes the same files; and the run report's section of the scored ratings."""

import json
import re
import shutil
from collections import Counter

import pytest

from synth.data.paths import shared_data_root
from synth.errors import InputError, SynthError
from synth.rating.key import read_key
from synth.rating.pages import RoundOptions, write_round
from synth.rating.protocols import CATEGORIES, PEARL_CRITERIA, read_criteria
from synth.rating.scores import write_scores
from synth.rating.scoring import score
from synth.report.build import ReportOptions, write_report
from synth.runs.layout import RATING_SCORES_FILE
from tests.helpers import run_synth

REDIAL_TEST = shared_data_root() / "redial" / "test_data.jsonl"
pytestmark = pytest.mark.skipif(not REDIAL_TEST.exists(), reason="needs ReDial test in the shared data folder")
LABEL = "zq-arm"  # the scripted run's label: a word no dialogue says


def options(protocol="head-to-head", **changes) -> RoundOptions:
    chosen = {"protocol": protocol, "criteria": PEARL_CRITERIA if protocol == "head-to-head" else CATEGORIES,
              "sample": 6, "raters": 2, "overlap": 0.5, "seed": 7}
    return RoundOptions(**(chosen | changes))


def write(scripted_run, out, protocol="head-to-head", **changes):
    return write_round([f"{LABEL}={scripted_run}", "redial-test"], out, options(protocol, **changes))


def test_a_head_to_head_round_pairs_the_sources_and_shares_the_overlap(scripted_run, tmp_path):
    summary = write(scripted_run, tmp_path)
    key = read_key(summary.key)
    assert summary.items == len(key.items) == 6 and summary.shared == len(key.overlap) == 3
    assert key.sources == {LABEL: str(scripted_run.resolve()), "redial-test": str(REDIAL_TEST.resolve())}
    assert all(sorted(item.sources) == sorted([LABEL, "redial-test"]) for item in key.items.values())
    assert Counter(item.sources[0] for item in key.items.values()) != Counter({LABEL: 6}), "the sides are drawn"
    pages = {rater: (tmp_path / f"{rater}.html").read_text() for rater in ("rater-1", "rater-2")}
    assert sorted(key.raters) == sorted(pages) and sorted(summary.pages) == sorted(pages)
    for rater, tokens in key.raters.items():
        assert set(key.overlap) <= set(tokens)
        found = re.findall(r'<section class="item" data-item="([0-9a-f]+)"', pages[rater])
        assert found == tokens, "the page holds the rater's items in the key's order"
        assert pages[rater].count('<fieldset class="criterion"') == len(tokens) * len(PEARL_CRITERIA)
    assert set(key.raters["rater-1"]) | set(key.raters["rater-2"]) == set(key.items)
    shared_order = [[token for token in key.raters[rater] if token in key.overlap] for rater in key.raters]
    assert shared_order[0] != shared_order[1], "each page's order is its own"


def test_a_page_shows_nothing_of_its_sources(scripted_run, tmp_path):
    summary = write(scripted_run, tmp_path / "round", "defects", sample=10, raters=1)
    key = read_key(summary.key)
    assert "[EOD]" in (scripted_run / "dialogues.jsonl").read_text(), "synth's end marker, which a page leaves out"
    manifest = json.loads((scripted_run / "manifest.json").read_text())
    html = (tmp_path / "round" / "rater-1.html").read_text()
    page = html.lower()
    leaks = [LABEL, "redial", "synth", str(scripted_run), scripted_run.name, "dialogues.jsonl", "test_data",
             manifest["model"]["name"], "key.json", "http://", "https://", "fetch(", "xmlhttprequest", "[eod]", "**"]
    assert [leak for leak in leaks if leak.lower() in page] == []
    ids = [dialogue for item in key.items.values() for dialogue in item.dialogues]
    assert [i for i in ids if re.search(rf"\b{re.escape(i)}\b", html)] == [], "no dialogue id"
    assert all(re.fullmatch(r"[0-9a-f]{10}", token) for token in key.items)
    shown = [key.items[token].sources[0] for token in key.raters["rater-1"]]
    assert sorted(shown) != shown and sorted(shown, reverse=True) != shown, "not in order of source"
    assert html.count('class="defect"') == sum(item.turns[0] for item in key.items.values()) * len(CATEGORIES)


def test_the_same_seed_writes_the_same_round(scripted_run, tmp_path):
    first, second = write(scripted_run, tmp_path / "a"), write(scripted_run, tmp_path / "b")
    assert first.key.read_text() == second.key.read_text()
    assert (tmp_path / "a" / "rater-2.html").read_text() == (tmp_path / "b" / "rater-2.html").read_text()
    other = write(scripted_run, tmp_path / "c", seed=8)
    assert read_key(other.key).round != read_key(first.key).round


def test_a_round_is_never_written_over_its_key(scripted_run, tmp_path):
    write(scripted_run, tmp_path)
    with pytest.raises(SynthError, match="key.json exists"):
        write(scripted_run, tmp_path)


def test_head_to_head_needs_two_sources_and_labels_apart(scripted_run, tmp_path):
    with pytest.raises(SynthError, match="two sources or more"):
        write_round([str(scripted_run)], tmp_path / "one", options())
    with pytest.raises(SynthError, match="two sources are called 'same'"):
        write_round([f"same={scripted_run}", "same=redial-test"], tmp_path / "two", options())


def test_the_cli_names_an_unknown_protocol_and_a_bad_key_in_one_line(scripted_run, tmp_path):
    result = run_synth("rate", "pages", str(scripted_run), "--protocol", "ranking", "--out", str(tmp_path / "x"))
    assert (result.returncode, result.stderr) == (2, "error: unknown protocol 'ranking'; choose head-to-head or defects\n")
    key = tmp_path / "key.json"
    key.write_text('{"round": "r", "protocol": "defects"}')
    (tmp_path / "r.jsonl").write_text("")
    result = run_synth("rate", "score", str(key), str(tmp_path / "r.jsonl"))
    assert (result.returncode, result.stderr) == (2, f"error: {key}, field 'criteria': not a `synth rate` key (Field required)\n")


def test_criteria_come_from_a_yaml_file(tmp_path):
    good = tmp_path / "criteria.yaml"
    good.write_text("fluency: Which dialogue reads more naturally?\nconsistency: Which one contradicts itself less?\n")
    assert read_criteria(good) == {"fluency": "Which dialogue reads more naturally?",
                                   "consistency": "Which one contradicts itself less?"}
    bad = tmp_path / "bad.yaml"
    bad.write_text("Fluency!: Which?\n")
    with pytest.raises(InputError, match=r"bad.yaml, field 'Fluency!': a criterion's name"):
        read_criteria(bad)


def test_the_run_report_shows_the_scores_found_in_the_run_folder(scripted_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(scripted_run, run)
    key = read_key(write(scripted_run, tmp_path / "round").key)
    write_scores(score(key, []), run / RATING_SCORES_FILE)
    write_report(run, run / "report.html", ReportOptions(compare=[], acts=False, sample=5, similarity_model=None))
    html = (run / "report.html").read_text()
    assert '<section id="ratings">' in html and f"Head to head: {LABEL} against redial-test" in html
    assert "0 of 6 items rated by 0 raters" in html
