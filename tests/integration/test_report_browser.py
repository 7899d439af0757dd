"""`synth report` on a run the embedded model wrote and `synth filter` judged, opened in headless Chromium
(Debian's package, driven by Playwright): the dialogue list renders, search narrows it, a dropped dialogue
shows its reason, and the page fetches nothing from the network. The screenshot lands in test-artifacts/."""

import json
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from synth.data.paths import shared_data_root
from tests.helpers import run_synth

INSPIRED_TEST = shared_data_root() / "inspired" / "data" / "dialog_data" / "test.tsv"
pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not INSPIRED_TEST.exists(), reason="the shared datasets are not beside the project")]
ARTIFACTS = Path(os.environ.get("SYNTH_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts"))


@pytest.fixture(scope="module")
def filtered(smollm_run, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "filtered"
    result = run_synth("filter", str(smollm_run), "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    return out


def visible_items(page: Page):
    return page.locator(".dialogue-item:visible")


def test_report_renders_searches_and_shows_why_a_dialogue_was_dropped(filtered, browser: Browser):
    dropped = [json.loads(line) for line in (filtered / "dropped.jsonl").read_text().splitlines()]
    kept = [json.loads(line) for line in (filtered / "dialogues.jsonl").read_text().splitlines()]
    records = {r["id"]: r for r in kept} | {d["id"]: d["record"] for d in dropped}
    assert len(records) == 2 and dropped, "the basic filters drop SmolLM2's looping dialogues (seed 11)"
    report = filtered / "report.html"
    result = run_synth(
        "report", str(filtered), "--compare", f"INSPIRED test={INSPIRED_TEST}", "--out", str(report),
        "--no-similarity", "--no-acts",
    )
    assert result.returncode == 0, result.stderr
    assert "2 of 2 dialogues in the browser, compared with INSPIRED test" in result.stdout
    html = report.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), "the page must not load anything remote"

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(report.as_uri())

    # the list renders, and the first dialogue opens as a chat with every utterance
    expect(visible_items(page)).to_have_count(2)
    expect(page.locator("#shown-count")).to_have_text("2 of 2 shown")
    first_id = page.locator(".dialogue-item").first.get_attribute("data-id")
    opened = page.locator("article.dialogue:visible")
    expect(opened).to_have_count(1)
    expect(opened.locator(".turn")).to_have_count(len(records[first_id]["turns"]))
    expect(page.locator("#statistics thead th", has_text="INSPIRED test")).to_have_count(1)

    # searching narrows the list: a word only one dialogue holds, then a phrase none holds
    other_id = next(i for i in records if i != first_id)
    other_text = (page.locator(f'article[id="{other_id}"]').text_content() or "").lower()
    words = {w for t in records[first_id]["turns"] for w in re.findall(r"[a-z]{6,}", t["text"].lower())}
    word = sorted(w for w in words if w not in other_text)[0]
    page.fill("#search", word)
    expect(visible_items(page)).to_have_count(1)
    expect(visible_items(page)).to_have_attribute("data-id", first_id)
    expect(page.locator("#shown-count")).to_have_text("1 of 2 shown")
    page.fill("#search", "no dialogue says this")
    expect(visible_items(page)).to_have_count(0)
    page.fill("#search", "")
    expect(visible_items(page)).to_have_count(2)

    # a dropped dialogue shows its filters' reasons, and the offending utterance is marked
    page.select_option("#status", "dropped")
    expect(visible_items(page)).to_have_count(len(dropped))
    entry = dropped[-1]
    page.locator(f'.dialogue-item[data-id="{entry["id"]}"]').click()
    opened = page.locator(f'article[id="{entry["id"]}"]')
    expect(opened).to_be_visible()
    for drop in entry["drops"]:
        expect(opened.locator(".drops")).to_contain_text(drop["reason"])
        if drop.get("turn") is not None:
            offending = opened.locator(f'.turn[data-turn="{drop["turn"]}"]')
            expect(offending).to_have_class(re.compile(r"\boffending\b"))
            expect(offending.locator("mark")).to_be_visible()
            expect(offending.locator(".drop-reason")).to_contain_text(drop["reason"])

    # think text on demand
    think = opened.locator("details.think").first
    expect(think).not_to_have_attribute("open", "")
    page.check("#show-think")
    expect(think).to_have_attribute("open", "")

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shots = [ARTIFACTS / name for name in ("report-dropped-dialogue.png", "report-offending-utterance.png",
                                           "report-full-page.png")]
    page.screenshot(path=str(shots[0]))  # the list filtered to dropped dialogues, one open with its reasons
    marked = next((d["turn"] for d in entry["drops"] if d.get("turn") is not None), None)
    if marked is not None:
        opened.locator(f'.turn[data-turn="{marked}"]').scroll_into_view_if_needed()
    page.screenshot(path=str(shots[1]))
    page.screenshot(path=str(shots[2]), full_page=True)
    for shot in shots:
        print(f"screenshot: {shot}")
        assert shot.stat().st_size > 10_000
    assert not errors, errors
    assert all(url.startswith(("file:", "data:")) for url in fetched), fetched
    page.close()
