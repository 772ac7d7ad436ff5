"""The Space in a real headless browser: Debian's chromium driven by playwright.

Skips, with the reason, only where chromium cannot be had (``make test`` installs it as
root); under CI (``CI=true``) a missing browser is a failure, not a skip. The screenshot
is saved under ``artifacts/`` (git-ignored).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.helpers.oracles import CARD_PREDICTIONS, CARD_REFERENCES, REPO
from tests.surfaces.test_app import as_text

# CHROMIUM_PATH points at another Debian chromium binary (or at none, to check the skip).
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = REPO / "artifacts"


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        reason = f"Debian's chromium not found at {CHROMIUM} (as root: apt-get install chromium; make test does it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must run the browser test: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, app_url):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(30_000)
    page.goto(app_url)
    page.wait_for_selector("#compute")
    yield page
    page.close()


def shown_score(page) -> str:
    page.wait_for_selector("#score h2")
    return re.search(r"Google-BLEU (\d\.\d{4})", page.inner_text("#score")).group(1)


def test_paste_compute_read_score_highlight_and_table(page):
    import evaluate

    wanted = evaluate.load(str(REPO / "google_bleu")).compute(predictions=CARD_PREDICTIONS, references=CARD_REFERENCES)
    page.locator("#predictions textarea").fill("\n".join(CARD_PREDICTIONS))
    page.locator("#references textarea").fill(as_text(CARD_REFERENCES))
    page.click("#compute")
    assert shown_score(page) == f"{wanted['google_bleu']:.4f}"
    assert wanted["signature"] in page.inner_text("#score")

    # Why this score: segment 1, its chosen reference, matched n-grams highlighted.
    assert "Segment 1" in page.inner_text("#segment-info")
    assert "reference 2 of 3 chosen" in page.inner_text("#segment-info")
    highlighted = page.locator("#highlight-prediction .highlighted")
    assert highlighted.count() > 0
    assert "It is a guide to action" in highlighted.first.inner_text()
    assert page.locator("#highlight-reference .highlighted").count() > 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "space.png"), full_page=True)

    # The table: one row per segment with its prediction; clicking a row explains it.
    page.get_by_role("tab", name="Segments").click()
    table = page.locator("#segments")
    for prediction in CARD_PREDICTIONS:
        table.get_by_text(prediction, exact=True).filter(visible=True).first.wait_for()
    table.get_by_text(CARD_PREDICTIONS[1], exact=True).filter(visible=True).first.click()
    page.get_by_role("tab", name="Why this score").click()
    page.wait_for_function("document.querySelector('#segment-info').innerText.includes('Segment 2')")
    assert "he was interested in world history" in page.inner_text("#highlight-reference")
    page.screenshot(path=str(ARTIFACTS / "space-segment-2.png"), full_page=True)

    # The distribution plot renders.
    page.get_by_role("tab", name="Distribution").click()
    page.locator("#distribution canvas, #distribution svg").first.wait_for()


def test_example_click_and_bad_input_message(page):
    page.get_by_text("The cat sat on the mat", exact=True).click()
    page.wait_for_function("document.querySelector('#predictions textarea').value === 'the cat sat on the mat'")
    page.click("#compute")
    assert shown_score(page) == "0.3333"

    page.locator("#predictions textarea").fill("one\ntwo")
    page.locator("#references textarea").fill("one")
    page.click("#compute")
    message = page.locator("#message")
    message.wait_for(state="visible")
    assert "2 prediction lines but 1 reference lines" in message.inner_text()
    assert "Traceback" not in page.content()
    # The earlier result is cleared, so it cannot be taken for this input's.
    page.wait_for_selector("#score h2", state="detached")
    page.screenshot(path=str(ARTIFACTS / "space-error.png"), full_page=True)


def test_oversize_input_shows_its_message(page):
    # One character over the page's cap, typed into the box as a user would paste it.
    import app

    page.locator("#predictions textarea").fill("x" * app.MAX_INPUT_CHARS)
    page.locator("#references textarea").fill("y")
    page.click("#compute")
    message = page.locator("#message")
    message.wait_for(state="visible", timeout=60_000)
    assert f"input too large: {app.MAX_INPUT_CHARS + 1:,} characters" in message.inner_text()
    assert "Traceback" not in page.inner_text("body")
