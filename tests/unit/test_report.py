"""`synth report` assembles one self-contained page from a run folder: the manifest's model, settings and
prompts (credentials hidden), statistics beside a human dataset, the filter's drops, and every dialogue.
The browser behaviour is checked in Chromium by tests/integration/test_report_browser.py."""

import asyncio
import importlib.util
import json
import re
import shutil
from html import escape

import pytest

from synth.config import GenerateConfig
from synth.data.paths import shared_data_root
from synth.errors import InputError
from synth.filters.config import BASIC_FILTERS, FilterConfig
from synth.filters.pipeline import filter_run
from synth.llm.scripted import ScriptedBackend
from synth.records import DialogueRecord
from synth.report.build import ReportOptions, write_report
from synth.report.dialogue_views import dialogue_view
from synth.report.run_files import ReportedDialogue, open_run
from synth.runner import generate
from synth.runs.filtering import Drop
from tests.helpers import first_candidate_script, run_synth

REDIAL_TEST = shared_data_root() / "redial" / "test_data.jsonl"
SECRET = "sk-do-not-show-42"


@pytest.fixture(scope="module")
def filtered(scripted_run, tmp_path_factory):
    """The scripted run filtered with a turn cap that drops one dialogue, its manifest given credentials."""
    folder = tmp_path_factory.mktemp("report")
    run = folder / "run"
    shutil.copytree(scripted_run, run)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["config"]["base_url"] = f"https://user:{SECRET}@api.example.com/v1?key={SECRET}"
    manifest["config"]["api_key"] = SECRET
    (run / "manifest.json").write_text(json.dumps(manifest))
    # the per-dialogue basic filters only: the scripted games say the same lines, which dedup would drop
    config = FilterConfig(filters=list(BASIC_FILTERS), form={"max_turns": 10})
    report = asyncio.run(filter_run(run, folder / "filtered", config, progress=False))
    assert report.dropped == 1
    return folder / "filtered"


def test_the_page_holds_every_section_and_no_secret(filtered):
    out = filtered / "report.html"
    options = ReportOptions(compare=[f"ReDial test={REDIAL_TEST}"], acts=False, sample=40, similarity_model=None)
    summary = write_report(filtered, out, options)
    html = out.read_text()
    assert (summary.dialogues_shown, summary.dialogues_total, summary.compared) == (20, 20, ["ReDial test"])
    assert SECRET not in html and "https://api.example.com/v1" in html and "(hidden)" in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert html.count('<article class="dialogue"') == 20
    # the model, the prompts checked against the run's hashes, tokens
    manifest = json.loads((filtered / "manifest.json").read_text())
    assert manifest["model"]["name"] in html and f"{manifest['tokens']['prompt']:,}" in html
    assert html.count("same as the run (") == len(manifest["prompt_hashes"]) == 5  # 4 templates and the examples
    # statistics: the kept and dropped parts of the run beside ReDial, with the plots inlined
    header = re.search(r'<section id="statistics">.*?</thead>', html, re.S).group(0)
    assert [h for h in re.findall(r"<th>([^<]*)</th>", header) if h] == [
        "filtered (kept)", "filtered (dropped)", "ReDial test"
    ]
    assert html.count('src="data:image/png;base64,') >= 4  # 3 statistics plots and the filter's drop rates
    # utterance defects for the same columns: ReDial has no persona, so its persona rows are "–"
    defects = re.search(r'<section id="defects">.*?</section>', html, re.S).group(0)
    assert "human sets show only the word-level ones" in defects
    contradicts = re.search(r"<th[^>]*>contradicts its own review.*?</tr>", defects, re.S).group(0)
    assert re.findall(r"<td>([^<]*)</td>", contradicts)[-1] == "–"
    # the filter's drop, with its reason, in the table and on the dialogue
    dropped = json.loads((filtered / "dropped.jsonl").read_text())
    reason = escape(dropped["drops"][0]["reason"])  # "14 > 10" is written "14 &gt; 10"
    assert "19 of 20 dialogues kept, 1 dropped (5.0%)" in html
    article = re.search(rf'<article class="dialogue" id="{dropped["id"]}".*?</article>', html, re.S).group(0)
    assert reason in article and "badge dropped" in article
    assert "Not in this report: pass --acts" in html


def test_the_browser_holds_a_seeded_sample_of_a_large_run(filtered, tmp_path):
    options = ReportOptions(compare=[], acts=False, max_dialogues=5, seed=1, similarity_model=None)
    first = write_report(filtered, tmp_path / "a.html", options)
    write_report(filtered, tmp_path / "b.html", options)
    ids = [re.findall(r'<article class="dialogue" id="([^"]+)"', (tmp_path / n).read_text()) for n in ("a.html", "b.html")]
    assert (first.dialogues_shown, first.dialogues_total) == (5, 20) and len(ids[0]) == 5 and ids[0] == ids[1]
    assert "5 of 20 dialogues (a seeded sample, seed 1)" in (tmp_path / "a.html").read_text()


def test_a_drop_marks_its_offending_utterance_and_candidates_have_titles(scripted_run):
    files = open_run(scripted_run)
    record = next(files.records())
    offending = next(i for i, t in enumerate(record.turns) if t.role == "seeker" and i > 2)
    drop = Drop(filter="repetition", reason="seeker repeats itself", evidence=record.turns[offending].text,
                turn=offending, score=0.95)
    view = dialogue_view(ReportedDialogue(record, [drop]), files.items, filtered=True)
    assert view.status == "dropped" and [d.reason for d in view.drops] == ["seeker repeats itself"]
    assert [i for i, t in enumerate(view.turns) if t.drops] == [offending]
    recommending = next(t for t in view.turns if t.recommended)
    assert recommending.recommended in {c.title for c in recommending.candidates if c.recommended}
    assert all(not c.title.startswith("item ") for t in view.turns for c in t.candidates)
    assert view.target_review is not None and len(view.taste) == len(record.persona.general)


def test_bad_input_names_the_file_line_and_field(filtered, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(filtered, broken)
    entry = json.loads((broken / "dropped.jsonl").read_text())
    del entry["record"]["turns"]
    (broken / "dropped.jsonl").write_text("\n" + json.dumps(entry) + "\n")
    (broken / "report.html").write_text("an earlier report")
    result = run_synth("report", str(broken), "--no-similarity", "--no-acts")
    assert result.returncode == 2
    assert f"{broken / 'dropped.jsonl'}, line 2, field 'record.turns'" in result.stderr
    assert (broken / "report.html").read_text() == "an earlier report"  # left as it was, no partial file
    assert not (broken / "report.html.part").exists()
    with pytest.raises(InputError, match="holds no dialogues.jsonl"):
        open_run(tmp_path)


def test_cli_writes_the_report_into_the_run_folder_by_default(scripted_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(scripted_run, run)
    result = run_synth("report", str(run), "--no-similarity", "--no-acts")
    assert result.returncode == 0, result.stderr
    assert f"wrote {run / 'report.html'}" in result.stdout and "20 of 20 dialogues in the browser" in result.stdout
    html = (run / "report.html").read_text()
    assert 'id="filter"' not in html and 'data-status="unfiltered"' in html
    assert DialogueRecord.model_validate_json((run / "dialogues.jsonl").read_text().splitlines()[0]).id in html


def test_a_gorecdial_game_shows_the_seekers_movies_and_the_experts_candidates(tmp_path):
    config = GenerateConfig(mode="gorecdial", n=1, seed=5, progress=False)
    asyncio.run(generate(config, tmp_path, backend=ScriptedBackend(first_candidate_script)))
    files = open_run(tmp_path)
    record = next(files.records())
    view = dialogue_view(ReportedDialogue(record), files.items, filtered=False)
    assert view.target_review is None and len(view.liked) == 5
    assert [correct for _, correct in view.game_candidates].count(True) == 1
    assert view.game_candidates[record.gorecdial.correct_index] == (record.target_item.display, True)
    assert any(t.correct is not None for t in view.turns)
    write_report(tmp_path, tmp_path / "report.html", ReportOptions(compare=[], acts=False, similarity_model=None))
    html = (tmp_path / "report.html").read_text()
    assert "The seeker likes" in html and html.count('<span class="badge ok">correct</span>') == 1
    assert ("correct item" if record.outcome.accepted_target else "wrong item") in html


def test_a_saved_act_model_without_its_extras_is_left_out_with_a_warning(scripted_run, tmp_path, monkeypatch, caplog):
    """`pip install synth-crs` alone (no 'bench'/'dense' extras) still writes the report when an act model exists."""
    models = tmp_path / "acts"
    models.mkdir()
    (models / "act_model.joblib").write_bytes(b"never read")
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == "sklearn" else find_spec(name, *rest))
    options = ReportOptions(compare=[], acts_model=models, similarity_model=None)
    summary = write_report(scripted_run, tmp_path / "report.html", options)
    assert not summary.acts and "dialogue acts need the 'bench' and 'dense' extras" in caplog.text
