"""A small run by the real embedded model, generated once and shared by the tests that read one.

A test that only needs a real run to read (stats, filter, export, report, benchmark training) takes
`smollm_run` rather than generating its own: every llama.cpp generation lengthens the suite.
Only tests of generation itself (determinism, dry run, resume after kill or Ctrl-C, GoRecDial mode) generate."""

import shutil

import pytest
from playwright.sync_api import sync_playwright

from tests.helpers import SMOLLM_RUN_ARGS, generate_smollm

# Debian's Chromium, driven by Playwright, for the tests that open a page (the report's, the rating pages)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
]


@pytest.fixture(scope="session")
def smollm_run(tmp_path_factory):
    """A finished 2-dialogue run by the packaged SmolLM2-135M (seed 11, SMOLLM_RUN_ARGS: --think, its recommender
    turns carry think texts, which the report shows on demand; 6 utterances after the opening, enough for every
    reader of it and half the CI time of the default 12; hybrid retrieval, whose candidates the retriever
    test checks). Read it; copy it before changing it."""
    out = tmp_path_factory.mktemp("smollm")
    generate_smollm(out, *SMOLLM_RUN_ARGS)
    return out


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium for one test module; the test is skipped where the system has none."""
    if CHROMIUM is None:
        pytest.skip("needs Debian's chromium: apt-get install chromium (.ci/run installs it)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
