"""`synth rate` end to end (#65): pages made from the run the embedded model wrote and ReDial test, opened in headless
Chromium (Debian's package, driven by Playwright), clicked through by scripted raters (head to head, then defect
marking), progress kept over a reload, the ratings saved through the page's download and scored by `synth rate
score`. Nothing on a page names a source, and the page can neither fetch the key nor anything else. The scored tables
are printed (run with -s) and the screenshots land in test-artifacts/."""

import json
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from synth.data.paths import shared_data_root
from synth.rating.protocols import CATEGORIES, PEARL_CRITERIA
from tests.helpers import run_synth

REDIAL_TEST = shared_data_root() / "redial" / "test_data.jsonl"
pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not REDIAL_TEST.exists(), reason="the shared datasets are not beside the project")]
ARTIFACTS = Path(os.environ.get("SYNTH_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts"))
HUMAN = "redial-test"


def make_pages(run: Path, out: Path, *options: str) -> dict:
    result = run_synth("rate", "pages", str(run), HUMAN, "--out", str(out), "--sample", "2", *options)
    assert result.returncode == 0, result.stderr
    return json.loads((out / "key.json").read_text())


def open_blind_page(browser: Browser, page_file: Path, key: dict, run: Path) -> tuple[Page, list[str], list[str]]:
    """The rater's page, checked for anything that names a source, in its file and in the live page; with the
    lists its script errors and its requests will be noted in."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(page_file.as_uri())
    manifest = json.loads((run / "manifest.json").read_text())
    leaks = [*key["sources"], *key["sources"].values(), str(run), run.name, manifest["model"]["name"], "smollm",
             "redial", "key.json", "dialogues.jsonl", "http:", "https:", "[eod]"]
    for text in (page_file.read_text(), page.content(), page.evaluate("() => JSON.stringify(localStorage)")):
        assert [leak for leak in leaks if leak.lower() in text.lower()] == [], page_file
        ids = [dialogue for item in key["items"].values() for dialogue in item["dialogues"]]
        assert [i for i in ids if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text)] == [], "no dialogue id"
    return page, errors, fetched


def shown_item(page: Page, key: dict) -> tuple[str, dict]:
    token = page.locator("section.item:visible").get_attribute("data-item")
    return token, key["items"][token]


def save_ratings(page: Page, path: Path) -> list[dict]:
    with page.expect_download() as download:
        page.click("#save")
    assert download.value.suggested_filename == f"ratings-{path.stem}.jsonl"
    download.value.save_as(path)
    return [json.loads(line) for line in path.read_text().splitlines()]


def assert_nothing_fetched_and_key_out_of_reach(page: Page, errors: list[str], fetched: list[str], page_file: Path) -> None:
    """No script error; no request but the page itself (and the download's blob); and a script on the page that
    tried to read the key beside it would fail."""
    assert not errors, errors
    assert {url for url in fetched if not url.startswith("blob:")} == {page_file.as_uri()}, fetched
    reach = "() => fetch('key.json').then(r => r.text()).then(() => 'read', () => 'blocked')"
    assert page.evaluate(reach) == "blocked", "a page must not be able to read the key beside it"


def score(folder: Path, *ratings: Path) -> tuple[str, dict]:
    scores = folder / "scores.json"
    result = run_synth("rate", "score", str(folder / "key.json"), *map(str, ratings), "--out", str(scores))
    assert result.returncode == 0, result.stderr
    print(result.stdout)
    return result.stdout, json.loads(scores.read_text())


def test_head_to_head_from_pages_through_the_browser_to_scores(smollm_run, browser, tmp_path):
    folder = tmp_path / "head-to-head"
    key = make_pages(smollm_run, folder, "--raters", "2", "--overlap", "1")
    generated = next(label for label in key["sources"] if label != HUMAN)
    assert len(key["items"]) == 2 and all(len(tokens) == 2 for tokens in key["raters"].values())
    # rater-1 prefers the generated dialogue on every criterion; rater-2 on the first, ties the second, prefers
    # ReDial on the third
    plans = {"rater-1": ("ours", "ours", "ours"), "rater-2": ("ours", "tie", "theirs")}
    saved = []
    for rater, plan in plans.items():
        page_file = folder / f"{rater}.html"
        page, errors, fetched = open_blind_page(browser, page_file, key, smollm_run)
        expect(page.locator("#done-count")).to_have_text("0 of 2 done")
        for position in range(2):
            token, item = shown_item(page, key)
            ours = "left" if item["sources"][0] == generated else "right"
            theirs = "right" if ours == "left" else "left"
            for criterion, pick in zip(PEARL_CRITERIA, plan):
                side = {"ours": ours, "theirs": theirs, "tie": "tie"}[pick]
                page.locator(f'section.item:visible fieldset[data-criterion="{criterion}"] input[value="{side}"]').check()
            expect(page.locator("#done-count")).to_have_text(f"{position + 1} of 2 done")
            if position == 0:
                page.reload()  # the answers are kept in the browser
                expect(page.locator("#done-count")).to_have_text("1 of 2 done")
                page.click("#next")
        ratings = save_ratings(page, tmp_path / f"{rater}.jsonl")
        assert [r["item"] for r in ratings] == key["raters"][rater] and all(r["rater"] == rater for r in ratings)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"rate-head-to-head-{rater}.png"), full_page=True)
        assert_nothing_fetched_and_key_out_of_reach(page, errors, fetched, page_file)
        page.close()
        saved.append(tmp_path / f"{rater}.jsonl")

    table, scores = score(folder, *saved)
    [found] = scores["comparisons"]
    assert (found["first"], found["second"], found["items"], found["ratings"]) == (generated, HUMAN, 2, 4)
    first, second, third = (found["criteria"][name] for name in PEARL_CRITERIA)
    assert (first["first_wins"]["share"], second["ties"]["share"], third["second_wins"]["share"]) == (1.0, 0.5, 0.5)
    assert f"| {PEARL_CRITERIA['specific_preferences']} | 100% [100%, 100%] (4) | 0% [0%, 0%] (0) | 0% [0%, 0%] (0) |" in table
    # every item rated by both: the first criterion is one value throughout (undefined), the others split each item
    assert [a["alpha"] for a in scores["agreement"]] == [None, -0.5, -0.5]


def test_defect_marking_from_pages_through_the_browser_to_scores(smollm_run, browser, tmp_path):
    folder = tmp_path / "defects"
    key = make_pages(smollm_run, folder, "--protocol", "defects", "--raters", "2", "--overlap", "0.5")
    generated = next(label for label in key["sources"] if label != HUMAN)
    assert len(key["items"]) == 4 and len(key["overlap"]) == 2
    saved = []
    for rater, tokens in key["raters"].items():
        page_file = folder / f"{rater}.html"
        page, errors, fetched = open_blind_page(browser, page_file, key, smollm_run)
        for position in range(len(tokens)):
            token, item = shown_item(page, key)
            shown = page.locator("section.item:visible")
            expect(shown.locator("li.turn")).to_have_count(item["turns"][0])
            if item["sources"] == [generated]:  # turn 2 out of place, with a note; not sound
                turn = shown.locator('li.turn[data-turn="2"]')
                turn.locator("summary").click()
                turn.locator('input.defect[value="out_of_place"]').check()
                turn.locator("textarea.note").fill("answers a question nobody asked")
                shown.locator('fieldset.verdict input[value="no"]').check()
            else:
                shown.locator('fieldset.verdict input[value="yes"]').check()
            if position < len(tokens) - 1:
                page.click("#next")
        expect(page.locator("#done-count")).to_have_text(f"{len(tokens)} of {len(tokens)} done")
        ratings = save_ratings(page, tmp_path / f"{rater}.jsonl")
        for rating in ratings:
            ours = key["items"][rating["item"]]["sources"] == [generated]
            assert rating["sound"] is not ours
            assert (rating["defects"], rating["notes"]) == (
                ({"out_of_place": [2]}, {"2": "answers a question nobody asked"}) if ours else ({}, {}))
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"rate-defects-{rater}.png"), full_page=True)
        assert_nothing_fetched_and_key_out_of_reach(page, errors, fetched, page_file)
        page.close()
        saved.append(tmp_path / f"{rater}.jsonl")

    table, scores = score(folder, *saved)
    ours, human = scores["defects"]
    assert (ours["source"], ours["items"], human["source"], human["items"]) == (generated, 2, HUMAN, 2)
    assert (ours["sound"]["share"], ours["categories"]["out_of_place"]["share"], ours["turns"]["out_of_place"]) == (
        0.0, 1.0, ours["ratings"])
    assert (human["sound"]["share"], human["categories"]["out_of_place"]["share"]) == (1.0, 0.0)
    assert f"| {CATEGORIES['out_of_place']} | 100% [100%, 100%] ({ours['ratings']}); turns: {ours['ratings']} |" in table
    # the raters agree on every item both judged: alpha 1 where those items differ, undefined where they do not
    both = {tuple(key["items"][token]["sources"]) for token in key["overlap"]}
    sound = next(a for a in scores["agreement"] if a["measure"] == "sound")
    assert sound["alpha"] == (1.0 if len(both) == 2 else None) and sound["items"] == 2
